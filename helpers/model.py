"""The course's small language model: embeddings, one attention layer, an output layer.

Width 128, vocabulary 1,024, context 128. One head: 328,704 parameters; four heads: 345,216.
Making a model changes nothing outside it: torch's thread count is set by training (helpers.threads).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass

import torch
from torch import nn

from helpers import guards
from helpers.attention import MultiHeadAttention


@dataclass(frozen=True)
class CourseConfig:
    """Sizes of the course model. out_proj defaults to True exactly when there is more than one head."""

    heads: int = 1
    width: int = 128
    vocab_size: int = 1024
    context: int = 128
    out_proj: bool | None = None

    def __post_init__(self) -> None:
        for name in ("heads", "width", "vocab_size", "context"):
            guards.check_counts(**{name: getattr(self, name)})
        guards.check_heads_divide_width(self.width, self.heads)
        if self.out_proj not in (None, True, False):
            raise ValueError(f"out_proj must be True, False or None (automatic), got {self.out_proj!r}")
        if self.out_proj is None:
            object.__setattr__(self, "out_proj", self.heads > 1)

    def to_dict(self) -> dict:
        return asdict(self)


class LanguageModel(nn.Module, ABC):
    """What every model of the series shares: word ids in, scores over the vocabulary for the next word out.

    It holds the sizes (`config`), the tokenizer (set when loaded or trained), the checked word + position
    embedding, and names the attention layer whose heads the chapters watch and switch off.
    """

    def __init__(self, config: CourseConfig) -> None:
        super().__init__()
        self.config = config
        self.tok_emb = nn.Embedding(config.vocab_size, config.width)
        self.pos_emb = nn.Embedding(config.context, config.width)
        self.tokenizer = None  # set by helpers.load_model or helpers.train

    @property
    @abstractmethod
    def attention_layer(self) -> MultiHeadAttention:
        """The layer whose weights forward(..., return_attention=True) returns."""

    def check_ids(self, token_ids: torch.Tensor) -> torch.Tensor:
        """Return token_ids as [B, T] after checking type, rank, length and range."""
        return guards.check_token_ids(token_ids, self.config.vocab_size, self.config.context)

    def embed(self, token_ids: torch.Tensor) -> torch.Tensor:
        """Checked token_ids -> each word's vector plus its position's vector, [B, T, C]."""
        idx = self.check_ids(token_ids)  # [B, T]
        pos = torch.arange(idx.shape[1], device=idx.device)  # [T]
        return self.tok_emb(idx) + self.pos_emb(pos)  # [B, T, C]


class CourseModel(LanguageModel):
    """token + position embedding -> attention added back to its input -> scores over the vocabulary."""

    def __init__(self, config: CourseConfig) -> None:
        super().__init__(config)
        self.attn = MultiHeadAttention(config.width, config.heads, out_proj=bool(config.out_proj))
        self.lm_head = nn.Linear(config.width, config.vocab_size)

    @property
    def attention_layer(self) -> MultiHeadAttention:
        return self.attn

    def forward(
        self, token_ids: torch.Tensor, return_attention: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """token_ids [B, T] (or [T]) -> logits [B, T, vocab]; with attention [B, H, T, T] if asked."""
        x = self.embed(token_ids)  # [B, T, C]
        y, att = self.attn(x, need_weights=return_attention)  # [B, T, C], [B, H, T, T] or None
        x = x + y  # residual: attention adds what it found to each word
        logits = self.lm_head(x)  # [B, T, vocab]
        return (logits, att) if return_attention else logits


def course_model(
    heads: int = 1, seed: int | None = 0, out_proj: bool | None = None, **sizes: int
) -> CourseModel:
    """The course model with `heads` heads (1 or 4 in the course), freshly initialised from `seed`.

    out_proj=None keeps the course's choice (an output projection only with several heads); True or False
    forces it, for the control that tells the heads apart from the projection's 16,512 extra parameters.
    """
    config = CourseConfig(heads=heads, out_proj=out_proj, **sizes)
    if seed is not None:
        torch.manual_seed(seed)
    return CourseModel(config)


def count_parameters(model: nn.Module) -> int:
    """Number of learnable numbers in a model."""
    if not isinstance(model, nn.Module):
        raise ValueError(f"count_parameters needs a torch model (nn.Module), got {type(model).__name__}")
    return sum(p.numel() for p in model.parameters())


def attention_layer_size(width: int, heads: int, out_proj: bool = True) -> dict[str, int]:
    """Head width and parameter counts of one multi-head attention layer (no q/k/v bias)."""
    guards.check_counts(width=width, heads=heads)
    guards.check_heads_divide_width(width, heads)
    qkv = 3 * width * width
    proj = width * width + width if out_proj else 0
    return {"width": width, "heads": heads, "head_width": width // heads, "qkv_params": qkv,
            "out_proj_params": proj, "attention_params": qkv + proj}

