"""Presenting: RISE and the decks find every cell and its notes (presenter mode's sizes: tests/test_plots.py).
The decks themselves (tools.build_slides, every chapter's) are walked in tests/browser/test_site_browser.py."""

import itertools
import json
import re
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

from tools.build_slides import deck_body
from tools.chapters import notebook_paths
from tools.editions import EXERCISE, NOTES_KEY, is_notes, tags, with_notes


@pytest.mark.parametrize("path", notebook_paths(""), ids=lambda p: p.name)
def test_rise_needs_no_hidden_set_up_step(path: Path) -> None:
    """In RISE the set-up cell is a slide of its own (or on the slide that describes it), run there with
    Shift+Enter: no code cell is hidden from the slideshow except solutions and the Colab set-up cell, which does
    nothing outside Colab."""
    cells = json.loads(path.read_text())["cells"]
    hidden = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and "solution" not in c["metadata"].get(
        "tags", []) and c["metadata"]["slideshow"]["slide_type"] == "skip" and c["id"] != "colab-setup"]
    assert not hidden, f"{path.name}: code cells {hidden} are hidden from the slides: a presenter must run them first"


def deck_slides(body: str) -> list[list[str]]:
    """A deck's slides (its <section>s that hold cells, or stand alone), each as the ids of the cells on it; a
    notes cell's id is marked "notes:"."""
    found = []
    for section in BeautifulSoup(body, "html.parser").find_all("section"):
        ids = [("notes:" if cell.find_parent("aside", class_="notes") else "") + cell["id"].removeprefix("cell-id=")
               for cell in section.find_all(id=re.compile("^cell-id=")) if cell.find_parent("section") is section]
        if ids or section.find_parent("section") is None:
            found.append(ids)
    return found


@pytest.mark.parametrize("path", notebook_paths(""), ids=lambda p: p.name)
def test_each_slides_notes_are_on_that_slide(path: Path) -> None:
    """In the deck, every notes block is on the slide of the cell it belongs to, and every slide that opens a
    section or holds an exercise has notes of its own (so the speaker view shows them there, not a section
    later); every section's notes ask the class something."""
    nb = with_notes(nbformat.read(path, as_version=4))
    owner = {cell.id: before.id for before, cell in zip(nb.cells, nb.cells[1:], strict=False) if is_notes(cell)}
    needs = {cell.id for cell in nb.cells if EXERCISE in tags(cell) or cell.source.startswith("## ")}
    slides = deck_slides(deck_body(nb, path.stem))
    for ids in slides:
        cells = {i for i in ids if not i.startswith("notes:")}
        for notes in (i[len("notes:"):] for i in ids if i.startswith("notes:") and not i.endswith("-carried")):
            assert owner[notes] in cells or any(i.startswith(owner[notes] + "-") for i in cells), (
                f"{path.name}: the notes of cell {owner[notes]} are on another slide than the cell")
        first = [cell.source.splitlines()[0] for cell in nb.cells if cell.id in cells & needs]
        assert not first or len(cells) < len(ids), f"{path.name}: no speaker notes on the slide that holds {first}"
    sections = [i for i, c in enumerate(nb.cells) if c.source.startswith("## ")] + [len(nb.cells)]
    asked = [any("*Ask:*" in c.metadata.get(NOTES_KEY, "") for c in nb.cells[a:b])
             for a, b in itertools.pairwise(sections)]
    assert all(asked[:-1]), f"{path.name}: a section's notes ask the class nothing"
