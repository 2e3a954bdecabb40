"""The browser tests' fixtures: Debian's chromium (skipped where missing, failed in CI), axe-core (fetched once
with npm, like the decks' reveal.js) and a JupyterLab server over a copy of one notebook. What they share
beside fixtures is in support.py."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.support import AXE, jupyter_lab, need
from tools.build_slides import NPM_DIR, npm_package


@pytest.fixture(scope="module")
def chromium() -> str:
    """Debian's chromium, checked before any server starts; Playwright for Python must import too."""
    path = shutil.which("chromium")
    need("Debian's chromium", path is None)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        need("playwright (Python)", True)
    return path


@pytest.fixture(scope="session")
def axe_script() -> Path:
    """axe-core's browser script, in build/npm (installed with npm the first time)."""
    installed = (NPM_DIR / "node_modules" / AXE.rsplit("@", 1)[0] / "package.json").exists()
    need("npm (it fetches axe-core for the accessibility checks)", not installed and shutil.which("npm") is None)
    return npm_package(AXE, "the accessibility checks") / "axe.min.js"


@pytest.fixture
def lab_notebook() -> Path:
    """The notebook the lab fixture opens; a test module that imports `lab` can override this fixture."""
    return Path(__file__).resolve().parents[2] / "notebooks" / "explorer.ipynb"


@pytest.fixture
def lab(tmp_path: Path, lab_notebook: Path) -> Iterator[str]:
    """A JupyterLab server over a temporary copy of the notebook; yields the notebook's URL. Always stopped."""
    root, home = tmp_path / "root", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    shutil.copy(lab_notebook, root / lab_notebook.name)
    with jupyter_lab(root, home) as (base, token):
        yield f"{base}/lab/tree/{lab_notebook.name}?token={token}"
