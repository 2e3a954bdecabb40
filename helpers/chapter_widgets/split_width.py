"""Chapter 4's "split the width": pick a head count for width 128 and see what each head gets and costs.

For 1, 2, 4, 8 or 16 heads it shows how the 128 numbers of each word are cut into slices, the width per
head, the parameters of the course model's attention layer (query, key and value, plus the output projection
that its one-head model leaves out), and the heatmaps of an untrained course model's heads on one sentence, four
heads at a time (a picker shows the others), so that each heatmap's words stay readable on a projector. A second switch
shows the trained four-head checkpoint on the same sentence. Everything is computed when the widget is
built, so a click only swaps what is on show.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import ipywidgets as widgets
import torch
from IPython.display import HTML

from helpers.chapter_widgets.base import ChapterWidget, unbroken
from helpers.drawing import Drawing, static_view
from helpers.explorer_figures import grid_figure
from helpers.model import CourseModel, count_parameters, course_model
from helpers.plots import FIT_WIDTH, PALETTE, grid_shape, ink, style, word_name
from helpers.reading import Loader, Reading, attention, last_word, load_cached, read_sentence, unique_labels
from helpers.registry import STORY_WORLD, heads_named, trained_on
from helpers.static import static_build
from helpers.stories import example_sentences

HEAD_COUNTS = (1, 2, 4, 8, 16)
WIDTH = 128
UNTRAINED, TRAINED = "untrained layer", "trained four-head checkpoint"
TRAINED_CHECKPOINT = trained_on(STORY_WORLD, heads=4).name
"""The checkpoint the "trained" switch shows: the four-head model of the story world (helpers.registry)."""
AT_ONCE = 4
"""Heads drawn at once: one row of four square heatmaps keeps their patterns readable, also on a projector."""
ABOVE_AND_BELOW = 14
"""Lines of text (at the widget's font size) that the two rows of controls, the split with the parameter count
under it and the summary above the grid take: the grid gets the rest of the screen, so that all stay in view."""
STATIC_ABOVE_AND_BELOW = 10
"""The same for the static copy, whose controls are one row of two menus: on a deck's 1280x720 slide its line of
code, the menus, the split, the grid and its caption fit together."""


@dataclass(frozen=True)
class Option:
    """One thing the widget can show: a layer's head count, its parameters counted from the model code (all of
    them, and those of query, key and value), and its weights [H, T, T]."""

    layer: str
    heads: int
    params: int
    """the drawn layer's count (the course gives one head no output projection)"""
    qkv_params: int
    att: torch.Tensor


def _counts(model: CourseModel) -> tuple[int, int]:
    """(all, query-key-value) parameters of `model`'s attention layer."""
    layer = model.attn
    return count_parameters(layer), sum(count_parameters(part) for part in (layer.query, layer.key, layer.value))


def build_options(sentence: str, loader: Loader) -> tuple[Reading, list[Option]]:
    """The sentence as the model read it (its words, the words as typed, notes on unknown words and trimming) and
    every option: an untrained course model per head count, then the checkpoint."""
    trained = loader(TRAINED_CHECKPOINT)
    reading = read_sentence(trained, sentence)
    options = []
    for heads in HEAD_COUNTS:
        untrained = course_model(heads=heads, seed=0, width=WIDTH)
        options.append(Option(UNTRAINED, heads, *_counts(untrained), attention(untrained, reading.ids)))
    options.append(Option(TRAINED, trained.config.heads, *_counts(trained), attention(trained, reading.ids)))
    return reading, options


def split_strip(heads: int, width: int, font: int, drawn: range | None = None) -> str:
    """HTML: one word's `width` numbers as a bar cut into one coloured slice per head; when not every head is
    drawn below, the `drawn` heads' slices are underlined. Each slice names its head (its number alone past four
    heads), since the palette's colours come round again after eight."""
    d = width // heads
    drawn = range(heads) if drawn is None else drawn
    some = len(drawn) < heads
    gap = "padding-bottom: 2px; background-clip: content-box; "  # a white line between a slice and its mark
    mark = {True: gap + "border-bottom: 4px solid #222; ", False: gap + "border-bottom: 4px solid transparent; "}
    cells = "".join(
        f"<div title='head {h}: numbers {h * d} to {(h + 1) * d - 1}' style='flex: {d}; background: "
        f"{PALETTE[h % len(PALETTE)]}; color: {ink(PALETTE[h % len(PALETTE)])}; text-align: center; "
        f"border-right: 1px solid white; {mark[h in drawn] if some else ''}"
        f"overflow: hidden; white-space: nowrap'>{h if heads > 4 else f'head {h}: {d}'}</div>"
        for h in range(heads)
    )
    shown = f" (heads {drawn.start} to {drawn.stop - 1} underlined)" if some else ""  # one line on a projector
    return (f"<div style='font-size: {font}px'>One word's {width} numbers in {heads} slice"
            f"{'s' if heads > 1 else ''} of {d}{shown}:</div><div style='display: flex; font-size: {font}px; "
            f"max-width: {FIT_WIDTH}px'>{cells}</div>")


def head_groups(heads: int) -> list[range]:
    """The heads drawn together: all of them up to AT_ONCE, else AT_ONCE at a time (16 heads: 0-3, ..., 12-15)."""
    return [range(first, min(first + AT_ONCE, heads)) for first in range(0, heads, AT_ONCE)]


def layer_count(option: Option, font: int) -> str:
    """HTML: one line counting what the option's layer costs, part by part, the total first (under the split bar,
    where it stays in view with the controls)."""
    qkv, proj = option.qkv_params, option.params - option.qkv_params
    mix = f"+ output projection {proj:,}" if proj else "and no output projection (one head has nothing to mix)"
    said = f"{option.params:,} parameters: query, key, value {qkv:,} {mix}"
    return f"<div style='font-size: {font}px'>{html.escape(said)}</div>"


def _grid(option: Option, words: Sequence[str], group: range, tallest: int | None = None) -> dict:
    """Some of the option's heads (`group`) as one row of heatmaps, at most `tallest` pixels high, the row of the
    word the summary reads (the one that guesses the last word) always labelled, and the columns it names."""
    name = (heads_named(option.heads, "untrained") if option.layer == UNTRAINED
            else "The trained four-head checkpoint")
    title = name + (f": heads {group.start} to {group.stop - 1}" if len(group) < option.heads else "")
    side = grid_shape(2, 2, tallest, width=style()["widest"]).wide  # one head: two heads' size
    return grid_figure(option.att[group.start : group.stop], words, title, first_head=group.start, tallest=tallest,
                       focus=guesser(words), side=side)


class SplitTheWidth(ChapterWidget):
    """Head-count buttons, an untrained/trained switch, the split and the heads' heatmaps over their count."""

    css_class = "split-the-width"

    def __init__(self, sentence: str | None = None, loader: Loader = load_cached) -> None:
        super().__init__()
        self.sentence = sentence if sentence is not None else example_sentences()[1]
        try:
            self.reading, self.options = build_options(self.sentence, loader)
            self.notes = list(self.reading.notes)
        except ValueError as error:  # nothing the model could read: the chapter's sentence, and why, while it shows
            self.sentence = example_sentences()[1]
            self.reading, self.options = build_options(self.sentence, loader)
            self.notes = [f"{str(error).split(':')[0].rstrip('.')}: showing the chapter's sentence instead."]
        self.words = self.reading.words
        self.heads, self.layer, self.first = 4, UNTRAINED, 0
        self.head_buttons = widgets.ToggleButtons(options=list(HEAD_COUNTS), value=self.heads,
                                                  description="heads", style={"button_width": "3em"},
                                                  layout=widgets.Layout(width="auto"))
        self.group_picker = widgets.Dropdown(description="show", options=[("all heads", 0)], value=0,
                                             layout=widgets.Layout(width="auto"))
        self.layer_buttons = widgets.ToggleButtons(options=[UNTRAINED, TRAINED], value=self.layer,
                                                   description="layer", style={"button_width": "16em"},
                                                   layout=widgets.Layout(width="auto"))
        self.head_buttons.observe(self.calls(self.set_heads), names="value")
        self.group_picker.observe(self.calls(self.show_heads_from), names="value")
        self.layer_buttons.observe(self.calls(self.set_layer), names="value")
        self.strip = widgets.HTML()
        # the two rows of controls, the split and the summary above the grid, its caption under it, stay on the
        # screen with it
        tallest = style()["tallest"] - ABOVE_AND_BELOW * self.font
        self.slots = [(option, group) for option in self.options for group in head_groups(option.heads)]
        self.figures = [_grid(option, self.words, group, tallest) for option, group in self.slots]
        self.grid = Drawing()
        self.children = [self.css, self.access, widgets.HBox([self.head_buttons, self.group_picker]),
                         self.layer_buttons, self.message, self.strip, self.summary, self.grid]
        self._redraw()

    @property
    def option(self) -> Option:
        """What is on show now."""
        if self.layer == TRAINED:
            return self.options[-1]
        return self.options[HEAD_COUNTS.index(self.heads)]

    @property
    def shown_first(self) -> int:
        """The first head drawn: the untrained layer's choice, or 0 for the trained checkpoint's four heads."""
        return self.first if self.layer == UNTRAINED else 0

    # ----- what code (and the tests) call ------------------------------------------------------

    def set_heads(self, heads: int) -> None:
        """Split width 128 between `heads` heads (1, 2, 4, 8 or 16), in the untrained layer."""
        with self.report():
            if heads not in HEAD_COUNTS or isinstance(heads, bool):
                self.set_quietly(self.head_buttons, self.heads)
                raise ValueError(f"Pick a head count from {', '.join(map(str, HEAD_COUNTS))}, got {heads!r}: "
                                 f"each must divide the width {WIDTH} evenly.")
            self.heads, self.layer, self.first = heads, UNTRAINED, 0
            self._redraw()

    def show_heads_from(self, first: int) -> None:
        """Draw the heads from number `first` on (0, 4, 8 or 12 with 16 heads), four at a time."""
        with self.report():
            starts = [group.start for group in head_groups(self.option.heads)]
            if type(first) is not int or first not in starts:
                self.set_quietly(self.group_picker, self.shown_first)
                raise ValueError(f"With {self.option.heads} heads, show the heads from one of "
                                 f"{', '.join(map(str, starts))}, got {first!r}.")
            if self.layer == UNTRAINED:  # the trained checkpoint's four heads are all drawn
                self.first = first
            self._redraw()

    def set_layer(self, layer: str) -> None:
        """Show the untrained layer, or the trained four-head checkpoint (its head count is fixed)."""
        with self.report():
            if layer not in (UNTRAINED, TRAINED):
                self.set_quietly(self.layer_buttons, self.layer)
                raise ValueError(f"Pick '{UNTRAINED}' or '{TRAINED}', got {layer!r}.")
            self.layer = layer  # self.heads and self.first keep the untrained choice for the way back
            self._redraw()

    # ----- drawing -----------------------------------------------------------------------------------

    def _redraw(self) -> None:
        option, first = self.option, self.shown_first
        self.set_quietly(self.head_buttons, option.heads)
        self.set_quietly(self.layer_buttons, self.layer)
        self.head_buttons.disabled = self.layer == TRAINED
        groups = head_groups(option.heads)
        choices = tuple((f"heads {g.start} to {g.stop - 1}" if len(groups) > 1 else "all heads", g.start)
                        for g in groups)
        if self.group_picker.options != choices:  # new choices for the picker, not a pick
            self.set_quietly(self.group_picker, first, options=choices)
        self.set_quietly(self.group_picker, first)
        if self.group_picker.layout.visibility != (seen := "visible" if len(groups) > 1 else "hidden"):
            self.group_picker.layout.visibility = seen
        self.grid.figure = next(fig for fig, (other, group) in zip(self.figures, self.slots, strict=True)
                                if other is option and group.start == first)
        drawn = next(group for group in groups if group.start == first)
        self.strip.value = split_strip(option.heads, WIDTH, self.font, drawn) + layer_count(option, self.font)
        self.say(looks_hardest(option, self.reading, drawn))


def guesser(words: Sequence[str]) -> int:
    """The word whose spotlight guesses the sentence's last word ('bridge', before 'sigh'): the row the widget
    reads, as chapters 4 and 6 do."""
    return max(last_word(words) - 1, 0)


def looks_hardest(option: Option, reading: Reading, heads: range | None = None) -> str:
    """In words: which word each head's spotlight from the guesser likes best (of `heads`, default all); a word
    read as '<unk>' named with what was typed."""
    words = reading.words
    labels = [word_name(label, word, typed)
              for label, word, typed in zip(unique_labels(words), words, reading.originals, strict=True)]
    reader, last = guesser(words), last_word(words)
    favourite = option.att[:, reader].argmax(dim=-1).tolist()  # [H]: where the guesser looks hardest, per head
    which = "trained" if option.layer == TRAINED else "untrained"
    guesses = f", which guesses '{labels[last]}'," if last > reader else " (no later word to guess)"
    return (f"In the {which} layer, '{labels[reader]}'{guesses} looks hardest at: "
            + ", ".join(unbroken(f"head {h} → '{labels[favourite[h]]}'") for h in heads or range(option.heads)) + ".")


def split_the_width(sentence: str | None = None) -> SplitTheWidth | HTML:
    """The live widget, on `sentence` (default: the story-world sentence chapter 4 uses).

    In a site or slide build (helpers.static.static_build()) it returns the static copy instead.
    """
    if static_build():
        return static_split_the_width(sentence)
    return SplitTheWidth(sentence)


def static_split_the_width(sentence: str | None = None, loader: Loader = load_cached) -> HTML:
    """Without a kernel: a menu of every option (1 to 16 untrained heads, the trained checkpoint) and one for
    which four of its heads to draw, over the same split bar, count, summary line and rows of heatmaps as the
    live widget; the caption says when the draw menu's heads are not there."""
    reading, options = build_options(sentence if sentence is not None else example_sentences()[1], loader)
    words = reading.words
    s = style()
    names = [heads_named(o.heads) if o.layer == UNTRAINED else "trained, 4 heads"
             for o in options]
    groups = [f"heads {g.start} to {g.stop - 1}" for g in head_groups(max(HEAD_COUNTS))]
    tallest = s["tallest"] - STATIC_ABOVE_AND_BELOW * s["font"]  # what is above and below stays on a slide with it

    def state(option: Option, asked: int) -> dict:
        mine = head_groups(option.heads)
        group = mine[min(asked, len(mine) - 1)]  # a group this option lacks: its last one, and the caption says so
        spec = _grid(option, words, group, tallest)
        named = range(asked * AT_ONCE, (asked + 1) * AT_ONCE)  # the heads the draw menu's choice names
        if group == named:
            lacks = ""
        elif len(mine) > 1:
            lacks = f"With {option.heads} heads, the last four are heads {group.start} to {group.stop - 1}. "
        elif option.heads == 1:
            lacks = "With 1 head there is only head 0, so the draw menu changes nothing. "
        else:
            lacks = f"With {option.heads} heads, all of them are drawn, so the draw menu changes nothing. "
        hardest = f"<div style='font-size: {s['font']}px'>{html.escape(looks_hardest(option, reading, group))}</div>"
        above = split_strip(option.heads, WIDTH, s["font"], group) + layer_count(option, s["font"]) + hardest
        return spec | {"above": above, "html_height": 7 * s["font"], "caption": lacks.strip()}

    states = {(n, g): state(option, g) for n, option in enumerate(options) for g in range(len(groups))}
    return static_view(states, [("layer", names), ("draw", groups)], start=[HEAD_COUNTS.index(4), 0],
                       font=s["font"])
