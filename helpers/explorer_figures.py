"""Figures for the attention explorer: live FigureWidgets updated in place, and a static fallback.

The live figures are built once from helpers.plots and afterwards only have their data swapped inside
`batch_update`, so a new head or sentence redraws without rebuilding the page. The static figure carries
its own dropdowns, so it still switches heads where no Python kernel runs (GitHub, nbviewer, HTML).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import torch

from helpers.plots import (
    FIT_WIDTH,
    HEATMAP_FRAME,
    LOOKED_AT,
    PALETTE,
    attention_heatmap,
    figure_widget,
    grid_shape,
    grid_words,
    heads_grid,
    heatmap_axes,
    heatmap_cells,
    heatmap_side,
    heatmap_size,
    heatmap_traces,
    hung_title,
    style,
    styled,
    unique_labels,
    word_axis,
)


def head_figure(
    weights: torch.Tensor, words: Sequence[str], title: str, originals: Sequence[str] | None = None,
    tallest: int | None = None,
) -> go.FigureWidget:
    """A live heatmap of one head's [T, T] weights (rows: word that looks, columns: word looked at), at most
    `tallest` pixels high."""
    fig = figure_widget(attention_heatmap(weights, words, title=title, originals=originals, tallest=tallest))
    fig.update_layout(clickmode="event")
    return fig


def update_head_figure(
    fig: go.FigureWidget, weights: torch.Tensor, words: Sequence[str], title: str,
    originals: Sequence[str] | None = None, tallest: int | None = None,
) -> None:
    """Swap in new [T, T] weights, words and tooltips, as one update message (no rebuild, no flicker).

    Sends only what changed: a head change sends the weights and the title; a new sentence also its words
    and tooltips; the axis labelling (every word, or every k-th with a note) only when its rule changes.
    """
    cells = heatmap_cells(weights, words, originals=originals)
    shown, masked = fig.data
    wide, tall = heatmap_size(len(words), tallest)
    axes = heatmap_axes(cells.labels, wide, tall)
    with fig.batch_update():
        shown.z = cells.weights
        if not _same(shown.text, cells.seen_text):
            shown.update(x=cells.labels, y=cells.labels, text=cells.seen_text)
            masked.update(z=cells.future, x=cells.labels, y=cells.labels, text=cells.masked_text)
        if fig.layout.title.text != title:
            fig.layout.title.text = title
        size = {"width": min(FIT_WIDTH, wide + HEATMAP_FRAME[0]), "height": tall + HEATMAP_FRAME[1]}
        _relabel(fig, {}, size)
        _relabel(fig, axes)


def _same(old: object, new: np.ndarray) -> bool:
    """True when a trace property already holds the array `new` (a cheap check before sending it again)."""
    return isinstance(old, np.ndarray) and old.shape == new.shape and bool((old == new).all())


def _relabel(fig: go.FigureWidget, axes: dict, extra: dict | None = None) -> None:
    """Send the word-axis settings of `axes` (from heatmap_axes or grid_words), and the flat layout settings
    `extra` ({"height": ...}), whose values differ from what the figure was last sent.

    Only the labelling rule (every k-th word, the tick font, the note in the axis title) is sent, and only
    when it changed: re-sending a live heatmap's whole axis settings on every update blanked the explorer's
    figures in JupyterLab. What was sent is kept on the figure, so most updates read no plotly property.
    """
    want = dict(extra or {})
    for name, axis in axes.items():
        if not name.startswith(("xaxis", "yaxis")):
            continue
        want.update({f"{name}.dtick": axis["dtick"], f"{name}.tick0": axis["tick0"],
                     f"{name}.tickmode": axis["tickmode"], f"{name}.tickfont.size": axis["tickfont"]["size"]})
        if "title" in axis:
            want[f"{name}.title.text"] = axis["title"]["text"]

    if not hasattr(fig, "_word_axes"):
        fig._word_axes = {}
    missing = [key for key in want if key not in fig._word_axes]
    fig._word_axes.update({key: fig.layout[key] for key in missing})  # what the figure was built with
    changes = {key: value for key, value in want.items() if fig._word_axes.get(key) != value}
    if changes:
        fig.layout.update(changes)
        fig._word_axes.update(changes)


def grid_figure(
    weights: torch.Tensor, words: Sequence[str], title: str, originals: Sequence[str] | None = None,
    tallest: int | None = None,
) -> go.FigureWidget:
    """A live grid of small heatmaps (2 x 2 for four heads) of [H, T, T] weights, sharing one colour scale,
    at most `tallest` pixels high."""
    fig = figure_widget(heads_grid(weights, words, title=title, originals=originals, tallest=tallest))
    fig.update_layout(clickmode="event")
    return fig


def update_grid_figure(
    fig: go.FigureWidget, weights: torch.Tensor, words: Sequence[str], title: str,
    originals: Sequence[str] | None = None, tallest: int | None = None,
) -> None:
    """Swap in new [H, T, T] weights; the grid must already have H heads (two traces per head).

    Like update_head_figure it sends only what changed: the weights, the words and tooltips of a new
    sentence, and the word labels' settings (grid_words: which words, at what size) when they change.
    """
    heads = weights.shape[0]
    if len(fig.data) != 2 * heads:
        raise ValueError(f"this grid shows {len(fig.data) // 2} heads, got weights for {heads}")
    layout, looks_shift = grid_words(unique_labels(words), grid_shape(heads, tallest=tallest))
    with fig.batch_update():
        for h in range(heads):
            cells = heatmap_cells(weights[h], words, originals=originals)
            shown, masked = fig.data[2 * h], fig.data[2 * h + 1]
            shown.z = cells.weights
            if not _same(shown.text, cells.seen_text):
                shown.update(x=cells.labels, y=cells.labels, text=cells.seen_text)
                masked.update(z=cells.future, x=cells.labels, y=cells.labels, text=cells.masked_text)
        if fig.layout.title.text != title:
            fig.layout.title.text = title
        _relabel(fig, layout, {"margin.l": layout["margin"]["l"],
                               f"annotations[{len(fig.layout.annotations) - 1}].xshift": looks_shift})


def focus_figure(heads: int) -> go.FigureWidget:
    """An empty bar chart with one bar series per head: one word's spotlight from every head at once."""
    bars = [
        go.Bar(name=f"head {h}", marker_color=PALETTE[h % len(PALETTE)],
               hovertemplate=f"head {h}<br>{LOOKED_AT}: %{{x}}<br>weight: %{{y:.1%}}<extra></extra>")
        for h in range(heads)
    ]
    fig = figure_widget(go.Figure(bars))
    fig.update_layout(
        barmode="group", xaxis={"title": LOOKED_AT, "tickangle": -45}, legend={"title": "spotlight of"},
        yaxis={"title": "weight", "tickformat": ".0%", "range": [0, 1.05]}, margin={"t": 70},
    )
    return styled(fig, height=int(style()["size"] * 0.75))


def update_focus_figure(fig: go.FigureWidget, rows: torch.Tensor, words: Sequence[str], title: str) -> None:
    """Show rows [H, T] (one word's weights from each head) over the words it can see."""
    labels = unique_labels(words)
    axis, note = word_axis(labels, FIT_WIDTH - 250)
    with fig.batch_update():
        for trace, row in zip(fig.data, rows.numpy(), strict=True):
            if trace.x is None or list(trace.x) != labels:
                trace.x = labels
            trace.y = row
        fig.layout.title.text = title
        _relabel(fig, {"xaxis": {"title": {"text": LOOKED_AT + (f" ({note})" if note else "")}, **axis}})


def static_figure(
    weights: Sequence[torch.Tensor], sentences: Sequence[Sequence[str]], title: str = "Where each word looks",
    originals: Sequence[Sequence[str]] | None = None, labels: Sequence[str] | None = None, subtitle: str = "",
) -> go.Figure:
    """A self-contained heatmap with two dropdowns: which sentence (labelled `labels`, default its first
    words), and which head. The title and its `subtitle` sit above the two menus.

    weights[s] is [H, T_s, T_s] for the words sentences[s] (originals[s]: the words as typed, for the
    tooltips). Each sentence owns a pair of traces (weights and the grey future); the sentence menu switches
    which pair is visible and the axis labels, the head menu only swaps the weights of every pair, so the two
    menus never undo each other and no kernel is needed.
    """
    if not weights or len(weights) != len(sentences):
        raise ValueError(f"need one weights tensor per sentence, got {len(weights)} for {len(sentences)}")
    heads = {w.shape[0] for w in weights}
    if len(heads) != 1:
        raise ValueError(f"every sentence needs the same number of heads, got {sorted(heads)}")
    (n_heads,) = heads
    typed = list(originals) if originals is not None else [None] * len(sentences)
    fig = go.Figure()
    for s, (att, words, orig) in enumerate(zip(weights, sentences, typed, strict=True)):
        for trace in heatmap_traces(att[0], words, originals=orig):
            trace.visible = s == 0
            fig.add_trace(trace)
    shown = list(range(0, 2 * len(sentences), 2))  # the weight trace of each sentence
    by_head = [[heatmap_traces(att[h], words)[0].z for att, words in zip(weights, sentences, strict=True)]
               for h in range(n_heads)]
    head_menu = [{"label": f"head {h}", "method": "restyle", "args": [{"z": by_head[h]}, shown]}
                 for h in range(n_heads)]
    menus_and_titles = 230  # pixels above and below the plot area
    side = heatmap_side(max(len(words) for words in sentences))
    tall = min(side, style()["tallest"] - menus_and_titles)  # on a projector: wide cells rather than scrolling
    axes = [heatmap_axes(unique_labels(words), side, tall) for words in sentences]
    sentence_menu = [
        {"label": labels[s] if labels is not None else short_label(words), "method": "update",
         "args": [{"visible": [t // 2 == s for t in range(2 * len(sentences))]}, axes[s]]}
        for s, words in enumerate(sentences)
    ]
    menu_font = min(style()["font"], 16)  # two menus side by side fit even on a projector
    fig.update_layout(
        title=hung_title(title, subtitle), margin={"t": 150},
        updatemenus=[
            {"buttons": sentence_menu, "x": 0.0, "y": 1.02, "xanchor": "left", "yanchor": "bottom",
             "showactive": True, "pad": {"b": 10}, "font": {"size": menu_font}},
            {"buttons": head_menu, "x": 1.0, "y": 1.02, "xanchor": "right", "yanchor": "bottom",
             "showactive": True, "pad": {"b": 10}, "font": {"size": menu_font}},
        ],
    )
    fig.update_layout(axes[0])
    return styled(fig, width=side + 200, height=tall + menus_and_titles)


def short_label(words: Sequence[str], limit: int = 6) -> str:
    """The first few words of a sentence, for a menu label."""
    return " ".join(words[:limit]) + (" ..." if len(words) > limit else "")
