"""After Run All, no chapter shows a red error or a pink stderr box (a warning, a note printed to stderr)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

CHAPTERS = [p.name for p in sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb"))
            if not os.environ.get("SPOTLIGHTS_SEEN") or p.name[:2] in os.environ["SPOTLIGHTS_SEEN"].split(",")]
"""Every chapter; SPOTLIGHTS_SEEN=02,06 limits the run to some of them."""


@pytest.mark.parametrize("name", CHAPTERS)
def test_run_all_shows_no_error_and_no_stderr(name: str, run_chapter: Callable[[str, bool], Path]) -> None:
    nb = nbformat.read(run_chapter(name, False), as_version=4)
    bad = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                bad.append(f"cell {i}: error {out.ename}: {out.evalue}")
            elif out.output_type == "stream" and out.name == "stderr":
                bad.append(f"cell {i}: stderr {out.text[:300]!r}")
    assert not bad, f"{name} after Run All:\n" + "\n".join(bad)
