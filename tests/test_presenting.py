"""Presenting: every chapter exports to slides, and presenter mode enlarges what a projector shows.

The offline site and its decks are tested in tests/test_site.py and tests/browser/test_site_browser.py.
"""

import json
from pathlib import Path

import pytest
from nbconvert import SlidesExporter

from tools.chapters import chapter_paths
from tools.editions import NOTES_KEY

NOTEBOOKS = chapter_paths("")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_exports_to_slides(path: Path) -> None:
    cells = json.loads(path.read_text())["cells"]
    starts = sum(c["metadata"]["slideshow"]["slide_type"] in ("slide", "subslide") for c in cells)
    body, _ = SlidesExporter().from_filename(str(path))
    assert starts >= 2, f"{path.name} has {starts} slide starts; mark section starts as slides"
    assert body.count("<section") >= starts, "every slide and subslide becomes a reveal.js section"
    assert "reveal" in body.lower()


def test_presenter_mode_enlarges_fonts_and_figures() -> None:
    import torch

    import helpers
    from helpers.plots import attention_heatmap

    weights, words = torch.full((3, 3), 1 / 3), ["a", "b", "c"]
    try:
        helpers.presenter_mode(False)
        small = attention_heatmap(weights, words).layout
        helpers.presenter_mode(True)
        large = attention_heatmap(weights, words).layout
    finally:
        helpers.presenter_mode(False)
    assert large.font.size > small.font.size
    assert large.width > small.width, "on a projector a figure grows across"
    assert large.height <= 580, "and stays within the 600 px of notebook a 1280x720 screen shows"


@pytest.mark.parametrize("path", [*NOTEBOOKS, NOTEBOOKS[0].parent / "explorer.ipynb"], ids=lambda p: p.name)
def test_rise_needs_no_hidden_set_up_step(path: Path) -> None:
    """In RISE the set-up cell is a slide of its own (or on the slide that describes it), run there with
    Shift+Enter: no code cell is hidden from the slideshow except solutions and the Colab set-up cell, which does
    nothing outside Colab."""
    cells = json.loads(path.read_text())["cells"]
    hidden = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and "solution" not in c["metadata"].get(
        "tags", []) and c["metadata"]["slideshow"]["slide_type"] == "skip" and c["id"] != "colab-setup"]
    assert not hidden, f"{path.name}: code cells {hidden} are hidden from the slides: a presenter must run them first"


@pytest.mark.parametrize("path", [*NOTEBOOKS, NOTEBOOKS[0].parent / "explorer.ipynb"], ids=lambda p: p.name)
def test_every_chapter_carries_speaker_notes(path: Path) -> None:
    """A cell's notes (its metadata, tools.editions) become the decks' speaker notes: talking points and questions
    (the explorer's too: the 90-minute lesson ends with it, presented live)."""
    cells = json.loads(path.read_text())["cells"]
    notes = [c["metadata"][NOTES_KEY] for c in cells if c["metadata"].get(NOTES_KEY)]
    sections = sum(c["cell_type"] == "markdown" and "".join(c["source"]).startswith("## ") for c in cells)
    assert len(notes) * 2 >= sections, f"{path.name}: {len(notes)} notes cells for {sections} sections"
    assert all("Ask:" in text for text in notes[:-1]), f"{path.name}: a section's notes ask the class nothing"
