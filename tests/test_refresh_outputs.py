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
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('not checked')"), checked]),
                   notebook)

    assert refresh_outputs.refresh(notebook, timeout=120) == 1

    recorded = json.loads((tmp_path / "expected" / "tiny.json").read_text())
    assert recorded == {"notebook": "tiny.ipynb", "cells": {checked.id: "[stdout] 42\n"}}
    stripped = nbformat.read(notebook, as_version=4)
    assert all(cell.outputs == [] and cell.execution_count is None for cell in stripped.cells)

    stripped.cells[1].source = "1 / 0"  # a checked cell that fails is not recorded as if it passed
    nbformat.write(stripped, notebook)
    with pytest.raises(Exception, match="ZeroDivisionError"):
        refresh_outputs.refresh(notebook, timeout=120)
    assert json.loads((tmp_path / "expected" / "tiny.json").read_text()) == recorded
