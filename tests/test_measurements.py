"""The measurements page and the generated blocks of the README and the guide match the results files."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from benchmarks import report
from tools.chapters import NOTEBOOKS


def test_generated_pages_are_up_to_date_with_the_results_files() -> None:
    stale = [path.name for path, text in report.rendered().items() if path.read_text(encoding="utf-8") != text]
    assert not stale, f"out of date: {stale}; run python -m benchmarks.report"
    with pytest.raises(ValueError, match="headline"):  # a page without a block's markers is named
        report.render("no markers here", {"headline": lambda: "x"})


def test_editing_a_chapters_prose_leaves_the_pages_as_they_are(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The pages read the results files, and from the chapters only their speaker notes and code (the guide's
    questions and lesson plans): a paragraph added to every markdown cell changes nothing."""
    from classroom import lessons

    before = report.rendered()
    for path in NOTEBOOKS.glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source += "\n\nOne more paragraph a maintainer added."
        nbformat.write(nb, tmp_path / path.name)
    monkeypatch.setattr(lessons, "NOTEBOOKS", tmp_path)
    lessons._notebook.cache_clear()
    try:
        assert report.rendered() == before
    finally:
        lessons._notebook.cache_clear()
