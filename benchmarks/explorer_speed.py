"""How long one explorer update takes in the kernel, in every view: tokenize, forward pass, the drawing's new data.

    python -m benchmarks.explorer_speed                    # the whole machine
    python -m benchmarks.explorer_speed --cpu-share 0.5    # half a CPU, as a learner of a full class gets

Alternates between two 20-word sentences with the four-head model (every update a real change) and times every
kind of update a learner makes, in the one-head and the all-heads view, and switching model through the menu.
Each update builds the data the browser draws and serialises it as the widget protocol does (JSON). Writes the
medians to assets/explorer_speed.json: a whole-machine run at the top level (targets: a sentence update and a
head change within 30 ms, a model switch within 300 ms), a --cpu-share run under "cpu_shares" (every update
within 50 ms). The forward pass alone is timed side by side on the thread policy's count and on one thread.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import torch

from benchmarks.notebook_memory import add_cpu_share_argument, cpu_share
from helpers.explorer import ALL_HEADS, Explorer, explore
from helpers.reading import attention
from helpers.stories import example_sentences

WORDS, REPEATS, SWITCHES = 20, 60, 20
TARGET_MS, SHARED_TARGET_MS, SWITCH_TARGET_MS = 30.0, 50.0, 300.0
OUT = Path(__file__).resolve().parents[1] / "assets" / "explorer_speed.json"


def time_ms(step: Callable[[int], None], repeats: int = REPEATS) -> list[float]:
    """Milliseconds each call of step(i) took, after a few warm-up calls."""
    for i in range(5):
        step(i)
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        step(i)
        times.append((time.perf_counter() - start) * 1000)
    return times


def sent(explorer: Explorer, update: Callable[[], None]) -> None:
    """Run `update`, then serialise what the drawings would send (the widget protocol's JSON)."""
    update()
    json.dumps(explorer.heatmap.figure), json.dumps(explorer.bars.figure)


def updates(explorer: Explorer, sentences: list[str]) -> list[tuple[str, str, Callable[[], None], Callable]]:
    """(view, update, what sets the view up, the update as a function of the repeat number)."""
    models = list(explorer.menu)
    def view(head: int | str) -> Callable[[], None]:
        return lambda: (explorer.set_model("four_heads"), explorer.set_head(head))
    return [
        ("one head", "a new sentence", view(0), lambda i: explorer.set_sentence(sentences[i % 2])),
        ("one head", "another head", view(0), lambda i: explorer.set_head(i % 4)),
        ("one head", "another focus word", view(0), lambda i: explorer.set_focus(i % WORDS)),
        ("all heads", "a new sentence", view(ALL_HEADS), lambda i: explorer.set_sentence(sentences[i % 2])),
        ("all heads", "another focus word", view(ALL_HEADS), lambda i: explorer.set_focus(i % WORDS)),
        ("either", "one head <-> all heads", view(0), lambda i: explorer.set_head((ALL_HEADS, 0)[i % 2])),
        ("either", "another model", view(0), lambda i: explorer.set_model(models[i % len(models)])),
    ]


def measure(share: Fraction) -> dict:
    """Every update's times, and what they were measured on (within the CPU share already set up)."""
    load_before, cpu_before, wall_before = os.getloadavg(), _cpu_seconds(), time.perf_counter()
    explorer = explore("four_heads")
    tokenizer = explorer.model.tokenizer
    sentences = [" ".join((tokenizer.split(text) * WORDS)[:WORDS]) for text in example_sentences()[2:4]]
    explorer.set_sentence(sentences[0])
    rows, target = [], TARGET_MS if share == 1 else SHARED_TARGET_MS
    for view, update, set_up, step in updates(explorer, sentences):
        set_up()
        switch = update == "another model"
        times = time_ms(lambda i, step=step: sent(explorer, lambda: step(i)), SWITCHES if switch else REPEATS)
        assert not explorer.problem, explorer.problem
        limit = SWITCH_TARGET_MS if share == 1 and switch else target
        rows.append({"view": view, "update": update, "median_ms": round(statistics.median(times), 2),
                     "p90_ms": round(statistics.quantiles(times, n=10)[-1], 2), "max_ms": round(max(times), 2),
                     "target_ms": limit, "meets_target": (max(times) if switch else statistics.median(times)) <= limit})
        print(f"{view:<10}{update:<26} median {rows[-1]['median_ms']:7.2f} ms, 90th percentile "
              f"{rows[-1]['p90_ms']:7.2f} ms, slowest {rows[-1]['max_ms']:7.2f} ms (target {limit:.0f} ms)")
    explorer.set_model("four_heads")
    ids = tokenizer.encode(sentences[0])
    policy, one = [], []
    for _ in range(REPEATS):  # interleaved, so both see the same load
        for times, forward in ((policy, _forward), (one, attention)):
            start = time.perf_counter()
            forward(explorer.model, ids)
            times.append((time.perf_counter() - start) * 1000)
    return {"updates": rows, "models": list(explorer.menu), "policy_threads": torch.get_num_threads(),
            "forward_policy_threads_median_ms": round(statistics.median(policy), 2),
            "forward_one_thread_median_ms": round(statistics.median(one), 2), "cpu_share_asked": str(share),
            "cpu_share_measured": round((_cpu_seconds() - cpu_before) / (time.perf_counter() - wall_before), 2),
            "load_average_1_5_15": [round(x, 2) for x in load_before],
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "meets_target": all(row["meets_target"] for row in rows)}


def _forward(model: torch.nn.Module, ids: list[int]) -> None:
    """The forward pass on the thread policy's count (no one_thread), for comparison."""
    with torch.no_grad():
        model(torch.tensor(ids, dtype=torch.long), return_attention=True)


def _cpu_seconds() -> float:
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_cpu_share_argument(parser)
    share = parser.parse_args().cpu_share
    with cpu_share(share):
        run = measure(share)
    result = json.loads(OUT.read_text()) if OUT.exists() else {}
    if share == 1:
        row = {(r["view"], r["update"]): r for r in run["updates"]}
        sentence, head = row["one head", "a new sentence"], row["one head", "another head"]
        switch = row["either", "another model"]
        result.update({
            "what": "kernel-side time of one explorer update: tokenize, forward pass, the drawing's data as JSON",
            "words": WORDS, "model": "four_heads", "repeats": REPEATS, "target_median_ms": TARGET_MS,
            "sentence_update_median_ms": sentence["median_ms"], "sentence_update_p90_ms": sentence["p90_ms"],
            "head_change_median_ms": head["median_ms"], "head_change_meets_target": head["meets_target"],
            "model_switch_median_ms": switch["median_ms"], "model_switch_max_ms": switch["max_ms"],
            "model_switch_repeats": SWITCHES, "model_switch_target_ms": SWITCH_TARGET_MS,
            "model_switch_meets_target": switch["meets_target"], "switched_models": run["models"],
            "meets_target": sentence["meets_target"], "updates": run["updates"],
            "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads, "
                       f"python {platform.python_version()}",
            **{key: run[key] for key in ("forward_policy_threads_median_ms", "forward_one_thread_median_ms",
                                         "policy_threads", "load_average_1_5_15")}})
    else:
        result.setdefault("cpu_shares", {})[str(share)] = run | {"target_ms": SHARED_TARGET_MS}
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    slowest = max(run["updates"], key=lambda row: row["median_ms"])
    print(f"slowest median: {slowest['median_ms']} ms ({slowest['view']}, {slowest['update']}); every target "
          f"{'met' if run['meets_target'] else 'NOT met'}; forward pass alone: median "
          f"{run['forward_policy_threads_median_ms']} ms on {run['policy_threads']} threads, "
          f"{run['forward_one_thread_median_ms']} ms on one thread; CPU share asked {share}, got "
          f"{run['cpu_share_measured']}; load average {run['load_average_1_5_15']}")
    print(f"written to {OUT.relative_to(OUT.parents[1])}")


if __name__ == "__main__":
    main()
