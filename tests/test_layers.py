"""helpers keeps its layers (pyproject.toml's import-linter contracts), has no import circle, and importing its
model core has no side effects."""

from __future__ import annotations

import json
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


_IMPORT_THE_MODEL_CORE = """
import json, sys
import torch
torch.set_num_threads(torch.get_num_threads() + 3)  # a count no policy would choose here
before = torch.get_num_threads()
import helpers.attention, helpers.model, helpers.block, helpers
print(json.dumps({"before": before, "after": torch.get_num_threads(),
                  "loaded": sorted(m for m in ("plotly", "ipywidgets", "anywidget", "IPython") if m in sys.modules)}))
"""


def test_importing_the_model_core_has_no_side_effects() -> None:
    """A fresh process that imports helpers.attention (and helpers itself) keeps torch's thread count and
    imports no plotting or widget library."""
    run = subprocess.run([sys.executable, "-c", _IMPORT_THE_MODEL_CORE], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["after"] == seen["before"], "importing helpers changed torch's thread count"
    assert seen["loaded"] == [], f"importing the model core imported {seen['loaded']}"
