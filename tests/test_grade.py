"""The grader (tools/grade.py) on three kinds of notebook: the master gets full marks, the student edition zero,
and one with typical wrong answers partial marks, each failing exercise with its check's explanation.

Each graded notebook is a fresh kernel running a whole chapter, so the runs are few: the master and the student
edition of chapter 1, and wrong answers in chapters 1, 2 and 4 (the mistakes the issue lists).
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tools.chapters import ROOT, chapter_paths, execute
from tools.editions import EXERCISE, build
from tools.grade import Graded, exercises, grade, gradescope, write_csv

TIMEOUT = 300  # per cell: generous, since a shared machine can be slow; no cell of chapters 1, 2, 4 needs much

WRONG = {
    "softmax": ("def softmax(scores):\n"
                "    e = (scores - scores.max(dim=0, keepdim=True).values).exp()\n"
                "    return e / e.sum(dim=0, keepdim=True)\n"),
    "scaled_scores": "def scaled_scores(q, k):\n    return q @ k.T\n",
    "masked_weights": ("def masked_weights(scores):\n"
                       "    hidden = causal_mask(scores.shape[-1])\n"
                       "    return torch.softmax(scores.masked_fill(hidden, float('-inf')), dim=-1)\n"),
    "merge_heads": ("def merge_heads(y):\n"
                    "    B, H, T, D = y.shape\n"
                    "    return y.transpose(1, 2).view(B, T, H * D)\n"),
}
"""Typical mistakes: softmax over the wrong dimension, no 1/sqrt(d), an inverted mask, .view after .transpose."""
EXPLAINED = {"softmax": "dim=-1", "scaled_scores": "sqrt(d)", "masked_weights": "the mask is the wrong way round",
             "merge_heads": ".reshape"}
"""What each wrong answer's feedback must say: the part of its check's explanation that names the fix."""
WRONG_IN = {"01": ["softmax"], "02": ["scaled_scores", "masked_weights"], "04": ["merge_heads"]}


def master(chapter: str) -> Path:
    return chapter_paths(chapter)[0]


def with_wrong_answers(chapter: str, folder: Path) -> Path:
    """The instructor edition of `chapter` with the exercises of WRONG_IN[chapter] answered by their typical
    mistakes (their solution cells dropped)."""
    nb = nbformat.read(build("instructor", folder / "instructor", [master(chapter)])[0], as_version=4)
    nb.cells = [c for c in nb.cells if not ("solution" in c.metadata.get("tags", [])
                                            and any(f"def {name}(" in c.source for name in WRONG_IN[chapter]))]
    for name in WRONG_IN[chapter]:
        cells = [c for c in nb.cells if EXERCISE in c.metadata.get("tags", []) and f"def {name}(" in c.source]
        assert len(cells) == 1, f"chapter {chapter} has no single stub for {name}"
        cells[0].source = WRONG[name]
    target = folder / f"wrong_{chapter}.ipynb"
    nbformat.write(nb, target)
    return target


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Graded]:
    folder = tmp_path_factory.mktemp("submissions")
    student = build("learner", folder / "learner", [master("01")])[0]
    runs = {"master": build("instructor", folder / "instructor", [master("01")])[0], "student": student}
    runs.update({f"wrong {c}": with_wrong_answers(c, folder) for c in WRONG_IN})
    return {what: grade(path, timeout=TIMEOUT) for what, path in runs.items()}


def test_the_master_gets_full_marks(graded: dict[str, Graded]) -> None:
    result = graded["master"]
    assert result.chapter == "01" and [s.exercise for s in result.scores] == exercises("01")
    assert all(s.passed for s in result.scores), [s.feedback for s in result.scores]
    assert result.total == len(result.scores) == 2 and not result.problems


def test_the_student_edition_gets_zero_and_is_told_why(graded: dict[str, Graded]) -> None:
    result = graded["student"]
    assert result.total == 0 and not result.problems, result.problems
    for score in result.scores:
        assert score.feedback == f"{score.exercise}: not attempted yet (the stub still calls todo())"


@pytest.mark.parametrize("chapter", list(WRONG_IN))
def test_typical_wrong_answers_get_partial_marks_with_their_explanation(graded: dict[str, Graded],
                                                                         chapter: str) -> None:
    result = graded[f"wrong {chapter}"]
    assert not result.problems, f"one wrong answer must not break the chapter: {result.problems}"
    assert 0 < result.total < len(result.scores), "partial marks"
    for score in result.scores:
        if score.exercise in WRONG_IN[chapter]:
            assert not score.passed and EXPLAINED[score.exercise] in score.feedback, score.feedback
        else:
            assert score.passed, score.feedback


def test_gradescope_json_and_csv_carry_every_score_and_its_feedback(graded: dict[str, Graded],
                                                                    tmp_path: Path) -> None:
    result = graded["wrong 02"]
    report = gradescope(result)
    assert report["score"] == sum(test["score"] for test in report["tests"]) == result.total
    assert [test["name"] for test in report["tests"]] == exercises("02")
    assert {test["status"] for test in report["tests"]} == {"passed", "failed"}
    assert all(test["max_score"] == 1.0 and test["output"] for test in report["tests"])
    rows = list(csv.DictReader(write_csv(list(graded.values()), tmp_path / "grades.csv").open()))
    assert len(rows) == sum(len(g.scores) for g in graded.values())
    wrong = [r for r in rows if r["submission"] == "wrong_02.ipynb" and r["score"] == "0"]
    assert {r["exercise"] for r in wrong} == set(WRONG_IN["02"]) and all(r["feedback"] for r in wrong)


def test_a_cell_over_the_time_limit_is_interrupted_and_the_run_goes_on(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in ("while True:\n    pass", "after = 'ran'")]
    nbformat.write(nb, tmp_path / "endless.ipynb")
    run = execute(tmp_path / "endless.ipynb", timeout=3, allow_errors=True, interrupt_on_timeout=True,
                  last="print(after)")
    assert run.cells[0].outputs[0].ename == "KeyboardInterrupt"
    assert run.cells[-1].outputs[0].text == "ran\n"


def test_the_command_grades_a_submission_whose_check_cell_was_removed(tmp_path: Path) -> None:
    """A chapter-1 submission with one right answer and no check cell for the other exercise."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in (
        "from helpers.checks import yours_or_reference\nfrom helpers.checks.ch01 import check_weighted_average",
        "def weighted_average(weights, values):\n    return weights @ values",
        "weighted_average = yours_or_reference(check_weighted_average, weighted_average)",
    )]
    nbformat.write(nb, tmp_path / "short.ipynb")
    run = subprocess.run([sys.executable, "-m", "tools.grade", str(tmp_path), "--out", str(tmp_path / "grades")],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads((tmp_path / "grades" / "short.json").read_text())
    scores = {test["name"]: test for test in report["tests"]}
    assert scores["weighted_average"]["score"] == 1.0 and report["score"] == 1.0
    assert scores["softmax"]["score"] == 0.0 and "never ran" in scores["softmax"]["output"]
    assert "short.ipynb: chapter 01, 1 of 2" in run.stdout
    assert (tmp_path / "grades" / "grades.csv").exists()


def test_a_file_that_cannot_be_graded_is_named_and_the_rest_go_on(tmp_path: Path) -> None:
    (tmp_path / "notes.ipynb").write_text("not a notebook")
    nbformat.write(nbformat.read(master("00"), as_version=4), tmp_path / "start.ipynb")
    run = subprocess.run([sys.executable, "-m", "tools.grade", str(tmp_path), "--out", str(tmp_path / "grades")],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert "notes.ipynb: not graded:" in run.stdout
    assert "start.ipynb: not graded: start.ipynb: cannot tell its chapter" in run.stdout
