"""Grade a class's chapter notebooks with the course's own checks, in a fresh process for each submission.

    python -m classroom.grade submissions/ --out grades                 # nested folders: submissions/<student>/*.ipynb
    python -m classroom.grade submissions/ --chapter 02 --roster roster.csv --points points.toml --workers 4
    python -m classroom.grade /autograder/submission --chapter 01 --gradescope /autograder/results/results.json

Each submission's exercise code (classroom/submission.py) runs with the course's cells its checks need
(classroom/dependencies.py) in a fresh process (classroom/grade_run.py), beside the checks. What it runs, what it
flags, the threat model and the statuses: docs/instructor.md, "Grading a class".
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import difflib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Collection, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from classroom import submission
from classroom.dependencies import needed
from classroom.grade_run import MEMORY, TIMED_OUT, TOO_LONG, TYPING
from classroom.submission import UnreadableError, chapter_in_code, chapter_in_name, course, flags, learner_code, read
from helpers.checks import BELOW_TODO, import_hint
from helpers.needs import names
from tools.chapters import CHAPTERS, EXPLORER, ROOT, read_toml
from tools.editions import SOLUTION, checked_exercise, is_notes, tags

TIMEOUT = 60  # seconds one exercise (its code, then its check) may take
SETUP_S = 300  # seconds the chapter's own cells may take in all, on a busy machine
MEMORY_MB = 4000  # the memory (address space) a grading process may have: several times what a chapter takes
QUIET_S = 30  # seconds without a notebook done before the grader says it is still at work
FEEDBACK = 2000  # characters of feedback kept: a spreadsheet's cell holds at most 32,767
MAY_CHANGE = "by hand|time limit"  # a note's parts a right answer may sit behind: its points read "so far"
LOOK = f"{MAY_CHANGE}|check cell|submissions from|not on the roster"  # the note's parts that Graded.look names
SAID = {"time limit": "ran over the time limit", "error": "not graded"}  # a status, in the summary's words
RESULT = {"exercise": str, "passed": bool, "feedback": str, "flags": list}  # the keys of a result line, and types


@dataclass
class Score:
    exercise: str
    points: float
    max_points: float
    status: str  # passed, failed, not attempted, stopped (to be read by hand), flagged, time limit, error
    feedback: str

    def __post_init__(self) -> None:
        if len(self.feedback) > FEEDBACK:
            self.feedback = f"{self.feedback[:FEEDBACK]}... (cut here: {len(self.feedback):,} characters in all)"


@dataclass
class Graded:
    """One submission: who, which chapter, its status and why, and a score per exercise."""

    submission: str  # as the instructor named it: relative to the folder given, or the path given
    student: str
    chapter: str | None
    status: str
    note: str = ""
    scores: list[Score] = field(default_factory=list)
    seconds: float = 0.0
    told: str | None = None  # what the student reads of the note (None: all of it), the rest is the instructor's
    flagged_for: str = ""  # what was found, where: what the instructor is to decide

    @property
    def points(self) -> float:
        return sum(score.points for score in self.scores)

    @property
    def look(self) -> str:
        """Why the instructor is to read this notebook ('' for no reason): its status, unless simply graded, and the
        note's reasons a right answer may sit behind (read by hand, a time limit) or a grade may not count. Not
        graded (corrupt, wrong chapter, ...) or flagged: the status with its reason, as a missing notebook's."""
        if self.status not in ("graded", "flagged", "error"):  # not graded at all: the note is the reason
            return f"{self.status}: {self.note}"
        reasons = [part for part in re.split(r"; |, (?=\d+ )", self.note) if re.search(LOOK, part)]  # the tally's too
        said = [f"flagged: {self.flagged_for}"] if self.flagged_for else [self.status] * (self.status != "graded")
        return "; ".join(said + reasons)

    @property
    def max_points(self) -> float:
        return sum(score.max_points for score in self.scores)


def _status(result: dict) -> str:
    if result["flags"]:
        return "flagged"
    if result["passed"]:
        return "passed"
    if "not attempted" in result["feedback"]:
        return "not attempted"
    return "time limit" if "the time limit" in result["feedback"] else "failed"


def _cell(nb, index: int) -> str:
    """A submission's cell as a person finds it: counted from 1 (text cells too), and its first line."""
    first = next((line.strip() for line in nb.cells[index].source.splitlines() if line.strip()), "")
    return f"cell {index + 1} ('{first[:40]}{'...' if len(first) > 40 else ''}')"


def _by_cell(found: list[str]) -> list[str]:
    """Flags with each cell they were found in named once: "cell 3 ('import ...'): this; that"."""
    cells: dict[str, list[str]] = {}
    for flag in found:
        where, said, why = flag.partition("'): ")
        where, why = (where + said, why) if said and flag.startswith("cell ") else ("", flag)
        cells.setdefault(where, []).append(why)
    return [where + "; ".join(whys) for where, whys in cells.items()]


def plan(nb, chapter: str, timeout: float,
         memory_mb: int = MEMORY_MB) -> tuple[dict, dict[str, list[str]], list[str], dict[str, list[str]]]:
    """The steps the grading process runs; the static flags of each exercise's code, and those of the cells that
    are not the course's own and hold no exercise's code (a learner's extra cells); for each exercise, the learner's
    own versions of names the chapter provides that it runs with (their causal_mask), and where they are."""
    own, exercises = course(chapter)
    sources = [cell.source if cell.cell_type == "code" else "" for cell in own.cells]
    known = {cell.source.strip() for cell in own.cells}
    runs, flagged, holders, shadows = {}, {}, set(), {}
    for exercise in exercises:
        found = learner_code(nb, exercise.name)
        code = found.source if found else sources[exercise.stub]
        flagged[exercise.name] = [f"{_cell(nb, found.cell)}: {why}" for why in flags(found.whole, True)
                                  ] if found else []
        holders |= {found.cell} if found else set()
        with contextlib.suppress(SyntaxError):  # what it needs cannot be read; it runs anyway: the learner sees why
            given = set().union(*(names(source).bound for source in sources[:exercise.stub]))
            # every name it uses but the exercises (their check cells rebind them): the learner's own cells above may
            # also redefine one the course gives (their own causal_mask), and their kernel ran the exercise with it
            wanted = set(names(code).used) - (given & {other.name for other in exercises})
            extra = submission.brought_in(nb, found.cell, wanted, given, known) if found else []
            flagged[exercise.name] += [f"{_cell(nb, i)}: {why}" for i, part in extra for why in flags(part, True)]
            shadows[exercise.name] = [f"{name}, in {_cell(nb, i)}" for i, part in extra
                                      for name in sorted(names(part).bound & given)]
            code = "\n".join([part for _, part in extra] + [code])
            sources[exercise.stub] = code
        runs[exercise.stub] = ("exercise", exercise.name, code)
        runs[exercise.check] = ("check", exercise.name, sources[exercise.check])
    steps = [dict(zip(("kind", "name", "source"), runs.get(i, ("course", None, sources[i])), strict=True),
                  label=f"cell {i}") for i in needed(sources, [e.check for e in exercises])]
    elsewhere = [f"{_cell(nb, i)}: {why}" for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
                 and i not in holders and cell.source.strip() not in known for why in flags(cell.source, False)]
    return {"steps": steps, "timeout": timeout, "memory_mb": memory_mb}, flagged, elsewhere, shadows


def run_plan(planned: dict) -> tuple[list | None, int | None, str]:
    """Run a plan in a fresh process in an empty temporary folder: the lines it wrote to its results (None if one
    is not JSON), its exit code (None: stopped at the plan's time limit) and the last line of its error output."""
    with tempfile.TemporaryDirectory(prefix="spotlights-grade-") as folder:
        plan_file, out, err, work = (Path(folder, name) for name in ("plan.json", "results.jsonl", "stderr", "work"))
        work.mkdir()
        plan_file.write_text(json.dumps({**planned, "folder": str(work)}))
        limit = planned["timeout"] * 2 * len(planned["steps"]) + SETUP_S
        env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
        with err.open("w") as stderr, out.open("w") as results:  # its stdout: the learner's code is told no path
            child = subprocess.Popen([sys.executable, "-m", "classroom.grade_run", str(plan_file)], cwd=ROOT, env=env,
                                     stdin=subprocess.DEVNULL, stdout=results, stderr=stderr, start_new_session=True)
            try:
                code = child.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, 9)
                child.wait()
                code = None
        try:
            lines = [json.loads(line) for line in out.read_text(errors="replace").splitlines()]
        except ValueError:
            lines = None
        tail = (err.read_text(errors="replace").strip().splitlines() or [""])[-1][:200]
    return lines, code, tail


def _token(line: object, exercises: Sequence[str]) -> str | None:
    """What a result line is: its exercise's name, "!" (a course cell's error), "." (the last line), or None."""
    kinds = {k: type(v) for k, v in line.items()} if isinstance(line, dict) else {}
    if kinds == RESULT and line["exercise"] in exercises and all(isinstance(flag, str) for flag in line["flags"]):
        return line["exercise"]
    return "." if line == {"done": True} else "!" if kinds == {"error": str} else None


def outcomes(planned: dict, exercises: Sequence[str]) -> tuple[dict[str, dict], list[str]]:
    """Each exercise's result line, and notes on what went wrong. The grading process writes one line per exercise,
    in order, then a last line. One that stops during an exercise (an exit, a time limit its code caught) scores
    that exercise 0 saying so, and the exercises after it are graded in a fresh process without its code; lines
    that are not the plan's (forged, repeated) are an error for every exercise."""
    results: dict[str, dict] = {}
    notes: list[str] = []
    blanked: set[str] = set()  # exercises whose code a fresh process ran without, after they changed the checks
    while len(results) < len(exercises):
        lines, code, tail = run_plan(planned)
        tokens = [_token(line, exercises) for line in lines] if lines is not None else [None]
        k = sum(token in exercises for token in tokens)
        end = tokens[k:]
        if tokens[:k] != list(exercises[:k]) or end not in ([], ["."], ["!", "."]) or (k == len(exercises) and not end):
            why = "the grading process wrote results that are not the grader's (forged, repeated or out of order)"
            return {name: _error(name, why) for name in exercises}, [why]
        results = {line["exercise"]: line for line in lines[:k]} | results  # a result from an earlier run stands
        left = [name for name in exercises if name not in results]
        if end == ["."] and left and k and exercises[k - 1] not in blanked:  # k - 1 changed the checks: it stopped
            blanked.add(exercises[k - 1])
            if MEMORY not in results[exercises[k - 1]]["feedback"]:  # memory that ran out: noted with the scores
                notes.append(f"{exercises[k - 1]} changed helpers or torch; the exercises after it were graded in a "
                             "fresh process")
            planned = _without(planned, exercises[k - 1])
            continue
        if end or exercises[k] in results:  # it finished, or stopped again where it stopped before
            why = (lines[k]["error"] if end[0] == "!" else "the grading process stopped before it") if end else (
                f"the grading process stopped again during {exercises[k]}")
            return results | {name: _error(name, why) for name in left}, notes + [why] * bool(left)
        timed = code in (TIMED_OUT, None)
        killed = code == -signal.SIGKILL  # by its own code, or by the system when memory ran out: not a code to read
        why = TOO_LONG.format(planned["timeout"]) if timed else (
            f"the grading process was killed during {exercises[k]} (by its own code, or by the system when memory "
            "ran out)" if killed else
            f"the grading process exited during {exercises[k]} (exit code {code}{': ' + tail if tail else ''})")
        results[exercises[k]] = {**_error(exercises[k], why), "status": "time limit" if timed else "error"} | (
            {"feedback": f"{exercises[k]}: {why}"} if timed else {})  # graded: 0, for running over
        notes.append(f"{exercises[k]}: {why}" + "; the exercises after it were graded in a fresh process" * (
            k + 1 < len(exercises)))
        planned = _without(planned, exercises[k])
    return results, notes


def _without(planned: dict, exercise: str) -> dict:
    """The plan with `exercise`'s code left out (its check then hands on the reference, as in the chapter)."""
    return {**planned, "steps": [{**step, "source": ""} if step.get("name") == exercise and step["kind"] == "exercise"
                                 else step for step in planned["steps"]]}


def _error(name: str, why: str) -> dict:
    return {"passed": False, "flags": [], "status": "error", "feedback": f"{name}: not graded: {why}"}


def grade(path: Path, student: str, chapter: str | None = None, points: dict[str, float] | None = None,
          timeout: float = TIMEOUT, shown: str | None = None, memory_mb: int = MEMORY_MB) -> Graded:
    """Grade one submission against `chapter` (default: the chapter its file name says, else its code's), each
    grading process held to `memory_mb`."""
    points, shown = points or {}, shown or str(path)
    began = time.perf_counter()
    named = chapter_in_name(path)
    wanted = chapter or named

    def refused(status: str, why: str, which: str | None = wanted) -> Graded:
        """Not graded: every exercise of `which` scores zero, saying why."""
        exercises = course(which)[1] if which else ()
        zeros = [Score(e.name, 0, points.get(e.name, 1), status, f"{e.name}: {why}") for e in exercises]
        return Graded(shown, student, which, status, why, zeros)

    try:
        nb = read(path)
    except UnreadableError as problem:
        return refused(problem.status, str(problem))
    coded = chapter_in_code(nb)
    if wanted and coded and wanted != coded:
        said = f"the assignment is chapter {chapter}" if chapter else f"its file name says chapter {named}"
        return refused("wrong chapter", f"{said}, but its code is chapter {coded}'s: hand in chapter {wanted}'s "
                       "notebook")
    chapter = wanted or coded
    if chapter is None and path.stem.lower().startswith("explorer"):
        return refused("no exercises", "the explorer has no exercises to grade")
    if chapter is None:
        return refused("unknown chapter", "cannot tell its chapter from its name or its code: name the file after "
                       "its chapter (01_one_spotlight.ipynb) or give --chapter")
    if not course(chapter)[1]:
        return refused("no exercises", f"chapter {chapter} has no exercises to grade", chapter)
    planned, flagged, elsewhere, shadows = plan(nb, chapter, timeout, memory_mb)  # a flag elsewhere: all exercises
    results, notes = outcomes(planned, [e.name for e in course(chapter)[1]])
    if any(SOLUTION in tags(cell) or is_notes(cell) for cell in nb.cells):  # the teacher's copy, or a leak
        elsewhere = [*elsewhere, "it is the instructor edition (it holds the solution cells or notes)"]
    scores, unflagged, why_flagged = [], 0.0, {}
    for exercise in course(chapter)[1]:
        name, most = exercise.name, points.get(exercise.name, 1)
        result, defined = results[name], learner_code(nb, name)
        seen = [f"{_cell(nb, defined.cell)}: {why}" if defined else why for why in result["flags"]]  # where, as above
        result["flags"] = _by_cell(list(dict.fromkeys(elsewhere + flagged[name] + seen)))
        status = result.get("status") or _status(result)
        if "not attempted" in result["feedback"]:  # in the words of a feedback file, not of a check cell
            result["feedback"] = f"{name}: not attempted: " + (
                f"no cell of this notebook defines {name} (its exercise cell deleted, or its def taken out?)"
                if defined is None else "its cell was handed in as the stub, which stops at todo() (if you did write "
                "it, it was not saved in the notebook handed in)")
        if status == "flagged":
            why_flagged[name] = "; ".join(result["flags"])
        feedback = result["feedback"] if status != "flagged" else (
            f"{name}: not scored, flagged for review: {why_flagged[name]}. Its check alone said: "
            + result["feedback"].removeprefix(f"{name}: "))
        missing = re.search(r"NameError: name '(\w+)'", feedback) if status == "failed" else None
        if missing and learner_code(nb, missing[1]):  # a cell below makes it: the learner's kernel ran it, not yet ours
            feedback += (" (The grader reads your cells from the top: define what your function uses in a cell "
                         "above it.)")
        elif missing and not import_hint(NameError(name=missing[1])):  # nowhere, and no hint of the check explains it
            feedback += (f" (No cell of the notebook handed in defines {missing[1]}: was the cell that defined it "
                         "deleted, or not saved?)")
        if status == "failed" and shadows.get(name):  # the check knows the course's version, not theirs
            feedback = f"{feedback.rstrip('.')}. It ran with your own {'; '.join(shadows[name])}: check that too."
        scores.append(Score(name, most if status == "passed" else 0, most, status, feedback))
        unflagged += most if result["passed"] else 0
    by_hand: set[str] = set()  # stopped before their check could judge them: not simply failed
    for said, what in ((TYPING, "input()"), (MEMORY, "running out of memory"),  # a right answer may sit behind it
                       (BELOW_TODO, "a todo() line above the code")):
        if stopped := [s.exercise for s in scores if said in s.feedback and s.status != "passed"]:
            notes.insert(0, f"{what} stopped {', '.join(stopped)}: to be read by hand")
            by_hand.update(stopped)
        for s in (s for s in scores if s.exercise in stopped and "will read it" not in s.feedback):  # safe to send
            s.feedback = s.feedback.replace(", then run the cell again", "").rstrip(".")  # the notebook's advice
            s.feedback += "; your instructor will read it."
    lacking = {s.exercise: found[1] for s in scores if s.status != "passed"  # not a typo in a module we have
               and (found := re.search(r"No module named '([\w.]+)'", s.feedback))
               and importlib.util.find_spec(found[1].split(".")[0]) is None}
    if lacking:  # the learner's own kernel (Colab, say) may have had it
        notes.insert(0, f"{', '.join(sorted(set(lacking.values())))}, not installed where this grades, stopped "
                        f"{', '.join(lacking)}: to be read by hand")
    for s in (s for s in scores if s.exercise in lacking):  # the student's reading of it: not their slip
        s.feedback += f" ({lacking[s.exercise]} is not installed where this is graded: your instructor will read it.)"
    for s in (s for s in scores if s.exercise in by_hand | lacking.keys() and s.status == "failed"):
        s.status = "stopped"  # not judged yet: not simply failed
    tally: dict[str, list[str]] = {}  # status -> the exercises in it, named: which one failed, without grades.csv
    for s in (s for s in scores if s.status not in ("passed", "flagged")):
        tally.setdefault(s.status, []).append(s.exercise)
    told = ", ".join(f"{len(them)} {SAID.get(status, status)} ({', '.join(them)})" for status, them in tally.items())
    if tally:  # the summary row tells a notebook nobody tried from one tried and wrong
        notes.insert(0, told)
    checked = {checked_exercise(cell) for cell in nb.cells}
    if changed := [s.exercise for s in scores if s.exercise not in checked]:  # a print("passed") in its place
        notes.append(f"the check cell of {', '.join(changed)} was changed or deleted; the grade comes from the "
                     "course's own check")
    flagged_for = "; ".join(elsewhere) or "; ".join(f"{name} ({why})" for name, why in why_flagged.items())
    if flagged_for:
        notes.insert(0, f"flagged for review: {flagged_for} (the checks alone would give {unflagged:g} of "
                        f"{sum(s.max_points for s in scores):g})")
    status = "flagged" if flagged_for else "error" if any(s.status == "error" for s in scores) else "graded"
    return Graded(shown, student, chapter, status, "; ".join(notes), scores, time.perf_counter() - began, told,
                  flagged_for)


def _owner(notebook: Path, folder: Path) -> str:
    """Whose a notebook is when no folder below the one named holds it: its name says, unless that is a chapter's
    name (as JupyterHub and classroom.collect save it, "01_one_spotlight-Copy1" too): then the folder holding it."""
    chapter_named = notebook.stem.startswith(tuple(Path(name).stem for name in [*CHAPTERS, EXPLORER]))
    return folder.resolve().name if chapter_named else notebook.stem


def submissions(paths: Sequence[Path]) -> list[tuple[str, Path, str]]:
    """(name, notebook, how to show it) for every notebook named or found under a folder named, at any depth; a
    nested notebook's name is its first folder under the one named (submissions/<student>/...), else `_owner`'s;
    names are NFC-normalised (a Mac's zip spells "ë" as two characters) and .IPYNB in any case is a notebook; a Mac
    zip's __MACOSX folder and ._ files are not."""
    found = []
    for path in paths:
        if not path.is_dir():
            found.append((_owner(path, path.parent), path, str(path)))
            continue
        for notebook in sorted(p for p in path.rglob("*") if p.suffix.lower() == ".ipynb" and p.is_file()):
            parts = notebook.relative_to(path).parts
            if not {".ipynb_checkpoints", "__MACOSX"} & set(parts) and not notebook.name.startswith("._"):
                owner = parts[0] if len(parts) > 1 else _owner(notebook, path)
                flat_in_owner = len(parts) == 1 and owner != notebook.stem  # alice/01_one_spotlight.ipynb
                found.append((owner, notebook, f"{owner}/{notebook.name}" if flat_in_owner else "/".join(parts)))
    return [(unicodedata.normalize("NFC", name), notebook, shown) for name, notebook, shown in found]


def _another_chapter(path: Path, chapter: str) -> bool:
    """Whether a notebook is another chapter's than `chapter`: by its file name, or by its code when its name says
    no chapter (a renamed file); a notebook that cannot be read is not left out, its row says why."""
    named = chapter_in_name(path)
    if named is not None:
        return named != chapter
    try:
        return chapter_in_code(read(path)) not in (None, chapter)
    except UnreadableError:
        return False


def _csv_rows(path: Path) -> list[list[str]]:
    """A CSV file's rows, each without its empty cells; a file a spreadsheet saved in another encoding than UTF-8
    is refused, saying how to save it."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:  # -sig: Excel's "CSV UTF-8" mark
            return [[cell for cell in row if cell.strip()] for row in csv.reader(handle)]
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text: save it again as 'CSV UTF-8' (Excel) or in UTF-8") from None


def read_roster(path: Path, handed_in: Collection[str] = ()) -> dict[str, str]:
    """A CSV of file or folder name -> student id (a header row, then two columns); a first row that names one of
    the notebooks `handed_in` is a student's, not a header: refused."""
    rows = [row for row in _csv_rows(path) if row]
    bad = next((row for row in rows if len(row) != 2), None)
    named = bool(rows) and unicodedata.normalize("NFC", Path(rows[0][0].strip()).stem) in handed_in
    if bad or len(rows) < 2 or named:
        said = f"the line '{','.join(bad)}' has {len(bad)} columns" if bad else "it has no line under its header"
        if named and not bad:  # the header forgotten: its first student would be read as the header
            said = f"its first line, '{','.join(rows[0])}', names a notebook handed in: add the header line above it"
        raise ValueError(f"{path}: a roster is a CSV with a header and two columns, the file or folder name and the "
                         f"student id; {said}")
    return {unicodedata.normalize("NFC", Path(row[0].strip()).stem): row[1].strip() for row in rows[1:]}


def read_points(path: Path) -> dict[str, float]:
    """Points per exercise from a CSV (exercise,points; a first row whose points are not a number is a header) or
    a TOML file (softmax = 2), of any chapter's exercises: one file serves a course, with --chapter too."""
    if path.suffix == ".toml":
        table = read_toml(path)
        table = table.get("points", table)
    else:
        rows = [row for row in _csv_rows(path) if len(row) >= 2]
        header = bool(rows) and not rows[0][1].strip().replace(".", "", 1).isdigit()
        table = {row[0].strip(): row[1].strip() for row in rows[header:]}
    known = {e.name for n in CHAPTERS for e in course(n[:2])[1]}
    unknown = sorted(set(table) - known)
    if unknown:
        meant = [f"{name} (did you mean {close[0]}?)" if (close := difflib.get_close_matches(name, known, 1)) else name
                 for name in unknown]  # a typo: the name it was most likely meant as
        raise ValueError(f"{path}: no exercise called {', '.join(meant)}; the exercises: {', '.join(sorted(known))}")
    try:
        return {name: float(value) for name, value in table.items()}
    except (TypeError, ValueError):
        raise ValueError(f"{path}: points must be numbers") from None


def write_csvs(results: Sequence[Graded], missing: dict[str, str], out: Path, chapter: str | None = None,
               most: float | None = None) -> tuple[Path, Path]:
    """summary.csv (one row per submission, and per roster entry with none, `missing` saying why: the assignment's
    `chapter` and its `most` points, when given) and grades.csv (one per exercise)."""
    out.mkdir(parents=True, exist_ok=True)
    summary = [["student", "submission", "chapter", "points", "max_points", "status", "note", "to_look_at"]]
    summary += [[g.student, g.submission, g.chapter or "", f"{g.points:g}", f"{g.max_points:g}", g.status, g.note,
                 g.look] for g in results]
    summary += [[student, "", chapter or "", 0, "" if most is None else f"{most:g}", "missing", note,
                 f"missing: {note}"] for student, note in missing.items()]
    grades = [["student", "submission", "chapter", "exercise", "points", "max_points", "status", "feedback"]]
    grades += [[g.student, g.submission, g.chapter or "", s.exercise, f"{s.points:g}", f"{s.max_points:g}", s.status,
                s.feedback] for g in results for s in g.scores or [Score("", 0, 0, g.status, g.note)]]
    paths = out / "summary.csv", out / "grades.csv"
    for path, rows in zip(paths, (summary, grades), strict=True):
        with path.open("w", newline="", encoding="utf-8-sig") as handle:  # the mark: Excel reads "Zoë" as UTF-8
            csv.writer(handle).writerows(rows)
    return paths


def write_feedback(results: Sequence[Graded], out: Path, wrong: dict[str, str] | None = None) -> Path:
    """feedback/<student>.txt: what each student may read of their grading, to hand back. As on Gradescope, a
    flagged exercise is held for review, and what was flagged stays in grades.csv, the instructor's. `wrong`: for
    a student who handed in only another chapter's notebook, what the assignment's chapter is."""
    folder = out / "feedback"
    sent = {student: [f"Feedback for {student}", said] for student, said in (wrong or {}).items()}
    folder.mkdir(parents=True, exist_ok=True)
    counts = Counter((g.student, g.chapter) for g in results)
    for (student, chapter), n in counts.items():
        if n > 1:  # the instructor decides which counts
            sent.setdefault(student, [f"Feedback for {student}"]).append(
                f"You handed in {n} notebooks{f' for chapter {chapter}' if chapter else ''}: your instructor will "
                "tell you which one counts.")
    for g in results:
        shown = gradescope(g)
        chapter = f", chapter {g.chapter}" if g.chapter else ""
        so_far = " so far" * bool(re.search(MAY_CHANGE, g.note) or g.status == "flagged")  # held, or to be read
        parts = [f"{g.submission}{chapter}: {g.points:g} of {g.max_points:g} points{so_far}; {shown['output']}"]
        parts += [f"{test['name']}: {test['score']:g} of {test['max_score']:g} point{'s' * (test['max_score'] != 1)}: "
                  + test["output"].removeprefix(f"{test['name']}: ")  # named once ("softmax of ..." stays whole)
                  for test in shown.get("tests", []) if "visibility" not in test
                  and test["output"] != f"{test['name']}: {g.note}"]  # not graded: the reason once, above
        sent.setdefault(g.student, [f"Feedback for {g.student}"]).extend(parts)
    for student, parts in sent.items():
        name = "".join("_" if c in '\\/:*?"<>|' or not c.isprintable() else c for c in student)
        (folder / f"{name}.txt").write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    return folder


def gradescope(graded: Graded | None, why: str = "") -> dict:
    """Gradescope's results JSON: one test per exercise, its feedback as the output; the reason in `output`. What
    a flagged exercise's flags are goes in a hidden test (the instructor's); its student reads it is held."""
    if graded is None:
        return {"score": 0.0, "output": why}
    held = "held for your instructor's review"
    tests = [{"name": s.exercise, "score": float(s.points), "max_score": float(s.max_points),
              "output": f"{s.exercise}: {held}" if s.status == "flagged" else s.feedback,
              "status": "passed" if s.status == "passed" else "failed"} for s in graded.scores]
    tests += [{"name": f"{s.exercise}: why it was flagged", "score": 0.0, "max_score": 0.0, "output": s.feedback,
               "visibility": "hidden"} for s in graded.scores if s.status == "flagged"]  # for the instructor alone
    said = graded.note if graded.told is None else graded.told
    note = held if graded.status == "flagged" else f"{graded.status}: {said}" if said else graded.status
    if said != graded.note and graded.status != "flagged":  # what the student is not told: the instructor's reasons
        tests.append({"name": "for your instructor", "score": 0.0, "max_score": 0.0, "output": graded.note,
                      "visibility": "hidden"})
    return {"score": float(graded.points), "execution_time": round(graded.seconds), "output": note, "tests": tests}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="submitted notebooks, or folders of them (at any depth)")
    parser.add_argument("--chapter", help="the assignment's chapter (01 ... 07): notebooks of another are left out")
    parser.add_argument("--out", type=Path, default=Path("grades"),
                        help="folder for summary.csv, grades.csv and feedback/")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds one exercise may take")
    parser.add_argument("--memory", type=int, default=MEMORY_MB,
                        help=f"MB of memory one grading process may have (default {MEMORY_MB:,}; Linux)")
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)),
                        help="submissions graded at once (default: the CPUs this process may use)")
    parser.add_argument("--roster", type=Path, help="CSV: file or folder name, student id")
    parser.add_argument("--points", type=Path, help="CSV (exercise,points) or TOML (softmax = 2); default 1 each")
    parser.add_argument("--gradescope", type=Path, help="write Gradescope's results.json for the one upload here")
    args = parser.parse_args(argv)
    if absent := [str(path) for path in args.paths if not path.exists()]:
        parser.error(f"no such file or folder: {', '.join(absent)}")
    chapter = args.chapter.zfill(2) if args.chapter else None
    if chapter and chapter not in {n[:2] for n in CHAPTERS}:
        parser.error(f"--chapter {args.chapter}: there is no such chapter ({', '.join(n[:2] for n in CHAPTERS)})")
    found = submissions(args.paths)
    try:
        points = read_points(args.points) if args.points else {}
        roster = read_roster(args.roster, {key for key, _, _ in found}) if args.roster else {}
    except (OSError, ValueError) as problem:
        parser.error(str(problem))
    if args.gradescope:
        one = found[0] if len(found) == 1 else None
        graded = grade(one[1], one[0], chapter, points, args.timeout, memory_mb=args.memory) if one else None
        why = "no notebook was uploaded: upload your .ipynb file" if not found else (
            f"{len(found)} notebooks were uploaded ({', '.join(p.name for _, p, _ in found)}): upload exactly one")
        args.gradescope.parent.mkdir(parents=True, exist_ok=True)
        args.gradescope.write_text(json.dumps(gradescope(graded, why), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.gradescope}: "
              + (f"{graded.status}, {graded.points:g} of {graded.max_points:g} points" if graded else why))
        return 0
    others = [entry for entry in found if chapter and _another_chapter(entry[1], chapter)]
    found = [entry for entry in found if entry not in others]  # a whole course collected: this chapter's only
    if others:
        print(f"left out {len(others)} notebook{'s' * (len(others) != 1)} of other chapters than {chapter}, going by "
              f"the file name (or, where it names no chapter, the code), such as {others[0][2]}")
    if not found:
        parser.error("no notebooks found (.ipynb files, in the folders given or any folder below them)")
    results, began = [], time.perf_counter()
    worth = [f"{e.name} {points.get(e.name, 1):g}" for e in (course(chapter)[1] if chapter else ())]  # 1 by default
    print(f"grading {len(found)} notebook{'s' * (len(found) != 1)}, {max(1, min(args.workers, len(found)))} at a time "
          f"(an exercise may take {args.timeout:g} s{'; points: ' * bool(worth)}{', '.join(worth)})", flush=True)
    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        pending = {pool.submit(grade, path, roster.get(key, key), chapter, points, args.timeout, shown,
                               args.memory): shown for key, path, shown in found}
        while pending:
            done, _ = wait(pending, timeout=QUIET_S, return_when=FIRST_COMPLETED)
            if not done:
                running = [shown for future, shown in pending.items() if future.running()]
                print(f"still grading, {len(pending)} to go: none done in the last {QUIET_S:g} s (a notebook may be "
                      f"waiting on a time limit, {args.timeout:g} s an exercise); at work on {', '.join(running)}",
                      flush=True)
            for future in done:
                del pending[future]
                g = future.result()
                results.append(g)
                note = f": {g.note}" if g.note else ""
                print(f"[{len(results)}/{len(found)}] {g.student} ({g.submission}): {g.status}, {g.points:g} of "
                      f"{g.max_points:g} ({g.seconds:.0f} s)" + (note if len(note) <= 160 else f"{note[:159]}…"),
                      flush=True)
    results.sort(key=lambda g: (g.student, g.submission))
    counts = Counter((g.student, g.chapter) for g in results)  # a class's collected chapters are one each
    left_out = {roster.get(key, key): shown for key, _, shown in reversed(others)}  # a student's first left out
    wanted = next((name for name in CHAPTERS if chapter and name.startswith(chapter)), "")
    wrong = {student: f"We received {shown}, another chapter's notebook: this assignment is chapter {chapter}. "
                      f"Hand in {wanted}." for student, shown in left_out.items()
             if student in roster.values() and student not in {s for s, _ in counts}}  # the class's, by the roster
    feedback = write_feedback(results, args.out, wrong)  # before the notes below, which are the instructor's
    listed_as = {student: key for key, student in roster.items()}  # the file or folder the roster expects
    missing = {student: (f"no chapter {chapter} notebook; left out {left_out[student]}, another chapter's"
                         if student in left_out else "no notebook from this student")
               + (f" (the roster's {listed_as[student]})" if listed_as[student] != student else "")
               for student in sorted(roster.values()) if student not in {s for s, _ in counts}}
    unlisted = sorted({key for key, _, _ in found if roster and key not in roster})
    for g in results:  # an unlisted file was perhaps renamed: its student may be one of the missing
        n = counts[g.student, g.chapter]
        chapter_of = f" for chapter {g.chapter}" if g.chapter else ""
        more = [f"one of {n} submissions from {g.student}{chapter_of}"] * (n > 1)
        more += ["not on the roster (a roster line may name this file or folder)"] * (g.student in unlisted)
        g.note = "; ".join(filter(None, [g.note, *more]))
    doubled = sorted({student for (student, _), count in counts.items() if count > 1})
    most = sum(points.get(e.name, 1) for e in course(chapter)[1]) if chapter else None
    summary, grades = write_csvs(results, missing, args.out, chapter, most)
    print(f"wrote {summary}, {grades} and, to hand back, a file per student in {feedback}")
    look = [f"{g.student} ({g.submission}: {g.look})" for g in results if g.look]  # as summary.csv's to_look_at
    look = sorted(look + [f"{student} (missing: {why})" for student, why in missing.items()], key=str.casefold)
    if look:  # one a line: a class's list is long
        print("to look at:" + "".join(f"\n  {entry}" for entry in look))
    statuses = ", ".join(f"{n} {status}" for status, n in Counter(g.status for g in results).most_common())
    listed = f"; {len(missing)} missing, {len(unlisted)} not on the roster" if roster else ""
    print(f"{len(results)} notebook{'s' * (len(results) != 1)} in {time.perf_counter() - began:.0f} s: {statuses}"
          f"{listed}; {len(doubled)} with more than one notebook"
          + (f"; {len(others)} left out (another chapter)" if others else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
