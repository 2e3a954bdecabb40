"""The models: the course model's parameter counts from the course's table; both models' attention output and
causality."""

import pytest
import torch

import helpers
from helpers import count_parameters, course_model
from helpers.block import block_model


@pytest.mark.parametrize(("heads", "out_proj", "params"),  # the course's two models, then the control's two
                         [(1, None, 328_704), (4, None, 345_216), (4, False, 328_704), (1, True, 345_216)])
def test_parameter_counts_match_the_course_and_the_control_swaps_them(
        heads: int, out_proj: bool | None, params: int) -> None:
    model = course_model(heads=heads, out_proj=out_proj)
    projected = heads > 1 if out_proj is None else out_proj  # by default a projection only with several heads
    assert count_parameters(model) == params
    assert model.config.out_proj is projected and (model.attn.proj is not None) is projected


@pytest.mark.parametrize(("make", "attention_input"), [
    (lambda: course_model(heads=4), lambda model, x: x),
    (lambda: block_model(heads=4, layers=2), lambda model, x: model.blocks[0].ln1(x)),  # the block is pre-norm
], ids=["course model", "block model"])
def test_return_attention_gives_the_attention_layers_weights(make, attention_input) -> None:
    model = make()
    ids = torch.randint(0, 1024, (2, 12))
    logits, att = model(ids, return_attention=True)
    assert logits.shape == (2, 12, 1024) and att.shape == (2, 4, 12, 12)
    x = model.tok_emb(ids) + model.pos_emb(torch.arange(12))
    assert torch.allclose(att, model.attention_layer(attention_input(model, x))[1], atol=1e-6)
    assert torch.allclose(model(ids), logits, atol=1e-5) and model(ids[0]).shape == (1, 12, 1024)


@pytest.mark.parametrize("make", [
    lambda: course_model(heads=1), lambda: course_model(heads=4), lambda: block_model(heads=4),
    lambda: block_model(heads=4, feed_forward=False), lambda: block_model(heads=4, layers=2),
], ids=["course 1 head", "course 4 heads", "block", "block without feed-forward", "two blocks"])
def test_every_model_is_causal(make) -> None:
    """Changing the words from `cut` on changes the scores from `cut` on, and none before it."""
    model = make()
    ids = torch.randint(0, 1024, (2, 20))
    for cut in (1, 12, 19):
        other = ids.clone()
        other[:, cut:] = (other[:, cut:] + 7) % 1024
        a, b = model(ids), model(other)
        assert torch.allclose(a[:, :cut], b[:, :cut], atol=1e-6)
        assert not torch.allclose(a[:, cut:], b[:, cut:], atol=1e-3)


def test_package_exposes_loading_and_the_explorer() -> None:
    model = helpers.load_model("four_heads")
    assert model.config.heads == 4 and model.tokenizer is not None and callable(helpers.explore)
    with pytest.raises(AttributeError, match="no attribute 'explorer_typo'"):
        helpers.explorer_typo  # noqa: B018
