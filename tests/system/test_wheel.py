"""A regular install (not editable) carries what the chapters read: the class's install path.

Builds a wheel from a fresh clone of this repository (committed files only, as a hub admin's
`pip install "several-spotlights @ git+..."` would), installs it into a new venv outside the checkout
and loads every shipped checkpoint there. Slow (a venv and its packages): `make check` runs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TORCH = "torch==2.13.0"  # the Makefile's pin; TORCH_INDEX picks the CPU build where PyPI would not

INSTALLED_CHECK = """
import json, sys
from pathlib import Path
import helpers
from helpers.checkpoints import ASSETS, load_model
from helpers.novels import read_novels
from helpers.real_text import real_text_results
shipped = {p.name for p in ASSETS.iterdir() if not p.name.startswith("__")}
wanted = set(sys.argv[1].split(","))
assert wanted <= shipped, f"missing from the installed package: {sorted(wanted - shipped)}"
assert "site-packages" in str(ASSETS), ASSETS
names = sorted(p.stem for p in ASSETS.glob("*.safetensors"))
for name in names:
    load_model(name)
books = read_novels()
assert books and all(len(text) > 100_000 for text in books.values()), {k: len(v) for k, v in books.items()}
json.loads((ASSETS / "results.json").read_text())
assert real_text_results()
print("loaded", ",".join(names), "from", Path(helpers.__file__).parent)
"""


def _run(*command: str | Path, cwd: Path) -> str:
    result = subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True)
    said = result.stdout[-2000:] + result.stderr[-4000:]
    assert result.returncode == 0, f"{' '.join(map(str, command))} failed:\n{said}"
    return result.stdout


def test_a_wheel_from_a_fresh_clone_loads_every_shipped_checkpoint(tmp_path: Path) -> None:
    clone, dist, env = tmp_path / "clone", tmp_path / "dist", tmp_path / "venv"
    _run("git", "clone", "--quiet", ROOT, clone, cwd=tmp_path)
    _run(sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--quiet", "-w", dist, cwd=clone)
    (wheel,) = dist.glob("several_spotlights-*.whl")
    venv.create(env, with_pip=True)
    pip = [env / "bin" / "python", "-m", "pip", "install", "--quiet"]
    index = os.environ.get("TORCH_INDEX")
    _run(*pip, TORCH, *(["--index-url", index] if index else []), cwd=tmp_path)
    _run(*pip, wheel, cwd=tmp_path)
    committed = _run("git", "ls-files", "assets", cwd=clone).split()
    wanted = [Path(p).name for p in committed if not p.endswith((".py", ".png"))]
    out = _run(env / "bin" / "python", "-c", INSTALLED_CHECK, ",".join(wanted), cwd=tmp_path)
    shipped = sorted(Path(p).stem for p in committed if p.endswith(".safetensors"))
    assert f"loaded {','.join(shipped)} from {env}" in out, out
