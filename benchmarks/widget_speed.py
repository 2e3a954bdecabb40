"""How long one update of each chapter widget takes in the kernel: compute, then redraw the figure or HTML.

    python -m benchmarks.widget_speed                     # the whole machine
    python -m benchmarks.widget_speed --cpu-share 0.5     # half a CPU, as a learner of a full class gets

Drives every widget through its Python update methods (what a slider, button or text box calls), alternating
between values so that every update is a real change, and writes the medians to assets/widget_speed.json (a
--cpu-share run under "cpu_shares"). Target: median <= 50 ms per update, at half a CPU too. The load average is
recorded at the start and the end (on a busy machine the figures are slower than on an idle one), and with
--cpu-share the CPU share the benchmark really got (benchmarks.notebook_memory's cpu_share pins it to one core
beside busy loops, stopped by their PID).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time
from pathlib import Path

import torch

from benchmarks.bench import machine  # the benchmarks share how they record the machine
from benchmarks.explorer_speed import REPEATS, time_ms  # the explorer benchmark's timing loop
from benchmarks.notebook_memory import add_cpu_share_argument, cpu_share
from helpers.chapter_widgets import change_one_word, split_the_width, spotlight_playground, step_through
from helpers.course import COURSE_EXAMPLES

TARGET_MS = 50.0
OUT = Path(__file__).resolve().parents[1] / "assets" / "widget_speed.json"


def widgets_and_updates() -> list[tuple[str, str, object]]:
    """(chapter widget, what one update does, the update as a function of the repeat number)."""
    words = COURSE_EXAMPLES[1].split()
    gen = torch.Generator().manual_seed(0)
    visible = words[: words.index("street") + 1]
    playground = spotlight_playground(visible, torch.randn(len(visible), 5, generator=gen), list("abcde"),
                                      visible[1:4])
    q, k, v = torch.randn(3, len(words), 4, generator=gen)
    steps = step_through(words, q, k, v)
    split = split_the_width()
    heads = (1, 2, 4, 8, 16)
    one_word = change_one_word()
    swaps = ("old", "girl")
    return [
        ("chapter 1: spotlight playground", "drag one match score",
         lambda i: playground.set_score(1, float(i % 7))),
        ("chapter 1: spotlight playground", "move the temperature slider",
         lambda i: playground.set_temperature((0.5, 2.0)[i % 2])),
        ("chapter 2: step-through", "Next / Back", lambda i: steps.go_to(i % 6)),
        ("chapter 2: step-through", "pick another word", lambda i: steps.set_word(i % len(words))),
        ("chapter 4: split the width", "pick a head count", lambda i: split.set_heads(heads[i % 5])),
        ("chapter 4: split the width", "show four other heads of 16", lambda i: other_four(split, i)),
        ("chapter 4: split the width", "untrained or trained layer",
         lambda i: split.set_layer(("untrained layer", "trained four-head checkpoint")[i % 2])),
        ("chapter 7: change one word", "type a replacement word", lambda i: one_word.set_replacement(swaps[i % 2])),
        ("chapter 7: change one word", "pick another word", lambda i: one_word.set_position(i % 10)),
    ]


def measure() -> tuple[list[dict], float]:
    """Every update's times, and the CPU share this process got while it measured them."""
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    cpu_before, wall_before = cpu.ru_utime + cpu.ru_stime, time.perf_counter()
    rows = []
    for widget, action, update in widgets_and_updates():
        times = time_ms(update)
        rows.append({"widget": widget, "update": action, "median_ms": round(statistics.median(times), 2),
                     "p90_ms": round(statistics.quantiles(times, n=10)[-1], 2)})
        print(f"{widget:<34}{action:<30} median {rows[-1]['median_ms']:7.2f} ms, 90th percentile "
              f"{rows[-1]['p90_ms']:7.2f} ms")
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    return rows, (cpu.ru_utime + cpu.ru_stime - cpu_before) / (time.perf_counter() - wall_before)


def other_four(split: object, i: int) -> None:
    """Show the next four of the 16 heads (the first call picks 16 heads)."""
    if split.heads != 16:
        split.set_heads(16)
    split.show_heads_from((0, 4, 8, 12)[i % 4])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_cpu_share_argument(parser)
    share = parser.parse_args().cpu_share
    with cpu_share(share):
        start = machine()
        rows, got = measure()
        end = machine()
    run = {
        "what": "kernel-side time of one chapter-widget update: compute, then update the figure or HTML",
        "repeats": REPEATS,
        "target_median_ms": TARGET_MS,
        "meets_target": all(r["median_ms"] <= TARGET_MS for r in rows),
        "updates": rows,
        "machine_at_start": start,
        "machine_at_end": end,
    }
    result = json.loads(OUT.read_text()) if OUT.exists() else {}
    if share == 1:
        result.update(run)
    else:
        result.setdefault("cpu_shares", {})[str(share)] = run | {"cpu_share_measured": round(got, 2)}
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    slowest = max(rows, key=lambda r: r["median_ms"])
    print(f"slowest median: {slowest['median_ms']} ms ({slowest['widget']}, {slowest['update']}); target "
          f"<= {TARGET_MS:.0f} ms: {'met' if run['meets_target'] else 'MISSED'}. CPU share asked {share}, got "
          f"{got:.2f}. Load average {start['load_average_1_5_15']} at the start, "
          f"{end['load_average_1_5_15']} at the end")
    print(f"written to {OUT.relative_to(OUT.parents[1])}")


if __name__ == "__main__":
    main()
