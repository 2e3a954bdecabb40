"""The attention explorer in a real browser: JupyterLab + headless Chromium, driven like a learner would.

Starts its own JupyterLab on 127.0.0.1 (free port, random token) over a temporary copy of the explorer
notebook, runs all cells, changes the head and the sentence, and reads the plotly heatmap back from the page.
A second test opens the explorer in presenter mode at 1280x720, as an instructor at a projector: its controls
and its heatmap (and the grid of every head) must be on the screen together, its controls as large as its
text and within the output area, no menu blank, every word of the opening sentence labelled, the controls
usable with the arrow keys without JupyterLab moving to another cell, named for a screen reader, and axe-core
must find no serious or critical problem. Both print how long each change took, from the pick to the
redrawn figure on screen (figures, not timed asserts), saved with a screenshot to tests/browser/screenshots/.
With EXPLORER_ASSETS=1 they also refresh assets/explorer.png and assets/explorer_browser_speed.json.
When CI=true a missing Chromium or Playwright fails the test instead of skipping it.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from helpers.examples import novel_examples
from helpers.explorer import ALL_HEADS
from helpers.reading import unique_labels
from helpers.registry import SHIPPED
from tests.browser.support import (
    CELL_STATES,
    CHROMIUM_FLAGS,
    control_problems,
    hover_text,
    jupyter_lab,
    median,
    run_all_cells,
    severe_violations,
)

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "explorer.ipynb"
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
NEW_SENTENCE = "sadly , the foxes that cross the old bridge sigh ."
HEATMAP = ".attention-explorer .js-plotly-plot"


def _heatmap(page) -> dict:
    """What the page shows in the explorer's heatmap: its title, tick labels and weights."""
    return page.evaluate(
        """(selector) => {
            const gd = document.querySelector(selector);
            const trace = gd._fullData[0];
            return {
                title: gd.layout.title.text,
                x: Array.from(trace.x), y: Array.from(trace.y),
                z: Array.from(trace.z, row => Array.from(row, v => (v === null || Number.isNaN(v)) ? null : v)),
                ticks: Array.from(gd.querySelectorAll('.xtick text'), t => t.textContent),
            };
        }""",
        HEATMAP,
    )


def _time_head_change(page, label: str, title: str) -> float:
    """Pick `label` in the head picker; milliseconds until the heatmap's title reads `title` on screen."""
    return page.evaluate(
        """async ([label, title]) => {
            const box = document.querySelector('.attention-explorer');
            const select = Array.from(box.querySelectorAll('.widget-dropdown'))
                .find(d => d.querySelector('label').textContent.trim() === 'head').querySelector('select');
            const shows = () => Array.from(box.querySelectorAll('.js-plotly-plot .gtitle')).some(
                t => t.textContent === title && t.checkVisibility({visibilityProperty: true}));
            const start = performance.now();
            select.value = label;
            select.dispatchEvent(new Event('change', {bubbles: true}));
            while (!shows()) {
                await new Promise(r => requestAnimationFrame(r));
                if (performance.now() - start > 30000) throw new Error('the explorer never showed ' + title);
            }
            return performance.now() - start;
        }""",
        [label, title],
    )


def _check_explorer(page) -> float:
    """Run the notebook, change head and sentence, check the heatmap; returns the head-change time in ms."""
    run_all_cells(page)
    page.locator(".attention-explorer").scroll_into_view_if_needed()
    page.wait_for_selector(HEATMAP, state="attached", timeout=60_000)
    _time_head_change(page, "head 0", "Head 0 of the 4-head model")  # the notebook left "all heads" on
    before = _heatmap(page)

    # A head change redraws the same words with other weights.
    ms = _time_head_change(page, "head 2", "Head 2 of the 4-head model")
    after_head = _heatmap(page)
    assert after_head["title"] == "Head 2 of the 4-head model"
    assert after_head["x"] == before["x"]
    assert after_head["z"] != before["z"], "head 2 drew the same weights as head 0"

    # A new sentence redraws new words on both axes, the future masked, each row summing to 100%.
    text_box = page.locator(".attention-explorer .widget-text input").first
    text_box.fill(NEW_SENTENCE)
    text_box.press("Enter")
    page.wait_for_function(
        f"() => document.querySelector('{HEATMAP}')._fullData[0].x.includes('bridge')", timeout=30_000
    )
    after_sentence = _heatmap(page)
    words = NEW_SENTENCE.split()
    assert after_sentence["x"] == unique_labels(words)
    assert after_sentence["y"] == after_sentence["x"]
    assert "bridge" in after_sentence["ticks"] and "foxes" in after_sentence["ticks"]
    assert after_sentence["z"][0][1:] == [None] * (len(words) - 1), "the future is not masked"
    rows = [sum(v for v in row if v is not None) for row in after_sentence["z"]]
    assert all(abs(r - 1) < 1e-3 for r in rows), f"rows of weights do not sum to 1: {rows}"
    assert "head 2, reading 'sigh', looks mostly at:" in page.locator(".attention-explorer").inner_text()

    # The tooltips tell the truth: a visible cell names both words and its weight, a masked cell says masked.
    figure = f"document.querySelector('{HEATMAP}')"
    weight = after_sentence["z"][3][2]
    seen = hover_text(page, figure, 0, 3, 2)
    assert seen == f"'foxes' looks at 'the': {weight:.1%}", f"a visible cell's tooltip says {seen!r}"
    hidden = hover_text(page, figure, 1, 2, 3)
    assert hidden == "masked: 'the' cannot see the later word 'foxes'", f"a masked cell's tooltip says {hidden!r}"

    # Every figure of the explorer lies inside its output area (1400 px wide window).
    boxes = page.evaluate("""() => Array.from(document.querySelectorAll('.attention-explorer .js-plotly-plot'))
        .filter(gd => gd.getBoundingClientRect().height > 0).map(gd => {
            const area = gd.closest('.jp-OutputArea-output').getBoundingClientRect();
            const r = gd.querySelector('.main-svg').getBoundingClientRect();
            return [r.left - area.left, area.right - r.right]; })""")
    assert boxes and all(left >= -1 and right >= -1 for left, right in boxes), f"outside the output area: {boxes}"
    return ms


def _pick(page, picker: str, label: str) -> None:
    """Choose the option `label` in the explorer's dropdown named `picker`, as a learner does."""
    dropdown = page.locator(".attention-explorer .widget-dropdown").filter(
        has=page.locator("label", has_text=re.compile(f"^{picker}$")))  # by its label: option texts may repeat it
    dropdown.locator("select").select_option(label=label)


def _check_novel_model(page) -> None:
    """The model menu's novel model: its examples fill the example menu, its title says novels, and the
    story examples come back with a story model."""
    options = "(name) => Array.from(document.querySelectorAll('.attention-explorer .widget-dropdown')).find(" \
              "d => d.querySelector('label').textContent.trim() === name).querySelector('select').options.length"
    story_count = page.evaluate(options, "examples")
    _pick(page, "model", "four heads, novels")
    heatmap_title = f"() => document.querySelector('{HEATMAP}').layout.title.text"  # not the hidden grid's
    page.wait_for_function(f"({heatmap_title})().endsWith('4-head model (novels)')", timeout=30_000)
    assert page.evaluate(options, "examples") == 1 + len(novel_examples()) != story_count  # 1: "pick an example…"
    _pick(page, "examples", novel_examples()[0])
    page.wait_for_function(f"() => document.querySelector('{HEATMAP}')._fullData[0].x.length === "
                           f"{len(novel_examples()[0].split())}", timeout=30_000)
    assert "<unk>" not in _heatmap(page)["x"], "a novel example has words its model does not know"
    _pick(page, "model", "four heads, story world")
    page.wait_for_function(f"({heatmap_title})().endsWith('4-head model')", timeout=30_000)
    page.wait_for_function(f"(count) => ({options})('examples') === count", arg=story_count, timeout=30_000)


def _axis_labels(page, words: int) -> dict:
    """Once the heatmap shows `words` words: its tick labels in screen order and its x axis title.

    Labels are ordered by their right (x) and bottom (y) ends: a slanted x label ends at its tick.
    """
    page.wait_for_function(f"() => document.querySelector('{HEATMAP}')._fullData[0].x.length === {words}",
                           timeout=30_000)
    page.wait_for_timeout(300)  # the relayout that follows the restyle in the same update message
    return page.evaluate(
        """(selector) => {
            const gd = document.querySelector(selector);
            const texts = (css, side) => Array.from(gd.querySelectorAll(css))  // in screen order
                .sort((a, b) => a.getBoundingClientRect()[side] - b.getBoundingClientRect()[side])
                .map(t => t.textContent);
            return {x: texts('.xtick text', 'right'), y: texts('.ytick text', 'bottom'),
                    title: texts('.xtitle', 'left').join(' ')};
        }""",
        HEATMAP,
    )


def _check_long_sentence_labels(page, text_box) -> None:
    """Typed into the open explorer: a 60-word sentence labels every 2nd word and says so on the figure;
    a short sentence afterwards labels every word again and the note is gone."""
    long_words = (NEW_SENTENCE.split() * 6)[:60]
    text_box.fill(" ".join(long_words))
    text_box.press("Enter")
    long_axes = _axis_labels(page, 60)
    assert long_axes["title"] == "word looked at (every 2nd word labelled)", long_axes["title"]
    promised = unique_labels(long_words)[::2]
    assert long_axes["x"] == promised and long_axes["y"] == promised, (promised, long_axes)
    text_box.fill(NEW_SENTENCE)
    text_box.press("Enter")
    short_axes = _axis_labels(page, len(NEW_SENTENCE.split()))
    everyone = unique_labels(NEW_SENTENCE.split())
    assert short_axes["x"] == everyone and short_axes["y"] == everyone, short_axes
    assert short_axes["title"] == "word looked at", short_axes["title"]


def test_explorer_in_a_real_browser(chromium: str, lab: str) -> None:
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            page.set_default_timeout(60_000)
            page.goto(lab)
            try:
                ms = _check_explorer(page)
                shot = SCREENSHOTS / "explorer.png"
                page.locator(".attention-explorer").screenshot(path=str(shot))  # before the checks below change it
                _check_long_sentence_labels(page, page.locator(".attention-explorer .widget-text input").first)
                _check_novel_model(page)
            except Exception:
                page.screenshot(path=str(SCREENSHOTS / "failure.png"), full_page=True)
                print("\ncode cells when it failed:", page.evaluate(CELL_STATES))
                raise
            print(f"\nhead change to redrawn heatmap in the browser: {ms:.0f} ms")
            if os.environ.get("EXPLORER_ASSETS") == "1":
                shutil.copy(shot, ROOT / "assets" / "explorer.png")
        finally:
            browser.close()


def test_static_copy_switches_heads_in_exported_html(chromium: str, tmp_path: Path) -> None:
    """Where no kernel runs: the executed notebook, exported to HTML, still switches heads and sentences."""
    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import ExecutePreprocessor

    nb = nbformat.read(NOTEBOOK, as_version=4)
    run = ExecutePreprocessor(timeout=120, kernel_name="python3", store_widget_state=False)
    run.preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    page_file = tmp_path / "explorer.html"
    page_file.write_text(HTMLExporter().from_notebook_node(nb)[0], encoding="utf-8")
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            page.route("http*://**", lambda route: route.abort())  # prove it needs no internet
            page.goto(page_file.as_uri())
            page.wait_for_function("() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
                                   ".some(gd => gd.layout && gd.layout.updatemenus)", timeout=60_000)
            static = "Array.from(document.querySelectorAll('.js-plotly-plot')).find(gd => gd.layout.updatemenus)"
            shown = f"""() => {{ const gd = {static};
                const i = gd._fullData.findIndex(t => t.visible === true);
                return {{x: Array.from(gd._fullData[i].x), z: JSON.stringify(gd._fullData[i].z),
                         ticks: Array.from(gd.querySelectorAll('.xtick text'), t => t.textContent)}}; }}"""
            first = page.evaluate(shown)
            assert first["ticks"] == first["x"], "the axis shows words of sentences that are hidden"
            page.locator(".updatemenu-header").nth(1).click()  # the head menu
            page.locator(".updatemenu-dropdown-button", has_text="head 2").click()
            head_2 = page.evaluate(shown)
            assert head_2["x"] == first["x"] and head_2["z"] != first["z"], "the head menu did not change weights"
            page.locator(".updatemenu-header").nth(0).click()  # the sentence menu
            page.locator(".updatemenu-dropdown-button").nth(1).click()
            second = page.evaluate(shown)
            assert second["x"] != first["x"] and second["ticks"] == second["x"]
            page.screenshot(path=str(SCREENSHOTS / "static_copy.png"), full_page=False)
        finally:
            browser.close()



_TIME_PICK = """async ([picker, option, title]) => {
    const box = document.querySelector('.attention-explorer');
    const select = Array.from(box.querySelectorAll('.widget-dropdown'))
        .find(d => d.querySelector('label').textContent.trim() === picker).querySelector('select');
    const shows = () => Array.from(box.querySelectorAll('.js-plotly-plot .gtitle')).some(
        t => t.textContent.startsWith(title) && t.checkVisibility({visibilityProperty: true}));
    const start = performance.now();
    const text = o => o.textContent.replace(/\u00a0/g, ' ');  // ipywidgets shows spaces as non-breaking ones
    select.value = Array.from(select.options).find(o => text(o) === option).value;
    select.dispatchEvent(new Event('change', {bubbles: true}));
    while (!shows()) {
        await new Promise(r => requestAnimationFrame(r));
        if (performance.now() - start > 30000) throw new Error(`the explorer never showed ${title}`);
    }
    return performance.now() - start;
}"""
"""Pick `option` in the explorer's menu `picker`; milliseconds until a figure titled `title...` shows."""

_ON_SCREEN = """() => {
    const w = document.querySelector('.attention-explorer');
    w.scrollIntoView({block: 'start'});
    const view = w.closest('.jp-WindowedPanel-outer').getBoundingClientRect();
    const shown = e => e.getBoundingClientRect().height > 0 && e.checkVisibility({visibilityProperty: true});
    const controls = Array.from(w.querySelectorAll('.widget-inline-hbox')).filter(shown);
    const figure = Array.from(w.querySelectorAll('.js-plotly-plot')).filter(shown)[0].getBoundingClientRect();
    const fonts = Array.from(w.querySelectorAll('.widget-label, select, input[type=text]')).filter(shown)
        .map(e => getComputedStyle(e).fontSize);
    const area = w.closest('.jp-OutputArea-output').getBoundingClientRect();
    const wide = Array.from(w.querySelectorAll('select, input[type=text]')).filter(shown)
        .filter(e => e.getBoundingClientRect().right > area.right + 1)
        .map(e => `${e.closest('.widget-inline-hbox').querySelector('label').textContent.trim()} ends at `
            + `${Math.round(e.getBoundingClientRect().right)} px, the output area at ${Math.round(area.right)}`);
    const menus = Array.from(w.querySelectorAll('select')).filter(shown).filter(e => !e.selectedOptions.length
        || !e.selectedOptions[0].textContent.trim()).map(e => e.closest('.widget-inline-hbox').textContent.trim());
    return {top: Math.min(...controls.map(e => e.getBoundingClientRect().top)), bottom: figure.bottom,
            view_top: view.top, view_bottom: view.bottom, fonts: Array.from(new Set(fonts)), wide, menus,
            every: Array.from(w.querySelectorAll('.js-plotly-plot')).filter(shown)[0].layout.xaxis.dtick};
}"""
"""Where the explorer's controls start and its first figure on show ends, against the notebook's visible part;
controls that run past the output area's right edge, menus that show nothing, and the first figure's labelling
(every k-th word)."""


def test_explorer_on_a_projector_by_keyboard(chromium: str, tmp_path: Path, axe_script) -> None:
    import nbformat
    from playwright.sync_api import sync_playwright

    root, home = tmp_path / "root", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code) for code in (
        "import helpers\n\nhelpers.presenter_mode(True)", "from helpers.explorer import explore\n\nexplore()")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "projector.ipynb")
    SCREENSHOTS.mkdir(exist_ok=True)
    problems, times = [], {"model_switch": [], "all_heads_after_switch": [], "head_change": [], "focus_change": []}
    with jupyter_lab(root, home) as (base, token), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.set_default_timeout(60_000)
            page.goto(f"{base}/lab/tree/projector.ipynb?token={token}")
            run_all_cells(page)
            page.wait_for_function(f"() => document.querySelector('{HEATMAP}') && "
                                   f"document.querySelector('{HEATMAP}')._fullData.length > 0", timeout=120_000)
            for view in ("head 0", ALL_HEADS):  # the controls and the heatmap, then the grid, on screen together
                page.evaluate(_TIME_PICK, ["head", view, "Head 0" if view == "head 0" else "Every head"])
                box = page.evaluate(_ON_SCREEN)
                if box["top"] < box["view_top"] - 1 or box["bottom"] > box["view_bottom"] + 1:
                    problems.append(f"{view}: from the controls at {box['top']:.0f} px to the figure's end at "
                                    f"{box['bottom']:.0f} px, more than the notebook's {box['view_top']:.0f}-"
                                    f"{box['view_bottom']:.0f} px")
                page.screenshot(path=str(SCREENSHOTS / f"explorer-projector-{view.replace(' ', '-')}.png"))
                problems += [f"{view}: {control}" for control in box["wide"]]
                problems += [f"{view}: a menu shows nothing (it looks like a text box): {m}" for m in box["menus"]]
                if view == "head 0" and box["every"] != 1:
                    problems.append(f"the opening sentence's heatmap labels every {box['every']}th word only")
            if box["fonts"] != ["22px"]:
                problems.append(f"the controls' text is {box['fonts']}, not the presenter's 22px")
            problems += _keyboard_problems(page)
            problems += control_problems(page, ".attention-explorer")
            problems += severe_violations(page, axe_script, ".attention-explorer")
            labels = {checkpoint.name: checkpoint.label for checkpoint in SHIPPED}
            models = [(labels["one_head"], "one-head"), (labels["four_heads"], "4-head")]
            for i in range(6):  # one head and four heads in turn; then the grid of the model on show
                label, heads = models[i % 2]
                page.evaluate(_TIME_PICK, ["head", "head 0", "Head 0"])
                times["model_switch"].append(page.evaluate(_TIME_PICK, ["model", label, f"Head 0 of the {heads}"]))
                times["all_heads_after_switch"].append(
                    page.evaluate(_TIME_PICK, ["head", ALL_HEADS, f"Every head of the {heads}"]))
            for i in range(1, 7):  # the four-head model is on show
                times["head_change"].append(page.evaluate(_TIME_PICK, ["head", f"head {i % 2}", f"Head {i % 2}"]))
            words = page.evaluate("() => Array.from(Array.from(document.querySelectorAll('.attention-explorer "
                                  ".widget-dropdown')).find(d => d.querySelector('label').textContent.trim() === "
                                  "'focus on').querySelector('select').options, o => o.textContent"
                                  ".replace(/\u00a0/g, ' '))")
            for i in range(6):
                word = words[-1 - i % 2]
                times["focus_change"].append(page.evaluate(_TIME_PICK, ["focus on", word, f"Where '{word}'"]))
            problems += _grid_words_problems(page)
        finally:
            browser.close()
    medians = {f"{name}_median_ms": round(median(values), 1) for name, values in times.items()}
    print(f"\nin presenter mode at 1280x720, from a pick to the new figure on screen: {medians}")
    assert not problems, "the explorer on a projector:\n" + "\n".join(problems)


def _keyboard_problems(page) -> list[str]:
    """The arrow keys change the focused head menu; JupyterLab must not take them to move to another cell."""
    active = "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
    head = page.locator(".attention-explorer .widget-dropdown", has=page.locator("label", has_text=re.compile(
        "^head$"))).locator("select")
    page.evaluate(_TIME_PICK, ["head", "head 0", "Head 0"])
    head.focus()
    cell = page.evaluate(active)
    page.keyboard.press("ArrowDown")
    try:
        page.wait_for_function(f"() => document.querySelector('{HEATMAP}').layout.title.text.startsWith('Head 1')",
                               timeout=30_000)
    except Exception:
        return ["ArrowDown on the focused head menu did not show head 1"]
    return [] if page.evaluate(active) == cell else ["ArrowDown on the head menu moved JupyterLab to another cell"]


def _grid_words_problems(page) -> list[str]:
    """A new sentence typed in the all-heads view: every panel labels the new words, and no word of the last
    sentence is left on its axes."""
    page.evaluate(_TIME_PICK, ["head", ALL_HEADS, "Every head"])
    box = page.locator(".attention-explorer .widget-text input").first
    box.fill(NEW_SENTENCE)
    box.press("Enter")
    grid = ("Array.from(document.querySelectorAll('.attention-explorer .js-plotly-plot')).find(gd => "
            "gd.checkVisibility({visibilityProperty: true}) && gd.layout.title.text.startsWith('Every head'))")
    page.wait_for_function(f"() => {grid}._fullData[0].x.includes('bridge')", timeout=30_000)
    page.wait_for_timeout(300)  # the relayout that follows the restyle in the same update message
    shown = page.evaluate(f"""() => {{ const gd = {grid};
        const labels = css => Array.from(gd.querySelectorAll(css), t => t.textContent);  // every panel's axes
        return {{every: gd.layout.yaxis.dtick, rows: labels('.yaxislayer-above text'),
                 columns: labels('.xaxislayer-above text')}}; }}""")
    wanted = unique_labels(NEW_SENTENCE.split())[:: shown["every"]]
    rows, columns = sorted(shown["rows"]), sorted(shown["columns"])
    if rows != sorted(wanted * 2) or columns != sorted(wanted * 2):  # two panels label each side
        return [f"the grid labels {shown} after the sentence {NEW_SENTENCE!r}"]
    return []
