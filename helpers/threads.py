"""One thread policy for the whole series: as many torch threads as CPUs this process may really use.

A machine (or a Binder container) can report many CPUs while the process may run on only some of them:
the scheduler's affinity mask limits which cores it runs on, and a cgroup CPU quota limits how much CPU
time it gets. torch starts one thread per reported CPU, and on a one-CPU container those threads wait on
each other. `usable_cpus` reads both limits; `apply_thread_policy` sets the count once per process, before
the first real work: when the first model is made, loaded or trained (`model.LanguageModel.__init__`, which
`course_model`, `block_model`, `load_model` and `train` all go through) and when the first widget opens
(`chapter_widgets.base.Widget.__init__`). Importing `helpers` changes nothing, and no notebook or module sets
threads by hand. Where someone has set OMP_NUM_THREADS (a hub's admin, or `make test`, which runs one test
worker per CPU), that lower count wins.

On a shared machine (a class on one server) the count the limits allow can still be too many: when other
programs keep the cores busy, torch's threads wait on each other, and one thread runs several times faster
(benchmarks/threads.py and the notebook benchmark measure both). So the policy also leaves out the CPUs the
machine's load average says other programs keep busy (`free_cpus`); and since that average lags, a live run
times a few steps on one thread and on the usable count before it starts (helpers.race), and
`faster_thread_count` picks the count to keep from those figures.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import torch

CGROUP = Path("/sys/fs/cgroup")
"""Where Linux mounts the cgroup files that hold this process's CPU quota."""

_applied: list[int] = []  # the thread count chosen, once per process
FASTER_BY = 1.1
"""More threads are kept only when they run the same work at least this many times faster than fewer: on a
shared machine every extra thread also slows the neighbours, so a tie goes to fewer threads."""


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def cgroup_quota(root: Path = CGROUP) -> float | None:
    """The cgroup CPU quota in CPUs (1.5 = one and a half CPUs' worth of time), or None for no quota.

    cgroup v2 keeps "quota period" in cpu.max ("max" when unlimited); cgroup v1 keeps them in
    cpu/cpu.cfs_quota_us and cpu/cpu.cfs_period_us (a quota of -1 when unlimited).
    """
    v2 = _read(root / "cpu.max")
    if v2 is not None:
        parts = v2.split()
        if len(parts) == 2 and parts[0] != "max":
            return _ratio(parts[0], parts[1])
        return None
    for folder in (root / "cpu", root / "cpu,cpuacct", root):
        quota, period = _read(folder / "cpu.cfs_quota_us"), _read(folder / "cpu.cfs_period_us")
        if quota is not None and period is not None:
            return _ratio(quota, period)
    return None


def _ratio(quota: str, period: str) -> float | None:
    """quota / period as a number of CPUs; None when either is not a positive number (no quota)."""
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None


def affinity_cpus() -> int:
    """How many CPUs the scheduler lets this process run on (all reported CPUs where that is unknown)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity call
        return os.cpu_count() or 1


def usable_cpus(affinity: int, quota: float | None) -> int:
    """CPUs this process can keep busy: the affinity count, lowered to the whole CPUs of the quota (at least 1).

    A quota of 1.5 CPUs gives 1 thread: a second thread would be throttled for half of every period.
    """
    cpus = max(1, affinity)
    if quota is not None:
        cpus = min(cpus, max(1, math.floor(quota + 1e-9)))
    return cpus


def requested_threads() -> int | None:
    """The thread count OMP_NUM_THREADS asks for, or None when it is unset or not a positive whole number."""
    value = os.environ.get("OMP_NUM_THREADS", "")
    return int(value) if value.isdigit() and int(value) > 0 else None


def machine_load() -> float | None:
    """The machine's load average over the last minute (runnable programs), or None where it is unknown."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows has no load average
        return None


def free_cpus(load: float | None, cpus: int | None) -> int | None:
    """Whole CPUs that other programs leave free: the machine's CPUs minus its load average, rounded, at least 1.

    None when either is unknown. A load of 7 on 2 CPUs leaves 1; a load of 0.3 leaves 2.
    """
    if load is None or not cpus:
        return None
    return max(1, math.floor(cpus - load + 0.5))


def usable_threads(affinity: Callable[[], int] = affinity_cpus,
                   quota: Callable[[], float | None] = cgroup_quota) -> int:
    """The threads this process may use on an idle machine: its usable CPUs, or fewer if OMP_NUM_THREADS asks."""
    return min(usable_cpus(affinity(), quota()), requested_threads() or math.inf)


def apply_thread_policy(
    affinity: Callable[[], int] = affinity_cpus, quota: Callable[[], float | None] = cgroup_quota,
    load: Callable[[], float | None] = machine_load, cpus: Callable[[], int | None] = os.cpu_count,
) -> int:
    """Set torch's thread count once per process: the usable threads, or fewer if other programs keep some of
    the machine's CPUs busy; returns the count chosen."""
    if not _applied:
        threads = min(usable_threads(affinity, quota), free_cpus(load(), cpus()) or math.inf)
        torch.set_num_threads(threads)
        _applied.append(threads)
    return _applied[0]


def faster_thread_count(seconds: Mapping[int, float]) -> int:
    """The thread count to keep, from the seconds the same work took on each count, measured side by side.

    The fewest threads, unless a larger count was at least FASTER_BY times faster.
    """
    if not seconds or min(seconds) < 1 or min(seconds.values()) <= 0:
        raise ValueError(f"need a positive time for each thread count >= 1, got {dict(seconds)}")
    fewest = min(seconds)
    fastest = min(seconds, key=lambda count: (seconds[count], count))
    return fastest if seconds[fewest] >= FASTER_BY * seconds[fastest] else fewest


@contextmanager
def on_threads(count: int) -> Iterator[None]:
    """Run the body on `count` torch threads, then go back to the count before (even after an error)."""
    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def keep_threads(count: int) -> None:
    """Use `count` torch threads from now on in this process: a side-by-side measurement found it faster."""
    torch.set_num_threads(count)


@contextmanager
def one_thread() -> Iterator[None]:
    """Run a tiny computation (one sentence through a small model, as the explorer does) on one torch thread.

    Splitting a few small matrix products over threads saves nothing, and when the machine is busy the
    threads wait for each other (benchmarks/explorer_speed.py measures both side by side).
    """
    with on_threads(1):
        yield

