"""What a learner and an instructor see in JupyterLab, on the executed copies of every chapter (reading on a
laptop, presenter mode at 1280x720, also with Presentation Mode on and the sidebar closed): every figure inside
its output area and no taller than the notebook JupyterLab shows, no plotly mode bar, true tooltips on chapter
2's causal heatmap, no serious accessibility problem in what the chapter shows. Prints its timings. (Printed
lines are checked in the nbval run: tests/notebook_checks.py.)
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from tests.browser.support import hover_text, jupyter_lab, open_page, severe_violations
from tools.chapters import chapter_paths
from tools.pages import PLOTLY_MIME

CHAPTERS = [path.name for path in chapter_paths()]
"""Every chapter; SPOTLIGHTS_CHAPTERS=02,06 limits the run to some of them."""
VIEWPORTS = {"reading": {"width": 1536, "height": 776}, "presenter": {"width": 1280, "height": 720}}
"""reading: a laptop's 1920x1080 screen at 125% (1536x864), less the browser's own bars; presenter: a projector."""
NOTEBOOK_HEIGHT = "() => window.jupyterapp.shell.currentWidget.content.node.getBoundingClientRect().height"
"""How much of the notebook JupyterLab shows at once, in pixels."""
SHOWN = {"include": [[".jp-Cell-outputArea"], [".jp-MarkdownOutput"]]}
"""What axe-core checks in a chapter: what the chapter shows, not JupyterLab's own editor and toolbars."""
ALL_CELLS = {"@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"}}  # every cell in the page
FIGURES = "Array.from(window.jupyterapp.shell.currentWidget.node.querySelectorAll('.js-plotly-plot'))"

_BOXES = f"""() => {FIGURES}.map(gd => {{
    const area = gd.closest('.jp-OutputArea-output').getBoundingClientRect();
    const boxes = [gd, ...gd.querySelectorAll('.main-svg')].map(e => e.getBoundingClientRect());
    const title = gd.querySelector('.g-gtitle');
    const own = gd.getBoundingClientRect();
    return {{title: (gd.layout && gd.layout.title && (gd.layout.title.text || gd.layout.title)) || '(no title)',
             width: own.width, height: own.height, buttons: gd.querySelectorAll('.modebar-btn').length,
             left: Math.min(...boxes.map(b => b.left)), right: Math.max(...boxes.map(b => b.right)),
             area_left: area.left, area_right: area.right,
             title_above: title ? gd.getBoundingClientRect().top - title.getBoundingClientRect().top : 0}};
}})"""


_LAB_PRESENTATION = """async (on) => {
    const app = window.jupyterapp;
    if (app.shell.presentationMode !== on) await app.commands.execute('application:toggle-presentation-mode');
    if (on) app.shell.collapseLeft(); else app.shell.expandLeft();
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    return app.shell.presentationMode;
}"""
"""Switch JupyterLab's own Presentation Mode on with the left sidebar closed (as the instructor guide says to
present), or off with the sidebar open again."""


def _outside(path: Path, boxes: list[dict], where: str = "") -> list[str]:
    """Figures that run past their output area's edges, or whose title starts above the figure."""
    return ([f"{path.name}{where}: '{b['title']}' spans {b['left']:.0f}-{b['right']:.0f} px, its output area "
             f"{b['area_left']:.0f}-{b['area_right']:.0f} px" for b in boxes
             if b["left"] < b["area_left"] - 1 or b["right"] > b["area_right"] + 1]
            + [f"{path.name}{where}: '{b['title']}' starts {b['title_above']:.0f} px above its figure (cut off)"
               for b in boxes if b["title_above"] > 1])


@pytest.mark.parametrize("mode", list(VIEWPORTS))
def test_every_figure_fits_its_output_area(mode: str, chromium: str, executed: Callable[[str, str], Path],
                                           tmp_path: Path, axe_script: Path) -> None:
    viewport = VIEWPORTS[mode]
    start = time.monotonic()
    (tmp_path / "executed").mkdir()  # each run keeps its copy in a folder of its own: one folder to serve
    copies = [Path(shutil.copy(executed(name, mode), tmp_path / "executed")) for name in CHAPTERS]
    ran = time.monotonic()
    outside, counted = [], {}
    with (jupyter_lab(tmp_path / "executed", tmp_path, ALL_CELLS) as (base, token),
          open_page(chromium, viewport["width"], viewport["height"], 30_000) as (page, _)):
        for path in copies:
            nb = nbformat.read(path, as_version=4)
            figures = sum(PLOTLY_MIME in out.get("data", {}) for cell in nb.cells for out in cell.get("outputs", []))
            page.goto(f"{base}/lab/tree/{path.name}?reset&token={token}")  # open it, and wait for every figure
            page.wait_for_function(f"() => window.jupyterapp?.shell.currentWidget?.node.querySelector('.jp-Notebook')"
                                   f" && {FIGURES}.filter(gd => gd.querySelector('.main-svg')).length >= {figures}",
                                   timeout=60_000)
            boxes = page.evaluate(_BOXES)
            counted[path.name] = len(boxes)
            outside += _outside(path, boxes)
            outside += [f"{path.name}: '{b['title']}' has a mode bar ({b['buttons']} buttons to tab through)"
                        for b in boxes if b["buttons"]]
            shown = page.evaluate(NOTEBOOK_HEIGHT)
            outside += [f"{path.name}: '{b['title']}' is {b['height']:.0f} px high, more than the {shown:.0f} px of "
                        f"notebook JupyterLab shows at {viewport['width']}x{viewport['height']}" for b in boxes
                        if b["height"] > shown]
            if mode == "presenter":
                assert page.evaluate(_LAB_PRESENTATION, True), "JupyterLab's Presentation Mode did not switch on"
                outside += _outside(path, page.evaluate(_BOXES), " (Lab's Presentation Mode, sidebar closed)")
                page.evaluate(_LAB_PRESENTATION, False)
                outside += [f"{path.name}: {problem}" for problem in severe_violations(page, axe_script, SHOWN)]
            if mode == "reading" and path.name.startswith("02_"):
                _check_chapter_tooltips(page)
        page.screenshot(path=str(tmp_path / f"last-{mode}.png"))
    print(f"\n{mode}: executed {len(copies)} chapters in {ran - start:.0f} s, checked "
          f"{sum(counted.values())} figures in JupyterLab in {time.monotonic() - ran:.0f} s: {counted}")
    assert sum(counted.values()) > 0, "no plotly figure was drawn at all"
    assert not outside, "what does not fit the screen, or cannot be used by everyone:\n" + "\n".join(outside)


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
