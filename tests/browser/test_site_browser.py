"""The offline site and every deck in headless Chromium, as a reader with no kernel and no internet: served from
127.0.0.1, every request to another host blocked; each deck walked step by step at 1280x720 (nothing past the
slide's edges, speaker notes in the speaker view). Screenshots go to tests/browser/screenshots/.
"""

from __future__ import annotations

import html
import json
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urljoin, urlparse

import nbformat
import pytest

from tests.browser.support import SCREENSHOTS, drawn, free_port, open_page, serving, severe_violations
from tools.build_slides import deck_cells, deck_file
from tools.chapters import NOTEBOOKS, SITE_SAMPLE, notebook_paths
from tools.editions import checked_exercise, is_notes, solution_source, with_notes
from tools.pages import page_title

CHAPTERS = [path.stem for path in SITE_SAMPLE if path.stem[:2].isdigit()]  # 2: solutions on slides, 4: math
FIGURES_DRAWN = """() => {
    const figures = Array.from(document.querySelectorAll('.plotly-graph-div'));
    const views = Array.from(document.querySelectorAll('.spotlights-static'));
    return figures.length + views.length > 0 && figures.every(f => f._fullLayout && f.querySelector('.main-svg'))
        && views.every(v => v.querySelector('.spotlights-drawing svg'));
}"""

OPEN_A_STEP = """(step) => {
    const word = Reveal.getCurrentSlide().querySelector('.step-through-static > details:last-of-type');
    if (!word) return 0;
    const steps = word.querySelectorAll(':scope > div > details');
    word.open = step >= 0;
    steps.forEach((s, i) => { s.open = i === step; });
    return steps.length;
}"""
"""A static step-through on the slide shown: its last word opened at one `step` (-1: all closed, as it starts),
as a class is asked to; the number of its steps."""

PAST_THE_SLIDE = """() => {
    const frame = document.querySelector('.reveal .slides').getBoundingClientRect();
    const slide = Reveal.getCurrentSlide();
    const shown = e => {
        for (let f = e.closest('.fragment'); f; f = f.parentElement.closest('.fragment'))
            if (!f.classList.contains('visible')) return false;
        const box = e.getBoundingClientRect();  // and not inside a folded fold-out or the speaker notes
        return box.width > 0 && box.height > 0 && e.checkVisibility({contentVisibilityAuto: true});
    };
    const name = e => e.classList.contains('plotly-graph-div') ? 'a figure'
        : e.closest('.jp-OutputArea-output') ? `a printout (${e.tagName.toLowerCase()})`
        : e.closest('.jp-InputArea') ? 'code' : `${e.tagName.toLowerCase()} "${e.textContent.trim().slice(0, 40)}"`;
    const problem = e => {
        const box = e.getBoundingClientRect();
        if (box.bottom > frame.bottom + 1) return `ends at ${Math.round(box.bottom)} px, the slide at `
            + Math.round(frame.bottom);
        if (box.right > frame.right + 1) return `ends at ${Math.round(box.right)} px across, the slide at `
            + Math.round(frame.right);
        if (getComputedStyle(e).overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1)
            return 'has lines wider than the slide (cut off)';
        const px = parseFloat(getComputedStyle(e).fontSize) * box.height / e.offsetHeight;  // as the screen shows it
        if (e.tagName === 'PRE' && px < 12) return `is at ${px.toFixed(1)} px, too small to read on a projector`;
        return null;
    };
    const items = Array.from(slide.querySelectorAll('*')).filter(e => !e.closest('.js-plotly-plot')
        || e.classList.contains('plotly-graph-div')).filter(shown);
    const bad = new Map(items.map(e => [e, problem(e)]).filter(([, p]) => p));
    return Array.from(bad).filter(([e]) => !bad.has(e.parentElement))  // once, on the outermost element
        .map(([e, p]) => `${name(e)} ${p}`);
}"""
"""What runs past the edges of the slide on show: every element of its steps shown so far (a plotly figure as
one), past the bottom or the right, or cut at the right inside a box that scrolls sideways; and code too small
to read there."""


@pytest.fixture(scope="module")
def site(built_decks, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The built site with every notebook's deck (tests/conftest.py; SPOTLIGHTS_CHAPTERS narrows them) served on
    127.0.0.1 by Python's own file server; yields its address."""
    port = free_port()
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory",
               str(built_decks.folder)]
    with serving(command, f"http://127.0.0.1:{port}/", tmp_path_factory.mktemp("http") / "requests.log"):
        yield f"http://127.0.0.1:{port}/"


def test_solutions_are_folded_on_the_page_and_left_out_of_the_slides(site: str) -> None:
    nb = nbformat.read(NOTEBOOKS / f"{CHAPTERS[0]}.ipynb", as_version=4)
    exercises = [name for cell in nb.cells if (name := checked_exercise(cell))]
    solutions = [solution_source(name).splitlines()[1].strip() for name in exercises]  # each one's first line
    assert solutions, "chapter 2 should have exercises for this test to mean anything"
    deck, page = _text(urljoin(site, f"slides/{CHAPTERS[0][:2]}.html")), _text(urljoin(site, f"{CHAPTERS[0]}.html"))
    for line in solutions:
        assert line in page, f"the reading page lost a solution line: {line!r}"
        assert line not in deck, f"a solution shows on the slides: {line!r}"


def _found(url: str) -> bool:
    """Whether the site serves `url`."""
    try:
        with urllib.request.urlopen(url):
            return True
    except urllib.error.HTTPError:
        return False


def _text(url: str) -> str:
    """The text of a page, roughly: tags removed (code is split into highlighted spans), entities decoded."""
    with urllib.request.urlopen(url) as response:
        return html.unescape(re.sub(r"<[^>]+>", "", response.read().decode()))


@contextmanager
def _offline_page(chromium: str, site: str, width: int, height: int) -> Iterator:
    """Chromium on a page that may ask only the site's host (every other request is blocked); afterwards, fails
    on a request it blocked, a script error or a failed request."""
    host = urlparse(site).netloc
    blocked, errors = [], []

    def route(r) -> None:
        if urlparse(r.request.url).netloc == host:
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    with open_page(chromium, width, height, 60_000) as (page, _):
        page.route("**/*", route)
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
        page.on("response", lambda r: r.ok or errors.append(f"{r.url}: HTTP {r.status}"))
        page.on("requestfailed", lambda r: urlparse(r.url).netloc != host or errors.append(f"{r.url} failed"))
        yield page
    assert not blocked, f"pages asked other hosts for: {json.dumps(sorted(set(blocked)), indent=1)}"
    assert not errors, f"script errors on the pages: {errors}"


def test_site_works_offline_in_a_browser(chromium: str, site: str, axe_script) -> None:
    problems = []
    with _offline_page(chromium, site, 1400, 1000) as page:
        # Every page the index links (test_site checks which) loads; the decks are walked below.
        page.goto(site)
        links = page.eval_on_selector_all("a[href]", "links => links.map(a => a.getAttribute('href'))")
        local = [href for href in links if not urlparse(href).scheme]
        page.screenshot(path=str(SCREENSHOTS / "site_index.png"), full_page=True)
        downloads = [href for href in local if not href.endswith(".html")]
        assert downloads == ["notebooks.zip"], f"the index links these non-page files: {downloads}"
        for href in sorted(set(local) - set(downloads)):  # each page: drawn, named after its chapter, axe
            response = page.goto(urljoin(site, href))
            assert response is not None and response.ok, f"{href} did not load"
            if href == "instructor.html":  # the guide, text alone
                assert page.title().endswith("instructor guide") and page.locator("h2").count() > 5, page.title()
            else:
                page.wait_for_function(FIGURES_DRAWN)
                assert page.title() == page_title(href[:-5]), f"{href} is titled {page.title()!r}"
            problems += [f"{href}: {v}" for v in severe_violations(page, axe_script)]

        # A chapter: figures drawn inside the page, math drawn as MathML, no TeX left over.
        page.goto(urljoin(site, f"{CHAPTERS[1]}.html"))
        page.wait_for_function(FIGURES_DRAWN)
        maths = page.locator("math")
        assert maths.count() >= 1, "chapter 4's formula is not on the page as MathML"
        box = maths.first.bounding_box()
        assert box is not None and box["width"] > 5 and box["height"] > 5, f"the math is not drawn: {box}"
        assert "\\sqrt" not in page.inner_text("body"), "raw TeX shows on the page"
        maths.first.scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / "site_math.png"))
        slices = page.locator(".spotlights-static div[title^='head ']")  # split-the-width's bar, four heads first
        assert slices.count() == 4 and slices.first.is_visible(), "the static copy has no split bar over its heads"

        # The static explorer: its head menu, changed with the arrow keys, switches the head with no kernel (each
        # deck's first menu, the explorer's sentence menu, is checked with the arrow keys in the decks' test).
        page.goto(urljoin(site, "explorer.html"))
        page.wait_for_function(FIGURES_DRAWN)
        explorer = ".spotlights-static"  # the explorer cell's static copy: sentence and head menus
        first = drawn(page, explorer)[0]
        assert len(first["x"]) > 3 and first["x"] == first["y"]
        head = page.locator(f"{explorer} label", has_text="head").locator("select").first
        head.focus()
        page.keyboard.press("ArrowDown")
        head_1 = drawn(page, explorer, first["title"].replace("Head 0", "Head 1"))[0]
        assert head_1["x"] == first["x"] and head_1["cells"] != first["cells"], "the head menu did nothing"
        page.locator(explorer).first.screenshot(path=str(SCREENSHOTS / "site_explorer.png"))
    assert not problems, "serious accessibility problems on the pages:\n" + "\n".join(problems)


def test_every_deck_works_offline_fits_the_screen_and_carries_speaker_notes(chromium: str, site: str,
                                                                           axe_script) -> None:
    """Each deck on a 1280x720 projector: its figures drawn, its slides nested as the chapter's slide cells say,
    its notes in it and in the speaker view, a menu's arrow keys its own; then every step, as a clicker's right
    arrow goes through them (linear: the vertical slides too), with nothing past the slide's edges."""
    problems, steps = [], {}
    with _offline_page(chromium, site, 1280, 720) as page:
        for n, chapter in enumerate(notebook_paths()):
            deck = deck_file(chapter.stem)[:-5]  # "04", or "explorer"
            page.goto(urljoin(site, f"slides/{deck}.html"))
            page.wait_for_function("() => window.Reveal && Reveal.isReady()")
            page.wait_for_function(FIGURES_DRAWN)
            if page.title() != f"{page_title(chapter.stem)} slides":
                problems.append(f"{deck}: the deck's title is {page.title()!r}")
            links = {a.split("#")[0] for a in page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)")}
            problems += [f"{deck}: a link to {link} leads nowhere" for link in links if link.startswith(site)
                         and not re.search(r"/slides/\w+\.html$", link) and not _found(link)]  # a deck: maybe unbuilt
            if (scale := page.evaluate("() => Reveal.getScale()")) < 0.9:  # 720 / 800: the slide fills the height
                problems.append(f"{deck}: drawn at {scale:.3f} of its size, smaller than the screen allows")
            cells = deck_cells(with_notes(nbformat.read(chapter, as_version=4)))
            slides = sum(c.metadata["slideshow"]["slide_type"] == "slide" for c in cells)
            if page.evaluate("() => Reveal.getHorizontalSlides().length") != slides:
                problems.append(f"{deck}: slides nested wrongly, not the chapter's {slides} slides")
            # the first line of each notes block, as text (no markdown marks)
            notes = [re.sub(r"[*`]", "", c.source.split("- ", 1)[1].splitlines()[0]) for c in cells if is_notes(c)]
            shown = page.eval_on_selector_all("aside.notes", "asides => asides.map(a => a.textContent)")
            missing = [line for line in notes if not any(line in text for text in shown)]
            if not notes or missing or not page.evaluate("() => Reveal.hasPlugin('notes')"):
                problems.append(f"{deck}: {len(notes)} notes cells, missing from the deck: {missing}")
            if stepwise := page.evaluate("() => document.querySelectorAll('.fragment aside.notes').length"):
                problems.append(f"{deck}: {stepwise} notes inside a fragment, in the speaker view only at its step")
            problems += [f"{deck}: {v}" for v in severe_violations(page, axe_script)]
            if n == 0:
                problems += _check_speaker_view(page, notes[0])
            steps[deck], where, seen = 0, None, set()
            page.evaluate("() => Reveal.slide(0, 0, 0)")
            while where != (where := page.evaluate("() => Reveal.getIndices()")):  # on to the end, which stays put
                page.wait_for_timeout(50)  # a fragment's class changes at once; its layout is synchronous
                seen.add((where["h"], where["v"]))
                found = page.evaluate(PAST_THE_SLIDE)
                for step in range(page.evaluate(f"() => ({OPEN_A_STEP})(-1)")):  # each step of the last word
                    page.evaluate(f"() => ({OPEN_A_STEP})({step})")
                    found += [f"with the step-through's last word at step {step + 1}: {x}"
                              for x in page.evaluate(PAST_THE_SLIDE)]
                page.evaluate(f"() => ({OPEN_A_STEP})(-1)")
                problems += [f"{deck} slide {where['h']}.{where['v']}: {x}" for x in found]
                if found:
                    page.screenshot(path=str(SCREENSHOTS / f"deck-{deck}-{where['h']}.{where['v']}.png"))
                page.keyboard.press("ArrowRight")
                steps[deck] += 1
            if page.locator(".spotlights-static select").count():  # a menu keeps the arrow keys: the slide stays
                page.evaluate(A_MENU, True), [page.keyboard.press(key) for key in ("Tab", "ArrowDown", "Escape")]
                problems += [f"{deck}: {said}" for said in [page.evaluate(A_MENU, False)] if said]
            if page.locator("g.panel.heatmap").count():  # the overview's click on a figure: Space still goes on
                problems += _click_a_figure_in_the_overview_then_space(page, deck)
            if jumped := page.evaluate(JUMP_BACK_THEN_SPACE):  # the overview into a section's middle, then back
                problems.append(f"{deck}: after a jump back, Space entered the next section at slide {jumped}, not 0")
            total = page.evaluate("() => Reveal.getTotalSlides()")
            if len(seen) != total:
                problems.append(f"{deck}: the right arrow showed {len(seen)} of its {total} slides, ending at {where}")
    print(f"\nwalked every step of the decks at 1280x720: {steps}")
    assert not problems, "decks that do not fit the screen, step through or carry their notes:\n" + "\n".join(problems)


JUMP_BACK_THEN_SPACE = """() => { const stacks = [...document.querySelectorAll('.reveal .slides > section')];
    const h = stacks.findIndex((s, i) => i > 0 && s.querySelectorAll(':scope > section').length > 1);
    if (h < 0) return 0;
    Reveal.slide(h, 1); Reveal.slide(h - 1, 99);  // a section's second slide, then back to the last one before it
    for (let n = 0; n < 50 && Reveal.getIndices().h === h - 1; n++) Reveal.next();  // its fragments, then on
    return Reveal.getIndices().v; }"""
"""Space after a jump back enters the next section at this slide: 0, its first, in reading order."""
A_MENU = """(go) => { const menu = document.querySelector('.reveal select'), slide = menu.closest('section');
    if (go) { const at = Reveal.getIndices(slide); Reveal.slide(at.h, at.v, 99); document.activeElement?.blur(); }
    const now = [Reveal.getCurrentSlide() === slide, +menu.value, slide.querySelector('.drawing').innerHTML];
    const [, choice, drawn] = go ? (window.before = now) : window.before;  // on its slide, then Tab, ArrowDown, Esc
    return !now[0] ? 'Tab then ArrowDown turned the slide' : now[1] !== choice + 1 ? 'Tab missed the menu' : now[2]
        === drawn ? 'a new choice left the figure' : Reveal.isOverview() || document.activeElement === menu ? 'Escape '
        + 'in a menu opened the overview, or stayed in the menu' : ''; }"""
CLICK_A_FIGURE = """(overview) => { const slide = document.querySelector('g.panel.heatmap').closest('section');
    const at = Reveal.getIndices(slide); Reveal.slide(at.h, at.v); Reveal.toggleOverview(overview);
    if (overview) Reveal.slide(at.h - 1, 0);  // moved within the overview: the figure is on another slide
    return [at.h, at.v]; }"""


def _click_a_figure_in_the_overview_then_space(page, deck: str) -> list[str]:
    """A click on a heatmap's thumbnail in the overview, or on the heatmap itself to read a value, then Space."""
    stuck = []
    for overview in (True, False):
        there = page.evaluate(CLICK_A_FIGURE, overview)
        page.wait_for_timeout(500)  # the overview's thumbnails settle
        page.locator("g.panel.heatmap:visible").first.click()  # the figure takes the keys
        page.keyboard.press("Space")
        moved = page.evaluate("[Reveal.getIndices().h, Reveal.getIndices().v]") != there
        stuck += [] if moved else ["in the overview" if overview else "on its slide"]
    return [f"{deck}: after a click on a figure {where}, Space stays where it was" for where in stuck]


def _check_speaker_view(page, first_note: str) -> list[str]:
    """Press S on the deck's first slide with notes: reveal.js's speaker view opens and shows them."""
    page.evaluate("() => { const where = Reveal.getIndices(document.querySelector('aside.notes').closest('section'));"
                  " Reveal.slide(where.h, where.v, 0); }")
    with page.context.expect_page() as opened:
        page.keyboard.press("s")
    view = opened.value
    try:
        view.wait_for_function("(text) => document.body && document.body.innerText.includes(text)", arg=first_note,
                               timeout=30_000)
        assert view.evaluate("document.body.dataset.speakerLayout") == "tall", "the notes' full height by default"
        page.evaluate("() => { window.at = JSON.stringify(Reveal.getIndices()); }"), view.keyboard.press("ArrowRight")
        page.wait_for_function("() => JSON.stringify(Reveal.getIndices()) !== window.at", timeout=10_000)  # moved
    except Exception as error:  # the check's message names what the view showed instead
        return [f"the speaker view does not show the first slide's notes, or its keys do not move it ({error}): "
                f"{view.evaluate('() => document.body.innerText')[:300]!r}"]
    finally:
        view.close()
    return []
