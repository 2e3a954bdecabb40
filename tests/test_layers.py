"""The layers are declared once, in pyproject.toml's import-linter contracts (no import circles among them), and
hold; importing helpers' model core (or helpers itself) has no side effects (helpers.threads says where the thread
policy applies instead)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_IMPORT_THE_MODEL_CORE = """
import json, sys
import torch
torch.set_num_threads(torch.get_num_threads() + 3)  # a count set by hand, which the import must keep
before = torch.get_num_threads()
import helpers.attention, helpers.model, helpers.block, helpers
print(json.dumps({"before": before, "after": torch.get_num_threads(),
                  "loaded": sorted(m for m in ("plotly", "ipywidgets", "anywidget", "IPython") if m in sys.modules)}))
"""


def test_import_linter_contracts_are_kept() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_importing_the_model_core_has_no_side_effects() -> None:
    """Importing helpers.attention (and helpers) in a fresh process keeps torch's threads, loads no plots or widgets."""
    run = subprocess.run([sys.executable, "-c", _IMPORT_THE_MODEL_CORE], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["after"] == seen["before"], "importing helpers set torch's threads"
    assert seen["loaded"] == [], f"importing the model core imported {seen['loaded']}"
