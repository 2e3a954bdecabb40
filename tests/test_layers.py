"""The layers are declared once, in pyproject.toml's import-linter contracts, and hold; nothing imports in a circle."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("helpers", "tools", "benchmarks")


def test_import_linter_contracts_are_kept() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_no_module_imports_itself_through_others() -> None:
    graph = grimp.build_graph(*PACKAGES)
    circles = []
    for first, second in itertools.combinations(sorted(graph.modules), 2):
        if graph.chain_exists(first, second) and graph.chain_exists(second, first):
            circles.append(graph.find_shortest_chain(first, second) + graph.find_shortest_chain(second, first)[1:])
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(chain) for chain in circles[:10])
