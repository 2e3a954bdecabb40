"""The lesson plans (classroom/lessons.py) fit their slots, cover what they promise, take their minutes from the stored
measurements (assets/notebooks.json), and take the cells to run first and the questions from the chapters.
tests/system/test_lesson_segments.py runs every segment in a kernel."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from classroom import lessons
from classroom.lessons import EXERCISE_MINUTES, LESSONS, PLAN_FACTOR, SWITCH_MINUTES, lesson_minutes, segment_minutes
from tools.chapters import CHAPTERS, EXPLORER, ROOT, WORDS_PER_MINUTE, chapter_parts, sections

MEASURED = json.loads((ROOT / "assets" / "notebooks.json").read_text())


def test_one_90_minute_lesson_and_three_50_minute_lessons_cover_the_chapters_in_order() -> None:
    (ninety,) = [lesson for lesson in LESSONS if lesson.slot == 90]
    assert [s.notebook for s in ninety.segments] == [*list(CHAPTERS)[1:5], EXPLORER]
    fifty = [lesson for lesson in LESSONS if lesson.slot == 50]
    assert len(fifty) == 3 and [s.notebook for lesson in fifty for s in lesson.segments] == list(CHAPTERS), (
        "each chapter's segment belongs in one 50-minute lesson's `segments` (docs/lessons.toml), in order")
    assert all(s.show and s.what and s.skip and s.demo and s.exercise for lesson in LESSONS for s in lesson.segments)


def test_minutes_follow_the_measurements_and_the_exercises_done_in_class() -> None:
    segment = next(s for lesson in LESSONS for s in lesson.segments if s.in_class)
    before = segment_minutes(segment, MEASURED)
    longer = copy.deepcopy(MEASURED)
    shown = [p for p in longer["notebooks"][segment.notebook]["sections"] if p["title"].startswith(segment.show[0])]
    shown[0]["reading_minutes"] += 3
    shown[0]["run_seconds"] += 120
    assert segment_minutes(segment, longer) == pytest.approx(before + 3 * PLAN_FACTOR + 2, abs=1)
    homework = dataclasses.replace(segment, in_class=0)
    assert before - segment_minutes(homework, MEASURED) == EXERCISE_MINUTES * segment.in_class
    lesson = LESSONS[0]
    assert lesson_minutes(lesson, MEASURED) == sum(segment_minutes(s, MEASURED) for s in lesson.segments) + (
        SWITCH_MINUTES * (len(lesson.segments) - 1))


def test_a_section_the_plan_names_must_exist() -> None:
    renamed = copy.deepcopy(MEASURED)
    segment = LESSONS[0].segments[0]
    for part in renamed["notebooks"][segment.notebook]["sections"]:
        part["title"] = "x" + part["title"]
    with pytest.raises(ValueError, match="update the lesson plan"):
        segment_minutes(segment, renamed)


def test_the_cells_to_run_first_and_the_questions_come_from_the_chapter(monkeypatch) -> None:
    """A chapter whose section 2 uses what section 1 makes: showing 2 runs section 1's cell first, not section 3's,
    and asks section 2's question only."""
    nb = new_notebook(cells=[
        new_markdown_cell("## 1. One"),
        new_code_cell("x = 2\nunused = 1", metadata={"instructor_notes": "- *Ask:* not this one?"}),
        new_markdown_cell("## 2. Two"),
        new_code_cell("print(x)", metadata={"instructor_notes": "- A point.\n- *Ask:* what does it\n  print?"}),
        new_markdown_cell("## 3. Three"), new_code_cell("x = 3")])
    monkeypatch.setattr(lessons, "_notebook", lambda name: nb)
    segment = lessons.Segment("99_made_up.ipynb", ("2.",), "what", "skip", "demo", "none")
    assert lessons.shown_cells(segment) == [2, 3] and lessons.run_first(segment) == [1]
    assert lessons.questions(segment) == ["what does it print?"]


def test_every_lesson_fits_its_slot_and_the_guide_prints_its_estimate_cells_and_questions() -> None:
    block = lessons.lessons_block(MEASURED)
    for lesson in LESSONS:
        assert lesson_minutes(lesson, MEASURED) <= lesson.slot, lesson.title
        assert f"about {lesson_minutes(lesson, MEASURED)} of {lesson.slot} minutes (fits)" in block
        for segment in lesson.segments:
            assert all(ask in block for ask in lessons.questions(segment))
    assert lessons.lessons_block(None).startswith("Not measured yet")


def test_sections_split_at_level_two_headings_with_their_words_and_run_times() -> None:
    def timed(seconds: float) -> dict:
        return {"execution": {"iopub.status.busy": "2026-12-01T10:00:00.000000Z",
                              "iopub.status.idle": f"2026-12-01T10:00:{seconds:09.6f}Z"}}

    words = " ".join(["word"] * WORDS_PER_MINUTE)  # one minute of reading
    nb = new_notebook(cells=[
        new_markdown_cell(f"# Title\n{words}"),
        new_markdown_cell("## 1. First\n### a smaller heading stays in its section"),
        new_code_cell("x = 1", metadata=timed(2.5)),
        new_markdown_cell(f"## 2. Second\n{words}"), new_code_cell("y = 2", metadata=timed(4.0)),
        new_code_cell("print('PEAK')", metadata={"tags": ["injected"], **timed(9.0)})])
    parts = sections(nb)
    assert [p["title"] for p in parts] == ["Introduction", "1. First", "2. Second"]
    assert [p["cells"] for p in chapter_parts(nb)] == [[0], [1, 2], [3, 4]], "the lesson plans' split, less injected"
    assert parts[0]["reading_minutes"] == pytest.approx(1 + 2 / WORDS_PER_MINUTE, abs=0.01)
    assert [p["run_seconds"] for p in parts] == [0.0, 2.5, 4.0], "an injected cell is not the chapter's"
