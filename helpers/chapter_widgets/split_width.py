"""Chapter 4's "split the width": pick a head count for width 128 and see what each head gets and costs.

For 1, 2, 4, 8 or 16 heads it shows how the 128 numbers of each word are cut into slices, the width per
head, the attention layer's parameters counted from a real `MultiHeadAttention` (with and without the
output projection), and the heatmaps of an untrained course model's heads on one sentence. A second switch
shows the trained four-head checkpoint on the same sentence. Everything is computed when the widget is
built, so a click only swaps what is on show.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import ipywidgets as widgets
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from helpers.attention import MultiHeadAttention
from helpers.chapter_widgets.base import ChapterWidget
from helpers.model import count_parameters, course_model
from helpers.plots import FIT_WIDTH, LOOKED_AT, LOOKS, PALETTE, heads_grid, heatmap_traces, style
from helpers.reading import Loader, attention, last_word, load_cached, read_sentence, unique_labels
from helpers.registry import STORY_WORLD, trained_on
from helpers.static import static_build
from helpers.stories import example_sentences

HEAD_COUNTS = (1, 2, 4, 8, 16)
WIDTH = 128
UNTRAINED, TRAINED = "untrained layer", "trained four-head checkpoint"
TRAINED_CHECKPOINT = trained_on(STORY_WORLD, heads=4).name
"""The checkpoint the "trained" switch shows: the four-head model of the story world (helpers.registry)."""


@dataclass(frozen=True)
class Option:
    """One thing the widget can show: a layer's head count, its parameter counts and its weights [H, T, T]."""

    layer: str
    heads: int
    params_with_proj: int
    params_without_proj: int
    att: torch.Tensor


def layer_parameters(width: int, heads: int) -> tuple[int, int]:
    """Parameters of one MultiHeadAttention layer, counted from the model code: (with, without) projection."""
    return tuple(count_parameters(MultiHeadAttention(width, heads, out_proj=proj)) for proj in (True, False))


def build_options(sentence: str, loader: Loader) -> tuple[list[str], list[Option]]:
    """The sentence's words and every option: an untrained course model per head count, then the checkpoint."""
    trained = loader(TRAINED_CHECKPOINT)
    reading = read_sentence(trained, sentence)
    options = []
    for heads in HEAD_COUNTS:
        untrained = course_model(heads=heads, seed=0, width=WIDTH)
        options.append(Option(UNTRAINED, heads, *layer_parameters(WIDTH, heads), attention(untrained, reading.ids)))
    heads = trained.config.heads
    options.append(Option(TRAINED, heads, *layer_parameters(trained.config.width, heads),
                          attention(trained, reading.ids)))
    return reading.words, options


def split_strip(heads: int, width: int, font: int) -> str:
    """HTML: one word's `width` numbers as a bar cut into one coloured slice per head."""
    d = width // heads
    cells = "".join(
        f"<div title='head {h}: numbers {h * d} to {(h + 1) * d - 1}' style='flex: {d}; background: "
        f"{PALETTE[h % len(PALETTE)]}; color: white; text-align: center; border-right: 1px solid white; "
        f"overflow: hidden; white-space: nowrap'>{d if heads > 8 else f'head {h}: {d}'}</div>"
        for h in range(heads)
    )
    return (f"<div style='font-size: {font}px'>One word's {width} numbers, cut into {heads} slice"
            f"{'s' if heads > 1 else ''} of {d}:</div><div style='display: flex; font-size: {font}px; "
            f"max-width: {FIT_WIDTH}px'>{cells}</div>")


def parameter_table(option: Option, width: int, font: int) -> str:
    """HTML: the layer's parameter counts, with and without the output projection."""
    d = width // option.heads
    rows = [("heads", f"{option.heads}"), ("numbers per head", f"{d}"),
            ("query, key, value (3 x 128 x 128)", f"{option.params_without_proj:,}"),
            ("output projection (128 x 128 + 128)", f"{option.params_with_proj - option.params_without_proj:,}"),
            ("attention layer with the projection", f"{option.params_with_proj:,}"),
            ("attention layer without it", f"{option.params_without_proj:,}")]
    body = "".join(f"<tr><td style='padding-right: 1em'>{a}</td><td style='text-align: right'>{b}</td></tr>"
                   for a, b in rows)
    return f"<table style='font-size: {font}px'>{body}</table>"


def _grid(option: Option, words: Sequence[str]) -> go.Figure:
    """The option's heads as a grid of heatmaps: two to a row up to four heads, then four to a row."""
    cols = 2 if option.heads <= 4 else 4
    title = (f"{option.heads} untrained head{'s' if option.heads > 1 else ''}" if option.layer == UNTRAINED
             else "The trained four-head checkpoint")
    return heads_grid(option.att, words, title=title, cols=cols)


def _shown_in(fig: go.Figure) -> widgets.Output:
    """An output area holding a plain plotly figure: drawn once by JupyterLab's plotly renderer and never
    updated, so six of them cost the page far less than six live FigureWidgets."""
    figure = json.loads(fig.to_json())  # plain JSON: what the plotly renderer reads
    out = widgets.Output()
    out.outputs = ({"output_type": "display_data", "metadata": {},
                    "data": {"application/vnd.plotly.v1+json": {**figure, "config": {}},
                             "text/plain": f"<plotly figure: {fig.layout.title.text}>"}},)
    return out


class SplitTheWidth(ChapterWidget):
    """Head-count buttons, an untrained/trained switch, the split, the counts and the heads' heatmaps."""

    css_class = "split-the-width"

    def __init__(self, sentence: str | None = None, loader: Loader = load_cached) -> None:
        super().__init__()
        self.sentence = sentence if sentence is not None else example_sentences()[1]
        self.words, self.options = build_options(self.sentence, loader)
        self.heads, self.layer = 4, UNTRAINED
        self.head_buttons = widgets.ToggleButtons(options=list(HEAD_COUNTS), value=self.heads,
                                                  description="heads", style={"button_width": "4em"})
        self.layer_buttons = widgets.ToggleButtons(options=[UNTRAINED, TRAINED], value=self.layer,
                                                   description="layer", style={"button_width": "16em"})
        self.head_buttons.observe(self.calls(self.set_heads), names="value")
        self.layer_buttons.observe(self.calls(self.set_layer), names="value")
        self.strip, self.table = widgets.HTML(), widgets.HTML()
        self.figures = [_grid(option, self.words) for option in self.options]
        self.boxes = [widgets.Box([_shown_in(fig)]) for fig in self.figures]
        self.children = [self.css, self.head_buttons, self.layer_buttons, self.message, self.strip, self.table,
                         self.summary, *self.boxes]
        self._redraw()

    @property
    def option(self) -> Option:
        """What is on show now."""
        if self.layer == TRAINED:
            return self.options[-1]
        return self.options[HEAD_COUNTS.index(self.heads)]

    # ----- what code (and the tests) call ------------------------------------------------------

    def set_heads(self, heads: int) -> None:
        """Split width 128 between `heads` heads (1, 2, 4, 8 or 16), in the untrained layer."""
        with self.report():
            if heads not in HEAD_COUNTS or isinstance(heads, bool):
                self.set_quietly(self.head_buttons, self.heads)
                raise ValueError(f"Pick a head count from {', '.join(map(str, HEAD_COUNTS))}, got {heads!r}: "
                                 f"each must divide the width {WIDTH} evenly.")
            self.heads, self.layer = heads, UNTRAINED
            self._redraw()

    def set_layer(self, layer: str) -> None:
        """Show the untrained layer, or the trained four-head checkpoint (its head count is fixed)."""
        with self.report():
            if layer not in (UNTRAINED, TRAINED):
                self.set_quietly(self.layer_buttons, self.layer)
                raise ValueError(f"Pick '{UNTRAINED}' or '{TRAINED}', got {layer!r}.")
            self.layer = layer
            if layer == TRAINED:
                self.heads = self.options[-1].heads
            self._redraw()

    # ----- drawing -----------------------------------------------------------------------------------

    def _redraw(self) -> None:
        option = self.option
        self.set_quietly(self.head_buttons, self.heads)
        self.set_quietly(self.layer_buttons, self.layer)
        self.head_buttons.disabled = self.layer == TRAINED
        for box, other in zip(self.boxes, self.options, strict=True):
            box.layout = widgets.Layout(**(_SHOWN if other is option else _HIDDEN))
        self.strip.value = split_strip(option.heads, WIDTH, self.font)
        self.table.value = parameter_table(option, WIDTH, self.font)
        self.say(summary_line(option, self.words))


_SHOWN = {"visibility": "visible"}
_HIDDEN = {"visibility": "hidden", "height": "0px", "overflow": "hidden"}
"""Figures stay in the page and are only hidden, as in the explorer (a removed plotly view stops updating)."""


def summary_line(option: Option, words: Sequence[str]) -> str:
    """In words: the split, the cost, and which word each head's spotlight from the last word likes best."""
    labels = unique_labels(words)
    last = last_word(words)
    favourite = option.att[:, last].argmax(dim=-1).tolist()  # [H]: where the last word looks hardest, per head
    which = "trained" if option.layer == TRAINED else "untrained"
    return (f"Width {WIDTH} split between {option.heads} head{'s' if option.heads > 1 else ''}: "
            f"{WIDTH // option.heads} numbers each. The layer has {option.params_with_proj:,} parameters with the "
            f"output projection, {option.params_without_proj:,} without. In the {which} layer, "
            f"'{labels[last]}' looks hardest at: "
            + ", ".join(f"head {h} → '{labels[j]}'" for h, j in enumerate(favourite)) + ".")


def split_the_width(sentence: str | None = None) -> SplitTheWidth | go.Figure:
    """The live widget, on `sentence` (default: the story-world sentence chapter 4 uses).

    In a site or slide build (helpers.static.static_build()) it returns the static copy instead.
    """
    if static_build():
        return static_split_the_width(sentence)
    return SplitTheWidth(sentence)


def static_split_the_width(sentence: str | None = None, loader: Loader = load_cached) -> go.Figure:
    """Without a kernel: one figure with a 4 x 4 grid of slots and a button per option (no kernel needed).

    Each option owns one heatmap per head in the first slots; its button shows those, hides the unused
    slots' axes, and puts the split and the parameter counts in the title.
    """
    words, options = build_options(sentence if sentence is not None else example_sentences()[1], loader)
    slots = max(HEAD_COUNTS)
    fig = make_subplots(rows=4, cols=4, subplot_titles=[f"head {h}" for h in range(slots)],
                        horizontal_spacing=0.04, vertical_spacing=0.08)
    owner = []  # which option each trace belongs to
    for n, option in enumerate(options):
        for h in range(option.heads):
            shown = heatmap_traces(option.att[h], words, show_scale=h == 0)[0]
            shown.visible = n == HEAD_COUNTS.index(4)
            fig.add_trace(shown, row=h // 4 + 1, col=h % 4 + 1)
            owner.append(n)
    titles = list(fig.layout.annotations)
    buttons = []
    for n, option in enumerate(options):
        name = f"{option.heads} heads" if option.layer == UNTRAINED else "trained, 4 heads"
        layout = {"title.text": (f"{name}: {WIDTH // option.heads} numbers per head; "
                                 f"{option.params_with_proj:,} parameters ({option.params_without_proj:,} "
                                 "without the output projection)"),
                  "annotations": titles[: option.heads]}
        for slot in range(1, slots + 1):
            suffix = "" if slot == 1 else str(slot)
            layout[f"xaxis{suffix}.visible"] = layout[f"yaxis{suffix}.visible"] = slot <= option.heads
        buttons.append({"label": name, "method": "update", "args": [{"visible": [o == n for o in owner]}, layout]})
    s = style()
    fig.update_layout(
        width=FIT_WIDTH, height=FIT_WIDTH + 100, font={"size": s["font"]}, margin={"t": 170},
        plot_bgcolor="white",  # unused slots stay blank
        title={"y": 0.99, "yanchor": "top", "font": {"size": s["font"]}},
        updatemenus=[{"type": "buttons", "direction": "right", "buttons": buttons, "active": HEAD_COUNTS.index(4),
                      "x": 0.0, "y": 1.03, "xanchor": "left", "yanchor": "bottom"}],
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(tickangle=-45)
    fig.update_yaxes(title_text=LOOKS, col=1)
    fig.update_xaxes(title_text=LOOKED_AT, row=4)
    start = buttons[HEAD_COUNTS.index(4)]["args"][1]
    fig.layout.title.text = start["title.text"]
    for key, value in start.items():
        if key.endswith(".visible"):
            fig.layout[key.split(".")[0]].visible = value
    fig.layout.annotations = start["annotations"]
    return fig
