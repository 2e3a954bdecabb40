"""Plotly figures for attention: spotlight bars and heatmaps with words on both axes.

Rows are the word that looks, columns the word looked at; future words are greyed out.
The colour scale (cividis) is readable with red-green colour blindness.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

COLOURS = "Cividis"
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
"""Okabe-Ito colours for heads, curves and bars: told apart with any common colour blindness."""
MASKED = "#d9d9d9"
LOOKS = "word that looks"
LOOKED_AT = "word looked at"
_style = {"font": 14, "size": 460}


def presenter_mode(on: bool = True) -> None:
    """Larger fonts and figures for a projector (on), or the reading sizes (off)."""
    _style.update(font=22, size=640) if on else _style.update(font=14, size=460)


def style() -> dict[str, int]:
    """The current font size and figure size, for widgets that build their own figures."""
    return dict(_style)


def unique_labels(words: Sequence[str]) -> list[str]:
    """Plotly merges equal category labels, so repeated words get a position suffix: 'the', 'the²'."""
    seen: dict[str, int] = {}
    labels = []
    for w in words:
        seen[w] = seen.get(w, 0) + 1
        labels.append(w if seen[w] == 1 else f"{w} ({seen[w]})")
    return labels


def _as_grid(weights: torch.Tensor | Sequence[Sequence[float]]) -> list[list[float]]:
    try:
        grid = torch.as_tensor(weights, dtype=torch.float32).detach().cpu()
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"a heatmap needs a grid of numbers (a tensor, or a list of rows of equal length), "
                         f"got a {type(weights).__name__} that is not one ({err})") from None
    if grid.dim() != 2:
        raise ValueError(f"a heatmap needs a 2-D [looking words, looked-at words] grid, got {list(grid.shape)}")
    return grid.tolist()


def heatmap_traces(
    weights: torch.Tensor | Sequence[Sequence[float]],
    words: Sequence[str],
    causal: bool = True,
    zmax: float = 1.0,
    show_scale: bool = True,
) -> list[go.Heatmap]:
    """Two heatmap traces: the weights, and grey cells over the masked future (when causal)."""
    grid = _as_grid(weights)
    n, columns = len(grid), len(grid[0]) if grid else 0
    if len(words) != n or columns != n:
        raise ValueError(f"{len(words)} words need a {len(words)} x {len(words)} grid, "
                         f"got a [{n}, {columns}] grid ({n} rows, {columns} columns)")
    labels = unique_labels(words)
    z = [[None if causal and j > i else grid[i][j] for j in range(n)] for i in range(n)]
    hidden = [[1 if causal and j > i else None for j in range(n)] for i in range(n)]
    shown = go.Heatmap(
        z=z, x=labels, y=labels, zmin=0, zmax=zmax, colorscale=COLOURS, showscale=show_scale,
        colorbar={"title": "weight", "tickformat": ".0%"} if show_scale else None,
        hovertemplate=f"{LOOKS}: %{{y}}<br>{LOOKED_AT}: %{{x}}<br>weight: %{{z:.1%}}<extra></extra>",
    )
    masked = go.Heatmap(
        z=hidden, x=labels, y=labels, colorscale=[[0, MASKED], [1, MASKED]], showscale=False,
        hovertemplate="%{y} cannot see the later word %{x}<extra>masked</extra>",
    )
    return [shown, masked]


def attention_heatmap(
    weights: torch.Tensor | Sequence[Sequence[float]],
    words: Sequence[str],
    title: str = "Where each word looks",
    causal: bool = True,
) -> go.Figure:
    """One head's [T, T] weights as a heatmap with words on both axes."""
    fig = go.Figure(heatmap_traces(weights, words, causal=causal))
    size = _style["size"] + 12 * max(0, len(words) - 10)
    fig.update_layout(
        title=title, width=size + 90, height=size, font={"size": _style["font"]},
        xaxis={"title": LOOKED_AT, "side": "bottom", "tickangle": -45},
        yaxis={"title": LOOKS, "autorange": "reversed"},
    )
    return fig


def heads_grid(
    weights: torch.Tensor, words: Sequence[str], title: str = "Every head at once", causal: bool = True
) -> go.Figure:
    """[H, T, T] weights as small heatmaps side by side, one shared colour scale."""
    if not isinstance(weights, torch.Tensor) or weights.dim() != 3:
        got = list(weights.shape) if isinstance(weights, torch.Tensor) else type(weights).__name__
        raise ValueError(f"heads_grid needs a [heads, words, words] tensor, got {got}")
    heads = weights.shape[0]
    fig = make_subplots(rows=1, cols=heads, subplot_titles=[f"head {h}" for h in range(heads)],
                        horizontal_spacing=0.03)
    for h in range(heads):
        for trace in heatmap_traces(weights[h], words, causal=causal, show_scale=(h == 0)):
            fig.add_trace(trace, row=1, col=h + 1)
        fig.update_yaxes(autorange="reversed", showticklabels=(h == 0), row=1, col=h + 1)
        fig.update_xaxes(tickangle=-45, row=1, col=h + 1)
    fig.update_yaxes(title_text=LOOKS, row=1, col=1)
    fig.update_xaxes(title_text=LOOKED_AT)
    fig.update_layout(title=title, height=_style["size"], width=max(_style["size"], 300 * heads),
                      font={"size": _style["font"]})
    return fig


def spotlight_bars(
    weights: torch.Tensor | Sequence[float], words: Sequence[str], title: str = "One word's spotlight"
) -> go.Figure:
    """One row of weights as bars, one bar per word looked at, labelled in percent."""
    row = torch.as_tensor(weights, dtype=torch.float32).detach().cpu().flatten().tolist()
    if len(row) != len(words):
        raise ValueError(f"{len(words)} words need {len(words)} weights, got {len(row)}")
    fig = go.Figure(go.Bar(
        x=unique_labels(words), y=row, text=[f"{w:.0%}" for w in row], textposition="outside",
        marker_color="#3b528b", hovertemplate=f"{LOOKED_AT}: %{{x}}<br>weight: %{{y:.1%}}<extra></extra>",
    ))
    fig.update_layout(
        title=title, height=_style["size"] * 0.8, font={"size": _style["font"]},
        xaxis_title=LOOKED_AT, yaxis={"title": "weight", "tickformat": ".0%", "range": [0, 1.1]},
    )
    return fig
