"""A real JupyterHub with one student running chapter 0 through the kernel API: benchmarks/classroom.py end to end.

Slow (starts a hub, its proxy, a server and a kernel; installs the proxy from npm the first time): `make check`
runs it, `make test` does not. The speed targets are the benchmark's business, not this test's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from benchmarks.hub import SetupError, proxy_command

ROOT = Path(__file__).resolve().parents[2]
HUB_FOLDERS = str(Path(tempfile.gettempdir()) / "spotlights-hub-")  # benchmarks/hub.py's temporary folders


def _ours(since: float) -> list[str]:
    """Processes started since `since` that belong to a benchmark hub (its folder in their command or cwd)."""
    found = []
    for process in psutil.process_iter(["pid", "create_time", "cmdline", "cwd"]):
        info = process.info
        if info["create_time"] is None or info["create_time"] < since:
            continue
        if HUB_FOLDERS in " ".join(info["cmdline"] or []) or (info["cwd"] or "").startswith(HUB_FOLDERS):
            found.append(f"{info['pid']}: {' '.join(info['cmdline'] or [])[:120]}")
    return found


def test_one_student_runs_chapter_0_on_a_real_hub_and_every_process_stops(tmp_path: Path) -> None:
    try:
        proxy_command()  # from npm, once
    except SetupError as missing:  # as the browser tests do: a skip on a laptop without Node.js, a failure in CI
        (pytest.fail if os.environ.get("CI") == "true" else pytest.skip)(str(missing))
    out = tmp_path / "classroom.json"
    started = time.time()
    run = subprocess.run([sys.executable, "-m", "benchmarks.classroom", "--students", "1", "--chapters", "00",
                          "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    last = run.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"students=1 errors=0 slowest_chapter_s=\d+\.\d slowest_cell_s=\d+\.\d", last), last
    assert _ours(started) == [], "processes the benchmark started are still running"

    results = json.loads(out.read_text())
    (measured,) = results["runs"]
    (student,) = measured["students"]
    (chapter,) = student["chapters"]
    assert chapter["chapter"] == "00_start_here.ipynb" and chapter["error"] is None
    assert chapter["cells"] > 3 and 0 < chapter["slowest_cell"]["seconds"] <= chapter["seconds"]
    assert chapter["kernel_peak_mb"] > 100  # torch and the course model are loaded: a real kernel ran the chapter
    assert chapter["cpu_s"] > 0.5
    assert student["server_peak_mb"] > 30 and measured["hub_peak_mb"] > 30 and measured["proxy_peak_mb"] > 10
    assert results["machine"]["cpus"] == measured["cpus"]
