"""The transformer block: attention plus a feed-forward part, each added back onto its input.

    x = x + attn(ln1(x))   # attention: words exchange information
    x = x + ff(ln2(x))     # feed-forward: each word is worked on by itself

`BlockModel` is the course model with its single attention layer replaced by one (or more) such blocks and
a final layer norm. Both are `helpers.model.LanguageModel`s (`config`, `tokenizer`, checked embedding, forward
with `return_attention`, `attention_layer`), so `helpers.train.train(model=...)`, the scores of
`helpers.evaluate` and the explorer work with it unchanged.
Shapes use B = batch, T = number of words, C = width, H = heads.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from helpers import guards
from helpers.attention import MultiHeadAttention
from helpers.model import CourseConfig, LanguageModel


class FeedForward(nn.Module):
    """Two linear layers with a GELU between them, applied to every word separately (no mixing of words)."""

    def __init__(self, width: int, hidden: int | None = None) -> None:
        super().__init__()
        hidden = 4 * width if hidden is None else hidden  # default: 4 x the width
        guards.check_counts(width=width)
        guards.check_counts(hidden=hidden)
        self.width, self.hidden = width, hidden
        self.up = nn.Linear(width, hidden)  # C -> 4C: room to compute
        self.act = nn.GELU()
        self.down = nn.Linear(hidden, width)  # 4C -> C: back to the word's width

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x [..., C] -> [..., C]; every word's vector goes through the same two layers on its own."""
        guards.check_feed_forward_input(x, self.width)
        return self.down(self.act(self.up(x)))  # [..., C] -> [..., 4C] -> [..., C]


class TransformerBlock(nn.Module):
    """Pre-norm transformer block: x + attn(ln1(x)), then x + ff(ln2(x)) (the second step is optional).

    With feed_forward=False the block is only normalised attention added back onto its input, so a chapter
    can measure what the feed-forward part adds.
    """

    def __init__(self, width: int, heads: int, feed_forward: bool = True, out_proj: bool = True) -> None:
        super().__init__()
        guards.check_true_or_false(feed_forward=feed_forward)
        attn = MultiHeadAttention(width, heads, out_proj=out_proj)  # checks width and heads first
        self.ln1 = nn.LayerNorm(width)
        self.attn = attn
        self.ln2 = nn.LayerNorm(width) if feed_forward else None
        self.ff = FeedForward(width) if feed_forward else None

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """x [B, T, C] -> (x [B, T, C], att [B, H, T, T] or None). mask defaults to causal."""
        # y [B, T, C]: what attention found for each word; att [B, H, T, T] (None unless asked for)
        y, att = self.attn(self.ln1(x), mask=mask, need_weights=need_weights)
        x = x + y  # add back: attention's findings join each word's vector
        if self.ff is not None:
            x = x + self.ff(self.ln2(x))  # add back: each word's own computation
        return x, att


@dataclass(frozen=True)
class BlockConfig(CourseConfig):
    """The course model's sizes, plus how many blocks to stack and whether they have a feed-forward part."""

    layers: int = 1
    feed_forward: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        guards.check_counts(layers=self.layers)
        guards.check_true_or_false(feed_forward=self.feed_forward)


class BlockModel(LanguageModel):
    """token + position embedding -> `layers` transformer blocks -> final layer norm -> scores over the vocabulary.

    forward(token_ids [B, T] or [T], return_attention=False) -> logits [B, T, vocab], or (logits,
    att [B, H, T, T]) with the first block's attention weights, as for the course model.
    """

    def __init__(self, config: BlockConfig) -> None:
        if not isinstance(config, BlockConfig):
            raise ValueError(f"BlockModel needs a BlockConfig, got {type(config).__name__}")
        super().__init__(config)
        self.blocks = nn.ModuleList(
            TransformerBlock(config.width, config.heads, config.feed_forward, out_proj=bool(config.out_proj))
            for _ in range(config.layers)
        )
        self.ln_f = nn.LayerNorm(config.width)
        self.lm_head = nn.Linear(config.width, config.vocab_size)

    @property
    def attention_layer(self) -> MultiHeadAttention:
        return self.blocks[0].attn

    def forward(
        self, token_ids: torch.Tensor, return_attention: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """token_ids [B, T] (or [T]) -> logits [B, T, vocab]; with the first block's attention if asked."""
        x = self.embed(token_ids)  # [B, T, C]
        x, att = self.blocks[0](x, need_weights=return_attention)  # [B, T, C], [B, H, T, T] or None
        for block in self.blocks[1:]:
            x, _ = block(x)  # [B, T, C]
        logits = self.lm_head(self.ln_f(x))  # [B, T, vocab]
        return (logits, att) if return_attention else logits


def block_model(
    heads: int = 4, layers: int = 1, feed_forward: bool = True, seed: int | None = 0, **sizes: int
) -> BlockModel:
    """A fresh BlockModel (course sizes unless given) initialised from `seed`."""
    config = BlockConfig(heads=heads, layers=layers, feed_forward=feed_forward, **sizes)
    if seed is not None:
        torch.manual_seed(seed)
    return BlockModel(config)
