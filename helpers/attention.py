"""Attention from scratch: one spotlight, one head, several heads.

Everything the chapters build by hand ends up here, so later chapters can import it.
Shapes use B = batch, T = number of words, C = width, H = heads, D = width per head.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from helpers import guards


def causal_mask(n_words: int, device: torch.device | str | None = None) -> torch.Tensor:
    """[T, T] boolean grid, True where a word may look: itself and the words before it."""
    guards.check_causal_mask_size(n_words)
    return torch.ones(n_words, n_words, dtype=torch.bool, device=device).tril()


def spotlight(
    scores: torch.Tensor, values: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Turn match scores into weights that sum to 1, then take the weighted average of values.

    scores: [..., T_query, T_key]   how well each looking word matches each word looked at
    values: [..., T_key, D]         what each word looked at has to offer
    mask:   [T_query, T_key] bool   True where looking is allowed (broadcast over leading dims)
    returns (output [..., T_query, D], weights [..., T_query, T_key])
    """
    guards.check_spotlight(scores, values)
    if mask is not None:
        guards.check_mask(mask, scores)
        scores = scores.masked_fill(~mask, float("-inf"))  # forbidden spots get weight 0
    weights = torch.softmax(scores, dim=-1)  # [..., Tq, Tk], each row sums to 1
    output = weights @ values  # [..., Tq, D], weighted average of the values
    return output, weights


def _layer_mask(mask: torch.Tensor | None, n_words: int, device: torch.device) -> torch.Tensor:
    """The mask a layer uses: causal unless the caller gives one [T, T] grid."""
    if mask is None:
        return causal_mask(n_words, device)
    guards.check_layer_mask(mask, n_words)
    return mask


class AttentionHead(nn.Module):
    """One head: learned query, key and value projections, scaled dot product, causal mask."""

    def __init__(self, width: int, head_width: int | None = None) -> None:
        super().__init__()
        head_width = width if head_width is None else head_width
        guards.check_counts(width=width, head_width=head_width)
        self.width, self.head_width = width, head_width
        self.query = nn.Linear(width, head_width, bias=False)
        self.key = nn.Linear(width, head_width, bias=False)
        self.value = nn.Linear(width, head_width, bias=False)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """x [B, T, C] -> (y [B, T, D], att [B, T, T]). mask defaults to causal."""
        guards.check_layer_input(x, self.width, self.query.weight.dtype)
        T = x.shape[1]
        q = self.query(x)  # [B, T, D] what each word is looking for
        k = self.key(x)  # [B, T, D] what each word offers to be found by
        v = self.value(x)  # [B, T, D] what each word hands over when looked at
        scores = q @ k.transpose(-2, -1) / self.head_width**0.5  # [B, T, T]
        mask = _layer_mask(mask, T, x.device)  # [T, T]
        y, att = spotlight(scores, v, mask)  # [B, T, D], [B, T, T]
        return y, att


def split_heads(t: torch.Tensor, heads: int) -> torch.Tensor:
    """[B, T, C] -> [B, H, T, D]: each word's C numbers cut into `heads` slices of D, heads put before words."""
    B, T, C = t.shape
    return t.view(B, T, heads, C // heads).transpose(1, 2)  # [B, T, H, D] -> [B, H, T, D]


def merge_heads(y: torch.Tensor) -> torch.Tensor:
    """[B, H, T, D] -> [B, T, H*D]: undoes split_heads, each word's slices side by side again."""
    B, H, T, D = y.shape
    return y.transpose(1, 2).reshape(B, T, H * D)  # reshape copies: after transpose, view cannot


class MultiHeadAttention(nn.Module):
    """Several heads that split the width: each matches on its own slice, then one projection mixes them.

    Width 128 with 4 heads gives each head 32 numbers, not a full copy of 128.
    With heads=1 and out_proj=False it is exactly one AttentionHead of full width.
    """

    def __init__(self, width: int, heads: int, out_proj: bool = True) -> None:
        super().__init__()
        guards.check_heads_divide_width(width, heads)
        self.width, self.heads, self.head_width = width, heads, width // heads
        # all heads' projections live in one matrix each; columns h*D:(h+1)*D belong to head h
        self.query = nn.Linear(width, width, bias=False)
        self.key = nn.Linear(width, width, bias=False)
        self.value = nn.Linear(width, width, bias=False)
        self.proj = nn.Linear(width, width) if out_proj else None

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = True
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """x [B, T, C] -> (y [B, T, C], att [B, H, T, T]); att is None when need_weights=False.

        need_weights=False runs torch's fused kernel (same arithmetic, faster, used in training).
        """
        guards.check_layer_input(x, self.width, self.query.weight.dtype)
        T = x.shape[1]
        q = split_heads(self.query(x), self.heads)  # [B, H, T, D]
        k = split_heads(self.key(x), self.heads)  # [B, H, T, D]
        v = split_heads(self.value(x), self.heads)  # [B, H, T, D]
        mask = _layer_mask(mask, T, x.device)  # [T, T]
        if need_weights:
            scores = q @ k.transpose(-2, -1) / self.head_width**0.5  # [B, H, T, T]
            y, att = spotlight(scores, v, mask)  # [B, H, T, D], [B, H, T, T]
        else:
            y, att = F.scaled_dot_product_attention(q, k, v, attn_mask=mask), None  # [B, H, T, D]
        y = merge_heads(y)  # heads side by side again: [B, T, H*D] = [B, T, C]
        if self.proj is not None:
            y = self.proj(y)  # [B, T, C], one mix of all heads' findings
        return y, att
