"""Every segment of the guide's lesson plans runs as the guide says (its cells to run first, then the shown ones) in a
fresh kernel, and its checked cells print what the chapter records. Slow: `make check` runs it, `make test` does not.
"""

from __future__ import annotations

import nbformat
import pytest

from classroom.lessons import LESSONS, lesson_cells
from tools.chapters import NOTEBOOKS, execute
from tools.refresh_outputs import checked_text, is_checked, load_expected

SEGMENTS = list({(s.notebook, s.show): s for lesson in LESSONS for s in lesson.segments}.values())


@pytest.mark.parametrize("segment", SEGMENTS, ids=lambda s: f"{s.notebook[:-6]} {' '.join(s.show)}")
def test_a_segment_runs_as_the_guide_says(segment) -> None:
    path = NOTEBOOKS / segment.notebook
    nb = nbformat.read(path, as_version=4)
    keep = set(lesson_cells(segment))
    nb.cells = [cell for index, cell in enumerate(nb.cells) if index in keep]
    ran = execute(path, nb=nb, timeout=600)  # the first error fails the test, naming the cell
    expected = load_expected(path)
    differ = [cell.id for cell in ran.cells if is_checked(cell) and checked_text(cell) != expected[cell.id]]
    assert not differ, f"{segment.notebook}: checked cells that print other text than the chapter: {differ}"
