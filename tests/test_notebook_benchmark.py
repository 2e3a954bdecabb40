"""The notebook benchmark's pieces: CPU shares, per-cell times, busy loops that always stop, the table, its targets."""

from __future__ import annotations

import argparse
import os
from fractions import Fraction

import nbformat
import psutil
import pytest

from benchmarks import notebook_memory as bench
from benchmarks.measure import cpu_share, parse_share


def test_parse_share_reads_one_over_a_whole_number_and_refuses_other_shares() -> None:
    assert [parse_share(t) for t in ("1", "0.5", "0.33", "0.25")] == [1, Fraction(1, 2), Fraction(1, 3), Fraction(1, 4)]
    for text in ("0", "0.4", "2", "half", "-0.5", "0.05"):
        with pytest.raises(argparse.ArgumentTypeError, match="one over a whole number"):
            parse_share(text)


def _timed(seconds: float) -> dict:
    return {"execution": {"iopub.status.busy": "2026-12-01T10:00:00.000000Z",
                          "iopub.status.idle": f"2026-12-01T10:00:{seconds:09.6f}Z"}}


def test_slowest_cells_count_every_cell_and_skip_injected_and_untimed_ones() -> None:
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# title"),
        nbformat.v4.new_code_cell("a", metadata=_timed(1.5)),
        nbformat.v4.new_code_cell("b", metadata=_timed(31.25)),
        nbformat.v4.new_code_cell("c"),  # not run
        nbformat.v4.new_code_cell("peak", metadata=_timed(40.0) | {"tags": ["injected"]}),
        nbformat.v4.new_code_cell("d", metadata=_timed(3.0)),
    ])
    assert bench.slowest_cells(nb, keep=9) == [{"index": 2, "seconds": 31.2}, {"index": 5, "seconds": 3.0},
                                               {"index": 1, "seconds": 1.5}]
    assert bench.slowest_cells(nb, keep=2) == [{"index": 2, "seconds": 31.2}, {"index": 5, "seconds": 3.0}]


def _busy_loops() -> list[psutil.Process]:
    return [child for child in psutil.Process().children() if "getppid" in " ".join(child.cmdline())]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs Linux CPU affinity")
def test_cpu_share_pins_to_one_core_and_always_stops_its_busy_loops() -> None:
    cores = os.sched_getaffinity(0)
    with pytest.raises(RuntimeError, match="inside"), cpu_share(Fraction(1, 3)):
        assert len(os.sched_getaffinity(0)) == 1
        loops = _busy_loops()
        assert len(loops) == 2 and all(loop.cpu_affinity() == [max(cores)] for loop in loops)
        raise RuntimeError("inside")
    assert _busy_loops() == [] and not any(loop.is_running() for loop in loops) and os.sched_getaffinity(0) == cores


def _row(seconds: float, cell: float, load: float, share: float = 1.0) -> dict:
    return {"peak_mb": 500.0, "seconds": seconds, "cpu_share": share, "torch_threads": 1, "reading_minutes": 9,
            "slowest_cells": [{"index": 18, "seconds": cell}], "load_average_1min": [load, load + 0.5]}


def test_the_timing_table_shows_the_whole_machine_and_half_a_cpu_side_by_side(monkeypatch) -> None:
    from benchmarks import report

    results = {"cpus": 2, "target_mb": 600, "chapter_target_s": 90, "cell_target_s": 30, "words_per_minute": 180,
               "notebooks": {"05_train_and_compare.ipynb": _row(20.0, 8.0, 0.3)},
               "cpu_shares": {"0.5": {"cpu_share": 0.5, "notebooks": {
                   "05_train_and_compare.ipynb": _row(61.0, 24.0, 2.1, share=0.48),
                   "06_meet_the_detectives.ipynb": _row(40.0, 31.0, 2.1, share=0.48),  # one cell over its target
                   "07_the_transformer_block.ipynb": _row(95.0, 12.0, 2.2, share=0.47)}}}}  # the whole chapter over
    monkeypatch.setattr(report, "_load", lambda name: results if name == "notebooks.json" else None)
    rows = {row[1]: row[2:] for line in report.timing_block().splitlines() if line.startswith("| ")
            for row in [[cell.strip() for cell in line.split("|")]]}
    assert rows["Train and compare"][1:4] == ["20 s", "61 s", "cell 18: 24 s"]
    assert "95 s" in rows["The transformer block"] and "20 s" not in rows["The transformer block"]
    def verdict(target: str) -> str:  # a target's verdict in the notes under the table
        return report.timing_block().split(target)[1].split(".")[0]

    assert verdict("Target at half a CPU").endswith("NOT met by Meet the detectives, The transformer block")
    assert "NOT" not in verdict("Memory target")
    results["cpu_shares"]["0.5"]["notebooks"]["05_train_and_compare.ipynb"]["peak_mb"] = 601.0  # at half a CPU only
    memory = verdict("Memory target")
    assert "NOT" in memory and "Train and compare" in memory and "transformer" not in memory
