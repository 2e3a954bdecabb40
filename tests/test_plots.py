"""helpers.plots: true tooltips, figures fit the screen, every word labelled, presenter-mode text, no side effect."""

import math
import os
import subprocess
import sys

import pytest
import torch

from helpers import plots

WORDS = ["the", "fox", "sees", "the", "bridge"]


def _weights(n: int) -> torch.Tensor:
    return torch.tril(torch.ones(n, n)) / torch.arange(1, n + 1)[:, None]  # [T, T], rows sum to 1


def test_each_layer_hovers_only_on_its_own_cells_names_unknown_words_and_labels_its_colour_bar() -> None:
    shown, masked = plots.attention_heatmap(_weights(5), WORDS).data
    assert shown.hoverongaps is masked.hoverongaps is False and masked.z[3][1] is None  # each layer: its own cells
    assert shown.z[1][3] is None and masked.z[1][3] == 1 and shown.z[3][1] == pytest.approx(0.25)  # fox: later 'the'
    assert shown.text[3][1] == "'the (2)' looks at 'fox'" and shown.hovertemplate.startswith("%{text}: %{z:.1%}")
    assert masked.text[1][3] == "masked: 'fox' cannot see the later word 'the (2)'"
    shown = plots.attention_heatmap(_weights(3), ["the", "<unk>", "sighs"], originals=["the", "zebra", "sighs"]).data[0]
    assert shown.text[2][1] == "'sighs' looks at '<unk> = zebra'"
    with pytest.raises(ValueError, match="original words"):
        plots.attention_heatmap(_weights(3), ["the", "<unk>", "sighs"], originals=["the"])
    bar = shown.colorbar  # its labels sit under their ticks, so the top one clears the title
    assert bar.title.side == "top" and bar.ticklabelposition == "outside bottom"


@pytest.mark.parametrize("presenter", [False, True], indirect=True)
def test_every_figure_shows_whole_on_the_screen_and_presenter_mode_grows_every_text(presenter: bool) -> None:
    """Every figure fits the output area and the screen (a 1280x720 projector: 580 px), all text at the mode's size."""
    tallest, font = plots.style()["tallest"], 22 if presenter else 14
    assert tallest <= (580 if presenter else 640)
    grown = plots.attention_heatmap(_weights(5), WORDS).layout.width == plots.FIT_WIDTH
    assert grown == presenter, "on a projector a figure grows across"
    for n in (5, 12, 40, 128):
        words = [f"w{i}" for i in range(n)]
        spotlights = {f"head {h}": _weights(n)[-1] for h in range(5)}
        for fig in (plots.attention_heatmap(_weights(n), words), plots.heads_grid(_weights(n).expand(4, n, n), words),
                    plots.heads_grid(_weights(n).expand(16, n, n), words, cols=4),
                    plots.spotlight_bars(_weights(n)[-1], words), plots.spotlights_side_by_side(spotlights, words)):
            assert fig.layout.height <= tallest and fig.layout.width <= plots.FIT_WIDTH, (n, fig.layout.title.text)
            assert fig.layout.font.size == fig.layout.hoverlabel.font.size == font
            assert all(a.font.size == font for a in fig.layout.annotations)  # subplot titles too
    assert plots.heads_grid(_weights(5).expand(4, 5, 5), WORDS, tallest=400).layout.height <= 400


def test_a_deck_draws_a_grid_of_heads_larger_than_a_live_notebook_and_other_figures_beside_their_code(
        presenter: bool) -> None:
    """A deck's slide has no notebook around the figure: a grid of heads takes its room, for larger word labels;
    a heatmap stays short enough to share its slide with its code (tools.pages.DECK)."""
    from helpers.explorer_figures import grid_figure  # a widget's grid: its static copy in a deck

    words, grids = [f"w{i}" for i in range(11)], _weights(11).expand(4, 11, 11)
    live = [plots.heads_grid(grids, words).layout, plots.attention_heatmap(_weights(11), words).layout]
    widget = grid_figure(grids, words, "a widget's grid")["width"]
    plots.presenter_mode(True, deck=True)
    deck = [plots.heads_grid(grids, words).layout, plots.attention_heatmap(_weights(11), words).layout]
    assert widget <= plots.FIT_WIDTH < grid_figure(grids, words, "a widget's grid")["width"]
    assert plots.presenting() and live[0].width <= plots.FIT_WIDTH < deck[0].width and live[0].height < deck[0].height
    assert all(deck[0][axis].tickfont.size > live[0][axis].tickfont.size for axis in ("xaxis", "yaxis"))
    assert deck[1].height == live[1].height <= plots.style()["tallest"] < deck[0].height


def test_importing_plots_changes_no_renderer() -> None:
    """The mode bar is switched off per figure (tests/browser/test_what_is_seen.py finds none drawn), never in
    plotly's renderers."""
    import plotly.io as pio

    code = ("import plotly.io as pio; before = {n: dict(getattr(pio.renderers[n], 'config', {}) or {}) for n in "
            "pio.renderers}; import helpers.plots; print(before == {n: dict(getattr(pio.renderers[n], 'config', {}) "
            "or {}) for n in pio.renderers})")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.stdout.strip() == "True", run.stderr
    assert "displayModeBar" not in (pio.renderers["plotly_mimetype"].config or {})


def test_the_environment_starts_every_kernel_in_presenter_mode() -> None:
    code = "import helpers.plots as p; print(p.presenting(), p.style()['font'])"  # `make present` sets it to 1
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           env={**os.environ, plots.PRESENTER_VARIABLE: value}) for value in ("1", "0")]
    assert [run.stdout.split() for run in runs] == [["True", "22"], ["False", "14"]], [run.stderr for run in runs]


@pytest.mark.parametrize(("n", "every", "title"), [(40, 1, "word looked at"),
                                                    (100, 3, "word looked at (every 3rd word labelled)")])
def test_every_word_is_labelled_up_to_forty_and_the_axis_says_which_beyond(n: int, every: int, title: str) -> None:
    layout = plots.attention_heatmap(_weights(n), [f"w{i}" for i in range(n)]).layout
    x, y = layout.xaxis, layout.yaxis
    assert x.dtick == y.dtick == every and x.tickmode == y.tickmode == "linear" and x.tick0 == y.tick0 == 0
    assert x.title.text == title


def test_four_heads_are_a_two_by_two_grid() -> None:
    fig = plots.heads_grid(_weights(5).expand(4, 5, 5), WORDS)
    cells = {(trace.xaxis, trace.yaxis) for trace in fig.data}
    assert len(cells) == 4
    domains = {(tuple(fig.layout[f"xaxis{i}"].domain), tuple(fig.layout[f"yaxis{i}"].domain)) for i in ("", 2, 3, 4)}
    assert len({x for x, _ in domains}) == 2 and len({y for _, y in domains}) == 2
    assert [a.text for a in fig.layout.annotations] == [*(f"head {h}" for h in range(4)), plots.LOOKS]
    assert all(fig.layout[f"{axis}{i}"].matches is None for axis in ("xaxis", "yaxis") for i in ("", 2, 3, 4)), (
        "plotly keeps every word a live grid showed on matched axes")
    assert [fig.layout[f"yaxis{i}"].showticklabels for i in ("", 2, 3, 4)] == [True, False, True, False]
    assert [fig.layout[f"xaxis{i}"].showticklabels for i in ("", 2, 3, 4)] == [False, False, True, True]
    assert [fig.layout[f"xaxis{i}"].title.text for i in ("", 2, 3, 4)] == [None, None, plots.LOOKED_AT, plots.LOOKED_AT]
    later = plots.heads_grid(_weights(5).expand(4, 5, 5), WORDS, first_head=8)
    assert [a.text for a in later.layout.annotations][:4] == [f"head {h}" for h in range(8, 12)]


def test_spotlights_side_by_side_share_the_words_down_the_left() -> None:
    fig = plots.spotlights_side_by_side({"one head": _weights(5)[4], "head 0 of 4": _weights(5)[2]}, WORDS)
    assert [a.text for a in fig.layout.annotations] == ["one head", "head 0 of 4"]
    first, second = fig.data
    assert first.orientation == "h" and list(first.y) == ["the", "fox", "sees", "the (2)", "bridge"]
    assert list(second.x) == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0, 0]) and list(second.text) == ["33%"] * 3 + [""] * 2
    whole = plots.spotlights_side_by_side({"one head": [0, 0, 1.0], "four": [0.5, 0.5, 0]}, WORDS[:3])
    assert list(whole.data[0].textposition) == ["outside", "outside", "inside"], "a long bar's label stays in its panel"
    assert whole.data[0].insidetextfont.color == "white" and whole.data[1].textposition[0] == "outside"
    assert fig.layout.yaxis.autorange == "reversed" and fig.layout.yaxis2.matches == "y"
    clues = plots.spotlights_side_by_side({"one head": [0, 0, 1.0]}, WORDS[:3], marked={1})
    assert list(clues.data[0].y) == ["the", "<b>fox</b>", "sees"]


def test_slanted_word_labels_do_not_overlap_in_presenter_mode(presenter: bool) -> None:
    """At 45 degrees neighbouring labels are a word's width times sin(45) apart: the font fits in that."""
    from helpers.plots import heatmap_side, word_axis

    for n in (10, 24, 40, 60):
        pixels = heatmap_side(n)
        axis, _ = word_axis([f"w{i}" for i in range(n)], pixels)
        gap = pixels * axis["dtick"] / n * math.sin(math.pi / 4)
        assert axis["tickfont"]["size"] <= max(8, gap), (n, axis["tickfont"]["size"], gap)


def test_a_short_wide_heatmap_sizes_its_row_labels_by_its_height() -> None:
    labels = [f"w{i}" for i in range(23)]
    wide = plots.heatmap_axes(labels, 600)
    short = plots.heatmap_axes(labels, 600, tall=350)
    assert short["xaxis"]["tickfont"] == wide["xaxis"]["tickfont"]  # the columns keep their width's size
    assert short["yaxis"]["tickfont"]["size"] == int(0.85 * 350 / 23)  # upright row labels, sized to the rows


def test_text_lines_wraps_at_plain_spaces_only() -> None:
    """Three 70-character words take three lines of 117 characters (14 px in 820 px), not the two their length
    alone would give; a non-breaking space makes one long word, broken only where a line is full."""
    words = ["x" * 70, "y" * 70, "z" * 70]
    assert plots.text_lines(" ".join(words), 14) == 3 and plots.text_lines("\u00a0".join(words), 14) == 2
    assert plots.text_lines(" ".join(["ab"] * 39), 14) == 1 and plots.text_lines("", 14) == 0
