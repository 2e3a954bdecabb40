"""Chapter 2's step-through: one word's trip through a head, one step at a time, every tensor with its shape.

Pick a word, then step with Back and Next (buttons, reachable with Tab and pressed with Enter or Space) or
the step slider (arrow keys): its query, query · keys, the scaled scores (a switch turns the 1/sqrt(D) off),
the causal mask, the softmax, and the weighted sum of the values.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import ipywidgets as widgets
import torch
from IPython.display import HTML

from helpers.chapter_widgets.base import ChapterWidget, tensor_table
from helpers.needs import InputError
from helpers.plots import presenting, style
from helpers.reading import unique_labels
from helpers.static import static_build

STEPS = ("its query", "query · every key", "scaled scores", "causal mask", "softmax", "weighted sum of values")
"""The steps in order; the widget shows one at a time."""


def step_names(scale: bool) -> tuple[str, ...]:
    """STEPS as the widget names them: with the 1/sqrt(D) switched off, the third step's scores are not scaled."""
    return STEPS if scale else (*STEPS[:2], "scores, not scaled", *STEPS[3:])


def _check_inputs(words: Sequence[str], q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    if len(words) == 0:
        raise InputError("step_through needs at least one word, and q, k and v with a row for each")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor) or t.dim() != 2 or t.shape[0] != len(words) or not t.is_floating_point():
            got = list(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__
            raise InputError(f"{name} must be a float tensor with one row per word, [{len(words)} words, D], got {got}")
    if q.shape[1] != k.shape[1]:
        raise InputError(f"queries and keys need the same width D, got {q.shape[1]} and {k.shape[1]}")


def step_tensors(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, i: int, scale: bool) -> list[torch.Tensor]:
    """What each step produces for word i: q[i] [D], raw scores [T], scaled [T], masked [T], weights [T], y [D]."""
    query = q[i]  # [D]
    raw = k @ query  # [T]: word i's query against every key
    scaled = raw / math.sqrt(q.shape[1]) if scale else raw  # [T]
    masked = scaled.masked_fill(torch.arange(len(raw)) > i, float("-inf"))  # [T]: later words hidden
    weights = torch.softmax(masked, dim=-1)  # [T], adds up to 1
    return [query, raw, scaled, masked, weights, weights @ v]  # the last is [T] @ [T, D] -> [D]


def describe(step: int, word: str, d: int, scale: bool, i: int, n_words: int) -> str:
    """One sentence on what a step does, for the word `word` at position i."""
    later = n_words - i - 1
    return [
        f"'{word}' asks its question: its query, one row of q = query(x).",
        f"Its query is dotted with every word's key (k is [{n_words}, {d}]): one match score per word.",
        (f"The scores are divided by sqrt(D) = sqrt({d}) = {math.sqrt(d):.2f}, so their spread does not grow "
         "with the head's width." if scale else
         f"Scaling is switched off: the scores stay sqrt(D) = sqrt({d}) = {math.sqrt(d):.2f} times the scaled ones, "
         "a factor that grows with the head's width D."),
        (f"The {later} later word{'s' if later != 1 else ''} get minus infinity: '{word}' may not see them."
         if later else f"'{word}' is the last word: every word is allowed, nothing is hidden."),
        "Softmax turns the scores into weights that add up to 100%" + (" (exp(−∞) = 0 for the hidden words)."
                                                                        if later else "."),
        f"The weighted sum of the values: what '{word}' takes home from this head.",
    ][step]


def render_step(step: int, words: Sequence[str], tensors: Sequence[torch.Tensor], v: torch.Tensor, i: int,
                scale: bool, font: int, fold: bool = False) -> str:
    """One step as HTML: where we are, what happens, and the tensor with its shape. `fold` (a projector) folds
    the last step's rows of v, so that y shows whole with the buttons."""
    labels = unique_labels(words)
    t = tensors[step]
    d = tensors[0].shape[0]
    trail = " → ".join(f"<b><u>{html.escape(s)}</u></b>" if n == step else html.escape(s)
                       for n, s in enumerate(step_names(scale)))
    name = ["q[i]", "q[i] · k", "scores", "masked scores", "weights", "y[i] = weights @ v"][step]
    columns = labels if 0 < step < 5 else [f"d{n}" for n in range(t.shape[0])]  # a score per word, or a vector
    which = f" (i = {i}: '{labels[i]}' is word {i} of the sentence, counting from 0)" if "[i]" in name else ""
    table = (f"<div><code>{name}</code>{html.escape(which)} has shape <b>{list(t.shape)}</b></div>"
             + tensor_table(t.tolist(), rows=[labels[i]], columns=columns, percent=step == 4, font=font))
    if step == 5:  # y first (one row, on screen with the buttons), then the values it adds up, each with its weight
        weighted = [f"{label}: weight {w:.1%}" for label, w in zip(labels, tensors[4].tolist(), strict=True)]
        hidden = " (0% for the later words, which it may not see)" if i < len(words) - 1 else ""
        lead = (f"It multiplies each row of <code>v</code>, which has shape <b>{list(v.shape)}</b>, by its word's "
                f"weight{hidden} and adds them up. The rows are v's own numbers, before the multiplying")
        rows = tensor_table(v.tolist(), rows=weighted, columns=columns, font=font)
        seen = zip(tensors[4][: i + 1].tolist(), v[: i + 1, 0].tolist(), strict=True)  # (weight, d0) per word
        terms = " + ".join(f"{w:.1%} × {x:.2f}" if x >= 0 else f"{w:.1%} × ({x:.2f})" for w, x in seen)
        rows += (f"<div>For example, y's d0 = {html.escape(terms)} = {float(t[0]):.2f} (worked with the unrounded "
                 "numbers, so the last digit may differ)</div>")
        folded = f"<details style='margin-top: 0.5em'><summary>{lead}. Open to read them, then scroll down</summary>"
        table += f"{folded}{rows}</details>" if fold else f"<div style='margin-top: 0.5em'>{lead}:</div>{rows}"
    return (f"<div style='font-size: {font}px'><div style='color: #555'>step {step + 1} of {len(STEPS)}: {trail}</div>"
            f"<p>{html.escape(describe(step, labels[i], d, scale, i, len(words)))}</p>"
            f"<div style='overflow-x: auto'>{table}</div></div>")  # a long sentence's row scrolls, never cut


class StepThrough(ChapterWidget):
    """A word picker, a 1/sqrt(D) switch, Back/Next buttons and a step slider; one step's tensor on show."""

    css_class = "step-through"

    def __init__(self, words: Sequence[str], q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
        _check_inputs(words, q, k, v)
        super().__init__()
        self.words = list(words)
        self.q, self.k, self.v = (t.detach().float() for t in (q, k, v))
        self.position, self.step, self.scale = len(words) - 1, 0, True
        self.tensors: list[torch.Tensor] = []
        labels = unique_labels(words)
        self.word_picker = widgets.Dropdown(description="word", options=[(w, n) for n, w in enumerate(labels)],
                                            value=self.position)
        self.scale_switch = widgets.Checkbox(value=True, description="divide by sqrt(D)", indent=False)
        self.back = widgets.Button(description="◀ Back", tooltip="previous step (Tab here, then Enter)")
        self.next = widgets.Button(description="Next ▶", tooltip="next step (Tab here, then Enter)")
        self.step_slider = widgets.IntSlider(value=1, min=1, max=len(STEPS), description="step",
                                             tooltip="arrow keys move between steps")
        self.word_picker.observe(self.calls(self.set_word), names="value")
        self.scale_switch.observe(self.calls(self.set_scale), names="value")
        self.step_slider.observe(self.calls(lambda n: self.go_to(n - 1)), names="value")
        self.back.on_click(lambda _: self.go_to(self.step - 1))
        self.next.on_click(lambda _: self.go_to(self.step + 1))
        self.view = widgets.HTML()
        # the step's own heading says what the summary says: the summary stays for screen readers, out of sight
        self.summary.layout = widgets.Layout(height="1px", overflow="hidden")
        self.children = [self.css, self.access, widgets.HBox([self.word_picker, self.scale_switch]),
                         widgets.HBox([self.back, self.next, self.step_slider]), self.message, self.view,
                         self.summary]
        self._redraw()

    # ----- what code (and the tests) call ------------------------------------------------------

    def go_to(self, step: int) -> None:
        """Show step `step` (0 to 5); Back before the first or Next after the last gets a message."""
        with self.report():
            if type(step) is not int or not 0 <= step < len(STEPS):
                where = "the first" if type(step) is int and step < 0 else "the last"
                raise ValueError(f"There is no step {step + 1 if type(step) is int else step!r}: this is "
                                 f"{where} of the {len(STEPS)} steps.")
            self.step = step
            self._redraw()

    def set_word(self, position: int) -> None:
        """Follow the word at `position` instead (the step stays where it is)."""
        with self.report():
            if type(position) is not int or not 0 <= position < len(self.words):
                raise ValueError(f"There is no word at position {position!r}: pick 0 to {len(self.words) - 1}.")
            self.position = position
            self._redraw()

    def set_scale(self, on: bool) -> None:
        """Switch the division by sqrt(D) on or off."""
        with self.report():
            if on not in (True, False):
                raise ValueError(f"The scaling switch is on (True) or off (False), got {on!r}.")
            self.scale = bool(on)
            self._redraw()

    # ----- drawing -----------------------------------------------------------------------------------

    def _redraw(self) -> None:
        for control, value in ((self.word_picker, self.position), (self.scale_switch, self.scale),
                               (self.step_slider, self.step + 1)):
            self.set_quietly(control, value)
        self.back.disabled, self.next.disabled = self.step == 0, self.step == len(STEPS) - 1
        self.tensors = step_tensors(self.q, self.k, self.v, self.position, self.scale)
        self.view.value = render_step(self.step, self.words, self.tensors, self.v, self.position, self.scale,
                                      self.font, fold=self.presenter)
        t, word = self.tensors[self.step], unique_labels(self.words)[self.position]
        scaling = "" if self.scale else " with scaling off"  # a change of the switch is read out, as the view changes
        self.say(f"Step {self.step + 1} of {len(STEPS)} for '{word}'{scaling}: {step_names(self.scale)[self.step]}, "
                 f"a tensor of shape {list(t.shape)}.")


def step_through(words: Sequence[str], q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> StepThrough | HTML:
    """The live step-through of one head for a sentence's queries, keys and values (each [T, D]).

    In a site or slide build (helpers.static.static_build()) it returns the static copy instead.
    """
    if static_build():
        return static_step_through(words, q, k, v)
    return StepThrough(words, q, k, v)


def static_step_through(words: Sequence[str], q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                        font: int | None = None) -> HTML:
    """Every word's steps as a self-contained HTML page: one fold-out per word, holding one fold-out per step,
    no kernel and no script. At reading sizes the last word's steps are all open; on a projector (presenter
    mode) everything starts folded, so a slide shows the words and one open step fits on it."""
    _check_inputs(words, q, k, v)
    q, k, v = (t.detach().float() for t in (q, k, v))
    font = font or style()["font"]
    reading = not presenting()
    fold = not reading  # the last step's rows of v too
    parts = []
    for i, label in enumerate(unique_labels(words)):
        tensors = step_tensors(q, k, v, i, scale=True)
        shown = " open" if reading and i == len(words) - 1 else ""
        steps = "".join(f"<details{shown}><summary style='font-size: {font}px'>step {s + 1}: "
                        f"{html.escape(STEPS[s])}</summary>{render_step(s, words, tensors, v, i, True, font, fold)}"
                        "</details>" for s in range(len(STEPS)))
        parts.append(f"<details{shown}><summary style='font-size: {font}px'>the word '{html.escape(label)}'</summary>"
                     f"<div style='margin-left: 1.5em'>{steps}</div></details>")
    return HTML("<div class='step-through-static'>" + "".join(parts) + "</div>")
