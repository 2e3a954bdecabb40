"""The chapter 4 checks accept the reference answers and explain the usual mistakes."""

from __future__ import annotations

import pytest
import torch

from helpers.checks import todo
from helpers.checks.ch04 import check_count_attention_parameters, check_merge_heads, check_split_heads


def split_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    B, T, C = x.shape
    return x.view(B, T, heads, C // heads).transpose(1, 2)


def merge_heads(y: torch.Tensor) -> torch.Tensor:
    B, H, T, D = y.shape
    return y.transpose(1, 2).reshape(B, T, H * D)


def count(width: int, heads: int) -> int:
    return 3 * width * width + width * width + width


def stub(*args: object) -> None:
    todo()


def test_references_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_split_heads(split_heads) is True
    assert check_merge_heads(merge_heads) is True
    assert check_count_attention_parameters(count) is True
    assert capsys.readouterr().out.count("correct") == 3


@pytest.mark.parametrize("check", [check_split_heads, check_merge_heads, check_count_attention_parameters])
def test_stub_is_not_attempted(check, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(stub) is False
    assert "not attempted yet" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda x, h: x.view(x.shape[0], h, x.shape[1], x.shape[2] // h), "reshaped straight to"),
        (lambda x, h: x.view(x.shape[0], x.shape[1], x.shape[2] // h, h).permute(0, 3, 1, 2),
         r"head 0 got one number out of every 3 \(columns 0, 3, 6, \.\.\.\)"),
        (lambda x, h: x.view(x.shape[0], x.shape[1], h, x.shape[2] // h),
         r"the heads are not in front yet.*\[2, 5, 3, 4\].*Add \.transpose\(1, 2\)"),
        (lambda x, h: split_heads(x, h).numpy(), "torch tensor"),
        (lambda x, h: split_heads(x, h).flip(2), "word and column"),
    ],
)
def test_split_heads_mistakes(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_split_heads(wrong)


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda y: y, "still has shape"),
        (lambda y: y.reshape(y.shape[0], y.shape[2], -1), "without moving the head dimension"),
        (lambda y: y.transpose(1, 2).reshape(y.shape[0], y.shape[2], -1).flip(2), "original back"),
        (lambda y: y.transpose(1, 2).reshape(y.shape[0], -1), r"shape \[2, 60\]"),
        (lambda y: y.transpose(1, 2).view(y.shape[0], y.shape[2], -1), r"Use \.reshape\(B, T, H \* D\)"),
    ],
)
def test_merge_heads_mistakes(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_merge_heads(wrong)


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda w, h: h * 3 * w * w + w * w + w, "multiplied the query/key/value"),
        (lambda w, h: 3 * w * w, "forgot the output projection"),
        (lambda w, h: 3 * w * w + (w * w + w if h > 1 else 0),
         r"\(128, 1\): you left the output projection out for a single head.*for heads=1 too"),
        (lambda w, h: 4 * w * w, "also has a bias"),
        (lambda w, h: float(count(w, h)), "whole number"),
        (lambda w, h: count(w, h) + h, "expected"),
    ],
)
def test_count_mistakes(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_count_attention_parameters(wrong)
