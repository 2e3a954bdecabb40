"""Time `make test` (or `make check`) as a maintainer runs it, and keep the figure for the README.

    python -m benchmarks.suite_time            # runs `make test`, writes its time to assets/suite_time.json
    python -m benchmarks.suite_time check      # the same for `make check` (with the browser tests)

The venv must already be built (the target's install step is then a no-op, as the README's figure assumes).
The run is recorded with the load average at its start and end, and with the CPU time it used (the suite,
its kernels and builds), which other programs on a shared machine change far less than the wall time.
pytest's slowest steps are kept too, to show where the time goes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from tools.chapters import ROOT

OUT = ROOT / "assets" / "suite_time.json"
LOG = Path(tempfile.gettempdir()) / "spotlights-suite.log"
"""pytest's whole output of the last timed run, to read the failures and durations in full."""
TARGET_S = {"test": 300}
"""The time `make test` should take on 2 CPU cores with the venv built (make check has no target)."""
_SLOW = re.compile(r"^([\d.]+)s (call|setup|teardown)\s+(.+?)\s*$", re.M)
_SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed|error).*?) in [\d.]+s", re.M)
_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)


def _children_cpu() -> float:
    """CPU seconds (user + system) used so far by finished child processes: pytest, its kernels and builds."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def measure(target: str) -> dict:
    """Run `make <target>` once, with pytest listing its 30 slowest steps; its time, outcome and machine load."""
    venv = ROOT / ".venv" / "bin" / ".installed"
    if not venv.exists():
        raise SystemExit(f"{venv} is missing: build the venv first (make install), so only the tests are timed")
    env = os.environ | {"PYTEST_ADDOPTS": "--durations=30 -q"}
    load_start, start, cpu_start = os.getloadavg(), time.perf_counter(), _children_cpu()
    run = subprocess.run(["make", target], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    LOG.write_text(run.stdout + run.stderr)
    summary = _SUMMARY.findall(run.stdout)
    return {
        "date_utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M"), "seconds": round(seconds),
        "cpu_seconds": round(_children_cpu() - cpu_start),
        "exit_code": run.returncode, "outcome": summary[-1] if summary else run.stdout.strip()[-300:],
        "failed": _FAILED.findall(run.stdout),
        "cpus": os.cpu_count(), "load_average_start": [round(x, 2) for x in load_start],
        "load_average_end": [round(x, 2) for x in os.getloadavg()], "target_s": TARGET_S.get(target),
        "slowest": [{"seconds": float(s), "when": when, "test": name} for s, when, name in _SLOW.findall(run.stdout)],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", default="test", choices=["test", "check"])
    target = parser.parse_args().target
    results = json.loads(OUT.read_text()) if OUT.exists() else {}
    results[target] = measure(target)
    OUT.write_text(json.dumps(results, indent=1) + "\n")
    made = results[target]
    print(f"make {target}: {made['seconds']} s, {made['outcome']} (exit {made['exit_code']}); load average "
          f"{made['load_average_start']} at the start, {made['load_average_end']} at the end; "
          f"{made['cpu_seconds']} CPU seconds. Wrote {OUT} (pytest's output: {LOG}); run python -m benchmarks.report")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
