"""Grade submitted chapter notebooks: one score per exercise, with the failing check's explanation as feedback.

    python -m tools.grade submissions/                          # every .ipynb in the folder -> grades/
    python -m tools.grade alice.ipynb bob.ipynb --out grades --timeout 120
    python -m tools.grade /autograder/submission/*.ipynb --gradescope /autograder/results/results.json

Each submission runs top to bottom in a fresh kernel (tools.chapters.execute) in a temporary folder of its
own, with a time limit per cell: a cell that runs over is interrupted and the run goes on. Every check cell
of a chapter calls helpers.checks.yours_or_reference, which keeps the latest outcome of each exercise's check
in the kernel; a last cell added to the run reads them. An exercise scores 1 when its check passed, else 0
with the check's own explanation (or "not attempted", or why the check never ran) as feedback.

Writes grades.csv (one row per submission and exercise) and, per submission, Gradescope's results JSON
(https://gradescope-autograders.readthedocs.io/en/latest/specs/). The chapter is read from the submission's
import of helpers.checks.chNN (or given with --chapter); its exercises, in order, from the chapter's check
cells in notebooks/. The submission's code runs with your permissions: grade on a machine (or in a
container) where that is acceptable, as Gradescope does in its own container.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from tools.chapters import chapter_paths, execute

TIMEOUT = 120  # seconds one cell may take before it is interrupted
MARK = "SPOTLIGHTS_OUTCOMES "
REPORT = ("import json as _json\n"
          "from helpers.checks import OUTCOMES as _OUTCOMES\n"
          f"print({MARK!r} + _json.dumps({{name: o._asdict() for name, o in _OUTCOMES.items()}}))")
"""The cell added at the end of each run: it prints every exercise's latest outcome as one JSON line."""
CHECKS_IMPORT = re.compile(r"helpers\.checks\.ch(\d\d)\b")
CHECK_CALL = re.compile(r"yours_or_reference\(\s*check_(\w+)")
CSV_FIELDS = ("submission", "chapter", "exercise", "score", "max_score", "feedback")


@dataclass(frozen=True)
class Score:
    """One exercise of one submission."""

    exercise: str
    passed: bool
    feedback: str


@dataclass
class Graded:
    """A submission's scores, how long its run took, and what went wrong in it beyond the exercises."""

    submission: Path
    chapter: str
    scores: list[Score]
    seconds: float
    problems: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(score.passed for score in self.scores)


def exercises(chapter: str) -> list[str]:
    """The chapter's exercises in the order its check cells call them (from the chapter in notebooks/)."""
    paths = chapter_paths(chapter.zfill(2)) if chapter.isdigit() else []
    if len(paths) != 1:
        raise ValueError(f"there is no chapter {chapter!r}: the chapters are "
                         f"{', '.join(p.name[:2] for p in chapter_paths(''))}")
    names: list[str] = []
    for cell in nbformat.read(paths[0], as_version=4).cells:
        if cell.cell_type == "code":
            names += [name for name in CHECK_CALL.findall(cell.source) if name not in names]
    if not names:
        raise ValueError(f"chapter {chapter} ({paths[0].name}) has no exercises to grade")
    return names


def chapter_of(nb: nbformat.NotebookNode, path: Path) -> str:
    """The chapter number ("01") a submission belongs to, from its import of helpers.checks.chNN."""
    found = {m for cell in nb.cells if cell.cell_type == "code" for m in CHECKS_IMPORT.findall(cell.source)}
    if len(found) != 1:
        raise ValueError(f"{path.name}: cannot tell its chapter (it imports the checks of "
                         f"{sorted(found) or 'no chapter'}); give it with --chapter NN")
    return found.pop()


def _errors(nb: nbformat.NotebookNode) -> list[str]:
    """One line per cell of the run that stopped with an error: 'cell 12: NameError: ...'."""
    lines = []
    for number, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                lines.append(f"cell {number}: {out.ename}: {out.evalue}".splitlines()[0][:300])
    return lines


def _outcomes(nb: nbformat.NotebookNode) -> dict[str, dict] | None:
    """What the added last cell printed: {exercise: {"passed": ..., "feedback": ...}}, or None if it did not."""
    text = "".join(out.get("text", "") for out in nb.cells[-1].get("outputs", []) if out.output_type == "stream")
    lines = [line for line in text.splitlines() if line.startswith(MARK)]
    return json.loads(lines[-1][len(MARK):]) if lines else None


def grade(path: Path, chapter: str | None = None, timeout: int = TIMEOUT) -> Graded:
    """Run one submitted notebook in a fresh kernel and score each exercise of its chapter."""
    chapter = chapter.zfill(2) if chapter else chapter_of(nbformat.read(path, as_version=4), path)
    names = exercises(chapter)
    start = time.perf_counter()
    problems: list[str] = []
    outcomes = None
    with tempfile.TemporaryDirectory(prefix="spotlights-grade-") as folder:
        try:
            nb = execute(path, timeout=timeout, allow_errors=True, interrupt_on_timeout=True, last=REPORT,
                         folder=Path(folder))
            problems += _errors(nb)
            outcomes = _outcomes(nb)
        except Exception as err:  # the kernel died, or the file is not a notebook nbclient can run
            problems.append(f"the notebook could not be run to its end: {type(err).__name__}: {err}")
    seconds = time.perf_counter() - start
    if outcomes is None:
        why = "the grader could not read the checks' outcomes, because the notebook did not run to its end"
        return Graded(path, chapter, [Score(name, False, f"{name}: {why}") for name in names], seconds, problems)
    never = ("its check never ran: the cell that checks it (with yours_or_reference) was removed, or stopped "
             "with an error before it")
    scores = [Score(name, bool(outcomes[name]["passed"]), outcomes[name]["feedback"]) if name in outcomes
              else Score(name, False, f"{name}: {never}") for name in names]
    return Graded(path, chapter, scores, seconds, problems)


def gradescope(graded: Graded) -> dict:
    """Gradescope's results JSON for one submission: one test per exercise, its feedback as the output."""
    tests = [{"name": score.exercise, "number": f"{int(graded.chapter)}.{number}", "score": float(score.passed),
              "max_score": 1.0, "status": "passed" if score.passed else "failed", "output": score.feedback}
             for number, score in enumerate(graded.scores, start=1)]
    result = {"score": float(graded.total), "execution_time": round(graded.seconds), "tests": tests}
    if graded.problems:
        result["output"] = "Cells that stopped with an error:\n" + "\n".join(graded.problems)
    return result


def write_csv(results: Sequence[Graded], target: Path) -> Path:
    """grades.csv: one row per submission and exercise, with the feedback."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for graded in results:
            for score in graded.scores:
                writer.writerow({"submission": graded.submission.name, "chapter": graded.chapter,
                                 "exercise": score.exercise, "score": int(score.passed), "max_score": 1,
                                 "feedback": score.feedback})
    return target


def submissions(paths: Sequence[Path]) -> list[Path]:
    """The notebooks named, and every .ipynb directly inside a folder named (checkpoint copies left out)."""
    found = []
    for path in paths:
        found += sorted(path.glob("*.ipynb")) if path.is_dir() else [path]
    return [p for p in found if ".ipynb_checkpoints" not in p.parts]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="submitted notebooks, or folders of them")
    parser.add_argument("--chapter", help="the chapter number (01 ... 07) when a submission does not say")
    parser.add_argument("--out", type=Path, default=Path("grades"), help="folder for grades.csv and the JSON files")
    parser.add_argument("--timeout", type=int, default=TIMEOUT, help="seconds one cell may take")
    parser.add_argument("--gradescope", type=Path, help="write the one submission's Gradescope JSON here")
    args = parser.parse_args()
    found = submissions(args.paths)
    if not found:
        parser.error("no notebooks found")
    if args.gradescope and len(found) != 1:
        parser.error(f"--gradescope grades one submission; found {len(found)}")
    results, skipped = [], []
    for path in found:
        try:
            graded = grade(path, args.chapter, args.timeout)
        except (ValueError, OSError) as err:  # not a notebook, or no chapter to grade it against
            skipped.append(path.name)
            print(f"{path.name}: not graded: {err}")
            continue
        results.append(graded)
        report = gradescope(graded)
        target = args.gradescope or args.out / f"{path.stem}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        errors = f", {len(graded.problems)} cell(s) with errors" if graded.problems else ""
        print(f"{path.name}: chapter {graded.chapter}, {graded.total} of {len(graded.scores)} "
              f"({graded.seconds:.0f} s){errors}")
        for score in graded.scores:
            if not score.passed:
                print(f"  {score.feedback}"[:200])
    if not args.gradescope:
        print(f"wrote {write_csv(results, args.out / 'grades.csv')} and one JSON file per submission")
    if skipped:
        print(f"not graded: {', '.join(skipped)}")
    return 1 if skipped else 0


if __name__ == "__main__":
    raise SystemExit(main())
