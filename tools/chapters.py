"""The chapter list and the one notebook runner, shared by the tools, the benchmarks and the tests.

`CHAPTERS` gives every chapter's file and title in reading order (tests/test_project_files.py fails when a
numbered notebook is missing from it). `execute` runs a notebook top to bottom in a fresh kernel, as
"Restart and Run All" does, and returns it with its outputs. `reading_minutes` estimates a notebook's
reading time; the notebook benchmark stores it in assets/notebooks.json, so the docs never recompute it.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
EXPLORER = "explorer.ipynb"
CHAPTERS = {
    "00_start_here.ipynb": "Start here",
    "01_one_spotlight.ipynb": "One spotlight",
    "02_queries_keys_values.ipynb": "Queries, keys and values",
    "03_one_spotlight_is_not_enough.ipynb": "One spotlight is not enough",
    "04_multi_head_attention.ipynb": "Multi-head attention",
    "05_train_and_compare.ipynb": "Train and compare",
    "06_meet_the_detectives.ipynb": "Meet the detectives",
    "07_the_transformer_block.ipynb": "The transformer block",
}
SITE_SAMPLE = (NOTEBOOKS / "02_queries_keys_values.ipynb", NOTEBOOKS / "04_multi_head_attention.ipynb",
               NOTEBOOKS / EXPLORER)
"""What the site tests build: chapter 2 has solution cells (left out of slides), chapter 4 math, and the explorer."""
ONLY = "SPOTLIGHTS_CHAPTERS"
"""The environment variable that narrows the tests to some notebooks by name prefix ("02,06,explorer")."""
WORDS_PER_MINUTE = 180
"""A careful reading pace for technical text with code."""


def _narrowed(names: list[str], only: str | None) -> list[Path]:
    if only is None:
        only = os.environ.get(ONLY, "")
    wanted = tuple(p.strip() for p in only.split(",") if p.strip())
    return [NOTEBOOKS / name for name in names if not wanted or name.startswith(wanted)]


def chapter_paths(only: str | None = None) -> list[Path]:
    """The chapters' files in reading order, narrowed to names starting with one of the comma-separated
    prefixes in `only` (default: the SPOTLIGHTS_CHAPTERS variable; unset or empty: every chapter)."""
    return _narrowed(list(CHAPTERS), only)


def notebook_paths(only: str | None = None) -> list[Path]:
    """The chapters and the explorer notebook, narrowed as in `chapter_paths`."""
    return _narrowed([*CHAPTERS, EXPLORER], only)


def execute(
    path: Path, *, timeout: int = 300, allow_errors: bool = False, first: str | None = None,
    last: str | None = None, folder: Path | None = None,
) -> nbformat.NotebookNode:
    """Run the notebook at `path` in a fresh kernel, top to bottom; return it with its outputs.

    `first` and `last` are code run in an added first or last cell (presenter mode on, a memory reading).
    The kernel runs in `folder` (default: the notebook's own) and inherits this process's environment (the
    site builder sets SPOTLIGHTS_STATIC there). With allow_errors, a failing cell's error is kept as its
    output and the run goes on, as Run All in JupyterLab shows it; without, the first error is raised.
    """
    nb = nbformat.read(path, as_version=4)
    if first is not None:
        nb.cells.insert(0, nbformat.v4.new_code_cell(first, metadata={"tags": ["injected"]}))
    if last is not None:
        nb.cells.append(nbformat.v4.new_code_cell(last, metadata={"tags": ["injected"]}))
    NotebookClient(nb, timeout=timeout, startup_timeout=300, kernel_name="python3", allow_errors=allow_errors,
                   resources={"metadata": {"path": str(folder or path.parent)}}).execute()
    return nb


def reading_minutes(path: Path) -> int:
    """Minutes to read a notebook's prose and code at WORDS_PER_MINUTE."""
    nb = nbformat.read(path, as_version=4)
    words = sum(len(cell.source.split()) for cell in nb.cells)
    return max(1, round(words / WORDS_PER_MINUTE))
