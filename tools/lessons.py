"""Lesson plans that fit a class slot: which sections to show, what to skip, the live demo and the exercise.

The choices are written here, in words; nothing else is typed. From the chapter itself come the cells to run
first without showing them (what the shown cells use from the sections skipped: tools/dependencies.py) and the
questions to ask (the "*Ask:*" lines of the speaker notes of the sections shown). The minutes are estimates: a
segment's are PLAN_FACTOR times the reading minutes of the sections it shows, plus the seconds those sections'
cells ran (both measured by benchmarks/notebook_memory.py into assets/notebooks.json), plus EXERCISE_MINUTES for
each exercise done in class; a lesson adds SWITCH_MINUTES for each change of notebook. The three constants are
assumptions about teaching, and the guide says so. `lessons_block` renders the plans for the instructor guide
(benchmarks/report.py); tests/test_lessons.py checks that every plan fits its slot, and
tests/system/test_lesson_segments.py runs each segment's cells as the guide says, in a fresh kernel.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import nbformat

from tools.chapters import NOTEBOOKS
from tools.dependencies import needed

PLAN_FACTOR = 1.5
"""Assumed: presenting a section takes half again its reading time, for questions and the live demo."""
EXERCISE_MINUTES = 5
"""Assumed: one exercise done in class (in pairs, run against its check) takes five minutes."""
SWITCH_MINUTES = 1
"""Assumed: moving to the next notebook (open it, run its first cells) takes a minute."""
EXPLORER_TITLE = "The attention explorer"


@dataclass(frozen=True)
class Segment:
    """One notebook's part of a lesson."""

    notebook: str
    show: tuple[str, ...]
    """The sections to present, each named by the start of its title as assets/notebooks.json lists it."""
    what: str
    skip: str
    demo: str
    exercise: str
    in_class: int = 0
    """How many exercises the class does during the lesson (the rest are homework)."""


@dataclass(frozen=True)
class Lesson:
    title: str
    slot: int
    """Minutes the class has."""
    segments: tuple[Segment, ...]


CH1_WEIGHTS = Segment(
    "01_one_spotlight.ipynb", ("3.", "4.", "5.", "7."),
    what="Attention for one word is a weighted average of the earlier words, and softmax turns match scores "
         "into weights that add up to 100%. Open with 'the animal that crossed the wet street was tired': which "
         "earlier words should 'tired' take from? Then every word's spotlight at once, as a heatmap.",
    skip="Sections 1 and 2 (the toy vectors and the plain running average: one sentence, 'a plain average "
         "counts every word the same') and 6 (sharper and softer: the playground shows it).",
    demo="The spotlight playground in section 7: press *three clues* and drag the temperature down until the "
         "three bars stop at a third each; then press *one clue*.",
    exercise="Exercise 1, `weighted_average`, in pairs; the check names the usual slips. Exercise 2 "
             "(`softmax`) is homework.",
    in_class=1)

CH2_ONE_HEAD = Segment(
    "02_queries_keys_values.ipynb", ("1.", "2.", "3.", "4."),
    what="A head learns three projections of each word: what it looks for (query), what it offers (key) and "
         "what it hands over (value). Scores are divided by the square root of the head width, and the "
         "causal mask hides every later word before the softmax.",
    skip="Section 5 (the same head in helpers and in PyTorch: say that all three agree up to rounding) and "
         "the takeaways.",
    demo="The step-through after exercise 3: pick *the* and press Next up to the mask (it sees only itself); "
         "then pick *tired*, stop at the softmax and untick the sqrt(D) switch.",
    exercise="Exercise 2, `masked_weights`: its check explains a mask used the wrong way round. Exercises 1 "
             "and 3 are homework.",
    in_class=1)

CH3_MEASURED = Segment(
    "03_one_spotlight_is_not_enough.ipynb", ("1.", "4."),
    what="A word often needs several clues at once ('bank' needs the mood, the person and the action). Then "
         "the measurement from the shipped checkpoints: one head against four, in clue accuracy and "
         "perplexity.",
    skip="Sections 2 and 3 (cameras and a director; the story world: one sentence each), 5 (where one "
         "spotlight compromises: the explorer shows it) and 6 (the live training run).",
    demo="None beyond the measured table: ask which clue they would give up with a single spotlight.",
    exercise="None in class; exercise 1 (find the clues of 'smiles') is homework.")

CH4_SPLIT = Segment(
    "04_multi_head_attention.ipynb", ("1.", "2.", "4."),
    what="Heads split the width instead of adding to it: project, split, let each head match on its slice, "
         "put the slices side by side, mix. Read the shape printed at every step. The parameter count then "
         "answers the question chapter 0 left open.",
    skip="Section 3 (the layer against two independent implementations: say that it matches), 5 (bigger "
         "models) and 6 (pictures of the heads: the explorer comes next).",
    demo="Split the width in section 4: click 1, 2, 4, 8 and 16 heads; the bar is cut finer while the "
         "parameter count stays put.",
    exercise="Exercise 1, `split_heads`; `merge_heads` and the parameter count are homework.",
    in_class=1)

EXPLORER = Segment(
    "explorer.ipynb", ("The explorer",),
    what="Pick the four-head model and one of the course's sentences, then each head in turn: where every "
         "word looks.",
    skip="Setting up, reading it from code and the static copy.",
    demo="The explorer itself: switch heads on the same sentence and let the room say what each head follows.",
    exercise="None.")

LESSONS = (
    Lesson("One 90-minute lesson: chapters 1 to 4 and the explorer", 90,
           (CH1_WEIGHTS, CH2_ONE_HEAD, CH3_MEASURED, CH4_SPLIT, EXPLORER)),
    Lesson("Three 50-minute lessons, 1 of 3: the course model, one spotlight, one head (chapters 0 to 2)", 50, (
        Segment("00_start_here.ipynb", ("The course model",),
                what="The course model and its parameter count, one head against four. Ask why three more "
                     "heads add so few parameters, and leave the question open until chapter 4.",
                skip="The set-up check (learners run it before class), the list of chapters and the untrained "
                     "model's attention.",
                demo="Count both models' parameters live.",
                exercise="None."),
        CH1_WEIGHTS,
        Segment("02_queries_keys_values.ipynb", ("1.", "2.", "3.", "4."),
                what=CH2_ONE_HEAD.what, skip=CH2_ONE_HEAD.skip, demo=CH2_ONE_HEAD.demo,
                exercise="None in class (the time goes to the step-through); exercises 1 to 3 are homework."),
    )),
    Lesson("Three 50-minute lessons, 2 of 3: several spotlights (chapters 3 and 4)", 50, (
        Segment("03_one_spotlight_is_not_enough.ipynb", ("1.", "4.", "6."),
                what=CH3_MEASURED.what + " End with a short race trained live.",
                skip="Sections 2 and 3 (one sentence each) and 5 (where one spotlight compromises: homework "
                     "with its exercise).",
                demo="The live training run in section 6: read its verdict out before anyone calls a winner.",
                exercise="None in class; exercises 1 and 2 are homework."),
        Segment("04_multi_head_attention.ipynb", ("1.", "2.", "4."),
                what=CH4_SPLIT.what, skip=CH4_SPLIT.skip, demo=CH4_SPLIT.demo, exercise=CH4_SPLIT.exercise,
                in_class=CH4_SPLIT.in_class),
    )),
    Lesson("Three 50-minute lessons, 3 of 3: measured, explained, in a block (chapters 5 to 7)", 50, (
        Segment("05_train_and_compare.ipynb", ("2.", "3."),
                what="Train both models live, then read the series' table beside the course's: perplexity "
                     "(how torn the model still is; lower is better) with its range over seeds, and clue "
                     "accuracy.",
                skip="Section 1 (perplexity by hand: one sentence and homework), 4 (three novels) and 5 "
                     "(your own text).",
                demo="The two live training runs side by side: read how the gap compares with the noise "
                     "before calling a winner.",
                exercise="None in class; exercises 1 and 2 (a winner, or just noise?) are homework."),
        Segment("06_meet_the_detectives.ipynb", ("2.",),
                what="The detective scoreboard: the share of each head's attention that lands on each kind of "
                     "clue, against chance.",
                skip="Section 1 (the explorer: shown last lesson), 3 (switching heads off) and 4 (real text).",
                demo="Ask the room to name each head from the scoreboard before you show the answer.",
                exercise="Exercise 1, `name_the_detectives`, is the demo's question in code: homework."),
        Segment("07_the_transformer_block.ipynb", ("1.", "4."),
                what="Attention moves information between words; the feed-forward part works on each word on "
                     "its own. One block adds both back onto its input, each after a layer norm.",
                skip="Sections 2 and 3 (adding back, layer norm: one sentence each), 5 (the block's size), 6 "
                     "(the measured experiment) and 7 (where this leads).",
                demo="Change one word in section 1: change the first word, then the last; attention's row moves "
                     "at that word and every later one, the feed-forward row only at the word itself.",
                exercise="Exercise 2, `block_step`, if time allows (not counted in the minutes); otherwise "
                         "homework with exercises 1 and 3."),
    )),
)


def _section(parts: list[dict], start: str, notebook: str) -> dict:
    """The one section of `notebook` whose title starts with `start`."""
    found = [part for part in parts if part["title"].startswith(start)]
    if len(found) != 1:
        titles = "; ".join(part["title"] for part in parts)
        raise ValueError(f"{notebook}: {len(found)} sections start with {start!r} (sections: {titles}); "
                         "update the lesson plan in tools/lessons.py")
    return found[0]


def segment_minutes(segment: Segment, measured: Mapping) -> int:
    """Minutes the segment takes: PLAN_FACTOR x reading time plus run time of the sections shown, rounded up,
    plus EXERCISE_MINUTES for each exercise done in class."""
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


def chapter_parts(nb: nbformat.NotebookNode) -> list[tuple[str, list[int]]]:
    """(title, cell indices) of each part of a notebook, split as tools.chapters.sections splits it."""
    parts: list[tuple[str, list[int]]] = [("Introduction", [])]
    for index, cell in enumerate(nb.cells):
        heading = next((line[3:].strip() for line in cell.source.splitlines() if line.startswith("## ")), None)
        if cell.cell_type == "markdown" and heading is not None:
            if (parts[-1][1] and any(nb.cells[i].source.split() for i in parts[-1][1])) or len(parts) > 1:
                parts.append((heading, []))
            parts[-1] = (heading, parts[-1][1])
        parts[-1][1].append(index)
    return parts


@cache
def _notebook(name: str) -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOKS / name, as_version=4)


def shown_cells(segment: Segment) -> list[int]:
    """Every cell of the sections the segment shows, in notebook order."""
    parts = chapter_parts(_notebook(segment.notebook))
    return sorted(i for start in segment.show for i in _section(
        [{"title": title, "cells": cells} for title, cells in parts], start, segment.notebook)["cells"])


def lesson_cells(segment: Segment) -> list[int]:
    """The code cells to run for the segment, in notebook order: the shown ones and what they need."""
    nb = _notebook(segment.notebook)
    sources = [cell.source if cell.cell_type == "code" else "" for cell in nb.cells]
    return needed(sources, [i for i in shown_cells(segment) if sources[i].strip()])


def run_first(segment: Segment) -> list[int]:
    """The cells of skipped sections that the shown cells need: run, not shown."""
    shown = set(shown_cells(segment))
    return [i for i in lesson_cells(segment) if i not in shown]


def questions(segment: Segment) -> list[str]:
    """The questions to ask: the '*Ask:*' lines of the speaker notes in the sections shown."""
    nb = _notebook(segment.notebook)
    notes = "\n".join(nb.cells[i].metadata.get("instructor_notes", "") for i in shown_cells(segment))
    return [" ".join(m.group(1).split()) for m in re.finditer(r"\*Ask:\*\s*(.+(?:\n(?!\s*[-*] |\s*$).+)*)", notes)]


def _cell_name(nb: nbformat.NotebookNode, index: int) -> str:
    """How an instructor finds a cell: the set-up cell, or its section and first line."""
    if "setup" in nb.cells[index].metadata.get("tags", []):
        return "the set-up cell"
    title = next(title for title, cells in chapter_parts(nb) if index in cells)
    line = nb.cells[index].source.strip().splitlines()[0]
    return f"{title.split(' ')[0] if title[0].isdigit() else title}: `{line[:60]}{'...' if len(line) > 60 else ''}`"


def _run_first_text(segment: Segment) -> str:
    """'before 3. ...: the set-up cell; 1.: `words = ...`', grouped by the shown section each must precede."""
    nb, shown = _notebook(segment.notebook), shown_cells(segment)
    groups: dict[str, list[str]] = {}
    for index in run_first(segment):
        following = next((i for i in shown if i > index), None)
        title = next(title for title, cells in chapter_parts(nb) if following in cells) if following else "the end"
        groups.setdefault(title, []).append(_cell_name(nb, index))
    return "; ".join(f"before {title}: {', '.join(names)}" for title, names in groups.items()) or "nothing"


def _render_segment(segment: Segment, measured: Mapping, titles: Mapping[str, str]) -> list[str]:
    parts = measured["notebooks"][segment.notebook]["sections"]
    shown = [_section(parts, start, segment.notebook)["title"] for start in segment.show]
    number = f"{int(segment.notebook[:2])}. " if segment.notebook[:2].isdigit() else ""
    title = titles.get(segment.notebook, EXPLORER_TITLE)
    asks = questions(segment)
    return [f"**{number}{title}: about {segment_minutes(segment, measured)} min.** Show: {'; '.join(shown)}.",
            f"- Run first, without showing (the shown cells use them): {_run_first_text(segment)}.",
            f"- What to show: {segment.what}",
            "- Ask:" + "".join(f"\n  - {ask}" for ask in asks) if asks else "- Ask: (no question in the notes)",
            f"- Skip: {segment.skip}",
            f"- Live demo: {segment.demo}",
            f"- Exercise: {segment.exercise}",
            ""]


def lessons_block(measured: Mapping | None, titles: Mapping[str, str]) -> str:
    """Every lesson plan, with each segment's estimated minutes and the lesson's total against its slot."""
    if not measured or not any("sections" in row for row in measured.get("notebooks", {}).values()):
        return "Not measured yet: run `python -m benchmarks.notebook_memory`."
    lines = []
    for lesson in LESSONS:
        total = lesson_minutes(lesson, measured)
        verdict = "fits" if total <= lesson.slot else "does NOT fit"
        lines += [f"#### {lesson.title}", "", f"Planned: about {total} of {lesson.slot} minutes ({verdict}).", ""]
        for segment in lesson.segments:
            lines += _render_segment(segment, measured, titles)
    lines.append(f"The minutes are estimates. Per segment: {PLAN_FACTOR:g} x the reading time of the sections "
                 "shown, plus the time their cells took to run, rounded up, plus "
                 f"{EXERCISE_MINUTES} for each exercise done in class; each lesson adds {SWITCH_MINUTES} for each "
                 "change of notebook. Reading and run times are measured, by `python -m "
                 f"benchmarks.notebook_memory` on {measured['cpus']} CPU cores (load average "
                 f"{measured['load_average_1min']} at the end of the run: a busy machine makes run times longer); "
                 f"the factor {PLAN_FACTOR:g}, the {EXERCISE_MINUTES} minutes per exercise and the "
                 f"{SWITCH_MINUTES} per switch are assumptions about teaching: change them in tools/lessons.py "
                 "to fit your class. The cells to run first and the questions come from the chapters (their "
                 "code and their speaker notes).")
    return "\n".join(lines)
