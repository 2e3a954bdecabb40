"""The chapter widgets in a real browser: JupyterLab + headless Chromium, each widget driven like a learner would.

Opens a small notebook that builds the four chapter widgets (the same calls the chapters make), runs it, then
presses buttons, uses the keyboard, picks from menus and types, and reads back what changed on the page.
Runs twice: at reading sizes in a 1400x1000 window, and in presenter mode in a 1280x720 window, where every
widget must fit inside its output area, its controls and its figure must be on the screen together, and its
controls' text must be as large as the rest. Both times, the arrow keys must change a focused menu, group of
toggle buttons and slider (and JupyterLab must not take them to move to another cell), every control must
have an accessible name (toggle buttons their pressed state), and axe-core must find no serious or critical
problem in the widgets. Screenshots go to tests/browser/screenshots/.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from helpers.model import attention_layer_size
from tests.browser.support import (
    CELL_STATES,
    CHROMIUM_FLAGS,
    control_problems,
    run_all_cells,
    severe_violations,
)

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
    page.wait_for_function(f"() => ({shown})('.{w} .js-plotly-plot').join() === '8'", timeout=60_000)  # 4 heads
    page.locator(f".{w} select").select_option(label="heads 12 to 15")
    panels = f"""() => Array.from(document.querySelectorAll('.{w} .js-plotly-plot')).filter(
        gd => gd.checkVisibility({{visibilityProperty: true}})).flatMap(
        gd => Array.from(gd.querySelectorAll('.annotation-text'), t => t.textContent))"""
    page.wait_for_function(f"() => ({panels})().includes('head 15')", timeout=30_000)
    assert [t for t in page.evaluate(panels) if t.startswith("head ")] == [f"head {h}" for h in range(12, 16)]
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


ACTIVE_CELL = "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
TEXTS = ", ".join(f".chapter-widget {c}" for c in (".widget-label", "select", "input[type=text]", "button",
                                                    ".widget-readout"))


def _press(page, control, key: str) -> None:
    """Focus `control` (a locator) and press `key`; JupyterLab must leave the key to it (same active cell)."""
    control.focus()
    cell = page.evaluate(ACTIVE_CELL)
    page.keyboard.press(key)
    assert page.evaluate(ACTIVE_CELL) == cell, f"{key} moved JupyterLab to another cell instead of the control"


def _check_keyboard(page) -> None:
    """The arrow keys change a focused menu, a group of toggle buttons and a slider."""
    step = page.locator(".step-through select")
    before = step.input_value()
    _press(page, step, "ArrowDown")
    page.wait_for_function("([el, v]) => el.value !== v", arg=[step.element_handle(), before])
    _wait_text(page, "step-through", f"'{step.locator('option:checked').inner_text()}'")

    word = page.locator(".change-one-word select")
    _press(page, word, "ArrowUp")
    _wait_text(page, "change-one-word", f"Replacing '{word.locator('option:checked').inner_text()}'")

    w = "split-the-width"
    trained = page.locator(f".{w} .widget-toggle-button", has_text="trained four-head checkpoint")
    _press(page, trained, "ArrowLeft")  # the layer buttons: back to the untrained layer
    untrained = page.locator(f".{w} .widget-toggle-button", has_text="untrained layer")
    page.wait_for_function("(el) => el.getAttribute('aria-pressed') === 'true'", arg=untrained.element_handle())
    focused = page.evaluate("() => document.activeElement.textContent")
    assert focused == "untrained layer", f"the focus must follow the choice, it is on {focused!r}"
    _press(page, page.locator(f".{w} .widget-toggle-button", has_text="4").first, "ArrowRight")
    _wait_text(page, w, "16 numbers each")
    pressed = page.eval_on_selector_all(f".{w} .widget-toggle-button",
                                        "bs => bs.map(b => [b.textContent, b.getAttribute('aria-pressed')])")
    assert ["8", "true"] in pressed and ["4", "false"] in pressed, pressed
    _press(page, page.locator(f".{w} select"), "ArrowDown")  # 8 heads are drawn four at a time: the next four
    page.wait_for_function(
        "(sel) => Array.from(document.querySelectorAll(sel)).some(t => t.textContent.includes('heads 4 to 7')"
        " && t.checkVisibility({visibilityProperty: true}))", arg=f".{w} .js-plotly-plot .gtitle")

    handle = page.locator(".spotlight-playground [role=slider]").first
    value = float(handle.get_attribute("aria-valuenow"))
    _press(page, handle, "ArrowRight")
    page.wait_for_function("([el, v]) => Number(el.getAttribute('aria-valuenow')) > v",
                           arg=[handle.element_handle(), value])


_TIME_CLICK = """async ([button, title]) => {
    const box = document.querySelector('.split-the-width');
    const target = Array.from(box.querySelectorAll('.widget-toggle-button')).find(b => b.textContent === button);
    const shows = () => Array.from(box.querySelectorAll('.js-plotly-plot .gtitle')).some(
        t => t.textContent === title && t.checkVisibility({visibilityProperty: true}));
    const start = performance.now();
    target.click();
    while (!shows()) {
        await new Promise(r => requestAnimationFrame(r));
        if (performance.now() - start > 30000) throw new Error(`chapter 4's widget never showed ${title}`);
    }
    return performance.now() - start;
}"""
"""Click a head-count button of chapter 4's widget; milliseconds until the grid titled `title` shows."""


def _time_split_clicks(page) -> list[float]:
    """Chapter 4's widget: every head count in turn, twice (the first pass shows each grid for the first time)."""
    titles = {1: "1 untrained head", 2: "2 untrained heads", 4: "4 untrained heads",
              8: "8 untrained heads: heads 0 to 3", 16: "16 untrained heads: heads 0 to 3"}
    page.locator(".split-the-width .widget-toggle-button", has_text="untrained layer").click()
    # the head-count buttons are disabled for the trained layer until the kernel has switched back
    page.wait_for_function("() => Array.from(document.querySelectorAll('.split-the-width .widget-toggle-button'))"
                           ".filter(b => b.textContent === '1').every(b => !b.disabled)")
    return [page.evaluate(_TIME_CLICK, [str(heads), title]) for _ in range(2) for heads, title in titles.items()]


_ON_SCREEN = """(css) => {
    const w = document.querySelector('.' + css);
    w.scrollIntoView({block: 'start'});
    const view = w.closest('.jp-WindowedPanel-outer').getBoundingClientRect();
    const shown = e => e.getBoundingClientRect().height > 0 && e.checkVisibility({visibilityProperty: true});
    const controls = Array.from(w.querySelectorAll('.widget-inline-hbox, .widget-toggle-buttons, button'))
        .filter(shown);
    const figures = Array.from(w.querySelectorAll('.js-plotly-plot')).filter(shown);
    const top = Math.min(...controls.map(e => e.getBoundingClientRect().top));
    const bottom = Math.max(...figures.map(e => e.getBoundingClientRect().bottom));
    return {top, bottom, view_top: view.top, view_bottom: view.bottom};
}"""


def _check_on_screen(page) -> list[str]:
    """In presenter mode each widget's controls and its figure are on the 1280x720 screen together, and the
    controls' text is as large as the widget's (labels, menus, text boxes, buttons, slider readouts)."""
    problems = []
    for css in ("spotlight-playground", "split-the-width", "change-one-word"):
        box = page.evaluate(_ON_SCREEN, css)
        if box["top"] < box["view_top"] - 1 or box["bottom"] > box["view_bottom"] + 1:
            problems.append(f"{css}: from its controls at {box['top']:.0f} px to its figure's end at "
                            f"{box['bottom']:.0f} px, more than the notebook's {box['view_top']:.0f}-"
                            f"{box['view_bottom']:.0f} px")
    sizes = page.evaluate("(texts) => Array.from(document.querySelectorAll(texts)).filter("
                          "e => e.getBoundingClientRect().height > 0).map(e => getComputedStyle(e).fontSize)", TEXTS)
    return problems + [f"a control's text is {size}, not 22px" for size in sorted(set(sizes) - {"22px"})]


def test_chapter_widgets_in_a_real_browser(chromium: str, lab: str, presenter: bool, axe_script) -> None:
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
                run_all_cells(page)
                for css in ("spotlight-playground", "step-through", "split-the-width", "change-one-word"):
                    page.wait_for_selector(f".{css}", state="attached", timeout=60_000)
                font = page.evaluate("() => getComputedStyle(document.querySelector('.step-through p')).fontSize")
                assert font == ("22px" if presenter else "14px")
                assert not _check_fit(page)
                assert not (_check_on_screen(page) if presenter else [])
                for css, check in (("spotlight-playground", _check_playground), ("step-through", _check_step_through),
                                   ("split-the-width", _check_split), ("change-one-word", _check_one_word)):
                    page.locator(f".{css}").scroll_into_view_if_needed()
                    check(page)
                    page.locator(f".{css}").screenshot(path=str(SCREENSHOTS / f"{css}-{mode}.png"))
                assert not _check_fit(page)
                clicks = _time_split_clicks(page)
                print(f"\nchapter 4's widget, from a click to the new grid on screen ({mode}): first pass "
                      f"{[round(ms) for ms in clicks[:5]]} ms, second {[round(ms) for ms in clicks[5:]]} ms")
                _check_keyboard(page)
                assert not control_problems(page, ".chapter-widget")
                assert not severe_violations(page, axe_script, ".chapter-widget")
            except Exception:
                page.screenshot(path=str(SCREENSHOTS / f"chapter-widgets-failure-{mode}.png"), full_page=True)
                print("\ncode cells when it failed:", page.evaluate(CELL_STATES))
                print("errors in the page:", console[-20:])
                raise
        finally:
            browser.close()
