"""The attention code: weights, causality, and equality with torch's own implementations."""

import pytest
import torch
import torch.nn.functional as F

from helpers import MultiHeadAttention, causal_mask, spotlight

B, T, C, H = 2, 7, 128, 4


@pytest.fixture
def x() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.randn(B, T, C)


def test_spotlight_weights_sum_to_one_and_average_values() -> None:
    scores = torch.tensor([[2.0, 0.0, -1.0]])
    values = torch.tensor([[1.0], [2.0], [3.0]])
    out, w = spotlight(scores, values)
    assert torch.allclose(w.sum(-1), torch.ones(1))
    assert torch.allclose(out, w @ values)
    assert w[0, 0] > w[0, 1] > w[0, 2]


def test_multi_head_splits_the_width() -> None:
    mha = MultiHeadAttention(128, 4)
    assert mha.head_width == 32
    assert mha.query.weight.shape == (128, 128)


def test_multi_head_equals_torch_multihead_attention(x: torch.Tensor) -> None:
    torch.manual_seed(1)
    ours = MultiHeadAttention(C, H)
    theirs = torch.nn.MultiheadAttention(C, H, batch_first=True)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.query.weight, ours.key.weight, ours.value.weight]))
        theirs.in_proj_bias.zero_()
        theirs.out_proj.weight.copy_(ours.proj.weight)
        theirs.out_proj.bias.copy_(ours.proj.bias)
    y, att = ours(x)
    y_ref, att_ref = theirs(x, x, x, attn_mask=~causal_mask(T), average_attn_weights=False)
    assert (y - y_ref).abs().max() < 1e-5
    assert (att - att_ref).abs().max() < 1e-5


def test_multi_head_equals_scaled_dot_product_attention(x: torch.Tensor) -> None:
    mha = MultiHeadAttention(C, H, out_proj=False)
    y, _ = mha(x)
    q, k, v = (lin(x).view(B, T, H, C // H).transpose(1, 2) for lin in (mha.query, mha.key, mha.value))
    y_ref = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
    assert (y - y_ref).abs().max() < 1e-5
