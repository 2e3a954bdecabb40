"""Fit a deck's slides to the screen: start a new vertical slide where anything would run off it.

A reveal.js slide does not scroll for a presenter with a clicker, so `paginate` walks a deck's cells with an
estimate of each one's height (in the deck's CSS pixels, measured at 1280x720) and makes a cell that would end
past the slide's bottom start a subslide. What is too tall for any slide is cut first: code from its output,
long code and printouts between lines, long markdown between blocks. A lead-in sentence (ending in a colon, or a
heading alone) moves with what it introduces; a lead-in or a short text that a figure is too tall to join keeps
the figure's code, and the figure starts the next slide. A cut cell's speaker notes stay on its first slide; a
slide cut off without notes of its own repeats the notes of the slide before, marked as continued. The browser
tests walk every deck to check the result.
"""

from __future__ import annotations

import ast
import copy
import html
import math
import re

import nbformat
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

from tools.pages import PLOTLY_MIME

ROOM = 740
"""A slide's height that content may fill, in CSS pixels (reveal.js's slide is 800 high; a margin for error)."""
TEXT_LINE, CODE_LINE, GAP = 27, 23, 16
"""Heights in the decks: a line of text, a line of code or printout, and the space around a block."""
TEXT_WIDTH, CODE_WIDTH = 100, 108
"""Characters on one line of a slide: of prose (fewer than fit, as words wrap early), and of code, which the
decks wrap rather than cut (tools.build_slides)."""
HEADINGS = {"# ": 70, "## ": 60, "### ": 45}
CONTINUED = "*(Continued from the slide before.)*\n\n"
_TAG = re.compile(r"<[^>]+>")
_FOLDED = re.compile(r"<details(?![^>]*\bopen)[^>]*>(?:(?!<details).)*?</details>", re.S)
_ITEM = re.compile(r"\s{0,3}([-*+]|\d+[.)])\s")
"""The first line of a list item."""


def _text_height(source: str) -> int:
    """A markdown cell's height: wrapped paragraphs (a source line that goes on a paragraph or a list item is
    wrapped with it, not on its own), headings, table rows and the gaps between paragraphs."""
    height, chars = 0, 0  # the characters of the paragraph being read, wrapped when it ends
    for line in [*source.splitlines(), ""]:
        text = html.unescape(_TAG.sub("", line)).strip()  # MathML and other tags take no room of their own
        heading = next((h for marker, h in HEADINGS.items() if text.startswith(marker)), None)
        if chars and (heading is not None or not text or text.startswith("|") or _ITEM.match(line)):
            height, chars = height + TEXT_LINE * math.ceil(chars / TEXT_WIDTH), 0
        if heading is not None:
            height += heading
        elif not text:
            height += GAP
        elif text.startswith("|"):
            height += 0 if set(text) <= set("|-: ") else TEXT_LINE + 8  # a table row; its rule takes no room
        else:
            chars += len(text) + bool(chars)  # a space where the line break was
    return height


def _lines_height(text: str, width: int) -> int:
    """Lines of code or printout, each wrapped at `width` characters."""
    return CODE_LINE * sum(max(1, math.ceil(len(line) / width)) for line in text.rstrip("\n").splitlines())


def _output_height(output: nbformat.NotebookNode) -> int:
    """One output's height: a figure's own, a printout's lines, an HTML table's rows."""
    data = output.get("data", {})
    if PLOTLY_MIME in data:
        return int(data[PLOTLY_MIME].get("layout", {}).get("height") or 450) + GAP
    if output.get("output_type") == "stream":
        return _lines_height(output.text, TEXT_WIDTH) + GAP
    if "text/html" in data and (said := re.search(r"data-height='(\d+)'", data["text/html"])):
        return int(said[1]) + GAP  # a drawing's static view says how tall it gets (helpers.drawing)
    if "text/html" in data:
        page, folded = data["text/html"], None
        while folded != page:  # a folded fold-out shows its summary line only, innermost first
            folded, page = page, _FOLDED.sub("<p>", page)
        rows = page.count("<tr") + page.count("<p") + page.count("<div") + page.count("<summary")
        return TEXT_LINE * max(1, rows) + GAP
    if "text/plain" in data:
        return _lines_height(data["text/plain"], TEXT_WIDTH) + GAP
    return 0


def _code_height(cell: nbformat.NotebookNode) -> int:
    return _lines_height(cell.source, CODE_WIDTH) + 2 * GAP if cell.source.strip() else 0


def _height(cell: nbformat.NotebookNode) -> int:
    """A shown cell's height on a slide."""
    if cell.cell_type == "code":
        return _code_height(cell) + sum(_output_height(out) for out in cell.outputs)
    return _text_height(cell.source)


def _slide_type(cell: nbformat.NotebookNode) -> str:
    return cell.metadata.get("slideshow", {}).get("slide_type", "-")


def _starts_slide(cell: nbformat.NotebookNode) -> None:
    cell.metadata.setdefault("slideshow", {})["slide_type"] = "subslide"


def _leads_in(cell: nbformat.NotebookNode) -> bool:
    """A markdown cell that introduces the cell after it: it ends in a colon, or it is a heading alone."""
    text = cell.source.strip()
    return cell.cell_type == "markdown" and (text.endswith(":") or (text.startswith("#") and "\n" not in text))


def _part(cell: nbformat.NotebookNode, n: int | str, **changes: object) -> nbformat.NotebookNode:
    """Piece `n` of a cut cell: a copy with its own id and `changes`, on the slide of the piece before it."""
    part = copy.deepcopy(cell)
    part.update(changes)
    part.id = f"{cell.id}-{n}"
    part.metadata.setdefault("slideshow", {})["slide_type"] = "-"
    return part


_OPENS = re.compile(r"<(details|div|table)\b")
_CLOSES = re.compile(r"</(details|div|table)>")


def _blocks(source: str) -> list[list[str]]:
    """A markdown text's lines cut where a new slide may start: before a blank line or a list item, never
    inside a fenced code block, an HTML block (a fold-out) or a display formula."""
    blocks: list[list[str]] = [[]]
    for line in source.splitlines():
        text = "\n".join(blocks[-1])
        closed = (text.count("```") % 2 == 0 and text.count("$$") % 2 == 0
                  and len(_OPENS.findall(text)) <= len(_CLOSES.findall(text)))
        if closed and text.strip() and (not line.strip() or _ITEM.match(line)):
            blocks.append([])
        blocks[-1].append(line)
    return [block for block in blocks if any(line.strip() for line in block)]


def _cut_text(cell: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """A markdown cell as pieces of as many whole blocks as fit on a slide."""
    pieces: list[list[str]] = [[]]
    for block in _blocks(cell.source):
        if pieces[-1] and _text_height("\n".join(pieces[-1] + block)) > ROOM:
            pieces.append([])
        pieces[-1] += block
    texts = ["\n".join(piece).strip("\n") for piece in pieces]
    first = copy.deepcopy(cell)
    first.source = texts[0]
    return [first] + [_part(cell, n, source=text) for n, text in enumerate(texts[1:], 1)]


def _inside_statements(source: str) -> set[int]:
    """The lines (from 0) inside a top-level statement, after its first: code cut there would not read as code
    (a slide that opens halfway through a call or a loop); none for code that does not parse (a magic)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return set()
    firsts = [min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) for node in body]
    return {i for first, node in zip(firsts, body, strict=True) for i in range(first, node.end_lineno or first)}


def _code_chunks(source: str) -> list[str]:
    """Code too long for one slide cut into as many whole lines as fit each, between statements (at a blank
    line where one is near); a statement taller than a slide is cut between its lines."""
    inside, lines = _inside_statements(source), source.splitlines()
    chunks: list[list[int]] = [[]]  # line numbers

    def height(numbers: list[int]) -> int:
        return _lines_height("\n".join(lines[j] for j in numbers), CODE_WIDTH) + 2 * GAP

    for i, line in enumerate(lines):
        chunk = chunks[-1]
        full, early = height([*chunk, i]) > ROOM, not line.strip() and height(chunk) > ROOM * 2 // 3
        if chunk and (full or (early and i not in inside)):
            cut = i if i not in inside else max((j for j in chunk[1:] if j not in inside), default=i)
            chunks[-1], tail = [j for j in chunk if j < cut], [j for j in chunk if j >= cut]
            chunks.append(tail)
        if line.strip() or chunks[-1]:
            chunks[-1].append(i)
    return [text for chunk in chunks if (text := "\n".join(lines[j] for j in chunk).strip("\n"))]


def _cut_code(cell: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """A code cell as its code (cut between lines where it is too long for a slide), then each output, a long
    printout cut into as many lines as fit a slide."""
    code = copy.deepcopy(cell)
    code.outputs = []
    chunks = _code_chunks(cell.source) if _code_height(cell) > ROOM else [cell.source]
    code.source = chunks[0]
    parts = [code] if cell.source.strip() else []
    parts += [_part(cell, f"code-{n}", source=text, outputs=[]) for n, text in enumerate(chunks[1:], 1)]
    per_slide = max(1, (ROOM - GAP) // CODE_LINE)
    for n, out in enumerate(cell.outputs):
        lines = out.text.splitlines(keepends=True) if out.get("output_type") == "stream" else []
        for m in range(0, max(1, len(lines)), per_slide):
            shown = copy.deepcopy(out)
            if lines:
                shown.text = "".join(lines[m:m + per_slide])
            parts.append(_part(cell, f"output-{n}-{m}", source="", outputs=[shown]))
            parts[-1].metadata["transient"] = {"remove_source": True}
    if parts[0] is not code:  # no code to show: the first output takes the cell's place in the slides
        parts[0].metadata["slideshow"] = copy.deepcopy(cell.metadata.get("slideshow", {}))
    return parts


def _cut(cell: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """A cell too tall for a slide, cut into pieces that each fit one where they can."""
    if cell.cell_type == "markdown":
        return _cut_text(cell)
    return _cut_code(cell) if cell.cell_type == "code" else [cell]


def _carry_notes(cells: list[nbformat.NotebookNode], cut: set[str]) -> list[nbformat.NotebookNode]:
    """`cells` with the notes of the slide before repeated on each slide that pagination started (an id in `cut`)
    and that has none of its own: the speaker view stays on the talk, often about the figure cut off onto it."""
    slides: list[list[nbformat.NotebookNode]] = []
    for cell in cells:
        if not slides or _slide_type(cell) in ("slide", "subslide"):
            slides.append([])
        slides[-1].append(cell)
    shown, before = [], []
    for slide in slides:
        own = [cell for cell in slide if _slide_type(cell) == "notes"]
        if not own and before and slide[0].id in cut:
            own = [_part(notes, "carried", source=CONTINUED + notes.source.removeprefix(CONTINUED)) for notes in before]
            for notes in own:
                notes.metadata.slideshow.slide_type = "notes"
            slide = [slide[0], *own, *slide[1:]]
        shown += slide
        before = own
    return shown


def paginate(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of the executed notebook `nb` whose shown cells each start and end on one slide, where they fit."""
    nb = copy.deepcopy(nb)
    CoalesceStreamsPreprocessor().preprocess(nb, {})  # a printout in one piece, a progress bar's last state only
    cells, used, previous, start = [], 0, None, -1  # previous: the last shown cell and the room used before it
    cut = set()  # the cells that start a slide because the one before was full
    for whole in nb.cells:
        if _slide_type(whole) == "notes":  # on the first piece of the cell before it, where the talk starts
            cells.insert(start + 1, whole)
            continue
        start = len(cells)
        if _slide_type(whole) == "skip":  # shown nowhere (notes go to the speaker view, above)
            cells.append(whole)
            continue
        pieces = _cut(whole) if _height(whole) > ROOM else [whole]
        while pieces:
            cell = pieces.pop(0)
            height = _height(cell)
            if _slide_type(cell) in ("slide", "subslide"):
                used = 0
            elif used and used + height > ROOM:
                lead, before = previous
                if _leads_in(lead) and before and used - before + height <= ROOM:
                    _starts_slide(lead)  # the lead-in moves with what it introduces
                    cut.add(lead.id)
                    used -= before
                elif (lead.cell_type == "markdown" and not before and (_leads_in(lead) or used < ROOM // 2)
                      and cell.cell_type == "code" and cell.outputs and cell.source.strip()
                      and used + _code_height(cell) <= ROOM):
                    pieces[:0] = _cut_code(cell)  # too tall to join a lead-in or a short text whole: the code joins
                    continue                      # it, its output follows on the next slide, not a lone paragraph
                else:
                    _starts_slide(cell)
                    cut.add(cell.id)
                    used = 0
            previous = (cell, used)
            used += height
            cells.append(cell)
    nb.cells = _carry_notes(cells, cut)
    return nb
