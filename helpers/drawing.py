"""The series' one way of drawing a live view: plain data, drawn in the browser as SVG (drawing.js, drawing.css).

`Drawing` is a small anywidget: the kernel sets its `figure`, a dict of numbers, words, titles and sizes built by
`figure` from `heatmap` and `bars` panels, and the browser draws it. Nothing but anywidget and ipywidgets' own
protocol is needed, so it draws alike in JupyterLab, Notebook 6 and 7, Colab and VS Code, and JupyterLab
re-fetches it after a page reload. A click on a heatmap cell (or Enter on it, from the keyboard) reaches the
`on_click` callbacks. `static_view` draws the same figures with no kernel (site pages, slide decks): every state
computed beforehand, picked by ordinary HTML menus, which the keyboard reaches.
"""

from __future__ import annotations

import html
import json
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from importlib.resources import files

import anywidget
import numpy as np
import torch
import traitlets
from IPython.display import HTML
from plotly.colors import get_colorscale

from helpers.plots import COLOURS, FIT_WIDTH, LOOKED_AT, LOOKS, MASKED, text_lines

SCRIPT = files("helpers").joinpath("drawing.js").read_text(encoding="utf-8")
STYLE = files("helpers").joinpath("drawing.css").read_text(encoding="utf-8")
SCALE = get_colorscale(COLOURS)
"""The heatmaps' colour scale, the same as the static plotly figures' (cividis: readable with colour blindness)."""


class Drawing(anywidget.AnyWidget):
    """A figure drawn in the browser from `figure` (see `figure()`); `on_click(callback)` hears heatmap picks."""

    _esm = SCRIPT
    _css = STYLE
    figure = traitlets.Dict().tag(sync=True)
    picks_rows = traitlets.Bool(False).tag(sync=True)  # on_click was called: Enter on a row does something

    def __init__(self, figure: dict | None = None, **kwargs: object) -> None:
        super().__init__(figure=figure or {}, **kwargs)
        self.clicks: list[Callable[[int, int], None]] = []
        self.on_msg(self._message)

    def on_click(self, callback: Callable[[int, int], None]) -> None:
        """Call callback(row, column) when a heatmap cell is clicked (or picked with Enter)."""
        self.clicks.append(callback)
        self.picks_rows = True

    def click(self, row: int, column: int) -> None:
        """What a click on cell (row, column) does: every on_click callback runs."""
        for callback in self.clicks:
            callback(row, column)

    def _message(self, _widget: object, content: dict, _buffers: object) -> None:
        if isinstance(content, dict) and content.get("event") == "click":
            self.click(int(content["row"]), int(content["column"]))


def cells(weights: torch.Tensor, causal: bool = True) -> list[list[float | None]]:
    """[T, T] weights as rows of numbers rounded to 0.01% (small messages), None over the masked future."""
    grid = np.round(weights.detach().cpu().double().numpy(), 4).astype(object)
    if causal:
        grid[np.triu(np.ones(grid.shape, dtype=bool), k=1)] = None
    return grid.tolist()


def heatmap(weights: torch.Tensor, labels: Sequence[str], names: Sequence[str], title: str = "", every: int = 1,
            tick: int = 14, causal: bool = True, show_x: bool = True, show_y: bool = True,
            xtitle: str = LOOKED_AT, focus: int | None = None, keep: Sequence[int] = ()) -> dict:
    """A heatmap panel: rows look, columns are looked at; `names` are the words as tooltips say them (quoted),
    `labels` as the axes do (every `every`-th, at `tick` px); row `focus`, if given, is always labelled, in bold,
    and so are the columns `keep`, each unless it would crowd one before it in the list."""
    return {"type": "heatmap", "title": title, "z": cells(weights, causal), "x": list(labels), "y": list(labels),
            "names": list(names), "every": every, "tick": tick, "show_x": show_x, "show_y": show_y,
            "xtitle": xtitle, "ytitle": LOOKS, "focus": focus, "keep": list(keep)}


def bars(labels: Sequence[str], series: Sequence[tuple[str, Sequence[float], str]], title: str = "",
         ymax: float | None = 1.0, percent: bool = True, on_bars: bool = False, every: int = 1, tick: int = 14,
         xtitle: str = LOOKED_AT, ytitle: str = "weight", ticks: Sequence[float] = (0, 0.5, 1),
         focus: int | None = None, keep: Sequence[int] = ()) -> dict:
    """A bar panel: one bar per label for each (name, values, colour) series, side by side; `on_bars` writes
    each bar's value on it; `ticks`: the horizontal lines of the value axis; bar `focus` is always labelled, and
    so are the bars `keep`, in bold, as a heatmap's columns."""
    return {"type": "bars", "title": title, "x": list(labels), "every": every, "tick": tick, "ymax": ymax,
            "series": [{"name": n, "y": [round(float(v), 6) for v in values], "colour": c} for n, values, c in series],
            "format": "percent" if percent else "number", "labels": on_bars, "ticks": list(ticks),
            "xtitle": xtitle, "ytitle": ytitle, "focus": focus, "keep": list(keep)}


def figure(title: str, panels: Sequence[dict], width: int, height: int, font: int, cols: int = 1,
           subtitle: str = "", scale: str | None = None, legend: bool = False, caption: str = "") -> dict:
    """A whole figure: a title (and subtitle) over panels `cols` to a row, `width` x `height` pixels at most
    (narrower screens scale it down), text at `font` px; `scale` names a colour bar, `legend` lists the series,
    `caption` says in words what it shows (under it, wrapped at FIT_WIDTH whatever the figure's width: a static
    copy's summary line)."""
    return {"title": title, "subtitle": subtitle, "caption": caption, "caption_width": FIT_WIDTH,
            "panels": list(panels), "cols": cols, "width": int(width), "height": int(height), "font": int(font),
            "scale": scale, "legend": legend, "colours": SCALE, "masked": MASKED, "zmax": 1}


def shown_height(specs: Collection[dict], font: int) -> int:
    """The most height in pixels a static view takes: its menus, its tallest figure with the HTML around it and
    its longest caption (plots.text_lines); a slide deck's pagination
    reads it."""
    lines = [text_lines(spec.get("caption", ""), font, spec["caption_width"]) for spec in specs]
    return int(2.2 * font + max(spec["height"] + spec.get("html_height", 0) for spec in specs)
               + 1.5 * font * max(lines, default=0))


def static_view(states: Mapping[tuple[int, ...], dict], menus: Sequence[tuple[str, Sequence[str]]],
                start: Sequence[int] | None = None, font: int = 14) -> HTML:
    """The figures `states` (one per choice of every menu: their indices) with their menus, as a page that needs
    no kernel and no network: ordinary HTML menus (Tab and the arrow keys work), drawn by drawing.js. A state may
    also hold HTML to show `above` and `below` its figure, and the pixels the two take (`html_height`): the parts
    of a live widget beside its drawing, such as chapter 4's split bar."""
    start = list(start or [0] * len(menus))
    ident = f"spotlights-{uuid.uuid4().hex[:12]}"
    pickers = "".join(
        f"<label>{html.escape(name)} <select>"
        + "".join(f"<option value='{i}'{' selected' if i == start[m] else ''}>{html.escape(option)}</option>"
                  for i, option in enumerate(options))
        + "</select></label>" for m, (name, options) in enumerate(menus))
    data = json.dumps({"|".join(map(str, key)): spec for key, spec in states.items()}).replace("</", "<\\/")
    script = json.dumps(SCRIPT).replace("</", "<\\/")
    return HTML(
        f"<style>{STYLE}</style><div class='spotlights-static' id='{ident}' style='font-size: {font}px' "
        f"data-height='{shown_height(states.values(), font)}'>"
        f"<div>{pickers}</div><div class='drawing'></div></div><script type='module'>"
        f"const root = document.getElementById('{ident}'), states = {data}, listeners = [];"
        f"const url = URL.createObjectURL(new Blob([{script}], {{type: 'text/javascript'}}));"
        "const {default: drawing} = await import(url);"
        "const key = () => Array.from(root.querySelectorAll('select'), s => s.value).join('|');"
        "const model = {get: () => states[key()], on: (_, f) => listeners.push(f), off() {}, send() {}};"
        "root.querySelectorAll('select').forEach(s => s.addEventListener('change', () => listeners.forEach(f => f())));"
        # a deck's own keys stay out of a menu that has the keyboard (reveal.js turns the slide on an arrow key); its
        # Escape leaves the menu, where reveal.js would open the overview with the menu still taking the arrows
        "root.querySelectorAll('select').forEach(s => s.addEventListener('keydown', e => {"
        "if (e.key.startsWith('Arrow') || e.key === 'Escape') e.stopPropagation();"
        "if (e.key === 'Escape') s.blur(); }));"
        "drawing.render({model, el: root.querySelector('.drawing')});</script>")
