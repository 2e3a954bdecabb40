"""Run notebooks and keep only the outputs nbval checks.

Committed notebooks carry no outputs, except the cells whose first line is `# NBVAL_CHECK_OUTPUT`: those keep
their plain-text output as the expected result that nbval compares against on every test run.

    python tools/refresh_outputs.py notebooks/*.ipynb
"""

from __future__ import annotations

import argparse
from pathlib import Path

import nbformat
from nbclient import NotebookClient

CHECK = "# NBVAL_CHECK_OUTPUT"


def is_checked(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and cell.source.lstrip().startswith(CHECK)


def _text_only(outputs: list) -> list:
    """Keep stream text and text/plain results; drop images, HTML, widgets and errors."""
    kept = []
    for out in outputs:
        if out.output_type == "stream":
            kept.append(out)
        elif out.output_type == "execute_result" and "text/plain" in out.data:
            out.data = {"text/plain": out.data["text/plain"]}
            out.metadata = {}
            kept.append(out)
    return kept


def refresh(path: Path, timeout: int = 300) -> int:
    """Execute `path` in its folder, then strip every output but the checked cells'. Returns their count."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    nb.metadata.pop("widgets", None)  # widget state is output too
    checked = 0
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        if is_checked(cell):
            checked += 1
            cell.outputs = _text_only(cell.outputs)
            cell.execution_count = checked
            for out in cell.outputs:
                if out.output_type == "execute_result":
                    out.execution_count = checked
        else:
            cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, path)
    return checked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    for path in parser.parse_args().notebooks:
        print(f"{path}: kept the outputs of {refresh(path)} checked cells")


if __name__ == "__main__":
    main()
