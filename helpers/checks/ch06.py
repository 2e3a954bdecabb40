"""Checks for chapter 6 (meet the detectives): naming each head from the scoreboard, finding each clue's lifeline.

The right answers are never stored here: they are computed when the check runs, from the model's own
scoreboard (helpers.evaluate.attention_on_clues) and from the measured ablation rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from helpers.checks import attempt, expect, passed
from helpers.evaluate import attention_on_clues
from helpers.model import CourseModel
from helpers.stories import CLUE_KINDS, Clue

Board = dict[str, list[float]]
Rows = list[dict[str, Any]]


def watched_most(board: Mapping[str, Sequence[float]]) -> dict[int, str]:
    """For each head, the clue kind it puts the largest share of attention on (ties: the earlier kind)."""
    heads = len(board[CLUE_KINDS[0]])
    return {h: max(CLUE_KINDS, key=lambda kind: (board[kind][h], -CLUE_KINDS.index(kind))) for h in range(heads)}


def lifeline_of(rows: Sequence[Mapping[str, Any]], kind: str) -> int:
    """The head whose removal leaves the lowest clue accuracy for `kind` (ties: the lower head number)."""
    return min(rows, key=lambda row: (row["clue_accuracy"][kind], row["head"]))["head"]


def check_name_the_detectives(
    name_the_detectives: Callable[[Board], dict[int, str]], model: CourseModel, ids: torch.Tensor, clues: list[Clue]
) -> bool:
    """name_the_detectives(board) -> {head: clue kind it watches most}, judged by the model's own scoreboard."""
    name = "name_the_detectives"
    board = attention_on_clues(model, ids, clues, max_windows=len(ids))
    done, got = attempt(name, name_the_detectives, {k: list(v) for k, v in board.items()})
    if not done:
        return False
    heads = model.config.heads
    expect(isinstance(got, dict), f"{name} should return a dict like {{0: 'mood', 1: ...}}, got {type(got).__name__}")
    expect(not (got and set(got) <= {*CLUE_KINDS, "chance"}),
           f"{name} returned {{clue kind: head}} ({got}). Turn it round: one entry per head, "
           "{head number: the kind of clue that head watches}.")
    expect(set(got) == set(range(heads)),
           f"{name} should have one entry per head, the keys {list(range(heads))}; got the keys {list(got)}")
    truth = watched_most(board)
    for head in range(heads):
        kind = got[head]
        expect(kind != "chance",
               f"{name}: head {head} is named 'chance', but chance is not a clue kind: it is what attention spread "
               "evenly would give. Compare the four clue kinds only.")
        expect(kind in CLUE_KINDS, f"{name}: head {head} is named {kind!r}; choose one of {list(CLUE_KINDS)}")
        want = truth[head]
        expect(kind == want,
               f"{name}: you named head {head} '{kind}', but it puts {board[kind][head]:.1%} of its attention on "
               f"{kind} clues and {board[want][head]:.1%} on {want} clues. Name each head after the kind of clue "
               "it watches most (the largest share in its column).")
    return passed(name)


# Three heads in the order 2, 0, 1: for every kind, the right head, the row's position and the head that
# hurts least are three different numbers, so each usual mix-up gives a different, explainable answer.
_EXAMPLE_ROWS: Rows = [
    {"head": 2, "val_ppl": 3.0, "clue_accuracy": {"subject": 0.62, "previous": 0.40, "mood": 0.70, "sense": 0.55}},
    {"head": 0, "val_ppl": 4.0, "clue_accuracy": {"subject": 0.30, "previous": 0.60, "mood": 0.72, "sense": 0.58}},
    {"head": 1, "val_ppl": 2.5, "clue_accuracy": {"subject": 0.60, "previous": 0.66, "mood": 0.35, "sense": 0.20}},
]


def _copy(rows: Sequence[Mapping[str, Any]]) -> Rows:
    return [{**row, "clue_accuracy": dict(row["clue_accuracy"])} for row in rows]


def _one_answer(name: str, lifeline: Callable[[Rows, str], int], rows: Rows, kind: str, example: bool) -> None:
    """Judge lifeline(rows, kind) against the measured rows, explaining the usual mistakes."""
    got = lifeline(_copy(rows), kind)
    expect(not isinstance(got, dict), f"{name} returned a whole row; return only its head number, row['head']")
    expect(not isinstance(got, float), f"{name} returned {got}, an accuracy; return the head number instead")
    expect(isinstance(got, int) and not isinstance(got, bool),
           f"{name} should return a head number (a whole number), got {got!r}")
    accuracy = {row["head"]: row["clue_accuracy"][kind] for row in rows}
    expect(got in accuracy, f"{name}: there is no head {got}; the rows are for heads {sorted(accuracy)}")
    want = lifeline_of(rows, kind)
    if got == want:
        return
    least = max(rows, key=lambda row: row["clue_accuracy"][kind])["head"]
    where = [row["head"] for row in rows]
    expect(got != least,
           f"{name}({kind!r}) gave head {got}: switching it off leaves the HIGHEST {kind} accuracy "
           f"({accuracy[got]:.0%}), so it is the head the model misses least. Look for the lowest accuracy.")
    expect(not (example and got == where.index(want)),
           f"{name}({kind!r}) gave {got}, the position of the right row in the list, but the rows are not in head "
           f"order here: return the row's own head number, row['head'] (it is {want}).")
    expect(False, f"{name}({kind!r}) gave head {got} (with it off, {kind} accuracy is {accuracy[got]:.1%}), but with "
                  f"head {want} off it drops to {accuracy[want]:.1%}. Compare clue_accuracy[{kind!r}] across rows.")


def check_lifeline(lifeline: Callable[[Rows, str], int], ablation: Sequence[Mapping[str, Any]] | None = None) -> bool:
    """lifeline(rows, kind) -> the head whose removal costs `kind` clues the most accuracy.

    Tried on a small made-up ablation first, then (if given) on every clue kind of the measured `ablation`.
    """
    name = "lifeline"
    done, _ = attempt(name, lifeline, _copy(_EXAMPLE_ROWS), CLUE_KINDS[0])
    if not done:
        return False
    for kind in CLUE_KINDS:
        _one_answer(name, lifeline, _EXAMPLE_ROWS, kind, example=True)
    if ablation is not None:
        expect(len(ablation) > 0, "check_lifeline: the measured ablation has no rows")
        for kind in CLUE_KINDS:
            _one_answer(name, lifeline, _copy(ablation), kind, example=False)
    return passed(name)
