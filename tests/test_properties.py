"""Property-based tests (hypothesis) of helpers.attention and the course model.

Each property is checked on many generated inputs, not a few hand-picked ones:
- weights are never negative, each row sums to 1, and masked (future) spots get exactly 0;
- causality: changing later words never changes the outputs of earlier words;
- without position information the layer does not care about word order, in this precise sense:
  the last word sees every word, so its output is unchanged when the earlier words are shuffled
  (its weights shuffle along with them); with no mask at all the whole layer is permutation
  equivariant, f(P x) = P f(x) and att(P x) = P att(x) P^T;
- several heads with no output projection are the separate heads side by side (one head = AttentionHead);
- the fused path (need_weights=False) computes the same as the spotlight path;
- results stay finite for extreme (huge and tiny) finite inputs.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from helpers.attention import AttentionHead, MultiHeadAttention, causal_mask, spotlight
from helpers.model import course_model

FAST = settings(max_examples=50, deadline=None)
HEADS_AND_WIDTH = st.sampled_from([(1, 4), (1, 8), (2, 8), (4, 8), (3, 12), (4, 16)])


def floats32(bound: float | None = None) -> st.SearchStrategy[float]:
    """Finite float32 values in [-bound, bound] (any finite float32 when bound is None)."""
    low, high = (None, None) if bound is None else (-float(np.float32(bound)), float(np.float32(bound)))
    return st.floats(low, high, width=32, allow_nan=False, allow_infinity=False)


@st.composite
def inputs(draw: st.DrawFn, width: int, bound: float = 10.0, max_words: int = 7) -> torch.Tensor:
    """A batch x [B, T, width] of any finite values in [-bound, bound]."""
    batch = draw(st.integers(1, 2))
    words = draw(st.integers(1, max_words))
    arr = draw(hnp.arrays(np.float32, (batch, words, width), elements=floats32(bound)))
    return torch.from_numpy(arr)


@st.composite
def masks(draw: st.DrawFn, n_words: int) -> torch.Tensor:
    """Any [T, T] boolean mask in which every row allows at least one spot."""
    mask = torch.from_numpy(draw(hnp.arrays(np.bool_, (n_words, n_words))))
    rows_without = ~mask.any(dim=-1)
    cols = torch.tensor(draw(st.lists(st.integers(0, n_words - 1), min_size=n_words, max_size=n_words)))
    mask[rows_without, cols[rows_without]] = True
    return mask


def seeded(layer_cls: type, *args: object, seed: int, **kwargs: object) -> torch.nn.Module:
    torch.manual_seed(seed)
    return layer_cls(*args, **kwargs).eval()


def assert_weights(att: torch.Tensor, mask: torch.Tensor) -> None:
    """att [..., T, T]: non-negative, rows sum to 1, exactly 0 wherever the mask forbids looking."""
    assert torch.isfinite(att).all()
    assert (att >= 0).all()
    torch.testing.assert_close(att.sum(-1), torch.ones(att.shape[:-1]), atol=1e-5, rtol=0)
    assert (att.masked_select(~mask.expand_as(att)) == 0).all()


# ---- weights: non-negative, rows sum to 1 ------------------------------------------------------


@FAST
@given(data=st.data(), n_words=st.integers(1, 8), features=st.integers(1, 5))
def test_spotlight_weights_are_a_distribution_for_any_finite_scores(
    data: st.DataObject, n_words: int, features: int
) -> None:
    # any finite float32 scores at all, from tiny to the largest float32 values
    scores = torch.from_numpy(data.draw(hnp.arrays(np.float32, (n_words, n_words), elements=floats32())))
    values = torch.from_numpy(data.draw(hnp.arrays(np.float32, (n_words, features), elements=floats32(1e30))))
    mask = data.draw(masks(n_words))
    out, att = spotlight(scores, values, mask)
    assert_weights(att, mask)
    assert torch.isfinite(out).all()
    # a weighted average never leaves the range of the values it averages (small slack for rounding)
    slack = 1e-5 * values.abs().max() + 1e-30
    assert (out <= values.max(0).values + slack).all() and (out >= values.min(0).values - slack).all()


@FAST
@given(data=st.data(), hw=HEADS_AND_WIDTH, seed=st.integers(0, 2**16))
def test_layer_weights_are_causal_distributions(data: st.DataObject, hw: tuple[int, int], seed: int) -> None:
    heads, width = hw
    x = data.draw(inputs(width))
    T = x.shape[1]
    _, att1 = seeded(AttentionHead, width, seed=seed)(x)
    _, att = seeded(MultiHeadAttention, width, heads, seed=seed)(x)
    assert att1.shape == (x.shape[0], T, T) and att.shape == (x.shape[0], heads, T, T)
    assert_weights(att1, causal_mask(T))
    assert_weights(att, causal_mask(T))


# ---- causality ---------------------------------------------------------------------------------


@FAST
@given(data=st.data(), hw=HEADS_AND_WIDTH, seed=st.integers(0, 2**16), fused=st.booleans())
def test_changing_later_words_never_changes_earlier_outputs(
    data: st.DataObject, hw: tuple[int, int], seed: int, fused: bool
) -> None:
    heads, width = hw
    x = data.draw(inputs(width, max_words=8))
    T = x.shape[1]
    cut = data.draw(st.integers(0, T - 1))  # words cut.. may change, words before cut must not notice
    changed = x.clone()
    later = data.draw(hnp.arrays(np.float32, changed[:, cut:].shape, elements=floats32(10.0)))
    changed[:, cut:] = torch.from_numpy(later)
    head = seeded(AttentionHead, width, seed=seed)
    mha = seeded(MultiHeadAttention, width, heads, seed=seed)
    with torch.no_grad():
        for y, y_changed in [
            (head(x)[0], head(changed)[0]),
            (mha(x, need_weights=not fused)[0], mha(changed, need_weights=not fused)[0]),
        ]:
            torch.testing.assert_close(y[:, :cut], y_changed[:, :cut], atol=1e-5, rtol=1e-5)
        # and the earlier words cannot even tell whether later words exist
        torch.testing.assert_close(mha(x[:, :cut + 1])[0], mha(x)[0][:, :cut + 1], atol=1e-5, rtol=1e-5)


@settings(max_examples=20, deadline=None)
@given(
    heads=st.sampled_from([1, 4]),
    ids=st.lists(st.integers(0, 63), min_size=2, max_size=12),
    new_ids=st.lists(st.integers(0, 63), min_size=12, max_size=12),
    data=st.data(),
)
def test_course_model_logits_are_causal(heads: int, ids: list[int], new_ids: list[int], data: st.DataObject) -> None:
    model = course_model(heads=heads, seed=0, width=16, vocab_size=64, context=16).eval()
    cut = data.draw(st.integers(1, len(ids) - 1))
    changed = ids[:cut] + new_ids[: len(ids) - cut]
    with torch.no_grad():
        logits = model(torch.tensor(ids))
        logits_changed = model(torch.tensor(changed))
    torch.testing.assert_close(logits[:, :cut], logits_changed[:, :cut], atol=1e-5, rtol=1e-5)


# ---- word order without position information ----------------------------------------------------


@FAST
@given(data=st.data(), hw=HEADS_AND_WIDTH, seed=st.integers(0, 2**16))
def test_last_word_ignores_the_order_of_earlier_words(data: st.DataObject, hw: tuple[int, int], seed: int) -> None:
    heads, width = hw
    x = data.draw(inputs(width, max_words=8))
    T = x.shape[1]
    order = data.draw(st.permutations(range(T - 1)))
    perm = torch.tensor([*order, T - 1])  # shuffle the earlier words, keep the last word last
    mha = seeded(MultiHeadAttention, width, heads, seed=seed)
    head = seeded(AttentionHead, width, seed=seed)
    with torch.no_grad():
        y, att = mha(x)
        y_p, att_p = mha(x[:, perm])
        y1, _ = head(x)
        y1_p, _ = head(x[:, perm])
    torch.testing.assert_close(y_p[:, -1], y[:, -1], atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(y1_p[:, -1], y1[:, -1], atol=1e-5, rtol=1e-4)
    # the last word's spotlight moves with the words it lights: same weight on the same word
    torch.testing.assert_close(att_p[:, :, -1], att[:, :, -1][..., perm], atol=1e-6, rtol=1e-4)


@FAST
@given(data=st.data(), hw=HEADS_AND_WIDTH, seed=st.integers(0, 2**16))
def test_without_a_mask_the_layer_is_permutation_equivariant(
    data: st.DataObject, hw: tuple[int, int], seed: int
) -> None:
    heads, width = hw
    x = data.draw(inputs(width, max_words=8))
    T = x.shape[1]
    perm = torch.tensor(data.draw(st.permutations(range(T))))
    everyone = torch.ones(T, T, dtype=torch.bool)
    mha = seeded(MultiHeadAttention, width, heads, seed=seed)
    with torch.no_grad():
        y, att = mha(x, mask=everyone)
        y_p, att_p = mha(x[:, perm], mask=everyone)
    torch.testing.assert_close(y_p, y[:, perm], atol=1e-5, rtol=1e-4)  # f(P x) = P f(x)
    torch.testing.assert_close(att_p, att[:, :, perm][..., perm], atol=1e-6, rtol=1e-4)  # P att P^T


def test_position_embeddings_make_the_model_see_word_order() -> None:
    """The contrast to the two tests above: the course model adds positions, so order matters to it."""
    model = course_model(heads=1, seed=0).eval()
    ids = torch.tensor([5, 17, 42, 99, 7])
    swapped = torch.tensor([17, 5, 42, 99, 7])
    with torch.no_grad():
        assert not torch.allclose(model(ids)[0, -1], model(swapped)[0, -1], atol=1e-4)


# ---- one head, several heads ---------------------------------------------------------------------


@FAST
@given(data=st.data(), width=st.sampled_from([1, 3, 8, 16]), seed=st.integers(0, 2**16))
def test_one_head_without_projection_is_the_single_head(data: st.DataObject, width: int, seed: int) -> None:
    x = data.draw(inputs(width))
    mha = seeded(MultiHeadAttention, width, 1, seed=seed, out_proj=False)
    head = AttentionHead(width)
    head.load_state_dict(mha.state_dict())  # same query, key and value weights
    with torch.no_grad():
        y, att = mha(x)
        y1, att1 = head(x)
    torch.testing.assert_close(y, y1)
    torch.testing.assert_close(att, att1.unsqueeze(1))


@FAST
@given(data=st.data(), hw=HEADS_AND_WIDTH, seed=st.integers(0, 2**16))
def test_several_heads_are_single_heads_side_by_side(data: st.DataObject, hw: tuple[int, int], seed: int) -> None:
    heads, width = hw
    x = data.draw(inputs(width))
    mha = seeded(MultiHeadAttention, width, heads, seed=seed, out_proj=False)
    D = width // heads
    ys, atts = [], []
    for h in range(heads):  # head h owns output rows h*D:(h+1)*D of each projection
        head = AttentionHead(width, D)
        head.load_state_dict({name: w[h * D : (h + 1) * D] for name, w in mha.state_dict().items()})
        with torch.no_grad():
            y_h, att_h = head(x)
        ys.append(y_h)
        atts.append(att_h)
    with torch.no_grad():
        y, att = mha(x)
    torch.testing.assert_close(y, torch.cat(ys, dim=-1), atol=1e-5, rtol=1e-5)
    # float32: the fused matmul sums in another order, so logits near 100 differ in their last bits (a wrong
    # split of the heads moves weights by tenths, far beyond this tolerance)
    torch.testing.assert_close(att, torch.stack(atts, dim=1), atol=1e-5, rtol=1e-5)


# ---- fused path ------------------------------------------------------------------------------------


@FAST
@given(data=st.data(), hw=HEADS_AND_WIDTH, seed=st.integers(0, 2**16), proj=st.booleans(), own_mask=st.booleans())
def test_fused_path_equals_the_spotlight_path(
    data: st.DataObject, hw: tuple[int, int], seed: int, proj: bool, own_mask: bool
) -> None:
    heads, width = hw
    x = data.draw(inputs(width))
    mask = data.draw(masks(x.shape[1])) if own_mask else None
    mha = seeded(MultiHeadAttention, width, heads, seed=seed, out_proj=proj)
    with torch.no_grad():
        y, att = mha(x, mask=mask, need_weights=True)
        y_fused, none = mha(x, mask=mask, need_weights=False)
    assert att is not None and none is None
    torch.testing.assert_close(y_fused, y, atol=1e-4, rtol=1e-4)


# ---- extreme inputs --------------------------------------------------------------------------------


@FAST
@given(
    data=st.data(),
    hw=HEADS_AND_WIDTH,
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([1e-30, 1e-8, 1.0, 1e4, 1e8]),
    fused=st.booleans(),
)
def test_results_are_finite_for_huge_and_tiny_inputs(
    data: st.DataObject, hw: tuple[int, int], seed: int, scale: float, fused: bool
) -> None:
    """Huge inputs give huge scores; softmax subtracts each row's largest score first, so a huge
    score becomes a weight of (nearly) 1 and the rest 0, never inf or NaN. Tiny inputs give scores
    near 0 and so near-even weights. (Scores that overflow float32 itself, above ~3e38, are out of scope:
    the input must keep q . k finite, which 1e8-sized words in width 16 do.)"""
    heads, width = hw
    x = data.draw(inputs(width, bound=1.0)) * scale
    mha = seeded(MultiHeadAttention, width, heads, seed=seed)
    with torch.no_grad():
        y, att = mha(x, need_weights=not fused)
    assert torch.isfinite(y).all()
    if att is not None:
        assert_weights(att, causal_mask(x.shape[1]))
    if scale <= 1e-8:  # scores are ~0, so every word that may be seen gets about the same weight
        with torch.no_grad():
            _, att = mha(x)
        even = causal_mask(x.shape[1]).float() / torch.arange(1, x.shape[1] + 1).unsqueeze(1)
        torch.testing.assert_close(att, even.expand_as(att), atol=1e-5, rtol=0)
