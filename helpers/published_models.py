"""Attention in today's models: one layer's sizes, computed from published configurations.

The course's rows (768/12, 4096/32) use the course's own layer: query, key and value without biases, an
output projection with one. Real models differ in two ways that change the count: some add biases
everywhere (GPT-2), and many share keys and values between groups of query heads: multi-query attention
(Shazeer 2019, one key/value head for all) and grouped-query attention (Ainslie et al. 2023, a few).
"""

from __future__ import annotations

from dataclasses import dataclass

from helpers.model import attention_layer_size


@dataclass(frozen=True)
class AttentionLayer:
    """One attention layer as a published configuration describes it."""

    name: str
    width: int  # numbers per word going in and coming out
    query_heads: int
    kv_heads: int  # heads with their own keys and values; query heads share them in equal groups
    head_width: int
    qkv_bias: bool
    out_bias: bool
    source: str  # where the configuration is published

    @property
    def params(self) -> int:
        """Learned numbers in the layer: query, key and value projections, then the output projection."""
        q_out = self.query_heads * self.head_width  # [C] -> [Hq * D]
        kv_out = self.kv_heads * self.head_width  # [C] -> [Hkv * D], once for keys and once for values
        projections = self.width * (q_out + 2 * kv_out) + (q_out + 2 * kv_out) * self.qkv_bias
        return projections + q_out * self.width + self.width * self.out_bias

    @property
    def kind(self) -> str:
        """multi-head (every head its own keys and values), multi-query (one shared) or grouped-query."""
        if self.kv_heads == self.query_heads:
            return "multi-head"
        if self.kv_heads == 1:
            return "multi-query"
        return f"grouped-query ({self.query_heads // self.kv_heads} query heads per key/value head)"

    @property
    def kv_per_word(self) -> int:
        """Numbers a model must keep for every word already read (its keys and values), in this layer."""
        return 2 * self.kv_heads * self.head_width


def course_layer(width: int, heads: int) -> AttentionLayer:
    """The course's layer at a given size: no query/key/value biases, an output projection with bias."""
    size = attention_layer_size(width, heads)
    return AttentionLayer(f"course's layer {width}/{heads}", width, heads, heads, size["head_width"],
                          qkv_bias=False, out_bias=True, source="the course's table of sizes")


PUBLISHED = (
    AttentionLayer("GPT-2 small", 768, 12, 12, 64, qkv_bias=True, out_bias=True,
                   source="Radford et al. 2019, released GPT-2 configuration"),
    AttentionLayer("LLaMA-7B", 4096, 32, 32, 128, qkv_bias=False, out_bias=False, source="Touvron et al. 2023"),
    AttentionLayer("Llama 3 8B", 4096, 32, 8, 128, qkv_bias=False, out_bias=False,
                   source="Llama Team, Meta 2024 (The Llama 3 Herd of Models)"),
    AttentionLayer("Mistral 7B", 4096, 32, 8, 128, qkv_bias=False, out_bias=False, source="Jiang et al. 2023"),
    AttentionLayer("Gemma 2B", 2048, 8, 1, 256, qkv_bias=False, out_bias=False, source="Gemma Team 2024"),
)
"""One attention layer of each model, from its published configuration (every layer of a model is alike)."""


def heads_table() -> list[AttentionLayer]:
    """The course's two large rows, labelled as the course's layer, then the published models."""
    return [course_layer(768, 12), course_layer(4096, 32), *PUBLISHED]
