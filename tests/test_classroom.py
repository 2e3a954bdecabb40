"""Classroom paths: every chapter exports to slides, presenter mode, docs up to date.

The offline site and its decks are tested in tests/test_site.py and tests/browser/test_site_browser.py.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from chapters import chapter_paths
from nbconvert import SlidesExporter

ROOT = Path(__file__).resolve().parents[1]
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
    assert large.height > small.height


def test_readme_and_guide_show_the_current_measurements() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "update_docs.py"), "--check"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr


def test_suite_time_says_busy_only_when_the_machine_was_busy_before_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import update_docs

    run = {"date_utc": "2026-12-01 04:20", "seconds": 239, "cpu_seconds": 396, "exit_code": 0,
           "outcome": "950 passed", "cpus": 2, "load_average_end": [1.9, 1.5, 1.3], "target_s": 300, "slowest": []}
    for start, busy in (([0.3, 0.5, 0.5], False), ([1.8, 1.5, 1.2], True)):
        timed = {"test": run | {"load_average_start": start}}
        monkeypatch.setattr(update_docs, "_load", lambda name, timed=timed: timed)
        text = update_docs.suite_block()
        assert ("other programs shared the machine" in text) == busy  # the end's load is the suite's own workers
        assert "3 min 59 s" in text and "the target is 5 min: met" in text
