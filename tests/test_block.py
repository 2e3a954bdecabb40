"""The transformer block: parameter counts from first principles, per-word feed-forward, pre-norm residuals."""

from __future__ import annotations

import pytest
import torch

from helpers.block import BlockConfig, BlockModel, FeedForward, TransformerBlock, block_model
from helpers.model import CourseConfig, count_parameters


def feed_forward_size(width: int, hidden: int) -> int:
    return width * hidden + hidden + hidden * width + width  # two Linear layers with biases


@pytest.mark.parametrize(("width", "hidden"), [(16, None), (16, 20), (128, None)])
def test_feed_forward_parameters(width: int, hidden: int | None) -> None:
    assert count_parameters(FeedForward(width, hidden)) == feed_forward_size(width, hidden or 4 * width)


@pytest.mark.parametrize("feed_forward", [True, False])
def test_block_forward_is_pre_norm_residual(feed_forward: bool) -> None:
    torch.manual_seed(0)
    block = TransformerBlock(24, 3, feed_forward=feed_forward)
    x = torch.randn(2, 7, 24)
    mid = x + block.attn(block.ln1(x))[0]
    got, att = block(x, need_weights=not feed_forward)
    assert torch.allclose(got, mid + block.ff(block.ln2(mid)) if feed_forward else mid, atol=1e-6)
    assert (att is None) if feed_forward else (att.shape == (2, 3, 7, 7))


def test_same_seed_same_model() -> None:
    a, b = block_model(seed=3), block_model(seed=3)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: BlockConfig(layers=0), "layers must be a whole number >= 1"),
    (lambda: BlockConfig(feed_forward="yes"), "feed_forward must be True or False"),
    (lambda: BlockModel(CourseConfig(heads=4)), "needs a BlockConfig"),
    (lambda: TransformerBlock(0, 1), "whole number >= 1"),
    (lambda: FeedForward(0), "width must be a whole number >= 1"),
    (lambda: FeedForward(16, hidden=0), "hidden must be a whole number >= 1"),
    (lambda: FeedForward(16)(torch.randn(2, 3, 8)), "last size is the width 16"),
])
def test_bad_settings_give_clear_errors(make, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()
