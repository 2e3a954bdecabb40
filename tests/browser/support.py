"""What the browser tests share beside their fixtures (conftest.py): Debian's chromium on a page and a JupyterLab
server of their own (tools.lab), reading what a page draws, and the accessibility checks."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tools.chapters import ROOT
from tools.lab import CELL_STATES, free_port, jupyter_lab, notebook, open_page, run_all_cells, serving  # noqa: F401

AXE = "axe-core@4.14.1"  # the accessibility checker
SCREENSHOTS = ROOT / "tests" / "browser" / "screenshots"  # Playwright makes the folder


def need(what: str, missing: bool) -> None:
    """Skip when a browser piece is missing, except in CI, where the browser test must run."""
    if missing:
        reason = f"{what} is not installed: the real-browser test cannot run"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true, so this is a failure, not a skip)")
        pytest.skip(reason)


def hover_text(page, figure: str, trace: int, row: int, column: int) -> str:
    """Move the mouse over cell (row, column) of heatmap `trace` in the figure found by JS `figure`; the tooltip."""
    x, y = page.evaluate(
        """([figure, trace, row, column]) => {
            const gd = eval(figure);
            const data = gd._fullData[trace];
            const xa = gd._fullLayout[data.xaxis.replace('x', 'xaxis')];
            const ya = gd._fullLayout[data.yaxis.replace('y', 'yaxis')];
            gd.scrollIntoView({block: 'center'});
            const box = gd.querySelector('.main-svg').getBoundingClientRect();
            return [box.left + xa._offset + xa.c2p(column), box.top + ya._offset + ya.c2p(row)];
        }""", [figure, trace, row, column])
    page.mouse.move(0, 0)  # away first, so the last tooltip is gone
    page.wait_for_function("(figure) => eval(figure).querySelector('.hoverlayer').textContent === ''", arg=figure)
    page.mouse.move(x, y)
    page.wait_for_function("(figure) => eval(figure).querySelector('.hoverlayer').textContent !== ''", arg=figure)
    return page.evaluate("(figure) => eval(figure).querySelector('.hoverlayer').textContent", figure)


DRAWN = """(root) => Array.from(document.querySelectorAll(`${root} .spotlights-drawing svg`)).map(svg => ({
    title: svg.querySelector('.title').textContent,
    panels: Array.from(svg.querySelectorAll('.panel-title'), t => t.textContent),
    x: Array.from(svg.querySelectorAll('.x-label'), t => t.textContent),
    columns: Array.from(svg.querySelectorAll('.x-label[data-panel]'),
                        t => [+t.dataset.panel, +t.getAttribute('x'), +t.getAttribute('font-size')]),
    y: Array.from(svg.querySelectorAll('.y-label'), t => t.textContent),
    values: Array.from(svg.querySelectorAll('.value'), t => t.textContent),
    cells: Array.from(svg.querySelectorAll('rect[data-c]'), r => [r.getAttribute('fill'), +r.getAttribute('height')]),
}))"""
"""What each drawing inside the elements matching CSS `root` shows: title, panel titles, axis words (and the
heatmaps' column labels: [panel, x, font size]), values, cells."""


def drawn(page, root: str, title: str = "") -> list[dict]:
    """The drawings in `root` (DRAWN), once the first one's title starts with `title`."""
    page.wait_for_function("([root, title]) => { const t = document.querySelector(`${root} .spotlights-drawing "
                           ".title`); return t && t.textContent.startsWith(title); }", arg=[root, title],
                           timeout=60_000)
    return page.evaluate(DRAWN, root)


def tooltip(page, root: str, cell: str) -> str:
    """Hover the cell or bar matching CSS `cell` in the first drawing of `root`; the tooltip it shows."""
    view = page.locator(f"{root} .spotlights-drawing").first
    page.mouse.move(0, 0)
    view.locator(cell).first.hover()
    shown = view.locator(".spotlights-tooltip")
    shown.wait_for(state="visible")
    return shown.inner_text()


def severe_violations(page, script: Path, context: object = None) -> list[str]:
    """Run axe-core in `page` on `context` (a selector, or {"include": [[selector], ...]}; default the whole
    page) and describe its serious and critical violations (not axe's "minor" and "moderate"), one line each with
    up to three of its elements."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(script))
    return page.evaluate(
        """async ([context, severe]) => {
            const found = await axe.run(context || document, {resultTypes: ['violations']});
            return found.violations.filter(v => severe.includes(v.impact)).map(v => `${v.impact} ${v.id}: ${v.help}`
                + ` (${v.nodes.length}x, e.g. ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join('; ')})`);
        }""", [context, ["serious", "critical"]])


def control_problems(page, root: str) -> list[str]:
    """What keyboard and screen-reader users miss in the widgets matching CSS `root`: a menu, text box, slider
    or group of toggle buttons without an accessible name, toggle buttons that do not say which is pressed (or
    that Tab does not enter on the pressed one), a label whose hover text is "null", and a widget whose summary
    is not a status region (a screen reader would not read out what a change shows)."""
    return page.evaluate("""(root) => {
        const problems = [];
        const label = e => e.id && document.querySelector(`label[for="${e.id}"]`);
        const named = e => (e.getAttribute('aria-label') || '').trim() || (label(e) && label(e).textContent.trim());
        const controls = ['select', 'input[type=text]', '[role=slider]', '.widget-toggle-buttons'];
        for (const e of document.querySelectorAll(controls.map(c => `${root} ${c}`).join(', ')))
            if (!named(e)) problems.push(`no accessible name: ${e.outerHTML.slice(0, 100)}`);
        for (const e of document.querySelectorAll(`${root} [title="null"]`))  // shown ones: a hidden empty label has it
            if (e.getClientRects().length) problems.push(`hover text "null": ${e.outerHTML.slice(0, 100)}`);
        for (const group of document.querySelectorAll(`${root} .widget-toggle-buttons`)) {
            const states = Array.from(group.querySelectorAll('button'), b => b.getAttribute('aria-pressed'));
            if (states.filter(s => s === 'true').length !== 1 || states.some(s => s !== 'true' && s !== 'false'))
                problems.push(`toggle buttons ${named(group)} say pressed: ${states}`);
            const stops = Array.from(group.querySelectorAll('button'), b => b.tabIndex === 0 && b.ariaPressed);
            if (stops.filter(Boolean).join() !== 'true') problems.push(`Tab enters ${named(group)} on: ${stops}`);
        }
        for (const widget of document.querySelectorAll(root)) {
            const said = Array.from(widget.querySelectorAll('[role=status]'), e => e.textContent).join(' ');
            if (!said.trim()) problems.push(`no status region says what it shows: ${widget.className}`);
        }
        return problems;
    }""", root)


def pick(page, root: str, menu: str, option: str, title: str = "") -> list[dict]:
    """Choose `option` in the dropdown labelled `menu` of the widget `root`, as a learner does; what `root` then
    draws (`drawn`, once the first drawing's title starts with `title`)."""
    box = page.locator(f"{root} .widget-dropdown").filter(has=page.locator("label", has_text=re.compile(f"^{menu}$")))
    box.locator("select").select_option(label=option)
    return drawn(page, root, title)
