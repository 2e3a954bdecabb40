"""The finished version of every exercise, keyed by its name: what stands in for a learner's unfinished answer.

`helpers.checks.yours_or_reference` hands a chapter one of these when the learner's function does not pass its
check yet, so later cells still run. Each one is a piece the series already has in `helpers` (a layer, a
counter, the checks' own reference answers) called with the exercise's arguments; every one passes its check
(tests/test_yours_or_reference.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch import nn

from helpers.attention import AttentionHead, causal_mask, merge_heads, split_heads
from helpers.block import FeedForward, TransformerBlock
from helpers.compare import seed_margin
from helpers.model import attention_layer_size, count_parameters
from helpers.stories import CLUE_KINDS

ONE_HEAD, FOUR_HEADS, NO_CLEAR_WINNER = "one head", "four heads", "no clear winner"
"""The three answers `clear_winner` may give."""


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


def watched_most(board: Mapping[str, Sequence[float]]) -> dict[int, str]:
    """For each head, the clue kind it puts the largest share of attention on (ties: the earlier kind)."""
    heads = len(board[CLUE_KINDS[0]])
    return {h: max(CLUE_KINDS, key=lambda kind: (board[kind][h], -CLUE_KINDS.index(kind))) for h in range(heads)}


def lifeline_of(rows: Sequence[Mapping[str, Any]], kind: str) -> int:
    """The head whose removal leaves the lowest clue accuracy for `kind` (ties: the lower head number)."""
    return min(rows, key=lambda row: (row["clue_accuracy"][kind], row["head"]))["head"]


def weighted_average(weights: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """weights [T] @ values [T, F] -> [F]."""
    return weights @ values


def softmax(scores: torch.Tensor) -> torch.Tensor:
    """Each row of scores -> weights that are >= 0 and add up to 1."""
    return torch.softmax(scores, dim=-1)


def scaled_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """q [T, D], k [T, D] -> [T, T] match scores divided by sqrt(D)."""
    return q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5


def masked_weights(scores: torch.Tensor) -> torch.Tensor:
    """scores [T, T] -> softmax weights [T, T] with every later word hidden (the causal mask)."""
    return torch.softmax(scores.masked_fill(~causal_mask(scores.shape[-1]), float("-inf")), dim=-1)


def one_head(x: torch.Tensor, query: nn.Linear, key: nn.Linear, value: nn.Linear) -> tuple[torch.Tensor, torch.Tensor]:
    """x [T, C] -> (y [T, D], att [T, T]): helpers' AttentionHead with the given projections."""
    with torch.random.fork_rng(devices=[]):  # a new layer draws random numbers: keep the learner's seed
        head = AttentionHead(x.shape[-1], query.out_features)
    head.load_state_dict({"query.weight": query.weight, "key.weight": key.weight, "value.weight": value.weight})
    y, att = head(x.unsqueeze(0))  # [1, T, D], [1, T, T]
    return y[0], att[0]


def clues_for_smiles(words: list[str]) -> dict[str, int]:
    """Positions of the three clues 'smiles' needs in the sentence of exercise 1 of chapter 3."""
    return {"subject": words.index("fox"), "mood": words.index("eagerly"), "previous": words.index("smiles") - 1}


def clue_share(weights: torch.Tensor, positions: list[int]) -> torch.Tensor:
    """weights [H, T] -> [H]: each head's total weight on the clue positions."""
    return weights[:, positions].sum(dim=-1)


def count_attention_parameters(width: int, heads: int) -> int:
    """Learnable numbers in one multi-head attention layer, output projection included."""
    return attention_layer_size(width, heads)["attention_params"]


def perplexity_from_losses(losses: torch.Tensor) -> float:
    """e to the power of the average loss."""
    return math.exp(float(losses.mean()))


def clear_winner(runs: Sequence[Mapping[str, Any]]) -> str:
    """'one head', 'four heads' or 'no clear winner', as the check of chapter 5 decides it."""
    return winner(runs)


def feed_forward(ff: FeedForward, x: torch.Tensor) -> torch.Tensor:
    """The feed-forward part of helpers.block applied to x."""
    return ff(x)


def block_step(block: TransformerBlock, x: torch.Tensor) -> torch.Tensor:
    """One pass through helpers' TransformerBlock; the new x only."""
    return block(x)[0]


def count_block_parameters(width: int, heads: int) -> int:
    """Learnable numbers in one TransformerBlock, counted on the meta device (shapes only, nothing allocated)."""
    with torch.device("meta"):
        return count_parameters(TransformerBlock(width, heads))


REFERENCES: dict[str, Callable[..., Any]] = {
    "weighted_average": weighted_average,
    "softmax": softmax,
    "scaled_scores": scaled_scores,
    "masked_weights": masked_weights,
    "one_head": one_head,
    "clues_for_smiles": clues_for_smiles,
    "clue_share": clue_share,
    "split_heads": split_heads,
    "merge_heads": merge_heads,
    "count_attention_parameters": count_attention_parameters,
    "perplexity_from_losses": perplexity_from_losses,
    "clear_winner": clear_winner,
    "name_the_detectives": watched_most,
    "lifeline": lifeline_of,
    "feed_forward": feed_forward,
    "block_step": block_step,
    "count_block_parameters": count_block_parameters,
}
"""Exercise name (its check's name without 'check_') -> the finished version that stands in for it."""
