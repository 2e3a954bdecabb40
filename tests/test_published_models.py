"""The table of heads in today's models (04_multi_head_attention's checked cell e12-ch04-today prints every row)."""

from __future__ import annotations

from helpers.published_models import PUBLISHED, heads_table


def _row(name: str):
    return next(layer for layer in heads_table() if layer.name == name)


def test_gpt2_small_attention_with_its_biases() -> None:
    assert _row("GPT-2 small").params == 2_362_368


def test_llama_7b_attention_without_biases() -> None:
    assert _row("LLaMA-7B").params == 67_108_864 == 4 * 4096 * 4096


def test_every_published_row_is_consistent() -> None:
    for layer in PUBLISHED:
        assert layer.query_heads % layer.kv_heads == 0, layer.name
        assert layer.source, layer.name
    assert [r.name for r in heads_table()][:2] == ["course's layer 768/12", "course's layer 4096/32"]
