"""The notebooks' one run under nbval: after each cell this plugin fails it when it printed to stderr, a line
longer than PRINTOUT_WIDTH, or other text than tests/expected_outputs records; it keeps the executed notebook for
the browser tests and counts the runs (docs/architecture.md, "How the suite runs notebooks", tells the rest).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import uuid
from collections import Counter
from pathlib import Path

import nbformat
import pytest
from nbval.plugin import IPyNbCell

from tools.refresh_outputs import checked_text, is_checked, load_expected

PRINTOUT_WIDTH = 100
"""Characters a printed line may have: JupyterLab's output area shows about 107 unwrapped at 1280x720 in
presenter mode."""
_OWN_RUN = uuid.uuid4().hex


def runs() -> Path:
    """The folder of this test run's executed notebooks (xdist's workers share the run's id)."""
    return Path(tempfile.gettempdir(), "several-spotlights-runs", os.environ.get("PYTEST_XDIST_TESTRUNUID", _OWN_RUN))


def count_run(path: Path, mode: str) -> None:
    """Note that `path` ran in `mode` outside nbval (tests/conftest.py's `executed`), for the summary."""
    marks = runs() / "counted"
    marks.mkdir(parents=True, exist_ok=True)
    (marks / f"{mode}--{path.name}--{uuid.uuid4().hex}").touch()


def executed_copy(path: Path, mode: str = "reading") -> Path:
    """Where this run keeps `path` executed in `mode` ("reading": nbval's run; "presenter": tests/conftest.py's),
    in a folder named by the notebook's content."""
    return runs() / mode / hashlib.sha256(path.read_bytes()).hexdigest()[:16] / path.name


def problems(item: IPyNbCell) -> list[str]:
    """What is wrong with what one cell showed, in words (nothing when all is well)."""
    found = []
    for out in item.test_outputs or []:
        if out.output_type == "stream" and out.name == "stderr":
            found.append(f"it printed to stderr: {out.text[:300]!r}")
        elif out.output_type == "stream":
            found += [f"a printed line of {len(line)} characters (at most {PRINTOUT_WIDTH}): {line[:60]}..."
                      for line in out.text.splitlines() if len(line.rsplit("\r", 1)[-1]) > PRINTOUT_WIDTH]
    if is_checked(item.cell):
        shown = checked_text(nbformat.from_dict({"outputs": item.test_outputs or []}))
        expected = load_expected(Path(item.path)).get(item.cell.id)  # None: not recorded (test_project_files)
        if shown != expected:
            found.append(f"it printed other text than recorded (python -m tools.refresh_outputs records it):\n"
                         f"  expected: {expected!r}\n  got:      {shown!r}")
    return found


def _save(item: IPyNbCell) -> None:
    """Keep the cell's outputs; after the notebook's last cell, write the executed notebook."""
    item.cell.outputs = [nbformat.from_dict(dict(out)) for out in item.test_outputs or []]
    item.cell.execution_count = item.cell_num + 1
    for out in item.cell.outputs:
        if out.output_type == "execute_result":
            out.execution_count = item.cell.execution_count
    if item.cell_num == sum(cell.cell_type == "code" for cell in item.parent.nb.cells) - 1:
        target = executed_copy(Path(item.path))
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(item.parent.nb, target)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    result = yield
    if isinstance(item, IPyNbCell):
        found = problems(item)
        _save(item)
        if found:
            raise AssertionError(f"{Path(item.path).name}, code cell {item.cell_num}: " + "\n".join(found))
    return result


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Under xdist, give the controller and its workers one run id (xdist's documented --testrunuid), so that
    they share one folder of executed notebooks."""
    if getattr(config.option, "testrunuid", "absent") is None and not os.environ.get("PYTEST_XDIST_WORKER"):
        config.option.testrunuid = os.environ.setdefault("PYTEST_XDIST_TESTRUNUID", _OWN_RUN)


_NBVAL_RUNS: Counter[str] = Counter()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Count nbval's runs: a notebook's first cell starts one (the controller sees every worker's reports)."""
    if report.when == "call" and report.nodeid.endswith(".ipynb::Cell 0"):
        _NBVAL_RUNS[report.nodeid.split("::")[0].rsplit("/", 1)[-1]] += 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    others = Counter(" ".join(mark.name.split("--")[:2]) for mark in (runs() / "counted").glob("*--*--*"))
    if not _NBVAL_RUNS and not others:
        return
    line = ", ".join(f"{n} notebook(s) {k} time(s)" for k, n in sorted(Counter(_NBVAL_RUNS.values()).items())) or "none"
    terminalreporter.write_line(f"notebook runs: nbval ran {line}" + (
        f"; the browser tests ran {sum(others.values())} more ({', '.join(sorted(others))})" if others else ""))


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """Keep each notebook's cells on one worker: plain `-n N` means `--dist load`, which would split them."""
    if config.getoption("dist") in ("load", "worksteal"):
        from xdist.scheduler import LoadFileScheduling

        return LoadFileScheduling(config, log)
    return None


def pytest_unconfigure(config: pytest.Config) -> None:
    """The controller (or the one process) removes the run's executed notebooks at the very end."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        shutil.rmtree(runs(), ignore_errors=True)
