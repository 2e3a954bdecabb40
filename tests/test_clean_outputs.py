"""After Run All, no chapter shows a red error or a pink stderr box (a warning, a note printed to stderr), and
every solution cell passes its check (a check cell prints a wrong answer's explanation instead of raising it)
and says so as the chapter's solution, without the praise meant for a learner's own answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from helpers.checks import solution_in_use
from tools.chapters import chapter_paths


@pytest.mark.parametrize("name", [path.name for path in chapter_paths()])
def test_run_all_shows_no_error_and_no_stderr(name: str, executed: Callable[[str, str], Path]) -> None:
    nb = nbformat.read(executed(name, "reading"), as_version=4)
    bad = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                bad.append(f"cell {i}: error {out.ename}: {out.evalue}")
            elif out.output_type == "stream" and out.name == "stderr":
                bad.append(f"cell {i}: stderr {out.text[:300]!r}")
    assert not bad, f"{name} after Run All:\n" + "\n".join(bad)


@pytest.mark.parametrize("name", [path.name for path in chapter_paths()])
def test_every_solution_passes_its_check(name: str, executed: Callable[[str, str], Path]) -> None:
    nb = nbformat.read(executed(name, "reading"), as_version=4)
    for i, cell in enumerate(nb.cells):
        if "solution" in cell.metadata.get("tags", []):
            text = " ".join("".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream").split())
            exercise = re.search(r"yours_or_reference\(\s*check_(\w+)", cell.source)[1]
            assert text == solution_in_use(exercise), f"{name} cell {i}: {text}"
