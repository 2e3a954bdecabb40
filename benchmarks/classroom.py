"""A whole class at once: N students on a real JupyterHub, each running chapters top to bottom at the same time.

    python -m benchmarks.classroom                                            # the grid: 1, 2, 4, 8 students
    python -m benchmarks.classroom --students 4 --chapters 03,05,07 --out c.json

For each class size a fresh JupyterHub on 127.0.0.1 (classroom/hub.py) gets N students, each with the learner
edition in their home and a running server; all run the chosen chapters at the same moment through their server's
kernel API (benchmarks/student.py). Recorded, with the machine's load: per chapter its wall time, CPU seconds,
slowest cell, kernel peak memory and error; per student the server's peak memory; the hub's and the proxy's.
The default output, assets/classroom.json, also rewrites deploy/config.yaml (benchmarks/sizing.py).

The last line sums the run up: `students=N errors=E slowest_chapter_s=S slowest_cell_s=C` (the largest class, the
failing chapters and the slowest over all sizes). A missing tool, a port in use or a bad argument: one line on
stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import sys
import time
from pathlib import Path

import psutil

from benchmarks.measure import cpu_seconds, load, machine
from benchmarks.sizing import CELL_TARGET_S, CHAPTER_TARGET_S, DEPLOY_CONFIG, write_deploy_config
from benchmarks.student import MB, Browser
from classroom.hub import LocalHub, SetupError, proxy_command
from tools.chapters import chapter_paths

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "assets" / "classroom.json"
GRID = (1, 2, 4, 8)
SAMPLE_S = 0.5


class UsageError(ValueError):
    """A bad command-line argument; the message says which and why."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", default=",".join(map(str, GRID)),
                        help="class sizes to measure, e.g. 4 or 1,2,4,8 (default: %(default)s)")
    parser.add_argument("--chapters", default="", help="chapter prefixes, e.g. 01,03 (default: every chapter)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results file (default: assets/classroom.json)")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"\d+(,\d+)*", args.students):
        raise UsageError(f"--students takes whole numbers separated by commas, not {args.students!r}")
    args.students = sorted({int(n) for n in args.students.split(",")})
    if args.students[0] < 1:
        raise UsageError("--students must be at least 1")
    unknown = [p for p in args.chapters.split(",") if p.strip() and not chapter_paths(p.strip())]
    if unknown:
        raise UsageError(f"--chapters: no chapter starts with {', '.join(unknown)} "
                         f"(chapters: {', '.join(path.name[:2] for path in chapter_paths(''))})")
    args.chapters = chapter_paths(args.chapters)
    if not args.out.parent.is_dir() or args.out.is_dir():
        raise UsageError(f"--out {args.out}: give a file in a folder that exists (the folder {args.out.parent} "
                         "does not exist, or the name is a folder)")
    return args


def summary_line(runs: list[dict]) -> str:
    """The run summed up: the largest class, failing chapters over all runs, the slowest chapter and cell."""
    chapters = [c for run in runs for s in run["students"] for c in s["chapters"]]
    errors = sum(c["error"] is not None for c in chapters)
    slowest_chapter = max((c["seconds"] for c in chapters), default=0.0)
    slowest_cell = max((c["slowest_cell"]["seconds"] for c in chapters if c.get("slowest_cell")), default=0.0)
    students = max((run["class_size"] for run in runs), default=0)
    return (f"students={students} errors={errors} slowest_chapter_s={slowest_chapter:.1f} "
            f"slowest_cell_s={slowest_cell:.1f}")


async def measure_class(size: int, chapters: list[Path]) -> dict:
    """Start a hub with `size` students and run `chapters` for all of them at the same time, each chapter in a
    fresh kernel, while the hub's, the proxy's and each server's peak memory is sampled."""
    names = [f"student{i + 1}" for i in range(size)]
    peaks: dict[str, float] = {}

    def sample() -> None:
        for key, processes in hub.processes().items():
            total = 0
            for process in processes:
                with contextlib.suppress(psutil.Error):  # a process that just exited
                    total += process.memory_info().rss
            peaks[key] = max(peaks.get(key, 0.0), round(total / MB, 1))

    async def sampling() -> None:
        while True:
            sample()
            await asyncio.sleep(SAMPLE_S)

    async def student(browser: Browser) -> list[dict]:
        return [await browser.run_chapter(path, "several-spotlights") for path in chapters]

    async with LocalHub() as hub:
        for name in names:
            hub.deliver(name)
        tokens = await hub.add_students(names)
        sampler = asyncio.create_task(sampling())
        load_start, cpu_start, began = load(), cpu_seconds(), time.perf_counter()
        try:
            done = await asyncio.gather(*(student(Browser(hub, name, tokens[name])) for name in names))
        finally:
            sampler.cancel()
        seconds, cpu = time.perf_counter() - began, cpu_seconds() - cpu_start
        sample()
        run = {"class_size": size, "cpus": os.cpu_count(), "cpu_share": round(os.cpu_count() / size, 3),
               "seconds": round(seconds, 1), "load_average_start": load_start, "load_average_end": load(),
               "client_cpu_s": round(cpu, 1), "hub_peak_mb": peaks.get("hub", 0.0),
               "proxy_peak_mb": peaks.get("proxy", 0.0),
               "students": [{"name": name, "server_peak_mb": peaks.get(f"server:{name}", 0.0), "chapters": rows}
                            for name, rows in zip(names, done, strict=True)]}
    left = hub.still_running()
    if left:
        raise RuntimeError(f"processes the hub started are still running after it stopped: {left}")
    return run


async def measure(sizes: list[int], chapters: list[Path]) -> dict:
    """Every class size in turn, each on a fresh hub; the results file's content."""
    results = {"command": "python -m benchmarks.classroom " + " ".join(sys.argv[1:]),
               "targets": {"chapter_s": CHAPTER_TARGET_S, "cell_s": CELL_TARGET_S},
               "chapters": [path.name for path in chapters], "machine": machine(), "runs": []}
    for size in sizes:
        run = await measure_class(size, chapters)
        results["runs"].append(run)
        print(f"{size} student(s) on {run['cpus']} cores, load average {run['load_average_start']} -> "
              f"{run['load_average_end']}: {summary_line([run])}", flush=True)
    results["machine_end"] = machine()
    return results


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
        proxy_command()  # npm and the proxy first: a clear message before anything starts
        results = asyncio.run(measure(args.students, args.chapters))
    except (UsageError, SetupError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the hub and every process it started have been stopped; nothing written", file=sys.stderr)
        return 130
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")
    if args.out.resolve() == DEFAULT_OUT:
        write_deploy_config(results)
        print(f"wrote {DEFAULT_OUT.relative_to(ROOT)} and {DEPLOY_CONFIG.relative_to(ROOT)}; "
              "now run python -m benchmarks.report")
    print(summary_line(results["runs"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
