"""The editions of the series, each built from the one source: the chapters in notebooks/, the learner edition
itself (docs/architecture.md lists what rides along in it for the other audiences).

    python -m tools.editions instructor                # into instructor/: speaker notes and solutions shown
    python -m tools.editions learner --out DIR         # the learner's notebooks, outputs and notes cleared (a class's)

`with_notes` puts each cell's notes in a notes cell right after it (the speaker view of RISE and the decks);
`with_solutions` puts a solution cell after each exercise's check (the instructor edition is both);
`with_folded_solutions` a folded block with the solution instead, for the site's pages.
"""

from __future__ import annotations

import argparse
import copy
import inspect
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import nbformat

from tools.chapters import ROOT, notebook_paths

NOTES_KEY = "instructor_notes"
"""The cell metadata that holds the speaker notes for that cell (markdown)."""
CHECKED, EXERCISE, SOLUTION = "check-output", "exercise", "solution"
"""Tags: a cell whose printout the tests compare, an exercise's stub, and (instructor edition) a solution."""
NOTES_HEADING = "**Instructor's notes**"
CHECK_CALL = re.compile(r"^(?P<name>\w+) = yours_or_reference\(\s*check_(?P=name)\b", re.M)
"""An exercise's check cell: `softmax = yours_or_reference(check_softmax, softmax)`."""


def tags(cell: nbformat.NotebookNode) -> list[str]:
    return cell.metadata.get("tags", [])


def is_notes(cell: nbformat.NotebookNode) -> bool:
    """A speaker-notes cell (the instructor edition's, or one typed into a chapter by mistake)."""
    return cell.metadata.get("slideshow", {}).get("slide_type") == "notes"


def checked_exercise(cell: nbformat.NotebookNode) -> str | None:
    """The exercise a code cell checks with yours_or_reference ("softmax"), or None."""
    match = CHECK_CALL.search(cell.source) if cell.cell_type == "code" else None
    return match["name"] if match else None


def notes_cell(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(f"{NOTES_HEADING}\n\n{text}", metadata={"slideshow": {"slide_type": "notes"}})


def solution_source(name: str) -> str:
    """The solution to exercise `name`, as helpers.checks.solutions holds it."""
    # imported here: postBuild builds the learner edition from the repository's root, where `helpers` is the
    # source folder without its assets (the installed package has them), and that edition needs no solution
    from helpers.checks.solutions import SOLUTIONS

    return inspect.getsource(SOLUTIONS[name]).rstrip()


def solution_cell(check: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The instructor edition's solution cell: the solution, then the chapter's own check call with
    solution=True (so Run All says the solution is now in use)."""
    call = check.source.rstrip()
    checked = call[:-1].rstrip().rstrip(",") + ", solution=True)"
    return nbformat.v4.new_code_cell(f"# Solution\n{solution_source(name)}\n\n\n{checked}",
                                     metadata={"tags": [SOLUTION], "slideshow": {"slide_type": "skip"}})


def folded_solution_cell(name: str) -> nbformat.NotebookNode:
    """A folded block with the solution, for a page: open it to read, nothing runs."""
    return nbformat.v4.new_markdown_cell(
        f"<details><summary>Solution: <code>{name}</code></summary>\n\n```python\n{solution_source(name)}\n```\n\n"
        "</details>", metadata={"tags": [SOLUTION]})


def _after(nb: nbformat.NotebookNode, extra: Callable[[nbformat.NotebookNode], list]) -> nbformat.NotebookNode:
    """A copy of `nb` with the cells `extra(cell)` returns inserted after each cell."""
    out = copy.deepcopy(nb)
    out.cells = [new for cell in nb.cells for new in (copy.deepcopy(cell), *extra(cell))]
    return out


def with_notes(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return _after(nb, lambda cell: [notes_cell(cell.metadata[NOTES_KEY])] if cell.metadata.get(NOTES_KEY) else [])


def with_solutions(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return _after(nb, lambda cell: [solution_cell(cell, name)] if (name := checked_exercise(cell)) else [])


def with_folded_solutions(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return _after(nb, lambda cell: [folded_solution_cell(name)] if (name := checked_exercise(cell)) else [])


def cleared(nb: nbformat.NotebookNode, notes: bool = True) -> nbformat.NotebookNode:
    """A copy with no outputs, execution counts, timings or widget state; with notes=False also without the speaker
    notes in the cells' metadata (in a graded class they would be hints)."""
    out = copy.deepcopy(nb)
    out.metadata.pop("widgets", None)
    for cell in out.cells:
        cell.metadata.pop("execution", None)
        if not notes:
            cell.metadata.pop(NOTES_KEY, None)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return out


EDITIONS: dict[str, Callable[[nbformat.NotebookNode], nbformat.NotebookNode]] = {
    "learner": lambda nb: cleared(nb, notes=False),
    "instructor": lambda nb: cleared(with_solutions(with_notes(nb))),
}


def answered(nb: nbformat.NotebookNode) -> list[str]:
    """The exercises whose stub cell holds code instead of its stub, or that another cell defines too (an answer
    typed while presenting, saved)."""
    stubs = {i: re.search(r"^def (\w+)", c.source, re.M) for i, c in enumerate(nb.cells) if EXERCISE in tags(c)}
    typed = [found[1] if found else f"cell {i + 1}" for i, found in stubs.items() if "todo()" not in nb.cells[i].source]
    return typed + [found[1] for i, cell in enumerate(nb.cells) if i not in stubs and cell.cell_type == "code"
                    for found in stubs.values() if found and re.search(rf"^def {found[1]}\(", cell.source, re.M)]


def stubs_in_place(paths: Sequence[Path]) -> None:
    """Stop the build if a chapter holds an answer to an exercise: a learner edition, page or deck would show it."""
    filled = {p.name: names for p in paths if (names := answered(nbformat.read(p, 4)))}
    if filled:
        said = "; ".join(f"{name}: {', '.join(names)}" for name, names in filled.items())
        raise SystemExit(f"Not built: the chapters hold answers to exercises ({said}): a chapter presented live "
                         "saves what you type into it. Close it in JupyterLab, put the stubs back (git checkout "
                         "notebooks/ undoes every change in that folder), then build again.")


def build(edition: str, out: Path, notebooks: Sequence[Path] | None = None) -> list[Path]:
    """Write `edition` of `notebooks` (default: every chapter and the explorer) into the folder `out`; a learner
    edition of a chapter that holds answers to exercises is refused (SystemExit), before anything is written."""
    paths = list(notebooks or notebook_paths(""))
    if edition == "learner":
        stubs_in_place(paths)
    out.mkdir(parents=True, exist_ok=True)
    for path in paths:
        nb = EDITIONS[edition](nbformat.read(path, as_version=4))
        nbformat.validate(nb)
        nbformat.write(nb, out / path.name)
    return [out / path.name for path in paths]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("edition", choices=sorted(EDITIONS))
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapter and the explorer")
    parser.add_argument("--out", type=Path, help="default: a folder named after the edition")
    args = parser.parse_intermixed_args()  # --out before or after the notebooks
    out = args.out or ROOT / args.edition
    written = build(args.edition, out, [p.resolve() for p in args.notebooks] or None)
    print(f"wrote the {args.edition} edition of {len(written)} notebook{'s' * (len(written) != 1)} into {out}")


if __name__ == "__main__":
    main()
