"""The chapter list (`CHAPTERS`) and the one notebook runner (`execute`), shared by the tools, the benchmarks and
the tests; `reading_minutes` and `sections` measure how long a notebook takes to read and to run, part by part.
"""

from __future__ import annotations

import copy
import os
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
EXPLORER = "explorer.ipynb"
EXPLORER_TITLE = "The attention explorer"
INJECTED = "injected"
"""The tag of a cell `execute` adds (presenter mode on, a memory reading): sections, decks and timings leave it out."""


class Chapter(NamedTuple):
    title: str
    idea: str
    """the chapter's one idea, as the chapter tables (README, chapter 0) give it"""


CHAPTERS = {
    "00_start_here.ipynb": Chapter("Start here", "check your set-up, meet the course model, count its parameters"),
    "01_one_spotlight.ipynb": Chapter("One spotlight",
                                      "attention is a weighted average, and softmax makes the weights"),
    "02_queries_keys_values.ipynb": Chapter("Queries, keys and values",
                                            "one head, built from scratch, that may not peek at later words"),
    "03_one_spotlight_is_not_enough.ipynb": Chapter("One spotlight is not enough",
                                                    "a word often needs several clues at once"),
    "04_multi_head_attention.ipynb": Chapter("Multi-head attention",
                                             "split the width between heads, then mix their findings"),
    "05_train_and_compare.ipynb": Chapter("Train and compare", "one head against four, measured"),
    "06_meet_the_detectives.ipynb": Chapter("Meet the detectives", "what each trained head actually follows"),
    "07_the_transformer_block.ipynb": Chapter("The transformer block", "where attention sits in the bigger machine"),
}
"""Every chapter in reading order: the one list a new chapter joins (the chapter tables are rendered from it)."""
TITLES = {name: chapter.title for name, chapter in CHAPTERS.items()}
SITE_SAMPLE = (NOTEBOOKS / "02_queries_keys_values.ipynb", NOTEBOOKS / "04_multi_head_attention.ipynb",
               NOTEBOOKS / EXPLORER)
"""What the site tests build: chapter 2 has solution cells (left out of slides), chapter 4 math, and the explorer."""
ONLY = "SPOTLIGHTS_CHAPTERS"
"""The environment variable that narrows the tests to some notebooks by name prefix ("02,06,explorer")."""
WORDS_PER_MINUTE = 180
"""A careful reading pace for technical text with code."""


def chapter_title(name: str) -> str:
    """Notebook `name`'s title as the README and instructor guide give it, or the explorer's name."""
    return TITLES.get(f"{name}.ipynb", EXPLORER_TITLE if f"{name}.ipynb" == EXPLORER else name)


def read_toml(path: Path) -> dict:
    """A TOML file as a dict (tomllib; tomli on Python 3.10)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _narrowed(names: list[str], only: str | None) -> list[Path]:
    only = os.environ.get(ONLY, "") if only is None else only
    wanted = tuple(p.strip() for p in only.split(",") if p.strip())
    return [NOTEBOOKS / name for name in names if not wanted or name.startswith(wanted)]


def chapter_paths(only: str | None = None) -> list[Path]:
    """The chapters' files in reading order, narrowed to names starting with one of the comma-separated
    prefixes in `only` (default: the SPOTLIGHTS_CHAPTERS variable; unset or empty: every chapter)."""
    return _narrowed(list(CHAPTERS), only)


def notebook_paths(only: str | None = None) -> list[Path]:
    """The chapters and the explorer notebook, narrowed as in `chapter_paths`."""
    return _narrowed([*CHAPTERS, EXPLORER], only)


def execute(path: Path, *, nb: nbformat.NotebookNode | None = None, timeout: int = 300, allow_errors: bool = False,
            first: str | None = None, last: str | None = None) -> nbformat.NotebookNode:
    """Run the notebook at `path` (or `nb`, an edition of it) top to bottom in a fresh kernel in its folder, with
    this process's environment; return it with its outputs. `first` and `last` are code run in an added first or
    last cell (tagged INJECTED). With allow_errors a failing cell's error is kept as its output and the run goes
    on, as Run All shows it; without, the first error is raised. A cell over `timeout` seconds raises either way.
    """
    nb = copy.deepcopy(nb) if nb is not None else nbformat.read(path, as_version=4)
    if first is not None:
        nb.cells.insert(0, nbformat.v4.new_code_cell(first, metadata={"tags": [INJECTED]}))
    if last is not None:
        nb.cells.append(nbformat.v4.new_code_cell(last, metadata={"tags": [INJECTED]}))
    NotebookClient(nb, timeout=timeout, startup_timeout=300, kernel_name="python3", allow_errors=allow_errors,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def _words(cell: nbformat.NotebookNode) -> int:
    return len(cell.source.split())


def reading_minutes(path: Path) -> int:
    """Minutes to read a notebook's prose and code at WORDS_PER_MINUTE (at least 1)."""
    cells = nbformat.read(path, as_version=4).cells
    return max(1, round(sum(_words(cell) for cell in cells) / WORDS_PER_MINUTE))


def run_seconds(cell: nbformat.NotebookNode) -> float:
    """How long an executed code cell ran, from the timing nbclient records in its metadata (0 if none)."""
    timing = cell.metadata.get("execution", {})
    if "iopub.status.busy" not in timing or "iopub.status.idle" not in timing:
        return 0.0
    busy, idle = (datetime.fromisoformat(timing[key].replace("Z", "+00:00"))
                  for key in ("iopub.status.busy", "iopub.status.idle"))
    return (idle - busy).total_seconds()


def chapter_parts(nb: nbformat.NotebookNode) -> list[dict]:
    """A notebook's parts, each starting at a markdown cell with a "## " heading (the cells before the first one
    are "Introduction"): per part its title and its cells' indices. Cells added by `execute` (tagged INJECTED)
    are left out."""
    found: list[dict] = [{"title": "Introduction", "cells": []}]
    for index, cell in enumerate(nb.cells):
        if INJECTED in cell.metadata.get("tags", []):
            continue
        heading = next((line[3:].strip() for line in cell.source.splitlines() if line.startswith("## ")), None)
        if cell.cell_type == "markdown" and heading is not None:
            # a heading in the first cell renames the introduction
            if any(_words(nb.cells[i]) for i in found[-1]["cells"]) or len(found) > 1:
                found.append({"title": heading, "cells": []})
            found[-1]["title"] = heading
        found[-1]["cells"].append(index)
    return found


def sections(nb: nbformat.NotebookNode) -> list[dict]:
    """An executed notebook's `chapter_parts`, each with its title, reading minutes and the seconds its cells ran."""
    return [{"title": part["title"],
             "reading_minutes": round(sum(_words(nb.cells[i]) for i in part["cells"]) / WORDS_PER_MINUTE, 2),
             "run_seconds": round(sum(run_seconds(nb.cells[i]) for i in part["cells"]
                                      if nb.cells[i].cell_type == "code"), 2)} for part in chapter_parts(nb)]
