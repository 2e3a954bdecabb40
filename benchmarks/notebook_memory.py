"""Peak kernel memory, run time and reading time of every chapter and the explorer, each run top to bottom
in a fresh kernel.

Binder restarts a kernel above 2 GB; the target is <= 600 MB per chapter so a learner can keep three open.
Reading time is stored here, with each section's reading and run time, so that the instructor guide's
tables and lesson plans come from this file and editing prose never makes a test fail.
Writes assets/notebooks.json and prints a table.

    python -m benchmarks.notebook_memory                       # every chapter and the explorer
    python -m benchmarks.notebook_memory notebooks/06_*.ipynb  # re-measure some, keep the others' rows
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from tools.chapters import ROOT, WORDS_PER_MINUTE, execute, notebook_paths, reading_minutes, sections

TARGET_MB = 600
PEAK = "import resource; print('PEAK_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"


def measure(path: Path) -> dict:
    """Run the notebook in a new kernel; return its peak resident memory (MB), wall time (s), reading time
    (min) and its sections' reading and run times."""
    start = time.perf_counter()
    nb = execute(path, timeout=900, last=PEAK)
    seconds = time.perf_counter() - start
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    peak_kb = int(text.split("PEAK_KB")[1].split()[0])
    return {"peak_mb": round(peak_kb / 1024, 1), "seconds": round(seconds, 1),
            "reading_minutes": reading_minutes(path), "sections": sections(nb)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    chosen = parser.parse_args().notebooks or notebook_paths("")
    out = ROOT / "assets" / "notebooks.json"
    rows = json.loads(out.read_text())["notebooks"] if out.exists() else {}
    for path in chosen:
        path = path.resolve()
        rows[path.name] = measure(path)
        row = rows[path.name]
        print(f"{path.name:<40} {row['peak_mb']:>7.1f} MB {row['seconds']:>6.1f} s {row['reading_minutes']:>4} min")
    load = os.getloadavg()[0]
    result = {"target_mb": TARGET_MB, "cpus": os.cpu_count(), "load_average_1min": round(load, 2),
              "words_per_minute": WORDS_PER_MINUTE,
              "all_under_target": all(r["peak_mb"] <= TARGET_MB for r in rows.values())}
    result["notebooks"] = dict(sorted(rows.items()))
    out.write_text(json.dumps(result, indent=2) + "\n")
    verdict = "every notebook is under" if result["all_under_target"] else "NOT every notebook is under"
    print(f"{verdict} {TARGET_MB} MB (machine load {load:.1f} on {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
