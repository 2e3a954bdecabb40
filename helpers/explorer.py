"""The attention explorer: pick a model, a head and a sentence, and see where each word looks.

`explore()` returns an `Explorer`, an ipywidgets box holding the controls, a live heatmap, a focus view
(one word's spotlight from every head) and two lines of text: a `summary` that says in words what the
heatmap shows, and a `message` area for notes (unknown words, trimmed sentences) and bad input. Every
callback catches its own problems and reports them in `message`, so the widget never shows a traceback
and the next good input simply works.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go
import torch

from helpers.course import COURSE_EXAMPLES
from helpers.explorer_figures import (
    focus_figure,
    grid_figure,
    head_figure,
    short_label,
    static_figure,
    update_focus_figure,
    update_grid_figure,
    update_head_figure,
)
from helpers.model import CourseModel
from helpers.plots import style, unique_labels
from helpers.reading import Loader, attention, last_word, load_cached, read_sentence, summarise
from helpers.real_text import real_text_results
from helpers.static import static_build
from helpers.stories import example_sentences

MODELS = {"one head, story world": "one_head", "four heads, story world": "four_heads",
          "one head, novels": "novel_one_head", "four heads, novels": "novel_four_heads"}
"""Model picker labels -> checkpoint names for helpers.checkpoints.load_model. The story-world models learned
the course's made-up stories; the novel models learned three public-domain novels (chapters 5 and 6)."""

ALL_HEADS = "all heads"
"""The head picker's choice that shows every head side by side."""

def default_examples() -> list[str]:
    """The course's example sentences followed by the story-world sentences."""
    return list(dict.fromkeys([*COURSE_EXAMPLES, *example_sentences()]))


def novel_examples() -> list[str]:
    """Sentences from the novels that the real-text models know every word of (assets/real_text.json),
    or the story-world examples when that file has none."""
    try:
        examples = real_text_results().get("examples") or []
    except (FileNotFoundError, ValueError):
        examples = []
    return list(examples) or default_examples()


def reads_novels(name: str) -> bool:
    """True for a checkpoint trained on the novels (its examples are novel sentences)."""
    return name.startswith("novel_")


class Explorer(widgets.VBox):
    """The explorer's widgets and state. Set things from code with set_sentence/set_head/set_model/set_focus."""

    def __init__(
        self,
        model: str = "four_heads",
        sentence: str | None = None,
        loader: Loader = load_cached,
        examples: Sequence[str] | None = None,
    ) -> None:
        self.loader = loader
        self.examples = list(examples) if examples is not None else default_examples()  # for story models
        self.novel_examples = novel_examples()  # for the models trained on the novels
        self.model: CourseModel | None = None
        self.model_name = ""
        self.words: list[str] = []
        self.originals: list[str] = []  # the words as typed: unknown words keep their own text here
        self.att = torch.zeros(1, 1, 1)  # [H, T, T] of the sentence on show
        self.head: int | str = 0
        self.focus = 0
        self.notes: list[str] = []  # about the sentence on show: unknown words, trimming
        self.problem = ""  # what went wrong with the last thing asked for, if anything
        self.summary_lines: list[str] = []  # the summary in plain text, one line per head on show
        self._busy = False  # True while code sets a picker, so its callback does not run again
        self._font = f"font-size: {style()['font']}px"
        wide = widgets.Layout(width="auto", min_width="30em")

        self.sentence = widgets.Text(description="sentence", continuous_update=False, layout=wide)
        self.example_picker = widgets.Dropdown(description="examples", options=self.examples, value=None,
                                               layout=wide)
        self.model_picker = widgets.Dropdown(description="model", options=list(MODELS.items()), value=None)
        self.head_picker = widgets.Dropdown(description="head")
        self.focus_picker = widgets.Dropdown(description="focus on")
        self.message = widgets.HTML(layout=widgets.Layout(min_height="1.5em"))
        self.summary = widgets.HTML()
        self.heatmap = head_figure(torch.zeros(1, 1), ["..."], "Where each word looks")
        self.grid: go.FigureWidget | None = None  # built the first time "all heads" is picked
        self.bars: go.FigureWidget | None = None  # built for the model's number of heads
        self.heatmap_box = widgets.Box([self.heatmap])
        self.grid_box = widgets.Box([], layout=widgets.Layout(**_HIDDEN))
        self.bars_box = widgets.Box([])
        self._listen_to_clicks(self.heatmap)

        for picker, setter in ((self.sentence, self.set_sentence), (self.example_picker, self.set_sentence),
                               (self.model_picker, self.set_model), (self.head_picker, self.set_head),
                               (self.focus_picker, self.set_focus)):
            picker.observe(self._calls(setter), names="value")

        controls = widgets.VBox([
            widgets.HBox([self.model_picker, self.head_picker, self.focus_picker]),
            self.sentence, self.example_picker,
        ])
        super().__init__([controls, self.message, self.heatmap_box, self.grid_box, self.summary, self.bars_box])
        self.add_class("attention-explorer")

        self.models: dict[str, CourseModel] = {}  # every checkpoint of MODELS, read once: switching is instant
        for name in MODELS.values():
            try:
                self.models[name] = self.loader(name)
            except Exception:  # reported by set_model when that model is picked
                continue
        self.set_model(model)
        first_problem = self.problem
        if self.model is None and model != "four_heads":
            self.set_model("four_heads")
        self.set_sentence(sentence if sentence is not None else self._first_example())
        if first_problem:
            instead = " Showing the four-head model instead." if self.model is not None else ""
            self.problem = first_problem + instead
            self._show_message()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        """The live widget, or in a site or slide build (no kernel to answer it) the static explorer on the
        sentence on show and the examples."""
        if not static_build():
            return super()._repr_mimebundle_(**kwargs)
        sentences = list(dict.fromkeys([self.sentence.value, *_default_examples(self.model_name)]))
        return static_explorer(self.model_name, sentences, loader=self.loader)._repr_mimebundle_(**kwargs)

    def _first_example(self) -> str:
        """The first example of the model on show; for a story model, the first after the course's own
        (those use words outside the story world)."""
        examples = self._examples_for(self.model_name)
        stories = [s for s in examples if s not in COURSE_EXAMPLES]
        return (stories or examples)[0]

    def _examples_for(self, name: str) -> list[str]:
        """The example sentences in the vocabulary of checkpoint `name`."""
        return self.novel_examples if reads_novels(name) else self.examples

    # ----- what code (and the tests) call -------------------------------------------------------

    def set_sentence(self, text: str) -> None:
        """Read a new sentence with the current model and redraw everything for it."""
        with _Report(self):
            if isinstance(text, str):
                self._set_quietly(self.sentence, text)
            if text != self.example_picker.value:
                self._set_quietly(self.example_picker, None)
            if self.model is None:
                raise ValueError("No model is loaded: pick one in the model list.")
            try:
                reading = read_sentence(self.model, text)
            except ValueError as error:
                still = " The heatmap still shows the previous sentence." if self.words else ""
                raise ValueError(f"{error}{still}") from error
            focus_word = self.originals[self.focus] if self.focus < len(self.originals) else None
            self.att = attention(self.model, reading.ids)  # [H, T, T]
            self.words, self.notes, self.originals = reading.words, reading.notes, reading.originals
            self.focus = (reading.originals.index(focus_word) if focus_word in reading.originals
                          else last_word(self.words))  # keep the focus word when the sentence still has it
            labels = unique_labels(self.words)
            options = [(label if word == typed else f"{label} = '{typed}'", i)
                       for i, (label, word, typed) in enumerate(zip(labels, self.words, self.originals, strict=True))]
            self._set_quietly(self.focus_picker, self.focus, options=options)
            self._redraw()

    def set_head(self, head: int | str) -> None:
        """Show one head (0, 1, ...) or ALL_HEADS; a head the model lacks gets a message instead."""
        with _Report(self):
            heads = self.att.shape[0]
            if head != ALL_HEADS and not (type(head) is int and 0 <= head < heads):
                self._set_quietly(self.head_picker, self.head)
                raise ValueError(f"There is no head {head!r}: this model has heads "
                                 f"{', '.join(map(str, range(heads)))} (or '{ALL_HEADS}').")
            self.head = head
            self._set_quietly(self.head_picker, head)
            self._redraw()

    def set_model(self, name: str) -> None:
        """Switch to the checkpoint `name` (a value of MODELS), read when the explorer opened."""
        with _Report(self):
            if name not in MODELS.values():
                self._set_quietly(self.model_picker, self.model_name or None)
                raise ValueError(f"There is no model {name!r}: choose one of "
                                 + ", ".join(f"'{n}'" for n in MODELS.values()) + ".")
            try:
                model = self.models[name] if name in self.models else self.loader(name)
            finally:
                self._set_quietly(self.model_picker, self.model_name or None)
            self.model, self.model_name = model, name
            heads = model.config.heads
            if self.head != ALL_HEADS and self.head >= heads:
                self.head = 0
            options = [(f"head {h}", h) for h in range(heads)] + [(ALL_HEADS, ALL_HEADS)]
            self._set_quietly(self.model_picker, name)
            self._set_quietly(self.head_picker, self.head, options=options)
            examples = self._examples_for(name)
            if list(self.example_picker.options) != examples:  # the other vocabulary: its own examples
                shown = self.example_picker.value if self.example_picker.value in examples else None
                self._set_quietly(self.example_picker, shown, options=examples)
            if self.bars is None or len(self.bars.data) != heads:  # another number of heads: new figures
                old, self.bars = self.bars, focus_figure(heads)
                self.bars_box.children = [self.bars]
                if old is not None:
                    old.close()
                if self.grid is not None:
                    self.grid_box.children = []
                    self.grid.close()
                    self.grid = None
            if self.words:
                self.set_sentence(self.sentence.value)

    def set_focus(self, position: int) -> None:
        """Focus on the word at `position`: the summary and the bars show where that word looks."""
        with _Report(self):
            if not (type(position) is int and 0 <= position < len(self.words)):
                raise ValueError(f"There is no word at position {position!r}: "
                                 f"the sentence has {len(self.words)} words (0 to {len(self.words) - 1}).")
            self.focus = position
            self._set_quietly(self.focus_picker, position)
            self._redraw_focus()

    # ----- drawing ---------------------------------------------------------------------------------

    @property
    def figure(self) -> go.FigureWidget:
        """The figure on show: the grid of every head, or one head's heatmap."""
        return self.grid if self.head == ALL_HEADS and self.grid is not None else self.heatmap

    def _redraw(self) -> None:
        """Redraw the heatmap (or grid) for the current head and sentence, then the focus view.

        Both figures stay in the page and are hidden or shown, never taken out: a plotly FigureWidget
        (plotly 7, anywidget) whose view was removed from the page stops the updates of its later views.
        """
        heads = self.att.shape[0]
        name = ("one-head" if heads == 1 else f"{heads}-head") + (" model (novels)" if reads_novels(self.model_name)
                                                                   else " model")
        grid = self.head == ALL_HEADS
        if grid:
            title = f"Every head of the {name}"
            if self.grid is None:
                self.grid = grid_figure(self.att, self.words, title, self.originals)
                self._listen_to_clicks(self.grid)
                self.grid_box.children = [self.grid]
            else:
                update_grid_figure(self.grid, self.att, self.words, title, self.originals)
        else:
            update_head_figure(self.heatmap, self.att[self.head], self.words, f"Head {self.head} of the {name}",
                               self.originals)
        self.grid_box.layout = widgets.Layout(**(_SHOWN if grid else _HIDDEN))
        self.heatmap_box.layout = widgets.Layout(**(_HIDDEN if grid else _SHOWN))
        self._redraw_focus()

    def _redraw_focus(self) -> None:
        """The bars and the summary line for the focus word."""
        i, word = self.focus, unique_labels(self.words)[self.focus]
        if self.originals[i] != self.words[i]:
            word = f"{word} = {self.originals[i]}"  # an unknown word: say which word it was
        rows = self.att[:, i, : i + 1]  # [H, i + 1]: word i's weights over the words it can see
        every = ", in every head" if rows.shape[0] > 1 else ""
        update_focus_figure(self.bars, rows, self.words[: i + 1], f"Where '{word}' looks{every}")
        heads = range(rows.shape[0]) if self.head == ALL_HEADS else [self.head]
        self.summary_lines = [
            f"head {h}, reading '{word}', looks mostly at: {summarise(rows[h], self.words[: i + 1])}" for h in heads
        ]
        self.summary.value = self._html(self.summary_lines, "#1a1a1a")
        self._show_message()

    def _listen_to_clicks(self, fig: Any) -> None:
        for trace in fig.data:
            trace.on_click(self._on_click)

    def _on_click(self, trace: Any, points: Any, state: Any) -> None:
        """A click on a heatmap cell focuses on that cell's row: the word that looks."""
        if points.point_inds:
            cell = points.point_inds[0]  # [row, column] on a heatmap
            self.set_focus(int(cell[0] if isinstance(cell, (list, tuple)) else cell))

    # ----- messages and quiet updates --------------------------------------------------------------

    def _html(self, lines: Sequence[str], colour: str) -> str:
        body = "<br>".join(html.escape(line, quote=False) for line in lines if line)
        return f"<div style='{self._font}; color: {colour}'>{body}</div>" if body else ""

    @property
    def message_lines(self) -> list[str]:
        """The message area in plain text: the last problem (if any), then the notes on the sentence."""
        return [line for line in (self.problem, *self.notes) if line]

    def _show_message(self) -> None:
        """The message area: the last problem (in orange) above the notes on the sentence on show."""
        problem = self._html([self.problem], "#b35806")
        notes = self._html(self.notes, "#333333")
        self.message.value = problem + notes

    def _set_quietly(self, picker: widgets.ValueWidget, value: Any, **traits: Any) -> None:
        """Set a picker from code without running its callback again."""
        self._busy = True
        try:
            for key, new in traits.items():
                setattr(picker, key, new)
            picker.value = value
        finally:
            self._busy = False

    def _calls(self, setter: Callable[[Any], None]) -> Callable[[dict], None]:
        """An observer that passes a picker's new value to setter, unless code set it quietly."""
        def observer(change: dict) -> None:
            if not self._busy and change["new"] is not None:
                setter(change["new"])
        return observer


_SHOWN = {"visibility": "visible"}
_HIDDEN = {"visibility": "hidden", "height": "0px", "overflow": "hidden"}
"""Box layouts that show or hide a figure while keeping it in the page (it can still measure its text)."""


class _Report:
    """Context manager around each setter: a new action clears the last problem, and any exception
    inside becomes a message in the widget instead of a traceback (the widget keeps its last good state)."""

    def __init__(self, explorer: Explorer) -> None:
        self.explorer = explorer

    def __enter__(self) -> None:
        self.explorer.problem = ""

    def __exit__(self, kind: type | None, error: BaseException | None, tb: Any) -> bool:
        if not isinstance(error, Exception):
            return False
        reason = str(error) if isinstance(error, ValueError) else f"Something went wrong ({kind.__name__}): {error}"
        self.explorer.problem = reason
        self.explorer._show_message()
        return True


def explore(model: str = "four_heads", sentence: str | None = None) -> Explorer:
    """The attention explorer for checkpoint `model`, opened on `sentence` (or the first example).

    In a site or slide build (`static_build()`) it shows as the static explorer, whose own menus work
    with no kernel; its methods (set_sentence, set_head, ...) still work from code.
    """
    return Explorer(model=model, sentence=sentence)


PARTNERS = {"one_head": "novel_one_head", "four_heads": "novel_four_heads",
            "novel_one_head": "one_head", "novel_four_heads": "four_heads"}
"""Each checkpoint's model of the same size trained on the other text: the static copy offers both."""


def static_explorer(
    model: str = "four_heads", sentences: Sequence[str] | None = None, loader: Loader = load_cached,
    partner: bool = True,
) -> go.Figure:
    """A plain plotly figure whose own menus switch sentence and head: it works where no kernel runs.

    Precomputes the weights of every head for each sentence (default: the model's examples). With `partner`,
    the sentence menu also offers the examples of the same-sized model trained on the other text (story
    world or novels), each labelled with the text its model learned.
    """
    groups = [(model, list(sentences) if sentences else _default_examples(model))]
    if partner and model in PARTNERS:
        groups.append((PARTNERS[model], _default_examples(PARTNERS[model])))
    readings, weights, labels = [], [], []
    for name, group in groups:
        course_model = loader(name)
        for sentence in group:
            reading = read_sentence(course_model, sentence)
            readings.append(reading)
            weights.append(attention(course_model, reading.ids))  # [H, T, T]
            labels.append(f"{'novels' if reads_novels(name) else 'story world'}: {short_label(reading.words)}")
    heads = weights[0].shape[0]
    return static_figure(weights, [r.words for r in readings],
                         title=f"Where each word looks: {heads}-head model"
                               f"{'s' if len(groups) > 1 else ''}", subtitle="pick a sentence and a head",
                         originals=[r.originals for r in readings], labels=labels)


def _default_examples(name: str) -> list[str]:
    """The static copy's sentences for checkpoint `name`: the story sentences, or the novel examples."""
    return novel_examples() if reads_novels(name) else example_sentences()
