"""The offline site builds quickly and needs nothing from another host (tests/browser checks it in Chromium)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from classroom.hub import SetupError, proxy_command
from helpers.explorer import explore
from helpers.static import STATIC_ENV, live_only
from helpers.train import _progress_bar
from tools import build_slides
from tools.build_site import WIDGET_MIME
from tools.chapters import NOTEBOOKS, ROOT, notebook_paths
from tools.chapters import SITE_SAMPLE as BUILD
from tools.pages import LIVE_ONLY, STATIC_NOTE, mathml, page_title, prepare


def test_pages_share_one_plotly(built_site) -> None:
    """One plotly.js for the whole site. That pages draw their figures with no request to another host, the
    browser test checks in Chromium; that no live widget is left, the build itself (built_site fails if not)."""
    out = built_site.folder
    plotly_js = out / "plotly.min.js"
    assert plotly_js.stat().st_size > 1_000_000, "the site's own copy of plotly.js is missing"
    for page in (out / f"{nb.stem}.html" for nb in BUILD):
        text = page.read_text()
        assert '<script src="plotly.min.js"></script>' in text, f"{page.name} does not load the shared plotly.js"
        assert "window.PlotlyConfig" not in text and text.count("plotly.js v") == 0, f"{page.name} inlines plotly.js"
    explorer = (out / "explorer.html").read_text()
    assert explorer.count("data-height=") >= 1, "the explorer cell is drawn as its static copy, with its menus"


def test_index_lists_chapters_with_reading_times_how_to_run_and_the_learner_edition(built_site) -> None:
    out = built_site.folder
    index = (out / "index.html").read_text()
    for nb in BUILD:
        assert f'href="{nb.stem}.html"' in index
    guide = json.loads((ROOT / "assets" / "notebooks.json").read_text())["notebooks"][BUILD[0].name]
    assert f"about {guide['reading_minutes']} min" in index, "reading time as the instructor guide prints it"
    for way in ("make lab", "mybinder.org", "JupyterHub", 'href="instructor.html"', 'href="notebooks.zip"'):
        assert way in index, f"the index does not say how to run the notebooks with {way}"
    guide = (out / "instructor.html").read_text()
    assert '<li><a href="#A-whole-class-on-a-JupyterHub">' in guide, "the guide, offline, its sections listed"
    names = zipfile.ZipFile(out / "notebooks.zip").namelist()
    assert "notebooks/01_one_spotlight.ipynb" in names and "notebooks/explorer.ipynb" in names


def test_build_reports_time_and_size_under_the_limit(built_site) -> None:
    out, stdout = built_site.folder, built_site.output
    reported = re.search(r"the site is ([\d.]+) MB \(limit (\d+) MB\)", stdout)
    assert reported, stdout
    measured = sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) / 1e6
    assert abs(float(reported[1]) - measured) < 0.1 and measured <= float(reported[2])
    assert re.search(r"built \d+ notebooks? in \d+ s", stdout)


def test_explorer_displays_its_static_copy_in_static_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    explorer = explore("four_heads")
    assert WIDGET_MIME in explorer._repr_mimebundle_(), "outside a static build the explorer is a live widget"
    monkeypatch.setenv(STATIC_ENV, "1")
    bundle = explorer._repr_mimebundle_()
    assert WIDGET_MIME not in bundle
    assert bundle["text/html"].count("<option value='3'>head 3</option>") == 1, "the static copy offers 4 heads"
    explorer.set_head(2)
    assert explorer.head == 2, "the explorer still works from code in a static build"


def test_progress_is_plain_text_on_stdout_in_static_builds_and_a_page_shows_its_last_state(monkeypatch, capsys) -> None:
    monkeypatch.setenv(STATIC_ENV, "1")
    bar = _progress_bar(total=3, desc="1 head", disable=False)
    bar.update(2), bar.update(1), bar.close()
    printed = capsys.readouterr().out
    assert "1 head: 100%" in printed and "3/3" in printed and printed.count("\r") >= 2, printed
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("train()")])
    redraws = [*re.split("(?=\r)", printed), "done\n"]  # the bar's redraws, then what the cell prints after it
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text=t) for t in redraws]
    (shown,) = prepare(nb).cells[0].outputs
    assert shown.text == printed.rsplit("\r", 1)[1] + "done\n", "a page shows the bar's last redraw alone"


def test_every_notebooks_math_converts_to_mathml() -> None:
    for path in notebook_paths(""):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown" and "$" in cell.source:
                converted = mathml(cell.source)
                assert "$" not in converted and "<math" in converted, f"{path.name}: math left as TeX"


def test_live_only_controls_name_themselves_in_static_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    control = object()
    assert live_only(control, "An upload button") is control
    monkeypatch.setenv(STATIC_ENV, "1")
    shown = live_only(control, "An upload button")
    assert "An upload button" in shown._repr_html_() and "JupyterLab" in shown._repr_html_()


def test_a_failing_notebook_and_a_live_widget_are_reported_and_fail_the_build(tmp_path: Path) -> None:
    """One build of three small notebooks (a build starts Python and a kernel, so one build checks both faults)."""
    good, bad, widget = tmp_path / "good.ipynb", tmp_path / "bad.ipynb", tmp_path / "widget.ipynb"
    for path, code in ((good, "print('fine')"), (bad, "1 / 0"), (widget, "import ipywidgets\nipywidgets.IntSlider()")):
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), path)
    command = [sys.executable, "-m", "tools.build_site", "--no-slides", "--out", str(tmp_path / "site"),
               str(bad), str(good), str(widget)]
    build = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert build.returncode == 1, build.stdout + build.stderr
    assert "error: bad.ipynb did not run" in build.stdout and "ZeroDivisionError" in build.stdout, build.stdout
    assert "live widgets, blank without a kernel" in build.stdout and "widget.ipynb cell 0" in build.stdout
    assert "good.ipynb cell" not in build.stdout, "a notebook with no widget is not reported"
    assert (tmp_path / "site" / "good.html").exists(), "the other notebooks are still built"


def test_pages_and_decks_are_titled_by_their_chapter() -> None:
    assert page_title("03_one_spotlight_is_not_enough") == "Chapter 3: One spotlight is not enough - Several Spotlights"
    assert page_title("explorer") == "The attention explorer - Several Spotlights"


def test_cells_about_live_controls_are_left_out_of_static_builds() -> None:
    """A static copy lacks the live widget's controls, so text that describes only those (chapter 6's words on
    the explorer's live controls) is not shown with it, and what stands in for them (chapter 1's menus) is."""
    nb = nbformat.read(NOTEBOOKS / "06_meet_the_detectives.ipynb", as_version=4)
    kept = [cell.id for cell in nb.cells if LIVE_ONLY not in cell.metadata.get("tags", [])]
    assert "ch06-live-controls" not in kept, "the words on the explorer's live controls are not tagged live-only"
    assert [cell.id for cell in prepare(nb).cells] == kept
    def chapter_1() -> nbformat.NotebookNode:  # what stands in for its controls: on pages and decks, once
        return nbformat.read(NOTEBOOKS / "01_one_spotlight.ipynb", as_version=4)
    noted = {cell.id: cell.metadata[STATIC_NOTE] for cell in chapter_1().cells if STATIC_NOTE in cell.metadata}
    def shown_once(cells: list) -> bool:
        return bool(noted) and all(c.source.endswith(noted[c.id]) and c.source.count(noted[c.id]) == 1
                                   for c in cells if c.id in noted)
    deck = build_slides.deck_cells(chapter_1())
    assert shown_once(deck), "a deck adds the note before its slides are cut to fit, so that the cut counts it"
    assert shown_once(prepare(chapter_1()).cells) and shown_once(prepare(nbformat.v4.new_notebook(cells=deck)).cells)


def test_a_deck_shows_a_folded_cells_output_without_its_code() -> None:
    """Chapter 3's say-cell only formats a printout: JupyterLab folds its code, and so does the deck."""
    nb = nbformat.read(NOTEBOOKS / "03_one_spotlight_is_not_enough.ipynb", as_version=4)
    folded = [cell.id for cell in nb.cells if cell.metadata.get("jupyter", {}).get("source_hidden")
              and LIVE_ONLY not in cell.metadata.get("tags", [])]
    shown = {cell.id: cell for cell in build_slides.deck_cells(nb)}
    assert folded and all(shown[i].source == "" and shown[i].metadata.transient.remove_source for i in folded)


def test_without_npm_the_decks_and_the_hub_name_what_to_install(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(build_slides, "NPM_DIR", tmp_path)  # nothing installed yet
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(build_slides.NpmMissingError, match=r"Node\.js with npm"):
        build_slides.ship_reveal(tmp_path / "slides")
    with pytest.raises(SetupError, match=r"Node\.js with npm"):
        proxy_command()
