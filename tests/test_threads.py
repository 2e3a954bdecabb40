"""The thread policy: the CPUs this process may use (faked affinity and cgroups), and training's measured choice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch

import helpers
from helpers import threads
from helpers.chapter_widgets.base import Widget
from helpers.train import train

pytestmark = pytest.mark.usefixtures("threads_back")


@pytest.mark.parametrize(("files", "quota"), [
    ({"cpu.max": "100000 100000"}, 1.0),  # cgroup v2, one CPU (Binder)
    ({"cpu.max": "max 100000"}, None),  # v2, no limit
    ({"cpu/cpu.cfs_quota_us": "50000", "cpu/cpu.cfs_period_us": "100000"}, 0.5),  # cgroup v1
    ({"cpu,cpuacct/cpu.cfs_quota_us": "200000", "cpu,cpuacct/cpu.cfs_period_us": "100000"}, 2.0),
    ({"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}, None),  # v1, no limit
    ({"cpu.max": "garbage"}, None),
    ({}, None),  # no cgroup files at all (macOS, or not mounted)
])
def test_cgroup_quota_reads_v1_and_v2(tmp_path: Path, files: dict[str, str], quota: float | None) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text + "\n")
    assert threads.cgroup_quota(tmp_path) == quota


@pytest.mark.parametrize(("affinity", "quota", "expected"), [
    (64, 1.0, 1),  # a big machine, a one-CPU container: one thread, not 64
    (64, None, 64),
    (8, 2.5, 2),  # half a CPU of quota cannot keep a third thread busy
    (1, 4.0, 1),  # pinned to one core whatever the quota
    (4, 0.5, 1),  # less than one CPU still runs one thread
    (0, None, 1),
])
def test_usable_cpus_takes_the_tighter_limit(affinity: int, quota: float | None, expected: int) -> None:
    assert threads.usable_cpus(affinity, quota) == expected


@pytest.mark.parametrize("work", [lambda: helpers.course_model(heads=4), helpers.load_model, Widget],
                         ids=["making a model", "loading one", "the base of every widget"])
def test_no_model_or_widget_sets_the_thread_count(work: Callable[[], object]) -> None:
    torch.set_num_threads(threads.usable_threads() + 3)
    work()
    assert torch.get_num_threads() == threads.usable_threads() + 3


def test_training_lowers_the_count_to_what_the_process_may_use_and_the_limit_never_raises_it(monkeypatch,
                                                                                             small_stories) -> None:
    torch.set_num_threads(threads.usable_threads() + 3)  # as torch may start in a container with a CPU quota
    train(steps=3, corpus=small_stories, progress=False)
    assert torch.get_num_threads() == threads.usable_threads()
    monkeypatch.setattr(threads, "usable_threads", lambda: torch.get_num_threads() + 2)
    assert threads.apply_thread_policy() == torch.get_num_threads() == threads.usable_threads() - 2


@pytest.fixture
def two_usable(monkeypatch: pytest.MonkeyPatch) -> None:  # a process that may use two CPUs, no OMP_NUM_THREADS
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(threads, "usable_threads", lambda: 2)


def _run(monkeypatch: pytest.MonkeyPatch, steps: int, step_s: dict[int, float], stop_at: int | None = None
         ) -> tuple[threads.ThreadTrial, list[int]]:
    """A training run's steps on a fake clock (each step takes step_s[threads]): the trial and each step's count."""
    now = [0.0]
    monkeypatch.setattr(threads.time, "perf_counter", lambda: now[0])
    trial, counts = threads.ThreadTrial(steps), []
    for step in range(steps if stop_at is None else stop_at):
        trial.start(step)
        counts.append(torch.get_num_threads())
        now[0] += step_s[torch.get_num_threads()]
        trial.stop(step)
    trial.close()
    return trial, counts


@pytest.mark.parametrize(("step_s", "trial"), [({1: 0.08, 2: 0.04}, [1, 1, 2, 1, 2]), ({1: 0.05, 2: 0.2}, [1, 1, 2])])
def test_a_run_times_its_first_steps_on_each_count_then_trains_on_the_faster(
        two_usable, monkeypatch: pytest.MonkeyPatch, step_s: dict[int, float], trial: list[int]) -> None:
    """Alternating after an untimed step; when the first round finds more threads slower, one step was enough."""
    torch.set_num_threads(2)
    kept = min(step_s, key=step_s.get)
    found, counts = _run(monkeypatch, 40, step_s)
    assert counts[:len(trial)] == trial and set(counts[len(trial):]) == {kept}, counts
    assert found.kept == kept == torch.get_num_threads()


def test_short_runs_and_a_run_stopped_mid_trial_keep_the_count_they_found(two_usable, monkeypatch) -> None:
    torch.set_num_threads(2)
    assert set(_run(monkeypatch, 5, {1: 0.01, 2: 0.1})[1]) == {2}, "a 5-step run measured its threads"
    trial, _ = _run(monkeypatch, 40, {1: 0.01, 2: 0.1}, stop_at=2)  # interrupted on its first timed step
    assert trial.kept is None and torch.get_num_threads() == 2


@pytest.mark.parametrize(("value", "expected"), [("1", 1), ("3", 3), ("", None), ("zero", None), ("0", None)])
def test_omp_num_threads_wins_when_set(two_usable, monkeypatch: pytest.MonkeyPatch, value: str,
                                       expected: int | None) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert threads.requested_threads() == expected
    torch.set_num_threads(expected or 2)
    trial, counts = _run(monkeypatch, 40, {1: 0.01, 2: 0.1, 3: 0.1})
    assert (set(counts) == {min(expected, 2)}) if expected else (trial.kept == 1), counts


def test_one_thread_runs_on_one_thread_and_restores_the_count_even_after_an_error() -> None:
    torch.set_num_threads(2)
    with threads.one_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == 2
    with pytest.raises(RuntimeError), threads.one_thread():
        raise RuntimeError("inside")
    assert torch.get_num_threads() == 2
