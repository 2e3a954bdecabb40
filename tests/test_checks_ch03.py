"""The chapter 3 checks accept the reference answers and explain the usual mistakes."""

from __future__ import annotations

import pytest
import torch

from helpers.checks import todo
from helpers.checks.ch03 import SMILES_SENTENCE, check_clue_share, check_clues_for_smiles

WORDS = SMILES_SENTENCE.split()
RIGHT = {"subject": WORDS.index("fox"), "mood": WORDS.index("eagerly"), "previous": WORDS.index("smiles") - 1}


def clue_share(weights: torch.Tensor, positions: list[int]) -> torch.Tensor:
    return weights[:, positions].sum(dim=-1)  # [H, T] -> [H]


def stub(*args: object) -> None:
    todo()


def test_references_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_clues_for_smiles(lambda words: dict(RIGHT)) is True
    assert check_clue_share(clue_share) is True
    assert capsys.readouterr().out.count("correct") == 2


def test_sentence_is_the_story_worlds_own() -> None:
    from helpers.stories import example_sentences

    assert SMILES_SENTENCE in example_sentences()


@pytest.mark.parametrize("check", [check_clues_for_smiles, check_clue_share])
def test_stub_is_not_attempted(check, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(stub) is False
    assert "not attempted yet" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ([3, 0, 8], "should return a dict"),
        ({"subject": 3, "mood": 0}, "exactly the keys"),
        ({**RIGHT, "subject": "fox"}, "whole number"),
        ({k: v + 1 for k, v in RIGHT.items()}, "one too high"),
        ({**RIGHT, "subject": WORDS.index("streets")}, "nearest noun"),
        ({**RIGHT, "subject": 2}, "the one who smiles"),
        ({**RIGHT, "mood": 1}, "how the fox feels"),
        ({**RIGHT, "previous": 7}, "right before"),
        ({**RIGHT, "previous": 9}, "itself"),
        ({**RIGHT, "previous": 10}, "comes after"),
        ({**RIGHT, "mood": 11}, "outside the sentence"),
    ],
)
def test_clue_mistakes(answer, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_clues_for_smiles(lambda words: answer)


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda w, p: w[:, p].mean(dim=-1), "average"),
        (lambda w, p: w[p].sum(dim=-1), "picked rows"),
        (lambda w, p: w[:, p].sum(dim=0), "one number per clue position"),
        (lambda w, p: w.sum(dim=0), "added up the heads"),
        (lambda w, p: 100 * w[:, p].sum(dim=-1), "fraction"),
        (lambda w, p: w[:, p[0]], "the share of this head"),
        (lambda w, p: w[:, p].sum(dim=-1).tolist(), "torch tensor"),
        (lambda w, p: w[:, p].sum(dim=-1) if len(p) > 1 else w[:, p], r"shape \[4, 1\]"),
    ],
)
def test_clue_share_mistakes(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_clue_share(wrong)
