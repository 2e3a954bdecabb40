"""Clean re-runs: every chapter runs twice in a row in ONE kernel and gives the same checked outputs.

A learner often presses "Run All" a second time without restarting. That second run must not fail
(no state left over from the first run breaks a cell) and the cells whose first line is
`# NBVAL_CHECK_OUTPUT` must print the same as the first time (seeds set where numbers are printed,
no counters that keep growing). The fresh-kernel run itself, compared with nothing, is nbval's job.

Notebooks are found when the tests are collected, so new chapters are covered without editing this file.
Each one costs two full runs, so this is among the slowest tests; SPOTLIGHTS_RUN_TWICE=00,04 limits it
to the chapters whose names start with those prefixes (used while writing a chapter).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHECK = "# NBVAL_CHECK_OUTPUT"
CELL_TIMEOUT = 300  # seconds; a whole chapter should take about one minute
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # object reprs differ between runs without meaning anything


def chapters() -> list[Path]:
    """The notebooks to run, optionally narrowed by SPOTLIGHTS_RUN_TWICE (comma-separated name prefixes)."""
    found = sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))
    wanted = [p.strip() for p in os.environ.get("SPOTLIGHTS_RUN_TWICE", "").split(",") if p.strip()]
    return [nb for nb in found if not wanted or nb.name.startswith(tuple(wanted))]


def checked_text(cell: nbformat.NotebookNode) -> str:
    """What a checked cell showed as text: its printed streams and text results, in order.

    Printed text may arrive in several pieces (where it is cut differs from run to run), so consecutive
    pieces of one stream are joined before comparing.
    """
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            label = f"[{out.name}] "
            if parts and parts[-1].startswith(label):
                parts[-1] += out.text
            else:
                parts.append(label + out.text)
        elif out.output_type in ("execute_result", "display_data") and "text/plain" in out.get("data", {}):
            parts.append(out.data["text/plain"])
        elif out.output_type == "error":
            parts.append(f"[error] {out.ename}: {out.evalue}")
    return _ADDRESS.sub(" at 0x…", "".join(parts))


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
        if cell.source.startswith(CHECK):
            shown[index] = checked_text(cell)
    return shown


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.stem)
def test_notebook_runs_twice_in_one_kernel_with_the_same_checked_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3", allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    with client.setup_kernel():
        first = run_all(client, nb, "first run")
        second = run_all(client, nb, "second run, same kernel")
    changed = [i for i in first if first[i] != second[i]]
    report = "\n".join(
        f"cell {i} ({_first_code_line(nb.cells[i])!r}):\n  first:  {first[i]!r}\n  second: {second[i]!r}"
        for i in changed
    )
    assert not changed, f"{path.name}: checked outputs changed on the second run:\n{report}"
