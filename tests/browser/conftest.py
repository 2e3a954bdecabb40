"""What the browser tests share: Debian's chromium (skipped where missing, failed in CI) and its flags."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def need(what: str, missing: bool) -> None:
    """Skip when a browser piece is missing, except in CI, where the browser test must run."""
    if missing:
        reason = f"{what} is not installed: the real-browser test cannot run"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true, so this is a failure, not a skip)")
        pytest.skip(reason)


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
