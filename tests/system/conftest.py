"""Shared by the system tests: a command runner, and the pip arguments for the Makefile's torch."""

import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tools.chapters import ROOT


def _run(*command: str | Path, cwd: Path, env: dict | None = None, timeout: float | None = None) -> str:
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
    return done.stdout


@pytest.fixture
def run() -> Callable[..., str]:
    """run(*command, cwd=, env=None, timeout=None) -> its stdout; a failure fails the test with its output's tail."""
    return _run


@pytest.fixture
def torch_pip() -> list[str]:
    """pip's arguments for torch as the Makefile installs it: environment.yml's version, from TORCH_INDEX if set."""
    version = re.search(r"pytorch-cpu=([\d.]+)", (ROOT / "environment.yml").read_text())[1]
    index = os.environ.get("TORCH_INDEX")
    return [f"torch=={version}.*", *(["--index-url", index] if index else [])]
