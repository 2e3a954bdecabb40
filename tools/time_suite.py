"""Time `make test` (or `make check`) as a maintainer runs it, and keep the figure for the README.

    python tools/time_suite.py            # runs `make test`, writes its time to assets/suite_time.json
    python tools/time_suite.py check      # the same for `make check` (with the browser tests)

The venv must already be built (the target's install step is then a no-op, as the README's figure assumes).
The run is recorded with the load average at its start and end: on a shared machine the suite is slower,
and the figure says so. pytest's slowest tests are kept too, to show where the time goes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "assets" / "suite_time.json"
TARGET_S = {"test": 300}
"""The time `make test` should take on 2 CPU cores with the venv built (make check has no target)."""
_SLOW = re.compile(r"^([\d.]+)s (call|setup|teardown)\s+(\S+)$", re.M)
_SUMMARY = re.compile(r"^=+ (.*(?:passed|failed|error).*) in [\d.]+s.*=+$", re.M)


def measure(target: str) -> dict:
    """Run `make <target>` once, with pytest listing its 15 slowest steps; its time, outcome and machine load."""
    venv = ROOT / ".venv" / "bin" / ".installed"
    if not venv.exists():
        raise SystemExit(f"{venv} is missing: build the venv first (make install), so only the tests are timed")
    env = os.environ | {"PYTEST_ADDOPTS": "--durations=15 -q"}
    load_start, start = os.getloadavg(), time.perf_counter()
    run = subprocess.run(["make", target], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    summary = _SUMMARY.findall(run.stdout)
    return {
        "date_utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M"), "seconds": round(seconds),
        "exit_code": run.returncode, "outcome": summary[-1] if summary else run.stdout.strip()[-300:],
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
          f"{made['load_average_start']} at the start, {made['load_average_end']} at the end. Wrote {OUT}; "
          "run python tools/update_docs.py")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
