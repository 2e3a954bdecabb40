"""Every notebook opens with a Colab link and a set-up cell (folded in JupyterLab) that installs the series on Colab,
and only there.

A new chapter copies both cells from any notebook. Here the cell runs with stand-ins for Colab's `google.colab`
module and for pip; tests/system/test_wheel.py runs it for real over Colab's versions in a fresh venv.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import types
from pathlib import Path

import nbformat
import pytest

from tools.chapters import NOTEBOOKS
from tools.pages import prepare

COLAB = "https://colab.research.google.com/github/several-spotlights/several-spotlights/blob/main/notebooks/"
SERIES = "several-spotlights @ git+https://github.com/several-spotlights/several-spotlights"
COLABS = {"torch": "2.11.0+cu126", "ipywidgets": "7.7.1", "plotly": "5.24.1", "anywidget": "0.9.21", "numpy": "2.0.2"}
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))


def run_setup_cell(path: Path, monkeypatch: pytest.MonkeyPatch, colab: bool, installed: dict[str, str],
                   ) -> tuple[list[list[str]], int]:
    """Run `path`'s set-up cell (on Colab or not, with `installed` packages): the pip commands, widget managers."""
    pip, managers = [], []
    monkeypatch.setattr(subprocess, "run", lambda command, check: pip.append(command) if check else None)
    dists = [types.SimpleNamespace(metadata={"Name": name}, version=v) for name, v in installed.items()]
    monkeypatch.setattr(importlib.metadata, "distributions", lambda: dists)
    if colab:
        output = types.SimpleNamespace(enable_custom_widget_manager=lambda: managers.append(1))
        monkeypatch.setitem(sys.modules, "google", types.SimpleNamespace(colab=None))
        monkeypatch.setitem(sys.modules, "google.colab", types.SimpleNamespace(output=output))
    else:
        monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    setup = nbformat.read(path, as_version=4).cells[1]
    assert setup.cell_type == "code", f"{path.name}: the second cell is not the Colab set-up cell"
    exec(compile(setup.source, path.name, "exec"), {})
    return pip, len(managers)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_notebook_opens_with_its_colab_link_which_pages_and_decks_leave_out(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    assert nb.cells[0].cell_type == "markdown" and f"]({COLAB}{path.name})" in nb.cells[0].source
    assert nb.cells[1].metadata.get("jupyter", {}).get("source_hidden"), "JupyterLab shows the install code first"
    assert {cell.id for cell in nb.cells[:2]}.isdisjoint(cell.id for cell in prepare(nb).cells)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_the_setup_cell_installs_the_series_on_colab_keeping_its_versions(path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                           capsys: pytest.CaptureFixture) -> None:
    assert run_setup_cell(path, monkeypatch, colab=False, installed=COLABS) == ([], 0), "it acted outside Colab"
    assert not capsys.readouterr().out
    (command,), managers = run_setup_cell(path, monkeypatch, colab=True, installed=COLABS)
    assert command[:4] == [sys.executable, "-m", "pip", "install"] and SERIES in command and managers == 1
    kept = {f"{name}=={version}" for name, version in COLABS.items() if name != "numpy"}
    assert kept <= set(command), f"pip may replace Colab's versions: {command}"
    assert not {"-U", "--upgrade", "--force-reinstall"} & set(command)
    again = run_setup_cell(path, monkeypatch, colab=True, installed={**COLABS, "several-spotlights": "0.1.0"})
    assert again == ([], 1), "run again in the same Colab session, it installed the series again"
