"""Every live view in JupyterLab at 1280x720 in presenter mode, driven in Chromium as a learner would, what it
draws read back against the weights computed here; then after a page reload with the kernel running, in RISE,
and in Jupyter Notebook 7. Chapter 1's playground in reading mode on a 1366x768 laptop too.
Screenshots go to tests/browser/screenshots/.
"""

from __future__ import annotations

import math
from pathlib import Path

from helpers.chapter_widgets.base import font_class
from helpers.chapter_widgets.playground import CLUE_BOOST
from helpers.model import attention_layer_size
from helpers.reading import attention, load_cached, read_sentence, unique_labels
from helpers.registry import shipped
from tests.browser import support

SETUP = """import torch

import helpers
from helpers.chapter_widgets import change_one_word, split_the_width, spotlight_playground, step_through
from helpers.course import COURSE_EXAMPLES
from helpers.explorer import explore

helpers.presenter_mode(True)
words = COURSE_EXAMPLES[1].split()
visible = words[: words.index("street") + 1]
gen = torch.Generator().manual_seed(0)
x = torch.randn(len(visible), 5, generator=gen)
q, k, v = torch.randn(3, len(words), 4, generator=gen)"""
VIEWS = {"attention-explorer": "explore()",
         "spotlight-playground": 'spotlight_playground(visible, x, ["a", "b", "c", "d", "e"], visible[1:4])',
         "step-through": "step_through(words, q, k, v)", "split-the-width": "split_the_width()",
         "change-one-word": "change_one_word()"}
LONG_PRINTOUT = "print(*range(60), sep='\\n')"  # a slide taller than the screen, which RISE scrolls
LAPTOP = "helpers.presenter_mode(False)\n" + VIEWS["spotlight-playground"]  # the last cell: reading mode
SENTENCE = "sadly , the foxes that cross the zanzibar bridge sigh ."  # zanzibar: an unknown word
LONG = ("sadly , the foxes that cross the old bridge sigh , and the girl sees a small boat on the water near the town "
        "where the king lives , and the dragon walks to the river and the old man goes to the bank")
EX = ".attention-explorer"
FOCUSED = "() => !!document.activeElement.closest('.attention-explorer g.panel.heatmap')"
WIDEST = """s => { const look = getComputedStyle(s), c = document.createElement('canvas').getContext('2d');
    c.font = look.font;
    return [Math.max(...Array.from(s.options, o => c.measureText(o.text).width)),
            s.clientWidth - parseFloat(look.paddingLeft) - parseFloat(look.paddingRight)]; }"""
"""A menu's widest choice and the room for it, in pixels."""


ON_SCREEN = """([css, figure]) => {
    const w = document.querySelector(css);
    w.scrollIntoView({block: 'start'});
    const view = w.closest('.jp-WindowedPanel-outer').getBoundingClientRect();
    const shown = e => e.getBoundingClientRect().height > 0;
    const controls = Array.from(w.querySelectorAll('.widget-inline-hbox, .widget-toggle-buttons, button'))
        .filter(shown);
    const driven = w.querySelector(figure) || w;
    const fonts = Array.from(w.querySelectorAll('.widget-label, select, input[type=text], button, .widget-readout'))
        .filter(shown).map(e => getComputedStyle(e).fontSize);
    return {top: Math.min(...controls.map(e => e.getBoundingClientRect().top)),
            bottom: driven.getBoundingClientRect().bottom, view_top: view.top, view_bottom: view.bottom,
            right: driven.getBoundingClientRect().right, edge: w.getBoundingClientRect().right,
            fonts: Array.from(new Set(fonts))};
}"""


def off_screen(page, css: str, shown: str = ".spotlights-drawing", font: str = "22px") -> list[str]:
    """The live view `css` scrolled to its top: its controls and its part `shown` (its drawing; the step-through:
    all of it) on the screen together, `shown` within the widget's width, the controls' text at `font`."""
    box = page.evaluate(ON_SCREEN, [f".{css}", shown])
    problems = [f"{css}: controls' text {box['fonts']}"] if box["fonts"] != [font] else []
    if box["top"] < box["view_top"] - 1 or box["bottom"] > box["view_bottom"] + 1:
        problems.append(f"{css}: from its controls at {box['top']:.0f} px to the end of {shown} at "
                        f"{box['bottom']:.0f} px, more than the notebook's {box['view_top']:.0f}-"
                        f"{box['view_bottom']:.0f} px")
    if box["right"] > box["edge"] + 1:
        problems.append(f"{css}: {shown} runs to {box['right']:.0f} px, past the widget's edge at {box['edge']:.0f}")
    page.screenshot(path=str(support.SCREENSHOTS / f"{css}-presenter.png"))
    return problems


def crowded(drawn: dict) -> list[tuple]:
    """Neighbouring column labels of one panel closer than 1.5 times their font: the slanted words overlap."""
    pairs = zip(drawn["columns"], drawn["columns"][1:], strict=False)  # [panel, x, font size] each
    return [(a, b) for a, b in pairs if a[0] == b[0] and b[1] - a[1] < 1.5 * a[2]]


def check_explorer(page) -> None:
    """Switch model and head, type a sentence, hover and click cells: the drawing shows the kernel's weights."""
    model = load_cached("four_heads")
    reading = read_sentence(model, SENTENCE)
    weights = attention(model, reading.ids)  # [H, T, T]
    grid = support.pick(page, EX, "head", "all heads", "Every head of the 4-head model")[0]
    assert grid["panels"] == [f"head {h}" for h in range(4)]
    assert support.pick(page, EX, "model", shipped("one_head").label, "Head 0 of the one-head")[0]["panels"] == []
    # the head menu's four heads are back: pick one
    support.pick(page, EX, "model", shipped("four_heads").label, "Every head of the 4-head model")
    support.pick(page, EX, "head", "head 0")
    box = page.locator(f"{EX} .widget-text input").first
    box.fill(SENTENCE)
    box.press("Enter")
    page.wait_for_function("() => Array.from(document.querySelectorAll('.attention-explorer .x-label'),"
                           " t => t.textContent).includes('bridge')", timeout=30_000)
    head_0 = support.drawn(page, EX, "Head 0 of the 4-head model")[0]
    assert head_0["x"] == head_0["y"] == unique_labels(reading.words), "every word labelled, on both axes"
    menu = page.locator(f"{EX} .widget-dropdown").filter(has=page.locator("label", has_text="focus on"))
    widest, room = menu.locator("select").evaluate(WIDEST)
    assert widest <= room + 1, f"the focus menu cuts its words ('<unk> = zanzibar'): {widest:.0f} > {room:.0f} px"
    head_2 = support.pick(page, EX, "head", "head 2", "Head 2 of the 4-head model")[0]
    assert head_2["x"] == head_0["x"] and head_2["cells"] != head_0["cells"], "head 2 drew head 0's weights"
    cell = support.tooltip(page, EX, "rect[data-r='3'][data-c='2']")
    assert cell == f"'foxes' looks at 'the': {weights[2, 3, 2]:.1%}", cell
    masked = support.tooltip(page, EX, "rect[data-r='2'][data-c='3']")
    assert masked == "masked: 'the' cannot see the later word 'foxes'", masked
    page.locator(f"{EX} .spotlights-drawing rect[data-r='3'][data-c='1']").first.click()  # focus on 'foxes'
    page.wait_for_function("() => document.querySelector('.attention-explorer').innerText.includes(\"'foxes'\")")
    assert not page.locator(f"{EX} .cursor[visibility=visible]").count(), "a click left the keyboard's cursor"
    page.wait_for_function("() => document.querySelector('.attention-explorer .y-label.focus').textContent === 'foxes'")
    assert page.evaluate(FOCUSED), "the redraw after a click took the keyboard off the heatmap"
    page.keyboard.press("ArrowUp")  # on from the clicked cell
    said = page.locator(f"{EX} .spotlights-said").first.inner_text()
    assert said == f"'the' looks at ',': {weights[2, 2, 1]:.1%}", said
    box.focus()  # off the heatmap
    # every 2nd row labelled, and the focus row whatever its place; column labels far enough apart that their
    # slanted words do not print over each other, in a long sentence too
    grid = support.pick(page, EX, "head", "all heads", "Every head")[0]
    assert "foxes" in grid["y"] and not crowded(grid), (grid["x"], crowded(grid))
    for sentence in (LONG, SENTENCE):  # 'foxes' in both: the focus stays on it
        box.fill(sentence)
        box.press("Enter")
        page.wait_for_function("(n) => document.querySelectorAll(\"" + EX + " rect[data-panel='0'][data-r='0']\")"
                               ".length === n", arg=len(sentence.split()), timeout=30_000)  # a column per word
        grid = support.drawn(page, EX, "Every head")[0]
        assert not crowded(grid), (grid["x"], crowded(grid))
    support.pick(page, EX, "head", "head 2", "Head 2 of the 4-head model")
    # the keyboard: Tab reaches the heatmap on the focus row ('foxes'), the arrow keys read its cells, JupyterLab
    # keeps the active cell
    active = "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
    cell_index = page.evaluate(active)
    page.locator(f"{EX} g.panel.heatmap").first.focus()
    for key in ("ArrowUp", "ArrowRight"):
        page.keyboard.press(key)
    said = page.locator(f"{EX} .spotlights-said").first.inner_text()
    assert said == f"'the' looks at ',': {weights[2, 2, 1]:.1%}", said
    assert page.evaluate(active) == cell_index, "the arrow keys moved JupyterLab to another cell"
    page.keyboard.press("Enter")  # focus on that row: the heatmap redraws and keeps the keyboard on the same cell
    page.locator(f"{EX} [role=status]", has_text="reading 'the'").wait_for()  # read out, not only drawn
    assert not page.locator(f"{EX} .spotlights-said").first.inner_text(), "the cell read out twice after Enter"
    assert page.evaluate(FOCUSED) and page.locator(f"{EX} .cursor[visibility=visible]").count() == 1
    page.keyboard.press("ArrowRight")
    assert "'the' looks at" in page.locator(f"{EX} .spotlights-said").first.inner_text()
    box.focus()
    assert not page.locator(f"{EX} .spotlights-said").first.inner_text(), "read out of a heatmap left behind"


def check_widgets(page) -> None:
    """Each chapter widget responds to its controls, and its drawing shows what the kernel computed."""
    w = ".spotlight-playground"
    playground = page.locator(w).first  # the presenter's (the last cell holds a laptop's)
    playground.locator("button", has_text="three clues").click()
    share = f"{math.exp(CLUE_BOOST) / (3 * math.exp(CLUE_BOOST) + 4):.1%}"  # 3 clues and 4 other words
    page.wait_for_function(f"() => document.querySelector('{w}').innerText.includes(\"'animal' {share}\")")
    assert support.drawn(page, w)[0]["values"].count(share) == 3
    temperature = playground.locator(".widget-slider", has=page.locator("label", has_text="temperature"))
    assert temperature.locator("[role=slider]").get_attribute("aria-valuetext") == "1.00"
    w = ".step-through"
    page.locator(f"{w} button", has_text="Next").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('.step-through').innerText.includes('step 2 of 6')")
    page.locator(f"{w} [role=slider]").focus()
    for key, step in (("End", 6), ("ArrowLeft", 5)):  # y's table and the weights: whole, and on screen with Next
        page.keyboard.press(key)
        page.wait_for_function(f"() => document.querySelector('.step-through').innerText.includes('step {step} of 6')")
        problems = off_screen(page, "step-through", "table")  # the step's (first) table, whole, with Next
        assert not problems, (step, problems)
    page.locator(f"{w} button", has_text="Next").focus()
    page.keyboard.press("Enter")  # to the last step: Next is disabled, and the keyboard goes on to the step slider
    page.wait_for_function("() => document.querySelector('.step-through').innerText.includes('step 6 of 6')")
    page.wait_for_function("() => document.activeElement.matches('.step-through [role=slider]')", timeout=10_000)
    scrolled = "() => document.querySelector('.jp-WindowedPanel-outer').scrollTop"
    top = page.evaluate(scrolled)
    for key in ("Enter", " ", "ArrowLeft"):  # Enter and Space once too often: still the last step, not scrolled
        page.keyboard.press(key)
    page.wait_for_function("() => document.querySelector('.step-through').innerText.includes('step 5 of 6')")
    assert page.evaluate(scrolled) == top, "Space on the step slider scrolled the notebook"
    for key in ("PageDown", "ArrowRight"):  # a clicker's key scrolls the page; it does not jump the slider back
        page.keyboard.press(key)
    page.wait_for_function("() => document.querySelector('.step-through').innerText.includes('step 6 of 6')")
    w = ".split-the-width"
    page.locator(f"{w} .widget-toggle-button", has_text="16").click()
    assert support.drawn(page, w, "16 untrained heads: heads 0 to 3")[0]["panels"] == [f"head {h}" for h in range(4)]
    twelve = support.pick(page, w, "show", "heads 12 to 15", "16 untrained heads: heads 12 to 15")[0]["panels"]
    assert twelve == [f"head {h}" for h in range(12, 16)]
    assert f"{attention_layer_size(128, 16)['attention_params']:,}" in page.locator(w).inner_text()
    named = [page.locator(f"{root} g.panel.heatmap").first.get_attribute("aria-label") for root in (w, EX)]
    assert ["Enter focuses on a row" in name for name in named] == [False, True], "Enter named only where it works"
    page.locator(f"{w} .widget-toggle-button", has_text="trained four-head checkpoint").click()
    support.drawn(page, w, "The trained four-head checkpoint")
    w = ".change-one-word"
    page.locator(f"{w} select").select_option(label="fox")
    support.drawn(page, w, "'fox' → 'boy'")  # a word of its kind comes into the box; then the learner's own
    page.locator(f"{w} input[type=text]").fill("girl")
    page.keyboard.press("Enter")  # the box still has the keyboard
    moved = support.drawn(page, w, "'fox' → 'girl'")[0]["cells"]
    attn, ff = moved[: len(moved) // 2], moved[len(moved) // 2 :]
    assert [a[1] > 0.01 for a in attn] == [i >= 3 for i in range(len(attn))]
    assert [f[1] > 0.01 for f in ff] == [i == 3 for i in range(len(ff))]


def check_rise(page, base: str, token: str) -> None:
    """RISE (jupyterlab-rise) opens its own page on the notebook's running kernel: a widget is drawn on its slide,
    within 1280x720, and a click on it there redraws it; a slide taller than the screen scrolls, as the chapters'
    metadata asks."""
    shown = ".reveal .slides section.present .split-the-width"
    slide = 1 + list(VIEWS).index("split-the-width")  # after the set-up cell's slide
    page.goto(f"{base}/rise/views.ipynb?token={token}")  # the saved notebook, on the kernel that holds the widgets
    page.locator(".reveal .split-the-width .spotlights-drawing svg").wait_for(state="attached", timeout=90_000)
    for _ in range(slide):  # on to the widget's slide
        page.locator(".reveal .controls .navigate-right").click()
    page.wait_for_function("(shown) => document.querySelector(shown)", arg=shown)
    page.locator(f"{shown} .widget-toggle-button", has_text="8").click()
    support.drawn(page, shown, "8 untrained heads: heads 0 to 3")
    bottom = page.evaluate("(shown) => document.querySelector(`${shown} .spotlights-drawing svg`)"
                           ".getBoundingClientRect().bottom", shown)
    page.screenshot(path=str(support.SCREENSHOTS / "rise-split-the-width.png"))
    assert bottom <= 720, f"the widget's grid ends at {bottom:.0f} px, below the 720 px slide"
    for _ in range(len(VIEWS) + 1 - slide):  # on to the long printout, the last slide
        page.locator(".reveal .controls .navigate-right").click()
    page.wait_for_function("() => Array.from(document.querySelectorAll('.reveal section.present section'))"
                           ".some(s => s.style.overflowY === 'scroll')", timeout=30_000)


def check_notebook_7(page, base: str, token: str) -> None:
    """Jupyter Notebook 7 opens the saved notebook on the same running kernel: the explorer is drawn as it was
    left, and a menu redraws it."""
    page.goto(f"{base}/notebooks/views.ipynb?token={token}")
    support.drawn(page, EX, "Head 1 of the 4-head model")
    support.pick(page, EX, "head", "head 3", "Head 3 of the 4-head model")


def test_live_views_on_a_projector_after_a_reload_in_rise_and_in_notebook_7(
    chromium: str, tmp_path: Path, axe_script
) -> None:
    (tmp_path / "root").mkdir()
    support.notebook(tmp_path / "root", [SETUP, *VIEWS.values(), LONG_PRINTOUT, LAPTOP])
    with (support.jupyter_lab(tmp_path / "root", tmp_path) as (base, token),
          support.open_page(chromium, 1280, 720, 60_000) as (page, errors)):
        try:
            page.goto(f"{base}/lab/tree/views.ipynb?token={token}")
            support.run_all_cells(page)
            for css in VIEWS:
                page.wait_for_selector(f".{css}", timeout=60_000)
            problems = [p for css in VIEWS for p in off_screen(page, css)]
            support.pick(page, EX, "head", "all heads", "Every head")
            problems += off_screen(page, "attention-explorer")
            check_explorer(page)
            check_widgets(page)
            problems += support.control_problems(page, ".spotlights-widget")
            page.set_viewport_size({"width": 1366, "height": 768})  # a laptop: drag a slider, read the summary
            page.wait_for_function("() => document.querySelector('.jp-WindowedPanel-outer')"
                                   ".getBoundingClientRect().bottom > 720")  # JupyterLab has laid itself out again
            problems += off_screen(page, f"spotlight-playground.{font_class(14)}",  # the reading-mode copy
                                   ".spotlights-status ~ .spotlights-status", "14px")  # the summary, after messages
            page.set_viewport_size({"width": 1280, "height": 720})
            problems += support.severe_violations(page, axe_script, ".spotlights-widget")
            page.locator(f"{EX} .widget-text input").first.focus()  # Ctrl+S saves from inside a text box too
            page.keyboard.press("Control+s")
            page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")
            page.reload()  # the kernel keeps running: JupyterLab fetches every widget's state again
            assert support.drawn(page, EX, "Head 2 of the 4-head model")[0]["x"][3] == "foxes"
            support.pick(page, EX, "head", "head 1", "Head 1 of the 4-head model")
            page.locator(".split-the-width .widget-toggle-button", has_text="untrained layer").click()
            support.drawn(page, ".split-the-width", "16 untrained heads")  # the count picked before the trained layer
            assert "Error displaying widget" not in page.locator(".jp-Notebook").inner_text()
            check_rise(page, base, token)
            check_notebook_7(page, base, token)
        except Exception:
            page.screenshot(path=str(support.SCREENSHOTS / "live-views-failure.png"), full_page=True)
            print("\ncode cells when it failed:", page.evaluate(support.CELL_STATES), "\npage errors:", errors[-10:])
            raise
    assert not problems, "live views on a 1280x720 projector:\n" + "\n".join(problems)
