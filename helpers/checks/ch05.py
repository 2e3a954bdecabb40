"""Checks for chapter 5 (train and compare): perplexity from losses, and calling a winner only beyond the noise."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from helpers.checks import attempt, expect, passed
from helpers.checks.solutions import FOUR_HEADS, NO_CLEAR_WINNER, ONE_HEAD
from helpers.compare import seed_margin

Runs = list[dict[str, Any]]


def perplexities(runs: Sequence[Mapping[str, Any]], heads: int) -> list[float]:
    """The validation perplexities of the runs with `heads` heads, in order."""
    return [run["val_ppl"] for run in runs if run["heads"] == heads]


def winner(runs: Sequence[Mapping[str, Any]]) -> str:
    """The reference: the model with the lower mean perplexity, if the gap is larger than the range over seeds."""
    one, four = perplexities(runs, 1), perplexities(runs, 4)
    if not one or not four:
        raise ValueError(f"need runs with 1 and with 4 heads, got heads {sorted({r['heads'] for r in runs})}")
    margin = seed_margin(one, four)
    if not margin.beats_range:
        return NO_CLEAR_WINNER
    return FOUR_HEADS if margin.gap > 0 else ONE_HEAD


def _as_number(name: str, got: Any) -> float:
    """A float from a Python number or a one-element tensor, else an explaining AssertionError."""
    if isinstance(got, torch.Tensor):
        expect(got.numel() == 1, f"{name} should return one number, got a tensor of shape {list(got.shape)}. "
                                 "Average the losses before taking the exponential.")
        got = got.item()
    expect(isinstance(got, (int, float)) and not isinstance(got, bool),
           f"{name} should return a number, got {type(got).__name__}")
    return float(got)


def _near(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6)


def check_perplexity_from_losses(perplexity_from_losses: Callable[[torch.Tensor], Any]) -> bool:
    """perplexity_from_losses(losses [N]) -> exp(mean(losses)): the losses are cross-entropies in nats."""
    name = "perplexity_from_losses"
    gen = torch.Generator().manual_seed(5)
    losses = 0.5 + 3.5 * torch.rand(12, generator=gen)  # [N]: twelve words' losses
    done, got = attempt(name, perplexity_from_losses, losses.clone())
    if not done:
        return False
    got = _as_number(name, got)
    mean = losses.mean().item()
    want = math.exp(mean)
    mistakes = [
        (mean, "you returned the average loss itself. Perplexity is e raised to that average: math.exp(...) or "
               "torch.exp(...)."),
        (losses.exp().mean().item(), "you took the exponential of every loss and then averaged. Average the "
                                     "losses first, then take one exponential of the average."),
        (losses.sum().item(), "you added the losses up. Perplexity uses their average (divide by how many)."),
        (math.exp(losses.sum().item()), "you added the losses up before the exponential. Use their average."),
        (2**mean, "you raised 2 to the average loss. The losses are natural logarithms (PyTorch's "
                  "cross-entropy), so raise e to it: math.exp."),
        (10**mean, "you raised 10 to the average loss. The losses are natural logarithms, so raise e to it."),
        (math.exp(-mean), "the sign is flipped: a loss is already minus the log of the probability, so use "
                          "exp(+average)."),
    ]
    if not _near(got, want):
        for value, reason in mistakes:
            expect(not _near(got, value), f"{name}: {reason}")
        expect(False, f"{name}: got {got:.4f} for these losses, but e to the power of their average "
                      f"({mean:.4f}) is {want:.4f}")
    even = torch.full((6,), math.log(4))  # a model torn evenly between 4 words, on every word
    got_even = _as_number(name, perplexity_from_losses(even))
    expect(_near(got_even, 4.0), f"{name}: a model that gives each of 4 words 25% has a loss of ln 4 on every "
                                 f"word and a perplexity of 4, but you returned {got_even:.4f}")
    return passed(name)


def _runs(one: Sequence[float], four: Sequence[float]) -> Runs:
    """Made-up benchmark runs: seeds 0, 1, 2 for each model, listed seed by seed like results.json."""
    runs = []
    for seed, (a, b) in enumerate(zip(one, four, strict=True)):
        runs.append({"heads": 1, "seed": seed, "val_ppl": a, "clue_accuracy": {"all": 0.6}})
        runs.append({"heads": 4, "seed": seed, "val_ppl": b, "clue_accuracy": {"all": 0.65}})
    return runs


_EXAMPLES = (
    ("four heads lower by far more than the seeds differ", _runs([2.45, 2.42, 2.43], [2.28, 2.30, 2.27])),
    ("one head lower by far more than the seeds differ", _runs([3.00, 3.10, 3.05], [3.60, 3.50, 3.55])),
    ("four heads lower on average, but by less than the seeds differ", _runs([2.40, 2.50, 2.45], [2.38, 2.47, 2.44])),
)


def _judge(name: str, clear_winner: Callable[[Runs], Any], runs: Runs, what: str) -> None:
    got = clear_winner([dict(run) for run in runs])
    answers = (ONE_HEAD, FOUR_HEADS, NO_CLEAR_WINNER)
    expect(got in answers, f"{name} should return one of {list(answers)}, got {got!r}")
    want = winner(runs)
    if got == want:
        return
    one, four = perplexities(runs, 1), perplexities(runs, 4)
    margin = seed_margin(one, four)
    means = f"mean perplexity {statistics.mean(one):.3f} with one head, {statistics.mean(four):.3f} with four"
    expect(not (want == NO_CLEAR_WINNER),
           f"{name} called {got!r} for {what} ({means}), but the gap {abs(margin.gap):.3f} is no larger than the range "
           f"over the seeds, largest minus smallest ({margin.range:.3f}): another set of seeds could reverse it. "
           f"Answer {NO_CLEAR_WINNER!r}.")
    expect(got == NO_CLEAR_WINNER,
           f"{name} called {got!r} for {what} ({means}). Lower perplexity is better: the model with the "
           "lower mean wins.")
    expect(False, f"{name} saw no clear winner for {what} ({means}), but the gap {abs(margin.gap):.3f} is larger than "
                  f"the wider range over the seeds ({margin.range:.3f}): answer {want!r}.")


def check_clear_winner(clear_winner: Callable[[Runs], Any], runs: Sequence[Mapping[str, Any]] | None = None) -> bool:
    """clear_winner(runs) -> "one head", "four heads" or "no clear winner", on made-up runs and then `runs`."""
    name = "clear_winner"
    done, _ = attempt(name, clear_winner, [dict(run) for run in _EXAMPLES[0][1]])
    if not done:
        return False
    for what, example in _EXAMPLES:
        _judge(name, clear_winner, example, what)
    if runs is not None:
        _judge(name, clear_winner, [dict(run) for run in runs], "the benchmark's runs")
    return passed(name)
