"""The attention explorer: pick a model, a head and a sentence, and see where each word looks.

`explore()` returns an `Explorer`, a widget (helpers.chapter_widgets.base.Widget) holding the controls, a live
heatmap, a focus view (one word's spotlight from every head) and two lines of text: a `summary` that says in
words what the heatmap shows, and a `message` area for notes (unknown words, trimmed sentences) and bad input. A
learner's own model's card notes fold into one line under it (`card_notes`), which opens on a click.
The heatmap (or the grid of every head) keeps within the screen below the controls, also on a 1280x720
projector in presenter mode, whose larger text the controls take too; the controls work from the keyboard.
Its figures are helpers.drawing widgets: switching models, views or sentences sends new numbers and words,
which the browser draws as SVG.
Every update runs inside the widget's `report()`, so the widget never shows a traceback and the next good
input simply works. The model menu lists the shipped checkpoints (helpers.registry) and, when `explore` is
given the folder or card of a learner's own training run, the learner's checkpoints beside them.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import torch
from IPython.display import HTML

from helpers.chapter_widgets.access import STATUS_CLASS
from helpers.chapter_widgets.base import NOTE, PROBLEM, TEXT, Widget, control_height, control_style, unbroken
from helpers.checkpoints import find_checkpoints
from helpers.drawing import Drawing
from helpers.examples import default_examples, examples_for, text_examples
from helpers.explorer_figures import focus_figure, grid_figure, head_figure, short_label, static_figure, word_names
from helpers.model import CourseModel
from helpers.plots import FIT_WIDTH, HEATMAP_FRAME, presenting, style, text_lines, word_name
from helpers.reading import Loader, attention, is_word, last_word, load_cached, read_sentence, summarise, unique_labels
from helpers.registry import CARD, DEFAULT, SHIPPED, STORY_WORLD, Checkpoint, shipped
from helpers.static import static_build
from helpers.stories import example_sentences
from helpers.tokenizer import UNK

ALL_HEADS = "all heads"
"""The head picker's choice that shows every head side by side."""
PICK = ("pick an example…", "")
"""The examples menu's first entry, on show while the sentence is not one of the examples: a menu that says
what it offers, where an empty one would look like a text box."""
SWAPPED = ("The other model's example had words this one never learned, so here is one of its own examples. Type any "
           "sentence to see how this model reads it.")
RESTORED = ("The other model's example had words this one never learned, so here is the example you left with this "
            "model.")
"""The note on a model switch that changed the sentence: shown until the next redraw (a head, a focus); RESTORED
when it is the example (and focus) this model showed last."""
NAMED = 0.01
"""The least share of a spotlight a word needs to be named in the summary line after the strongest one."""


def controls_height(font: int) -> int:
    """The height in pixels of the controls above the heatmap (three rows, with ipywidgets' margins of 2 px above
    and below) and of one line of notes (ipywidgets gives a line of HTML a control's height): the heatmap gets the
    rest of the tallest figure the screen shows, so that the controls and the heatmap are on it together."""
    return 3 * (control_height(font) + 4) + control_height(font)


class Explorer(Widget):
    """The explorer's widgets and state. Set things from code with set_sentence/set_head/set_model/set_focus.

    model: a shipped checkpoint's name, or the folder (or a card) of a learner's own checkpoints, listed in the
    model menu beside the shipped ones; the explorer opens on it (a folder: on its model with the most heads).
    """

    def __init__(self, model: str | Path = DEFAULT, sentence: str | None = None, loader: Loader = load_cached) -> None:
        super().__init__()
        self.loader = loader
        own, problem = _own_checkpoints(model)
        self.menu: dict[str, Checkpoint] = {c.name: c for c in (*SHIPPED, *own)}  # name -> entry, in menu order
        self.model: CourseModel | None = None
        self.model_name = ""
        self.words: list[str] = []
        self.shown_text = ""  # the sentence the heatmap shows (the box may hold one it refused)
        self.originals: list[str] = []  # the words as typed: unknown words keep their own text here
        self.att = torch.zeros(1, 1, 1)  # [H, T, T] of the sentence on show
        self.head: int | str = 0
        self.head_chosen: int | str = 0  # the head last picked: shown again on a model that has it
        self.focus = 0
        self.focus_chosen = False  # picked or clicked: then a new sentence keeps that word, else its last word
        self.left: dict[tuple[str, ...], tuple[str, int | None]] = {}  # examples menu -> the example and focus on
        # show when a model switch put another in its place: the way back shows them again
        self.summary_lines: list[str] = []  # where the focus word looks, in plain text, one line per head on show
        wide = widgets.Layout(width="auto", min_width="30em")

        self.sentence = widgets.Text(description="sentence", continuous_update=False, layout=wide)
        # widths grow with presenter mode's font: two menus to a row fit 1280x720, the examples take the rest
        # and no more (min_width 0: a long sentence in the menu would push its arrow past the screen's edge)
        self.example_picker = widgets.Dropdown(description="examples", options=[PICK], value=PICK[1],
                                               layout=widgets.Layout(width="auto", flex="1 1 0%", min_width="0"))
        # wide enough for its longest label (a learner's file name can be long: about 0.55 em a character, plus 9 em
        # for "model" and the arrow), at least 22 em, and never so wide that the head menu (13 em) leaves its row
        longest = max(len(entry.label) for entry in self.menu.values())
        model_width = min(max(22, round(0.55 * longest) + 9) * self.font, FIT_WIDTH - 15 * self.font)
        self.model_picker = widgets.Dropdown(description="model", value=None,
                                             layout=widgets.Layout(width=f"{model_width}px"),
                                             options=[(c.label, name) for name, c in self.menu.items()])
        self.head_picker = widgets.Dropdown(description="head", layout=widgets.Layout(width=f"{13 * self.font}px"))
        self.focus_picker = widgets.Dropdown(description="focus on",  # as wide as its words ('<unk> = pizza')
                                             layout=widgets.Layout(width="auto", min_width=f"{13 * self.font}px",
                                                                   max_width=f"{26 * self.font}px", flex="0 0 auto"))
        self.card_notes = widgets.HTML().add_class(STATUS_CLASS)  # a widget of its own: opened, it stays open
        self.tallest = style()["tallest"] - controls_height(self.font)  # the figures' height below the controls
        self.heatmap = Drawing()  # one head's heatmap, or the grid of every head
        self.bars = Drawing()  # the focus view: one word's spotlight from every head
        self.heatmap.on_click(self._on_click)

        for picker, setter in ((self.sentence, self.set_sentence), (self.example_picker, self._pick_example),
                               (self.model_picker, self.set_model), (self.head_picker, self.set_head),
                               (self.focus_picker, self.set_focus)):
            picker.observe(self.calls(setter), names="value")

        controls = widgets.VBox([widgets.HBox([self.model_picker, self.head_picker]), self.sentence,
                                 widgets.HBox([self.focus_picker, self.example_picker])])
        self.add_class("attention-explorer")
        self.children = [control_style("attention-explorer", self.font), self.access, controls, self.message,
                         self.card_notes, self.summary, self.heatmap, self.bars]

        self.models: dict[str, CourseModel] = {}  # every checkpoint of the menu, read once: switching is instant
        for name in self.menu:
            try:
                with contextlib.redirect_stdout(io.StringIO()):  # a card's notes: the message area shows them
                    self.models[name] = self.loader(name)
            except Exception:  # reported by set_model when that model is picked
                continue
        self.examples = {name: examples_for(entry, self._card(name)) for name, entry in self.menu.items()}
        if own:
            opening = own[-1].name  # a learner's folder: its model with the most heads
        else:
            opening = DEFAULT if problem else model
        self.set_model(opening)
        problem = problem or self.problem
        if self.model is None and opening != DEFAULT:
            self.set_model(DEFAULT)
        self.set_sentence(sentence if sentence is not None else self._first_example())
        if problem:
            instead = f" Showing the model '{self.menu[DEFAULT].label}' instead." if self.model is not None else ""
            self.problem = problem + instead
            self.show_message()
        self.echo = True  # from here on set_sentence, set_head, ... called in a cell also print a problem there

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        """The live widget, or in a site or slide build (no kernel to answer it) the static explorer on the
        sentence on show and the examples."""
        if not static_build():
            return super()._repr_mimebundle_(**kwargs)
        sentences = list(dict.fromkeys([self.sentence.value, *self._text_examples(self.model_name)]))
        return {"text/html": static_explorer(self.model_name, sentences, loader=self.loader).data}

    def _card(self, name: str) -> dict | None:
        """The JSON card of checkpoint `name` if it was read (a learner's holds its examples)."""
        return getattr(self.models.get(name), "card", None)

    def _card_notes(self) -> list[str]:
        """The notes on the card of the model on show: what a learner's text could not show (shipped: none)."""
        return list((self._card(self.model_name) or {}).get("notes", []))

    def _text_examples(self, name: str) -> list[str]:
        return text_examples(self.menu[name], self._card(name))

    def _first_example(self) -> str:
        """The first example from the text the model on show learned (not one of the course's sentences); in
        presenter mode the shortest, whose every word keeps its label at a projector's sizes."""
        examples = self._text_examples(self.model_name or DEFAULT)
        return min(examples, key=lambda text: len(text.split())) if presenting() else examples[0]

    @property
    def offered_examples(self) -> list[str]:
        """The sentences the examples menu offers (below its "pick an example" entry)."""
        return [value for _, value in self.example_picker.options if value != PICK[1]]

    @staticmethod
    def _example_label(model: CourseModel, text: str) -> str:
        """An example as the menu shows it: with how many of its words the model does not know (the course's own
        sentences, offered to the story-world models), so that '<unk>' after picking one comes as no surprise."""
        unknown = len(model.tokenizer.encode_with_report(text).unknown)
        return f"{text} ({unknown} word{'s' * (unknown > 1)} this model does not know)" if unknown else text

    def show_message(self) -> None:
        """The message area, with a learner's card notes folded into one line that opens on a click: a few
        paragraphs, the same for every sentence, that would otherwise push the heatmap below the screen."""
        card = self._card_notes()
        self.message.value = self.html_lines([self.problem], PROBLEM) + self.html_lines(self.notes, NOTE)
        self.card_notes.value = (  # the same text for every sentence, so a redraw leaves it open or closed
            f"<details style='font-size: {self.font}px; color: {NOTE}'><summary style='display: list-item; cursor: "
            f"pointer'>{len(card)} note{'s' * (len(card) > 1)} on this model, from its training (click to open or "
            f"close)</summary>{self.html_lines(card, NOTE)}</details>") if card else ""

    def _pick_example(self, text: str) -> None:
        if text != PICK[1]:
            self.set_sentence(text)

    # ----- what code (and the tests) call -------------------------------------------------------

    def _show_in_box(self, text: object) -> None:
        """The sentence box holds `text` (if it is text), and the example menu names it if it offers it."""
        if isinstance(text, str):
            self.set_quietly(self.sentence, text)
        if text != self.example_picker.value:
            self.set_quietly(self.example_picker, text if text in self.offered_examples else PICK[1])

    def set_sentence(self, text: str) -> None:
        """Read a new sentence with the current model and redraw everything for it."""
        with self.report():
            self._show_in_box(text)
            if self.model is None:
                raise ValueError("No model is loaded: pick one in the model list.")
            try:
                reading = read_sentence(self.model, text)
            except ValueError as error:
                if self.words:  # the sentence on show goes back in the box
                    self._show_in_box(self.shown_text)
                still = " The box and the heatmap keep the last sentence." if self.words else ""  # one projector line
                raise ValueError(f"{error}{still}") from error
            chosen = self.focus_chosen and self.focus < len(self.originals)
            focus_word = self.originals[self.focus] if chosen else None
            nth = self.originals[: self.focus].count(focus_word)  # which of several equal words has the focus
            self.att = attention(self.model, reading.ids)  # [H, T, T]
            self.words, self.notes, self.originals = reading.words, list(reading.notes), reading.originals
            self.shown_text = text
            same = [i for i, word in enumerate(reading.originals) if word == focus_word]  # the focus word, if kept:
            known = [i for i, word in enumerate(reading.words) if is_word(word) and word != UNK]  # its words, no marks
            self.focus = (self.focus if self.focus in same  # where it was (another word changed),
                          else same[min(nth, len(same) - 1)] if same  # else the same one of several equal words
                          else known[-1] if known  # else the last word the model knows: an unknown one says little
                          else last_word(self.originals))  # else the last as typed: an unknown '!' is no word
            self.focus_chosen = bool(same)
            labels = unique_labels(self.words)
            options = [(word_name(label, word, typed), i)
                       for i, (label, word, typed) in enumerate(zip(labels, self.words, self.originals, strict=True))]
            self.set_quietly(self.focus_picker, self.focus, options=options)
            self._redraw()

    def set_head(self, head: int | str) -> None:
        """Show one head (0, 1, ...) or ALL_HEADS; a head the model lacks gets a message instead."""
        with self.report():
            heads = self.att.shape[0]
            if head != ALL_HEADS and not (type(head) is int and 0 <= head < heads):
                self.set_quietly(self.head_picker, self.head)
                raise ValueError(f"There is no head {head!r}: this model has heads "
                                 f"{', '.join(map(str, range(heads)))}" + f" (or '{ALL_HEADS}')." * (heads > 1))
            self.head_chosen = head
            self.head = 0 if heads == 1 else head  # one head is all heads: its menu has no second name for it
            self.set_quietly(self.head_picker, self.head)
            self._redraw()

    def set_model(self, name: str) -> None:
        """Switch to checkpoint `name` (a name in the model menu, or its label there), read when the explorer
        opened."""
        with self.report():
            name = next((key for key, entry in self.menu.items() if entry.label == name), name)
            if not isinstance(name, str) or name not in self.menu:
                self.set_quietly(self.model_picker, self.model_name or None)
                raise ValueError(f"There is no model {name!r}: choose one of "
                                 + ", ".join(f"'{n}'" for n in self.menu) + ".")
            try:
                model = self.models[name] if name in self.models else self.loader(name)
            finally:
                self.set_quietly(self.model_picker, self.model_name or None)
            self.model, self.model_name = model, name
            heads = model.config.heads
            chosen = self.head_chosen  # kept for the way back to a model of more heads
            self.head = chosen if heads > 1 and (chosen == ALL_HEADS or chosen < heads) else 0
            options = [(f"head {h}", h) for h in range(heads)] + [(ALL_HEADS, ALL_HEADS)] * (heads > 1)
            self.set_quietly(self.model_picker, name)
            self.set_quietly(self.head_picker, self.head, options=options)
            examples, old_example = self.examples[name], self.shown_text in self.offered_examples
            menu = tuple(self.offered_examples)  # the examples of the text left behind
            if self.offered_examples != examples:  # the other vocabulary: its own examples
                shown = self.example_picker.value if self.example_picker.value in examples else PICK[1]
                lent = self.menu[name].examples == CARD and examples == default_examples()  # its text gave none
                labels = [(f"{STORY_WORLD if text in example_sentences() else 'the course'}: " if lent else "")
                          + self._example_label(model, text) for text in examples]
                self.set_quietly(self.example_picker, shown, options=[PICK, *zip(labels, examples, strict=True)])
            if self.words:
                self._read_again(old_example, menu)

    def _read_again(self, old_example: bool, menu: tuple[str, ...]) -> None:
        """Read the sentence on show with the model just picked. A sentence you typed stays, whatever words the
        model lacks; an example of the other text (`menu`) that this model knows fewer words of gives way to one
        of its own: the one this text's models showed last, with its focus, else its first. The sentence is the
        one the heatmap shows, also when the box holds one it refused (an empty one)."""
        sentence, unknown, focus = self.shown_text, self.words.count(UNK), self.focus if self.focus_chosen else None
        self.set_sentence(sentence)
        if old_example and self.words.count(UNK) > unknown and sentence not in self.offered_examples:
            self.left[menu], last = (sentence, focus), self.left.get(tuple(self.offered_examples))
            back, at = last or (self._first_example(), None)
            self.set_sentence(back)
            if at is not None and at < len(self.words):
                self.set_focus(at)
            self.notes.append(RESTORED if last else SWAPPED)
            self.show_message()

    def set_focus(self, position: int) -> None:
        """Focus on the word at `position`: the summary and the bars show where that word looks."""
        with self.report():
            last = len(self.words) - 1
            if isinstance(position, str):
                where = (f" {position!r} is at position {self.words.index(position)}."
                         if position in self.words else "")
                raise ValueError(f"set_focus takes a word's position (0 to {last}), not the word {position!r}."
                                 + where)
            if not (type(position) is int and 0 <= position <= last):
                raise ValueError(f"There is no word at position {position!r}: "
                                 f"the sentence has {len(self.words)} words (0 to {last}).")
            self.focus, self.focus_chosen = position, True
            self.set_quietly(self.focus_picker, position)
            self._redraw()  # the heatmap labels the focus row, whatever words it leaves out

    # ----- drawing ---------------------------------------------------------------------------------

    def _redraw(self) -> None:
        """Write the summary, draw the heatmap (or the grid of every head) for the current head and sentence, then
        the focus view: new numbers and words in the one drawing, whichever model and view."""
        heads, i = self.att.shape[0], self.focus
        self.notes = [note for note in self.notes if note not in (SWAPPED, RESTORED)]  # said at a switch, till a change
        name = self.menu[self.model_name].title
        names = word_names(self.words, self.originals)  # quoted: "'<unk> = quixotic'"
        self.summary_lines, shown = self._summary(i, names)
        self.summary.value = self.html_lines(shown, TEXT)
        # controls_height holds one line of notes; each further line, and each line of the summary above the figure
        # (plots.text_lines: as wrapped in FIT_WIDTH; the longest summary of any focus word, so that a click on a
        # row leaves the heatmap's size alone), takes its height from the figure, which stays on the screen with
        # the controls, but the plot gives up at most a third of its height: smaller, it is unreadable, so long
        # notes push it down the page instead (a learner's card notes, folded, take one line)
        card = bool(self._card_notes())  # folded into one line (show_message)
        notes = card + sum(text_lines(line, self.font) for line in self.notes)
        summary = max(sum(text_lines(line, self.font) for line in self._summary(j, names)[1])
                      for j in range(len(self.words)))
        shortest = self.tallest - (self.tallest - HEATMAP_FRAME[1]) // 3
        tallest = max(shortest, self.tallest - control_height(self.font) * (max(0, notes - 1) + summary))
        if self.head == ALL_HEADS:
            whole = f"Every head of the {name}" if heads > 1 else f"The {name}"
            self.heatmap.figure = grid_figure(self.att, self.words, whole, self.originals, tallest, focus=self.focus)
        else:
            self.heatmap.figure = head_figure(self.att[self.head], self.words, f"Head {self.head} of the {name}",
                                              self.originals, tallest, focus=self.focus)
        rows = self.att[:, i, : i + 1]  # [H, i + 1]: word i's weights over the words it can see
        every = ", in every head" if heads > 1 else ""
        self.bars.figure = focus_figure(rows, self.words[: i + 1], f"Where {names[i]} looks{every}")
        self.show_message()

    def _summary(self, i: int, names: Sequence[str]) -> tuple[list[str], list[str]]:
        """Where word `i` looks: one line per head on show (`summary_lines`), and the summary above the heatmap,
        which with every head on show is one paragraph of each head's strongest word (the bars below show the
        rest), to leave the grid of heads room on a projector."""
        heads = range(self.att.shape[0]) if self.head == ALL_HEADS else [self.head]

        def most(h: int, top: int = 2) -> str:
            return summarise(self.att[h, i, : i + 1], self.words[: i + 1], top=top, least=NAMED, names=names[: i + 1])

        lines = [f"head {h}, reading {names[i]}, looks most at: {most(h)}" for h in heads]
        return lines, lines if len(heads) == 1 else [f"In every head, {names[i]} looks most at: " + "; ".join(
            unbroken(f"head {h} → {most(h, top=1)}") for h in heads) + "."]

    def _on_click(self, row: int, column: int) -> None:
        """A click on a heatmap cell focuses on that cell's row: the word that looks."""
        self.set_focus(row)


def explore(model: str | Path = DEFAULT, sentence: str | None = None) -> Explorer:
    """The attention explorer on checkpoint `model`, opened on `sentence` (or the model's first example).

    model: a shipped name ("four_heads", "novel_one_head", ... see helpers.registry), or your own: the folder
    that `python -m helpers.train --text FILE --out FOLDER` wrote, or one card in it ("FOLDER/four_heads.json").
    Your models join the menu beside the shipped ones, with examples from the held-out part of your text.
    In a site or slide build (`static_build()`) it shows as the static explorer, whose own menus work
    with no kernel; its methods (set_sentence, set_head, ...) still work from code.
    """
    return Explorer(model=model, sentence=sentence)


def static_explorer(
    model: str | Path = DEFAULT, sentences: Sequence[str] | None = None, loader: Loader = load_cached,
    partner: bool = True,
) -> HTML:
    """The explorer's heatmaps behind two menus, sentence and head: a page that works where no kernel runs.

    Precomputes the weights of every head for each sentence (default: the model's examples). With `partner`,
    the sentence menu also offers the examples of the same-sized model trained on the other text (story
    world or novels), each labelled with the text its model learned.
    """
    entry = find_checkpoints(model)[-1]
    entries = [entry, shipped(entry.partner)] if partner and entry.partner else [entry]
    readings, weights, labels, titles = [], [], [], []
    for n, checkpoint in enumerate(entries):
        course_model = loader(checkpoint.name)
        group = list(sentences) if sentences and n == 0 else text_examples(checkpoint,
                                                                           getattr(course_model, "card", None))
        for sentence in group:
            reading = read_sentence(course_model, sentence)
            readings.append(reading)
            weights.append(attention(course_model, reading.ids))  # [H, T, T]
            labels.append(f"{checkpoint.text}: {short_label(reading.words)}")
            titles.append(checkpoint.title)
    return static_figure(weights, [r.words for r in readings], titles, originals=[r.originals for r in readings],
                         labels=labels)


def _own_checkpoints(model: object) -> tuple[list[Checkpoint], str]:
    """A learner's checkpoints named by `model` (none for a shipped name), or why there are none."""
    if shipped(model) is not None:
        return [], ""
    try:
        return find_checkpoints(model), ""
    except ValueError as error:
        return [], str(error)
