"""docs/claims.md: every claim points at a notebook cell that still exists and still checks what it shows."""

from __future__ import annotations

import re

import nbformat
import pytest

from tools.chapters import NOTEBOOKS, ROOT
from tools.refresh_outputs import is_checked

CATALOGUE = ROOT / "docs" / "claims.md"
COURSE_CLAIMS = (  # the course's own claims the catalogue must cover, by a word of each
    "100%", "three places", "bank", "animal", "split", "own queries, keys and values", "mix", "328,704",
    "345,216", "perplexity", "768/12", "4096/32", "feed-forward part (MLP)", "illustration",
)


def claims() -> list[dict[str, str]]:
    """The catalogue's table rows as dicts: claim, notebook, cell, how."""
    lines = CATALOGUE.read_text(encoding="utf-8").splitlines()
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
    return [dict(zip(("number", "claim", "notebook", "cell", "how"), cells, strict=True))
            for cells in rows if len(cells) == 5 and cells[0].isdigit()]


def _cell(notebook: str, cell_id: str):
    nb = nbformat.read(NOTEBOOKS / notebook, as_version=4)
    return next((c for c in nb.cells if c.get("id") == cell_id), None)


def test_the_catalogue_covers_the_course_claims() -> None:
    text = " ".join(row["claim"] for row in claims())
    assert len(claims()) >= 20
    for phrase in COURSE_CLAIMS:
        assert phrase in text, f"docs/claims.md has no claim mentioning {phrase!r}"


@pytest.mark.parametrize("row", claims(), ids=lambda row: f"{row['notebook'][:2]}-{row['cell']}-{row['number']}")
def test_each_claim_cell_exists_and_checks_itself(row: dict[str, str]) -> None:
    cell = _cell(row["notebook"], row["cell"])
    assert cell is not None, f"{row['notebook']} has no cell {row['cell']} ({row['claim']})"
    how = row["how"]
    if how == "checked output":
        # test_project_files::test_notebook_is_committed_stripped checks that every checked cell has its recording
        assert is_checked(cell), f"{row['notebook']} cell {row['cell']} is no longer tagged check-output"
        return
    test = re.fullmatch(r"test `([\w/.]+\.py)::(\w+)`", how)
    assert test, f"unknown way of checking {how!r}: use 'checked output' or test `path::name`"
    source = (ROOT / test.group(1)).read_text(encoding="utf-8")
    assert re.search(rf"^def {test.group(2)}\(", source, re.M), f"{test.group(1)} has no test {test.group(2)}"
