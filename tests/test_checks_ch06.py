"""The chapter 6 checks judge answers by the model's own scoreboard and ablation, and explain the usual mistakes."""

from __future__ import annotations

from functools import lru_cache

import pytest
import torch

from helpers.checkpoints import load_model
from helpers.checks import todo
from helpers.checks.ch06 import check_lifeline, check_name_the_detectives, lifeline_of, watched_most
from helpers.evaluate import attention_on_clues, head_ablation
from helpers.model import course_model
from helpers.stories import CLUE_KINDS
from helpers.train import story_validation

KINDS = list(CLUE_KINDS)


@lru_cache(maxsize=1)
def trained() -> tuple:
    ids, clues = story_validation(40)
    model = load_model("four_heads")
    return model, ids, clues, attention_on_clues(model, ids, clues, max_windows=len(ids))


def name_them(board: dict[str, list[float]]) -> dict[int, str]:
    heads = len(board["subject"])
    return {h: max(KINDS, key=lambda kind: board[kind][h]) for h in range(heads)}


def lifeline(rows: list[dict], kind: str) -> int:
    worst = min(rows, key=lambda row: row["clue_accuracy"][kind])
    return worst["head"]


def stub(*args: object) -> None:
    todo()


def test_references_pass(capsys: pytest.CaptureFixture[str]) -> None:
    model, ids, clues, _ = trained()
    assert check_name_the_detectives(name_them, model, ids, clues) is True
    assert check_lifeline(lifeline) is True
    assert capsys.readouterr().out.count("correct") == 2


def test_the_reference_passes_on_a_measured_ablation() -> None:
    model, _, _, _ = trained()
    ids, clues = story_validation(8)
    rows = head_ablation(model, ids, clues)
    assert check_lifeline(lifeline, rows) is True
    assert {lifeline_of(rows, kind) for kind in KINDS} <= {0, 1, 2, 3}


def test_stubs_are_not_attempted(capsys: pytest.CaptureFixture[str]) -> None:
    model, ids, clues, _ = trained()
    assert check_name_the_detectives(stub, model, ids, clues) is False
    assert check_lifeline(stub) is False
    assert capsys.readouterr().out.count("not attempted yet") == 2


def test_the_truth_comes_from_the_model_not_from_a_stored_answer() -> None:
    model, ids, clues, board = trained()
    answer = watched_most(board)
    torch.manual_seed(0)
    blank = course_model(heads=4, seed=0)
    other = watched_most(attention_on_clues(blank, ids, clues, max_windows=len(ids)))
    assert other != answer, "an untrained model should watch other clues than the trained one"
    with pytest.raises(AssertionError, match="watches most"):
        check_name_the_detectives(lambda board: dict(answer), blank, ids, clues)
    assert check_name_the_detectives(lambda board: dict(answer), model, ids, clues) is True


def test_watched_most_is_the_largest_share_per_head() -> None:
    board = {"subject": [0.1, 0.5, 0.0], "previous": [0.6, 0.1, 0.0], "mood": [0.05, 0.05, 0.3],
             "sense": [0.0, 0.2, 0.3], "chance": [0.9, 0.9, 0.9, 0.9]}
    assert watched_most(board) == {0: "previous", 1: "subject", 2: "mood"}  # a tie goes to the earlier kind


def _wrong_names(board: dict[str, list[float]]) -> dict[int, str]:
    answer = name_them(board)
    head = 0
    answer[head] = next(k for k in KINDS if k != answer[head])
    return answer


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda board: list(name_them(board).values()), "should return a dict"),
        (lambda board: {kind: head for head, kind in name_them(board).items()}, "Turn it round"),
        (lambda board: {str(h): k for h, k in name_them(board).items()}, "one entry per head"),
        (lambda board: {h: k for h, k in name_them(board).items() if h < 3}, "one entry per head"),
        (lambda board: {**name_them(board), 2: "chance"}, "not a clue kind"),
        (lambda board: {**name_them(board), 1: "grammar"}, "choose one of"),
        (_wrong_names, "watches most"),
        (lambda board: {h: min(KINDS, key=lambda k: board[k][h]) for h in range(4)}, "largest share"),
    ],
)
def test_naming_mistakes(wrong, reason: str) -> None:
    model, ids, clues, _ = trained()
    with pytest.raises(AssertionError, match=reason):
        check_name_the_detectives(wrong, model, ids, clues)


def test_positions_instead_of_heads_are_caught() -> None:
    def by_position(rows: list[dict], kind: str) -> int:
        return min(range(len(rows)), key=lambda i: rows[i]["clue_accuracy"][kind])

    with pytest.raises(AssertionError, match=r"row\['head'\]"):
        check_lifeline(by_position)


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda rows, kind: max(rows, key=lambda r: r["clue_accuracy"][kind])["head"], "HIGHEST"),
        (lambda rows, kind: min(rows, key=lambda r: r["clue_accuracy"][kind]), "whole row"),
        (lambda rows, kind: min(r["clue_accuracy"][kind] for r in rows), "an accuracy"),
        (lambda rows, kind: str(lifeline(rows, kind)), "whole number"),
        (lambda rows, kind: 7, "no head 7"),
    ],
)
def test_lifeline_mistakes(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_lifeline(wrong)


def test_a_wrong_head_on_measured_rows_is_explained_with_both_accuracies() -> None:
    rows = [{"head": h, "val_ppl": 3.0, "clue_accuracy": dict.fromkeys(KINDS, acc)}
            for h, acc in enumerate((0.6, 0.5, 0.3, 0.7))]

    def second_row(rows_seen: list[dict], kind: str) -> int:
        return lifeline(rows_seen, kind) if len(rows_seen) == 3 else rows_seen[1]["head"]

    with pytest.raises(AssertionError, match=r"gave head 1 .*50\.0%.*head 2 off it drops to 30\.0%"):
        check_lifeline(second_row, rows)


def test_a_learner_cannot_change_the_measured_rows() -> None:
    rows = [{"head": h, "val_ppl": 3.0, "clue_accuracy": dict.fromkeys(KINDS, 0.9 - h / 10)} for h in range(4)]

    def spoil(rows_seen: list[dict], kind: str) -> int:
        for row in rows_seen:
            row["clue_accuracy"][kind] = 0.0
        return lifeline(rows_seen, kind)

    with pytest.raises(AssertionError):
        check_lifeline(spoil, rows)
    assert rows[0]["clue_accuracy"]["subject"] == 0.9
