"""`make test` runs on pytest-xdist workers: the tests that share one run of a notebook (or of the site build)
must land on the worker that made it, and each worker must run on a CPU of its own."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def conftest():
    """tests/conftest.py as a module of its own name (pytest has already imported it as "conftest")."""
    spec = importlib.util.spec_from_file_location("spotlights_conftest", ROOT / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("nodeid", "group"), [
    ("notebooks/05_train_and_compare.ipynb::Cell 3", "notebooks"),
    ("notebooks/explorer.ipynb::Cell 0", "notebooks"),
    ("tests/test_checked_outputs.py::test_notebook_prints_the_recorded_checked_outputs[05_train_and_compare]",
     "notebooks"),
    ("tests/test_clean_outputs.py::test_run_all_shows_no_error_and_no_stderr[00_start_here.ipynb]", "notebooks"),
    ("tests/test_site.py::test_build_reports_time_and_size_under_the_limit", "site"),
    ("tests/test_grade.py::test_the_master_gets_full_marks", "grade"),
    ("tests/test_compare.py::test_scoreboard_heatmap_shows_chance_then_each_model", None),
    ("tests/test_notebooks_folder.py::test_x", None),
    ("student/02_queries_keys_values.ipynb::Cell 4", "student/02_queries_keys_values.ipynb"),
])
def test_tests_sharing_a_run_are_one_unit_of_work(conftest, nodeid: str, group: str | None) -> None:
    assert conftest.shared_run(nodeid) == group


def test_make_test_spreads_the_suite_over_workers_and_make_check_does_not() -> None:
    makefile = (ROOT / "Makefile").read_text()
    test_rule = makefile.split("\ntest: install\n", 1)[1].split("\n\n", 1)[0]
    check_rule = makefile.split("\ncheck: install", 1)[1].split("\n\n", 1)[0]
    assert "-n auto" in test_rule and "-n " not in check_rule


@pytest.mark.skipif(not os.environ.get("PYTEST_XDIST_WORKER"), reason="runs only on a pytest-xdist worker")
def test_a_worker_runs_on_one_cpu_with_one_torch_thread() -> None:
    import torch

    import helpers  # noqa: F401  (importing helpers applies the thread policy)

    assert len(os.sched_getaffinity(0)) == 1 and torch.get_num_threads() == 1
