"""Checks for chapter 6 (meet the detectives): naming each head from the scoreboard, finding each clue's lifeline.

The right answers are never stored here: they are computed when the check runs, from the model's own
scoreboard (helpers.evaluate.attention_on_clues) and from the measured ablation rows.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from helpers.checks import attempt, expect, passed, type_of
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


_HEADS_HINT = ("board[kind] holds one share per head, so len(board['subject']) is the head count (len(board) counts "
               "the kinds of clue and 'chance', and board['chance'] holds one value per kind of clue)")
_THREE_HEADS: Board = {"chance": [0.03, 0.06, 0.02, 0.02], "subject": [0.05, 0.04, 0.10],
                       "previous": [0.40, 0.05, 0.02], "mood": [0.01, 0.02, 0.05], "sense": [0.30, 0.03, 0.60]}
"""A made-up scoreboard of a three-head model ('chance' first), on which a typed-in head count shows; head 1 looks
mostly elsewhere, so its largest share (5%) is below board["chance"][1] and a maximum that includes 'chance' shows."""


def _named(name: str, got: Any, board: Mapping[str, Sequence[float]], made_up: bool) -> None:
    """Judge one answer of name_the_detectives against `board` (the model's, or the check's made-up one), naming
    the usual mistakes; a message about the made-up board says so, as its numbers are not on the learner's screen."""
    if made_up:
        name += " (on the check's made-up scoreboard of 3 heads, 'chance' listed first)"
    heads = len(board[CLUE_KINDS[0]])
    expect(isinstance(got, dict), f"{name} should return a dict like {{0: 'mood', 1: ...}}, got {type_of(got)}")
    expect(not (got and set(got) <= {*CLUE_KINDS, "chance"}),
           f"{name} returned {{clue kind: head}} ({got}). Turn it round: one entry per head, "
           "{head number: the kind of clue that head watches}.")
    expect(not (set(got) == set(range(4)) and heads != 4),
           f"{name} named 4 heads for a scoreboard of {heads} heads: take the head count from the board, not a "
           f"typed-in 4. {_HEADS_HINT}.")
    expect(set(got) == set(range(heads)),
           f"{name} should have one entry per head, the keys {list(range(heads))}; got the keys {list(got)}")
    expect(not all(isinstance(kind, int) for kind in got.values()),
           f"{name} returned numbers as its values ({got}): the keys are head numbers and each value the name of "
           "a clue kind, like {0: 'mood', ...}. If your keys number the kinds and your values are heads, turn it "
           "round: for each head, the kind it watches most.")
    truth = watched_most(board)
    by_lift = {h: max(CLUE_KINDS, key=lambda kind: board[kind][h] / board["chance"][CLUE_KINDS.index(kind)])
               for h in range(heads)}
    for head in range(heads):
        kind = got[head]
        expect(kind != "chance",
               f"{name}: head {head} is named 'chance', but chance is not a clue kind: it is what attention spread "
               "evenly would give. Compare the four clue kinds only, chosen by name (CLUE_KINDS), not by their "
               "place among the scoreboard's keys.")
        expect(kind in CLUE_KINDS, f"{name}: head {head} is named {kind!r}; choose one of {list(CLUE_KINDS)}")
        want = truth[head]
        if kind == want:
            continue
        expect(not (got == by_lift and by_lift != truth),
               f"{name}: you named each head after its share divided by chance. The exercise names it after the "
               f"largest share itself: head {head} puts {board[want][head]:.1%} of its attention on {want} clues "
               f"and {board[kind][head]:.1%} on {kind} clues.")
        expect(False,
               f"{name}: you named head {head} '{kind}', but it puts {board[kind][head]:.1%} of its attention on "
               f"{kind} clues and {board[want][head]:.1%} on {want} clues. Name each head after the kind of clue "
               "it watches most (the largest share in its column), even if another head watches that kind too.")


def check_name_the_detectives(
    name_the_detectives: Callable[[Board], dict[int, str]], model: CourseModel, ids: torch.Tensor, clues: list[Clue]
) -> bool:
    """name_the_detectives(board) -> {head: clue kind it watches most}, judged by the model's own scoreboard,
    then on a made-up three-head scoreboard (so a typed-in head count shows)."""
    name = "name_the_detectives"
    board = attention_on_clues(model, ids, clues, max_windows=len(ids))
    done, got = attempt(name, name_the_detectives, {k: list(v) for k, v in board.items()},
                        hint=f"The scoreboard is a dict of lists with the keys {list(board)}: {_HEADS_HINT}.",
                        errors=(IndexError, KeyError))
    if not done:
        return False
    _named(name, got, board, made_up=False)
    _, got = attempt(name, name_the_detectives, {k: list(v) for k, v in _THREE_HEADS.items()},
                     hint="Take the head count from the board's shares: the check also gives your function a "
                          "made-up scoreboard of three heads, and your function looked for a fourth. board[kind] "
                          "holds one share per head, so len(board['subject']) is the head count (not a typed-in 4, "
                          "nor len(board['chance']), one value per kind of clue).",
                     errors=(IndexError, KeyError))
    _named(name, got, _THREE_HEADS, made_up=True)
    return passed(name)


def _row(head: int, val_ppl: float, *accuracy: float) -> dict[str, Any]:
    """A made-up ablation row: the head switched off, perplexity, and clue accuracy per kind, then over all."""
    return {"head": head, "val_ppl": val_ppl, "clue_accuracy": dict(zip([*CLUE_KINDS, "all"], accuracy, strict=True))}


# Three heads in the order 2, 0, 1: for every kind, the right head, the row's position and the head that
# hurts least are three different numbers, so each usual mix-up gives a different, explainable answer.
_EXAMPLE_ROWS: Rows = [_row(2, 3.0, 0.62, 0.40, 0.70, 0.55, 0.45),  # "all": every kind together, as measured
                       _row(0, 4.0, 0.30, 0.60, 0.72, 0.58, 0.55),
                       _row(1, 2.5, 0.60, 0.66, 0.35, 0.20, 0.57)]
_OTHER_ROWS: Rows = [_row(1, 3.0, 0.50, 0.30, 0.66, 0.61, 0.52),  # a second ablation: which rule an answer follows
                     _row(0, 2.0, 0.45, 0.64, 0.40, 0.59, 0.41),
                     _row(2, 5.0, 0.33, 0.57, 0.69, 0.36, 0.60)]
"""Each rule that gives one head for every kind (the lowest over all clues, the highest or the lowest perplexity)
gives another head here than on _EXAMPLE_ROWS, and never the one a fixed head, the first row's or the last row's
gives on both: an answer that is always the same head follows a rule only if it does on both tables."""


def _copy(rows: Sequence[Mapping[str, Any]]) -> Rows:
    return [{**row, "clue_accuracy": dict(row["clue_accuracy"])} for row in rows]


def _one_answer(name: str, lifeline: Callable[[Rows, str], int], rows: Rows, kind: str, example: bool) -> None:
    """Judge lifeline(rows, kind) against `rows` (the check's made-up `example`, or the measured ones), explaining
    the usual mistakes; a message about the made-up rows says so, as their numbers are not on the learner's screen."""
    got = lifeline(_copy(rows), kind)
    name = f"{name}({kind!r}) on the check's made-up rows (heads 2, 0, 1)" if example else f"{name}({kind!r})"
    accuracy = {row["head"]: row["clue_accuracy"][kind] for row in rows}
    expect(not isinstance(got, dict), f"{name} returned a whole row; return only its head number, row['head']")
    expect(not isinstance(got, str), f"{name} returned the text {got!r}; return the head's number itself, row['head']")
    expect(not (isinstance(got, float) and got.is_integer() and int(got) in accuracy),
           f"{name} returned {got}, a head number written as a decimal: return a whole number, int(...)")
    expect(not isinstance(got, float), f"{name} returned {got}, an accuracy; return the head number instead")
    expect(got is not None, f"{name} returned {type_of(got)}")  # None: is its return missing?
    expect(isinstance(got, numbers.Integral) and not isinstance(got, bool),  # NumPy's whole numbers too
           f"{name} should return a head number (a whole number), got {got!r}: int(...) or .item() turns a "
           "one-number tensor or array into one")
    got = int(got)
    expect(got in accuracy, f"{name}: there is no head {got}; the rows are for heads {sorted(accuracy)}"
           + (": answer from the rows it is given, its first argument, not the notebook's table" if example else ""))
    want = lifeline_of(rows, kind)
    if got == want:
        return
    least = max(rows, key=lambda row: row["clue_accuracy"][kind])["head"]
    tables = [rows, _OTHER_ROWS]
    answers = [[lifeline(_copy(table), other) for other in CLUE_KINDS] for table in tables]

    def follows(rule: Callable[[Rows, str], int]) -> bool:  # on both tables, for every kind
        return answers == [[rule(table, other) for other in CLUE_KINDS] for table in tables]

    expect(not ("all" in rows[0]["clue_accuracy"] and follows(lambda table, _: lifeline_of(table, "all"))),
           f"{name} gave head {got} for every kind of clue: the lowest accuracy over all clues together. Choose "
           f"by the kind asked for, row['clue_accuracy'][kind] (for {kind!r} the lowest is with head {want} off).")
    for pick, which in ((max, "highest"), (min, "lowest")):
        expect(not follows(lambda table, _, pick=pick: pick(table, key=lambda row: row["val_ppl"])["head"]),
               f"{name} gave head {got} for every kind of clue: the row with the {which} perplexity. Perplexity "
               f"counts every word, not one kind of clue: choose by row['clue_accuracy'][kind] instead (for "
               f"{kind!r} the lowest accuracy is with head {want} off).")
    expect(not (example and follows(lambda table, other: [row["head"] for row in table].index(
               lifeline_of(table, other)))),
           f"{name} gave {got}, the position of the right row in the list, but the rows are not in head "
           f"order here: return the row's own head number, row['head'] (it is {want}).")
    expect(len(set(answers[0])) > 1  # while the right heads differ
           or len({lifeline_of(rows, other) for other in CLUE_KINDS}) == 1,
           f"{name} gave head {got} for every kind of clue: does it read row['clue_accuracy'][kind] for the kind it "
           f"is asked about, and keep the row with the lowest one (for {kind!r}, head {want})?")
    expect(got != least,
           f"{name} gave head {got}: switching it off leaves the HIGHEST {kind} accuracy "
           f"({accuracy[got]:.0%}), so it is the head the model misses least. Look for the lowest accuracy.")
    expect(False, f"{name} gave head {got} (with it off, {kind} accuracy is {accuracy[got]:.1%}), but with "
                  f"head {want} off it drops to {accuracy[want]:.1%}. Compare clue_accuracy[{kind!r}] across rows.")


def check_lifeline(lifeline: Callable[[Rows, str], int], ablation: Sequence[Mapping[str, Any]] | None = None) -> bool:
    """lifeline(rows, kind) -> the head whose removal costs `kind` clues the most accuracy.

    Tried on a small made-up ablation first, then (if given) on every clue kind of the measured `ablation`.
    """
    name = "lifeline"
    done, _ = attempt(name, lifeline, _copy(_EXAMPLE_ROWS), CLUE_KINDS[0], errors=(IndexError, KeyError),
                      hint=f"Each row is a dict with the keys {list(_EXAMPLE_ROWS[0])} (row['clue_accuracy'] "
                           f"with {list(_EXAMPLE_ROWS[0]['clue_accuracy'])}), and the check's made-up rows "
                           "are for 3 heads, listed out of order (heads 2, 0, 1): loop over the rows themselves and "
                           "read each row's row['head'] and row['clue_accuracy'][kind], rather than indexing rows by "
                           "a head number or a typed-in count.")
    if not done:
        return False
    for kind in CLUE_KINDS:
        _one_answer(name, lifeline, _EXAMPLE_ROWS, kind, example=True)
    if ablation is not None:
        expect(len(ablation) > 0, "check_lifeline: the measured ablation has no rows")
        for kind in CLUE_KINDS:
            _one_answer(name, lifeline, _copy(ablation), kind, example=False)
    return passed(name)


MADE_IN = {
    "four": "'four = load_model(...)' (section 1)",
    "one": "'four = load_model(...)' (section 1)",
    "ids": "'ids, clues = story_validation()' (section 2)",
    "clues": "'ids, clues = story_validation()' (section 2)",
    "boards": "'boards = ...attention_on_clues...' (section 2)",
    "name_the_detectives": "that starts with `def name_the_detectives` (exercise 1)",
    "ablation": "'ablation = head_ablation(...)' (section 3)",
    "baseline": "'ablation = head_ablation(...)' (section 3)",
    "lifeline": "that starts with `def lifeline` (exercise 2)",
    "sorts": "'follows = {}' (the case files, section 2)",
    "follows": "'follows = {}' (the case files, section 2)",
    "worse": "'worse = [...]' (section 3)",
    "agree": "'agree = 0' (section 3)",
    "unlabelled": "'unlabelled = [...]' (section 4)",
    "novel": "'novel = load_model(\"novel_four_heads\")' (section 4)",
    "story_roles": "'story_roles = head_roles(four, ids)' (section 4)",
    "roles": "'roles = head_roles(...)' (section 4)",
    "foxes": "'foxes = ...' (section 1)",
    "reading": "'foxes = ...' (section 1)",
    "records": "'ids, clues = story_validation()' (section 2)",
    "novel_ids": "'novel = load_model(\"novel_four_heads\")' (section 4)",
    "novel_chance": "'novel = load_model(\"novel_four_heads\")' (section 4)",
}
"""For a NameError's advice (helpers.needs.explain_missing, called in the set-up cell): the cell of the
chapter that makes each name a later cell needs."""
