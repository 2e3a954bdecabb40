"""The chapter 2 checks accept the reference, report stubs, and explain each kind of wrong answer."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from helpers.attention import causal_mask
from helpers.checks import todo
from helpers.checks.ch02 import check_masked_weights, check_one_head, check_scaled_scores

FUTURE = float("-inf")
NOTEBOOK_T, NOTEBOOK_C, NOTEBOOK_D = 9, 8, 4  # chapter 2's sentence and widths: a learner may type these in


def good_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return q @ k.T / q.shape[-1] ** 0.5


def good_weights(scores: torch.Tensor) -> torch.Tensor:
    return torch.softmax(scores.masked_fill(~causal_mask(scores.shape[-1]), FUTURE), dim=-1)


def head_with(scores_fn, weights_fn=good_weights, output="v"):
    """A one_head built from the given pieces, to make each kind of mistake on purpose."""

    def one_head(x: torch.Tensor, query: nn.Linear, key: nn.Linear, value: nn.Linear):
        q, k, v = query(x), key(x), value(x)
        att = weights_fn(scores_fn(q, k))
        return att @ {"q": q, "k": k, "v": v}[output], att

    return one_head


def scaled_by_the_input_width(x: torch.Tensor, query: nn.Linear, key: nn.Linear, value: nn.Linear):
    """A one_head that divides by the square root of the word width C instead of the head width D."""
    q, k, v = query(x), key(x), value(x)
    att = good_weights(q @ k.T / x.shape[-1] ** 0.5)
    return att @ v, att


def test_references_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_scaled_scores(good_scores) is True
    assert check_masked_weights(good_weights) is True
    assert check_one_head(head_with(good_scores)) is True
    out = capsys.readouterr().out
    for name in ("scaled_scores", "masked_weights", "one_head"):
        assert f"{name}: correct" in out


@pytest.mark.parametrize("check", [check_scaled_scores, check_masked_weights, check_one_head])
def test_stubs_are_not_attempted(check, capsys: pytest.CaptureFixture[str]) -> None:
    def stub(*args):
        todo()

    assert check(stub) is False
    out = capsys.readouterr().out
    assert "not attempted yet" in out and "correct" not in out


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda q, k: q @ k.T, "divide them by sqrt"),
        (lambda q, k: q @ k.T / q.shape[-1], "divide by its square root"),
        (lambda q, k: k @ q.T / q.shape[-1] ** 0.5, "rows and columns swapped"),
        (lambda q, k: q @ k.T / 4, "read d from q.shape"),
        (lambda q, k: q.T @ k, "shape"),
    ],
)
def test_scaled_scores_wrong_answers_explain(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_scaled_scores(wrong)


def _tril(n: int, diagonal: int = 0) -> torch.Tensor:
    return torch.ones(n, n, dtype=torch.bool).tril(diagonal)


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda s: torch.softmax(s, dim=-1), "peeking at the future"),
        (lambda s: torch.softmax(s.masked_fill(~_tril(len(s)), 0.0), dim=-1), "exp\\(0\\) = 1"),
        (lambda s: torch.softmax(s, dim=-1) * _tril(len(s)), "before the softmax, not after"),
        (lambda s: torch.softmax(s.masked_fill(~_tril(len(s), -1), FUTURE), dim=-1), "diagonal"),
        (lambda s: torch.softmax(s.masked_fill(~_tril(len(s)), FUTURE), dim=0), "softmax ran over dim=0"),
        (lambda s: torch.softmax(s.masked_fill(_tril(len(s)), FUTURE), dim=-1), "mask is the wrong way round"),
        (lambda s: s.masked_fill(~_tril(len(s)), 0.0), "negative weight"),
        (lambda s: good_weights(s / 2), "differs from the reference"),
        (lambda s: good_weights(s)[1:], "shape"),
        (lambda s: torch.softmax(s.masked_fill(~causal_mask(NOTEBOOK_T), FUTURE), dim=-1),
         r"built with the notebook's T .* Use causal_mask\(scores.shape\[-1\]\)"),
    ],
)
def test_masked_weights_wrong_answers_explain(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_masked_weights(wrong)


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (head_with(lambda q, k: q @ k.T), "forgot to scale"),
        (head_with(lambda q, k: k @ q.T / q.shape[-1] ** 0.5), "swapped queries and keys"),
        (head_with(good_scores, lambda s: torch.softmax(s, dim=-1)), "peeking at the future"),
        (head_with(good_scores, output="k"), "averaged the keys"),
        (head_with(good_scores, output="q"), "averaged the queries"),
        (head_with(lambda q, k: q @ k.T / q.shape[-1]), "by D = 3 itself; divide by its square root"),
        (lambda x, q, k, v: head_with(good_scores)(x, q, k, v)[0], "two things"),
        (lambda x, q, k, v: head_with(good_scores)(x, q, k, v)[::-1], "shape"),
        (head_with(good_scores, lambda s: torch.softmax(s.masked_fill(~causal_mask(NOTEBOOK_T), FUTURE), dim=-1)),
         r"not on the notebook's sentence.*causal_mask\(scores.shape\[-1\]\)"),
        (scaled_by_the_input_width, r"divided the scores by sqrt\(C\) = sqrt\(6\), the width of a word vector"),
        (head_with(lambda q, k: q @ k.T / NOTEBOOK_C**0.5), r"about 2.83, the square root of 8.*not the notebook's"),
        (head_with(lambda q, k: q @ k.T / NOTEBOOK_D**0.5), r"about 2.00, the square root of 4.*q.shape\[-1\]"),
    ],
)
def test_one_head_wrong_answers_explain(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_one_head(wrong)


def test_one_head_check_leaves_the_global_seed_alone() -> None:
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    check_one_head(head_with(good_scores))
    assert torch.equal(torch.rand(3), expected)
