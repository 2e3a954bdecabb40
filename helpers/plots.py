"""Plotly figures for attention: spotlight bars and heatmaps with words on both axes.

Rows are the word that looks, columns the word looked at; future words are greyed out.
The colour scale (cividis) is readable with red-green colour blindness. Every figure is at most
FIT_WIDTH pixels wide, so it fits JupyterLab's output area, also on a 1280x720 projector.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from helpers.reading import unique_labels

COLOURS = "Cividis"
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
"""Okabe-Ito colours for heads, curves and bars: told apart with any common colour blindness."""
MASKED = "#d9d9d9"
LOOKS = "word that looks"
LOOKED_AT = "word looked at"
FIT_WIDTH = 820
"""Widest figure in pixels: JupyterLab's output area is about 850 px wide at 1280x720 (presenter mode)."""
COLOUR_BAR = {"tickformat": ".0%", "ticklabelposition": "outside bottom"}
"""A colour bar of shares: each label under its tick, so "100%" stays clear of the title above the bar."""
MAX_LABELLED = 40
"""Up to this many words every word gets an axis label; beyond it every k-th, and the axis says so."""
_READING, _PRESENTER = {"font": 14, "size": 460, "tallest": 900}, {"font": 22, "size": 620, "tallest": 580}
"""font: text size; size: a square figure's side; tallest: the most height a figure may take and still show
whole on the screen (JupyterLab shows about 600 px of notebook at 1280x720)."""
_style = dict(_READING)


def presenter_mode(on: bool = True) -> None:
    """Larger text (titles, labels, subplot titles, notes) for a projector (on), or the reading sizes (off).

    Figures keep within FIT_WIDTH either way; figures drawn after the switch use the new sizes.
    """
    _style.update(_PRESENTER if on else _READING)


def style() -> dict[str, int]:
    """The current font size, figure size and tallest figure, for widgets that build their own figures."""
    return dict(_style)


def styled(fig: go.Figure, width: int = FIT_WIDTH, height: int | None = None) -> go.Figure:
    """Apply the current text sizes to every piece of text (subplot titles too) and cap the width."""
    font = _style["font"]
    fig.update_layout(width=min(int(width), FIT_WIDTH), font={"size": font}, title_font_size=font + 4,
                      title_subtitle_font_size=font)
    if height is not None:
        fig.update_layout(height=int(height))
    fig.update_annotations(font_size=font)  # subplot titles are annotations with their own (small) size
    return fig


def hung_title(text: str, subtitle: str) -> dict:
    """A title with a subtitle line, hung from the figure's top edge (a `<br><sup>` title placed by plotly's
    default can be clipped there); leave the figure a top margin of about six font sizes for it."""
    return {"text": text, "subtitle": {"text": subtitle}, "yref": "container", "y": 1, "yanchor": "top",
            "pad": {"t": 8}}


def word_axis(labels: Sequence[str], pixels: float, slanted: bool = True) -> tuple[dict, str]:
    """Axis settings that label every word (up to MAX_LABELLED) at a font that fits `pixels`, and a note.

    Returns (axis properties, note); the note is "" when every word is labelled, else says which are.
    """
    n = max(len(labels), 1)
    every = 1 if n <= MAX_LABELLED else math.ceil(n / MAX_LABELLED)
    # x labels are slanted at 45 degrees, so neighbours sit only sin(45) ~ 0.7 of a word's width apart
    size = max(8, min(_style["font"], int((0.65 if slanted else 0.85) * pixels * every / n)))
    # every `every`-th category from the first; plain numbers, so a live figure updates them cheaply
    axis = {"tickmode": "linear", "tick0": 0, "dtick": every, "tickfont": {"size": size}}
    note = "" if every == 1 else f"every {_ordinal(every)} word labelled"
    return axis, note


def _ordinal(k: int) -> str:
    """2 -> '2nd', 3 -> '3rd', 4 -> '4th' (a 128-word context needs at most every 4th)."""
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def _as_grid(weights: torch.Tensor | Sequence[Sequence[float]]) -> torch.Tensor:
    try:
        grid = torch.as_tensor(weights, dtype=torch.float32).detach().cpu()
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"a heatmap needs a grid of numbers (a tensor, or a list of rows of equal length), "
                         f"got a {type(weights).__name__} that is not one ({err})") from None
    if grid.dim() != 2:
        raise ValueError(f"a heatmap needs a 2-D [looking words, looked-at words] grid, got {list(grid.shape)}")
    return grid


@functools.lru_cache(maxsize=64)
def _hover_texts(words: tuple[str, ...], originals: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """hover_texts as [T, T] string arrays, kept for the last sentences: a head change reuses them."""
    named = [label if o == w else f"{label} ({o})"
             for label, w, o in zip(unique_labels(words), words, originals, strict=True)]
    seen = np.array([[f"'{looks}' looks at '{seen}'" for seen in named] for looks in named], dtype=str)
    masked = np.array([[f"masked: '{looks}' cannot see the later word '{seen}'" for seen in named]
                       for looks in named], dtype=str)
    seen.flags.writeable = masked.flags.writeable = False  # shared between calls: nobody may change them
    return seen, masked


def hover_texts(words: Sequence[str], originals: Sequence[str] | None = None) -> tuple[list, list]:
    """The tooltip text of every cell: (visible cells, masked cells), rows looking, columns looked at.

    `originals` are the words as typed, where the model read some as '<unk>': the tooltip names them.
    """
    seen, masked = hover_arrays(words, originals)
    return seen.tolist(), masked.tolist()


def hover_arrays(words: Sequence[str], originals: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """hover_texts as read-only [T, T] numpy string arrays (what a live figure update sends)."""
    if originals is None:
        originals = words
    if len(originals) != len(words):
        raise ValueError(f"{len(words)} words need {len(words)} original words, got {len(originals)}")
    return _hover_texts(tuple(words), tuple(originals))


@dataclass(frozen=True)
class HeatmapCells:
    """What the two heatmap traces show, as numpy arrays a live figure takes without plotly's slow list checks.

    weights [T, T]: the weights, None over the masked future; future [T, T]: 1 over the future, else None;
    labels [T]: the axis labels; seen_text, masked_text [T, T]: the tooltips of the two traces.
    """

    weights: np.ndarray
    future: np.ndarray
    labels: list[str]
    seen_text: np.ndarray
    masked_text: np.ndarray


def heatmap_cells(
    weights: torch.Tensor | Sequence[Sequence[float]],
    words: Sequence[str],
    causal: bool = True,
    originals: Sequence[str] | None = None,
) -> HeatmapCells:
    """The cells of one head's heatmap: weights and grey future as object arrays (None = no cell), tooltips."""
    grid = _as_grid(weights)  # [T, T] float32
    n, columns = grid.shape
    if len(words) != n or columns != n:
        raise ValueError(f"{len(words)} words need a {len(words)} x {len(words)} grid, "
                         f"got a [{n}, {columns}] grid ({n} rows, {columns} columns)")
    future = np.triu(np.ones((n, n), dtype=bool), k=1) if causal else np.zeros((n, n), dtype=bool)
    shown = grid.numpy().astype(float).astype(object)  # Python floats: None can stand for a masked cell
    shown[future] = None
    hidden = np.where(future, 1, None)
    seen_text, masked_text = hover_arrays(words, originals)
    return HeatmapCells(shown, hidden, unique_labels(words), seen_text, masked_text)


def heatmap_traces(
    weights: torch.Tensor | Sequence[Sequence[float]],
    words: Sequence[str],
    causal: bool = True,
    zmax: float = 1.0,
    show_scale: bool = True,
    originals: Sequence[str] | None = None,
) -> list[go.Heatmap]:
    """Two heatmap traces: the weights, and grey cells over the masked future (when causal).

    Each trace answers the hover only on its own cells (hoverongaps off): a visible cell names both words
    and its weight in percent, a masked cell says it is masked.
    """
    cells = heatmap_cells(weights, words, causal=causal, originals=originals)
    shown = go.Heatmap(
        z=cells.weights.tolist(), x=cells.labels, y=cells.labels, zmin=0, zmax=zmax, colorscale=COLOURS,
        showscale=show_scale,
        colorbar=COLOUR_BAR | {"title": {"text": "weight", "side": "top"}} if show_scale else None,
        text=cells.seen_text.tolist(), hoverongaps=False, hovertemplate="%{text}: %{z:.1%}<extra></extra>",
    )
    masked = go.Heatmap(
        z=cells.future.tolist(), x=cells.labels, y=cells.labels, colorscale=[[0, MASKED], [1, MASKED]],
        showscale=False, text=cells.masked_text.tolist(), hoverongaps=False,
        hovertemplate="%{text}<extra></extra>",
    )
    return [shown, masked]


def heatmap_side(n_words: int) -> int:
    """Side of one heatmap's plot area in pixels: grows with the words, the figure staying within FIT_WIDTH."""
    return min(FIT_WIDTH - 200, _style["size"] + 12 * max(0, n_words - 10))


def attention_heatmap(
    weights: torch.Tensor | Sequence[Sequence[float]],
    words: Sequence[str],
    title: str = "Where each word looks",
    causal: bool = True,
    originals: Sequence[str] | None = None,
) -> go.Figure:
    """One head's [T, T] weights as a heatmap with words on both axes."""
    fig = go.Figure(heatmap_traces(weights, words, causal=causal, originals=originals))
    fig.update_layout(title=title, margin={"t": 80}, **heatmap_axes(unique_labels(words)))
    side = heatmap_side(len(words))
    return styled(fig, width=side + 200, height=side + 160)


def heatmap_axes(labels: Sequence[str], pixels: float | None = None, tall: float | None = None) -> dict:
    """Layout settings that label both axes of a one-heatmap figure with words (the first word on top);
    `tall`: the plot area's height; when it is less than the width `pixels`, the rows get their own size."""
    pixels = pixels or heatmap_side(len(labels))
    axis, note = word_axis(labels, pixels)
    rows = word_axis(labels, tall, slanted=False)[0] if tall and tall < pixels else axis
    looked_at = LOOKED_AT + (f" ({note})" if note else "")
    return {"xaxis": {"title": {"text": looked_at}, "side": "bottom", "tickangle": -45, **axis},
            "yaxis": {"title": {"text": LOOKS}, "autorange": "reversed", **rows}}


def heads_grid(
    weights: torch.Tensor, words: Sequence[str], title: str = "Every head at once", causal: bool = True,
    originals: Sequence[str] | None = None, cols: int = 2,
) -> go.Figure:
    """[H, T, T] weights as small heatmaps, `cols` to a row (four heads: a 2 x 2 grid), one colour scale."""
    if not isinstance(weights, torch.Tensor) or weights.dim() != 3:
        got = list(weights.shape) if isinstance(weights, torch.Tensor) else type(weights).__name__
        raise ValueError(f"heads_grid needs a [heads, words, words] tensor, got {got}")
    heads = weights.shape[0]
    cols = max(1, min(heads, cols))
    rows = math.ceil(heads / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[f"head {h}" for h in range(heads)],
                        horizontal_spacing=0.12, vertical_spacing=0.22 / rows * 2 if rows > 1 else 0.1)
    for h in range(heads):
        for trace in heatmap_traces(weights[h], words, causal=causal, show_scale=(h == 0), originals=originals):
            fig.add_trace(trace, row=h // cols + 1, col=h % cols + 1)
    panel = (FIT_WIDTH - 220) / cols  # pixels per heatmap
    axis, note = word_axis(unique_labels(words), panel)
    fig.update_xaxes(tickangle=-45, **axis)
    fig.update_yaxes(autorange="reversed", **axis)
    for r in range(1, rows + 1):
        fig.update_yaxes(title_text=LOOKS, row=r, col=1)
    fig.update_xaxes(title_text=LOOKED_AT + (f" ({note})" if note else ""), row=rows)
    fig.update_layout(title=title, margin={"t": 90})
    return styled(fig, height=rows * (panel + 110) + 120)


def spotlight_bars(
    weights: torch.Tensor | Sequence[float], words: Sequence[str], title: str = "One word's spotlight"
) -> go.Figure:
    """One row of weights as bars, one bar per word looked at, labelled in percent."""
    row = _as_row(weights, words)
    fig = go.Figure(_bars(row, words))
    fig.update_layout(title=title, xaxis_title=LOOKED_AT,
                      yaxis={"title": "weight", "tickformat": ".0%", "range": [0, 1.15]})
    return styled(fig, width=_style["size"] + 260, height=_style["size"] * 0.8)


def _as_row(weights: torch.Tensor | Sequence[float], words: Sequence[str]) -> list[float]:
    row = torch.as_tensor(weights, dtype=torch.float32).detach().cpu().flatten().tolist()
    if len(row) != len(words):
        raise ValueError(f"{len(words)} words need {len(words)} weights, got {len(row)}")
    return row


def _bars(row: Sequence[float], words: Sequence[str], colour: str = "#3b528b") -> go.Bar:
    return go.Bar(
        x=unique_labels(words), y=list(row), text=[f"{w:.0%}" for w in row], textposition="outside",
        marker_color=colour, cliponaxis=False,
        hovertemplate=f"{LOOKED_AT}: %{{x}}<br>weight: %{{y:.1%}}<extra></extra>",
    )


def stacked_spotlights(
    rows: Mapping[str, torch.Tensor | Sequence[float]], words: Sequence[str], title: str = "Several spotlights"
) -> go.Figure:
    """Several spotlights of one word, one bar chart per spotlight, stacked over the same words."""
    if not rows:
        raise ValueError("need at least one spotlight to draw")
    fig = make_subplots(rows=len(rows), cols=1, shared_xaxes=True, subplot_titles=list(rows),
                        vertical_spacing=0.35 / len(rows))
    for r, weights in enumerate(rows.values(), start=1):
        fig.add_trace(_bars(_as_row(weights, words), words, PALETTE[(r - 1) % len(PALETTE)]), row=r, col=1)
        fig.update_yaxes(title_text="weight", row=r, col=1)
    fig.update_yaxes(tickformat=".0%", range=[0, 1.3], nticks=3)
    fig.update_xaxes(title_text=LOOKED_AT, tickangle=-45, row=len(rows), col=1)
    fig.update_layout(title=title, showlegend=False, margin={"t": 90})
    return styled(fig, height=150 + len(rows) * (_style["font"] * 9))
