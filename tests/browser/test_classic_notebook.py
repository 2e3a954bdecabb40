"""The live views at Colab's versions: classic Notebook 6.5 with ipywidgets 7, plotly 5 and anywidget 0.9.

`.venv-colab/` holds Colab's versions with the package installed as a wheel would be (`make colab-env` builds it;
skipped where missing, failed under CI=true). In Chromium the test switches the explorer's model and head and reads
what its heatmap shows, then presses a chapter widget's button.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
from pathlib import Path

from helpers.chapter_widgets.playground import CLUE_BOOST
from helpers.registry import shipped
from tests.browser.support import ROOT, SCREENSHOTS, drawn, free_port, need, notebook, open_page, pick, serving, tooltip

COLAB = ROOT / ".venv-colab"
CELLS = ["import torch\nfrom helpers.chapter_widgets import spotlight_playground\nfrom helpers.explorer import explore",
         "explore()",
         'words = "the animal that crossed the wet street".split()\n'
         'spotlight_playground(words, torch.randn(7, 5), list("abcde"), ["animal", "crossed", "wet"])']
DONE = """() => Jupyter.notebook.kernel && Jupyter.notebook.kernel._msg_callbacks !== undefined
    && Jupyter.notebook.get_cells().every(c => c.cell_type !== 'code' || typeof c.input_prompt_number === 'number')
    && !document.querySelector('.output_error, .output_stderr')"""


def test_explorer_and_a_chapter_widget_in_classic_notebook_with_ipywidgets_7(chromium: str, tmp_path: Path) -> None:
    from playwright.sync_api import TimeoutError as Waited

    need("the classic-notebook venv .venv-colab (make colab-env)", not (COLAB / "bin" / "jupyter-notebook").exists())
    notebook(tmp_path, CELLS, "classic.ipynb")
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt")}
    command = [str(COLAB / "bin" / "jupyter-notebook"), "--no-browser", "--ip=127.0.0.1", f"--port={port}",
               f"--NotebookApp.token={token}", f"--notebook-dir={tmp_path}", "--allow-root"]
    base = f"http://127.0.0.1:{port}"
    with (serving(command, f"{base}/api/status?token={token}", tmp_path / "notebook.log", env=env),
          open_page(chromium, 1280, 900, 120_000) as (page, errors)):
        try:
            page.goto(f"{base}/notebooks/classic.ipynb?token={token}")
            page.wait_for_function("() => window.Jupyter?.notebook?.kernel?.is_connected()")
            # ipywidgets 7 first restores the kernel's widgets (here it falls back from its control channel,
            # and says so); a widget opened meanwhile can be built twice, one copy deaf to the kernel, so
            # cells run once that is done, as a learner's first click comes later anyway
            with contextlib.suppress(Waited):
                page.wait_for_event("console", lambda m: "jupyter.widget.control" in m.text, timeout=15_000)
            page.evaluate("() => Jupyter.notebook.execute_all_cells()")
            page.wait_for_function(DONE)
            ex = ".attention-explorer"
            first = drawn(page, ex, "Head 0 of the 4-head model")[0]
            one = pick(page, ex, "model", shipped("one_head").label, "Head 0 of the one-head model")[0]
            assert one["x"] == first["x"] and one["cells"] != first["cells"], "the one-head model drew no change"
            pick(page, ex, "model", shipped("four_heads").label)
            head_3 = pick(page, ex, "head", "head 3", "Head 3 of the 4-head model")[0]
            assert head_3["cells"] != first["cells"] and head_3["x"] == first["x"]
            assert tooltip(page, ex, "rect[data-r='2'][data-c='1']").startswith(f"'{first['y'][2]}' looks at")
            page.locator(".spotlight-playground button", has_text="three clues").click()
            share = f"{math.exp(CLUE_BOOST) / (3 * math.exp(CLUE_BOOST) + 4):.1%}"  # 3 clues, 4 other words
            page.wait_for_function("(share) => document.querySelector('.spotlight-playground .spotlights-drawing')"
                                   ".textContent.split(share).length === 4", arg=share)
        except Exception:
            print("\nconsole errors:", errors[-10:])
            raise
        finally:
            page.screenshot(path=str(SCREENSHOTS / "classic-notebook.png"), full_page=True)
