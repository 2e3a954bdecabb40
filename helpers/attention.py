"""Attention from scratch: one spotlight, one head, several heads.

Everything the chapters build by hand ends up here, so later chapters can import it.
Shapes use B = batch, T = number of words, C = width, H = heads, D = width per head.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def _shape(t: torch.Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def is_count(n: object) -> bool:
    """True for a whole number >= 1 (bools and floats are not counts)."""
    return isinstance(n, int) and not isinstance(n, bool) and n >= 1


def _check_float_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name} must be a torch tensor, got {type(t).__name__}")
    if not t.is_floating_point():
        raise ValueError(f"{name} must hold floating-point numbers, got dtype {t.dtype}")


def causal_mask(n_words: int, device: torch.device | str | None = None) -> torch.Tensor:
    """[T, T] boolean grid, True where a word may look: itself and the words before it."""
    if not is_count(n_words):
        raise ValueError(f"causal_mask needs a whole number of words >= 1, got {n_words!r}")
    return torch.ones(n_words, n_words, dtype=torch.bool, device=device).tril()


def _broadcast(a: torch.Tensor, b: torch.Tensor, drop: int = 0) -> torch.Size | None:
    """The shape a and b broadcast to (ignoring their last `drop` sizes), or None if they cannot."""
    try:
        return torch.broadcast_shapes(a.shape[: a.dim() - drop], b.shape[: b.dim() - drop])
    except RuntimeError:
        return None


def _check_mask(mask: torch.Tensor, scores: torch.Tensor) -> None:
    q_len, k_len = scores.shape[-2], scores.shape[-1]
    if not isinstance(mask, torch.Tensor):
        raise ValueError(f"the mask must be a boolean torch tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise ValueError(f"the mask must be boolean (True = may look), got dtype {mask.dtype}")
    if mask.shape[-2:] != (q_len, k_len):
        raise ValueError(
            f"the mask is {_shape(mask)} but the scores are {_shape(scores)}: "
            f"its last two sizes must be [{q_len}, {k_len}] (words that look, words looked at)"
        )
    if mask.dim() > scores.dim() or _broadcast(mask, scores) != scores.shape:
        raise ValueError(f"mask {_shape(mask)} does not fit the scores {_shape(scores)} in its batch sizes")
    if not bool(mask.any(dim=-1).all()):
        raise ValueError("every word must be allowed to look at something: a mask row is all False")


def spotlight(
    scores: torch.Tensor, values: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Turn match scores into weights that sum to 1, then take the weighted average of values.

    scores: [..., T_query, T_key]   how well each looking word matches each word looked at
    values: [..., T_key, D]         what each word looked at has to offer
    mask:   [T_query, T_key] bool   True where looking is allowed (broadcast over leading dims)
    returns (output [..., T_query, D], weights [..., T_query, T_key])
    """
    _check_float_tensor("scores", scores)
    _check_float_tensor("values", values)
    if scores.dtype != values.dtype:
        raise ValueError(f"scores are {scores.dtype} but values are {values.dtype}: use one dtype for both")
    if scores.dim() < 2:
        raise ValueError(f"scores need at least 2 dimensions [query, key], got {_shape(scores)}")
    if values.dim() < 2:
        raise ValueError(f"values need at least 2 dimensions [key, features], got {_shape(values)}")
    if scores.shape[-1] != values.shape[-2]:
        raise ValueError(
            f"scores {_shape(scores)} score {scores.shape[-1]} words, "
            f"but values {_shape(values)} hold {values.shape[-2]} words: they must match"
        )
    if scores.shape[-1] == 0:
        raise ValueError(f"scores {_shape(scores)} have no words to look at: need at least one")
    if _broadcast(scores, values, drop=2) is None:
        raise ValueError(f"scores {_shape(scores)} and values {_shape(values)} disagree in their batch sizes")
    if mask is not None:
        _check_mask(mask, scores)
        scores = scores.masked_fill(~mask, float("-inf"))  # forbidden spots get weight 0
    weights = torch.softmax(scores, dim=-1)  # [..., Tq, Tk], each row sums to 1
    output = weights @ values  # [..., Tq, D], weighted average of the values
    return output, weights


def _layer_mask(mask: torch.Tensor | None, n_words: int, device: torch.device) -> torch.Tensor:
    """The mask a layer uses: causal by default, else a checked [T, T] boolean grid."""
    if mask is None:
        return causal_mask(n_words, device)
    if not isinstance(mask, torch.Tensor) or mask.dim() != 2:
        got = _shape(mask) if isinstance(mask, torch.Tensor) else type(mask).__name__
        raise ValueError(f"the mask must be a 2-D [words, words] grid, got {got}")
    _check_mask(mask, torch.empty(n_words, n_words))
    return mask


def _check_input(x: torch.Tensor, width: int, dtype: torch.dtype) -> None:
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"attention needs a torch tensor [batch, words, width], got {type(x).__name__}")
    if x.dim() != 3:
        raise ValueError(
            f"attention needs a 3-D input [batch, words, width], got {_shape(x)} "
            f"(for one sentence, add a batch dimension with x.unsqueeze(0))"
        )
    if x.shape[-1] != width:
        raise ValueError(f"input is {_shape(x)} but this layer expects width {width} in the last dimension")
    if not x.is_floating_point():
        raise ValueError(f"attention needs floating-point input, got dtype {x.dtype}")
    if x.dtype != dtype:
        raise ValueError(f"input is {x.dtype} but the layer's weights are {dtype}: use x.to({dtype})")
    if x.shape[1] == 0:
        raise ValueError(f"input is {_shape(x)}: it has no words, attention needs at least one")


class AttentionHead(nn.Module):
    """One head: learned query, key and value projections, scaled dot product, causal mask."""

    def __init__(self, width: int, head_width: int | None = None) -> None:
        super().__init__()
        head_width = width if head_width is None else head_width
        if not (is_count(width) and is_count(head_width)):
            raise ValueError(
                f"width and head_width must be whole numbers >= 1, got {width!r} and {head_width!r}"
            )
        self.width, self.head_width = width, head_width
        self.query = nn.Linear(width, head_width, bias=False)
        self.key = nn.Linear(width, head_width, bias=False)
        self.value = nn.Linear(width, head_width, bias=False)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """x [B, T, C] -> (y [B, T, D], att [B, T, T]). mask defaults to causal."""
        _check_input(x, self.width, self.query.weight.dtype)
        T = x.shape[1]
        q = self.query(x)  # [B, T, D] what each word is looking for
        k = self.key(x)  # [B, T, D] what each word offers to be found by
        v = self.value(x)  # [B, T, D] what each word hands over when looked at
        scores = q @ k.transpose(-2, -1) / self.head_width**0.5  # [B, T, T]
        mask = _layer_mask(mask, T, x.device)  # [T, T]
        y, att = spotlight(scores, v, mask)  # [B, T, D], [B, T, T]
        return y, att


class MultiHeadAttention(nn.Module):
    """Several heads that split the width: each matches on its own slice, then one projection mixes them.

    Width 128 with 4 heads gives each head 32 numbers, not a full copy of 128.
    With heads=1 and out_proj=False it is exactly one AttentionHead of full width.
    """

    def __init__(self, width: int, heads: int, out_proj: bool = True) -> None:
        super().__init__()
        if not is_count(heads):
            raise ValueError(f"need a whole number of heads >= 1, got heads={heads!r}")
        if not is_count(width):
            raise ValueError(f"width must be a whole number >= 1, got {width!r}")
        if width % heads != 0:
            raise ValueError(
                f"width {width} is not divisible by {heads} heads: "
                f"each head gets an equal slice, so pick a head count that divides {width}"
            )
        self.width, self.heads, self.head_width = width, heads, width // heads
        # all heads' projections live in one matrix each; columns h*D:(h+1)*D belong to head h
        self.query = nn.Linear(width, width, bias=False)
        self.key = nn.Linear(width, width, bias=False)
        self.value = nn.Linear(width, width, bias=False)
        self.proj = nn.Linear(width, width) if out_proj else None

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        B, T, _ = t.shape
        return t.view(B, T, self.heads, self.head_width).transpose(1, 2)  # [B, T, C] -> [B, H, T, D]

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = True
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """x [B, T, C] -> (y [B, T, C], att [B, H, T, T]); att is None when need_weights=False.

        need_weights=False runs torch's fused kernel (same arithmetic, faster, used in training).
        """
        _check_input(x, self.width, self.query.weight.dtype)
        B, T, C = x.shape
        q = self._split(self.query(x))  # [B, H, T, D]
        k = self._split(self.key(x))  # [B, H, T, D]
        v = self._split(self.value(x))  # [B, H, T, D]
        mask = _layer_mask(mask, T, x.device)  # [T, T]
        if need_weights:
            scores = q @ k.transpose(-2, -1) / self.head_width**0.5  # [B, H, T, T]
            y, att = spotlight(scores, v, mask)  # [B, H, T, D], [B, H, T, T]
        else:
            y, att = F.scaled_dot_product_attention(q, k, v, attn_mask=mask), None  # [B, H, T, D]
        y = y.transpose(1, 2).reshape(B, T, C)  # heads side by side again: [B, T, H*D] = [B, T, C]
        if self.proj is not None:
            y = self.proj(y)  # [B, T, C], one mix of all heads' findings
        return y, att
