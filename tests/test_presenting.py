"""Presenting: every chapter exports to slides, and presenter mode enlarges what a projector shows.

The offline site and its decks are tested in tests/test_site.py and tests/browser/test_site_browser.py.
"""

import json
from pathlib import Path

import pytest
from nbconvert import SlidesExporter

from tools.chapters import chapter_paths

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
