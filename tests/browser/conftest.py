"""What the browser tests share: Debian's chromium (skipped where missing, failed in CI) and its flags, and the
accessibility check: axe-core (fetched once with npm, like the decks' reveal.js) run inside a page."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tools.build_slides import NPM_DIR, npm_package

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


AXE = "axe-core@4.14.1"
"""The npm package and version of the accessibility checker."""
SEVERE = ("serious", "critical")
"""The impacts of an accessibility problem that fail a test (axe's other two are "minor" and "moderate")."""


@pytest.fixture(scope="session")
def axe_script() -> Path:
    """axe-core's browser script, in build/npm (installed with npm the first time)."""
    installed = (NPM_DIR / "node_modules" / AXE.rsplit("@", 1)[0] / "package.json").exists()
    need("npm (it fetches axe-core for the accessibility checks)", not installed and shutil.which("npm") is None)
    return npm_package(AXE, "the accessibility checks") / "axe.min.js"


def severe_violations(page, script: Path, context: object = None) -> list[str]:
    """Run axe-core in `page` on `context` (a selector, or {"include": [[selector], ...]}; default the whole
    page) and describe its serious and critical violations, one line each with up to three of its elements."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(script))
    return page.evaluate(
        """async ([context, severe]) => {
            const found = await axe.run(context || document, {resultTypes: ['violations']});
            return found.violations.filter(v => severe.includes(v.impact)).map(v => `${v.impact} ${v.id}: ${v.help}`
                + ` (${v.nodes.length}x, e.g. ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join('; ')})`);
        }""",
        [context, list(SEVERE)],
    )


def control_problems(page, root: str) -> list[str]:
    """What keyboard and screen-reader users miss in the widgets matching CSS `root`: a menu, text box, slider
    or group of toggle buttons without an accessible name, toggle buttons that do not say which is pressed,
    and plotly mode bars (about ten buttons each in the tab order)."""
    return page.evaluate("""(root) => {
        const problems = [];
        const label = e => e.id && document.querySelector(`label[for="${e.id}"]`);
        const named = e => (e.getAttribute('aria-label') || '').trim() || (label(e) && label(e).textContent.trim());
        const controls = ['select', 'input[type=text]', '[role=slider]', '.widget-toggle-buttons'];
        for (const e of document.querySelectorAll(controls.map(c => `${root} ${c}`).join(', ')))
            if (!named(e)) problems.push(`no accessible name: ${e.outerHTML.slice(0, 100)}`);
        for (const group of document.querySelectorAll(`${root} .widget-toggle-buttons`)) {
            const states = Array.from(group.querySelectorAll('button'), b => b.getAttribute('aria-pressed'));
            if (states.filter(s => s === 'true').length !== 1 || states.some(s => s !== 'true' && s !== 'false'))
                problems.push(`toggle buttons ${named(group)} say pressed: ${states}`);
        }
        if (document.querySelectorAll(`${root} .modebar-btn`).length)
            problems.push("a figure shows plotly's mode bar (its buttons fill the tab order)");
        return problems;
    }""", root)
