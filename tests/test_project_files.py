"""Rules on the project's files: environment.yml matches pyproject, notebooks are clean, code passes ruff."""

import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.chapters import CHAPTERS, ROOT, chapter_paths, notebook_paths, read_toml
from tools.refresh_outputs import CHECKED, load_expected

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CONDA_NAMES = {"torch": "pytorch-cpu"}  # pip name -> conda-forge name where they differ
FRONT_ENDS = {"jupyterlab", "notebook", "jupyter-server", "jupyterlab-rise", "nbgitpuller", "jupyterhub"}


def _norm(name: str) -> str:
    return re.split(r"[<>=!~ \[;]", name.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _environment() -> dict[str, str]:
    """environment.yml's packages: conda name -> what follows it ("=2.13", or "")."""
    lines = (ROOT / "environment.yml").read_text().splitlines()
    deps = [line.strip()[2:] for line in lines if line.startswith("  - ") and "conda-forge" not in line]
    return {_norm(d): d[len(_norm(d)):] for d in deps if _norm(d) not in ("python", "pip")}


def _conda(requirements: list[str]) -> set[str]:
    return {_norm(CONDA_NAMES.get(_norm(r), r)) for r in requirements}


def test_environment_holds_what_a_learner_needs_and_no_test_tool() -> None:
    """Binder and a class's hub image: the kernel's packages and the lab extra (JupyterLab, RISE, nbgitpuller)."""
    project = read_toml(ROOT / "pyproject.toml")["project"]
    learner = _conda(project["dependencies"]) | _conda(project["optional-dependencies"]["lab"])
    env = set(_environment())
    assert env == learner, f"missing: {sorted(learner - env)}; not a learner's: {sorted(env - learner)}"
    assert "jupyterlab" in env and not env & _conda(project["optional-dependencies"]["test"])


def test_environment_pins_the_one_cpu_torch_which_postbuild_keeps_and_no_local_path() -> None:
    text = (ROOT / "environment.yml").read_text()
    assert re.fullmatch(r"=\d+\.\d+(\.\d+)?", _environment()["pytorch-cpu"]), "no torch version to follow"
    assert "cuda" not in text.lower()
    assert not re.search(r"(^|\s)(\.{0,2}/|file:|-e )", text.split("dependencies:")[1]), "no local paths"


def test_postbuild_installs_helpers_as_a_regular_package_without_dependencies() -> None:
    """Not editable: a hub mounts each learner's home over the repository repo2docker put there; without
    dependencies: pip would replace environment.yml's torch."""
    text = (ROOT / "postBuild").read_text()
    assert re.search(r"pip install --no-deps \.", text) and " -e " not in text


def test_installing_the_package_brings_no_front_end() -> None:
    """Colab and a hub keep their own front end: only the extras bring JupyterLab, RISE, nbgitpuller, a hub."""
    always = [r for r in importlib.metadata.requires("several-spotlights") if "extra ==" not in r]
    assert always and not {_norm(r) for r in always} & FRONT_ENDS, always


def test_make_installs_environment_ymls_torch_before_the_package(tmp_path: Path) -> None:
    """The one torch version: `make install` (`make lab`'s) asks for environment.yml's, then the package with the
    [lab] extra alone, what a learner needs; `make install-dev` (the tests') adds the [test] extra after them."""
    pips, said = {}, {}
    for target in ("install", "install-dev"):
        dry = subprocess.run(["make", "-n", target, f"VENV={tmp_path}"], cwd=ROOT, capture_output=True, text=True)
        said[target] = dry.stdout
        pips[target] = [line for line in dry.stdout.splitlines()
                        if " -m pip install" in line and "--upgrade pip" not in line]
    assert "deploy/overrides.json" in said["install"], "a learner's JupyterLab has a hub's settings: no news pop-up"
    version = _environment()["pytorch-cpu"].lstrip("=")
    learner, dev = pips["install"], pips["install-dev"]
    assert len(learner) == 2 and f'"torch=={version}.*"' in learner[0] and '-e ".[lab]"' in learner[1], learner
    assert dev[:2] == learner and len(dev) == 3 and '-e ".[lab,test]"' in dev[2], dev


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_stripped(path: Path) -> None:
    """No outputs in git; the checked cells' expected text lives in tests/expected_outputs/ instead."""
    nb = json.loads(path.read_text())
    assert "widgets" not in nb["metadata"], f"{path.name} stores widget state; run python -m tools.refresh_outputs"
    dirty = [i for i, c in enumerate(nb["cells"]) if c.get("outputs") or c.get("execution_count")]
    assert not dirty, f"{path.name}: cells {dirty} have outputs; run python -m tools.refresh_outputs before committing"
    checked = {c["id"] for c in nb["cells"] if CHECKED in c["metadata"].get("tags", [])}
    assert checked == set(load_expected(path)), (f"{path.name}: its checked cells and tests/expected_outputs/"
                                                f"{path.stem}.json disagree; run python -m tools.refresh_outputs on it")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_goals_takeaways_and_slides(path: Path) -> None:
    cells = json.loads(path.read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert re.search(r"learning goals|you will", text, re.I), f"{path.name}: no learning goals"
    assert re.search(r"takeaways", text, re.I), f"{path.name}: no takeaways"
    missing = [i for i, c in enumerate(cells) if "slide_type" not in c["metadata"].get("slideshow", {})]
    assert not missing, f"{path.name}: cells {missing} have no slideshow.slide_type"
    sources = "\n".join("".join(c["source"]) for c in cells)
    assert "sys.path" not in sources, f"{path.name} touches sys.path; import helpers instead"


def test_ruff_is_clean_on_code_and_notebooks() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is not installed"
    result = subprocess.run([ruff, "check", str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_chapter_list_names_every_numbered_notebook_in_order_and_narrows_by_name_prefix() -> None:
    on_disk = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert list(CHAPTERS) == on_disk, "tools/chapters.py CHAPTERS must list every numbered notebook, in order"
    assert [p.name[:2] for p in chapter_paths("02, 06")] == ["02", "06"]
    assert [p.name for p in notebook_paths("explorer")] == ["explorer.ipynb"]
    assert [p.name for p in chapter_paths("")] == list(CHAPTERS) and notebook_paths("")[-1].name == "explorer.ipynb"
