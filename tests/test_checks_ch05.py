"""The chapter 5 checks accept the reference answers and explain the usual mistakes."""

from __future__ import annotations

import json
import math
import statistics

import pytest
import torch

from helpers.checkpoints import ASSETS
from helpers.checks import todo
from helpers.checks.ch05 import (
    FOUR_HEADS,
    NO_CLEAR_WINNER,
    ONE_HEAD,
    check_clear_winner,
    check_perplexity_from_losses,
    winner,
)


def perplexity_from_losses(losses: torch.Tensor) -> float:
    return math.exp(losses.mean().item())


def clear_winner(runs: list[dict]) -> str:
    one = [run["val_ppl"] for run in runs if run["heads"] == 1]
    four = [run["val_ppl"] for run in runs if run["heads"] == 4]
    gap = statistics.mean(one) - statistics.mean(four)
    spread = max(max(one) - min(one), max(four) - min(four))
    if abs(gap) <= spread:
        return NO_CLEAR_WINNER
    return FOUR_HEADS if gap > 0 else ONE_HEAD


def stub(*args: object) -> None:
    todo()


def benchmark_runs() -> list[dict]:
    return json.loads((ASSETS / "results.json").read_text())["table"]["runs"]


def test_references_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_perplexity_from_losses(perplexity_from_losses) is True
    assert check_perplexity_from_losses(lambda losses: losses.mean().exp()) is True  # a 0-d tensor is fine
    assert check_clear_winner(clear_winner, benchmark_runs()) is True
    assert capsys.readouterr().out.count("correct") == 3


@pytest.mark.parametrize("check", [check_perplexity_from_losses, check_clear_winner])
def test_stub_is_not_attempted(check, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(stub) is False
    assert "not attempted yet" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda losses: losses.mean().item(), "average loss itself"),
        (lambda losses: losses.exp().mean().item(), "exponential of every loss"),
        (lambda losses: losses.sum().item(), "added the losses up"),
        (lambda losses: math.exp(losses.sum().item()), "before the exponential"),
        (lambda losses: 2 ** losses.mean().item(), "raised 2"),
        (lambda losses: 10 ** losses.mean().item(), "raised 10"),
        (lambda losses: math.exp(-losses.mean().item()), "sign is flipped"),
        (lambda losses: losses.exp(), "one number"),
        (lambda losses: str(math.exp(losses.mean().item())), "should return a number"),
        (lambda losses: math.exp(losses.median().item()), "e to the power of their average"),
        (lambda losses: math.exp(losses.mean().item()) if len(losses) > 6 else 3.0, "perplexity of 4"),
    ],
)
def test_perplexity_mistakes(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_perplexity_from_losses(wrong)


def test_the_reference_winner_reads_the_gap_against_the_spread() -> None:
    runs = [{"heads": 1, "val_ppl": v} for v in (2.0, 2.1)] + [{"heads": 4, "val_ppl": v} for v in (1.5, 1.6)]
    assert winner(runs) == FOUR_HEADS
    assert winner([{**r, "heads": 5 - r["heads"]} for r in runs]) == ONE_HEAD
    assert winner(runs[:2] + [{"heads": 4, "val_ppl": v} for v in (1.0, 2.2)]) == NO_CLEAR_WINNER
    with pytest.raises(ValueError, match="1 and with 4 heads"):
        winner(runs[:2])


def test_the_benchmark_runs_are_judged_from_the_file() -> None:
    runs = benchmark_runs()
    truth = winner(runs)

    def right_on_the_examples_only(seen: list[dict]) -> str:
        if any("params" in run for run in seen):  # only the benchmark's runs carry "params"
            return next(answer for answer in (ONE_HEAD, FOUR_HEADS, NO_CLEAR_WINNER) if answer != truth)
        return clear_winner(seen)

    with pytest.raises(AssertionError, match="the benchmark's runs"):
        check_clear_winner(right_on_the_examples_only, runs)


@pytest.mark.parametrize(
    ("wrong", "reason"),
    [
        (lambda runs: {FOUR_HEADS: ONE_HEAD, ONE_HEAD: FOUR_HEADS}.get(clear_winner(runs), NO_CLEAR_WINNER),
         "Lower perplexity is better"),
        (lambda runs: FOUR_HEADS if clear_winner(runs) != ONE_HEAD else ONE_HEAD, "no larger than the range"),
        (lambda runs: NO_CLEAR_WINNER, "is larger than"),
        (lambda runs: 4, "should return one of"),
        (lambda runs: "four", "should return one of"),
    ],
)
def test_winner_mistakes(wrong, reason: str) -> None:
    with pytest.raises(AssertionError, match=reason):
        check_clear_winner(wrong)
