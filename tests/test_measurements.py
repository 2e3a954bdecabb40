"""The measurements page and the generated blocks of the README and the guide match the results files."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import report


def test_generated_pages_are_up_to_date_with_the_results_files() -> None:
    stale = [path.name for path, text in report.rendered().items() if path.read_text(encoding="utf-8") != text]
    assert not stale, f"out of date: {stale}; run python -m benchmarks.report"
    with pytest.raises(ValueError, match="headline"):  # a page without a block's markers is named
        report.render("no markers here", {"headline": lambda: "x"})


def test_generated_pages_depend_on_the_results_files_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Editing a chapter's prose never makes these pages stale: rendering reads no notebook."""
    before = report.rendered()
    monkeypatch.setattr("tools.chapters.NOTEBOOKS", tmp_path / "no notebooks here")
    monkeypatch.setattr("builtins.open", _refuse_notebooks(open))
    monkeypatch.setattr(Path, "open", _refuse_notebooks(Path.open))
    assert report.rendered() == before


def _refuse_notebooks(real_open):
    def guarded(file, *args, **kwargs):
        assert not str(file).endswith(".ipynb"), f"the report read a notebook: {file}"
        return real_open(file, *args, **kwargs)
    return guarded
