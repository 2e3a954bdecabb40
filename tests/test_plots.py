"""helpers.plots: true tooltips, figures that fit about 850 px, every word labelled, presenter-mode text."""

from __future__ import annotations

import math

import pytest
import torch

import helpers
from helpers.plots import FIT_WIDTH, attention_heatmap, heads_grid, heatmap_axes, spotlight_bars, stacked_spotlights

WORDS = ["the", "fox", "sees", "the", "bridge"]


def _weights(n: int) -> torch.Tensor:
    return torch.tril(torch.ones(n, n)) / torch.arange(1, n + 1)[:, None]  # [T, T], rows sum to 1


def test_each_layer_hovers_only_on_its_own_cells() -> None:
    shown, masked = attention_heatmap(_weights(5), WORDS).data
    assert shown.hoverongaps is False and masked.hoverongaps is False
    assert shown.z[1][3] is None and masked.z[1][3] == 1  # 'fox' cannot see the second 'the'
    assert shown.z[3][1] == pytest.approx(0.25) and masked.z[3][1] is None
    assert shown.text[3][1] == "'the (2)' looks at 'fox'" and shown.hovertemplate.startswith("%{text}: %{z:.1%}")
    assert masked.text[1][3] == "masked: 'fox' cannot see the later word 'the (2)'"


def test_unknown_words_are_named_in_the_tooltip() -> None:
    shown = attention_heatmap(_weights(3), ["the", "<unk>", "sighs"], originals=["the", "zebra", "sighs"]).data[0]
    assert shown.text[2][1] == "'sighs' looks at '<unk> (zebra)'"
    with pytest.raises(ValueError, match="original words"):
        attention_heatmap(_weights(3), ["the", "<unk>", "sighs"], originals=["the"])


@pytest.mark.parametrize("on", [False, True])
def test_figures_fit_and_presenter_mode_grows_every_text(on: bool) -> None:
    try:
        helpers.presenter_mode(on)
        font = 22 if on else 14
        for n in (5, 40, 128):
            words = [f"w{i}" for i in range(n)]
            for fig in (attention_heatmap(_weights(n), words), heads_grid(_weights(n).expand(4, n, n), words)):
                assert fig.layout.width <= FIT_WIDTH and fig.layout.font.size == font
                assert all(a.font.size == font for a in fig.layout.annotations)  # subplot titles too
        bars = [spotlight_bars(_weights(5)[4], WORDS), stacked_spotlights({"a": _weights(5)[4]}, WORDS)]
        assert all(fig.layout.width <= FIT_WIDTH for fig in bars)
    finally:
        helpers.presenter_mode(False)


def test_every_word_is_labelled_up_to_forty_and_the_axis_says_which_beyond() -> None:
    words = [f"w{i}" for i in range(40)]
    fig = attention_heatmap(_weights(40), words)
    assert fig.layout.xaxis.dtick == 1 and fig.layout.yaxis.dtick == 1 and fig.layout.xaxis.tickmode == "linear"
    assert fig.layout.xaxis.title.text == "word looked at"
    many = [f"w{i}" for i in range(100)]
    fig = attention_heatmap(_weights(100), many)
    assert fig.layout.xaxis.dtick == 3 and fig.layout.xaxis.tick0 == 0
    assert fig.layout.xaxis.title.text == "word looked at (every 3rd word labelled)"


def test_four_heads_are_a_two_by_two_grid() -> None:
    fig = heads_grid(_weights(5).expand(4, 5, 5), WORDS)
    cells = {(trace.xaxis, trace.yaxis) for trace in fig.data}
    assert len(cells) == 4
    domains = {(tuple(fig.layout[f"xaxis{'' if i == 1 else i}"].domain),
                tuple(fig.layout[f"yaxis{'' if i == 1 else i}"].domain)) for i in range(1, 5)}
    assert len({x for x, _ in domains}) == 2 and len({y for _, y in domains}) == 2
    assert [a.text for a in fig.layout.annotations] == [f"head {h}" for h in range(4)]


def test_slanted_word_labels_do_not_overlap_in_presenter_mode() -> None:
    """At 45 degrees neighbouring labels are a word's width times sin(45) apart: the font fits in that."""
    from helpers.plots import heatmap_side, presenter_mode, word_axis

    presenter_mode(True)
    try:
        for n in (10, 24, 40, 60):
            pixels = heatmap_side(n)
            axis, _ = word_axis([f"w{i}" for i in range(n)], pixels)
            gap = pixels * axis["dtick"] / n * math.sin(math.pi / 4)
            assert axis["tickfont"]["size"] <= max(8, gap), (n, axis["tickfont"]["size"], gap)
    finally:
        presenter_mode(False)


def test_colour_bar_labels_sit_under_their_ticks_so_the_top_one_clears_the_title() -> None:
    bar = attention_heatmap(torch.full((3, 3), 1 / 3), ["a", "b", "c"]).data[0].colorbar
    assert bar.title.side == "top" and bar.ticklabelposition == "outside bottom"


def test_a_short_wide_heatmap_sizes_its_row_labels_by_its_height() -> None:
    labels = [f"w{i}" for i in range(23)]
    wide = heatmap_axes(labels, 600)
    short = heatmap_axes(labels, 600, tall=350)
    assert short["xaxis"]["tickfont"] == wide["xaxis"]["tickfont"]  # the columns keep their width's size
    assert short["yaxis"]["tickfont"]["size"] == int(0.85 * 350 / 23)  # upright row labels, sized to the rows
