"""The chapter 7 checks accept the reference answers and explain the usual mistakes."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from helpers.block import FeedForward, TransformerBlock
from helpers.checks import todo
from helpers.checks.ch07 import check_block_step, check_count_block_parameters, check_feed_forward


def feed_forward(ff: FeedForward, x: torch.Tensor) -> torch.Tensor:
    return ff.down(F.gelu(ff.up(x)))


def block_step(block: TransformerBlock, x: torch.Tensor) -> torch.Tensor:
    x = x + block.attn(block.ln1(x))[0]
    return x + block.ff(block.ln2(x))


def count(width: int, heads: int) -> int:
    attention = 4 * width * width + width
    norms = 2 * 2 * width
    ff = width * 4 * width + 4 * width + 4 * width * width + width
    return attention + norms + ff


def stub(*args: object) -> None:
    todo()


def test_references_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_feed_forward(feed_forward) is True
    assert check_block_step(block_step) is True
    assert check_count_block_parameters(count) is True
    assert capsys.readouterr().out.count("correct") == 3


def test_the_reference_count_matches_the_course_width() -> None:
    assert count(128, 4) == 197_888  # 65,664 attention + 512 layer norms + 131,712 feed-forward


@pytest.mark.parametrize("check", [check_feed_forward, check_block_step, check_count_block_parameters])
def test_stub_is_not_attempted(check, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(stub) is False
    assert "not attempted yet" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda ff, x: ff.down(ff.up(x)), "no GELU"),
        (lambda ff, x: ff.down(F.relu(ff.up(x))), "ReLU"),
        (lambda ff, x: x + feed_forward(ff, x), "added x back"),
        (lambda ff, x: F.gelu(ff.up(x)), "widened middle"),
        (lambda ff, x: feed_forward(ff, x).cumsum(dim=1), "other words"),
        (lambda ff, x: feed_forward(ff, x.mean(dim=1, keepdim=True).expand_as(x)), "other words"),
        (lambda ff, x: feed_forward(ff, x).detach().numpy(), "torch tensor"),
        (lambda ff, x: feed_forward(ff, x) * 1.01, "differs from the reference"),
        (lambda ff, x: ff.up(F.gelu(ff.down(x))), "stopped with an error"),
    ],
)
def test_feed_forward_mistakes(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_feed_forward(wrong)


def _attn(block: TransformerBlock, h: torch.Tensor) -> torch.Tensor:
    return block.attn(h)[0]


def _no_add(b, x):
    return b.ff(b.ln2(_attn(b, b.ln1(x))))


def _parallel(b, x):
    return x + _attn(b, b.ln1(x)) + b.ff(b.ln2(x))


def _normalised_stream(b, x):
    x = b.ln1(x)
    x = x + _attn(b, x)
    return x + b.ff(b.ln2(x))


def _post_norm(b, x):
    x = b.ln1(x + _attn(b, x))
    return b.ln2(x + b.ff(x))


def _no_norms(b, x):
    x = x + _attn(b, x)
    return x + b.ff(x)


def _swapped(b, x):
    x = x + _attn(b, b.ln2(x))
    return x + b.ff(b.ln1(x))


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (_no_add, "nothing is added back"),
        (lambda b, x: x + _attn(b, b.ln1(x)), "feed-forward step is missing"),
        (lambda b, x: x + b.ff(b.ln2(x)), "attention step is missing"),
        (_parallel, "read the old x"),
        (_normalised_stream, "replaced by its normalised version"),
        (_post_norm, "post-norm"),
        (_no_norms, "layer norms are missing"),
        (_swapped, "swapped"),
        (lambda b, x: (block_step(b, x), None), "returned a pair"),
        (lambda b, x: x + b.attn(b.ln1(x)), "stopped with an error"),
        (lambda b, x: block_step(b, x)[:, :-1], r"shape \[2, 4, 12\]"),
        (lambda b, x: block_step(b, x) + 0.01, "differs from the reference"),
    ],
)
def test_block_step_mistakes(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_block_step(wrong)


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda w, h: 4 * w * w + w + 8 * w * w + 5 * w, "left out the two layer norms"),
        (lambda w, h: 4 * w * w + w + 2 * w + 8 * w * w + 5 * w, "scale AND a shift"),
        (lambda w, h: 4 * w * w + w + 4 * w + 8 * w * w, "biases too"),
        (lambda w, h: 4 * w * w + w + 4 * w + 2 * w * w + 2 * w, "widens to 4 x width"),
        (lambda w, h: 3 * w * w + 4 * w + 8 * w * w + 5 * w, "output projection"),
        (lambda w, h: h * 3 * w * w + w * w + w + 4 * w + 8 * w * w + 5 * w, "split the width"),
        (lambda w, h: float(count(w, h)), "whole number"),
        (lambda w, h: count(w, h) + 1, "expected"),
    ],
)
def test_count_block_parameters_mistakes(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_count_block_parameters(wrong)
