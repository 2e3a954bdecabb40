"""The chapter 1 checks accept the reference, report stubs, and explain each kind of wrong answer."""

from __future__ import annotations

import pytest
import torch

from helpers.checks import todo
from helpers.checks.ch01 import check_softmax, check_weighted_average


def good_softmax(scores: torch.Tensor) -> torch.Tensor:
    e = (scores - scores.max(dim=-1, keepdim=True).values).exp()
    return e / e.sum(dim=-1, keepdim=True)


def test_softmax_reference_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_softmax(good_softmax) is True
    assert "softmax: correct" in capsys.readouterr().out


def test_softmax_stub_is_not_attempted(capsys: pytest.CaptureFixture[str]) -> None:
    def stub(scores: torch.Tensor) -> torch.Tensor:
        todo()

    assert check_softmax(stub) is False
    out = capsys.readouterr().out
    assert "not attempted yet" in out and "correct" not in out


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda s: s, "negative weight"),
        (lambda s: s.exp(), "add up to"),
        (lambda s: s.exp() / s.exp().sum(), "each row must add up to 1"),
        (lambda s: s.exp() / s.exp().sum(dim=-1, keepdim=True), "Subtract the largest score"),
        (lambda s: torch.softmax(s, dim=-1)[:-1], "shape"),
        (lambda s: torch.softmax(s.abs(), dim=-1), "differs from the reference"),
        (lambda s: s.tolist(), "torch tensor"),
        (lambda s: torch.softmax(s, dim=0), "COLUMN of the weights adds up to 1"),
        (lambda s: (s - s.max(dim=0, keepdim=True).values).exp()
         / (s - s.max(dim=0, keepdim=True).values).exp().sum(dim=0, keepdim=True), "softmax ran over dim=0"),
        (lambda s: (s - s.max(dim=-1).values).exp() / (s - s.max(dim=-1).values).exp().sum(dim=-1), "keepdim=True"),
        (lambda s: s.exp() / s.exp().sum(dim=-1), "keepdim=True"),
    ],
)
def test_softmax_wrong_answers_explain(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_softmax(wrong)


def test_weighted_average_reference_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_weighted_average(lambda w, v: (w[:, None] * v).sum(dim=0)) is True
    assert "weighted_average: correct" in capsys.readouterr().out


def test_weighted_average_stub_is_not_attempted(capsys: pytest.CaptureFixture[str]) -> None:
    def stub(weights: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        todo()

    assert check_weighted_average(stub) is False
    assert "not attempted yet" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda w, v: w[:, None] * v, "did not add the words up"),
        (lambda w, v: v.mean(dim=0), "plain average"),
        (lambda w, v: w @ v / len(w), "divided by the number of words"),
        (lambda w, v: v.sum(dim=0), "differs from the reference"),
        (lambda w, v: w.sum(), "shape"),
        (lambda w, v: (w * v).sum(dim=0), r"stopped with an error .* Make the weights a column first: "
                                          r"weights\[:, None\] has shape \[3, 1\]"),
    ],
)
def test_weighted_average_wrong_answers_explain(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_weighted_average(wrong)
