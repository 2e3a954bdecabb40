"""After Run All, no chapter shows a red error or a pink stderr box (a warning, a note printed to stderr), and
every solution cell passes its check (a check cell prints a wrong answer's explanation instead of raising it)
and says so as the chapter's solution, without the praise meant for a learner's own answer, and no printed
line is longer than a projector shows unwrapped (the developers' guide's 100 characters)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from helpers.checks import solution_in_use
from tools.chapters import chapter_paths

PRINTOUT_WIDTH = 100
"""Characters a printed line may have, as the developers' guide promises: JupyterLab's output area shows about
107 unwrapped at 1280x720 in presenter mode (tests/test_project_files.py holds the recorded lines to it too)."""


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
            elif out.output_type == "stream":
                bad += [f"cell {i}: a printed line of {len(line)} characters: {line[:60]}..."
                        for line in out.text.splitlines() if len(line.rsplit("\r", 1)[-1]) > PRINTOUT_WIDTH]
    assert not bad, f"{name} after Run All:\n" + "\n".join(bad)


@pytest.mark.parametrize("name", [path.name for path in chapter_paths()])
def test_every_solution_passes_its_check(name: str, executed: Callable[[str, str], Path]) -> None:
    nb = nbformat.read(executed(name, "reading"), as_version=4)
    for i, cell in enumerate(nb.cells):
        if "solution" in cell.metadata.get("tags", []):
            text = " ".join("".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream").split())
            exercise = re.search(r"yours_or_reference\(\s*check_(\w+)", cell.source)[1]
            assert text == solution_in_use(exercise), f"{name} cell {i}: {text}"
