"""Lesson plans that fit a class slot: which sections to show, what to skip, the live demo and the exercise.

The choices are written in docs/lessons.toml; the chapters give the cells to run first (what the shown cells use
from skipped sections) and the questions (their speaker notes' "*Ask:*" lines); assets/notebooks.json gives the
measured minutes. `lessons_block` renders the plans for the guide (benchmarks/report.py).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from functools import cache

import nbformat

from classroom.dependencies import needed
from tools.chapters import CHAPTERS, EXPLORER, NOTEBOOKS, ROOT, chapter_parts, chapter_title, read_toml


@dataclasses.dataclass(frozen=True)
class Segment:
    """One notebook's part of a lesson (the fields: docs/lessons.toml)."""

    notebook: str
    show: tuple[str, ...]
    what: str
    skip: str
    demo: str
    exercise: str
    in_class: int = 0


@dataclasses.dataclass(frozen=True)
class Lesson:
    title: str
    slot: int  # minutes
    segments: tuple[Segment, ...]


PLANS = read_toml(ROOT / "docs" / "lessons.toml")
PLAN_FACTOR: float = PLANS["assumptions"]["plan_factor"]  # the assumptions: docs/lessons.toml says what each means
EXERCISE_MINUTES: int = PLANS["assumptions"]["exercise_minutes"]
SWITCH_MINUTES: int = PLANS["assumptions"]["switch_minutes"]


def _segment(key: str) -> Segment:
    """A segment of docs/lessons.toml: its fields, over those of the segment it `use`s."""
    table = PLANS["segments"][key]
    fields = {**(dataclasses.asdict(_segment(table["use"])) if "use" in table else {}), **table}
    fields.pop("use", None)
    return Segment(**{**fields, "show": tuple(fields["show"])})


LESSONS = tuple(Lesson(lesson["title"], lesson["slot"], tuple(map(_segment, lesson["segments"])))
                for lesson in PLANS["lessons"])


def _section(parts: list[dict], start: str, notebook: str) -> dict:
    """The one section of `notebook` whose title starts with `start`."""
    found = [part for part in parts if part["title"].startswith(start)]
    if len(found) != 1:
        titles = "; ".join(part["title"] for part in parts)
        raise ValueError(f"{notebook}: {len(found)} sections start with {start!r} (sections: {titles}); "
                         "update the lesson plan in docs/lessons.toml")
    return found[0]


def segment_minutes(segment: Segment, measured: Mapping) -> int:
    """Minutes the segment takes (its sections' measured reading and run times, and its exercises in class)."""
    row = measured["notebooks"].get(segment.notebook)
    if row is None or "sections" not in row:
        raise ValueError(f"{segment.notebook} has no sections in assets/notebooks.json: run "
                         "python -m benchmarks.notebook_memory")
    shown = [_section(row["sections"], start, segment.notebook) for start in segment.show]
    reading = sum(part["reading_minutes"] for part in shown)
    running = sum(part["run_seconds"] for part in shown)
    return math.ceil(PLAN_FACTOR * reading + running / 60) + EXERCISE_MINUTES * segment.in_class


def lesson_minutes(lesson: Lesson, measured: Mapping) -> int:
    """The lesson's planned minutes: its segments' (as the guide prints them) and a switch between each two."""
    return (sum(segment_minutes(segment, measured) for segment in lesson.segments)
            + SWITCH_MINUTES * (len(lesson.segments) - 1))


@cache
def _notebook(name: str) -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOKS / name, as_version=4)


def shown_cells(segment: Segment) -> list[int]:
    """Every cell of the sections the segment shows, in notebook order."""
    parts = chapter_parts(_notebook(segment.notebook))
    return sorted(i for start in segment.show for i in _section(parts, start, segment.notebook)["cells"])


def lesson_cells(segment: Segment) -> list[int]:
    """The code cells to run for the segment, in notebook order: the shown ones and what they need."""
    nb = _notebook(segment.notebook)
    sources = [cell.source if cell.cell_type == "code" else "" for cell in nb.cells]
    return needed(sources, [i for i in shown_cells(segment) if sources[i].strip()])


def run_first(segment: Segment) -> list[int]:
    """The cells of skipped sections that the shown cells need: run, not shown."""
    return sorted(set(lesson_cells(segment)) - set(shown_cells(segment)))


def _asks(nb: nbformat.NotebookNode, cells: list[int]) -> list[str]:
    """The '*Ask:*' lines of the speaker notes of `cells`, each on one line."""
    notes = "\n".join(nb.cells[i].metadata.get("instructor_notes", "") for i in cells)
    return [" ".join(m.group(1).split()) for m in re.finditer(r"\*Ask:\*\s*(.+(?:\n(?!\s*[-*] |\s*$).+)*)", notes)]


def questions(segment: Segment) -> list[str]:
    """The questions to ask: the '*Ask:*' lines of the speaker notes in the sections shown."""
    return _asks(_notebook(segment.notebook), shown_cells(segment))


def _heading(name: str) -> str:
    """A notebook as the guide names it: "1. One spotlight", or the explorer's title."""
    number = f"{int(name[:2])}. " if name[:2].isdigit() else ""
    return number + chapter_title(name.removesuffix(".ipynb"))


def questions_block() -> str:
    """Every chapter's questions, section by section, from its speaker notes (for the guide)."""
    lines = []
    for name in [*CHAPTERS, EXPLORER]:
        nb = _notebook(name)
        lines += [f"**{_heading(name)}**", ""]
        lines += [f"- {part['title']}: {ask}" for part in chapter_parts(nb) for ask in _asks(nb, part["cells"])] + [""]
    return "\n".join(lines).rstrip()


def _cell_name(nb: nbformat.NotebookNode, index: int) -> str:
    """How an instructor finds a cell: the set-up cell, or its section and first line."""
    if "setup" in nb.cells[index].metadata.get("tags", []):
        return "the set-up cell"
    title = next(part["title"] for part in chapter_parts(nb) if index in part["cells"])
    line = nb.cells[index].source.strip().splitlines()[0]
    return f"{title.split(' ')[0] if title[0].isdigit() else title}: `{line[:60]}{'...' if len(line) > 60 else ''}`"


def _run_first_text(segment: Segment) -> str:
    """'before 3. ...: the set-up cell; 1.: `words = ...`', grouped by the shown section each must precede."""
    nb, shown = _notebook(segment.notebook), shown_cells(segment)
    groups: dict[str, list[str]] = {}
    for index in run_first(segment):
        following = next((i for i in shown if i > index), None)
        title = next(p["title"] for p in chapter_parts(nb) if following in p["cells"]) if following else "the end"
        groups.setdefault(title, []).append(_cell_name(nb, index))
    return "; ".join(f"before {title}: {', '.join(names)}" for title, names in groups.items()) or "nothing"


def _render_segment(segment: Segment, measured: Mapping) -> list[str]:
    parts = measured["notebooks"][segment.notebook]["sections"]
    shown = [_section(parts, start, segment.notebook)["title"] for start in segment.show]
    asks, minutes = questions(segment), segment_minutes(segment, measured)
    return [f"**{_heading(segment.notebook)}: about {minutes} min.** Show: {'; '.join(shown)}.",
            f"- Run first, without showing (the shown cells use them): {_run_first_text(segment)}.",
            f"- What to show: {segment.what}",
            "- Ask:" + "".join(f"\n  - {ask}" for ask in asks) if asks else "- Ask: (no question in the notes)",
            f"- Skip: {segment.skip}",
            f"- Live demo: {segment.demo}",
            f"- Exercise: {segment.exercise}",
            ""]


def lessons_block(measured: Mapping | None) -> str:
    """Every lesson plan, with each segment's estimated minutes and the lesson's total against its slot."""
    if not measured or not any("sections" in row for row in measured.get("notebooks", {}).values()):
        return "Not measured yet: run `python -m benchmarks.notebook_memory`."
    lines = []
    for lesson in LESSONS:
        total = lesson_minutes(lesson, measured)
        verdict = "fits" if total <= lesson.slot else "does NOT fit"
        lines += [f"#### {lesson.title}", "", f"Planned: about {total} of {lesson.slot} minutes ({verdict}).", ""]
        for segment in lesson.segments:
            lines += _render_segment(segment, measured)
    lines.append(f"The minutes are estimates. Per segment: {PLAN_FACTOR:g} x the reading time of the sections "
                 "shown, plus the time their cells took to run, rounded up, plus "
                 f"{EXERCISE_MINUTES} for each exercise done in class; each lesson adds {SWITCH_MINUTES} for each "
                 "change of notebook. Reading and run times are measured, by `python -m "
                 f"benchmarks.notebook_memory` on {measured['cpus']} CPU cores (load average "
                 f"{measured['load_average_1min']} at the end of the run: a busy machine makes run times longer); "
                 f"the factor {PLAN_FACTOR:g}, the {EXERCISE_MINUTES} minutes per exercise and the "
                 f"{SWITCH_MINUTES} per switch are assumptions about teaching: change them in docs/lessons.toml "
                 "to fit your class. The cells to run first and the questions come from the chapters (their "
                 "code and their speaker notes).")
    return "\n".join(lines)
