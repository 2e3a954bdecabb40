"""Build the offline site: every chapter and the explorer, executed, readable with no kernel and no network.

    python -m tools.build_site                      # all chapters, the explorer, slides and index into site/
    python -m tools.build_site --no-slides --out DIR notebooks/00_start_here.ipynb notebooks/explorer.ipynb
    python -m tools.build_site --no-pages notebooks/04_multi_head_attention.ipynb     # one deck alone, no index

Each notebook runs as a static build (tools.pages) once at reading sizes for its page, and once more in presenter
mode for its deck (tools.build_slides). The build prints its time and the size of the whole site, and fails on a
notebook that did not run, a live widget left blank without a kernel, or a site over MAX_SITE_MB.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError
from nbconvert.filters.markdown import markdown2html

from tools.build_slides import NpmMissingError, deck_file, ship_reveal, write_deck
from tools.chapters import ROOT, chapter_title, notebook_paths, reading_minutes
from tools.editions import build, stubs_in_place, with_folded_solutions, with_notes
from tools.pages import (
    PLOTLY_JS,
    REPOSITORY,
    SITE,
    docs_online,
    execute_static,
    exporter,
    page_title,
    prepare,
    ship_plotly,
)

MAX_SITE_MB = 20.0
BINDER = ("https://mybinder.org/v2/gh/several-spotlights/several-spotlights/HEAD"
          "?urlpath=lab/tree/notebooks/00_start_here.ipynb")
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def widget_cells(nb: nbformat.NotebookNode) -> list[int]:
    """Indexes of code cells that still show a live widget: a blank output where no kernel runs."""
    return [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            and any(WIDGET_MIME in out.get("data", {}) for out in cell.get("outputs", []))]


def write_page(nb: nbformat.NotebookNode, name: str, out_dir: Path) -> Path:
    """Write a prepared notebook as `out_dir/<name>.html`; links to other notebooks point at their pages, links to
    docs/ at the repository's copy."""
    resources = {"plotly_js": PLOTLY_JS, "metadata": {"name": page_title(name)}}
    body, _ = exporter("lab/index.html.j2").from_notebook_node(nb, resources=resources)
    target = out_dir / f"{name}.html"
    body = docs_online(body.replace('.ipynb"', '.html"'))
    target.write_text(body, encoding="utf-8")
    return target


def guide_minutes(notebook: Path) -> int:
    """A notebook's reading minutes as the instructor guide prints them (measured with its run time, in
    assets/notebooks.json); for a notebook not measured yet, its words counted now."""
    measured = ROOT / "assets" / "notebooks.json"
    rows = json.loads(measured.read_text(encoding="utf-8"))["notebooks"] if measured.exists() else {}
    return rows.get(notebook.name, {}).get("reading_minutes") or reading_minutes(notebook)


def write_index(pages: Sequence[tuple[Path, Path]], out_dir: Path) -> Path:
    """The site's front page: chapters (`pages` pairs each notebook with its page) with reading times and slides,
    and how to run the notebooks live."""
    rows = []
    for notebook, page in pages:
        slides = out_dir / "slides" / deck_file(page.stem)
        slide_link = f'<a href="slides/{slides.name}">slides</a>' if slides.exists() else ""
        number = page.stem[:2] if page.stem[:2].isdigit() else ""
        rows.append(f'<tr><td>{number}</td><td><a href="{page.name}">{html.escape(chapter_title(page.stem))}</a>'
                    f"</td><td>about {guide_minutes(notebook)} min</td><td>{slide_link}</td></tr>")
    index = out_dir / "index.html"
    index.write_text(HEAD.format(title="Several Spotlights") + INDEX.format(rows="\n".join(rows), binder=BINDER,
                                                                          repository=REPOSITORY), encoding="utf-8")
    return index


def write_guide(out_dir: Path) -> Path:
    """docs/instructor.md as `out_dir/instructor.html`, its sections listed at the top: a copy of the site taken to
    a class without a network has the guide too."""
    guide = out_dir / "instructor.html"
    text = markdown2html((ROOT / "docs" / "instructor.md").read_text(encoding="utf-8"))
    sections = re.findall(r'<h2 id="([^"]+)">(.*?)<a class="anchor-link"', text)
    contents = "".join(f'<li><a href="#{anchor}">{title}</a></li>' for anchor, title in sections)
    text = text.replace("</h1>", f"</h1><ul>{contents}</ul>", 1)
    guide.write_text(HEAD.format(title="Several Spotlights: instructor guide") + f"<body>{text}</body></html>\n",
                     encoding="utf-8")
    return guide


HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; }}
table {{ border-collapse: collapse; }}
td, th {{ padding: 0.3rem 0.8rem; border-bottom: 1px solid #ddd; text-align: left; }}
code {{ background: #f3f3f3; padding: 0.1rem 0.3rem; }}
pre {{ white-space: pre-wrap; overflow-wrap: anywhere; }}
.anchor-link {{ display: none; }}
</style></head>
"""
"""The top of the index and the guide's page."""
INDEX = """<body>
<h1>Several Spotlights</h1>
<p>Attention, the heart of every transformer, grown from one spotlight (one set of weights that adds up to
100%) to multi-head attention. These pages are the executed notebooks: read them, hover over the figures and
use the explorer's menus with no Python running. To change code and run it, open the notebooks live (below).</p>
<h2>Chapters</h2>
<table>
<tr><th>#</th><th>Chapter</th><th>Reading time</th><th>Slides</th></tr>
{rows}
</table>
<p>Reading times count the words of each notebook, as in the instructor guide; its lesson plans add half
again for questions and demos, and minutes for each exercise done in class.</p>
<h2>Run the notebooks yourself</h2>
<ul>
<li><strong>JupyterLab on your computer</strong>: <code>git clone {repository}</code>, then <code>make lab</code>
in the clone (Python 3.10+, git and make; it installs everything into <code>.venv</code>).</li>
<li><strong>Binder</strong>, nothing to install: <a href="{binder}">open the first chapter on Binder</a>
(1 CPU, shut down after about 10 minutes idle: download notebooks you changed).</li>
<li><strong>The notebooks alone</strong>: <a href="notebooks.zip">notebooks.zip</a> holds every chapter as
learners open it, each exercise a stub to fill in; open them wherever the notebooks run (any way in this list).</li>
<li><strong>A JupyterHub for a class</strong>: build the hub's image from the repository once; each student's
server then starts with the learner edition in their home, and the class link is the hub's address, as the
<a href="instructor.html">instructor guide</a> explains.</li>
</ul>
<p>Source, tests and instructor guide: <a href="{repository}">{repository}</a>.</p>
</body></html>
"""


def write_notebooks_zip(out_dir: Path) -> Path:
    """The learner edition (tools.editions: the chapters as learners open them) as out_dir/notebooks.zip."""
    with tempfile.TemporaryDirectory() as folder:
        build("learner", Path(folder) / "notebooks")
        return Path(shutil.make_archive(str(out_dir / "notebooks"), "zip", root_dir=folder, base_dir="notebooks"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapter and the explorer")
    parser.add_argument("--out", type=Path, default=SITE)
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--no-slides", action="store_true", help="pages only, no reveal.js decks")
    only.add_argument("--no-pages", action="store_true", help="decks only (OUT/slides), no pages, index or zip")
    args = parser.parse_args(argv)
    notebooks = [p.resolve() for p in args.notebooks] or notebook_paths("")
    stubs_in_place(notebooks)  # the pages fold the solutions, the decks show the stubs: not an answer typed live
    args.out.mkdir(parents=True, exist_ok=True)
    ship_plotly(args.out)
    if not args.no_slides:
        try:
            ship_reveal(args.out / "slides")
        except NpmMissingError as missing:
            raise SystemExit(f"error: {missing}") from None
    start, built, pages, blank, problems = time.perf_counter(), 0, [], [], []
    for path in notebooks:
        began, made = time.perf_counter(), []
        try:
            if not args.no_pages:
                nb = execute_static(path, edition=with_folded_solutions)
                blank += [f"{path.name} cell {i}" for i in widget_cells(nb)]
                pages.append((path, write_page(prepare(nb), path.stem, args.out)))
                made.append(pages[-1][1].name)
            if not args.no_slides:
                slides = execute_static(path, presenter=True, edition=with_notes)
                made.append(write_deck(slides, path.stem, args.out / "slides").relative_to(args.out).as_posix())
        except CellExecutionError as error:  # a timeout too: report it, build the rest, fail at the end
            problems.append(f"{path.name} did not run: {str(error).strip().splitlines()[-1]}")
            print(f"{path.name}: failed after {time.perf_counter() - began:.0f} s", flush=True)
            continue
        built += 1
        print(f"{path.name}: {time.perf_counter() - began:.0f} s -> {', '.join(made)}", flush=True)
    if not args.no_pages:
        print(f"index: {write_index(pages, args.out)}; guide: {write_guide(args.out)}; "
              f"notebooks: {write_notebooks_zip(args.out)}")
    size = sum(f.stat().st_size for f in args.out.rglob("*") if f.is_file()) / 1e6  # MB
    print(f"built {built} notebook{'s' * (built != 1)} in {time.perf_counter() - start:.0f} s (load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}); the site is {size:.1f} MB "
          f"(limit {MAX_SITE_MB:.0f} MB)")
    if size > MAX_SITE_MB:
        problems.append(f"the site is {size:.1f} MB, over the {MAX_SITE_MB:.0f} MB limit")
    if blank:
        problems.append("live widgets, blank without a kernel (give their factory a static copy, see "
                        f"helpers/static.py): {', '.join(blank)}")
    for problem in problems:
        print(f"error: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
