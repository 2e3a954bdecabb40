"""What the benchmarks share: the machine and its load, a timing loop, a markdown table, and a share of one CPU.

The machine is shared and noisy, so every figure is measured side by side, with the load average beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path

import torch

KERNEL_FIGURES = ("import json, resource, torch; use = resource.getrusage(resource.RUSAGE_SELF); print(json.dumps({"
                  "'peak_mb': round(use.ru_maxrss / 1024, 1), 'cpu_s': use.ru_utime + use.ru_stime, "
                  "'torch_threads': torch.get_num_threads()}))")
"""A cell run after a notebook's own: it prints the kernel's peak_mb, cpu_s and torch_threads as JSON."""
BUSY = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    pass\n"
"""A busy loop that ends by itself once the process that started it is gone."""


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def machine() -> dict:
    return {"date_utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(), "torch": torch.__version__,
            "python": platform.python_version(), "processor": platform.processor() or platform.machine(),
            "load_average_1_5_15": load()}


def time_ms(step: Callable[[int], object], repeats: int, warmup: int = 5) -> list[float]:
    """Milliseconds each call of step(i) took, i = 0 .. repeats - 1, after `warmup` calls."""
    for i in range(warmup):
        step(i)
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        step(i)
        times.append((time.perf_counter() - start) * 1000)
    return times


def median_p90(times: list[float]) -> dict:
    """The median and the 90th percentile of timings in ms, as the results files keep them."""
    return {"median_ms": round(statistics.median(times), 2), "p90_ms": round(statistics.quantiles(times, n=10)[-1], 2)}


def markdown_table(header: Iterable[str], align: str, rows: Iterable[Iterable[object]]) -> list[str]:
    """A markdown table's lines; `align` has an "l" or "r" per column."""
    def line(cells: Iterable[object]) -> str:
        return "|" + "|".join(f" {cell} " if cell != "" else " " for cell in cells) + "|"

    return [line(header), "|" + "".join("---:|" if a == "r" else "---|" for a in align), *map(line, rows)]


def read_results(path: Path) -> dict:
    """A results file's contents; {} before its first run."""
    return json.loads(path.read_text()) if path.exists() else {}


def save(path: Path, share: Fraction, whole: dict, shared: dict) -> None:
    """Record one run in `path`: at the top on the whole machine (keeping the shares' runs), else in cpu_shares."""
    result = read_results(path)
    if share == 1:
        result = whole | {"cpu_shares": result.get("cpu_shares", {})}
    else:
        result.setdefault("cpu_shares", {})[str(share)] = shared
    path.write_text(json.dumps(result, indent=2) + "\n")


def parse_share(text: str) -> Fraction:
    """'0.5' -> 1/2: a CPU share of one over a whole number from 1 to 8 (0.33 stands for a third)."""
    with suppress(ValueError):
        for k in range(1, 9):
            if abs(float(text) - 1 / k) <= 0.01:
                return Fraction(1, k)
    raise argparse.ArgumentTypeError(f"must be 1 or one over a whole number up to 8 (0.5, 0.33, 0.25...), got {text!r}")


def share_parser(doc: str, **options: str) -> argparse.ArgumentParser:
    """A benchmark's command line, described by the first paragraph of its `doc`, with --cpu-share."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0], **options)
    parser.add_argument("--cpu-share", type=parse_share, default=Fraction(1),
                        help="run on 1/k of one CPU (0.5, 0.33, ...): pinned to one core beside k - 1 busy loops")
    return parser


@contextmanager
def busy_loops(count: int) -> Iterator[list[subprocess.Popen]]:
    """`count` busy loops for the body, killed by their PID however it ends (an error, Ctrl-C, SIGTERM)."""
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM raises KeyboardInterrupt
    loops: list[subprocess.Popen] = []
    try:
        loops += [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(count)]
        yield loops
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def cpu_share(share: Fraction) -> Iterator[None]:
    """Run the body (and every process it starts) on one core shared with 1/share - 1 busy loops, so it gets about
    `share` of a CPU (its torch sees one CPU); afterwards this process gets back the cores it had."""
    if share == 1:
        yield
        return
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {max(cores)})
    try:
        with busy_loops(share.denominator - 1) as loops:  # started after pinning, so they share the core
            print(f"pinned to core {max(cores)} beside busy loop(s) {', '.join(str(p.pid) for p in loops)}: "
                  f"about {float(share):.2g} of a CPU", flush=True)
            yield
    finally:
        os.sched_setaffinity(0, cores)


@contextmanager
def measured(share: Fraction = Fraction(1)) -> Iterator[dict]:
    """Run the body at `share` of a CPU; the dict it yields gets the machine at both ends and the share really got."""
    with cpu_share(share):
        found = {"machine_at_start": machine()}
        cpu, wall = time.process_time(), time.perf_counter()
        yield found
        found |= {"machine_at_end": machine(),
                  "cpu_share_measured": round((time.process_time() - cpu) / (time.perf_counter() - wall), 2)}
