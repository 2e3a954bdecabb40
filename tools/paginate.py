"""Fit a deck's slides to the screen: start a new vertical slide where a figure or table would run off it.

A chapter's slide metadata groups cells as a teacher reads them in JupyterLab, where the page scrolls. A
reveal.js slide does not scroll on a projector, so before a deck is written, `paginate` walks its cells with
an estimate of each one's height on the slide (in the deck's CSS pixels, measured on the decks at 1280x800)
and makes a cell with an output start a new vertical slide (a subslide) when its output would end past the
slide's bottom. A code cell too tall for any slide (its code and its figure together) is cut in two: its
code on one slide, its output on the next. The browser tests check the result: every figure and table of
every deck lies within the slide at 1280x720.
"""

from __future__ import annotations

import copy
import html
import math
import re

import nbformat

from tools.pages import PLOTLY_MIME

ROOM = 760
"""A slide's height that content may fill, in CSS pixels (reveal.js's slide is 800 high; a little margin)."""
TEXT_LINE, CODE_LINE, GAP = 27, 23, 16
"""Heights in the decks: a line of text, a line of code or printout, and the space around a block."""
TEXT_WIDTH = 100
"""Characters of prose on one line of a slide."""
HEADINGS = {"# ": 70, "## ": 60, "### ": 45}
_TAG = re.compile(r"<[^>]+>")
_FOLDED = re.compile(r"<details(?![^>]*\bopen)[^>]*>(?:(?!<details).)*?</details>", re.S)


def _text_height(source: str) -> int:
    """A markdown cell's height: wrapped lines, headings, table rows and the gaps between paragraphs."""
    height = 0
    for line in source.splitlines():
        text = html.unescape(_TAG.sub("", line)).strip()  # MathML and other tags take no room of their own
        heading = next((h for marker, h in HEADINGS.items() if text.startswith(marker)), None)
        if heading is not None:
            height += heading
        elif not text:
            height += GAP
        elif text.startswith("|"):
            height += 0 if set(text) <= set("|-: ") else TEXT_LINE + 8  # a table row; its rule takes no room
        else:
            height += TEXT_LINE * math.ceil(len(text) / TEXT_WIDTH)
    return height + GAP


def _output_height(output: nbformat.NotebookNode) -> int:
    """One output's height: a figure's own, a printout's lines, an HTML table's rows."""
    data = output.get("data", {})
    if PLOTLY_MIME in data:
        return int(data[PLOTLY_MIME].get("layout", {}).get("height") or 450) + GAP
    if output.get("output_type") == "stream":
        return CODE_LINE * len(output.text.rstrip("\n").splitlines()) + GAP
    if "text/html" in data:
        page, folded = data["text/html"], None
        while folded != page:  # a folded fold-out shows its summary line only, innermost first
            folded, page = page, _FOLDED.sub("<p>", page)
        rows = page.count("<tr") + page.count("<p") + page.count("<div") + page.count("<summary")
        return TEXT_LINE * max(1, rows) + GAP
    if "text/plain" in data:
        return CODE_LINE * len(data["text/plain"].splitlines()) + GAP
    return 0


def _code_height(cell: nbformat.NotebookNode) -> int:
    return CODE_LINE * len(cell.source.splitlines()) + 2 * GAP


def _outputs_height(cell: nbformat.NotebookNode) -> int:
    return sum(_output_height(out) for out in cell.get("outputs", []))


def _slide_type(cell: nbformat.NotebookNode) -> str:
    return cell.metadata.get("slideshow", {}).get("slide_type", "-")


def _starts_slide(cell: nbformat.NotebookNode) -> None:
    cell.metadata.setdefault("slideshow", {})["slide_type"] = "subslide"


def _shown(cell: nbformat.NotebookNode) -> bool:
    """A cell the deck shows on a slide (notes go to the speaker view; skipped cells nowhere)."""
    return _slide_type(cell) not in ("skip", "notes")


def _has_table(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "markdown" and any(line.lstrip().startswith("|") for line in cell.source.splitlines())


def paginate(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of the executed notebook `nb` whose figures and tables each start and end on one slide."""
    nb = copy.deepcopy(nb)
    cells, used = [], 0
    for cell in nb.cells:
        if not _shown(cell):
            cells.append(cell)
            continue
        if _slide_type(cell) in ("slide", "subslide"):
            used = 0
        if cell.cell_type == "code":
            code, output = _code_height(cell), _outputs_height(cell)
            if output and code + output > ROOM and cell.source.strip():  # no slide holds both: output on its own
                shown = copy.deepcopy(cell)
                shown.id, shown.source, shown.metadata["transient"] = f"{cell.id}-output", "", {"remove_source": True}
                cell.outputs = []
                _starts_slide(shown)
                if used and used + code > ROOM:
                    _starts_slide(cell)
                    used = 0
                cells += [cell, shown]
                used = output
                continue
            if used and output and used + code + output > ROOM:
                _starts_slide(cell)
                used = 0
            used += code + output
        else:
            height = _text_height(cell.source)
            if used and _has_table(cell) and used + height > ROOM:
                _starts_slide(cell)
                used = 0
            used += height
        cells.append(cell)
    nb.cells = cells
    return nb
