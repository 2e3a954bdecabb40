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
"""

from __future__ import annotations

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


def _is_nbval_cell(item: pytest.Item) -> bool:
    return type(item).__name__ == "IPyNbCell" and hasattr(item, "test_outputs")


class NbvalRuns:
    """What nbval's one run of each notebook showed, cell by cell (nbval's kernel runs every code cell)."""

    def __init__(self) -> None:
        self.outputs: dict[str, dict[int, list]] = {}  # notebook name -> {code cell number: outputs}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        yield
        if _is_nbval_cell(item) and item.test_outputs is not None:
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
            if nb is None:
                nb = execute(NOTEBOOKS / name, timeout=600, allow_errors=True, folder=folders[mode],
                             first=PRESENTER_CELL if mode == "presenter" else None)
            nbformat.write(nb, folders[mode] / name)
            done[name, mode] = folders[mode] / name
        return done[name, mode]

    return run


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
