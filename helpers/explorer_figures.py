"""Figures for the attention explorer: live FigureWidgets updated in place, and a static fallback.

The live figures are built once from helpers.plots and afterwards only have their data swapped inside
`batch_update`, so a new head or sentence redraws without rebuilding the page. The static figure carries
its own dropdowns, so it still switches heads where no Python kernel runs (GitHub, nbviewer, HTML).
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
import torch

from helpers.plots import LOOKED_AT, PALETTE, attention_heatmap, heads_grid, heatmap_traces, style, unique_labels

MAX_SIDE = 1100
"""Largest heatmap side in pixels: a 128-word sentence still fits on a projector screen."""


def _side(n_words: int) -> int:
    """Heatmap side in pixels: the plots' size, growing with the number of words up to MAX_SIDE."""
    return min(MAX_SIDE, style()["size"] + 12 * max(0, n_words - 10))


def head_figure(weights: torch.Tensor, words: Sequence[str], title: str) -> go.FigureWidget:
    """A live heatmap of one head's [T, T] weights (rows: word that looks, columns: word looked at)."""
    fig = go.FigureWidget(attention_heatmap(weights, words, title=title))
    side = _side(len(words))
    fig.update_layout(margin={"t": 70}, clickmode="event", width=side + 90, height=side)
    return fig


def update_head_figure(fig: go.FigureWidget, weights: torch.Tensor, words: Sequence[str], title: str) -> None:
    """Swap in new [T, T] weights and words, as one update message (no rebuild, no flicker)."""
    shown, masked = heatmap_traces(weights, words)
    side = _side(len(words))
    with fig.batch_update():
        for trace, new in zip(fig.data, (shown, masked), strict=True):
            trace.update(z=new.z, x=new.x, y=new.y)
        fig.layout.update(title_text=title, width=side + 90, height=side)


def grid_figure(weights: torch.Tensor, words: Sequence[str], title: str) -> go.FigureWidget:
    """A live grid of small heatmaps, one per head of [H, T, T] weights, sharing one colour scale."""
    fig = go.FigureWidget(heads_grid(weights, words, title=title))
    fig.update_layout(margin={"t": 90}, clickmode="event")
    return fig


def update_grid_figure(fig: go.FigureWidget, weights: torch.Tensor, words: Sequence[str], title: str) -> None:
    """Swap in new [H, T, T] weights; the grid must already have H heads (two traces per head)."""
    heads = weights.shape[0]
    if len(fig.data) != 2 * heads:
        raise ValueError(f"this grid shows {len(fig.data) // 2} heads, got weights for {heads}")
    with fig.batch_update():
        for h in range(heads):
            for trace, new in zip(fig.data[2 * h : 2 * h + 2], heatmap_traces(weights[h], words), strict=True):
                trace.update(z=new.z, x=new.x, y=new.y)
        fig.layout.update(title_text=title)


def focus_figure(heads: int) -> go.FigureWidget:
    """An empty bar chart with one bar series per head: one word's spotlight from every head at once."""
    bars = [
        go.Bar(name=f"head {h}", marker_color=PALETTE[h % len(PALETTE)],
               hovertemplate=f"head {h}<br>{LOOKED_AT}: %{{x}}<br>weight: %{{y:.1%}}<extra></extra>")
        for h in range(heads)
    ]
    fig = go.FigureWidget(bars)
    s = style()
    fig.update_layout(
        barmode="group", height=int(s["size"] * 0.75), width=s["size"] + 300, font={"size": s["font"]},
        xaxis={"title": LOOKED_AT, "tickangle": -45}, legend={"title": "spotlight of"},
        yaxis={"title": "weight", "tickformat": ".0%", "range": [0, 1.05]}, margin={"t": 70},
    )
    return fig


def update_focus_figure(fig: go.FigureWidget, rows: torch.Tensor, words: Sequence[str], title: str) -> None:
    """Show rows [H, T] (one word's weights from each head) over the words it can see."""
    labels = unique_labels(words)
    with fig.batch_update():
        for trace, row in zip(fig.data, rows.numpy(), strict=True):
            trace.update(x=labels, y=row)
        fig.layout.update(title_text=title)


def static_figure(
    weights: Sequence[torch.Tensor], sentences: Sequence[Sequence[str]], title: str = "Where each word looks"
) -> go.Figure:
    """A self-contained heatmap with two dropdowns: which sentence, and which head.

    weights[s] is [H, T_s, T_s] for the words sentences[s]. Each sentence owns a pair of traces (weights and
    the grey future); the sentence menu only switches which pair is visible, the head menu only swaps the
    weights of every pair, so the two menus never undo each other and no kernel is needed.
    """
    if not weights or len(weights) != len(sentences):
        raise ValueError(f"need one weights tensor per sentence, got {len(weights)} for {len(sentences)}")
    heads = {w.shape[0] for w in weights}
    if len(heads) != 1:
        raise ValueError(f"every sentence needs the same number of heads, got {sorted(heads)}")
    (n_heads,) = heads
    fig = go.Figure()
    for s, (att, words) in enumerate(zip(weights, sentences, strict=True)):
        for trace in heatmap_traces(att[0], words):
            trace.visible = s == 0
            fig.add_trace(trace)
    shown = list(range(0, 2 * len(sentences), 2))  # the weight trace of each sentence
    by_head = [[heatmap_traces(att[h], words)[0].z for att, words in zip(weights, sentences, strict=True)]
               for h in range(n_heads)]
    head_menu = [{"label": f"head {h}", "method": "restyle", "args": [{"z": by_head[h]}, shown]}
                 for h in range(n_heads)]
    sentence_menu = [
        {"label": _short(words), "method": "restyle",
         "args": [{"visible": [t // 2 == s for t in range(2 * len(sentences))]}]}
        for s, words in enumerate(sentences)
    ]
    s = style()
    side = _side(max(len(words) for words in sentences))
    fig.update_layout(
        title=title, width=side + 90, height=side + 60, font={"size": s["font"]},
        xaxis={"title": LOOKED_AT, "tickangle": -45}, yaxis={"title": "word that looks", "autorange": "reversed"},
        margin={"t": 130},
        updatemenus=[
            {"buttons": sentence_menu, "x": 0.0, "y": 1.18, "xanchor": "left", "yanchor": "bottom",
             "showactive": True},
            {"buttons": head_menu, "x": 1.0, "y": 1.18, "xanchor": "right", "yanchor": "bottom",
             "showactive": True},
        ],
    )
    return fig


def _short(words: Sequence[str], limit: int = 6) -> str:
    """The first few words of a sentence, for a menu label."""
    return " ".join(words[:limit]) + (" ..." if len(words) > limit else "")
