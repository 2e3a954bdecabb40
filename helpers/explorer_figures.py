"""The attention explorer's figures as plain data for helpers.drawing: one head, every head, one word's spotlights.

Each function returns a `drawing.figure` dict sized with helpers.plots' rules (FIT_WIDTH, the tallest figure the
screen shows, every word labelled up to 40 words, else every k-th with a note on the axis), so a live update
sends numbers and words only. `static_figure` puts precomputed heatmaps behind two HTML menus for a page with
no kernel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from IPython.display import HTML

from helpers.drawing import bars, figure, heatmap, static_view
from helpers.plots import (
    FIT_WIDTH,
    HEATMAP_FRAME,
    LOOKED_AT,
    PALETTE,
    grid_shape,
    heatmap_side,
    heatmap_size,
    label_every,
    quoted,
    style,
    word_axis,
    word_name,
)
from helpers.reading import unique_labels


def word_names(words: Sequence[str], originals: Sequence[str] | None = None) -> list[str]:
    """How tooltips name each word: quoted, and a word read as '<unk>' with what was typed ('<unk> = zebra')."""
    originals = words if originals is None else originals
    if len(originals) != len(words):
        raise ValueError(f"{len(words)} words need {len(words)} original words, got {len(originals)}")
    return [quoted(word_name(label, w, o)) for label, w, o in zip(unique_labels(words), words, originals, strict=True)]


def _labelling(n: int, wide: float, tall: float) -> tuple[int, int, str]:
    """(every k-th word labelled, the labels' size, the x axis title) for n words over a wide x tall plot."""
    every = max(label_every(n, wide), label_every(n, tall, slanted=False) if tall < wide else 1)
    labels = [str(i) for i in range(n)]
    (columns, note), rows = word_axis(labels, wide, every=every), word_axis(labels, tall, slanted=False, every=every)[0]
    tick = min(columns["tickfont"]["size"], rows["tickfont"]["size"])
    return every, tick, LOOKED_AT + (f" (about {note})" if note else "")


def looked_at_most(weights: torch.Tensor, focus: int | None) -> list[int]:
    """The words the `focus` word looks at most in each head of [H, T, T] weights, strongest first: the ones a
    summary names, so their columns keep a label when a long sentence labels only every k-th word (the stronger
    one where two would crowd each other)."""
    return [] if focus is None else strongest(weights[:, focus, : focus + 1])


def strongest(rows: torch.Tensor) -> list[int]:
    """The word each row of [H, T] weights (one word's spotlight per head) looks at most, strongest first."""
    best = {}  # column -> its largest weight over the heads
    for row in rows:
        c = int(row.argmax())
        best[c] = max(best.get(c, 0.0), float(row[c]))
    return sorted(best, key=lambda c: -best[c])


def head_figure(weights: torch.Tensor, words: Sequence[str], title: str, originals: Sequence[str] | None = None,
                tallest: int | None = None, focus: int | None = None) -> dict:
    """One head's [T, T] weights as a heatmap (rows: the word that looks), at most `tallest` pixels high; the
    `focus` row always labelled, and the columns it looks at most."""
    wide, tall = heatmap_size(len(words), tallest)
    every, tick, xtitle = _labelling(len(words), wide, tall)
    panel = heatmap(weights, unique_labels(words), word_names(words, originals), every=every, tick=tick,
                    xtitle=xtitle, focus=focus, keep=looked_at_most(weights[None], focus))
    return figure(title, [panel], min(FIT_WIDTH, wide + HEATMAP_FRAME[0]), tall + HEATMAP_FRAME[1], style()["font"],
                  scale="weight")


def grid_figure(weights: torch.Tensor, words: Sequence[str], title: str, originals: Sequence[str] | None = None,
                tallest: int | None = None, first_head: int = 0, cols: int = 4, focus: int | None = None,
                side: float | None = None) -> dict:
    """[H, T, T] weights as a grid of heatmaps `cols` to a row (four heads: one row of square panels, which show
    a pattern better than a flat 2 x 2 on a wide screen), one colour scale, at most `tallest` pixels high; the
    left column labels the rows (the `focus` row always), the last row the columns (always the one the focus row
    looks at most in each head above, so that every word a summary names for a head has its label under that
    head). A panel is at most `side` pixels across, and never larger than the same heatmap alone, so one or two
    heads do not fill the screen."""
    heads, widest = weights.shape[0], style()["widest"]  # a deck's static copy: a slide's width
    shape = grid_shape(heads, cols, tallest, side=min(side or math.inf, heatmap_side(len(words))), width=widest)
    every, tick, xtitle = _labelling(len(words), shape.wide, shape.tall)
    labels, names = unique_labels(words), word_names(words, originals)
    panels = [heatmap(weights[h], labels, names, title=f"head {first_head + h}", every=every, tick=tick,
                      show_x=h + shape.cols >= heads, show_y=h % shape.cols == 0, xtitle=xtitle, focus=focus,
                      keep=looked_at_most(weights[h % shape.cols :: shape.cols], focus)) for h in range(heads)]
    height = shape.plots + shape.frame["top"] + shape.frame["bottom"]
    width = min(widest, shape.cols * shape.wide + shape.frame["across"])
    return figure(title, panels, width, height, style()["font"], cols=shape.cols, scale="weight")


def focus_figure(rows: torch.Tensor, words: Sequence[str], title: str) -> dict:
    """rows [H, T]: one word's weights from each head, as bars side by side over the words it can see."""
    labels, font = unique_labels(words), style()["font"]
    every, tick, xtitle = _labelling(len(labels), FIT_WIDTH - 250, FIT_WIDTH)
    heads = rows.shape[0]
    series = [(f"head {h}", rows[h].tolist(), PALETTE[h % len(PALETTE)]) for h in range(heads)]
    panel = bars(labels, series, every=every, tick=tick, xtitle=xtitle, focus=len(labels) - 1,  # the word that looks
                 keep=strongest(rows))  # each head's tallest bar keeps its word's label
    bold = "each head's strongest word" if heads > 1 else "the strongest word"
    return figure(title, [panel], FIT_WIDTH, int(style()["size"] * 0.75), font, legend=heads > 1,
                  subtitle=f"in bold: {bold}")


def static_figure(weights: Sequence[torch.Tensor], sentences: Sequence[Sequence[str]], titles: Sequence[str],
                  originals: Sequence[Sequence[str]] | None = None, labels: Sequence[str] | None = None) -> HTML:
    """Heatmaps behind two menus, which sentence (labelled `labels`, default its first words) and which head,
    for a page with no kernel, titled "Head 0 of the {titles[s]}" (its model) as the live explorer's heatmap is.
    weights[s] is [H, T_s, T_s] for the words sentences[s]."""
    if not weights or len(weights) != len(sentences):
        raise ValueError(f"need one weights tensor per sentence, got {len(weights)} for {len(sentences)}")
    heads = {w.shape[0] for w in weights}
    if len(heads) != 1:
        raise ValueError(f"every sentence needs the same number of heads, got {sorted(heads)}")
    (n_heads,) = heads
    typed = list(originals) if originals is not None else [None] * len(sentences)
    tallest = style()["grid"] - 6 * style()["font"]  # as tall as a figure alone may be, the menus above it
    states = {(s, h): head_figure(att[h], words, f"Head {h} of the {name}", orig, tallest)
              for s, (att, words, orig, name) in enumerate(zip(weights, sentences, typed, titles, strict=True))
              for h in range(n_heads)}
    names = list(labels) if labels is not None else [short_label(words) for words in sentences]
    return static_view(states, [("sentence", names), ("head", [f"head {h}" for h in range(n_heads)])],
                       font=style()["font"])


def short_label(words: Sequence[str], limit: int = 6) -> str:
    """The first few words of a sentence, for a menu label."""
    return " ".join(words[:limit]) + (" ..." if len(words) > limit else "")
