"""Rules on the project's files: environment.yml matches pyproject, notebooks are clean, code passes ruff."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.notebook_checks import PRINTOUT_WIDTH
from tools.refresh_outputs import CHECKED, load_expected

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# pip name -> conda-forge name where they differ (conda's jupyterhub brings Node.js and the proxy; -base does not)
CONDA_NAMES = {"torch": "pytorch-cpu", "jupyterhub": "jupyterhub-base"}


def _norm(name: str) -> str:
    return re.split(r"[<>=!~ \[;]", name.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _environment_packages() -> set[str]:
    lines = (ROOT / "environment.yml").read_text().splitlines()
    deps = [line.strip()[2:] for line in lines if line.startswith("  - ") and "conda-forge" not in line]
    return {_norm(d) for d in deps} - {"python", "pip"}


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_environment_and_pyproject_name_the_same_packages() -> None:
    project = _pyproject()["project"]
    runtime = {_norm(CONDA_NAMES.get(_norm(d), d)) for d in project["dependencies"]}
    testing = {_norm(CONDA_NAMES.get(_norm(d), d)) for d in project["optional-dependencies"]["test"]
               if "python_version" not in d}
    env = _environment_packages()
    assert runtime <= env, f"runtime packages missing from environment.yml: {sorted(runtime - env)}"
    browser_only = {"playwright"}  # the browser test runs from `make test`, not on Binder
    assert testing - browser_only <= env, f"test packages missing: {sorted(testing - browser_only - env)}"
    extras = sorted(env - runtime - testing)
    assert not extras, f"environment.yml has packages pyproject lacks: {extras}"


def test_environment_is_cacheable_and_cpu_only() -> None:
    text = (ROOT / "environment.yml").read_text()
    assert "python=3.11" in text
    assert "pytorch-cpu" in text and "cuda" not in text.lower()
    assert not re.search(r"(^|\s)(\.{0,2}/|file:|-e )", text.split("dependencies:")[1]), "no local paths"


def test_postbuild_installs_helpers_as_a_regular_package_without_dependencies() -> None:
    """Not editable: a hub mounts each learner's home over the repository repo2docker put there."""
    text = (ROOT / "postBuild").read_text()
    assert re.search(r"pip install --no-deps \.", text) and " -e " not in text


def test_makefile_installs_the_cpu_torch_before_the_package() -> None:
    text = (ROOT / "Makefile").read_text()
    assert "TORCH ?= torch==2.13.0" in text
    assert text.index('"$(TORCH)"') < text.index('-e ".[test]"')


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_stripped(path: Path) -> None:
    """No outputs in git; the checked cells' expected text lives in tests/expected_outputs/ instead."""
    nb = json.loads(path.read_text())
    assert "widgets" not in nb["metadata"], f"{path.name} stores widget state; run python -m tools.refresh_outputs"
    dirty = [i for i, c in enumerate(nb["cells"]) if c.get("outputs") or c.get("execution_count")]
    assert not dirty, f"{path.name}: cells {dirty} have outputs; run python -m tools.refresh_outputs before committing"
    checked = {c["id"] for c in nb["cells"] if CHECKED in c["metadata"].get("tags", [])}
    assert checked == set(load_expected(path)), (
        f"{path.name}: its checked cells and tests/expected_outputs/{path.stem}.json disagree; "
        "run python -m tools.refresh_outputs on it"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_checked_printouts_do_not_wrap_on_a_projector(path: Path) -> None:
    long = [f"{cell}: {len(line)} characters: {line[:60]}..." for cell, text in load_expected(path).items()
            for line in text.removeprefix("[stdout] ").splitlines() if len(line) > PRINTOUT_WIDTH]
    assert not long, f"{path.name}: lines over {PRINTOUT_WIDTH} characters (wrap them):\n" + "\n".join(long)


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


def test_the_chapter_list_names_every_numbered_notebook_in_order() -> None:
    from tools.chapters import CHAPTERS

    on_disk = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert list(CHAPTERS) == on_disk, "tools/chapters.py CHAPTERS must list every numbered notebook, in order"


def test_the_chapter_list_narrows_by_name_prefix() -> None:
    from tools.chapters import CHAPTERS, chapter_paths, notebook_paths

    assert [p.name[:2] for p in chapter_paths("02, 06")] == ["02", "06"]
    assert [p.name for p in notebook_paths("explorer")] == ["explorer.ipynb"]
    assert [p.name for p in chapter_paths("")] == list(CHAPTERS) and notebook_paths("")[-1].name == "explorer.ipynb"
