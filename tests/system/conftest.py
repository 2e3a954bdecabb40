"""Shared by the system tests (beside tests/conftest.py's `run`): the pip arguments for the Makefile's torch."""

import os
import re

import pytest

from tools.chapters import ROOT


@pytest.fixture
def torch_pip() -> list[str]:
    """pip's arguments for torch as the Makefile installs it: environment.yml's version, from TORCH_INDEX if set."""
    version = re.search(r"pytorch-cpu=([\d.]+)", (ROOT / "environment.yml").read_text())[1]
    index = os.environ.get("TORCH_INDEX")
    return [f"torch=={version}.*", *(["--index-url", index] if index else [])]
