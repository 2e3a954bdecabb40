"""helpers.checks.yours_or_reference: a passing answer is kept; an unfinished, wrong or crashing one is replaced
by the finished version from helpers, in one line, so the chapter runs on; every reference passes its check."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from functools import lru_cache

import nbformat
import pytest
import torch

import helpers.checks
from helpers.checks import LINE, OUTCOMES, attempt, solution_in_use, todo, yours_or_reference
from helpers.checks.ch01 import check_softmax, check_weighted_average
from helpers.checks.solutions import SOLUTIONS as REFERENCES
from tools.chapters import chapter_paths

CHECKS = {
    name.removeprefix("check_"): fn
    for module in pkgutil.iter_modules(helpers.checks.__path__) if module.name.startswith("ch")
    for name, fn in inspect.getmembers(importlib.import_module(f"helpers.checks.{module.name}"), inspect.isfunction)
    if name.startswith("check_") and fn.__module__ == f"helpers.checks.{module.name}"
}


@lru_cache(maxsize=1)
def detectives_data() -> tuple:
    """What chapter 6's first check needs besides the learner's function: the trained model and its stories."""
    from helpers.checkpoints import load_model
    from helpers.train import story_validation

    ids, clues = story_validation(40)
    return load_model("four_heads"), ids, clues


def stub(*args: object) -> None:
    todo()


def test_every_exercise_has_a_reference() -> None:
    assert set(REFERENCES) == set(CHECKS)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_every_reference_passes_its_check(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = detectives_data() if name == "name_the_detectives" else ()
    assert CHECKS[name](REFERENCES[name], *args) is True
    assert f"{name}: correct" in capsys.readouterr().out


@pytest.mark.parametrize("path", chapter_paths("01,02,03,04,05,06,07"), ids=lambda p: p.name)
def test_every_check_in_the_chapters_goes_through_yours_or_reference(path) -> None:
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            call = re.search(r"\bcheck_(\w+)\(", line)
            if call:
                assert re.fullmatch(rf"{call[1]} = yours_or_reference\(check_{call[1]}, {call[1]}(, .+)?\)", line), (
                    f"{path.name}: '{line}' should read '{call[1]} = yours_or_reference(check_{call[1]}, ...)'")


@pytest.mark.parametrize("path", chapter_paths("01,02,03,04,05,06,07"), ids=lambda p: p.name)
def test_only_the_solution_cells_call_it_as_a_solution(path) -> None:
    """A check cell a learner runs keeps its praise; a hidden solution cell says its solution is in use."""
    for cell in nbformat.read(path, as_version=4).cells:
        if "yours_or_reference(check_" in cell.source:
            is_solution = "solution" in cell.metadata.get("tags", [])
            assert ("solution=True" in cell.source) == is_solution, f"{path.name}: {cell.source}"


def test_a_passing_answer_is_kept(capsys: pytest.CaptureFixture[str]) -> None:
    def weighted_average(weights, values):
        return weights @ values

    assert yours_or_reference(check_weighted_average, weighted_average) is weighted_average
    assert "Using the reference" not in capsys.readouterr().out
    assert OUTCOMES["weighted_average"] == (True, "weighted_average: correct")


def test_a_solution_cell_says_its_solution_is_in_use_not_well_done(capsys: pytest.CaptureFixture[str]) -> None:
    """Under Run All the hidden solution cell follows 'not attempted yet': no praise for work not done."""
    def weighted_average(weights, values):
        return weights @ values

    yours_or_reference(check_weighted_average, stub)
    capsys.readouterr()
    assert yours_or_reference(check_weighted_average, weighted_average, solution=True) is weighted_average
    out = capsys.readouterr().out
    assert out == solution_in_use("weighted_average") + "\n" and "Well done" not in out
    assert OUTCOMES["weighted_average"].passed, "the master still gets full marks from the grader"


def test_a_broken_solution_cell_still_shows_what_is_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    def softmax(scores):  # over the wrong dimension
        e = (scores - scores.max(dim=0, keepdim=True).values).exp()
        return e / e.sum(dim=0, keepdim=True)

    assert yours_or_reference(check_softmax, softmax, solution=True) is REFERENCES["softmax"]
    out = capsys.readouterr().out
    assert out.startswith("Not right yet. softmax on a [2, 3] grid") and "Using the reference softmax" in out
    assert solution_in_use("softmax") not in out and OUTCOMES["softmax"].passed is False


def test_an_unfinished_answer_gives_the_reference_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert yours_or_reference(check_weighted_average, stub) is REFERENCES["weighted_average"]
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "Using the reference weighted_average from helpers, since yours is not finished yet."
    assert OUTCOMES["weighted_average"].passed is False
    assert "not attempted" in OUTCOMES["weighted_average"].feedback


def test_a_wrong_answer_is_explained_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    def softmax(scores):  # over the wrong dimension: right for one row, wrong for a grid
        e = (scores - scores.max(dim=0, keepdim=True).values).exp()
        return e / e.sum(dim=0, keepdim=True)

    assert yours_or_reference(check_softmax, softmax) is REFERENCES["softmax"]
    out = capsys.readouterr().out
    assert out.startswith("Not right yet. softmax on a [2, 3] grid") and "dim=-1" in out
    assert out.splitlines()[-1] == "Using the reference softmax from helpers, since yours is not right yet."
    assert all(len(line) <= 100 for line in out.splitlines())
    assert OUTCOMES["softmax"].passed is False and "dim=-1" in OUTCOMES["softmax"].feedback


@pytest.mark.parametrize("error", [ZeroDivisionError("division by zero"), KeyboardInterrupt()])
def test_a_crash_or_an_interrupt_gives_the_reference(error: BaseException, capsys: pytest.CaptureFixture[str]) -> None:
    def weighted_average(weights, values):
        raise error

    assert yours_or_reference(check_weighted_average, weighted_average) is REFERENCES["weighted_average"]
    out = capsys.readouterr().out
    assert f"checking weighted_average stopped with {type(error).__name__}" in out
    assert "(at: raise error)" in " ".join(out.split()), "the line of the learner's code that failed is named"
    assert OUTCOMES["weighted_average"].passed is False


def test_the_reference_handed_back_is_not_checked_again(capsys: pytest.CaptureFixture[str]) -> None:
    OUTCOMES.pop("softmax", None)
    reference = REFERENCES["softmax"]
    assert yours_or_reference(check_softmax, reference) is reference
    assert "already the reference" in capsys.readouterr().out
    assert "softmax" not in OUTCOMES, "running the check cell twice must not give the reference full marks"


def test_the_reference_works_where_the_chapter_uses_it() -> None:
    softmax = yours_or_reference(check_softmax, stub)
    weights = softmax(torch.tensor([[1.0, 2.0], [3.0, 3.0]]))
    assert torch.allclose(weights.sum(dim=-1), torch.ones(2))


def test_something_else_than_a_check_gets_a_clear_message() -> None:
    with pytest.raises(ValueError, match="needs an exercise's check first"):
        yours_or_reference(print, stub)


def test_every_line_for_the_longest_exercise_name_fits_a_projector(capsys: pytest.CaptureFixture[str]) -> None:
    """What a check cell prints for an unfinished exercise, for the reference run twice and for a solution cell
    stays within LINE characters for the exercise with the longest name (chapter 4's count_attention_parameters
    printed 104)."""
    name = max(REFERENCES, key=len)
    args = detectives_data() if name == "name_the_detectives" else ()
    yours_or_reference(CHECKS[name], stub, *args)
    yours_or_reference(CHECKS[name], REFERENCES[name], *args)
    yours_or_reference(CHECKS[name], lambda *given: REFERENCES[name](*given), *args, solution=True)
    lines = capsys.readouterr().out.splitlines()
    assert any("not attempted yet" in line for line in lines) and any("already the reference" in line for line in lines)
    assert any("hidden solution passes its check" in line for line in lines)
    assert all(len(line) <= LINE for line in lines), [line for line in lines if len(line) > LINE]


def test_the_not_attempted_note_wraps_for_any_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert attempt("an_exercise_with_a_name_far_longer_than_any_the_series_has", stub) == (False, None)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "not attempted yet" in lines[0]
    assert all(len(line) <= LINE for line in lines)


def test_feedback_never_breaks_inside_code_and_ends_a_sentence() -> None:
    from helpers.checks import say

    text = say("merge_heads: " + "the heads go back side by side, " * 2 + "so use .reshape(B, T, H * D) on it")
    assert any(".reshape(B, T, H * D)" in line for line in text.splitlines()), text
    assert text.endswith("on it.") and all(len(line) <= 100 for line in text.splitlines())
    for start in range(60, 100):  # wherever the code falls near the end of a line, it stays whole
        lines = say("x" * start + " view(B, T, heads, C // heads) then [B, H, T, D]").splitlines()
        assert any("view(B, T, heads, C // heads)" in line for line in lines), lines
        assert any("[B, H, T, D]" in line for line in lines), lines
