"""The attention code: weights, causality, and equality with torch's own implementations."""

import pytest
import torch
import torch.nn.functional as F

from helpers import AttentionHead, MultiHeadAttention, causal_mask, spotlight

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


@pytest.mark.parametrize("layer", [AttentionHead(C), MultiHeadAttention(C, H)])
def test_rows_sum_to_one_and_no_weight_on_the_future(layer: torch.nn.Module, x: torch.Tensor) -> None:
    _, att = layer(x)
    assert torch.allclose(att.sum(-1), torch.ones_like(att.sum(-1)), atol=1e-6)
    future = ~causal_mask(T)
    assert att[..., future].abs().max() == 0


@pytest.mark.parametrize("layer", [AttentionHead(C), MultiHeadAttention(C, H)])
def test_later_words_do_not_change_earlier_outputs(layer: torch.nn.Module, x: torch.Tensor) -> None:
    y, _ = layer(x)
    changed = x.clone()
    changed[:, 4:] = torch.randn(B, T - 4, C)
    y2, _ = layer(changed)
    assert torch.allclose(y[:, :4], y2[:, :4], atol=1e-6)
    assert not torch.allclose(y[:, 4:], y2[:, 4:])


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


def test_fused_path_equals_explicit_path(x: torch.Tensor) -> None:
    mha = MultiHeadAttention(C, H)
    y_explicit, att = mha(x, need_weights=True)
    y_fused, none = mha(x, need_weights=False)
    assert none is None and att.shape == (B, H, T, T)
    assert (y_explicit - y_fused).abs().max() < 1e-5


def test_one_head_without_projection_equals_the_single_head(x: torch.Tensor) -> None:
    head = AttentionHead(C)
    mha = MultiHeadAttention(C, 1, out_proj=False)
    mha.load_state_dict(head.state_dict())
    y_head, att_head = head(x)
    y_mha, att_mha = mha(x)
    assert torch.allclose(y_head, y_mha, atol=1e-6)
    assert torch.allclose(att_head, att_mha[:, 0], atol=1e-6)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MultiHeadAttention(128, 3), "not divisible by 3 heads"),
        (lambda: MultiHeadAttention(128, 0), "heads >= 1"),
        (lambda: MultiHeadAttention(128, 4)(torch.randn(5, 128)), "3-D input"),
        (lambda: MultiHeadAttention(128, 4)(torch.randn(1, 5, 64)), "expects width 128"),
        (lambda: MultiHeadAttention(128, 4)(torch.randn(1, 5, 128), mask=causal_mask(6)), "[6, 6]"),
        (lambda: AttentionHead(128)(torch.randn(1, 5, 128), mask=torch.ones(5, 5)), "boolean"),
        (lambda: spotlight(torch.randn(3, 4), torch.randn(3, 2)), "must match"),
        (lambda: spotlight(torch.randn(2, 2), torch.randn(2, 1), torch.zeros(2, 2, dtype=torch.bool)),
         "all False"),
    ],
)
def test_bad_shapes_give_clear_errors(make, message: str) -> None:
    with pytest.raises(ValueError, match=None) as err:
        make()
    assert message in str(err.value)
