"""A real JupyterHub on 127.0.0.1: one student running chapter 0 (benchmarks/classroom.py end to end), and the class's
notebooks collected (classroom/collect.py) and graded. Slow: `make check` runs it, `make test` does not.
"""

from __future__ import annotations

import asyncio
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import psutil
import pytest

from classroom import collect, grade
from classroom.hub import LocalHub, SetupError, proxy_command

ROOT = Path(__file__).resolve().parents[2]
HUB_FOLDERS = str(Path(tempfile.gettempdir()) / "spotlights-hub-")  # classroom/hub.py's temporary folders


def _ours(since: float) -> list[str]:
    """Processes started since `since` that belong to a benchmark hub (its folder in their command or cwd)."""
    infos = [process.info for process in psutil.process_iter(["pid", "create_time", "cmdline", "cwd"])]
    return [f"{i['pid']}: {' '.join(i['cmdline'] or [])[:120]}" for i in infos if (i["create_time"] or 0) >= since
            and (HUB_FOLDERS in " ".join(i["cmdline"] or []) or (i["cwd"] or "").startswith(HUB_FOLDERS))]


@pytest.fixture
def proxy() -> None:
    try:
        proxy_command()  # from npm, once
    except SetupError as missing:  # as the browser tests do: a skip on a laptop without Node.js, a failure in CI
        (pytest.fail if os.environ.get("CI") == "true" else pytest.skip)(str(missing))


def test_one_student_runs_chapter_0_on_a_real_hub_and_every_process_stops(tmp_path: Path, proxy: None) -> None:
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
    assert chapter["kernel_peak_mb"] > 100 and chapter["cpu_s"] > 0.5  # torch and the model loaded: a real kernel
    assert student["server_peak_mb"] > 30 and measured["hub_peak_mb"] > 30 and measured["proxy_peak_mb"] > 10
    assert results["machine"]["cpus"] == measured["cpus"]


def test_each_students_notebooks_are_collected_for_the_grader(tmp_path: Path, proxy: None) -> None:
    """Two students with the learner edition delivered; one answers softmax, one's server is stopped. Collecting
    skips the stopped server unless told to start it, and the instructor's (an admin's) account always; the grader
    then scores what was collected."""
    out = tmp_path / "collected"

    async def class_of_two() -> tuple[dict, dict, dict]:
        async with LocalHub() as hub:
            folders = {name: hub.deliver(name) for name in ("ada", "bob")}
            chapter = folders["ada"] / "01_one_spotlight.ipynb"
            nb = json.loads(chapter.read_text())
            for cell in nb["cells"]:
                if "def softmax(" in "".join(cell["source"]):
                    cell["source"] = ("def softmax(scores):\n    e = (scores - scores.max(dim=-1, keepdim=True).values)"
                                      ".exp()\n    return e / e.sum(dim=-1, keepdim=True)\n")
            chapter.write_text(json.dumps(nb))
            await hub.add_students(["ada", "bob"])
            await hub.api("DELETE", "/users/bob/server")
            while (await hub.api("GET", "/users/bob"))["servers"]:
                await asyncio.sleep(0.5)
            hub_api = collect.Hub(hub.url + "/hub/home", hub.token)  # as copied from the browser's address bar
            first = await asyncio.to_thread(collect.collect, hub_api, out, "01")
            second = await asyncio.to_thread(collect.collect, hub_api, out, "01", True)
            return first, second, {name: (folder / "01_one_spotlight.ipynb").read_text() for name, folder in
                                   folders.items()}

    first, second, homes = asyncio.run(class_of_two())
    assert "1 notebook(s), last saved 2" in first["ada"] and first["bob"][:7] == first["teacher"][:7] == "skipped"
    assert second["bob"].endswith("UTC (server started, then stopped)") and "started" not in second["ada"], second
    assert sorted(path.name for path in out.iterdir()) == ["ada", "bob"]
    for name, text in homes.items():
        assert nbformat.read(out / name / "01_one_spotlight.ipynb", as_version=4) == nbformat.reads(text, as_version=4)
    assert grade.main([str(out), "--chapter", "01", "--out", str(tmp_path / "grades"), "--workers", "2"]) == 0
    graded = csv.DictReader((tmp_path / "grades/grades.csv").open(encoding="utf-8-sig"))
    rows = {(r["student"], r["exercise"]): r["status"] for r in graded}
    assert rows[("ada", "softmax")] == "passed" and rows[("bob", "softmax")] == "not attempted", rows
