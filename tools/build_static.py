"""Build an executed HTML copy of every chapter, for reading without a kernel or presenting offline.

    python tools/build_static.py            # all chapters into site/
    python tools/build_static.py --out DIR notebooks/00_start_here.ipynb

Plotly figures are embedded with plotly.js inline (no internet needed to view them).
"""

from __future__ import annotations

import argparse
import html
import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parents[1]
# plotly_mimetype for JupyterLab, notebook = HTML with plotly.js inline for the static page
RENDERER = "plotly_mimetype+notebook"


def build_one(path: Path, out_dir: Path, timeout: int = 600) -> Path:
    """Execute one notebook in its folder and write it as a standalone HTML page."""
    os.environ["PLOTLY_RENDERER"] = RENDERER  # read by plotly when the kernel imports it
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    target = out_dir / f"{path.stem}.html"
    target.write_text(body.replace('.ipynb"', '.html"'), encoding="utf-8")
    return target


def write_index(pages: list[Path], out_dir: Path) -> Path:
    links = "\n".join(f'<li><a href="{p.name}">{html.escape(p.stem.replace("_", " "))}</a></li>' for p in pages)
    index = out_dir / "index.html"
    index.write_text(f"<!doctype html><title>Several Spotlights</title><h1>Several Spotlights</h1>"
                     f"<ol start=0>{links}</ol>\n", encoding="utf-8")
    return index


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "site")
    args = parser.parse_args()
    notebooks = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    args.out.mkdir(parents=True, exist_ok=True)
    pages = []
    for nb in notebooks:
        pages.append(build_one(nb.resolve(), args.out))
        print(f"built {pages[-1]}")
    print(f"index: {write_index(pages, args.out)}")


if __name__ == "__main__":
    main()
