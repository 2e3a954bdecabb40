"""Fill the generated blocks of README.md and docs/instructor.md from the measured results in assets/.

Numbers shown to readers come from files written by benchmark scripts, never typed in. Each block sits
between `<!-- NAME:start -->` and `<!-- NAME:end -->`.

    python tools/update_docs.py           # rewrite the blocks
    python tools/update_docs.py --check   # exit 1 if a block is out of date (the tests run this)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path

from chapters import CHAPTERS
from lessons import lessons_block

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "assets"


def _load(name: str) -> dict | None:
    path = ASSETS / name
    return json.loads(path.read_text()) if path.exists() else None


def status_block() -> str:
    missing = [f"{n} ({t})" for n, t in CHAPTERS.items() if not (ROOT / "notebooks" / n).exists()]
    if not missing:
        return "All chapters are available."
    return "**Still being written:** " + ", ".join(missing) + ". The links to them do not work yet."


def timing_block() -> str:
    measured = _load("notebooks.json") or {"notebooks": {}}
    rows = ["| Chapter | Reading time | Run top to bottom | Kernel peak memory |", "|---|---|---|---|"]
    for name, title in CHAPTERS.items():
        path = ROOT / "notebooks" / name
        if not path.exists():
            continue
        m = measured["notebooks"].get(name)
        run = f"{m['seconds']:.0f} s" if m else "not measured yet"
        mem = f"{m['peak_mb']:.0f} MB" if m else "not measured yet"
        reading = f"about {m['reading_minutes']} min" if m and "reading_minutes" in m else "not measured yet"
        rows.append(f"| {title} | {reading} | {run} | {mem} |")
    if measured.get("notebooks"):
        rows.append("")
        busy = measured["load_average_1min"] > measured["cpus"] / 2
        rows.append(f"Measured by `python -m benchmarks.notebook_memory` on {measured['cpus']} CPU cores "
                    f"(load average {measured['load_average_1min']} during the run"
                    + ("; other programs shared the machine, so the run times are upper bounds" if busy else "")
                    + f"); target {measured['target_mb']} MB per chapter.")
    return "\n".join(rows)


def _benchmark(name: str):
    """benchmarks/<name>.py as a module: benchmarks/ is a folder of scripts that import each other by name."""
    folder = str(ROOT / "benchmarks")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _without_heading(markdown: str) -> str:
    """A rendered table without its top heading (the README has its own)."""
    lines = markdown.strip().splitlines()
    return "\n".join(lines[1:] if lines[0].startswith("#") else lines).strip()


def results_block() -> str:
    """assets/results.json as benchmarks/bench.py renders it for people."""
    results = _load("results.json")
    if results is None:
        return "Not measured yet: run `python benchmarks/bench.py`."
    return _without_heading(_benchmark("bench").markdown(results))


def real_text_block() -> str:
    """assets/real_text.json as benchmarks/real_text.py renders it: the one-head vs four-head table on the
    shipped novels."""
    results = _load("real_text.json")
    if results is None or "summary" not in results:
        return "Not measured yet: run `python benchmarks/real_text.py table`."
    return _without_heading(_benchmark("real_text").markdown(results))


def explorer_block() -> str:
    """The explorer's measured update times."""
    kernel, browser = _load("explorer_speed.json"), _load("explorer_browser_speed.json")
    if kernel is None:
        return "Not measured yet: run `python benchmarks/explorer_speed.py`."
    verdict = "meets" if kernel["meets_target"] else "misses"
    lines = [f"- One update for a {kernel['words']}-word sentence (tokenize, forward pass, figure update), "
             f"kernel side: median {kernel['sentence_update_median_ms']:.1f} ms, 90th percentile "
             f"{kernel['sentence_update_p90_ms']:.1f} ms over {kernel['repeats']} repeats; a head change: median "
             f"{kernel['head_change_median_ms']:.1f} ms. This {verdict} the target of "
             f"{kernel['target_median_ms']:.0f} ms ({kernel['machine']}"
             + (f"; load average {kernel['load_average_1_5_15']}" if "load_average_1_5_15" in kernel else "") + ")."]
    if "forward_one_thread_median_ms" in kernel:
        lines.append("- The forward pass alone, side by side: median "
                     f"{kernel['forward_policy_threads_median_ms']:.1f} ms on {kernel['policy_threads']} threads, "
                     f"{kernel['forward_one_thread_median_ms']:.1f} ms on one thread, which the explorer uses "
                     "(on a busy machine the threads wait for each other).")
    if "model_switch_median_ms" in kernel:
        verdict = "meets" if kernel["model_switch_meets_target"] else "misses"
        lines.append(f"- Switching model (through the {len(kernel['switched_models'])} models of the menu, "
                     "all read when the explorer opens), kernel side: "
                     f"median {kernel['model_switch_median_ms']:.0f} ms, slowest {kernel['model_switch_max_ms']:.0f} "
                     f"ms over {kernel['model_switch_repeats']} switches; this {verdict} the target of "
                     f"{kernel['model_switch_target_ms']:.0f} ms (load average {kernel['load_average_1_5_15']}: "
                     "other programs shared the machine).")
    if browser is not None:
        lines.append(f"- In {browser['browser']}, from picking a head to the redrawn heatmap: "
                     f"{browser['head_change_to_redraw_ms']:.0f} ms (measured by the browser test).")
    return "\n".join(lines)


def widgets_block() -> str:
    """The chapter widgets' measured update times, and how busy the machine was."""
    speed = _load("widget_speed.json")
    if speed is None:
        return "Not measured yet: run `python benchmarks/widget_speed.py`."
    start, end = speed["machine_at_start"], speed["machine_at_end"]
    rows = ["| Widget | Update | Median | 90th percentile |", "|---|---|---|---|"]
    rows += [f"| {r['widget']} | {r['update']} | {r['median_ms']:.1f} ms | {r['p90_ms']:.1f} ms |"
             for r in speed["updates"]]
    verdict = "Every median meets" if speed["meets_target"] else "Not every median meets"
    busy = max(start["load_average_1_5_15"][0], end["load_average_1_5_15"][0]) > start["cpus"] / 2
    rows += ["", f"{verdict} the target of {speed['target_median_ms']:.0f} ms. Measured by "
             f"`python benchmarks/widget_speed.py` on {start['date_utc']} UTC: {start['cpus']} CPU cores, "
             f"{start['torch_threads']} torch threads, load average (1, 5, 15 min) {start['load_average_1_5_15']} "
             f"at the start and {end['load_average_1_5_15']} at the end"
             + (": other programs shared the machine, so these times are slower than on an idle one." if busy
                else ".")]
    return "\n".join(rows)


def threads_block() -> str:
    """Training speed with 1 thread and with the thread policy's choice, and the live races' CPU time."""
    measured = _load("threads.json")
    if measured is None:
        return "Not measured yet: run `python benchmarks/threads.py`."
    start, end = measured["machine_start"], measured["machine_end"]
    quota = measured["cgroup_quota_cpus"]
    lines = [f"- Thread policy: {measured['chosen_threads']} torch thread(s) here (this process may run on "
             f"{measured['affinity_cpus']} CPUs, {'no CPU quota' if quota is None else f'a CPU quota of {quota:g}'}).",
             f"- Four-head training, alternating runs side by side: {measured['tokens_per_s_1_thread']:,} tokens/s "
             f"with 1 thread, {measured['tokens_per_s_chosen']:,} tokens/s with {measured['chosen_threads']}. "
             f"Load average (1, 5, 15 min) {start['load_average_1_5_15']} at the start and "
             f"{end['load_average_1_5_15']} at the end, on {start['cpus']} CPUs: when other programs keep the "
             "cores busy, extra threads wait on each other and one thread can be faster."]
    for race, seconds in measured["live_race_cpu_s"].items():
        verdict = "within" if seconds <= measured["live_target_s"] else "OVER"
        lines.append(f"- Live training of {race}: {seconds:.1f} CPU seconds on one thread, {verdict} the "
                     f"target of {measured['live_target_s']:.0f} s.")
    return "\n".join(lines)


def suite_block() -> str:
    """How long `make test` (and `make check`) took when tools/time_suite.py last timed them."""
    timed = _load("suite_time.json")
    if not timed:
        return "Not measured yet: run `python tools/time_suite.py`."
    lines = []
    for target, t in timed.items():
        busy = t["load_average_start"][0] > t["cpus"] / 2  # at the end the load is mostly the suite's own workers
        verdict = ""
        if t["target_s"]:
            verdict = (f"; the target is {t['target_s'] // 60} min: "
                       + ("met" if t["seconds"] <= t["target_s"] and t["exit_code"] == 0 else "NOT met"))
        lines.append(f"- `make {target}` took {t['seconds'] // 60} min {t['seconds'] % 60} s ({t['outcome']}) on "
                     f"{t['date_utc']} UTC, on {t['cpus']} CPU cores with the venv built, using {t['cpu_seconds']} CPU "
                     f"seconds; load average (1, 5, 15 min) {t['load_average_start']} at the start and "
                     f"{t['load_average_end']} at the end"
                     + (": other programs shared the machine, so it ran slower than on an idle one" if busy else "")
                     + verdict + ".")
    if "test" in timed and timed["test"]["slowest"]:
        slowest = ", ".join(f"{step['test']} ({step['seconds']:.0f} s)" for step in timed["test"]["slowest"][:6])
        lines.append(f"- Slowest steps of `make test`: {slowest}.")
    lines.append("")
    lines.append("Timed by `python tools/time_suite.py` (and `python tools/time_suite.py check`).")
    return "\n".join(lines)


BLOCKS = {
    ROOT / "README.md": {"status": status_block, "timing": timing_block, "results": results_block,
                         "real_text": real_text_block, "explorer": explorer_block, "threads": threads_block,
                         "suite": suite_block},
    ROOT / "docs" / "instructor.md": {"timing": timing_block, "widgets": widgets_block,
                                      "lessons": lambda: lessons_block(_load("notebooks.json"), CHAPTERS)},
}


def render(text: str, blocks: dict) -> str:
    for name, make in blocks.items():
        pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.S)
        if not pattern.search(text):
            raise ValueError(f"missing block markers for {name!r}")
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + "\n" + m.group(2), text)
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report stale blocks instead of rewriting")
    args = parser.parse_args()
    stale = []
    for path, blocks in BLOCKS.items():
        old = path.read_text()
        new = render(old, blocks)
        if new != old:
            stale.append(path.name)
            if not args.check:
                path.write_text(new)
    if args.check and stale:
        print(f"out of date: {', '.join(stale)}; run python tools/update_docs.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
