"""The table of heads in today's models (04_multi_head_attention's checked cell e12-ch04-today prints every row)."""

from __future__ import annotations

import pytest

from helpers.published_models import PUBLISHED, heads_table


@pytest.mark.parametrize(("name", "params"), [("GPT-2 small", 2_362_368),  # 4 x 768 x 768 weights, 4 x 768 biases
                                              ("LLaMA-7B", 67_108_864)])  # 4 x 4096 x 4096 weights, no biases
def test_gpt2_small_attention_with_its_biases_and_llama_7b_without(name: str, params: int) -> None:
    assert next(layer.params for layer in heads_table() if layer.name == name) == params


def test_every_published_row_is_consistent() -> None:
    for layer in PUBLISHED:
        assert layer.query_heads % layer.kv_heads == 0, layer.name
        assert layer.source, layer.name
    assert [r.name for r in heads_table()][:2] == ["course's layer 768/12", "course's layer 4096/32"]
