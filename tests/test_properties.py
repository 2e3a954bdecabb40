"""Properties of helpers.attention and the course model, checked with hypothesis on many generated inputs."""

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from helpers.attention import AttentionHead, MultiHeadAttention, causal_mask, spotlight
from helpers.model import course_model

FAST = settings(max_examples=50, deadline=None)
HEADS_AND_WIDTH = st.sampled_from([(1, 4), (1, 8), (2, 8), (4, 8), (3, 12), (4, 16)])
SEED = st.integers(0, 2**16)


def floats32(bound: float | None = None) -> st.SearchStrategy[float]:
    """Finite float32 values in [-bound, bound] (any finite float32 when bound is None)."""
    low, high = (None, None) if bound is None else (-float(np.float32(bound)), float(np.float32(bound)))
    return st.floats(low, high, width=32, allow_nan=False, allow_infinity=False)


@st.composite
def masks(draw: st.DrawFn, n_words: int) -> torch.Tensor:
    """Any [T, T] boolean mask in which every row allows at least one spot."""
    mask = torch.from_numpy(draw(hnp.arrays(np.bool_, (n_words, n_words))))
    rows_without = ~mask.any(dim=-1)
    cols = torch.tensor(draw(st.lists(st.integers(0, n_words - 1), min_size=n_words, max_size=n_words)))
    mask[rows_without, cols[rows_without]] = True
    return mask


@st.composite
def layer_and_words(draw: st.DrawFn, bound: float = 10.0, max_words: int = 7, **options: object
                    ) -> tuple[MultiHeadAttention, torch.Tensor]:
    """A MultiHeadAttention(**options) of a drawn size and seed, and an x [B, T, width] of floats in [-bound, bound]."""
    heads, width = draw(HEADS_AND_WIDTH)
    torch.manual_seed(draw(SEED))
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, max_words)), width)
    x = torch.from_numpy(draw(hnp.arrays(np.float32, shape, elements=floats32(bound))))
    return MultiHeadAttention(width, heads, **options).eval(), x


def assert_weights(att: torch.Tensor, mask: torch.Tensor) -> None:
    """att [..., T, T]: non-negative, rows sum to 1, exactly 0 wherever the mask forbids looking."""
    assert torch.isfinite(att).all() and (att >= 0).all()
    torch.testing.assert_close(att.sum(-1), torch.ones(att.shape[:-1]), atol=1e-5, rtol=0)
    assert (att.masked_select(~mask.expand_as(att)) == 0).all()


@FAST
@given(data=st.data(), n_words=st.integers(1, 8), features=st.integers(1, 5))
def test_spotlight_weights_are_a_distribution_for_any_finite_scores(data, n_words, features) -> None:
    """Any finite scores and mask: the weights are a distribution within the mask, the output within the values."""
    scores = torch.from_numpy(data.draw(hnp.arrays(np.float32, (n_words, n_words), elements=floats32())))
    values = torch.from_numpy(data.draw(hnp.arrays(np.float32, (n_words, features), elements=floats32(1e30))))
    mask = data.draw(masks(n_words))
    out, att = spotlight(scores, values, mask)
    assert_weights(att, mask)
    slack = 1e-5 * values.abs().max() + 1e-30  # for rounding
    assert (out <= values.max(0).values + slack).all() and (out >= values.min(0).values - slack).all()


@FAST
@given(data=st.data())
def test_changing_later_words_never_changes_earlier_outputs(data) -> None:
    mha, x = data.draw(layer_and_words(max_words=8))
    head = AttentionHead(mha.width)
    cut = data.draw(st.integers(0, x.shape[1] - 1))  # words cut.. may change, words before cut must not notice
    changed = x.clone()
    changed[:, cut:] = torch.from_numpy(data.draw(hnp.arrays(np.float32, x[:, cut:].shape, elements=floats32(10))))
    with torch.no_grad():
        for layer in (head, mha, lambda t: mha(t, need_weights=False)):  # one head; several, unfused and fused
            torch.testing.assert_close(layer(x)[0][:, :cut], layer(changed)[0][:, :cut], atol=1e-5, rtol=1e-5)
        # and the earlier words cannot even tell whether later words exist
        torch.testing.assert_close(mha(x[:, :cut + 1])[0], mha(x)[0][:, :cut + 1], atol=1e-5, rtol=1e-5)


@settings(max_examples=100, deadline=None)  # as many examples of each case as FAST gives a test
@given(data=st.data(), causal=st.booleans())
def test_reordering_the_words_reorders_the_results(data, causal) -> None:
    """Without positions, f(P x) = P f(x) and att(P x) = P att(x) P^T, for one head and for several: for every
    word when every word may look at every word; under the causal mask for the last word, when only the words
    before it are reordered (its output ignores their order, its weights move with them)."""
    mha, x = data.draw(layer_and_words(max_words=8))
    T = x.shape[1]
    if causal:  # the last word stays last: its row is the one to compare
        perm, rows = [*data.draw(st.permutations(range(T - 1))), T - 1], [T - 1]
        mask = causal_mask(T)
    else:
        perm, rows = data.draw(st.permutations(range(T))), list(range(T))
        mask = torch.ones(T, T, dtype=torch.bool)
    with torch.no_grad():
        for layer in (AttentionHead(mha.width), mha):  # weights [B, T, T] and [B, H, T, T]
            (y, att), (y_p, att_p) = layer(x, mask=mask), layer(x[:, perm], mask=mask)
            torch.testing.assert_close(y_p[:, rows], y[:, perm][:, rows], atol=1e-5, rtol=1e-4)
            moved = att[..., perm, :][..., perm]
            torch.testing.assert_close(att_p[..., rows, :], moved[..., rows, :], atol=1e-6, rtol=1e-4)


def test_position_embeddings_make_the_model_see_word_order() -> None:
    """The contrast to the test above: the course model adds positions, so order matters to it."""
    model = course_model(heads=1, seed=0).eval()
    with torch.no_grad():
        assert not torch.allclose(model(torch.tensor([5, 17, 42, 99, 7]))[0, -1],
                                  model(torch.tensor([17, 5, 42, 99, 7]))[0, -1], atol=1e-4)


@FAST
@given(data=st.data())
def test_several_heads_are_single_heads_side_by_side(data) -> None:
    """With no output projection, h heads are h AttentionHeads side by side; all their weights are causal."""
    mha, x = data.draw(layer_and_words(out_proj=False))
    heads, width, D = mha.heads, mha.width, mha.width // mha.heads
    with torch.no_grad():
        y, att = mha(x)
        outs = []
        for h in range(heads):  # head h owns output rows h*D:(h+1)*D of each projection
            head = AttentionHead(width, D if heads > 1 else None)  # one head: AttentionHead's own default width
            head.load_state_dict({name: w[h * D : (h + 1) * D] for name, w in mha.state_dict().items()})
            outs.append(head(x))
    ys, atts = torch.cat([o[0] for o in outs], dim=-1), torch.stack([o[1] for o in outs], dim=1)
    assert_weights(atts, causal_mask(x.shape[1]))  # the layer's own: test_results_are_finite_for_huge_and_tiny_inputs
    torch.testing.assert_close(y, ys, atol=1e-5, rtol=1e-5)
    # float32 sums in another order in the fused matmul; a wrong split of the heads moves weights by tenths
    torch.testing.assert_close(att, atts, atol=1e-5, rtol=1e-5)


@FAST
@given(data=st.data(), proj=st.booleans(), own_mask=st.booleans())
def test_fused_path_equals_the_spotlight_path(data, proj, own_mask) -> None:
    mha, x = data.draw(layer_and_words(out_proj=proj))
    mask = data.draw(masks(x.shape[1])) if own_mask else None
    with torch.no_grad():
        (y, att), (y_fused, none) = mha(x, mask=mask), mha(x, mask=mask, need_weights=False)
    assert att is not None and none is None
    torch.testing.assert_close(y_fused, y, atol=1e-4, rtol=1e-4)


@FAST
@given(data=st.data(), scale=st.sampled_from([1e-30, 1e-8, 1.0, 1e4, 1e8]))
def test_results_are_finite_for_huge_and_tiny_inputs(data, scale) -> None:
    """Huge inputs (scores within float32) give finite outputs and weights; tiny ones give near-even weights."""
    mha, x = data.draw(layer_and_words(bound=1.0))
    x = x * scale
    with torch.no_grad():
        (y, att), (y_fused, _) = mha(x), mha(x, need_weights=False)
    assert torch.isfinite(y).all() and torch.isfinite(y_fused).all()
    assert_weights(att, causal_mask(x.shape[1]))
    if scale <= 1e-8:  # scores are ~0, so every word that may be seen gets about the same weight
        even = causal_mask(x.shape[1]).float() / torch.arange(1, x.shape[1] + 1).unsqueeze(1)
        torch.testing.assert_close(att, even.expand_as(att), atol=1e-5, rtol=0)
