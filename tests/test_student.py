"""The student edition (tools/student.py): every notebook, no solution code, no speaker notes, no outputs, every
exercise kept as a stub with its instructions. make check runs the edition itself under nbval (Makefile)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tools.chapters import notebook_paths
from tools.student import SOLUTION_TAG, build, is_notes

MASTERS = notebook_paths("")


@pytest.fixture(scope="module")
def edition(tmp_path_factory: pytest.TempPathFactory) -> dict[str, nbformat.NotebookNode]:
    written = build(tmp_path_factory.mktemp("student"))
    return {path.name: nbformat.read(path, as_version=4) for path in written}


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return cell.metadata.get("tags", [])


def solution_lines(master: nbformat.NotebookNode) -> set[str]:
    """The lines of the master's solution cells that are not also in its other cells (a stub's def line, the
    check call): the solution code itself. Lines shorter than 10 characters ('}', 'return {') say nothing."""
    elsewhere = {line.strip() for cell in master.cells if SOLUTION_TAG not in _tags(cell)
                 for line in cell.source.splitlines()}
    return {line.strip() for cell in master.cells if SOLUTION_TAG in _tags(cell)
            for line in cell.source.splitlines() if len(line.strip()) >= 10 and line.strip() not in elsewhere}


def test_every_notebook_is_in_the_edition(edition: dict[str, nbformat.NotebookNode]) -> None:
    assert sorted(edition) == sorted(path.name for path in MASTERS)


@pytest.mark.parametrize("master", MASTERS, ids=lambda p: p.name)
def test_no_solution_text_and_no_output(edition: dict[str, nbformat.NotebookNode], master: Path) -> None:
    nb = edition[master.name]
    text = "\n".join(cell.source for cell in nb.cells)
    leaked = [line for line in solution_lines(nbformat.read(master, as_version=4)) if line in text]
    assert not leaked, f"{master.name}: solution code in the student edition: {leaked}"
    assert not any(SOLUTION_TAG in _tags(cell) for cell in nb.cells)
    assert not any(cell.get("outputs") for cell in nb.cells if cell.cell_type == "code")


@pytest.mark.parametrize("master", MASTERS, ids=lambda p: p.name)
def test_no_speaker_notes(edition: dict[str, nbformat.NotebookNode], master: Path) -> None:
    """The notes cells tell the instructor each exercise's trap: learners would read the answer there."""
    nb = edition[master.name]
    assert not [cell.source[:60] for cell in nb.cells if is_notes(cell)]
    notes = [cell.source for cell in nbformat.read(master, as_version=4).cells if is_notes(cell)]
    text = "\n".join(cell.source for cell in nb.cells)
    assert not [note[:60] for note in notes if note in text], f"{master.name}: notes text in the edition"


def test_the_chapters_have_notes_to_remove() -> None:
    assert all(any(is_notes(cell) for cell in nbformat.read(path, as_version=4).cells)
               for path in MASTERS if path.stem[:2].isdigit()), "a chapter without speaker notes"


@pytest.mark.parametrize("master", MASTERS, ids=lambda p: p.name)
def test_every_other_cell_is_kept_as_it_is(edition: dict[str, nbformat.NotebookNode], master: Path) -> None:
    """Stubs, their instructions, the check cells and the slide metadata: everything but solutions and notes."""
    kept = [cell for cell in nbformat.read(master, as_version=4).cells
            if SOLUTION_TAG not in _tags(cell) and not is_notes(cell)]
    nb = edition[master.name]
    assert [(c.cell_type, c.source, c.metadata) for c in nb.cells] == [
        (c.cell_type, c.source, c.metadata) for c in kept]


def test_the_chapters_have_solutions_to_remove() -> None:
    """Each chapter with exercises has one solution cell per stub, so the test above removes something real."""
    for master in MASTERS:
        cells = nbformat.read(master, as_version=4).cells
        stubs = sum("todo()" in cell.source for cell in cells if cell.cell_type == "code")
        solutions = sum(SOLUTION_TAG in _tags(cell) for cell in cells)
        assert stubs == solutions, f"{master.name}: {stubs} exercise stubs but {solutions} solution cells"
        assert solution_lines(nbformat.read(master, as_version=4)) or not stubs
