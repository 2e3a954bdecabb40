"""Run notebooks, record what their checked cells print, and strip every output.

Notebooks are committed with no outputs; the text of each cell tagged `check-output` is recorded by cell id in
tests/expected_outputs/<notebook>.json, which the suite's one nbval run of each notebook compares.

    python -m tools.refresh_outputs notebooks/*.ipynb
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import nbformat

from tools.chapters import execute
from tools.editions import CHECKED, cleared

EXPECTED = Path(__file__).resolve().parents[1] / "tests" / "expected_outputs"
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # object reprs differ between runs without meaning anything


def is_checked(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and CHECKED in cell.metadata.get("tags", [])


def checked_text(cell: nbformat.NotebookNode) -> str:
    """What a cell showed as text: its printed streams and text results, in order; consecutive pieces of one
    stream are joined (where printed text is cut differs from run to run)."""
    parts: list[str] = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            label = f"[{out.name}] "
            if parts and parts[-1].startswith(label):
                parts[-1] += out.text
            else:
                parts.append(label + out.text)
        elif out.output_type in ("execute_result", "display_data") and "text/plain" in out.get("data", {}):
            parts.append(out.data["text/plain"])
        elif out.output_type == "error":
            parts.append(f"[error] {out.ename}: {out.evalue}")
    return _ADDRESS.sub(" at 0x…", "".join(parts))


def expected_path(notebook: Path) -> Path:
    return EXPECTED / f"{notebook.stem}.json"


def load_expected(notebook: Path) -> dict[str, str]:
    """The recorded text of each checked cell of `notebook`, by cell id ({} if none is recorded)."""
    path = expected_path(notebook)
    return json.loads(path.read_text())["cells"] if path.exists() else {}


def refresh(path: Path, timeout: int = 300) -> int:
    """Execute `path` in its folder, record its checked cells' text, strip it. Returns the checked count."""
    nb = execute(path, timeout=timeout)
    expected = {cell.id: checked_text(cell) for cell in nb.cells if is_checked(cell)}
    nbformat.write(cleared(nb), path)
    EXPECTED.mkdir(parents=True, exist_ok=True)
    expected_path(path).write_text(json.dumps({"notebook": path.name, "cells": expected}, indent=1,
                                              ensure_ascii=False) + "\n")
    return len(expected)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    for path in parser.parse_args().notebooks:
        print(f"{path}: recorded the output of {refresh(path.resolve())} checked cells")


if __name__ == "__main__":
    main()
