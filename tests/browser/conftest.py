"""The browser tests' fixtures: Debian's chromium (skipped where missing, failed in CI) and axe-core (fetched once
with npm, like the decks' reveal.js). What they share beside fixtures is in support.py."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from tests.browser.support import AXE, need
from tools.build_slides import NPM_DIR, npm_package


@pytest.fixture(scope="module")
def chromium() -> str:
    """Debian's chromium, checked before any server starts; Playwright for Python must import too."""
    path = shutil.which("chromium")
    need("Debian's chromium", path is None)
    need("playwright (Python)", importlib.util.find_spec("playwright") is None)
    return path


@pytest.fixture(scope="session")
def axe_script() -> Path:
    """axe-core's browser script, in build/npm (installed with npm the first time)."""
    installed = (NPM_DIR / "node_modules" / AXE.rsplit("@", 1)[0] / "package.json").exists()
    need("npm (it fetches axe-core for the accessibility checks)", not installed and shutil.which("npm") is None)
    return npm_package(AXE, "the accessibility checks") / "axe.min.js"
