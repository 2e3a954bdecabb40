"""A regular install carries what the chapters read, and installs on Colab the way the notebooks' set-up cell does.

A new venv outside the checkout gets the CPU torch and Colab's versions (.ci/colab-versions.txt); then chapter 0's
Colab set-up cell runs there, with a stand-in `google.colab` module and a fresh clone of this repository (committed
files only, as pip sees GitHub) in place of GitHub. It must keep Colab's versions, bring no front end, and leave a
package that loads every shipped checkpoint, the texts and the results the chapters read. Slow (a venv and its
packages): `make check` runs it.
"""

from __future__ import annotations

import json
import venv
from collections.abc import Callable
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
GITHUB = "git+https://github.com/several-spotlights/several-spotlights"
FRONT_ENDS = {"jupyterlab", "jupyter-server", "jupyterlab-rise", "nbgitpuller", "jupyterhub"}
MANAGER = "def enable_custom_widget_manager():\n    print('custom widget manager on')\n"

VERSIONS = ("import json, importlib.metadata as m; print(json.dumps("
            "{str(d.metadata['Name']).lower().replace('_', '-'): d.version for d in m.distributions()}))")
INSTALLED_CHECK = """
import json, sys
from pathlib import Path
import helpers
from helpers.checkpoints import ASSETS, load_model
from helpers.novels import read_novels, read_plays
from helpers.real_text import real_text_results
assert "site-packages" in str(ASSETS), ASSETS
names = sorted(p.stem for p in ASSETS.glob("*.safetensors"))
for name in names:
    load_model(name)
texts = {**read_novels(), **read_plays()}
assert texts and all(len(text) > 10_000 for text in texts.values()), {k: len(v) for k, v in texts.items()}
json.loads((ASSETS / "results.json").read_text())
assert real_text_results() and (ASSETS / "lamplighter.txt").read_text()
print("loaded", ",".join(names), "from", Path(helpers.__file__).parent)
"""


def _fake_colab(folder: Path) -> Path:
    """A `google.colab` package whose widget manager says it was turned on."""
    (folder / "google" / "colab").mkdir(parents=True)
    for name, text in (("__init__.py", ""), ("colab/__init__.py", ""), ("colab/output.py", MANAGER)):
        (folder / "google" / name).write_text(text)
    return folder


def test_the_colab_cell_installs_the_series_over_colabs_versions_and_every_checkpoint_loads(
        tmp_path: Path, run: Callable[..., str], torch_pip: list[str]) -> None:
    clone, env = tmp_path / "clone", tmp_path / "venv"
    run("git", "clone", "--quiet", ROOT, clone, cwd=tmp_path)
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip", cwd=tmp_path)  # Colab's is recent
    run(python, "-m", "pip", "install", "--quiet", *torch_pip, cwd=tmp_path)
    run(python, "-m", "pip", "install", "--quiet", "-r", ROOT / ".ci" / "colab-versions.txt", cwd=tmp_path)
    colab = json.loads(run(python, "-c", VERSIONS, cwd=tmp_path))
    cell = nbformat.read(ROOT / "notebooks" / "00_start_here.ipynb", as_version=4).cells[1].source
    assert GITHUB in cell, "the set-up cell no longer installs from the repository"
    script = tmp_path / "colab_cell.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(_fake_colab(tmp_path / 'fake'))!r})\nimport google.colab\n"
                      + cell.replace(GITHUB, f"git+file://{clone}"))
    assert "custom widget manager on" in run(python, script, cwd=tmp_path)
    after = json.loads(run(python, "-c", VERSIONS, cwd=tmp_path))
    assert {name: after.get(name) for name in colab} == colab, "the series replaced some of Colab's packages"
    brought = FRONT_ENDS & (set(after) - set(colab))
    assert not brought, f"the series brought a front end: {sorted(brought)}"
    out = run(python, "-c", INSTALLED_CHECK, cwd=tmp_path)
    shipped = sorted(Path(p).stem for p in run("git", "ls-files", "assets/*.safetensors", cwd=clone).split())
    assert f"loaded {','.join(shipped)} from {env}" in out, out
