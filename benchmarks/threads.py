"""Training speed with 1 torch thread and with the count helpers.threads chooses, measured side by side.

Run: .venv/bin/python -m benchmarks.threads
Alternates short four-head training runs at 1 thread and at the count this process may use on an idle machine
(helpers.threads.usable_threads; so both see the same load on a shared machine), prints tokens per second for
each, and the count the policy chooses at this load; times a training step of every model of each live race
(chapters 3, 5 and 7) the same way, side by side, which is what helpers.race measures before a race to keep the
faster count; and times each full race on one thread in CPU seconds (busy neighbours slow the wall clock, not
the CPU time a run needs). Writes assets/threads.json, which benchmarks/report.py renders.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch

from benchmarks.bench import machine  # the benchmarks share how they record the machine
from helpers.block import block_model
from helpers.compare import late_checks
from helpers.model import course_model
from helpers.race import RACE_BUDGET_S, step_seconds
from helpers.threads import (
    affinity_cpus,
    apply_thread_policy,
    cgroup_quota,
    faster_thread_count,
    machine_load,
    on_threads,
    usable_threads,
)
from helpers.train import story_corpus, train

OUT = Path(__file__).resolve().parents[1] / "assets" / "threads.json"
ROUNDS = 3
SPEED_STEPS = 30
LIVE_TARGET_S = RACE_BUDGET_S  # a full race fits a whole CPU when its CPU seconds are within a race's budget
FOUR: dict[str, Callable[[], torch.nn.Module]] = {"four heads": lambda: course_model(heads=4, seed=0)}
COURSE: dict[str, Callable[[], torch.nn.Module]] = {"one head": lambda: course_model(heads=1, seed=0), **FOUR}
BLOCKS: dict[str, Callable[[], torch.nn.Module]] = {
    "course model, 4 heads": lambda: course_model(heads=4, seed=0),
    "block, no feed-forward": lambda: block_model(heads=4, feed_forward=False, seed=0),
    "block with feed-forward": lambda: block_model(heads=4, feed_forward=True, seed=0)}
RACES = {  # the live training cells as the chapters write them: full steps, batch size, story slice, models, and
    # whether the runs score the validation text during training (a race's checks; chapter 3's single run has none)
    "chapter 3: a fresh four-head model": {"steps": 60, "batch": 16, "stories": (300, 200), "models": FOUR,
                                           "checked": False},
    "chapter 5: one head against four heads": {"steps": 60, "batch": 16, "stories": (300, 60), "models": COURSE},
    "chapter 7: course model, block without and with feed-forward": {"steps": 100, "batch": 8, "stories": (2000, 40),
                                                                      "models": BLOCKS},
}


def tokens_per_s(threads: int) -> float:
    """Four-head training speed on `threads` torch threads (the story world, batch 32)."""
    torch.set_num_threads(threads)
    run = train(heads=4, steps=SPEED_STEPS, seed=0, corpus=story_corpus(300, 20), progress=False,
                evaluate_at_end=False)
    return run.tokens_per_s


def race_step_s(name: str, threads: int) -> float:
    """Seconds for one training step of every model of a live race, on `threads` torch threads."""
    recipe = RACES[name]
    corpus = story_corpus(*recipe["stories"])
    with on_threads(threads):
        return sum(step_seconds(make(), corpus, recipe["batch"]) for make in recipe["models"].values())


def race_cpu_seconds(name: str) -> float:
    """CPU seconds one thread spends on a chapter's full live race: every model's training and its checks."""
    recipe = RACES[name]
    corpus = story_corpus(*recipe["stories"])
    steps = recipe["steps"]
    torch.set_num_threads(1)
    start = time.process_time()
    for make in recipe["models"].values():
        train(model=make(), steps=steps, seed=0, corpus=corpus, batch_size=recipe["batch"],
              eval_at=late_checks(steps) if recipe.get("checked", True) else (), progress=False)
    return time.process_time() - start


def main() -> None:
    load = machine_load()
    chosen = apply_thread_policy()  # at this load
    usable = usable_threads()  # what the limits allow: the count compared with one thread
    before = machine()
    one, many = [], []
    for _ in range(ROUNDS):  # alternate, so both counts see the same neighbours
        one.append(tokens_per_s(1))
        many.append(tokens_per_s(usable))
    steps = {name: {1: [], usable: []} for name in RACES}
    for _ in range(ROUNDS):  # alternate again, race by race
        for name in RACES:
            for count in steps[name]:
                steps[name][count].append(race_step_s(name, count))
    step_s = {name: {str(count): round(statistics.median(times), 4) for count, times in by_count.items()}
              for name, by_count in steps.items()}
    races = {name: round(race_cpu_seconds(name), 1) for name in RACES}
    torch.set_num_threads(chosen)
    result = {
        "what": "four-head training speed (tokens/s, median of alternating runs) with 1 torch thread and with "
                "the count the process may use (usable_threads); the count the policy chose at this load; seconds "
                "for a step of every model of each live run on each count (median of alternating runs) and the "
                "count faster_thread_count keeps; CPU seconds of each full live run on one thread",
        "chosen_threads": chosen,
        "load_when_chosen": round(load, 2) if load is not None else None,
        "usable_threads": usable,
        "affinity_cpus": affinity_cpus(),
        "cgroup_quota_cpus": cgroup_quota(),
        "rounds": ROUNDS,
        "tokens_per_s_1_thread": round(statistics.median(one)),
        "tokens_per_s_usable": round(statistics.median(many)),
        "live_race_step_s": step_s,
        "live_race_threads_kept": {name: faster_thread_count({int(c): t for c, t in by_count.items()})
                                   for name, by_count in step_s.items()},
        "live_race_cpu_s": races,
        "live_target_s": LIVE_TARGET_S,
        "machine_start": before,
        "machine_end": machine(),
    }
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(f"threads chosen: {chosen} at load {result['load_when_chosen']} (usable: {usable}; affinity "
          f"{result['affinity_cpus']} CPUs, cgroup quota {result['cgroup_quota_cpus'] or 'none'})")
    print(f"{'threads':>8}{'tokens/s':>12}")
    print(f"{1:>8}{result['tokens_per_s_1_thread']:>12,}")
    print(f"{usable:>8}{result['tokens_per_s_usable']:>12,}")
    for name, seconds in races.items():
        by_count = ", ".join(f"{t:.3f} s on {c} thread(s)" for c, t in step_s[name].items())
        print(f"{name}: a step of every model {by_count}; {result['live_race_threads_kept'][name]} kept; "
              f"the full race {seconds:.1f} CPU s on one thread (target <= {LIVE_TARGET_S:.0f} s)")
    print(f"load average (1, 5, 15 min): {before['load_average_1_5_15']} at the start, "
          f"{result['machine_end']['load_average_1_5_15']} at the end")
    print(f"written to {OUT.relative_to(OUT.parents[1])}")


if __name__ == "__main__":
    main()
