"""What every chapter widget shares: a message area, a summary line, and callbacks that never raise.

Each widget is an ipywidgets VBox. Its update methods can be called from Python (tests, the benchmark) as
well as from its controls. Every update runs inside `report()`: a problem becomes a message in the widget
(in orange) instead of a traceback, and the widget keeps showing its last good state.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import ipywidgets as widgets

from helpers.chapter_widgets.access import ControlAccess
from helpers.plots import FIT_WIDTH, style


class ChapterWidget(widgets.VBox):
    """A VBox with `message` (problems, in orange) and `summary` (what the widget shows, in words)."""

    css_class = "chapter-widget"

    def __init__(self) -> None:
        self.problem = ""  # what went wrong with the last thing asked for, if anything
        self.summary_text = ""  # the summary line in plain text
        self.font = style()["font"]
        self.message = widgets.HTML(layout=widgets.Layout(min_height="1.5em"))
        self.summary = widgets.HTML()
        # the controls' labels and buttons at the widget's font size (larger in presenter mode), and the
        # controls themselves as tall as their text (ipywidgets sizes them through these CSS variables)
        self.css = widgets.HTML(
            f"<style>.{self.css_class} .widget-label, .{self.css_class} button, .{self.css_class} select, "
            f".{self.css_class} input, .{self.css_class} label, .{self.css_class} .widget-readout "
            f"{{font-size: {self.font}px}} .{self.css_class} code {{font-size: inherit}} "
            f".{self.css_class} {{--jp-widgets-font-size: {self.font}px; "
            f"--jp-widgets-inline-height: {max(28, round(self.font * 1.7))}px; "
            f"--jp-widgets-slider-handle-size: {round(self.font * 1.1)}px}} "
            f".{self.css_class} .widget-toggle-buttons {{display: flex; align-items: center}}</style>",
            layout=widgets.Layout(height="0px", overflow="hidden"),
        )
        self.access = ControlAccess(layout=widgets.Layout(display="none"))  # keyboard use, accessible names
        super().__init__(layout=widgets.Layout(max_width=f"{FIT_WIDTH + 20}px"))
        self.add_class("chapter-widget")
        self.add_class(self.css_class)

    def html_line(self, text: str, colour: str = "#1a1a1a") -> str:
        """One line of text at the widget's font size, escaped."""
        return f"<div style='font-size: {self.font}px; color: {colour}'>{html.escape(text, quote=False)}</div>"

    def say(self, summary: str) -> None:
        """Set the summary line (and clear the message area when nothing went wrong)."""
        self.summary_text = summary
        self.summary.value = self.html_line(summary)
        self.message.value = self.html_line(self.problem, "#b35806") if self.problem else ""

    @contextmanager
    def report(self) -> Iterator[None]:
        """Run one update: a new action clears the last problem; an exception becomes a message."""
        self.problem = ""
        self.message.value = ""
        try:
            yield
        except Exception as error:
            kind = type(error).__name__
            self.problem = str(error) if isinstance(error, ValueError) else f"Something went wrong ({kind}): {error}"
            self.message.value = self.html_line(self.problem, "#b35806")

    def calls(self, update: Callable[[Any], None]) -> Callable[[dict], None]:
        """An observer passing a control's new value to `update`, unless the widget set it itself."""
        def observer(change: dict) -> None:
            if not getattr(self, "_quiet", False):
                update(change["new"])
        return observer

    def set_quietly(self, control: widgets.ValueWidget, value: Any) -> None:
        """Set a control from code without running its callback."""
        self._quiet = True
        try:
            control.value = value
        finally:
            self._quiet = False


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
            f"<th style='padding: 0 0.4em'>{html.escape(c)}</th>" for c in columns) + "</tr>"
    body = "".join(
        "<tr>" + (f"<th style='text-align: right; padding-right: 0.4em'>{html.escape(rows[i])}</th>"
                  if rows is not None else "")
        + "".join(f"<td style='text-align: right; padding: 0 0.4em; font-family: monospace'>{cell(v)}</td>"
                  for v in row) + "</tr>"
        for i, row in enumerate(grid)
    )
    return f"<table style='font-size: {font}px; border-collapse: collapse'>{head}{body}</table>"
