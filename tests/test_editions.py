"""The editions (tools/editions.py): notebooks/ is the learner's, and the instructor's is built from it."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import nbformat
import pytest

from helpers.checks import solution_in_use
from helpers.checks.solutions import SOLUTIONS
from tools.build_site import main as build_site
from tools.chapters import NOTEBOOKS, execute, notebook_paths
from tools.editions import EXERCISE, NOTES_KEY, SOLUTION, build, checked_exercise, is_notes, solution_source, tags

LEARNER = {path.name: nbformat.read(path, as_version=4) for path in notebook_paths("")}


def _solution_lines() -> set[str]:
    """Lines of the solutions that a stub or an instruction never has: the solution code itself."""
    return {line.strip() for name in SOLUTIONS for line in solution_source(name).splitlines()[1:]
            if len(line.strip()) >= 12 and not line.strip().startswith(("return ", "#")) and ".shape" not in line}


@pytest.mark.parametrize("name", LEARNER)
def test_the_learner_edition_carries_only_the_learners_path(name: str) -> None:
    nb = LEARNER[name]
    assert not [cell.source[:60] for cell in nb.cells if is_notes(cell)], "a speaker-notes cell"
    text = "\n".join(cell.source for cell in nb.cells)
    assert "CHECK_OUTPUT" not in text and "Instructor's notes" not in text
    assert not [line for line in _solution_lines() if line in text], "solution code in the chapter"
    assert not [cell for cell in nb.cells if SOLUTION in tags(cell)]


def test_every_chapter_is_one_sitting_of_prose() -> None:
    """At most 3,500 words of markdown per notebook: past that a chapter holds more than one idea."""
    words = {name: sum(len(cell.source.split()) for cell in nb.cells if cell.cell_type == "markdown")
             for name, nb in LEARNER.items()}
    assert not {name: n for name, n in words.items() if n > 3500}, words


def test_a_class_gets_the_learner_edition_without_the_notes_in_its_metadata(tmp_path: Path) -> None:
    """What postBuild puts on a hub: the chapter's cells as they are, outputs cleared, no speaker notes."""
    source = nbformat.read(NOTEBOOKS / "01_one_spotlight.ipynb", as_version=4)
    nb = nbformat.read(build("learner", tmp_path, [NOTEBOOKS / "01_one_spotlight.ipynb"])[0], as_version=4)
    assert any(NOTES_KEY in cell.metadata for cell in source.cells)
    assert not [cell.id for cell in nb.cells if NOTES_KEY in cell.metadata]
    assert [cell.source for cell in nb.cells] == [cell.source for cell in source.cells]
    answered = source  # presented live and saved: an answer in the stub's place
    next(c for c in answered.cells if EXERCISE in tags(c)).source = "def weighted_average(w, v):\n    return w @ v"
    answered.cells.append(nbformat.v4.new_code_cell("def softmax(s):\n    return s.softmax(-1)"))  # or a cell added
    nbformat.write(answered, tmp_path / "presented.ipynb")
    with pytest.raises(SystemExit, match=r"presented.ipynb: weighted_average, softmax\).*git checkout notebooks/"):
        build("learner", tmp_path / "handout", [tmp_path / "presented.ipynb"])
    with pytest.raises(SystemExit, match="Not built: the chapters hold answers"):  # nor a page or deck of it
        build_site([str(tmp_path / "presented.ipynb"), "--no-pages", "--out", str(tmp_path / "handout")])
    assert not (tmp_path / "handout").exists(), "nothing written"


def test_every_exercise_has_a_stub_a_check_and_a_solution() -> None:
    checked = [name for nb in LEARNER.values() for cell in nb.cells if (name := checked_exercise(cell))]
    assert sorted(checked) == sorted(SOLUTIONS), "each solution belongs to one exercise checked in a chapter"
    stubs = [cell for nb in LEARNER.values() for cell in nb.cells if EXERCISE in tags(cell)]
    assert len(stubs) == len(SOLUTIONS) and all("todo()" in cell.source for cell in stubs)


def test_the_instructor_edition_shows_notes_after_their_cell_and_runs_solutions_after_their_check(
        tmp_path: Path) -> None:
    """Run All in the instructor edition: each solution, right after its check, passes it and says it is now in
    use; each cell's notes follow it."""
    path = NOTEBOOKS / "02_queries_keys_values.ipynb"
    nb = nbformat.read(build("instructor", tmp_path, [path])[0], as_version=4)
    noted = [cell for cell in LEARNER[path.name].cells if cell.metadata.get(NOTES_KEY)]
    assert noted and sum(is_notes(cell) for cell in nb.cells) == len(noted)
    shown = [cell for cell in nb.cells if SOLUTION not in tags(cell)]  # a solution sits between a check and its notes
    for before, after in pairwise(shown):
        if is_notes(after):
            assert before.metadata[NOTES_KEY] in after.source
    for before, after in pairwise(nb.cells):
        if SOLUTION in tags(after):
            assert solution_source(checked_exercise(before)) in after.source
    ran = execute(path, nb=nb, timeout=300)
    said = [" ".join(out.text.split()) for cell in ran.cells if SOLUTION in tags(cell)
            for out in cell.outputs if out.output_type == "stream"]
    assert len(said) == 3 and all(any(solution_in_use(n) in text for n in SOLUTIONS) for text in said), said


def test_run_all_with_a_wrong_answer_keeps_it_and_runs_to_the_end() -> None:
    """A learner's wrong softmax: the check explains it, the learner's cell stays as written, later cells use the
    solution, and the chapter runs to its end."""
    nb = LEARNER["01_one_spotlight.ipynb"]
    stub = next(cell for cell in nb.cells if EXERCISE in tags(cell) and "def softmax" in cell.source)
    wrong = "def softmax(scores):\n    e = scores.exp()\n    return e / e.sum(dim=0)  # down the columns\n"
    edited = nbformat.from_dict(nb)
    edited.cells[nb.cells.index(stub)].source = wrong
    ran = execute(NOTEBOOKS / "01_one_spotlight.ipynb", nb=edited, timeout=300)
    assert ran.cells[nb.cells.index(stub)].source == wrong
    check = ran.cells[nb.cells.index(stub) + 1]
    said = "".join(out.get("text", "") for out in check.outputs)
    assert "Not right yet" in said and "Using the reference softmax" in said
    assert all(out.output_type != "error" for cell in ran.cells for out in cell.get("outputs", []))
