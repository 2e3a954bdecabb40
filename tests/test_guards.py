"""The input checks live in helpers.guards; each rule has one source, so every place that applies it says the same."""

import argparse

import pytest
import torch

from helpers import guards
from helpers.attention import MultiHeadAttention
from helpers.block import BlockConfig, TransformerBlock
from helpers.model import CourseConfig, LanguageModel, attention_layer_size
from helpers.train import _heads

RULE = "width 128 is not divisible by 3 heads: each head gets an equal slice, so pick a head count that divides 128"


@pytest.mark.parametrize(("make", "error"), [
    (lambda: MultiHeadAttention(128, 3), ValueError), (lambda: CourseConfig(heads=3), ValueError),
    (lambda: BlockConfig(heads=3), ValueError), (lambda: TransformerBlock(128, 3), ValueError),
    (lambda: attention_layer_size(128, 3), ValueError), (lambda: guards.check_heads_divide_width(128, 3), ValueError),
    (lambda: _heads("3"), argparse.ArgumentTypeError),  # the training command line's --heads
])
def test_every_place_applies_the_one_rule_that_heads_divide_the_width(make, error: type[Exception]) -> None:
    with pytest.raises(error) as err:
        make()
    assert str(err.value) == RULE


def test_token_ids_come_back_as_a_batch_of_long_ids() -> None:
    ids = guards.check_token_ids(torch.tensor([1, 2, 3], dtype=torch.int32), vocab_size=10, context=5)
    assert ids.dtype == torch.long and ids.shape == (1, 3)


def test_the_models_shared_interface_cannot_be_made_without_its_methods() -> None:
    """Both models implement it: test_evaluate.py removes a head of each, test_model.py reads their attention_layer."""
    with pytest.raises(TypeError, match="abstract"):
        LanguageModel(CourseConfig())
