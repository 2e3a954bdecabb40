"""Render every measurement for people: the blocks between `<!-- NAME:start -->` and `<!-- NAME:end -->` of
README.md, docs/ and chapter 0, from assets/'s results files, docs/lessons.toml, tools.chapters.CHAPTERS and the
chapters' code and speaker notes, never their prose (so editing a chapter's prose never makes a page stale).

    python -m benchmarks.report    # rewrite the blocks (tests/test_measurements.py fails while one is out of date)
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

import nbformat

from benchmarks import bench, real_text, sizing
from benchmarks.measure import markdown_table, read_results
from benchmarks.notebook_memory import over_targets
from classroom.lessons import lessons_block, questions_block
from tools.chapters import CHAPTERS, EXPLORER, EXPLORER_TITLE, NOTEBOOKS, ROOT, TITLES

ASSETS = ROOT / "assets"
START_HERE = NOTEBOOKS / "00_start_here.ipynb"
HALF = "0.5"  # the CPU share shown beside the whole machine: four learners on two cores


def _load(name: str) -> dict | None:
    return read_results(ASSETS / name) or None


def _measured(name: str, command: str, make: Callable[[dict], str], needs: str | None = None) -> Callable[[], str]:
    """A block that `make` renders from the results file `name`; until it exists, the command that writes it."""
    def block() -> str:
        results = _load(name)
        if results is None or (needs is not None and needs not in results):
            return f"Not measured yet: run `python -m benchmarks.{command}`."
        return make(results)
    return block


def _loads(rows) -> str:
    """The range of the 1-minute load averages recorded with the rows ("1.2" or "10.4 to 12.5")."""
    values = [v for r in rows for v in r["load_average_1min"]]
    low, high = min(values), max(values)
    return f"{low:.1f}" if round(low, 1) == round(high, 1) else f"{low:.1f} to {high:.1f}"


def timing_block() -> str:
    measured = _load("notebooks.json") or {"notebooks": {}}
    whole, half = measured["notebooks"], measured.get("cpu_shares", {}).get(HALF, {}).get("notebooks", {})
    notebooks, rows = {**TITLES, EXPLORER: EXPLORER_TITLE}, []
    for name, title in notebooks.items():
        m, h = whole.get(name), half.get(name)
        cell = h["slowest_cells"][0] if h and h["slowest_cells"] else None
        cells = [f"about {(h or m)['reading_minutes']} min" if h or m else None,
                 f"{m['seconds']:.0f} s" if m else None, f"{h['seconds']:.0f} s" if h else None,
                 f"cell {cell['index']}: {cell['seconds']:.0f} s" if cell else None,
                 f"{max(r['peak_mb'] for r in (m, h) if r):.0f} MB" if m or h else None]
        rows.append([title, *(c or "not measured yet" for c in cells)])
    lines = markdown_table(["Chapter", "Reading time", "Run top to bottom: whole machine", "at half a CPU",
                            "Slowest cell at half a CPU", "Kernel peak memory"], "llllll", rows)
    if not whole and not half:
        return "\n".join(lines)
    cpus, notes = measured["cpus"], []
    if whole:
        busy = max(v for r in whole.values() for v in r["load_average_1min"]) > cpus / 2
        notes.append(f"Whole machine: measured by `python -m benchmarks.notebook_memory` on {cpus} CPU cores, load "
                     f"average (1 min) {_loads(whole.values())} during the runs"
                     + (": other programs shared the machine, so these times are upper bounds" if busy else "") + ".")
    if half:
        shares = [r["cpu_share"] for r in half.values()]
        notes.append("Half a CPU: `python -m benchmarks.notebook_memory --cpu-share 0.5`, each kernel on one core "
                     "shared with a busy loop, as when four learners share two cores; the kernels got "
                     f"{min(shares):.2f} to {max(shares):.2f} of a CPU (CPU seconds over wall time), load average "
                     f"(1 min) {_loads(half.values())}"
                     + (": other programs shared the machine too, so these times are upper bounds"
                        if min(shares) < 0.45 else "") + ".")
        chapter_s, cell_s = measured["chapter_target_s"], measured["cell_target_s"]
        over = [TITLES[name] for name in over_targets(half, chapter_s, cell_s) if name in CHAPTERS]
        notes.append(f"Target at half a CPU: every chapter within {chapter_s} s and every cell within {cell_s} s: "
                     + (f"NOT met by {', '.join(over)}." if over else "met by every chapter measured."))
    heavy = [title for name, title in notebooks.items()
             if any(r[name]["peak_mb"] > measured["target_mb"] for r in (whole, half) if name in r)]
    notes.append(f"Memory target {measured['target_mb']} MB per notebook: "
                 + (f"NOT met by {', '.join(heavy)}." if heavy else "met by every notebook measured.")
                 + f" Reading time counts each notebook's words "
                 f"at {measured['words_per_minute']} a minute; cells are numbered as in the notebook file, counting "
                 "every cell from 0.")
    return "\n".join([*lines, "", " ".join(notes)])


def headline_block() -> str:
    lines = []
    results = _load("results.json")
    if results is not None:
        one, four = (results["table"]["models"][h] for h in ("1", "4"))
        lines.append(f"- **Story world** ({len(results['table']['seeds'])} seeds, {results['table']['steps']:,} steps "
                     f"each): validation perplexity {four['val_ppl_mean']:.3f} with four heads against "
                     f"{one['val_ppl_mean']:.3f} with one; clue accuracy {four['clue_accuracy_mean']['all']:.1%} "
                     f"against {one['clue_accuracy_mean']['all']:.1%}.")
    summary = (_load("real_text.json") or {}).get("summary", {})
    models, target = summary.get("models", {}), summary.get("target")
    if {"one head", "four heads"} <= set(models):
        one, four = models["one head"], models["four heads"]
        verdict = "" if target is None else (
            f"; {'a clear win' if target['met'] else 'NOT a clear win'} (mean gap {target['gap']:.2f} against a seed "
            f"range of {target['seed_range']:.2f})")
        lines.append(f"- **Three novels** ({len(four['seeds'])} seeds): test perplexity {four['test_ppl_mean']:.2f} "
                     f"with four heads against {one['test_ppl_mean']:.2f} with one{verdict}.")
    timed = _load("notebooks.json") or {"notebooks": {}}
    half = timed.get("cpu_shares", {}).get(HALF, {}).get("notebooks", {})
    if timed["notebooks"] and half:
        lines.append(f"- **Run time**: every chapter runs top to bottom in at most "
                     f"{max(r['seconds'] for r in timed['notebooks'].values()):.0f} s on a {timed['cpus']}-core "
                     f"machine and {max(r['seconds'] for r in half.values()):.0f} s at half a CPU (four learners "
                     "sharing two cores), no cell over "
                     f"{max(c['seconds'] for r in half.values() for c in r['slowest_cells']):.0f} s.")
    lines.append("- Every figure, with the machine and its load when measured: "
                 "[docs/measurements.md](docs/measurements.md).")
    return "\n".join(lines)


def _browser_load(browser: dict, group: str) -> str:
    return f"; load average (1, 5, 15 min) {browser['load_average_1_5_15'][group]} when measured"


def _explorer(kernel: dict) -> str:
    """The explorer's update times, in the kernel and (assets/explorer_browser_speed.json) in a browser."""
    runs = {"Whole machine": kernel, **{f"{s} of a CPU": run for s, run in kernel.get("cpu_shares", {}).items()}}
    cells = {(r["view"], r["update"], name): r for name, run in runs.items() for r in run["updates"]}
    lines = [f"Every kind of update, kernel side: tokenize, forward pass, the drawing's data (medians of "
             f"{kernel['repeats']} updates of a {kernel['words']}-word sentence, {kernel['model_switch_repeats']} "
             f"model switches; {kernel['machine']}; `python -m benchmarks.explorer_speed`, with `--cpu-share 0.5` "
             "pinned to one core beside a busy loop):", "",
             *markdown_table(["View", "Update", *runs, "Target on the whole machine"], "l" * (len(runs) + 3),
                             [[r["view"], r["update"], *(f"{cells[r['view'], r['update'], name]['median_ms']:.1f} ms"
                                                         for name in runs),
                               f"{r['target_ms']:.0f} ms" + (f" at the slowest ({r['max_ms']:.0f} ms)"
                                                            if r["update"] == "another model" else "")]
                              for r in kernel["updates"]]), ""]
    for name, run in runs.items():
        shared = f"it got {run['cpu_share_measured']}, " if run is not kernel else ""
        met = all(r["meets_target"] for r in run["updates"])
        lines.append(f"- {name} ({shared}load average {run['load_average_1_5_15']}): "
                     f"{'every' if met else 'NOT every'} update meets its target"
                     + (f", {run['target_ms']:.0f} ms at a share of a CPU." if shared else "."))
    lines.append("- The forward pass alone, side by side: median "
                 f"{kernel['forward_policy_threads_median_ms']:.1f} ms on {kernel['policy_threads']} threads, "
                 f"{kernel['forward_one_thread_median_ms']:.1f} ms on one thread, which the explorer uses "
                 "(on a busy machine the threads wait for each other).")
    if (browser := _load("explorer_browser_speed.json")) is not None:
        lines += ["- In Chromium, presenter mode at 1280x720, from a pick to the new figure on screen (medians; "
                  f"`python -m benchmarks.browser_speed`): a model switch {browser['model_switch_median_ms']:.0f} ms, "
                  f"the first all-heads view after it {browser['all_heads_after_switch_median_ms']:.0f} ms, a head "
                  f"change {browser['head_change_median_ms']:.0f} ms, a focus word "
                  f"{browser['focus_change_median_ms']:.0f} ms (targets: 300 ms for a model switch, 150 ms for any "
                  f"other change; figures, not timed asserts{_browser_load(browser, 'projector')})."]
    return "\n".join(lines)


def _widgets(speed: dict) -> str:
    start, end = speed["machine_at_start"], speed["machine_at_end"]
    shares = speed.get("cpu_shares", {})
    shared = {(x["widget"], x["update"], share): x for share, run in shares.items() for x in run["updates"]}
    rows = markdown_table(["Widget", "Update", "Median", "90th percentile",
                           *(f"Median at {s} of a CPU" for s in shares)], "llll" + "l" * len(shares),
                          [[r["widget"], r["update"], f"{r['median_ms']:.1f} ms", f"{r['p90_ms']:.1f} ms",
                            *(f"{x['median_ms']:.1f} ms" if (x := shared.get((r["widget"], r["update"], s))) else
                              "not measured" for s in shares)] for r in speed["updates"]])
    busy = max(start["load_average_1_5_15"][0], end["load_average_1_5_15"][0]) > start["cpus"] / 2
    rows += ["", f"{'Every' if speed['meets_target'] else 'Not every'} median meets the target of "
             f"{speed['target_median_ms']:.0f} ms. Measured by `python -m benchmarks.widget_speed` on "
             f"{start['date_utc']} UTC: {start['cpus']} CPU cores, {start['torch_threads']} torch threads, load "
             f"average (1, 5, 15 min) {start['load_average_1_5_15']} at the start and {end['load_average_1_5_15']} at "
             "the end" + (": other programs shared the machine, so these times are slower than on an idle one."
                          if busy else ".")]
    browser = _load("explorer_browser_speed.json") or {}
    if "chapter_4_click_median_ms" in browser:
        rows.append(f"In Chromium (presenter mode, 1280x720), a click on chapter 4's head-count buttons shows its "
                    f"grid in {browser['chapter_4_click_median_ms']:.0f} ms (median), "
                    f"{browser['chapter_4_click_first_ms']:.0f} ms at most the first time each grid shows "
                    "(target: 150 ms; measured by `python -m benchmarks.browser_speed`, not asserted"
                    f"{_browser_load(browser, 'chapter_4')}).")
    rows += [f"At {share} of a CPU (`--cpu-share`, pinned to one core beside a busy loop; it got "
             f"{run['cpu_share_measured']}, load average {run['machine_at_start']['load_average_1_5_15']}) "
             f"{'every' if run['meets_target'] else 'not every'} median meets the target."
             for share, run in shares.items()]
    return "\n".join(rows)


def _threads(measured: dict) -> str:
    quota = measured["cgroup_quota_cpus"]
    lines = [f"- This process may run on {measured['affinity_cpus']} CPUs with "
             f"{'no CPU quota' if quota is None else f'a CPU quota of {quota:g}'}, so a training run times 1 and "
             f"{measured['usable_threads']} torch thread(s) on its first steps and keeps the faster; "
             f"{measured['steps']} four-head steps, median of {measured['rounds']} alternating fresh runs:"]
    for condition, label in (("idle", "On the machine as it was"), ("busy", "Beside one busy process")):
        runs = measured[condition]
        plain, policy, one = (runs[name] for name in ("plain loop", "helpers.train", "helpers.train, 1 thread"))
        start, end = runs["load_average_1_5_15"]
        ratio, versus_one = policy["tokens_per_s"] / plain["tokens_per_s"], policy["tokens_per_s"] / one["tokens_per_s"]
        idle = condition == "idle"
        target = f"at least {measured['target_ratio']}x the plain loop" if idle else "no slower than one thread"
        met = ratio >= measured["target_ratio"] if idle else versus_one >= 1
        lines.append(f"- {label} (load average (1, 5, 15 min) {start} at the start, {end} at the end): "
                     f"helpers.train {policy['tokens_per_s']:,} words/s (ending on {policy['threads']} threads), "
                     f"{ratio:.2f}x a plain PyTorch loop ({plain['tokens_per_s']:,} on {plain['threads']}) and "
                     f"{versus_one:.2f}x one thread ({one['tokens_per_s']:,}); the target, {target}, is "
                     f"{'met' if met else 'MISSED'}.")
    return "\n".join(lines)


def chapters_block(folder: str, first: int = 0) -> str:
    """The chapter table from the chapter list, from chapter `first` on, each title a link into `folder`."""
    rows = [[int(name[:2]), f"[{chapter.title}]({folder}{name})", chapter.idea]
            for name, chapter in list(CHAPTERS.items())[first:]]
    return "\n".join(markdown_table(["#", "Notebook", "The one idea"], "lll", rows))


explorer_block = _measured("explorer_speed.json", "explorer_speed", _explorer)
widgets_block = _measured("widget_speed.json", "widget_speed", _widgets)
threads_block = _measured("threads.json", "threads", _threads)
BLOCKS: dict[Path, dict[str, Callable[[], str]]] = {
    ROOT / "README.md": {"headline": headline_block, "chapters": lambda: chapters_block("notebooks/")},
    START_HERE: {"chapters": lambda: chapters_block("", first=1)},
    ROOT / "docs" / "measurements.md": {
        "results": _measured("results.json", "bench", bench.markdown),
        "real_text": _measured("real_text.json", "real_text table", real_text.markdown, needs="summary"),
        "timing": timing_block, "threads": threads_block, "explorer": explorer_block, "widgets": widgets_block},
    ROOT / "docs" / "recipe.md": {
        "recipe_sweep": lambda: real_text.sweep_markdown(_load("real_text.json") or {}),
        "recipe_transfer": lambda: real_text.transfer_markdown(_load("real_text.json") or {})},
    ROOT / "docs" / "instructor.md": {
        "timing": timing_block, "widgets": widgets_block,
        "classroom": _measured("classroom.json", "classroom", sizing.markdown),
        "lessons": lambda: lessons_block(_load("notebooks.json")),
        "questions": questions_block},
}
"""The generated blocks of the hand-written pages, by page and block name."""


def render(text: str, blocks: dict[str, Callable[[], str]]) -> str:
    """`text` with each block between its markers replaced by what its function makes now."""
    for name, make in blocks.items():
        pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.S)
        if not pattern.search(text):
            raise ValueError(f"missing block markers for {name!r}")
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + "\n" + m.group(2), text)
    return text


def render_notebook(text: str, blocks: dict[str, Callable[[], str]]) -> str:
    """A notebook's text with its blocks rendered, each in the markdown cell that holds its markers."""
    nb = nbformat.reads(text, as_version=4)
    for name, make in blocks.items():
        cells = [cell for cell in nb.cells if cell.cell_type == "markdown" and f"<!-- {name}:start -->" in cell.source]
        if not cells:
            raise ValueError(f"missing block markers for {name!r}")
        cells[0].source = render(cells[0].source, {name: make})
    return nbformat.writes(nb) + "\n"


def rendered() -> dict[Path, str]:
    return {path: (render_notebook if path.suffix == ".ipynb" else render)(path.read_text(encoding="utf-8"), blocks)
            for path, blocks in BLOCKS.items()}


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)  # only --help
    try:
        pages = rendered()
    except ValueError as problem:  # a lesson plan that names what is not measured yet: the message says what to run
        raise SystemExit(f"Not rendered: {problem}") from None
    for path, text in pages.items():
        if text != path.read_text(encoding="utf-8"):
            path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
