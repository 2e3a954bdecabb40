"""helpers keeps its layers (pyproject.toml's import-linter contracts) and has no import circle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def test_import_linter_contracts_are_kept() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_no_import_circle_between_helpers_modules() -> None:
    """Every import of one helpers module by another, TYPE_CHECKING ones included, goes one way only."""
    graph = grimp.build_graph("helpers", cache_dir=None)
    circles = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back:
                circles.append(" -> ".join((module, *back)))
    assert not circles, "import circles:\n" + "\n".join(circles)

