"""What every widget of the series shares: a message area, callbacks that never raise, quiet updates.

`Widget` is the base of the explorer and of every chapter widget: an ipywidgets VBox whose update methods can
be called from Python (tests, the benchmarks) as well as from its controls. Every update runs inside
`report()`: a problem becomes a message in the widget (in orange, above any notes) instead of a traceback,
and the widget keeps showing its last good state. Controls set from code go through `set_quietly`, so their
callbacks do not run again. Each widget carries a `ControlAccess` (`access`, to put among its children), which
gives its controls keyboard use and accessible names, and `control_style` sizes controls with the widget's font
(larger in presenter mode).
`ChapterWidget` adds what the chapter widgets share: a summary line and their controls' style.
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import ipywidgets as widgets

from helpers.chapter_widgets.access import ROOT_CLASS, STATUS_CLASS, ControlAccess
from helpers.plots import FIT_WIDTH, presenting, sizes, style

PROBLEM, NOTE, TEXT = "#b35806", "#333333", "#1a1a1a"
"""Colours of a problem (orange), a note on what is shown (grey) and ordinary text."""


def unbroken(text: str) -> str:
    """`text` with non-breaking spaces, so that a line never breaks inside it: one head's answer in a summary
    ('head 0 → ...')."""
    return text.replace(" ", "\u00a0")


class Widget(widgets.VBox):
    """A VBox with `message`: the last problem (`problem`) above the notes on what it shows (`notes`), and
    `summary`: what it shows, in words. A screen reader reads both out when they change."""

    def __init__(self, **kwargs: Any) -> None:
        self.problem = ""  # what went wrong with the last thing asked for, if anything
        self.notes: list[str] = []  # notes on what the widget shows (the explorer's unknown words, trimming)
        self.sizes = style()  # the mode it was built in: its redraws keep these sizes
        self.font = self.sizes["font"]
        self.presenter = presenting()  # built for a projector: a widget may fold what would not fit there
        self.message = widgets.HTML().add_class(STATUS_CLASS)  # no height while empty; figures leave it a line
        self.summary = widgets.HTML().add_class(STATUS_CLASS)
        self._quiet = False  # True while code sets a control, so its callback does not run again
        self.echo = False  # True once a widget is built whose methods are called from code: a problem is printed too
        self.access = ControlAccess(layout=widgets.Layout(display="none"))  # keyboard use, accessible names
        super().__init__(**kwargs)
        self.add_class(ROOT_CLASS)
        self.add_class(font_class(self.font))  # control_style's scope: a copy built in the other mode
        self.observe(lambda change: label_titles(change["new"]), names="children")

    def html_lines(self, lines: Sequence[str], colour: str = TEXT) -> str:
        """Lines of text at the widget's font size, escaped, `code` set as code; "" when there is nothing to say."""
        body = "<br>".join(re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(line, quote=False))
                           for line in lines if line)
        return f"<div style='font-size: {self.font}px; color: {colour}'>{body}</div>" if body else ""

    @property
    def message_lines(self) -> list[str]:
        """The message area in plain text: the last problem (if any), then the notes."""
        return [line for line in (self.problem, *self.notes) if line]

    def show_message(self) -> None:
        """Draw the message area: the last problem in orange above the notes."""
        self.message.value = self.html_lines([self.problem], PROBLEM) + self.html_lines(self.notes, NOTE)

    @contextmanager
    def report(self) -> Iterator[None]:
        """Run one update at the sizes the widget was built with: a new action clears the last problem; an
        exception becomes a message."""
        self.problem = ""
        try:
            with sizes(self.sizes):
                yield
        except Exception as error:
            kind = type(error).__name__
            self.problem = str(error) if isinstance(error, ValueError) else f"Something went wrong ({kind}): {error}"
            if self.echo:  # called from a cell, far below the widget: say it there too
                print(textwrap.fill(self.problem, 100, break_on_hyphens=False))  # a projector's line
        self.show_message()

    def calls(self, update: Callable[[Any], None]) -> Callable[[dict], None]:
        """An observer passing a control's new value to `update`, unless the widget set it itself (or the
        control was emptied, as a dropdown is while its options change)."""
        def observer(change: dict) -> None:
            if not self._quiet and change["new"] is not None:
                echo, self.echo = self.echo, False  # a control's problem shows in the widget alone
                try:
                    update(change["new"])
                finally:
                    self.echo = echo
        return observer

    def set_quietly(self, control: widgets.ValueWidget, value: Any, **traits: Any) -> None:
        """Set a control (and traits such as its `options` first) from code without running its callback."""
        self._quiet = True
        try:
            for key, new in traits.items():
                setattr(control, key, new)
            control.value = value
        finally:
            self._quiet = False


class ChapterWidget(Widget):
    """A Widget with a summary line set by `say` and its controls at the widget's font size."""

    css_class = "chapter-widget"

    def __init__(self) -> None:
        super().__init__(layout=widgets.Layout(max_width=f"{FIT_WIDTH + 20}px"))
        self.summary_text = ""  # the summary line in plain text
        self.css = control_style(self.css_class, self.font)
        self.add_class("chapter-widget")
        self.add_class(self.css_class)

    def say(self, summary: str) -> None:
        """Set the summary line (and show the message area: empty when nothing went wrong)."""
        self.summary_text = summary
        self.summary.value = self.html_lines([summary])
        self.show_message()


def label_titles(children: Sequence[widgets.Widget]) -> None:
    """Give each control's label its own words as hover text: ipywidgets 8 takes a label's hover text from the
    control's `tooltip`, and shows "null" while it is unset."""
    for child in children:
        if getattr(child, "description", "") and child.has_trait("tooltip") and child.tooltip is None:
            child.tooltip = child.description
        label_titles(getattr(child, "children", ()))


def control_height(font: int) -> int:
    """A control's height in pixels at text size `font`: ipywidgets' inline height, as control_style sets it."""
    return max(28, round(font * 1.7))


def font_class(font: int) -> str:
    """The class of every widget built at text size `font` (14 reading, 22 presenter), which scopes its style."""
    return f"spotlights-font-{font}"


def control_style(css_class: str, font: int) -> widgets.HTML:
    """A style sheet (in an HTML widget of no size) for the widgets of class `css_class` built at text size `font`:
    their controls' labels, menus, boxes and buttons at `font` pixels, and the controls and their labels' column as
    large as their text (ipywidgets sizes them through its CSS variables), so presenter mode enlarges them with the
    rest. A copy of the same widget built in the other mode keeps its own sizes."""
    w = f".{css_class}.{font_class(font)}"
    return widgets.HTML(
        f"<style>{w} .widget-label, {w} button, {w} select, {w} input, "
        f"{w} label, {w} .widget-readout {{font-size: {font}px}} "
        f"{w} code {{font-size: inherit}} "
        f"{w} {{--jp-widgets-font-size: {font}px; --jp-widgets-inline-height: {control_height(font)}px; "
        f"--jp-widgets-inline-label-width: {max(80, font * 5)}px; "
        f"--jp-widgets-slider-handle-size: {round(font * 1.1)}px}} "
        f"{w} .widget-toggle-buttons {{display: flex; align-items: center}}</style>",
        layout=widgets.Layout(height="0px", overflow="hidden"),
    )


def tensor_table(values: Sequence[Sequence[float]] | Sequence[float], rows: Sequence[str] | None = None,
                 columns: Sequence[str] | None = None, percent: bool = False, font: int = 14) -> str:
    """An HTML table of a 1-D or 2-D list of numbers; -inf shows as '-inf' and percentages as '12.5%'."""
    grid = [list(r) for r in values] if values and isinstance(values[0], (list, tuple)) else [list(values)]
    def cell(v: float) -> str:
        if v == float("-inf"):
            return "−∞"
        return f"{v:.1%}" if percent else f"{v:.2f}"
    head = ""
    if columns is not None:
        head = "<tr>" + ("<td></td>" if rows is not None else "") + "".join(
            f"<th style='text-align: right; padding: 0 0.25em'>{html.escape(c)}</th>" for c in columns) + "</tr>"
    body = "".join(
        "<tr>" + (f"<th style='text-align: right; padding-right: 0.25em'>{html.escape(rows[i])}</th>"
                  if rows is not None else "")
        + "".join(f"<td style='text-align: right; padding: 0 0.25em; font-family: monospace'>{cell(v)}</td>"
                  for v in row) + "</tr>"
        for i, row in enumerate(grid)
    )
    return f"<table style='font-size: {font}px; border-collapse: collapse'>{head}{body}</table>"
