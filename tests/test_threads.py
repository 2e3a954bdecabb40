"""The thread policy: how many CPUs this process may use, from faked affinity and cgroup files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from helpers import threads

ROOT = Path(__file__).resolve().parents[1]


def _cgroup(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text + "\n")
    return tmp_path


@pytest.mark.parametrize(("files", "quota"), [
    ({"cpu.max": "100000 100000"}, 1.0),  # cgroup v2, one CPU (Binder)
    ({"cpu.max": "250000 100000"}, 2.5),
    ({"cpu.max": "max 100000"}, None),  # v2, no limit
    ({"cpu/cpu.cfs_quota_us": "50000", "cpu/cpu.cfs_period_us": "100000"}, 0.5),  # cgroup v1
    ({"cpu,cpuacct/cpu.cfs_quota_us": "200000", "cpu,cpuacct/cpu.cfs_period_us": "100000"}, 2.0),
    ({"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}, None),  # v1, no limit
    ({"cpu.max": "garbage"}, None),
    ({}, None),  # no cgroup files at all (macOS, or not mounted)
])
def test_cgroup_quota_reads_v1_and_v2(tmp_path: Path, files: dict[str, str], quota: float | None) -> None:
    assert threads.cgroup_quota(_cgroup(tmp_path, files)) == quota


@pytest.mark.parametrize(("affinity", "quota", "expected"), [
    (64, 1.0, 1),  # a big machine, a one-CPU container: one thread, not 64
    (64, None, 64),
    (2, None, 2),
    (8, 2.5, 2),  # half a CPU of quota cannot keep a third thread busy
    (1, 4.0, 1),  # pinned to one core whatever the quota
    (4, 0.5, 1),  # less than one CPU still runs one thread
    (0, None, 1),
])
def test_usable_cpus_takes_the_tighter_limit(affinity: int, quota: float | None, expected: int) -> None:
    assert threads.usable_cpus(affinity, quota) == expected


_FIRST_WORK = """
import json, sys
import torch
torch.set_num_threads(torch.get_num_threads() + 3)  # a count set by hand, which importing helpers must keep
before = torch.get_num_threads()
import helpers
from helpers import threads
imported = {{"threads": torch.get_num_threads(), "applied": list(threads._applied)}}
{work}
print(json.dumps({{"before": before, "imported": imported, "applied": list(threads._applied),
                  "after": torch.get_num_threads(), "usable": threads.usable_cpus(threads.affinity_cpus(),
                                                                                  threads.cgroup_quota())}}))
"""


@pytest.mark.parametrize("work", [
    "helpers.course_model(heads=4)",  # making a model (training makes one the same way)
    "helpers.load_model()",  # loading one
])
def test_policy_is_applied_by_the_first_real_work_not_by_importing(work: str) -> None:
    run = subprocess.run([sys.executable, "-c", _FIRST_WORK.format(work=work)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["imported"] == {"threads": seen["before"], "applied": []}, "importing helpers set the threads"
    [chosen] = seen["applied"]
    assert seen["after"] == chosen <= seen["usable"], f"{work} did not apply the thread policy"


def test_policy_is_applied_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "_applied", [])
    old = torch.get_num_threads()
    try:
        assert threads.apply_thread_policy(affinity=lambda: 16, quota=lambda: 1.0) == 1
        assert torch.get_num_threads() == 1
        assert threads.apply_thread_policy(affinity=lambda: 16, quota=lambda: None) == 1  # asks nothing again
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(old)


@pytest.mark.parametrize(("load", "cpus", "free"), [
    (0.3, 2, 2),  # an idle laptop
    (0.6, 2, 1),  # another program keeps more than half a core busy
    (7.5, 2, 1),  # a class on a shared server: never fewer than one
    (30.0, 64, 34),
    (None, 2, None),  # no load average (Windows): the limits alone decide
    (1.0, None, None),
])
def test_free_cpus_leaves_out_what_other_programs_keep_busy(load: float | None, cpus: int | None,
                                                             free: int | None) -> None:
    assert threads.free_cpus(load, cpus) == free


@pytest.mark.parametrize(("load", "expected"), [(0.2, 2), (7.5, 1), (None, 2)])
def test_a_busy_machine_gets_fewer_threads_than_its_limits_allow(monkeypatch: pytest.MonkeyPatch, load: float | None,
                                                                 expected: int) -> None:
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(threads, "_applied", [])
    old = torch.get_num_threads()
    try:
        assert threads.apply_thread_policy(affinity=lambda: 2, quota=lambda: None, load=lambda: load,
                                           cpus=lambda: 2) == expected
        assert torch.get_num_threads() == expected
    finally:
        torch.set_num_threads(old)


@pytest.mark.parametrize(("value", "expected"), [("1", 1), ("3", 3), ("", None), ("zero", None), ("0", None)])
def test_omp_num_threads_can_ask_for_fewer_threads(monkeypatch: pytest.MonkeyPatch, value: str,
                                                   expected: int | None) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert threads.requested_threads() == expected
    monkeypatch.setattr(threads, "_applied", [])
    old = torch.get_num_threads()
    try:
        assert threads.apply_thread_policy(affinity=lambda: 2, quota=lambda: None, load=lambda: 0.0,
                                           cpus=lambda: 2) == min(2, expected or 2)
    finally:
        torch.set_num_threads(old)


def test_one_thread_runs_on_one_thread_and_restores_the_count_even_after_an_error() -> None:
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with threads.one_thread():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError), threads.one_thread():
            raise RuntimeError("inside")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
