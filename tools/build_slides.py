"""The reveal.js decks tools.build_site writes to site/slides/NN.html (the explorer's: explorer.html): executed in
presenter mode with their notes (tools.editions.with_notes), solutions hidden, cut to fit 1280x720 (tools.paginate).
reveal.js and its notes plugin come from npm once (build/npm) and are copied next to the decks, to work offline.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
from nbconvert import SlidesExporter

from tools.chapters import EXPLORER, INJECTED, ROOT
from tools.editions import is_notes
from tools.pages import LIVE_ONLY, PLOTLY_JS, add_static_note, docs_online, exporter, page_title, prepare
from tools.paginate import paginate

REVEAL = "reveal.js@5.2.1"
NPM_DIR = ROOT / "build" / "npm"
THEME = "white"
REVEAL_FILES = ["dist/reveal.js", "dist/reveal.css", f"dist/theme/{THEME}.css", "dist/theme/fonts/source-sans-pro",
                "plugin/notes/notes.js"]
"""The parts of reveal.js a deck loads: the script, its styles, the white theme and that theme's font, and the
notes plugin (its speaker view is built into notes.js: nothing else is fetched)."""
SETUP_TAG = "setup"
"""The set-up cell (its imports) is left out of a deck; RISE shows it, for running it live."""
WIDTH, HEIGHT = 1280, 800  # slide size in CSS pixels before reveal.js scales it to the screen

DECK_CSS = """
.reveal .slides section { height: 100%; overflow-y: auto; }  /* should paginate misjudge: the mouse wheel */
/* a long line of code wraps (tools.paginate counts it so): a clicker cannot scroll sideways */
.reveal .jp-InputArea-editor .highlight pre { white-space: pre-wrap; overflow-wrap: anywhere;
                                              box-sizing: border-box; }  /* its padding inside its width */
/* a slide that opens with code or a list starts it as far down as a heading's text, not at the screen's edge */
.reveal .slides section > .jp-CodeCell:first-child,
.reveal .slides section > .jp-MarkdownCell:first-child .jp-RenderedMarkdown > :is(ul, ol):first-child {
  margin-top: 14px; }
.reveal .jp-InputPrompt, .reveal .jp-OutputPrompt { display: none; }  /* no "In [7]:": code and output get the width */
/* a printed table keeps its rows, at a size where 100 characters fit the slide */
.reveal .jp-OutputArea-output { --jp-code-font-size: 18px; }
.reveal .jp-OutputArea-output pre { white-space: pre; }
/* code in a text cell at the size of a code cell's, not the theme's small pre */
.reveal .jp-RenderedMarkdown pre { font-size: 19px; width: 100%; box-sizing: border-box; white-space: pre-wrap;
                                  box-shadow: none; margin: 0.5em 0; }
/* MathML at the text's size (it drew at about 0.7 of it), in a math font where one is installed: the generic one
   fell back to a plain font, which neither stretches brackets nor sets a sum's limits */
.reveal math { font-size: 1.3em;
               font-family: "STIX Two Math", "Cambria Math", "Latin Modern Math", "DejaVu Math TeX Gyre", math; }
body .reveal .slide-number { background-color: rgba(0, 0, 0, 0.75); }  /* its white digits readable */
body .reveal .jp-RenderedHTMLCommon :is(a:link, a:visited) { text-decoration: underline; }  /* over the theme's */
/* a step-through's word opened takes the slide, and so does its step opened: the others wait until it closes */
.reveal .step-through-static:has(> details[open]) > details:not([open]),
.reveal .step-through-static div:has(> details[open]) > details:not([open]) { display: none; }
"""
"""What a deck's page styles beside READABLE_CSS."""
DECK_SCRIPTS = """{%- block footer_js -%}
<script src="{{ resources.reveal.url_prefix }}/dist/reveal.js"></script>
<script src="{{ resources.reveal.url_prefix }}/plugin/notes/notes.js"></script>
<script>
// a cell's notes belong to its slide, in the speaker view from the slide's first step: inside a fragment (nbconvert
// puts them there) reveal.js shows them only while that fragment is the last one shown
document.querySelectorAll(".reveal .fragment aside.notes").forEach((notes) => notes.closest("section").append(notes));
// a section's slides start at their first whenever Space or an arrow enters them, even after the overview jumped
// into their middle (reveal.js would resume where that jump left): the reading order holds
document.querySelectorAll(".reveal .slides > section").forEach((stack) => { stack.dataset.startIndexv = 0; });
// margin 0: the slide fills the projector's height, its text 4% larger than within reveal.js's default margin
Reveal.initialize({controls: true, progress: true, history: true, center: false, transition: "none",
                   navigationMode: "linear", slideNumber: "c/t", margin: 0,
                   width: {{ resources.reveal.width }}, height: {{ resources.reveal.height }}, plugins: [RevealNotes]});
// Tab stops only on the slide on show (reveal.js keeps the others in the page, hidden; the overview shows them
// all), and not on a cell's code or output (nbconvert's stops): on a slide with a menu, Tab goes to it first
document.querySelectorAll(".reveal .jp-Cell-inputWrapper, .reveal .jp-OutputArea-output")
    .forEach((part) => part.removeAttribute("tabindex"));
const onShowOnly = (only) => document.querySelectorAll(".reveal .slides section")
    .forEach((slide) => { slide.inert = only && !slide.contains(Reveal.getCurrentSlide()); slide.tabIndex = -1; });
// a click on a figure in the overview gives it the keys (its arrows move between its cells; Space stays the
// deck's): a new slide or the closed overview hands the arrows back, and Tab starts from the slide's top (focused,
// then left), but not in the speaker view's previews, which would take its keys
["ready", "slidechanged", "overviewhidden", "overviewshown"].forEach((name) => Reveal.on(name, () => {
    onShowOnly(!Reveal.isOverview()); window === window.top && Reveal.getCurrentSlide().focus({preventScroll: true});
    document.activeElement?.blur(); }));
// the speaker view opens in its "Tall" layout, whose notes pane has the window's full height (in the default one a
// slide's last notes fall below a small window): a layout picked there is kept, as reveal.js keeps it
try { localStorage.getItem("reveal-speaker-layout") || localStorage.setItem("reveal-speaker-layout", "tall"); } catch {}
// a figure drawn while its slide was hidden takes its size once the slide shows
Reveal.on("slidechanged", (event) => event.currentSlide.querySelectorAll(".js-plotly-plot")
    .forEach((figure) => Plotly.Plots.resize(figure)));
</script>
{%- endblock footer_js -%}
"""
"""reveal.js and its notes plugin from the deck's own copy (ship_reveal), in place of nbconvert's CDN scripts."""


class NpmMissingError(RuntimeError):
    """npm_package needs npm to install a package the first time, and there is none on the PATH."""


def npm_package(spec: str, needed_by: str = "the slides") -> Path:
    """The npm package `spec` ("name@version") in build/npm, installed with npm the first time."""
    name, version = spec.rsplit("@", 1)
    package = NPM_DIR / "node_modules" / name
    manifest = package / "package.json"
    if not manifest.exists() or json.loads(manifest.read_text())["version"] != version:
        npm = shutil.which("npm")
        if npm is None:
            raise NpmMissingError(f"{needed_by} need {spec} from npm once: install Node.js with npm "
                             "(e.g. apt-get install npm) and run this again")
        subprocess.run([npm, "install", "--prefix", str(NPM_DIR), "--no-audit", "--no-fund", spec], check=True)
    return package


def ship_reveal(slides_dir: Path) -> Path:
    """Copy the parts of reveal.js the decks load to `slides_dir/reveal.js`; returns that folder."""
    package, target = npm_package(REVEAL), slides_dir / "reveal.js"
    for part in REVEAL_FILES:
        source, copy = package / part, target / part
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, copy, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.eot", "*.ttf"))
        else:
            shutil.copyfile(source, copy)
    return target


def deck_file(name: str) -> str:
    """The file name of notebook `name`'s deck: NN.html for a chapter, explorer.html for the explorer."""
    return f"{name[:2] if name[:2].isdigit() else name}.html"


def deck_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The cells a deck shows: not the set-up cell, the cell that switched presenter mode on, or what only the
    live notebook has; a cell's notes (with_notes puts them right after it) are left out with it. A code cell
    JupyterLab shows folded (its code only formats a printout) shows its output alone; a text cell gets its
    static note (tools.pages.STATIC_NOTE)."""
    kept, dropped = [], False
    for cell in nb.cells:
        if not is_notes(cell):
            dropped = bool({SETUP_TAG, INJECTED, LIVE_ONLY} & set(cell.metadata.get("tags", [])))
        if not dropped and cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"):
            cell = nbformat.from_dict({**cell, "source": "", "metadata": {**cell.metadata, "transient": {
                "remove_source": True}}})
        if not dropped:
            kept.append(add_static_note(cell))
    return kept


def deck_body(nb: nbformat.NotebookNode, name: str) -> str:
    """The deck's HTML for an executed (presenter-mode, static) notebook with its notes: the cells deck_cells
    keeps, its slides cut to fit the screen (paginate), each notes block on the slide its cell starts on; links
    to other notebooks point at their decks (the explorer's at its page, one folder up)."""
    deck = exporter("reveal/index.html.j2", DECK_CSS, DECK_SCRIPTS, SlidesExporter, reveal_url_prefix="reveal.js",
                    reveal_theme=THEME, reveal_width=str(WIDTH), reveal_height=str(HEIGHT))
    # before the exporter groups cells into slides: a cell removed afterwards can take a slide's end with it
    shown = paginate(nbformat.from_dict({**nb, "cells": deck_cells(nb)}))
    resources = {"plotly_js": f"../{PLOTLY_JS}", "metadata": {"name": page_title(name)}}
    body, _ = deck.from_notebook_node(prepare(shown), resources=resources)
    body = body.replace(f'href="{EXPLORER}"', f'href="../{EXPLORER[:-6]}.html"')
    return docs_online(re.sub(r'href="(\d\d)_\w+\.ipynb"', r'href="\1.html"', body))


def write_deck(nb: nbformat.NotebookNode, name: str, slides_dir: Path) -> Path:
    """Write an executed notebook's deck (deck_body) as `slides_dir/NN.html` (deck_file)."""
    slides_dir.mkdir(parents=True, exist_ok=True)
    target = slides_dir / deck_file(name)
    target.write_text(deck_body(nb, name), encoding="utf-8")
    return target
