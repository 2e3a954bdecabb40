"""A JupyterLab server of the maintainers' own on 127.0.0.1, driven in Chromium: for the browser tests
(tests/browser) and the browser benchmark (benchmarks/browser_speed.py). `open_page` opens Debian's chromium
headless without background traffic (CHROMIUM_FLAGS); `run_all_cells` runs a notebook through JupyterLab's own
command."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nbformat

from tools.chapters import NOTEBOOKS, ROOT

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    """A port nothing listens on at 127.0.0.1 (the system picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(cmd: list[str], status_url: str, log: Path, **popen: object) -> Iterator[None]:
    """Run the server `cmd` (its output in `log`) until `status_url` answers, 60 s at most; always stopped."""
    with log.open("w") as out:
        server = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, **popen)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(status_url, timeout=2):
                        break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"{cmd[0]} did not start:\n{log.read_text()[-3000:]}") from None
                    time.sleep(0.5)
            yield
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


@contextmanager
def jupyter_lab(root: Path, home: Path, settings: dict[str, dict] | None = None) -> Iterator[tuple[str, str]]:
    """A JupyterLab server over the folder `root` (its settings and logs in `home`), always stopped; yields (base
    URL, token). `settings` maps a settings file (e.g. "@jupyterlab/notebook-extension/tracker") to its values."""
    files = {"@jupyterlab/apputils-extension/notification": {"fetchNews": "false"},  # no news pop-up over the page
             **(settings or {})}
    for name, values in files.items():
        path = home / "settings" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port, token = free_port(), secrets.token_hex(16)
    # the checkout's labextension (widgets in RISE slides), which an editable install does not put in the venv
    (home / "data" / "labextensions").mkdir(parents=True, exist_ok=True)
    (home / "data" / "labextensions" / "several-spotlights-rise").symlink_to(ROOT / "labextension")
    env = {**os.environ, "JUPYTER_PATH": os.pathsep.join(filter(None, [str(home / "data"), os.environ.get(
               "JUPYTER_PATH")])), "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"), "JUPYTER_RUNTIME_DIR": str(home / "runtime")}
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
           "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           "--LabApp.extension_manager=readonly", "--allow-root"]
    base = f"http://127.0.0.1:{port}"
    with serving(cmd, f"{base}/api/status?token={token}", home / "lab.log", cwd=root, env=env):
        yield base, token


@contextmanager
def open_page(chromium: str, width: int, height: int, timeout_ms: int) -> Iterator[tuple]:
    """(page, errors): Debian's chromium on one page of width x height, each wait `timeout_ms` at most, closed
    afterwards; `errors` collects the page's uncaught errors and console errors, to print when a test fails."""
    from playwright.sync_api import sync_playwright  # imported here: the browser tests skip without it

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.set_default_timeout(timeout_ms)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)[:300]))
            page.on("console", lambda m: errors.append(m.text[:300]) if m.type == "error" else None)
            yield page, errors
        finally:
            browser.close()


def notebook(folder: Path, cells: list[str], name: str = "views.ipynb") -> Path:
    """A notebook of `cells`, each a slide (for RISE), with the chapters' own notebook metadata."""
    slide = {"slideshow": {"slide_type": "slide"}}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code, metadata=slide) for code in cells])
    nb.metadata = nbformat.read(NOTEBOOKS / "04_multi_head_attention.ipynb", as_version=4).metadata
    nbformat.write(nb, folder / name)
    return folder / name


def run_all_cells(page) -> None:
    """Run every cell through JupyterLab's own command, then wait for the kernel to finish."""
    page.wait_for_function(
        "() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'",
        timeout=120_000,  # waits, not timed asserts: a busy machine starts a kernel slowly
    )
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(
        """() => {
            const nb = window.jupyterapp.shell.currentWidget;
            const cells = nb.content.widgets.filter(c => c.model.type === 'code');
            const failed = cells.some(c => Array.from({length: c.model.outputs.length},
                                                      (_, k) => c.model.outputs.get(k).type).includes('error'));
            return failed || (cells.every(c => c.model.executionCount !== null)
                              && nb.sessionContext.session.kernel.status === 'idle');
        }""",
        timeout=180_000,
    )
    states = page.evaluate(CELL_STATES)
    errors = [o for cell in states for o in cell["outputs"] if o.startswith(("error", "stderr"))]
    assert not errors, f"a notebook cell failed or warned in JupyterLab: {errors}"


CELL_STATES = """() => {
    const nb = window.jupyterapp?.shell.currentWidget;
    if (!nb?.content) return 'no notebook open';
    return nb.content.widgets.filter(c => c.model.type === 'code').map(c => ({
        count: c.model.executionCount,
        outputs: Array.from({length: c.model.outputs.length}, (_, k) => c.model.outputs.get(k).toJSON())
            .map(o => o.output_type === 'error' ? 'error ' + o.ename + ': ' + o.evalue
                 : o.output_type === 'stream' ? o.name + ' ' + String(o.text).slice(0, 300) : o.output_type),
    }));
}"""
