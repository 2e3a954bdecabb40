"""What the site's pages and the slide decks share: a notebook run as a static build, made self-contained.

A static build runs a notebook with SPOTLIGHTS_STATIC=1 (helpers.static), so every widget comes out as its
static copy and every plotly figure as JSON; `prepare` then draws figures with the site's one plotly.min.js
and turns math into MathML, so a page asks no other host for anything. `tools.build_site` writes pages from
it and `tools.build_slides` writes reveal.js decks from the same run.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import nbformat
import plotly
import plotly.io as pio
from jinja2 import DictLoader
from latex2mathml.converter import convert as latex_to_mathml
from nbconvert import HTMLExporter
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

from helpers.static import STATIC_ENV
from tools.chapters import ROOT, execute

SITE = ROOT / "site"
PLOTLY_JS = "plotly.min.js"
CELL_TIMEOUT = 900  # seconds one cell may take: generous, since CI and shared machines can be slow
PLOTLY_MIME = "application/vnd.plotly.v1+json"
PLOTLY_LOADER = "window.PlotlyConfig"
"""Marks the output in which plotly's "notebook" renderer loads its own copy of plotly.js."""

_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$([^$\n]+?)\$")


def mathml(markdown: str) -> str:
    """`markdown` with every $$display$$ and $inline$ formula replaced by MathML, which browsers draw."""
    markdown = _DISPLAY_MATH.sub(lambda m: latex_to_mathml(m[1].strip(), display="block"), markdown)
    return _INLINE_MATH.sub(lambda m: latex_to_mathml(m[1].strip()), markdown)


def execute_static(path: Path) -> nbformat.NotebookNode:
    """Run one notebook top to bottom as a static build: widgets give their static copies, plotly its JSON."""
    os.environ[STATIC_ENV] = "1"  # the kernel inherits this process's environment
    os.environ["PLOTLY_RENDERER"] = "plotly_mimetype"  # figure JSON only; the page draws it with shared plotly.js
    return execute(path, timeout=CELL_TIMEOUT)


def prepare(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Make an executed notebook need nothing from outside: figures drawn by shared plotly.js, math as MathML."""
    nb.metadata.pop("widgets", None)  # widget state would pull in a widget manager from a CDN
    CoalesceStreamsPreprocessor().preprocess(nb, {})  # a text progress bar's redraws: its last state only
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = mathml(cell.source)
        if cell.cell_type == "code":  # plotly's "notebook" renderer shows a copy of plotly.js: the site has one
            cell.outputs = [o for o in cell.outputs if PLOTLY_LOADER not in o.get("data", {}).get("text/html", "")]
        for out in cell.get("outputs", []):
            figure = out.get("data", {}).get(PLOTLY_MIME)
            if figure is not None:
                out.data = {"text/html": pio.to_html(figure, include_plotlyjs=False, full_html=False,
                                                      validate=False, config={"displaylogo": False})}
    return nb


def exporter(template: str, kind: type[HTMLExporter] = HTMLExporter, **options: object) -> HTMLExporter:
    """An nbconvert exporter of `kind` whose page is `template` (Jinja source extending one of nbconvert's)."""
    return kind(extra_loaders=[DictLoader({"spotlights.html.j2": template})], template_file="spotlights.html.j2",
                **options)


def ship_plotly(out_dir: Path) -> Path:
    """Copy the plotly.js that ships with plotly's Python package to the site's root, once for every page."""
    target = out_dir / PLOTLY_JS
    shutil.copyfile(Path(plotly.__file__).parent / "package_data" / PLOTLY_JS, target)
    return target
