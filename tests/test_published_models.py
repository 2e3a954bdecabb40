"""The table of heads in today's models: its counts, and the course's rows agreeing with the course model."""

from __future__ import annotations

import pytest

from helpers.model import attention_layer_size
from helpers.published_models import PUBLISHED, course_layer, heads_table


def _row(name: str):
    return next(layer for layer in heads_table() if layer.name == name)


def test_gpt2_small_attention_with_its_biases() -> None:
    assert _row("GPT-2 small").params == 2_362_368


def test_llama_7b_attention_without_biases() -> None:
    assert _row("LLaMA-7B").params == 67_108_864 == 4 * 4096 * 4096


def test_grouped_query_attention_shares_keys_and_values() -> None:
    llama3, mistral, gemma = _row("Llama 3 8B"), _row("Mistral 7B"), _row("Gemma 2B")
    assert (llama3.query_heads, llama3.kv_heads) == (mistral.query_heads, mistral.kv_heads) == (32, 8)
    assert llama3.params == 2 * 4096 * 4096 + 2 * 4096 * 1024  # full query and output, a quarter for k and v
    assert llama3.kind.startswith("grouped-query (4 query heads")
    assert (gemma.query_heads, gemma.kv_heads, gemma.kind) == (8, 1, "multi-query")
    assert _row("LLaMA-7B").kind == "multi-head"
    assert llama3.kv_per_word * 4 == _row("LLaMA-7B").kv_per_word


@pytest.mark.parametrize(("width", "heads"), [(128, 4), (768, 12), (4096, 32)])
def test_course_rows_are_the_course_layer(width: int, heads: int) -> None:
    row = course_layer(width, heads)
    assert row.params == attention_layer_size(width, heads)["attention_params"]
    assert "course" in row.name


def test_every_published_row_is_consistent() -> None:
    for layer in PUBLISHED:
        assert layer.query_heads % layer.kv_heads == 0, layer.name
        assert layer.source, layer.name
    assert [r.name for r in heads_table()][:2] == ["course's layer 768/12", "course's layer 4096/32"]
