"""tools.paginate: a deck starts a new vertical slide where a figure or table would run off the screen."""

from __future__ import annotations

import nbformat

from tools.pages import PLOTLY_MIME
from tools.paginate import ROOM, paginate

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


def _types(nb: nbformat.NotebookNode) -> list[str]:
    return [cell.metadata["slideshow"]["slide_type"] for cell in nb.cells]


def test_a_figure_under_a_long_text_moves_to_a_slide_of_its_own() -> None:
    nb = nbformat.v4.new_notebook(cells=[_cell("markdown", "## A section\n\n" + "\n".join([PROSE] * 8), "slide"),
                                         _cell("code", "figure()", "fragment", figure=580)])
    assert _types(paginate(nb)) == ["slide", "subslide"]
    assert _types(nb) == ["slide", "fragment"], "the notebook itself is left as it was"


def test_what_fits_stays_together() -> None:
    nb = nbformat.v4.new_notebook(cells=[_cell("markdown", "## A section\n\n" + PROSE, "slide"),
                                         _cell("code", "figure()", "fragment", figure=450),
                                         _cell("code", "print(...)", "-", printed=3)])
    assert _types(paginate(nb)) == ["slide", "fragment", "subslide"], "the printout would end past the bottom"
    short = nbformat.v4.new_notebook(cells=[_cell("markdown", "## A section", "slide"),
                                            _cell("code", "print(...)", "fragment", printed=4),
                                            _cell("code", "print(...)", "-", printed=4)])
    assert _types(paginate(short)) == ["slide", "fragment", "-"]


def test_a_cell_too_tall_for_any_slide_shows_its_code_then_its_output() -> None:
    code = "\n".join(f"line_{i} = {i}" for i in range(12))
    nb = nbformat.v4.new_notebook(cells=[_cell("markdown", "## A section", "slide"),
                                         _cell("code", code, "-", figure=ROOM - 100)])
    paged = paginate(nb)
    assert _types(paged) == ["slide", "-", "subslide"]
    source, output = paged.cells[1:]
    assert source.source == code and not source.outputs
    assert output.metadata["transient"] == {"remove_source": True} and output.outputs == nb.cells[1].outputs


def test_a_markdown_table_that_would_run_off_starts_a_slide() -> None:
    table = "| a | b |\n|---|---|\n" + "\n".join(f"| {i} | {i} |" for i in range(12))
    nb = nbformat.v4.new_notebook(cells=[_cell("markdown", "## A section\n\n" + "\n".join([PROSE] * 10), "slide"),
                                         _cell("markdown", table, "fragment")])
    assert _types(paginate(nb)) == ["slide", "subslide"]
