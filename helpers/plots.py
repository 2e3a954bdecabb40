"""Plotly figures for attention: spotlight bars and heatmaps with words on both axes.

Rows are the word that looks, columns the word looked at; future words are greyed out.
The colour scale (cividis) is readable with red-green colour blindness. Every figure is at most
FIT_WIDTH pixels wide, so it fits JupyterLab's output area, also on a 1280x720 projector.
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import plotly.graph_objects as go
import plotly.io as pio
import torch
from plotly.subplots import make_subplots

from helpers.reading import unique_labels

COLOURS = "Cividis"
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
"""Okabe-Ito colours for heads, curves and bars: told apart with any common colour blindness."""
MASKED = "#d9d9d9"
INSIDE = 0.6
"""Side-by-side spotlights: a bar at least this long carries its label inside, so the label stays in its panel."""
LOOKS = "word that looks"
LOOKED_AT = "word looked at"
FIT_WIDTH = 820
"""Widest figure in pixels: JupyterLab's output area is about 850 px wide at 1280x720 (presenter mode). In
JupyterLab's own Presentation Mode with the left sidebar open it is narrower: the instructor guide says to
close the sidebar (Ctrl+B) before presenting."""
FIGURE_CONFIG = {"displayModeBar": False, "displaylogo": False}
"""How every figure is drawn (styled() makes it a `Figure`, which carries this): without plotly's mode bar,
whose ten buttons a class never uses and which would fill a keyboard user's tab order (drag to zoom and
double-click to reset still work)."""
COLOUR_BAR = {"tickformat": ".0%", "ticklabelposition": "outside bottom"}
"""A colour bar of shares: each label under its tick, so "100%" stays clear of the title above the bar."""
MAX_LABELLED = 40
"""Up to this many words every word gets an axis label; beyond it every k-th, and the axis says so."""


def text_lines(text: str, font: int, width: float = FIT_WIDTH) -> int:
    """About how many lines `text` wraps to at `font` pixels in `width` pixels, breaking only at plain spaces (a
    non-breaking one keeps its words together): a character is about half as wide as the font is high."""
    fit = max(1, int(width / (0.5 * font)))  # characters to a line
    lines, used = 1, 0
    for word in text.split(" "):
        need = len(word) + (1 if used else 0)
        if used and used + need > fit:  # the word goes to the next line
            lines, used, need = lines + 1, 0, len(word)
        used += need
        while used > fit:  # a word longer than a line breaks anyway
            lines, used = lines + 1, used - fit
    return lines if text else 0

_READING = {"font": 14, "size": 460, "tallest": 640, "widest": FIT_WIDTH, "grid": 640}
_PRESENTER = {"font": 22, "size": 620, "tallest": 580, "widest": FIT_WIDTH, "grid": 580}
_DECK = {**_PRESENTER, "widest": 1100, "grid": 700}
"""font: text size; size: a square figure's side; tallest: the most height a figure may take and still show
whole on the screen (JupyterLab shows about 650 px of notebook on a laptop's 1920x1080 screen at 125%, about
600 px on a 1280x720 projector), with its code above it on a deck's slide; widest: the widest figure or grid
of heads (a widget's controls and text keep to FIT_WIDTH); grid: the tallest grid of heads, whose word labels
need the height (on a deck's 1280x800 slide, with no notebook around it, the whole slide: its code goes on the
slide before)."""
PRESENTER_VARIABLE = "SPOTLIGHTS_PRESENTER"
"""Set to 1 in the environment (`make present`), every kernel starts in presenter mode: no cell to add."""
_style = dict(_PRESENTER if os.environ.get(PRESENTER_VARIABLE) == "1" else _READING)


class Figure(go.Figure):
    """A plotly figure drawn with FIGURE_CONFIG wherever a notebook shows it: the config goes with the figure,
    so importing this module leaves plotly's renderer settings as they were."""

    def _ipython_display_(self) -> None:
        if pio.renderers.render_on_display and pio.renderers.default:
            pio.show(self, config=FIGURE_CONFIG)
        else:
            print(repr(self))

    def _repr_mimebundle_(self, include: object = None, exclude: object = None, validate: bool = True,
                          **kwargs: object) -> dict:
        return super()._repr_mimebundle_(include, exclude, validate, **{"config": FIGURE_CONFIG, **kwargs})


def presenter_mode(on: bool = True, deck: bool = False) -> None:
    """Larger text (titles, labels, subplot titles, notes) for a projector (on), or the reading sizes (off).

    Figures keep within FIT_WIDTH either way, but with `deck` (tools.build_slides' decks), where figures and grids
    of heads may take a slide's width and a grid of heads its height. Figures drawn after the switch use the new
    sizes.
    """
    _style.update(_DECK if on and deck else _PRESENTER if on else _READING)


def presenting() -> bool:
    """True while presenter mode is on (a static copy may then start folded, to fit a projector's screen)."""
    return _style["font"] == _PRESENTER["font"]


def style() -> dict[str, int]:
    """The current font size, figure size and tallest figure, for widgets that build their own figures."""
    return dict(_style)


@contextmanager
def sizes(saved: dict[str, int]) -> Iterator[None]:
    """Draw at `saved` (what style() gave earlier) whatever the mode is now, then go back to the mode: a widget
    built in one mode keeps its sizes when it redraws after presenter_mode is switched."""
    now = dict(_style)
    _style.update(saved)
    try:
        yield
    finally:
        _style.update(now)


def styled(fig: go.Figure, width: int | None = None, height: int | None = None, tallest: int | None = None) -> Figure:
    """Apply the current text sizes to every piece of text (subplot titles too), cap the width at the widest
    and the height at `tallest` (default: the tallest figure the screen shows whole; figures are designed to fit,
    this is the backstop); returns it as a `Figure`, drawn without the mode bar."""
    font = _style["font"]
    fig.update_layout(width=min(int(width or _style["widest"]), _style["widest"]), font={"size": font},
                      title_font_size=font + 4, title_subtitle_font_size=font,
                      hoverlabel_font_size=font)  # tooltips as large as the text
    if height is not None:
        fig.update_layout(height=min(int(height), tallest or _style["tallest"]))
    fig.update_annotations(font_size=font)  # subplot titles are annotations with their own (small) size
    return fig if isinstance(fig, Figure) else Figure(fig)


def hung_title(text: str, subtitle: str) -> dict:
    """A title with a subtitle line, hung from the figure's top edge (a `<br><sup>` title placed by plotly's
    default can be clipped there); leave the figure a top margin of about six font sizes for it."""
    return {"text": text, "subtitle": {"text": subtitle}, "yref": "container", "y": 1, "yanchor": "top",
            "pad": {"t": 8}}


def word_axis(
    labels: Sequence[str], pixels: float, slanted: bool = True, every: int | None = None
) -> tuple[dict, str]:
    """Axis settings that label the words at a font that fits `pixels`, and a note.

    Every word is labelled up to MAX_LABELLED words, as long as its label stays readable (least_label px);
    beyond that every k-th word (or every `every`-th, to match another axis), and the note says which.
    Returns (axis properties, note); the note is "" when every word is labelled.
    """
    n = max(len(labels), 1)
    every = every or label_every(n, pixels, slanted)
    # x labels are slanted at 45 degrees, so neighbours sit only sin(45) ~ 0.7 of a word's width apart
    size = max(8, min(_style["font"], int(_spacing(slanted) * pixels * every / n)))
    # every `every`-th category from the first
    axis = {"tickmode": "linear", "tick0": 0, "dtick": every, "tickfont": {"size": size}}
    note = "" if every == 1 else f"every {_ordinal(every)} word labelled"
    return axis, note


def least_label() -> int:
    """The smallest word label worth drawing, in pixels: 10 at reading sizes, 12 on a projector."""
    return max(10, round(0.55 * _style["font"]))


def label_every(n_words: int, pixels: float, slanted: bool = True) -> int:
    """Label every k-th of `n_words` along `pixels`: k = 1 when every label fits at least least_label() px
    (and there are at most MAX_LABELLED words), else the smallest k that makes them fit."""
    fit = math.ceil(n_words * least_label() / (_spacing(slanted) * pixels))
    return max(1, math.ceil(n_words / MAX_LABELLED), fit)


def _spacing(slanted: bool) -> float:
    """The share of a word's slot its label's font may take: less for slanted labels, which sit closer."""
    return 0.65 if slanted else 0.85


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


def word_name(label: str, word: str, typed: str) -> str:
    """How figures, menus and summaries name a word: its label, and for a word the model read as '<unk>' the
    word as typed too ("<unk> (2) = quixotic"), the same everywhere."""
    return label if typed == word else f"{label} = {typed}"


def quoted(word: str) -> str:
    """A word in quotes: 'fox', or in double quotes a word that holds a quote mark itself (three in a row
    would say nothing)."""
    return f"\u201c{word}\u201d" if "'" in word else f"'{word}'"


def hover_texts(words: Sequence[str], originals: Sequence[str] | None = None) -> tuple[list, list]:
    """The tooltip text of every cell: (visible cells, masked cells), rows looking, columns looked at.

    `originals` are the words as typed, where the model read some as '<unk>': the tooltip names them.
    """
    originals = words if originals is None else originals
    if len(originals) != len(words):
        raise ValueError(f"{len(words)} words need {len(words)} original words, got {len(originals)}")
    named = [quoted(word_name(label, w, o)) for label, w, o in zip(unique_labels(words), words, originals, strict=True)]
    return ([[f"{looks} looks at {seen}" for seen in named] for looks in named],
            [[f"masked: {looks} cannot see the later word {seen}" for seen in named] for looks in named])


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
    grid = _as_grid(weights)  # [T, T]
    n, columns = grid.shape
    if len(words) != n or columns != n:
        raise ValueError(f"{len(words)} words need a {len(words)} x {len(words)} grid, "
                         f"got a [{n}, {columns}] grid ({n} rows, {columns} columns)")
    labels, (seen_text, masked_text) = unique_labels(words), hover_texts(words, originals)
    future = [[causal and c > r for c in range(n)] for r in range(n)]
    shown = go.Heatmap(
        z=[[None if f else v for v, f in zip(row, hide, strict=True)] for row, hide in zip(grid.tolist(), future,
                                                                                        strict=True)],
        x=labels, y=labels, zmin=0, zmax=zmax, colorscale=COLOURS, showscale=show_scale,
        colorbar=COLOUR_BAR | {"title": {"text": "weight", "side": "top"}} if show_scale else None,
        text=seen_text, hoverongaps=False, hovertemplate="%{text}: %{z:.1%}<extra></extra>",
    )
    masked = go.Heatmap(
        z=[[1 if f else None for f in hide] for hide in future], x=labels, y=labels,
        colorscale=[[0, MASKED], [1, MASKED]], showscale=False, text=masked_text, hoverongaps=False,
        hovertemplate="%{text}<extra></extra>",
    )
    return [shown, masked]


def heatmap_side(n_words: int) -> int:
    """Width of one heatmap's plot area in pixels: grows with the words, the figure staying within FIT_WIDTH."""
    return min(FIT_WIDTH - HEATMAP_FRAME[0], _style["size"] + 12 * max(0, n_words - 10))


HEATMAP_FRAME = (200, 160)
"""Pixels a one-heatmap figure needs around its plot area: (across: row labels and colour bar; down: title
and slanted column labels)."""


def heatmap_size(n_words: int, tallest: int | None = None) -> tuple[int, int]:
    """(width, height) of a one-heatmap figure's plot area: heatmap_side wide, and square unless the figure
    would be taller than `tallest` (default: the tallest the screen shows whole; less in a widget whose
    controls stay in view above it); then the rows get shorter instead."""
    side = heatmap_side(n_words)
    return side, min(side, min(tallest or _style["tallest"], _style["tallest"]) - HEATMAP_FRAME[1])


def attention_heatmap(
    weights: torch.Tensor | Sequence[Sequence[float]],
    words: Sequence[str],
    title: str = "Where each word looks",
    causal: bool = True,
    originals: Sequence[str] | None = None,
    tallest: int | None = None,
) -> go.Figure:
    """One head's [T, T] weights as a heatmap with words on both axes, at most `tallest` pixels high."""
    fig = go.Figure(heatmap_traces(weights, words, causal=causal, originals=originals))
    wide, tall = heatmap_size(len(words), tallest)
    fig.update_layout(title=title, margin={"t": 80}, **heatmap_axes(unique_labels(words), wide, tall))
    return styled(fig, width=wide + HEATMAP_FRAME[0], height=tall + HEATMAP_FRAME[1])


def heatmap_axes(labels: Sequence[str], pixels: float | None = None, tall: float | None = None) -> dict:
    """Layout settings that label both axes of a one-heatmap figure with words (the first word on top);
    `tall`: the plot area's height; when it is less than the width `pixels`, the rows get their own size."""
    pixels = pixels or heatmap_side(len(labels))
    short = bool(tall and tall < pixels)
    every = max(label_every(len(labels), pixels), label_every(len(labels), tall, slanted=False) if short else 1)
    axis, note = word_axis(labels, pixels, every=every)
    rows = word_axis(labels, tall, slanted=False, every=every)[0] if short else axis
    looked_at = LOOKED_AT + (f" ({note})" if note else "")
    return {"xaxis": {"title": {"text": looked_at}, "side": "bottom", "tickangle": -45, **axis},
            "yaxis": {"title": {"text": LOOKS}, "autorange": "reversed", **rows}}


GRID_FRAME = {"top": 3.4, "gap": 1.7, "bottom": 4.4, "across": 14}
"""A grid of heatmaps' frame in font sizes: the title above the first row, the panel title between rows,
the slanted column labels and axis title under the last row, and the row labels, axis title and colour bar
beside the panels."""


@dataclass(frozen=True)
class GridShape:
    """Where a grid of heatmaps puts its panels: rows and columns of them, each `wide` by `tall` pixels,
    and its frame in pixels (GRID_FRAME at the current font)."""

    rows: int
    cols: int
    wide: float
    tall: float
    frame: dict[str, int]

    @property
    def plots(self) -> float:
        """The plot areas' height with the gaps between them."""
        return self.rows * self.tall + (self.rows - 1) * self.frame["gap"]


def grid_shape(heads: int, cols: int = 2, tallest: int | None = None, side: float | None = None,
               width: int = FIT_WIDTH) -> GridShape:
    """The shape of a grid of `heads` heatmaps, `cols` to a row, at most `tallest` pixels high (default: the
    tallest figure the screen shows whole), `width` wide, and each at most `side` pixels across: square panels
    where the height allows, else wider than tall."""
    cols = max(1, min(heads, cols))
    rows = math.ceil(heads / cols)
    frame = {key: int(value * _style["font"]) for key, value in GRID_FRAME.items()}
    wide = min((width - frame["across"]) / cols, side or math.inf)  # pixels per panel, across
    budget = min(tallest or _style["tallest"], _style["grid"])
    tall = min(wide, (budget - frame["top"] - frame["bottom"] - (rows - 1) * frame["gap"]) / rows)
    return GridShape(rows, cols, wide, tall, frame)


def grid_words(labels: Sequence[str], shape: GridShape) -> tuple[dict, float]:
    """The word labels of a grid of heatmaps as layout settings (every panel's axes, the last row's axis
    titles, one under each column, the left margin), and how far left of the panels "word that looks" goes (its
    annotation's xshift)."""
    n, heads = len(labels), shape.rows * shape.cols
    every = max(label_every(n, shape.wide), label_every(n, shape.tall, slanted=False))
    columns, note = word_axis(labels, shape.wide, every=every)
    rows = word_axis(labels, shape.tall, slanted=False, every=every)[0]
    labels_width = int(max(map(len, labels), default=1) * rows["tickfont"]["size"] * 0.6) + 10
    layout: dict = {"margin": {"l": labels_width + 2 * _style["font"]}}
    for panel in range(1, heads + 1):
        suffix = "" if panel == 1 else str(panel)
        layout[f"xaxis{suffix}"] = dict(columns)
        layout[f"yaxis{suffix}"] = dict(rows)
    for panel in range(heads - shape.cols + 1, heads + 1):  # the last row names the columns, under each panel
        layout[f"xaxis{'' if panel == 1 else panel}"]["title"] = {"text": LOOKED_AT + (f" ({note})" if note else "")}
    return layout, -labels_width


def heads_grid(
    weights: torch.Tensor, words: Sequence[str], title: str = "Every head at once", causal: bool = True,
    originals: Sequence[str] | None = None, cols: int = 2, first_head: int = 0, tallest: int | None = None,
) -> go.Figure:
    """[H, T, T] weights as small heatmaps, `cols` to a row (four heads: a 2 x 2 grid), one colour scale.

    The panels share their words (they label the left column's rows and the last row's columns), and the
    grid keeps within `tallest` pixels (default: the tallest grid the screen shows whole, less for a
    widget whose controls must stay in view): on a projector its panels are wider than tall, and where the
    rows get too short for every word's label, every k-th word is labelled and the axis title says so.
    Panel titles count heads from `first_head` (for a grid that shows some heads of a layer).
    """
    if not isinstance(weights, torch.Tensor) or weights.dim() != 3:
        got = list(weights.shape) if isinstance(weights, torch.Tensor) else type(weights).__name__
        raise ValueError(f"heads_grid needs a [heads, words, words] tensor, got {got}")
    heads = weights.shape[0]
    shape = grid_shape(heads, cols, tallest or _style["grid"], width=_style["widest"])
    titles = [f"head {first_head + h}" for h in range(heads)]
    gap = shape.frame["gap"] / shape.plots if shape.rows > 1 else 0
    fig = make_subplots(rows=shape.rows, cols=shape.cols, subplot_titles=titles, horizontal_spacing=0.03,
                        vertical_spacing=gap)
    for h in range(heads):
        for trace in heatmap_traces(weights[h], words, causal=causal, show_scale=(h == 0), originals=originals):
            fig.add_trace(trace, row=h // shape.cols + 1, col=h % shape.cols + 1)
    fig.update_xaxes(tickangle=-45)
    fig.update_yaxes(autorange="reversed")
    # the panels share their words: only the left column labels its rows, only the last row its columns (the
    # axes are not plotly's "matched" ones)
    for h in range(heads):
        row, col = h // shape.cols + 1, h % shape.cols + 1
        fig.update_xaxes(showticklabels=h + shape.cols >= heads, row=row, col=col)
        fig.update_yaxes(showticklabels=col == 1, row=row, col=col)
    layout, looks_shift = grid_words(unique_labels(words), shape)
    fig.update_layout(layout)
    # one "word that looks" beside the whole left column, clear of its longest row label
    fig.add_annotation(text=LOOKS, textangle=-90, xref="paper", yref="paper", x=0, y=0.5, xanchor="right",
                       yanchor="middle", xshift=looks_shift, showarrow=False)
    fig.update_layout(title=title, margin={"t": shape.frame["top"], "b": shape.frame["bottom"]})
    return styled(fig, height=shape.plots + shape.frame["top"] + shape.frame["bottom"], tallest=_style["grid"])


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


def ink(background: str) -> str:
    """Black or white, whichever reads better on the colour `background` ('#rrggbb'): the larger contrast ratio
    of WCAG's relative luminance."""
    def linear(c: int) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(background[i : i + 2], 16)) for i in (1, 3, 5))
    light = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "black" if (light + 0.05) / 0.05 > 1.05 / (light + 0.05) else "white"


def spotlights_side_by_side(
    rows: Mapping[str, torch.Tensor | Sequence[float]], words: Sequence[str], title: str = "Several spotlights",
    marked: Collection[int] = (),
) -> go.Figure:
    """Several spotlights of one word side by side: one panel each, the words down the shared left edge (the
    first on top) and each weight as a bar across, labelled in percent. A row of the figure is one word, so
    the spotlights compare along it; the figure is as tall as the words need, not the spotlights. The words at
    the `marked` positions (clues, say) are in bold: a longer label would narrow the panels on a projector."""
    if not rows:
        raise ValueError("need at least one spotlight to draw")
    font, labels = _style["font"], unique_labels(words)
    labels = [f"<b>{label}</b>" if i in marked else label for i, label in enumerate(labels)]
    fig = make_subplots(rows=1, cols=len(rows), shared_yaxes=True, subplot_titles=list(rows),
                        horizontal_spacing=0.1 / len(rows))
    for c, weights in enumerate(rows.values(), start=1):
        row, colour = _as_row(weights, words), PALETTE[(c - 1) % len(PALETTE)]
        fig.add_trace(go.Bar(  # a long bar's label inside it, off the next panel; no label on a bar of 0%
            y=labels, x=row, orientation="h", text=[f"{w:.0%}" if w >= 0.005 else "" for w in row],
            textposition=["inside" if w >= INSIDE else "outside" for w in row], insidetextanchor="end",
            insidetextfont={"color": ink(colour), "size": font}, constraintext="none", marker_color=colour,
            cliponaxis=False,
            hovertemplate=f"%{{y}}<br>weight: %{{x:.1%}}<extra>{list(rows)[c - 1]}</extra>",
        ), row=1, col=c)
    fig.update_xaxes(range=[0, 1 + INSIDE / 2], tickvals=[0, 0.5, 1], showticklabels=False,  # the bars say it
                     title_text="weight")
    fig.update_yaxes(autorange="reversed", title_text=LOOKED_AT, col=1)
    fig.update_layout(title=title, showlegend=False, margin={"t": int(5 * font), "b": int(2.5 * font)})
    return styled(fig, height=int((1.5 * len(words) + 8) * font))
