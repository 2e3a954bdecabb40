"""The lesson plans (tools/lessons.py) fit their slots, cover what they promise, and take their minutes from the
stored measurements (assets/notebooks.json), never from the notebooks' current text."""

from __future__ import annotations

import copy
import json

import nbformat
import pytest

from tools.chapters import CHAPTERS, EXPLORER, ROOT, WORDS_PER_MINUTE, sections
from tools.lessons import LESSONS, PLAN_FACTOR, lesson_minutes, lessons_block, segment_minutes

MEASURED = json.loads((ROOT / "assets" / "notebooks.json").read_text())


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: f"{lesson.slot} min: {lesson.title[-40:]}")
def test_every_lesson_fits_its_slot(lesson) -> None:
    assert lesson_minutes(lesson, MEASURED) <= lesson.slot


def test_one_90_minute_lesson_on_chapters_1_to_4_and_the_explorer() -> None:
    (lesson,) = [lesson for lesson in LESSONS if lesson.slot == 90]
    assert [s.notebook for s in lesson.segments] == [*list(CHAPTERS)[1:5], EXPLORER]


def test_three_50_minute_lessons_cover_every_chapter_in_order() -> None:
    fifty = [lesson for lesson in LESSONS if lesson.slot == 50]
    assert len(fifty) == 3
    assert [s.notebook for lesson in fifty for s in lesson.segments] == list(CHAPTERS)


def test_every_segment_says_what_to_show_skip_demo_and_do() -> None:
    for lesson in LESSONS:
        for segment in lesson.segments:
            assert segment.show and all((segment.what, segment.skip, segment.demo, segment.exercise)), segment


def test_minutes_follow_the_measurements() -> None:
    """Twice the reading time of the sections shown plus their run time: change a measurement, the plan moves."""
    segment = LESSONS[0].segments[0]
    before = segment_minutes(segment, MEASURED)
    longer = copy.deepcopy(MEASURED)
    shown = [p for p in longer["notebooks"][segment.notebook]["sections"] if p["title"].startswith(segment.show[0])]
    shown[0]["reading_minutes"] += 3
    shown[0]["run_seconds"] += 120
    assert segment_minutes(segment, longer) == pytest.approx(before + 3 * PLAN_FACTOR + 2, abs=1)


def test_a_section_the_plan_names_must_exist() -> None:
    renamed = copy.deepcopy(MEASURED)
    segment = LESSONS[0].segments[0]
    for part in renamed["notebooks"][segment.notebook]["sections"]:
        part["title"] = "x" + part["title"]
    with pytest.raises(ValueError, match="update the lesson plan"):
        segment_minutes(segment, renamed)


def test_the_guide_block_prints_each_lesson_with_its_total() -> None:
    block = lessons_block(MEASURED, CHAPTERS)
    for lesson in LESSONS:
        assert f"Planned: {lesson_minutes(lesson, MEASURED)} of {lesson.slot} minutes (fits)." in block
    assert "Live demo:" in block and "Skip:" in block and "Exercise:" in block
    assert lessons_block(None, CHAPTERS).startswith("Not measured yet")


def test_sections_split_at_level_two_headings_with_their_words_and_run_times() -> None:
    def timed(seconds: float) -> dict:
        return {"execution": {"iopub.status.busy": "2026-12-01T10:00:00.000000Z",
                              "iopub.status.idle": f"2026-12-01T10:00:{seconds:09.6f}Z"}}

    words = " ".join(["word"] * WORDS_PER_MINUTE)  # one minute of reading
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(f"# Title\n{words}"),
        nbformat.v4.new_markdown_cell("## 1. First\n### a smaller heading stays in its section"),
        nbformat.v4.new_code_cell("x = 1", metadata=timed(2.5)),
        nbformat.v4.new_markdown_cell(f"## 2. Second\n{words}"),
        nbformat.v4.new_code_cell("y = 2", metadata=timed(4.0)),
        nbformat.v4.new_code_cell("print('PEAK')", metadata={"tags": ["injected"], **timed(9.0)}),
    ]
    parts = sections(nb)
    assert [p["title"] for p in parts] == ["Introduction", "1. First", "2. Second"]
    assert parts[0]["reading_minutes"] == pytest.approx(1 + 2 / WORDS_PER_MINUTE, abs=0.01)
    assert [p["run_seconds"] for p in parts] == [0.0, 2.5, 4.0], "an injected cell is not the chapter's"
