"""The chapter widgets in a real browser: JupyterLab + headless Chromium, each widget driven like a learner would.

Opens a small notebook that builds the four chapter widgets (the same calls the chapters make), runs it, then
presses buttons, uses the keyboard, picks from menus and types, and reads back what changed on the page.
Runs twice: at reading sizes in a 1400x1000 window, and in presenter mode in a 1280x720 window, where every
widget must fit inside its output area. Screenshots go to tests/browser/screenshots/.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from conftest import CHROMIUM_FLAGS
from test_explorer_browser import _CELL_STATES, _run_all_cells, lab  # noqa: F401 - lab is a fixture

from helpers.chapter_widgets.split_width import HEAD_COUNTS
from helpers.model import attention_layer_size

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
SETUP = """import torch

import helpers
from helpers.chapter_widgets import change_one_word, split_the_width, spotlight_playground, step_through
from helpers.course import COURSE_EXAMPLES

helpers.presenter_mode({presenter})
words = COURSE_EXAMPLES[1].split()
visible = words[: words.index("street") + 1]
gen = torch.Generator().manual_seed(0)
x = torch.randn(len(visible), 5, generator=gen)
q, k, v = torch.randn(3, len(words), 4, generator=gen)"""
WIDGETS = [
    'spotlight_playground(visible, x, ["living", "place", "action", "describes", "grammar"], visible[1:4])',
    "step_through(words, q, k, v)",
    "split_the_width()",
    "change_one_word()",
]


@pytest.fixture(params=[False, True], ids=["reading-1400x1000", "presenter-1280x720"])
def presenter(request) -> bool:
    return request.param


@pytest.fixture
def lab_notebook(tmp_path: Path, presenter: bool) -> Path:
    """A notebook with the four widgets, in presenter mode or not."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SETUP.format(presenter=presenter))]
    nb.cells += [nbformat.v4.new_code_cell(call) for call in WIDGETS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "chapter_widgets.ipynb"
    nbformat.write(nb, path)
    return path


def _text(page, widget: str) -> str:
    return page.locator(f".{widget}").inner_text()


def _bars(page, widget: str, trace: int = 0) -> list[float]:
    """The y values of one bar trace of the widget's figure, once plotly has drawn it."""
    page.wait_for_function("(sel) => (document.querySelector(sel)._fullData || []).length > 0",
                           arg=f".{widget} .js-plotly-plot", timeout=60_000)
    return page.evaluate(
        """([selector, trace]) => Array.from(document.querySelector(selector)._fullData[trace].y)""",
        [f".{widget} .js-plotly-plot", trace],
    )


def _wait_text(page, widget: str, text: str) -> None:
    page.wait_for_function(
        "([sel, text]) => document.querySelector(sel).innerText.includes(text)", arg=[f".{widget}", text],
        timeout=30_000)


def _check_playground(page) -> None:
    w = "spotlight-playground"
    even = _bars(page, w)
    assert len(even) == 7 and all(abs(b - 1 / 7) < 1e-6 for b in even), even
    page.locator(f".{w} button", has_text="three clues").click()
    _wait_text(page, w, "The three clues get animal 33%")
    page.wait_for_function("(sel) => Math.abs(document.querySelector(sel)._fullData[0].y[1] - 1/3) < 0.01",
                           arg=f".{w} .js-plotly-plot", timeout=30_000)
    three = _bars(page, w)
    assert abs(sum(three) - 1) < 1e-6 and max(three) < 1 / 3 + 1e-6
    page.locator(f".{w} button", has_text="one clue").click()
    page.wait_for_function("(sel) => document.querySelector(sel)._fullData[0].y[1] > 0.9",
                           arg=f".{w} .js-plotly-plot", timeout=30_000)
    assert "looks mostly at: animal" in _text(page, w)


def _check_step_through(page) -> None:
    w = "step-through"
    assert "step 1 of 6" in _text(page, w) and "has shape [4]" in _text(page, w)
    page.locator(f".{w} button", has_text="Next").focus()
    page.keyboard.press("Enter")  # Next from the keyboard
    _wait_text(page, w, "step 2 of 6")
    assert "has shape [9]" in _text(page, w)
    for _ in range(3):
        page.keyboard.press("Enter")
    _wait_text(page, w, "step 5 of 6")
    assert "%" in page.locator(f".{w} table").last.inner_text()  # the weights, in percent
    page.locator(f".{w} button", has_text="Back").focus()
    page.keyboard.press("Space")  # Back from the keyboard
    _wait_text(page, w, "step 4 of 6")
    assert "−∞" not in _text(page, w)  # 'tired' is the last word: nothing hidden
    page.locator(f".{w} select").select_option(label="the")
    _wait_text(page, w, "'the'")
    assert _text(page, w).count("−∞") == 8, "the first word must see only itself at the mask step"


def _check_split(page) -> None:
    w = "split-the-width"
    assert "32 numbers each" in _text(page, w)
    page.locator(f".{w} .widget-toggle-button", has_text="16").click()
    _wait_text(page, w, "8 numbers each")
    counts = attention_layer_size(128, 16)
    assert f"{counts['attention_params']:,}" in _text(page, w)
    shown = """(sel) => Array.from(document.querySelectorAll(sel)).filter(
        gd => gd.checkVisibility({visibilityProperty: true})).map(gd => (gd._fullData || []).length)"""
    page.wait_for_function(f"() => ({shown})('.{w} .js-plotly-plot').join() === '32'", timeout=60_000)
    titles = page.locator(f".{w} .js-plotly-plot").nth(HEAD_COUNTS.index(16)).locator(".annotation-text")
    assert titles.last.text_content() == "head 15", "the 16-head grid must be the figure on show"
    page.locator(f".{w} .widget-toggle-button", has_text="trained four-head checkpoint").click()
    _wait_text(page, w, "In the trained layer")
    assert "32 numbers each" in _text(page, w)


def _check_one_word(page) -> None:
    w = "change-one-word"
    page.locator(f".{w} select").select_option(label="fox")
    _wait_text(page, w, "Replacing 'fox' (word 3)")
    box = page.locator(f".{w} input[type=text]")
    box.fill("girl")
    box.press("Enter")
    _wait_text(page, w, "with 'girl'")
    page.wait_for_function("(sel) => document.querySelector(sel)._fullData[1].y[3] > 0",
                           arg=f".{w} .js-plotly-plot", timeout=30_000)
    attn, ff = _bars(page, w, 0), _bars(page, w, 1)
    assert [a > 1e-5 for a in attn] == [i >= 3 for i in range(len(attn))]
    assert [f > 1e-5 for f in ff] == [i == 3 for i in range(len(ff))]
    box.fill("zebraish")
    box.press("Enter")
    _wait_text(page, w, "is not in the model's vocabulary")
    assert box.input_value() == "girl", "a bad word must leave the last good one in the box"


def _check_fit(page) -> list[str]:
    """Every widget and figure inside its output area (no sideways scrolling); returns problems."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.chapter-widget')).flatMap(w => {
        const area = w.closest('.jp-OutputArea-output').getBoundingClientRect();
        return [w, ...w.querySelectorAll('.js-plotly-plot .main-svg')].filter(
            el => el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().right > area.right + 1).map(
            el => w.className.split(' ').pop() + ' ' + el.tagName + ' ends at ' + el.getBoundingClientRect().right
                  + ' px, its output area at ' + area.right + ' px');
    })""")


def test_chapter_widgets_in_a_real_browser(chromium: str, lab: str, presenter: bool) -> None:  # noqa: F811
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    size = {"width": 1280, "height": 720} if presenter else {"width": 1400, "height": 1000}
    mode = "presenter" if presenter else "reading"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport=size)
            page.set_default_timeout(60_000)
            console = []  # the page's own errors, printed if the test fails
            page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: console.append(str(e)))
            page.goto(lab)
            try:
                _run_all_cells(page)
                for css in ("spotlight-playground", "step-through", "split-the-width", "change-one-word"):
                    page.wait_for_selector(f".{css}", state="attached", timeout=60_000)
                font = page.evaluate("() => getComputedStyle(document.querySelector('.step-through p')).fontSize")
                assert font == ("22px" if presenter else "14px")
                assert not _check_fit(page)
                for css, check in (("spotlight-playground", _check_playground), ("step-through", _check_step_through),
                                   ("split-the-width", _check_split), ("change-one-word", _check_one_word)):
                    page.locator(f".{css}").scroll_into_view_if_needed()
                    check(page)
                    page.locator(f".{css}").screenshot(path=str(SCREENSHOTS / f"{css}-{mode}.png"))
                assert not _check_fit(page)
            except Exception:
                page.screenshot(path=str(SCREENSHOTS / f"chapter-widgets-failure-{mode}.png"), full_page=True)
                print("\ncode cells when it failed:", page.evaluate(_CELL_STATES))
                print("errors in the page:", console[-20:])
                raise
        finally:
            browser.close()
