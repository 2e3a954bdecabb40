"""How fast the live views answer in a real browser: Chromium, JupyterLab, presenter mode at 1280x720.

    python -m benchmarks.browser_speed

Times the explorer's and chapter 4's updates in a JupyterLab of its own (tools/lab.py), from a pick in the page to
the new drawing's title on screen (time_views). Writes assets/explorer_browser_speed.json. Needs Debian's chromium
and Playwright for Python.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
from pathlib import Path

from benchmarks.measure import load
from benchmarks.report import explorer_block, widgets_block
from helpers.registry import heads_named, shipped
from tools.lab import jupyter_lab, notebook, open_page, run_all_cells

OUT = Path(__file__).resolve().parents[1] / "assets" / "explorer_browser_speed.json"
CELLS = ["import helpers\nfrom helpers.chapter_widgets import split_the_width\nfrom helpers.explorer import explore\n\n"
         "helpers.presenter_mode(True)", "explore()", "split_the_width()"]
TIME = """async ([root, control, option, title, drawing]) => {
    const box = document.querySelector(root);
    const shows = () => { const t = box.querySelectorAll('.spotlights-drawing .title')[drawing || 0];
                          return t && t.textContent.startsWith(title); };
    const start = performance.now();
    if (control === 'button') {
        Array.from(box.querySelectorAll('.widget-toggle-button')).find(b => b.textContent === option).click();
    } else {
        const select = Array.from(box.querySelectorAll('.widget-dropdown'))
            .find(d => d.querySelector('label').textContent.trim() === control).querySelector('select');
        select.value = Array.from(select.options).find(o => o.textContent.replace(/\\u00a0/g, ' ') === option).value;
        select.dispatchEvent(new Event('change', {bubbles: true}));
    }
    while (!shows()) {
        await new Promise(r => requestAnimationFrame(r));
        if (performance.now() - start > 30000) throw new Error(`${root} never showed ${title}`);
    }
    return performance.now() - start;
}"""
"""Pick `option` (a menu's label, or a toggle button's text for control 'button') in the widget `root`;
milliseconds until the title of its `drawing`-th drawing (default the first) starts with `title`."""


def time_views(page) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Every timing, and the load average (1, 5, 15 min) as each group of them started: a model switch (one head and
    four heads in turn), the first all-heads view after it, a head change, a focus word, and chapter 4's head-count
    buttons (every count twice; the first pass shows each grid for the first time)."""
    ex, split = ".attention-explorer", ".split-the-width"
    times: dict[str, list[float]] = {"model_switch": [], "all_heads_after_switch": [], "head_change": [],
                                     "focus_change": [], "chapter_4_click": []}
    loads = {"projector": load()}
    models = [(shipped("one_head").label, "one-head", "The one-head"),
              (shipped("four_heads").label, "4-head", "Every head")]
    for i in range(6):
        label, heads, whole = models[i % 2]  # whole: how the all-heads view's title starts
        page.evaluate(TIME, [ex, "head", "head 0", "Head 0"])
        times["model_switch"].append(page.evaluate(TIME, [ex, "model", label, f"Head 0 of the {heads}"]))
        times["all_heads_after_switch"].append(page.evaluate(TIME, [ex, "head", "all heads", whole]))
    loads["head_change"] = load()
    for i in range(1, 7):
        times["head_change"].append(page.evaluate(TIME, [ex, "head", f"head {i % 2}", f"Head {i % 2}"]))
    words = page.evaluate("() => Array.from(Array.from(document.querySelectorAll('.attention-explorer "
                          ".widget-dropdown')).find(d => d.querySelector('label').textContent.trim() === 'focus on')"
                          ".querySelector('select').options, o => o.textContent.replace(/\\u00a0/g, ' '))")
    for i in range(6):
        word = words[-1 - i % 2]
        times["focus_change"].append(page.evaluate(TIME, [ex, "focus on", word, f"Where '{word}'", 1]))
    loads["chapter_4"] = load()
    for _ in range(2):
        for heads in (1, 2, 4, 8, 16):
            title = heads_named(heads, "untrained")
            times["chapter_4_click"].append(page.evaluate(TIME, [split, "button", str(heads), title]))
    return times, loads


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()  # only --help
    if (chromium := shutil.which("chromium")) is None:
        raise SystemExit("Debian's chromium is needed: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        notebook(root, CELLS, "speed.ipynb")
        with jupyter_lab(root, Path(tmp)) as (base, token), open_page(chromium, 1280, 720, 120_000) as (page, _):
            page.goto(f"{base}/lab/tree/speed.ipynb?token={token}")
            run_all_cells(page)
            page.wait_for_selector(".split-the-width .spotlights-drawing svg")
            times, loads = time_views(page)
    result = {f"{name}_median_ms": round(statistics.median(values), 1) for name, values in times.items()}
    result |= {"model_switch_first_ms": round(times["model_switch"][0], 1),
               "chapter_4_click_first_ms": round(max(times["chapter_4_click"][:5]), 1),
               "what": "time from a pick in JupyterLab to the new drawing's title on screen",
               "projector_note": "presenter mode, 1280x720, medians of 6 (model switch: one head and four heads in "
                                 "turn; all heads: the first after each switch; chapter 4: 10 clicks, two passes)",
               "load_average_1_5_15": loads}
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(explorer_block(), widgets_block(), sep="\n\n")


if __name__ == "__main__":
    main()
