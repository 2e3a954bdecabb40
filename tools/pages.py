"""What the site's pages and the slide decks share: a notebook run as a static build, made self-contained.

A static build runs a notebook with SPOTLIGHTS_STATIC=1 (helpers.static): every widget comes out as its static
copy and every plotly figure as JSON, which `prepare` draws with the site's one plotly.min.js (without its mode
bar) beside math turned into MathML; `exporter` leaves out what nbconvert's pages would fetch from other hosts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import plotly.io as pio
from jinja2 import DictLoader
from latex2mathml.converter import convert as latex_to_mathml
from nbconvert import HTMLExporter
from nbconvert.preprocessors import CoalesceStreamsPreprocessor
from plotly.offline import get_plotlyjs

from helpers.plots import FIGURE_CONFIG
from helpers.static import STATIC_ENV
from tools.chapters import ROOT, chapter_title, execute

SITE = ROOT / "site"
PLOTLY_JS = "plotly.min.js"
CELL_TIMEOUT = 900  # seconds one cell may take: generous, since CI and shared machines can be slow
PLOTLY_MIME = "application/vnd.plotly.v1+json"
PRESENTER = "import helpers\n\nhelpers.presenter_mode(True)"
"""The first cell of a presenter-mode run, as JupyterLab shows it live (tools.chapters.execute tags it INJECTED;
decks leave it out); a deck's run starts with DECK."""
DECK = "import helpers\n\nhelpers.presenter_mode(True, deck=True)"
LIVE_ONLY = "live-only"
"""The tag of a cell that describes what only the live notebook has (the explorer's model menu, say): pages
and decks, which show static copies, leave it out."""
STATIC_NOTE = "static_note"
"""The cell metadata (markdown) that pages and decks add to the end of that cell's text: what stands in for a
live control there (two menus for the buttons, say). A learner's notebook never shows it."""
SITE_NAME = "Several Spotlights"
REPOSITORY = "https://github.com/several-spotlights/several-spotlights"


def docs_online(body: str) -> str:
    """A page's or a deck's links to docs/ pointed at the repository's copy (the site has no docs/ of its own), in
    a new tab, so that a presenter's deck stays open."""
    return body.replace('href="../docs/', f'target="_blank" href="{REPOSITORY}/blob/main/docs/')

READABLE_CSS = """
/* what nbconvert's page styles leave hard to read (axe-core's contrast and link checks): */
:root { --jp-cell-prompt-not-active-opacity: 1; }  /* "In [7]:" prompts, faded to a 2:1 contrast */
body .highlight :is(.c, .c1, .ch, .cm, .cp, .cpf, .cs) { color: #2d6464; }  /* comments (#408080: 4.2:1 on grey) */
body .highlight :is(.m, .mb, .mf, .mh, .mi, .mo, .il) { color: #006b00; }  /* numbers */
body .highlight .ow { color: #8800cc; }  /* "in", "and", "not" */
body .jp-RenderedHTMLCommon :is(a:link, a:visited) { text-decoration: underline; }  /* a link, not by colour only */
"""
"""Styles a page and a deck add to nbconvert's, so that everything on them reads at a 4.5:1 contrast."""

OFFLINE = """{%- block html_head_js -%}<script src="{{ resources.plotly_js }}"></script>{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""
"""nbconvert's page blocks that fetch from other hosts (jQuery, require.js, MathJax, mermaid, the widget manager),
replaced by the site's own plotly.js; pages and decks load nothing else from elsewhere."""

_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$([^$\n]+?)\$")


def mathml(markdown: str) -> str:
    """`markdown` with every $$display$$ and $inline$ formula replaced by MathML, which browsers draw."""
    markdown = _DISPLAY_MATH.sub(lambda m: latex_to_mathml(m[1].strip(), display="block"), markdown)
    return _INLINE_MATH.sub(lambda m: latex_to_mathml(m[1].strip()), markdown)


def page_title(name: str) -> str:
    """A page's or deck's title (its browser tab): the chapter's number and title, or the explorer's name."""
    number = f"Chapter {int(name[:2])}: " if name[:2].isdigit() else ""
    return f"{number}{chapter_title(name)} - {SITE_NAME}"


def execute_static(path: Path, edition: Callable[[nbformat.NotebookNode], nbformat.NotebookNode],
                   presenter: bool = False) -> nbformat.NotebookNode:
    """Run `edition` (from tools.editions) of one notebook as a static build: widgets give their static copies,
    plotly its JSON; with `presenter`, presenter mode is on from an added first cell, as a deck shows it."""
    os.environ[STATIC_ENV] = "1"  # the kernel inherits this process's environment
    os.environ["PLOTLY_RENDERER"] = "plotly_mimetype"  # figure JSON only; the page draws it with shared plotly.js
    nb = edition(nbformat.read(path, as_version=4))
    return execute(path, nb=nb, timeout=CELL_TIMEOUT, first=DECK if presenter else None)


def add_static_note(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """`cell` with its STATIC_NOTE added to the end of its text, once: the metadata key is taken off (a deck adds
    it before cutting its slides to fit, so that the cut counts it)."""
    note = cell.metadata.pop(STATIC_NOTE, None)
    if note:
        cell.source = f"{cell.source}\n\n{note}"
    return cell


def prepare(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Make an executed notebook need nothing from outside: figures drawn by shared plotly.js, math as MathML;
    leave out the cells tagged "live-only", which describe controls the static copies do not have, and add each
    cell's STATIC_NOTE, which says what stands in for them."""
    nb.metadata.pop("widgets", None)  # widget state would pull in a widget manager from a CDN
    nb.cells = [cell for cell in nb.cells if LIVE_ONLY not in cell.metadata.get("tags", [])]
    CoalesceStreamsPreprocessor().preprocess(nb, {})  # a text progress bar's redraws: its last state only
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = mathml(add_static_note(cell).source)
        for out in cell.get("outputs", []):
            figure = out.get("data", {}).get(PLOTLY_MIME)
            if figure is not None:
                out.data = {"text/html": pio.to_html(figure, include_plotlyjs=False, full_html=False,
                                                      validate=False, config=FIGURE_CONFIG)}
    return nb


def exporter(base: str, css: str = "", blocks: str = "", kind: type[HTMLExporter] = HTMLExporter,
             **options: object) -> HTMLExporter:
    """An nbconvert exporter of `kind` whose page extends nbconvert's template `base` without what it would fetch
    from other hosts (OFFLINE), with `css` and READABLE_CSS in its style sheet and the Jinja `blocks` added."""
    template = (f"{{%- extends '{base}' -%}}\n{OFFLINE}{{%- block html_head_css -%}}<style>{css}{READABLE_CSS}</style>"
                f"{{%- endblock html_head_css -%}}\n{blocks}")
    return kind(extra_loaders=[DictLoader({"spotlights.html.j2": template})], template_file="spotlights.html.j2",
                **options)


def ship_plotly(out_dir: Path) -> Path:
    """Write the plotly.js that ships with plotly's Python package to the site's root, once for every page."""
    target = out_dir / PLOTLY_JS
    target.write_text(get_plotlyjs(), encoding="utf-8")
    return target
