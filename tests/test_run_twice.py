"""Checked outputs and clean re-runs: every notebook runs twice in a row in ONE kernel.

The cells whose first line is `# NBVAL_CHECK_OUTPUT` must print exactly what tools/refresh_outputs.py
recorded in tests/expected_outputs/ (the committed notebooks hold no outputs), on the first run in a fresh
kernel and again on the second run. A learner often presses "Run All" a second time without restarting:
that second run must not fail (no state left over from the first run breaks a cell) and must print the
same (seeds set where numbers are printed, no counters that keep growing).

Notebooks are found when the tests are collected, so new chapters are covered without editing this file.
Each one costs two full runs, so this is among the slowest tests; SPOTLIGHTS_RUN_TWICE=00,04 limits it
to the chapters whose names start with those prefixes (used while writing a chapter).
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tools.refresh_outputs import checked_text, is_checked, load_expected

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CELL_TIMEOUT = 300  # seconds; a whole chapter should take about one minute


def chapters() -> list[Path]:
    """The notebooks to run, optionally narrowed by SPOTLIGHTS_RUN_TWICE (comma-separated name prefixes)."""
    found = sorted(NOTEBOOKS.glob("*.ipynb"))
    wanted = [p.strip() for p in os.environ.get("SPOTLIGHTS_RUN_TWICE", "").split(",") if p.strip()]
    return [nb for nb in found if not wanted or nb.name.startswith(tuple(wanted))]


def _first_code_line(cell: nbformat.NotebookNode) -> str:
    """The cell's first line that is not a comment, to name it in a failure."""
    return next((line for line in cell.source.splitlines() if line.strip() and not line.startswith("#")), "")


def run_all(client: NotebookClient, nb: nbformat.NotebookNode, label: str) -> dict[int, str]:
    """Run every code cell once in the client's kernel; the text of each checked cell by cell index."""
    shown = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        try:
            client.execute_cell(cell, index)
        except CellExecutionError as err:
            pytest.fail(f"{label}: cell {index} ({_first_code_line(cell)!r}) raised an error:\n{err}", pytrace=False)
        if is_checked(cell):
            shown[index] = checked_text(cell)
    return shown


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.stem)
def test_notebook_prints_the_recorded_checked_outputs_twice_in_one_kernel(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3", allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    with client.setup_kernel():
        first = run_all(client, nb, "first run")
        second = run_all(client, nb, "second run, same kernel")
    expected = load_expected(path)
    ids = {i: nb.cells[i].id for i in first}
    assert set(ids.values()) == set(expected), (
        f"{path.name}: the checked cells and tests/expected_outputs/{path.stem}.json disagree; "
        "run tools/refresh_outputs.py on it"
    )
    for label, run in (("first run", first), ("second run, same kernel", second)):
        wrong = [i for i in run if run[i] != expected[ids[i]]]
        report = "\n".join(
            f"cell {i} ({_first_code_line(nb.cells[i])!r}):\n  expected: {expected[ids[i]]!r}\n  got:      {run[i]!r}"
            for i in wrong
        )
        assert not wrong, f"{path.name}, {label}: checked outputs differ from the recorded ones:\n{report}"
