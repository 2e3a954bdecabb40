"""Write the student edition: every chapter and the explorer without solutions, speaker notes or outputs.

    python -m tools.student                 # into student/ (what `make student` runs)
    python -m tools.student --out DIR       # anywhere else (the site build and the tests do this)

The chapters in notebooks/ stay the one source. A cell tagged "solution" is left out by nbconvert's
TagRemovePreprocessor; the speaker notes (cells of slide type "notes": talking points, the question to ask,
the trap each exercise sets) by DropNotesPreprocessor below; outputs by ClearOutputPreprocessor. Every
exercise keeps its stub and its instructions. The edition runs top to bottom with every exercise unfilled:
each check cell calls `helpers.checks.yours_or_reference`, which hands the cells below the finished version
from helpers until the learner's own function passes (make check runs the edition under nbval).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbconvert import NotebookExporter
from nbconvert.preprocessors import ClearOutputPreprocessor, Preprocessor, TagRemovePreprocessor

from tools.chapters import ROOT, notebook_paths

STUDENT = ROOT / "student"
SOLUTION_TAG = "solution"
NOTES = "notes"
"""The slide type of a speaker-notes cell: for the instructor only."""


def is_notes(cell: nbformat.NotebookNode) -> bool:
    return cell.metadata.get("slideshow", {}).get("slide_type") == NOTES


class DropNotesPreprocessor(Preprocessor):
    """Leave out the speaker-notes cells: they tell the instructor what each exercise's trap is."""

    def preprocess(self, nb: nbformat.NotebookNode, resources: dict) -> tuple[nbformat.NotebookNode, dict]:
        nb.cells = [cell for cell in nb.cells if not is_notes(cell)]
        return nb, resources


def exporter() -> NotebookExporter:
    """A notebook-to-notebook exporter that drops solution and speaker-notes cells and clears outputs."""
    exporter = NotebookExporter()
    exporter.register_preprocessor(TagRemovePreprocessor(remove_cell_tags={SOLUTION_TAG}), enabled=True)
    exporter.register_preprocessor(DropNotesPreprocessor(), enabled=True)
    exporter.register_preprocessor(ClearOutputPreprocessor(), enabled=True)
    return exporter


def student_edition(path: Path) -> nbformat.NotebookNode:
    """The student edition of one notebook: no solution cells, no speaker notes, no outputs."""
    body, _ = exporter().from_filename(str(path))
    return nbformat.reads(body, as_version=4)


def build(out: Path = STUDENT, notebooks: Sequence[Path] | None = None) -> list[Path]:
    """Write the student edition of `notebooks` (default: every chapter and the explorer) into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks or notebook_paths(""):
        target = out / path.name
        nbformat.write(student_edition(path), target)
        written.append(target)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapter and the explorer")
    parser.add_argument("--out", type=Path, default=STUDENT)
    args = parser.parse_args()
    written = build(args.out, [p.resolve() for p in args.notebooks] or None)
    print(f"wrote the student edition of {len(written)} notebooks into {args.out}")


if __name__ == "__main__":
    main()
