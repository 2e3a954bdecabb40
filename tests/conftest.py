"""The suite's shared fixtures: notebooks executed and the site built once per run, small training data, presenter
mode."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import nbformat
import pytest
from filelock import FileLock

from tests.notebook_checks import count_run, executed_copy
from tools.chapters import NOTEBOOKS, ROOT, SITE_SAMPLE, execute, notebook_paths
from tools.pages import PRESENTER


@pytest.fixture(scope="session")
def executed() -> Callable[[str, str], Path]:
    """executed(name, mode) -> notebook `name` executed in mode "reading" (nbval's copy, or a run of its own when
    nbval has not run it) or "presenter". Errors are kept as outputs, as Run All shows them."""
    def run(name: str, mode: str = "reading") -> Path:
        source = NOTEBOOKS / name
        copy = executed_copy(source, mode)
        copy.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(copy.parent / "lock")):
            if not copy.exists():
                nb = execute(source, timeout=600, allow_errors=True, first=PRESENTER if mode == "presenter" else None)
                nbformat.write(nb, copy)
                count_run(source, mode)
        return copy

    return run


@pytest.fixture(scope="session")
def small_stories():
    """A story-world corpus of 60 training and 6 validation stories, for short training runs."""
    from helpers.train import story_corpus

    return story_corpus(train_stories=60, val_stories=6)


@pytest.fixture(scope="session")
def sample_text() -> Path:
    """tests/data/sample.txt: a short text of one's own, for `--text` runs."""
    return ROOT / "tests" / "data" / "sample.txt"


@pytest.fixture(scope="session")
def mine(sample_text: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A learner's folder "mine": one_head and four_heads, two training steps each on tests/data/sample.txt."""
    from helpers.train import main

    folder = tmp_path_factory.mktemp("runs") / "mine"
    for heads in ("1", "4"):
        assert main(["--heads", heads, "--steps", "2", "--text", str(sample_text), "--out", str(folder), "--json"]) == 0
    return folder


@pytest.fixture
def presenter(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Presenter mode on (or as given by an indirect parametrize) during the test, and always off after it."""
    import helpers

    on = getattr(request, "param", True)
    helpers.presenter_mode(on)
    yield on
    helpers.presenter_mode(False)


@pytest.fixture
def threads_back():
    """Applies the thread policy, then gives the next test torch's thread count as this one found it (training and
    steps_that_fit may keep another count for the process)."""
    import torch

    from helpers.threads import apply_thread_policy

    apply_thread_policy()
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


class Built(NamedTuple):
    folder: Path
    output: str  # what the build printed


def _run(*command: str | Path, cwd: Path, env: dict | None = None, timeout: float | None = None) -> str:
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
    return done.stdout


@pytest.fixture
def run() -> Callable[..., str]:
    """run(*command, cwd=, env=None, timeout=None) -> its stdout; a failure fails the test with its output's tail."""
    return _run


def _build(command: list[str], out: Path, notebooks: list[Path]) -> Built:
    return Built(out, _run(sys.executable, "-m", *command, "--out", out, *notebooks, cwd=ROOT))


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """SITE_SAMPLE's pages, built once by tools.build_site (no decks)."""
    return _build(["tools.build_site", "--no-slides"], tmp_path_factory.mktemp("site"), list(SITE_SAMPLE))


@pytest.fixture(scope="session")
def built_decks(built_site: Built, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """Every notebook's deck (SPOTLIGHTS_CHAPTERS narrows them), built once by tools.build_site into a copy
    of the site's folder (the site tests measure the pages alone, whichever test asks first)."""
    folder = tmp_path_factory.mktemp("decks") / "site"
    shutil.copytree(built_site.folder, folder)
    return _build(["tools.build_site", "--no-pages"], folder, notebook_paths())
