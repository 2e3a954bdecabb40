"""Each notebook is executed at most twice per test session, and every test that reads outputs shares the runs.

1. nbval runs every notebook once ("Restart and Run All", `notebooks/` in testpaths). `NbvalRuns` keeps what
   each cell showed, and the notebooks are moved to the front of the session, so the checked-output and
   clean-output tests read that run (the reading copy) instead of running the notebook again.
2. The browser tests need each chapter in presenter mode as well: `executed(name, "presenter")` runs it once
   more, with presenter mode switched on by an injected first cell, as an instructor would.
3. The site tests (tests/test_site.py, tests/browser/test_site_browser.py) share one static build of
   chapters.SITE_SAMPLE (`built_site`), with slides when the session holds the browser test that opens them.

Run alone (`pytest tests/test_checked_outputs.py`), with no nbval run to reuse, a reading copy is made by
the same runner (tools/chapters.py). Copies of one mode share a folder, so one JupyterLab server opens them all.

`make test` runs the suite on one pytest-xdist worker per usable CPU (`-n auto`). The scheduler below sends
the tests that share a run to one worker, in order ("notebooks": nbval's cells, then the tests that read
them; "site": the site tests), and each worker, with the kernels it starts, runs on a CPU of its own, so the
thread policy gives it one torch thread and the workers never wait on each other. `make check` (with the
browser tests) runs on one process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from chapters import NOTEBOOKS, ROOT, SITE_SAMPLE, execute

PRESENTER_CELL = "import helpers\n\nhelpers.presenter_mode(True)"
MODES = ("reading", "presenter")
SLIDES_TEST = "test_site_browser.py"
SHARED_RUNS = {"test_checked_outputs.py": "notebooks", "test_clean_outputs.py": "notebooks", "test_site.py": "site",
               "test_grade.py": "grade"}
"""Test files that read a run made once per process, and the group that keeps them on one xdist worker
(nbval's notebook cells, which make the run, are in "notebooks"; the grader's tests share its graded notebooks)."""


def shared_run(nodeid: str) -> str | None:
    """The group of tests sharing one run that a test belongs to ("notebooks", "site"), or None."""
    path = nodeid.split("::", 1)[0]
    if path.endswith(".ipynb"):  # a notebook's cells run in order in one kernel; the student edition's each alone
        return "notebooks" if path.startswith("notebooks/") else path
    return SHARED_RUNS.get(Path(path).name)


def _one_cpu_per_worker() -> None:
    """On an xdist worker ("gw0", "gw1", ...), run on one CPU of those allowed, before helpers is imported."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if worker.startswith("gw") and hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[int(worker[2:]) % len(cpus)]})


_one_cpu_per_worker()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker per CPU this process may use (affinity and CPU quota), as the thread policy counts."""
    from helpers.threads import affinity_cpus, cgroup_quota, usable_cpus

    return usable_cpus(affinity_cpus(), cgroup_quota())


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Under pytest-xdist: each group of `shared_run` goes to one worker whole and in order; every other test
    is scheduled on its own (pytest-xdist's way to choose the unit of work: a LoadScopeScheduling scope)."""
    from xdist.scheduler import LoadScopeScheduling

    class SharedRunScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return shared_run(nodeid) or nodeid

    return SharedRunScheduling(config, log)


def _is_nbval_cell(item: pytest.Item) -> bool:
    return type(item).__name__ == "IPyNbCell" and hasattr(item, "test_outputs")


def _is_chapter_cell(item: pytest.Item) -> bool:
    """An nbval cell of a notebook in notebooks/ (make check also runs the student edition's copies)."""
    return _is_nbval_cell(item) and Path(str(item.fspath)).parent == NOTEBOOKS


class NbvalRuns:
    """What nbval's one run of each notebook showed, cell by cell (nbval's kernel runs every code cell)."""

    def __init__(self) -> None:
        self.outputs: dict[str, dict[int, list]] = {}  # notebook name -> {code cell number: outputs}
        self.ran: set[str] = set()  # notebooks nbval ran cells of in this process

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        yield
        if _is_chapter_cell(item):
            self.ran.add(Path(str(item.fspath)).name)
            if item.test_outputs is not None:
                self.outputs.setdefault(Path(str(item.fspath)).name, {})[item.cell_num] = item.test_outputs

    def notebook(self, name: str) -> nbformat.NotebookNode | None:
        """The notebook with nbval's outputs in its cells, or None if nbval did not run every code cell of it."""
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        code = [cell for cell in nb.cells if cell.cell_type == "code"]
        shown = self.outputs.get(name, {})
        if not code or set(shown) != set(range(len(code))):
            return None
        for number, cell in enumerate(code):
            cell.outputs = [_as_output(out) for out in shown[number]]
        return nb


def _as_output(out: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """nbval's record of one output as a notebook output (fields nbformat requires, nothing else)."""
    kind = out.output_type
    if kind == "stream":
        return nbformat.v4.new_output("stream", name=out.name, text=out.text)
    if kind == "error":
        return nbformat.v4.new_output("error", ename=out.ename, evalue=out.evalue, traceback=out.traceback)
    return nbformat.v4.new_output(kind, data=out.data, metadata=out.get("metadata", {}),
                                  **({"execution_count": None} if kind == "execute_result" else {}))


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(NbvalRuns(), "spotlights-nbval-runs")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """nbval's notebook runs first (in their own order), so the tests after them can reuse what they showed."""
    items.sort(key=lambda item: not _is_nbval_cell(item))


@pytest.fixture(scope="session")
def executed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str, str], Path]:
    """executed(name, mode) -> the executed copy of a notebook in mode "reading" or "presenter", made once.

    Errors are kept as outputs (as Run All shows them) so that a test can name them.
    """
    runs: NbvalRuns = request.config.pluginmanager.get_plugin("spotlights-nbval-runs")
    folders = {mode: tmp_path_factory.mktemp(mode) for mode in MODES}
    done: dict[tuple[str, str], Path] = {}

    def run(name: str, mode: str = "reading") -> Path:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if (name, mode) not in done:
            nb = runs.notebook(name) if mode == "reading" else None
            if nb is None and mode == "reading" and _run_elsewhere(request.session, runs, name):
                pytest.fail(f"nbval ran {name} on another pytest-xdist worker, so its run cannot be read here: "
                            "pytest_xdist_make_scheduler (tests/conftest.py) must keep the 'notebooks' group whole")
            if nb is None:
                nb = execute(NOTEBOOKS / name, timeout=600, allow_errors=True, folder=folders[mode],
                             first=PRESENTER_CELL if mode == "presenter" else None)
            nbformat.write(nb, folders[mode] / name)
            done[name, mode] = folders[mode] / name
        return done[name, mode]

    return run


def _run_elsewhere(session: pytest.Session, runs: NbvalRuns, name: str) -> bool:
    """On an xdist worker: nbval runs the notebook in this session, but none of its cells ran in this process."""
    in_session = any(_is_chapter_cell(item) and Path(str(item.fspath)).name == name for item in session.items)
    return bool(os.environ.get("PYTEST_XDIST_WORKER")) and in_session and name not in runs.ran


@dataclass(frozen=True)
class BuiltSite:
    folder: Path
    output: str
    """what tools/build_site.py printed"""
    slides: bool


@pytest.fixture(scope="session")
def built_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """SITE_SAMPLE built once by tools/build_site.py, with their slide decks if the slides' browser test runs."""
    slides = any(Path(str(item.fspath)).name == SLIDES_TEST for item in request.session.items)
    out = tmp_path_factory.mktemp("site")
    start = time.perf_counter()
    command = [sys.executable, str(ROOT / "tools" / "build_site.py"), "--out", str(out),
               *([] if slides else ["--no-slides"]), *map(str, SITE_SAMPLE)]
    build = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    print(f"\nbuilt {len(SITE_SAMPLE)} notebooks {'with' if slides else 'without'} slides in "
          f"{time.perf_counter() - start:.0f} s:\n{build.stdout}")
    return BuiltSite(out, build.stdout, slides)
