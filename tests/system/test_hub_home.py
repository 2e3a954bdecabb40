"""A hub's learner: the image's environment as postBuild makes it, an empty home, the notebooks delivered by
deploy/config.yaml's postStart hook; chapter 1 runs there. Simulated without docker: the repository's files in one
folder (as repo2docker copies them), a new venv for the image's environment, HOME an empty folder (the learner's
volume). Slow: `make check` runs it, `make test` does not.
"""

from __future__ import annotations

import json
import os
import shutil
import venv
from collections.abc import Callable
from functools import partial
from pathlib import Path

import yaml

from tools.chapters import ROOT, notebook_paths
from tools.editions import EXERCISE


def test_an_empty_home_gets_the_learner_edition_and_runs_chapter_1_from_the_installed_package(
        tmp_path: Path, run: Callable[..., str], torch_pip: list[str]) -> None:
    run = partial(run, timeout=1800)  # half an hour at most for any step (pip, postBuild, the chapter's run)
    image, env_dir, home = tmp_path / "repo", tmp_path / "env", tmp_path / "home"
    listed = run("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", cwd=ROOT).split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (image / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, image / name)
    venv.create(env_dir, with_pip=True)
    pip = [env_dir / "bin" / "python", "-m", "pip", "install", "--quiet"]
    run(*pip, *torch_pip, cwd=tmp_path)
    run(*pip, image, "jupyterlab", "ipykernel", "nbclient", cwd=tmp_path)  # the environment.yml's part
    run(env_dir / "bin" / "python", "-m", "pip", "uninstall", "--yes", "several-spotlights", cwd=tmp_path)
    path = f"{env_dir / 'bin'}{os.pathsep}{os.environ['PATH']}"
    image_env = {**os.environ, "PATH": path, "NB_PYTHON_PREFIX": str(env_dir)}
    image_env.pop("PYTHONPATH", None)
    run("bash", "postBuild", cwd=image, env=image_env)
    overrides = json.loads((env_dir / "share" / "jupyter" / "lab" / "settings" / "overrides.json").read_text())
    assert overrides["@jupyterlab/docmanager-extension:plugin"]["autosaveInterval"] < 120, "saved sooner than 2 min"

    home.mkdir()
    learner = {**image_env, "HOME": str(home)}
    hook = yaml.safe_load((ROOT / "deploy" / "config.yaml").read_text())["singleuser"]["lifecycleHooks"]
    run(*hook["postStart"]["exec"]["command"], cwd=home, env=learner)
    folder = home / "several-spotlights"
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in notebook_paths("")), "the learner edition"
    chapter = folder / "01_one_spotlight.ipynb"
    assert not any(c["metadata"].get("instructor_notes") for c in json.loads(chapter.read_text())["cells"])
    assert any(EXERCISE in c["metadata"].get("tags", []) for c in json.loads(chapter.read_text())["cells"])

    found = run(env_dir / "bin" / "python", "-c", "import importlib.util; print(importlib.util.find_spec("
                "'helpers').origin)", cwd=folder, env=learner)
    assert found.startswith(str(env_dir)) and "site-packages" in found, found
    run(env_dir / "bin" / "jupyter", "execute", "--inplace", chapter.name, cwd=folder, env=learner)
    ran = json.loads(chapter.read_text())["cells"]
    errors = [o for c in ran for o in c.get("outputs", []) if o["output_type"] == "error" or o.get("name") == "stderr"]
    assert not errors and any(c.get("outputs") for c in ran), errors

    chapter.write_text(chapter.read_text().replace("todo()", "return None"))  # a learner's work
    (folder / "02_queries_keys_values.ipynb").unlink()
    run(*hook["postStart"]["exec"]["command"], cwd=home, env=learner)  # the next start
    assert "todo()" not in chapter.read_text() and (folder / "02_queries_keys_values.ipynb").exists()
