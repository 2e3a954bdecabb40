"""What a learner and an instructor see in JupyterLab: every figure inside its output area, true tooltips.

Each chapter's reading copy is nbval's run of it, and its presenter copy one more run with presenter mode
switched on by an injected first cell (tests/conftest.py); JupyterLab then opens the executed copies, which
draws their saved plotly figures without running anything. At 1400x1000 (reading) and 1280x720 (presenter
mode) every plotly figure's box must lie inside its output area, and its title inside the figure. In the
reading copy of chapter 2, hovering a visible and a masked cell of the causal heatmap must show the true
tooltip. Prints how long each part took.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CHROMIUM_FLAGS
from test_explorer_browser import hover_text, jupyter_lab

from tools.chapters import chapter_paths

CHAPTERS = [path.name for path in chapter_paths()]
"""Every chapter; SPOTLIGHTS_CHAPTERS=02,06 limits the run to some of them."""
VIEWPORTS = {"reading": {"width": 1400, "height": 1000}, "presenter": {"width": 1280, "height": 720}}
ALL_CELLS = {"@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"}}  # every cell in the page
FIGURES = "Array.from(window.jupyterapp.shell.currentWidget.node.querySelectorAll('.js-plotly-plot'))"

_BOXES = f"""() => {FIGURES}.map(gd => {{
    const area = gd.closest('.jp-OutputArea-output').getBoundingClientRect();
    const boxes = [gd, ...gd.querySelectorAll('.main-svg')].map(e => e.getBoundingClientRect());
    const title = gd.querySelector('.g-gtitle');
    return {{title: (gd.layout && gd.layout.title && (gd.layout.title.text || gd.layout.title)) || '(no title)',
             left: Math.min(...boxes.map(b => b.left)), right: Math.max(...boxes.map(b => b.right)),
             area_left: area.left, area_right: area.right,
             title_above: title ? gd.getBoundingClientRect().top - title.getBoundingClientRect().top : 0}};
}})"""


def _open(page, base: str, token: str, name: str, figures: int) -> None:
    page.goto(f"{base}/lab/tree/{name}?reset&token={token}")
    page.wait_for_function(f"() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           f" && window.jupyterapp.shell.currentWidget.node.querySelector('.jp-Notebook')"
                           f" && {FIGURES}.filter(gd => gd.querySelector('.main-svg')).length >= {figures}",
                           timeout=60_000)


def _plotly_outputs(path: Path) -> int:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return sum("application/vnd.plotly.v1+json" in out.get("data", {})
               for cell in nb.cells for out in cell.get("outputs", []))


@pytest.mark.parametrize("mode", list(VIEWPORTS))
def test_every_figure_fits_its_output_area(
    mode: str, chromium: str, executed: Callable[[str, str], Path], tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    viewport = VIEWPORTS[mode]
    start = time.monotonic()
    copies = [executed(name, mode) for name in CHAPTERS]
    ran = time.monotonic()
    outside, counted = [], {}
    with jupyter_lab(copies[0].parent, tmp_path, ALL_CELLS) as (base, token), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport=viewport)
            for path in copies:
                expected = _plotly_outputs(path)
                _open(page, base, token, path.name, expected)
                boxes = page.evaluate(_BOXES)
                counted[path.name] = len(boxes)
                outside += [f"{path.name}: '{b['title']}' spans {b['left']:.0f}-{b['right']:.0f} px, its output area "
                            f"{b['area_left']:.0f}-{b['area_right']:.0f} px" for b in boxes
                            if b["left"] < b["area_left"] - 1 or b["right"] > b["area_right"] + 1]
                outside += [f"{path.name}: '{b['title']}' starts {b['title_above']:.0f} px above its figure (cut off)"
                            for b in boxes if b["title_above"] > 1]
                if mode == "reading" and path.name.startswith("02_"):
                    _check_chapter_tooltips(page)
            page.screenshot(path=str(tmp_path / f"last-{mode}.png"))
        finally:
            browser.close()
    print(f"\n{mode}: executed {len(copies)} chapters in {ran - start:.0f} s, checked "
          f"{sum(counted.values())} figures in JupyterLab in {time.monotonic() - ran:.0f} s: {counted}")
    assert sum(counted.values()) > 0, "no plotly figure was drawn at all"
    assert not outside, "figures wider than their output area or titles cut off:\n" + "\n".join(outside)


def _check_chapter_tooltips(page) -> None:
    """Chapter 2's first causal heatmap: a visible cell gives both words and its weight; a masked cell says so."""
    figure = f"{FIGURES}.find(gd => gd.data.length >= 2 && gd.data[1].z && gd.data[1].z[0][1] === 1)"  # causal
    found = page.evaluate(f"() => {{ const gd = {figure}; return gd ? [gd.data[0].text[1][0], gd.data[0].z[1][0],"
                          f" gd.data[1].text[0][1]] : null; }}")
    assert found is not None, "chapter 2 shows no causal heatmap with tooltips"
    visible_text, weight, masked_text = found
    seen = hover_text(page, figure, 0, 1, 0)
    assert seen == f"{visible_text}: {weight:.1%}", f"the visible cell's tooltip says {seen!r}"
    assert "looks at" in seen and "masked" not in seen
    hidden = hover_text(page, figure, 1, 0, 1)
    assert hidden == masked_text and hidden.startswith("masked:"), f"the masked cell's tooltip says {hidden!r}"
