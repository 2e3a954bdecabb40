"""Shared by the tests that look at what a learner sees: each chapter executed once per session and mode."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
PRESENTER_CELL = "import helpers\n\nhelpers.presenter_mode(True)"


@pytest.fixture(scope="session")
def run_chapter(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, bool], Path]:
    """run(name, presenter) -> the executed copy of a chapter (Run All, errors kept as outputs), made once.

    With presenter=True a first cell switches presenter mode on, as an instructor would. Copies of one mode
    share a folder, so one JupyterLab server can open them all.
    """
    folders = {mode: tmp_path_factory.mktemp(mode) for mode in ("reading", "presenter")}
    done: dict[tuple[str, bool], Path] = {}

    def run(name: str, presenter: bool = False) -> Path:
        if (name, presenter) not in done:
            nb = nbformat.read(NOTEBOOKS / name, as_version=4)
            if presenter:
                nb.cells.insert(0, nbformat.v4.new_code_cell(PRESENTER_CELL, metadata={"tags": ["injected"]}))
            folder = folders["presenter" if presenter else "reading"]
            NotebookClient(nb, timeout=600, startup_timeout=300, kernel_name="python3", allow_errors=True,
                           resources={"metadata": {"path": str(folder)}}).execute()
            nbformat.write(nb, folder / name)
            done[name, presenter] = folder / name
        return done[name, presenter]

    return run
