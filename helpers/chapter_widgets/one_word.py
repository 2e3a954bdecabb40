"""Chapter 7's "change one word": swap one word of a sentence and see which positions' outputs move.

The sentence's word vectors go through one transformer block's two parts, attention and the feed-forward
part, each fed the same word vectors, once as written and once with one word replaced. Two rows of bars show
how far each position's output moved: attention's row moves at the changed word and at every later word (they
can all look at it), the feed-forward row only at the changed word (it works on each word alone). Attention
moves information between words; the feed-forward part computes on each word by itself. Inside the block the
feed-forward part reads x + attention instead, so there its output moves wherever attention's did: the
summary line says so, counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import ipywidgets as widgets
import torch
from IPython.display import HTML

from helpers import stories as world
from helpers.block import BlockModel, block_model
from helpers.chapter_widgets.base import ChapterWidget, control_height, unbroken
from helpers.drawing import Drawing, bars, figure, static_view
from helpers.needs import InputError
from helpers.plots import PALETTE, style, text_lines
from helpers.reading import is_word, unique_labels
from helpers.static import static_build
from helpers.threads import one_thread
from helpers.tokenizer import story_tokenizer

ROWS = ("after attention (words mix)", "after the feed-forward part, same word vectors (each word alone)")
MOVED = 1e-5
"""A position counts as moved when its output changed by more than this (rounding stays far below it)."""
SWAPS = ("old", "wet", "girl", "fox", "sadly")
"""Replacement words for a word of none of the KINDS (the first that is not the word itself)."""
_VERBS = [*world.CLAUSE_VERBS, *(verb for row in world.MOOD_VERBS.values() for verb in row.values())]
KINDS = (world.ADJECTIVES, [one for family in world.HEROES.values() for one, _ in family],
         [one for one, _ in world.OBJECTS], [many for _, many in world.OBJECTS], world.COMPANIONS, world.FOODS,
         world.SKY, [adverb for row in world.MOOD_WORDS.values() for adverb in row], [".", ","], ["the", "a"],
         [verb + ("es" if verb.endswith(("s", "sh", "ch")) else "s") for verb in _VERBS])  # as stories say: 'crosses'
"""Some of the story world's words by kind: a word of one of them is offered others of its kind first."""


def default_model() -> BlockModel:
    """An untrained four-head block model with the story world's tokenizer: which positions move does
    not depend on training, only on how the block is wired."""
    model = block_model(heads=4, seed=0)
    model.tokenizer = story_tokenizer()
    return model


def outputs_moved(
    model: BlockModel, ids: Sequence[int], changed: Sequence[int]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """How far each position's output moves, ids -> changed, three [T]: attention's; the feed-forward part's fed
    the same word vectors; and the feed-forward part's inside the block, where it reads x + attention."""
    block = model.blocks[0]
    if block.ff is None:
        raise ValueError("this block has no feed-forward part: build it with feed_forward=True")
    with torch.no_grad(), one_thread():  # a few small products: threads would only wait on each other
        x = model.embed(torch.tensor([list(ids), list(changed)]))  # [2, T, C]: as written, with the swap
        y, _ = block.attn(block.ln1(x))  # [2, T, C]: attention's output
        f = block.ff(block.ln2(x))  # [2, T, C]: the feed-forward part's output on the same vectors
        inside = block.ff(block.ln2(x + y))  # [2, T, C]: what it outputs inside the block
    return tuple((out[1] - out[0]).norm(dim=-1) for out in (y, f, inside))  # three [T]


def summary_line(attn: Sequence[float], ff: Sequence[float], inside: Sequence[float]) -> str:
    """In words, short enough for two lines on a projector: how many positions moved after each part (the bars
    show which), and after the feed-forward part inside the block (which no bar shows)."""
    def count(moved: Sequence[float]) -> str:
        hit = sum(m > MOVED for m in moved)
        return f"{hit} position{'s' if hit != 1 else ''}"
    return (f"Attention's output moved at {count(attn)}, the feed-forward part's at {count(ff)}; inside the block, "
            f"where it reads {unbroken('x + attention')}, at {count(inside)}.")


def round_ticks(highest: float) -> list[float]:
    """Ticks from 0 at a round step (1, 2 or 5 times a power of ten), up to the first at or above `highest`: the
    top of the axis, so that no bar rises past the last line."""
    power = 10 ** math.floor(math.log10(highest / 2))
    step = max(m * power for m in (1, 2, 5) if m * power <= highest / 2)
    return [round(k * step, 10) for k in range(math.ceil(highest / step - 1e-9) + 1)]


def moved_figure(labels: Sequence[str], attn: Sequence[float], ff: Sequence[float], title: str,
                 caption: str = "", above: int = 0) -> dict:
    """Two rows of bars, how far each position's output moved after each part, on one scale; short enough to
    stay on the screen whole with `above` pixels of the live widget over it (its controls, message and summary),
    or with a static copy's menu and its `caption` under it."""
    s = style()
    ticks = round_ticks(max(max(attn), max(ff), 1e-9) * 1.05)
    panels = [bars(labels, [(row, moved, colour)], title=row, ymax=ticks[-1], percent=False, tick=s["font"],
                   xtitle="position (word)", ytitle="distance moved", ticks=ticks,
                   ) | {"show_x": row == ROWS[1]}
              for row, moved, colour in ((ROWS[0], attn, PALETTE[0]), (ROWS[1], ff, PALETTE[1]))]
    height = min(int(s["size"] * 1.1), s["tallest"] - (7 * s["font"] if caption else 0) - above)  # caption: 2 lines
    return figure(title, panels, s["widest"], height, s["font"], caption=caption)  # a deck's slide: wider


class ChangeOneWord(ChapterWidget):
    """A word picker and a replacement box; two rows of bars: how far each position's output moved."""

    css_class = "change-one-word"

    def __init__(self, sentence: str | None = None, model: BlockModel | None = None) -> None:
        super().__init__()
        self.model = model if model is not None else default_model()
        if getattr(self.model, "tokenizer", None) is None or not hasattr(self.model, "blocks"):
            raise InputError("change_one_word needs a block model with a tokenizer (helpers.block.block_model)")
        self.tokenizer = self.model.tokenizer
        enc = self.tokenizer.encode_with_report(sentence if sentence is not None else world.example_sentences()[0])
        if enc.unknown or not enc.ids:
            raise InputError(f"every word of the sentence must be in the model's vocabulary, unknown: {enc.unknown}")
        self.ids, self.words = list(enc.ids), list(enc.words)
        self.position = self.words.index("wet") if "wet" in self.words else len(self.words) // 2
        self.new_word = swap_for(self.words, self.position, self.tokenizer.ids)
        self.typed = ""  # the last replacement the learner typed: it stays for another word of its kind
        self.attn_moved = self.ff_moved = self.inside_moved = torch.zeros(len(self.words))
        labels = unique_labels(self.words)
        self.word_picker = widgets.Dropdown(description="word", options=[(w, i) for i, w in enumerate(labels)],
                                            value=self.position)
        self.replacement = widgets.Text(value=self.new_word, description="replace with", continuous_update=False,
                                        style={"description_width": "7em"})
        self.word_picker.observe(self.calls(self.set_position), names="value")
        self.replacement.observe(self.calls(self.set_replacement), names="value")
        self.bars = Drawing()
        self.children = [self.css, self.access, widgets.HBox([self.word_picker, self.replacement]), self.message,
                         self.summary, self.bars]  # the summary, which answers the chapter's question, in view
        self._redraw()

    # ----- what code (and the tests) call ------------------------------------------------------

    def set_position(self, position: int) -> None:
        """Change the word at `position` instead: to the word typed last if it is of the picked word's kind (and
        not that word itself), else to a word of its kind ('old' for 'wet', 'boy' for 'fox')."""
        with self.report():
            if type(position) is not int or not 0 <= position < len(self.words):
                self.set_quietly(self.word_picker, self.position)
                raise ValueError(f"There is no word at position {position!r}: pick 0 to {len(self.words) - 1}.")
            self.position = position
            there = self.words[position]
            kept = self.typed and self.typed != there and kind_of(self.typed) == kind_of(there)
            self.new_word = self.typed if kept else swap_for(self.words, position, self.tokenizer.ids)
            self.set_quietly(self.replacement, self.new_word)
            self._redraw()

    def set_replacement(self, word: str) -> None:
        """Replace the picked word with `word`; a word it cannot take gets a message and stays in the box to be
        corrected."""
        with self.report():
            problem = self._refusal(word)
            if problem:  # typed text stays in the box to be corrected (and retyping the word in place clears this)
                self.set_quietly(self.replacement, word if isinstance(word, str) else self.new_word)
                raise ValueError(problem)
            self.new_word = self.typed = self.tokenizer.split(word)[0]
            self._redraw()

    def _refusal(self, word: object) -> str:
        """Why `word` cannot replace the picked word: not one word, not one the model knows, or the word already
        there ("" when it can)."""
        pieces, there = self.tokenizer.split(word) if isinstance(word, str) else [], self.words[self.position]
        typed = _clipped(word) if isinstance(word, str) else word
        if len(pieces) > 1:  # '!!!' too: each punctuation mark is a word of its own to the model
            marks = " (a mark is a word)" if any(not piece[0].isalnum() for piece in pieces) else ""
            return f"{typed!r} is {len(pieces)} words to the model{marks}: type one."
        if not isinstance(word, str):
            return f"Type exactly one word to put in, got {typed!r}."
        if not pieces:
            return f"The box is empty, so '{self.new_word}' stays: type a word."
        if pieces[0] not in self.tokenizer.ids:  # the words to try leave out the one that stays, and the picked one
            kin = ([w for w in self.tokenizer.ids if not is_word(w)] if not is_word(there)  # a mark: the marks known
                   else swaps(there, self.tokenizer.ids))
            tries = [f"'{w}'" for w in kin if w not in (self.new_word, there)]
            return (f"'{_clipped(pieces[0], 12)}' is unknown to the model, so '{self.new_word}' stays: "
                    + (f"try {' or '.join(tries[:2])}." if tries else "the only other mark it knows."))
        if pieces[0] == there:
            return f"'{there}' is the word already there, so nothing would move: type another."
        return ""

    # ----- drawing -----------------------------------------------------------------------------------

    def _redraw(self) -> None:
        self.set_quietly(self.word_picker, self.position)
        self.set_quietly(self.replacement, self.new_word)
        changed = list(self.ids)
        changed[self.position] = self.tokenizer.ids[self.new_word]
        self.attn_moved, self.ff_moved, self.inside_moved = outputs_moved(self.model, self.ids, changed)
        labels = unique_labels(self.words)
        summary = summary_line(self.attn_moved.tolist(), self.ff_moved.tolist(), self.inside_moved.tolist())
        line = control_height(self.font)  # a row of controls, or a line of the message or the summary
        above = (line + 4) * 2 + line * text_lines(summary, self.font) + 4  # each with its 2 px margins
        self.bars.figure = moved_figure(labels, self.attn_moved.tolist(), self.ff_moved.tolist(),
                                        f"'{labels[self.position]}' → '{self.new_word}': which outputs move?",
                                        above=above)
        self.say(summary)


def _clipped(text: str, most: int = 20) -> str:
    """`text` cut to `most` characters with an ellipsis: a message quoting it stays one line on a projector."""
    return text if len(text) <= most else text[:most] + "…"


def kind_of(word: str) -> int | None:
    """Which of KINDS `word` is of (its index), or None for a word of none."""
    return next((i for i, kind in enumerate(KINDS) if word in kind), None)


def swaps(word: str, vocabulary: dict[str, int]) -> list[str]:
    """Words the model knows to put in place of `word`: others of its kind first ('old' for 'wet'), then SWAPS."""
    own = KINDS[kind] if (kind := kind_of(word)) is not None else []
    return [w for w in dict.fromkeys([*own, *SWAPS]) if w in vocabulary and w != word]


def swap_for(words: Sequence[str], position: int, vocabulary: dict[str, int]) -> str:
    """A replacement for words[position]: the first of `swaps` for it."""
    return swaps(words[position], vocabulary)[0]


def change_one_word(sentence: str | None = None, model: BlockModel | None = None) -> ChangeOneWord | HTML:
    """The live widget on `sentence` (default: the first story example) with `model`'s first block.

    In a site or slide build (helpers.static.static_build()) it returns the static copy instead.
    """
    if static_build():
        return static_change_one_word(sentence, model)
    return ChangeOneWord(sentence, model)


def static_change_one_word(sentence: str | None = None, model: BlockModel | None = None) -> HTML:
    """Without a kernel: the same two rows of bars, and a menu that changes each word in turn."""
    model = model if model is not None else default_model()
    enc = model.tokenizer.encode_with_report(sentence if sentence is not None else world.example_sentences()[0])
    labels = unique_labels(enc.words)
    states, choices = {}, []
    for i in range(len(enc.words)):
        new = swap_for(enc.words, i, model.tokenizer.ids)
        changed = list(enc.ids)
        changed[i] = model.tokenizer.ids[new]
        attn, ff, inside = (m.tolist() for m in outputs_moved(model, enc.ids, changed))
        states[(i,)] = moved_figure(labels, attn, ff, f"'{labels[i]}' → '{new}': which outputs move?",
                                    summary_line(attn, ff, inside))
        choices.append(f"{labels[i]} → {new}")
    start = enc.words.index("wet") if "wet" in enc.words else len(enc.words) // 2
    return static_view(states, [("change", choices)], start=[start], font=style()["font"])
