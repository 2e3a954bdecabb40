"""tools/refresh_outputs.py: it runs a notebook, records what its checked cells print, and strips the outputs."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from tools import refresh_outputs


def test_refresh_records_the_checked_cells_and_strips_every_output(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(refresh_outputs, "EXPECTED", tmp_path / "expected")
    notebook = tmp_path / "tiny.ipynb"
    checked = nbformat.v4.new_code_cell("print(6 * 7)", metadata={"tags": [refresh_outputs.CHECKED]})
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('not checked')"), checked])
    nbformat.write(nb, notebook)

    assert refresh_outputs.refresh(notebook, timeout=120) == 1

    recorded = json.loads((tmp_path / "expected" / "tiny.json").read_text())
    assert recorded == {"notebook": "tiny.ipynb", "cells": {checked.id: "[stdout] 42\n"}}
    stripped = nbformat.read(notebook, as_version=4)
    assert all(cell.outputs == [] and cell.execution_count is None for cell in stripped.cells)


def test_a_checked_cell_that_fails_is_not_recorded_as_if_it_passed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(refresh_outputs, "EXPECTED", tmp_path / "expected")
    notebook = tmp_path / "broken.ipynb"
    cell = nbformat.v4.new_code_cell("1 / 0", metadata={"tags": [refresh_outputs.CHECKED]})
    nb = nbformat.v4.new_notebook(cells=[cell])
    nbformat.write(nb, notebook)
    with pytest.raises(Exception, match="ZeroDivisionError"):
        refresh_outputs.refresh(notebook, timeout=120)
    assert not (tmp_path / "expected" / "broken.json").exists()
