"""Input checks for the model code, kept here so `attention.py`, `model.py` and `block.py` read like the math.

Each check raises ValueError with a message a learner can act on (docs/bad_inputs.md lists them), before a
bad input reaches torch and fails deep inside it with a message about strides or dtypes.
"""

from __future__ import annotations

import torch


def shape(t: torch.Tensor) -> str:
    """A tensor's shape as the chapters write it: [2, 5, 128]."""
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def is_count(n: object) -> bool:
    """True for a whole number >= 1 (bools and floats are not counts)."""
    return isinstance(n, int) and not isinstance(n, bool) and n >= 1


def check_counts(**counts: object) -> None:
    """Every named value is a whole number >= 1 (one message names them all: "width and heads must be ...")."""
    if all(is_count(value) for value in counts.values()):
        return
    names, got = " and ".join(counts), " and ".join(repr(value) for value in counts.values())
    if len(counts) == 1:
        raise ValueError(f"{names} must be a whole number >= 1, got {got}")
    raise ValueError(f"{names} must be whole numbers >= 1, got {got}")


def check_true_or_false(**flags: object) -> None:
    """Every named value is True or False (not 1, not "yes")."""
    for name, value in flags.items():
        if value not in (True, False):
            raise ValueError(f"{name} must be True or False, got {value!r}")


def check_causal_mask_size(n_words: object) -> None:
    """A causal mask is a grid of at least one word."""
    if not is_count(n_words):
        raise ValueError(f"causal_mask needs a whole number of words >= 1, got {n_words!r}")


def check_heads_divide_width(width: object, heads: object) -> None:
    """The one rule of multi-head attention's sizes: the heads split the width into equal slices."""
    if not is_count(heads):
        raise ValueError(f"need a whole number of heads >= 1, got heads={heads!r}")
    if not is_count(width):
        raise ValueError(f"width must be a whole number >= 1, got {width!r}")
    if width % heads != 0:
        raise ValueError(
            f"width {width} is not divisible by {heads} heads: "
            f"each head gets an equal slice, so pick a head count that divides {width}"
        )


def _check_float_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name} must be a torch tensor, got {type(t).__name__}")
    if not t.is_floating_point():
        raise ValueError(f"{name} must hold floating-point numbers, got dtype {t.dtype}")


def _broadcast(a: torch.Tensor, b: torch.Tensor, drop: int = 0) -> torch.Size | None:
    """The shape a and b broadcast to (ignoring their last `drop` sizes), or None if they cannot."""
    try:
        return torch.broadcast_shapes(a.shape[: a.dim() - drop], b.shape[: b.dim() - drop])
    except RuntimeError:
        return None


def check_spotlight(scores: object, values: object) -> None:
    """scores [..., T_query, T_key] and values [..., T_key, D]: float tensors of one dtype that fit."""
    _check_float_tensor("scores", scores)
    _check_float_tensor("values", values)
    if scores.dtype != values.dtype:
        raise ValueError(f"scores are {scores.dtype} but values are {values.dtype}: use one dtype for both")
    if scores.dim() < 2:
        raise ValueError(f"scores need at least 2 dimensions [query, key], got {shape(scores)}")
    if values.dim() < 2:
        raise ValueError(f"values need at least 2 dimensions [key, features], got {shape(values)}")
    if scores.shape[-1] != values.shape[-2]:
        raise ValueError(
            f"scores {shape(scores)} score {scores.shape[-1]} words, "
            f"but values {shape(values)} hold {values.shape[-2]} words: they must match"
        )
    if scores.shape[-1] == 0:
        raise ValueError(f"scores {shape(scores)} have no words to look at: need at least one")
    if _broadcast(scores, values, drop=2) is None:
        raise ValueError(f"scores {shape(scores)} and values {shape(values)} disagree in their batch sizes")


def check_mask(mask: object, scores: torch.Tensor) -> None:
    """A boolean mask whose last two sizes are the scores' and whose batch sizes broadcast to them."""
    q_len, k_len = scores.shape[-2], scores.shape[-1]
    if not isinstance(mask, torch.Tensor):
        raise ValueError(f"the mask must be a boolean torch tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise ValueError(f"the mask must be boolean (True = may look), got dtype {mask.dtype}")
    if mask.shape[-2:] != (q_len, k_len):
        raise ValueError(
            f"the mask is {shape(mask)} but the scores are {shape(scores)}: "
            f"its last two sizes must be [{q_len}, {k_len}] (words that look, words looked at)"
        )
    if mask.dim() > scores.dim() or _broadcast(mask, scores) != scores.shape:
        raise ValueError(f"mask {shape(mask)} does not fit the scores {shape(scores)} in its batch sizes")
    if not bool(mask.any(dim=-1).all()):
        raise ValueError("every word must be allowed to look at something: a mask row is all False")


def check_layer_mask(mask: object, n_words: int) -> None:
    """A mask given to an attention layer: one [T, T] boolean grid for every sentence and head."""
    if not isinstance(mask, torch.Tensor) or mask.dim() != 2:
        got = shape(mask) if isinstance(mask, torch.Tensor) else type(mask).__name__
        raise ValueError(f"the mask must be a 2-D [words, words] grid, got {got}")
    check_mask(mask, torch.empty(n_words, n_words))


def check_layer_input(x: object, width: int, dtype: torch.dtype) -> None:
    """An attention layer's input: a float tensor [batch, words >= 1, width] in the layer's dtype."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"attention needs a torch tensor [batch, words, width], got {type(x).__name__}")
    if x.dim() != 3:
        raise ValueError(
            f"attention needs a 3-D input [batch, words, width], got {shape(x)} "
            f"(for one sentence, add a batch dimension with x.unsqueeze(0))"
        )
    if x.shape[-1] != width:
        raise ValueError(f"input is {shape(x)} but this layer expects width {width} in the last dimension")
    if not x.is_floating_point():
        raise ValueError(f"attention needs floating-point input, got dtype {x.dtype}")
    if x.dtype != dtype:
        raise ValueError(f"input is {x.dtype} but the layer's weights are {dtype}: use x.to({dtype})")
    if x.shape[1] == 0:
        raise ValueError(f"input is {shape(x)}: it has no words, attention needs at least one")


def check_feed_forward_input(x: object, width: int) -> None:
    """The feed-forward part's input: any tensor whose last size is the width."""
    if not isinstance(x, torch.Tensor) or x.dim() == 0 or x.shape[-1] != width:
        got = list(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
        raise ValueError(f"the feed-forward part needs a tensor whose last size is the width {width}, got {got}")


def check_token_ids(token_ids: object, vocab_size: int, context: int) -> torch.Tensor:
    """Word ids as [B, T] (a single sentence [T] gets a batch of one) after checking type, length and range."""
    if not isinstance(token_ids, torch.Tensor):
        raise ValueError(f"token_ids must be a torch tensor of word ids, got {type(token_ids).__name__}")
    if token_ids.dtype not in (torch.int64, torch.int32) and token_ids.numel():  # torch.tensor([]) is float
        raise ValueError(f"token_ids must hold whole numbers (torch.long), got dtype {token_ids.dtype}")
    if token_ids.dim() == 1:
        token_ids = token_ids.unsqueeze(0)
    if token_ids.dim() != 2:
        raise ValueError(f"token_ids must be [words] or [batch, words], got shape {list(token_ids.shape)}")
    B, T = token_ids.shape
    if B == 0:
        raise ValueError(f"token_ids has shape {list(token_ids.shape)}: a batch of 0 sentences")
    if T == 0:
        raise ValueError("token_ids is empty: the model needs at least one word")
    if T > context:
        raise ValueError(f"{T} words is longer than the model's context of {context}: trim to the last {context} words")
    low, high = int(token_ids.min()), int(token_ids.max())
    if low < 0 or high >= vocab_size:
        raise ValueError(f"word ids must lie in 0..{vocab_size - 1}, got values from {low} to {high}")
    return token_ids.long()


def check_head(head: object, heads: int) -> None:
    """A head index that exists in a model with `heads` heads."""
    if not isinstance(head, int) or isinstance(head, bool) or not 0 <= head < heads:
        raise ValueError(f"head must be one of 0..{heads - 1} for this {heads}-head model, got {head!r}")
