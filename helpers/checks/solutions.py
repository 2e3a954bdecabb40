"""The solution to every exercise, written as a learner would write it, keyed by the exercise's name.

These are the only copies of the solutions. `helpers.checks.solution("softmax")` prints one for a learner
who asks (it is never run on them); `yours_or_reference` hands one to the cells below an exercise whose
answer does not pass its check yet, so the chapter still runs; the instructor edition (python -m
tools.editions) shows each one after its exercise. Every one passes its check (tests/test_checks.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from helpers.attention import causal_mask
from helpers.stories import CLUE_KINDS

ONE_HEAD, FOUR_HEADS, NO_CLEAR_WINNER = "one head", "four heads", "no clear winner"
"""The three answers `clear_winner` may give (chapter 5)."""


# Chapter 1
def weighted_average(weights, values):
    return (weights[:, None] * values).sum(dim=0)  # [T, 1] * [T, F] -> [T, F] -> [F]


def softmax(scores):
    e = (scores - scores.max(dim=-1, keepdim=True).values).exp()  # [..., T], largest is exp(0) = 1
    return e / e.sum(dim=-1, keepdim=True)  # [..., T], each row adds up to 1


# Chapter 2
def scaled_scores(q, k):
    return q @ k.T / q.shape[-1] ** 0.5  # [T, D] @ [D, T] -> [T, T]


def masked_weights(scores):
    later = ~causal_mask(scores.shape[-1])  # [T, T], True above the diagonal
    return torch.softmax(scores.masked_fill(later, float("-inf")), dim=-1)  # [T, T]


def one_head(x, query, key, value):
    q, k, v = query(x), key(x), value(x)  # [T, D] each
    att = masked_weights(scaled_scores(q, k))  # [T, T]
    return att @ v, att  # [T, D], [T, T]


# Chapter 3
def clues_for_smiles(words):
    return {
        "subject": words.index("fox"),  # one fox, so 'smiles' (not the nearer, plural 'streets')
        "mood": words.index("eagerly"),  # a happy mood: 'smiles' rather than 'sighs'
        "previous": words.index("smiles") - 1,  # the word right before
    }


def clue_share(weights, positions):
    return weights[:, positions].sum(dim=-1)  # [H, T] -> [H, len(positions)] -> [H]


# Chapter 4
def split_heads(x, heads):
    B, T, C = x.shape
    return x.view(B, T, heads, C // heads).transpose(1, 2)  # [B, T, C] -> [B, T, H, D] -> [B, H, T, D]


def merge_heads(y):
    B, H, T, D = y.shape
    return y.transpose(1, 2).reshape(B, T, H * D)  # [B, H, T, D] -> [B, T, H, D] -> [B, T, C]


def count_attention_parameters(width, heads):
    qkv = 3 * width * width  # three width x width matrices, however many heads share them
    mix = width * width + width  # the output projection: weights and biases
    return qkv + mix


# Chapter 5
def perplexity_from_losses(losses):
    return math.exp(losses.mean().item())  # average first, then one exponential


def clear_winner(runs):
    one = [run["val_ppl"] for run in runs if run["heads"] == 1]
    four = [run["val_ppl"] for run in runs if run["heads"] == 4]
    gap = sum(one) / len(one) - sum(four) / len(four)  # > 0: four heads are lower, so better
    widest = max(max(one) - min(one), max(four) - min(four))  # the wider of the two ranges over seeds
    if abs(gap) <= widest:
        return NO_CLEAR_WINNER
    return FOUR_HEADS if gap > 0 else ONE_HEAD


# Chapter 6
def name_the_detectives(board):
    heads = len(board[CLUE_KINDS[0]])
    return {h: max(CLUE_KINDS, key=lambda kind: board[kind][h]) for h in range(heads)}


def lifeline(rows, kind):
    worst = min(rows, key=lambda row: row["clue_accuracy"][kind])
    return worst["head"]


# Chapter 7
def feed_forward(ff, x):
    return ff.down(F.gelu(ff.up(x)))  # [B, T, C] -> [B, T, 4C] -> [B, T, C]


def block_step(block, x):
    y, _ = block.attn(block.ln1(x))  # [B, T, C]; the weights are not needed here
    x = x + y  # words exchanged information
    return x + block.ff(block.ln2(x))  # [B, T, C]; each word worked on what it holds


def count_block_parameters(width, heads):
    attention = 3 * width * width + (width * width + width)  # q, k, v, then the output mix with its bias
    norms = 2 * (2 * width)  # two layer norms, each a scale and a shift per number
    ff = (width * 4 * width + 4 * width) + (4 * width * width + width)  # up and down, with biases
    return attention + norms + ff


BY_CHAPTER: dict[int, tuple[Callable[..., Any], ...]] = {
    1: (weighted_average, softmax), 2: (scaled_scores, masked_weights, one_head), 3: (clues_for_smiles, clue_share),
    4: (split_heads, merge_heads, count_attention_parameters), 5: (perplexity_from_losses, clear_winner),
    6: (name_the_detectives, lifeline), 7: (feed_forward, block_step, count_block_parameters),
}
SOLUTIONS: dict[str, Callable[..., Any]] = {fn.__name__: fn for fns in BY_CHAPTER.values() for fn in fns}
"""Exercise name (its check's name without 'check_') -> its solution."""
