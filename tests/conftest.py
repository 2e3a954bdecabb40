"""Shared fixtures: one run of each notebook for the tests that read what it shows, and one site build.

nbval executes every notebook top to bottom (`notebooks/` is in testpaths), as Restart and Run All does: a
cell that raises fails there. The tests that read what a notebook shows (its checked outputs, no error or
stderr, the browser tests' figures) get it from `executed`, which runs each notebook once per test session
through the one runner (`tools.chapters.execute`), keyed by the notebook's content and the mode. Under
pytest-xdist the workers share those runs through a file lock in the session's common temporary folder
(xdist's documented recipe for session fixtures), so `make test` runs a notebook twice: once in nbval,
once here. The site tests share one static build (`built_site`).
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from filelock import FileLock

from tools.chapters import NOTEBOOKS, ROOT, SITE_SAMPLE, execute

PRESENTER_CELL = "import helpers\n\nhelpers.presenter_mode(True)"
MODES = ("reading", "presenter")
SLIDES_TEST = "test_site_browser.py"


def _shared_folder(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """A folder every pytest-xdist worker of this session sees (the session's own without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent


@pytest.fixture(scope="session")
def executed(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Callable[[str, str], Path]:
    """executed(name, mode) -> the executed copy of a notebook in mode "reading" or "presenter", made once.

    Presenter mode runs the notebook with `helpers.presenter_mode(True)` in an added first cell, as an
    instructor would. Errors are kept as outputs (as Run All shows them) so that a test can name them. Copies
    of one mode share a folder, so one JupyterLab server opens them all.
    """
    runs = _shared_folder(tmp_path_factory, worker_id) / "notebook-runs"

    def run(name: str, mode: str = "reading") -> Path:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        source = NOTEBOOKS / name
        folder = runs / mode
        folder.mkdir(parents=True, exist_ok=True)
        copy = folder / name
        done = folder / f"{name}.{hashlib.sha256(source.read_bytes()).hexdigest()[:16]}.done"
        with FileLock(str(folder / f"{name}.lock")):
            if not done.exists():
                nb = execute(source, timeout=600, allow_errors=True, folder=folder,
                             first=PRESENTER_CELL if mode == "presenter" else None)
                nbformat.write(nb, copy)
                done.touch()
        return copy

    return run


@dataclass(frozen=True)
class BuiltSite:
    folder: Path
    output: str
    """what tools.build_site printed"""
    slides: bool


@pytest.fixture(scope="session")
def built_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """SITE_SAMPLE built once by tools.build_site, with their slide decks if the slides' browser test runs."""
    import subprocess

    slides = any(Path(str(item.path)).name == SLIDES_TEST for item in request.session.items)
    out = tmp_path_factory.mktemp("site")
    start = time.perf_counter()
    command = [sys.executable, "-m", "tools.build_site", "--out", str(out),
               *([] if slides else ["--no-slides"]), *map(str, SITE_SAMPLE)]
    build = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    print(f"\nbuilt {len(SITE_SAMPLE)} notebooks {'with' if slides else 'without'} slides in "
          f"{time.perf_counter() - start:.0f} s:\n{build.stdout}")
    return BuiltSite(out, build.stdout, slides)
