"""Peak kernel memory, run time, slowest cells and reading time of every chapter and the explorer, each run top
to bottom in a fresh kernel.

    python -m benchmarks.notebook_memory                          # every chapter and the explorer, whole machine
    python -m benchmarks.notebook_memory notebooks/06_*.ipynb     # re-measure some, keep the others' rows
    python -m benchmarks.notebook_memory --cpu-share 0.5          # every chapter and the explorer, half a CPU

Targets: TARGET_MB per chapter (Binder restarts a kernel above 2 GB; a learner may keep three open) and, at half a
CPU, CHAPTER_TARGET_S and CELL_TARGET_S. Writes assets/notebooks.json (a share's rows under "cpu_shares").
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import nbformat

from benchmarks.measure import KERNEL_FIGURES, cpu_share, load, read_results, share_parser
from benchmarks.sizing import CELL_TARGET_S, CHAPTER_TARGET_S
from tools.chapters import INJECTED, WORDS_PER_MINUTE, execute, notebook_paths, reading_minutes, run_seconds, sections

TARGET_MB = 600
OUT = Path(__file__).resolve().parents[1] / "assets" / "notebooks.json"
SLOWEST = 3  # slowest cells kept per chapter


def slowest_cells(nb: nbformat.NotebookNode, keep: int = SLOWEST) -> list[dict]:
    """The `keep` slowest executed code cells, from the timing nbclient records; indexes count every cell, markdown
    included, as in the classroom benchmark; injected cells are left out."""
    times = [(index, run_seconds(cell)) for index, cell in enumerate(nb.cells)
             if cell.cell_type == "code" and INJECTED not in cell.metadata.get("tags", [])
             and "iopub.status.idle" in cell.metadata.get("execution", {})]
    return [{"index": index, "seconds": round(seconds, 1)}
            for index, seconds in sorted(times, key=lambda t: -t[1])[:keep]]


def measure(path: Path) -> dict:
    """Run the notebook in a new kernel (KERNEL_FIGURES, injected, reports its peak memory, CPU and threads)."""
    load_before, start = load()[0], time.perf_counter()
    nb = execute(path, timeout=900, last=KERNEL_FIGURES)
    seconds = time.perf_counter() - start
    figures = json.loads("".join(o.get("text", "") for o in nb.cells[-1].outputs))
    return {"peak_mb": figures["peak_mb"], "seconds": round(seconds, 1),
            "cpu_share": round(figures["cpu_s"] / seconds, 2), "torch_threads": figures["torch_threads"],
            "slowest_cells": slowest_cells(nb), "reading_minutes": reading_minutes(path), "sections": sections(nb),
            "load_average_1min": [load_before, load()[0]]}


def over_targets(rows: dict[str, dict], chapter_s: float = CHAPTER_TARGET_S,
                 cell_s: float = CELL_TARGET_S) -> list[str]:
    return [name for name, row in rows.items()
            if row["seconds"] > chapter_s or any(cell["seconds"] > cell_s for cell in row.get("slowest_cells", []))]


def main(argv: list[str] | None = None) -> int:
    parser = share_parser(__doc__, prog="python -m benchmarks.notebook_memory")
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)
    result = read_results(OUT)
    section = (result if args.cpu_share == 1 else result.setdefault("cpu_shares", {}).setdefault(
        f"{float(args.cpu_share):.2g}", {"cpu_share": float(args.cpu_share)}))
    rows = section.get("notebooks", {})
    with cpu_share(args.cpu_share):
        for path in args.notebooks or notebook_paths(""):
            path = path.resolve()
            rows[path.name] = row = measure(path)
            slowest = row["slowest_cells"][0] if row["slowest_cells"] else {"index": "-", "seconds": 0.0}
            print(f"{path.name:<40} {row['peak_mb']:>7.1f} MB {row['seconds']:>6.1f} s, CPU share "
                  f"{row['cpu_share']:.2f}, slowest cell {slowest['index']} ({slowest['seconds']:.1f} s), load "
                  f"{row['load_average_1min'][1]}", flush=True)
    now = load()[0]
    section["notebooks"] = dict(sorted(rows.items()))
    if args.cpu_share == 1:
        result["load_average_1min"] = now
    result |= {"target_mb": TARGET_MB, "chapter_target_s": CHAPTER_TARGET_S, "cell_target_s": CELL_TARGET_S,
               "cpus": os.cpu_count(), "words_per_minute": WORDS_PER_MINUTE,
               "all_under_target": all(row["peak_mb"] <= TARGET_MB for part in [result, *result.get("cpu_shares",
                                       {}).values()] for row in part.get("notebooks", {}).values())}
    OUT.write_text(json.dumps(dict(sorted(result.items())), indent=2) + "\n")
    print(f"{'' if result['all_under_target'] else 'NOT '}every notebook is under {TARGET_MB} MB (machine load "
          f"{now:.1f} on {os.cpu_count()} CPUs)")
    over = over_targets(rows)
    print(f"{'NOT ' * bool(over)}every chapter within {CHAPTER_TARGET_S} s and every cell within {CELL_TARGET_S} s "
          f"at this CPU share{': over in ' + ', '.join(over) if over else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
