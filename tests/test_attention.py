"""The attention code: weights, and equality with torch's own multi-head attention."""

import torch

from helpers import MultiHeadAttention, causal_mask, spotlight

T, C, H = 7, 128, 4


def test_spotlight_weights_sum_to_one_and_average_values() -> None:
    scores = torch.tensor([[2.0, 0.0, -1.0]])
    values = torch.tensor([[1.0], [2.0], [3.0]])
    out, w = spotlight(scores, values)
    assert torch.allclose(w.sum(-1), torch.ones(1))
    assert torch.allclose(out, w @ values)
    assert w[0, 0] > w[0, 1] > w[0, 2]


def test_multi_head_equals_torch_multihead_attention() -> None:
    torch.manual_seed(0)
    x = torch.randn(2, T, C)
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

