"""Checked outputs: every notebook prints exactly the text tools/refresh_outputs.py recorded.

The cells whose first line is `# CHECK_OUTPUT` print deterministic results (counts, shapes, small tables);
their text is recorded in tests/expected_outputs/ (the committed notebooks hold no outputs). This test
compares a fresh run with that record, which another run made: seeds set where numbers are printed and no
counters that keep growing, or the two runs disagree. It reads the session's one run of each notebook
(`executed` in tests/conftest.py). SPOTLIGHTS_CHAPTERS=00,04 limits it to some.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from tools.chapters import notebook_paths
from tools.refresh_outputs import checked_text, is_checked, load_expected


def _first_code_line(cell: nbformat.NotebookNode) -> str:
    """The cell's first line that is not a comment, to name it in a failure."""
    return next((line for line in cell.source.splitlines() if line.strip() and not line.startswith("#")), "")


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_notebook_prints_the_recorded_checked_outputs(path: Path, executed: Callable[[str, str], Path]) -> None:
    nb = nbformat.read(executed(path.name, "reading"), as_version=4)
    errors = [f"cell {i} ({_first_code_line(cell)!r}): {out.ename}: {out.evalue}"
              for i, cell in enumerate(nb.cells) for out in cell.get("outputs", []) if out.output_type == "error"]
    assert not errors, f"{path.name} raised errors when run top to bottom:\n" + "\n".join(errors)
    shown = {i: checked_text(cell) for i, cell in enumerate(nb.cells) if is_checked(cell)}
    expected = load_expected(path)
    ids = {i: nb.cells[i].id for i in shown}
    assert set(ids.values()) == set(expected), (
        f"{path.name}: the checked cells and tests/expected_outputs/{path.stem}.json disagree; "
        "run python -m tools.refresh_outputs on it"
    )
    wrong = [i for i in shown if shown[i] != expected[ids[i]]]
    report = "\n".join(
        f"cell {i} ({_first_code_line(nb.cells[i])!r}):\n  expected: {expected[ids[i]]!r}\n  got:      {shown[i]!r}"
        for i in wrong
    )
    assert not wrong, f"{path.name}: checked outputs differ from the recorded ones:\n{report}"
