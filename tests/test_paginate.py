"""tools.paginate: a deck starts a new vertical slide where anything would run off the screen, and cuts what is
too tall for any slide."""

from __future__ import annotations

import ast

import nbformat
import pytest

from tools.pages import PLOTLY_MIME
from tools.paginate import CODE_LINE, CONTINUED, ROOM, paginate

PROSE = "A line of prose that fills most of a slide's width, as the chapters' paragraphs do. " * 2


def _cell(kind: str, source: str, slide: str = "-", figure: int | None = None, printed: int = 0):
    cell = (nbformat.v4.new_code_cell(source) if kind == "code" else nbformat.v4.new_markdown_cell(source))
    cell.metadata["slideshow"] = {"slide_type": slide}
    if figure is not None:
        cell.outputs = [nbformat.v4.new_output("display_data", data={PLOTLY_MIME: {"data": [],
                                                                                    "layout": {"height": figure}}})]
    if printed:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="a printed line\n" * printed)]
    return cell


def _section(paragraphs: int) -> nbformat.NotebookNode:
    """A slide that opens a section with `paragraphs` paragraphs of prose, two lines each."""
    return _cell("markdown", "\n\n".join(["## A section", *[PROSE] * paragraphs]), "slide")


def _paged(*cells: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """paginate on a section's opening slide (a heading alone) followed by `cells`."""
    return paginate(nbformat.v4.new_notebook(cells=[_section(0), *cells]))


def _types(nb: nbformat.NotebookNode) -> list[str]:
    return [cell.metadata["slideshow"]["slide_type"] for cell in nb.cells]


TABLE = "| a | b |\n|---|---|\n" + "\n".join(f"| {i} | {i} |" for i in range(12))
WIDE = "x = " + "1 + " * 60 + "1"  # 245 characters: three lines on a slide


@pytest.mark.parametrize(("cells", "expected"), [
    ([_section(8), _cell("code", "figure()", "fragment", figure=580)], ["slide", "subslide"]),  # a figure
    ([_section(8), _cell("markdown", TABLE, "fragment")], ["slide", "subslide"]),  # a markdown table
    ([_section(0), _cell("code", "figure()", "-", figure=580), _cell("markdown", "\n\n".join([PROSE] * 3), "fragment")],
     ["slide", "-", "subslide"]),  # prose under a figure
    ([_section(1), _cell("code", "figure()", "fragment", figure=450), _cell("code", "print(...)", "-", printed=3)],
     ["slide", "fragment", "subslide"]),  # the printout would end past the bottom
    ([_section(0), _cell("code", "print(...)", "fragment", printed=4), _cell("code", "print(...)", "-", printed=4)],
     ["slide", "fragment", "-"]),  # what fits stays together
    ([_section(6), _cell("markdown", "The heatmap below shows each row's weights:", "-"),
      _cell("code", "figure()", "fragment", figure=500)], ["slide", "subslide", "fragment"]),  # the lead-in moves too
    ([_section(0), _cell("code", "figure()", "fragment", figure=ROOM - 40)],
     ["slide", "fragment", "subslide"]),  # not a slide with a lone heading
    ([_section(7), _cell("code", "\n".join([WIDE] * 3), "-", printed=1)], ["slide", "subslide"]),  # lines wrap
    ([_section(7), _cell("code", "x = 1\n" * 3, "-", printed=1)], ["slide", "-"]),
    ([_section(0), _cell("markdown", "\n".join([PROSE[:110]] * 5), "-"), _cell("code", "figure()", "fragment",
                                                                              figure=360)],
     ["slide", "-", "fragment"]),  # a paragraph's source lines wrap as one paragraph, not each on its own
], ids=["figure", "table", "prose", "printout", "fits", "lead-in", "heading", "wide-code", "narrow-code",
        "hard-wrapped"])
def test_a_cell_that_would_run_off_the_slide_starts_a_new_one(cells: list, expected: list[str]) -> None:
    nb = nbformat.v4.new_notebook(cells=cells)
    before = _types(nb)
    assert _types(paginate(nb)) == expected and _types(nb) == before, "paginated: a copy, the notebook left as it was"


@pytest.mark.parametrize(("lead_in", "code", "figure", "expected"), [
    ([], "\n".join(f"line_{i} = {i}" for i in range(12)), ROOM - 100, ["slide", "-", "subslide"]),
    ([_cell("markdown", PROSE + "Here it is:", "subslide")], "figure()\nshow()\n", ROOM - 70,
     ["slide", "subslide", "-", "subslide"]),  # not a slide with one sentence ending in a colon: the code joins it
    ([_cell("markdown", PROSE, "subslide")], "figure()\nshow()\n", ROOM - 114,  # the cell alone fits a slide
     ["slide", "subslide", "-", "subslide"]),  # nor a slide with one short paragraph (a long text keeps its slide)
], ids=["too-tall", "lead-in", "short-text"])
def test_a_cell_too_tall_to_fit_shows_its_code_then_its_figure_on_the_next_slide(lead_in: list, code: str,
                                                                                  figure: int, expected: list) -> None:
    cell = _cell("code", code, "-", figure=figure)
    paged = _paged(*lead_in, cell)
    assert _types(paged) == expected
    source, output = paged.cells[-2:]
    assert source.source == code and not source.outputs
    assert not output.source and output.metadata["transient"] == {"remove_source": True}
    assert output.outputs == cell.outputs


def test_a_long_text_is_cut_between_paragraphs_and_items_but_not_inside_code() -> None:
    fence = "```\n" + "\n\n".join(f"code line {i}" for i in range(8)) + "\n```"
    items = "\n".join(f"- {PROSE}" for _ in range(10))
    text = "## A section\n\n" + "\n\n".join([PROSE] * 6) + "\n\n" + fence + "\n\n" + items
    paged = paginate(nbformat.v4.new_notebook(cells=[_cell("markdown", text, "slide")]))
    assert len(paged.cells) >= 3 and _types(paged)[0] == "slide" and set(_types(paged)[1:]) == {"subslide"}
    pieces = [cell.source for cell in paged.cells]
    assert "\n".join(pieces).replace("\n", "") == text.replace("\n", ""), "nothing lost, nothing added"
    assert all(piece.count("```") % 2 == 0 for piece in pieces), "a code block is cut in two"
    assert all(piece.strip() for piece in pieces)


def test_a_printout_in_pieces_is_counted_and_cut_as_one() -> None:
    cell = _cell("code", "\n".join(f"line_{i} = {i}" for i in range(20)), "-")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="a printed line\n" * 8) for _ in range(3)]
    paged = _paged(cell)
    assert [len(c.get("outputs", [])) for c in paged.cells] == [0, 0, 1]
    assert paged.cells[2].outputs[0].text == "a printed line\n" * 24


def test_code_too_long_for_a_slide_is_cut_between_statements_not_inside_one() -> None:
    call = "total = sum([\n" + "".join(f"    {i},\n" for i in range(12)) + "])"  # one statement of 14 lines
    source = "\n".join(f"line_{i} = {i}" for i in range(ROOM // CODE_LINE - 8)) + "\n" + call + "\nprint(total)"
    pieces = [cell.source for cell in _paged(_cell("code", source, "-")).cells[1:]]
    assert len(pieces) == 2 and pieces[1].startswith("total = sum([") and "\n".join(pieces) == source
    assert all(ast.parse(piece) for piece in pieces), "each slide's code reads as code"


def test_code_and_a_printout_too_long_for_a_slide_are_cut_between_lines_onto_slides_of_their_own() -> None:
    lines = 2 * ROOM // CODE_LINE
    source = "\n".join(f"line_{i} = {i}" for i in range(lines)) + "\n\nprint(line_0)"
    cell = _cell("code", source, "-", printed=lines)
    paged = _paged(cell)
    codes = [piece for piece in paged.cells[1:] if not piece.outputs]
    printed = [piece for piece in paged.cells[1:] if piece.outputs]
    assert paged.cells[1:] == codes + printed, "the code first, then its printout"
    assert len(codes) >= 3 and "\n".join(c.source for c in codes).split() == source.split(), "every line once"
    assert len(printed) >= 3 and "".join(c.outputs[0].text for c in printed) == cell.outputs[0].text, "in order"
    assert all(c.source == "" and c.metadata["transient"] == {"remove_source": True} for c in printed)
    assert set(_types(paged)[1:]) == {"subslide"} and len({c.id for c in paged.cells}) == len(paged.cells)


def test_a_slide_cut_off_without_notes_repeats_the_notes_before_it_and_an_authors_slide_does_not() -> None:
    notes = _cell("markdown", "*Ask:* which row of the heatmap is the bar chart?", "notes")
    cells = [_section(8), notes, _cell("code", "figure()", "fragment", figure=580),
             _cell("code", "figure()", "fragment", figure=580), _cell("markdown", "An author's slide.", "subslide")]
    paged = paginate(nbformat.v4.new_notebook(cells=cells))
    assert _types(paged) == ["slide", "notes", "subslide", "notes", "subslide", "notes", "subslide"]
    assert paged.cells[3].source == paged.cells[5].source == CONTINUED + notes.source, "once, on each slide cut off"
    assert len({c.id for c in paged.cells}) == len(paged.cells)
