"""One thread policy for the whole series, applied in one place: every training run (helpers.train.train).

A training run is the one computation in the series long enough for threads to pay, and it sets torch's thread
count in two steps:
1. The limit (`apply_thread_policy`): never more torch threads than CPUs this process may really use. A machine
   (or a Binder container) can report many CPUs while the process may run on only some of them: the scheduler's
   affinity mask limits which cores it runs on, and a cgroup CPU quota how much CPU time it gets; torch starts
   one thread per core it sees, and on a one-CPU container those threads wait on each other. `usable_threads`
   reads both limits. Where someone has set OMP_NUM_THREADS (a hub's admin, or `make test`, which runs one test
   worker per CPU), that count wins and nothing is measured.
2. The measurement (`ThreadTrial`): on a shared machine other programs may keep the allowed cores busy, and then
   torch's threads wait on each other and one thread runs faster. So the run times its own first steps on one
   thread and on the usable count, alternating so that both see the same neighbours, trains the rest on the
   faster (`faster_thread_count`) and leaves the process on it, so scoring afterwards runs on it too. A load
   average would decide from the last minute (a browser, the previous cell), not from this run.
A live race (helpers.race) measures the same way before it plans its steps. No model or widget constructor and
no import touches threads; the explorer runs its small computations on one thread (`one_thread`).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import torch

CGROUP = Path("/sys/fs/cgroup")
"""Where Linux mounts the cgroup files that hold this process's CPU quota."""

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


def usable_threads(affinity: Callable[[], int] = affinity_cpus,
                   quota: Callable[[], float | None] = cgroup_quota) -> int:
    """The threads this process may use on an idle machine: its usable CPUs, or fewer if OMP_NUM_THREADS asks."""
    return min(usable_cpus(affinity(), quota()), requested_threads() or math.inf)


def apply_thread_policy() -> int:
    """Lower torch's thread count to the usable threads (never raise it); returns the count torch now uses."""
    usable = usable_threads()
    if torch.get_num_threads() > usable:
        torch.set_num_threads(usable)
    return torch.get_num_threads()


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


TRIAL_ROUNDS = 2
"""Timed training steps per thread count in a run's trial, alternating, after one untimed step on one thread."""
SLOWER_BY = 1.5
"""A trial ends after its first round when the step on more threads took this many times the one-thread step:
then one thread is faster beyond a single step's noise (on a quiet machine two threads take about half)."""


class ThreadTrial:
    """A training run's first steps timed on one thread and on the usable count in turn; then the faster is kept.

    `start(step)` before a training step and `stop(step)` after it; `close()` when the run ends. When the first
    round already finds more threads clearly slower, the trial ends there: on a busy machine a step on more threads can
    take many times longer, so it runs only one. A run too short to spend a few steps measuring (fewer than twice
    the trial's steps), a process limited to one thread, or an OMP_NUM_THREADS that asks for a count, leaves the
    count as `apply_thread_policy` set it.
    """

    def __init__(self, steps: int) -> None:
        self.before = apply_thread_policy()
        self.counts = sorted({1, usable_threads()}) if requested_threads() is None else [self.before]
        plan = [1, *self.counts * TRIAL_ROUNDS]  # the thread count of each of the run's first steps (the first untimed)
        self.plan = plan if len(self.counts) > 1 and steps >= 2 * len(plan) else []
        self.seconds = dict.fromkeys(self.counts, 0.0)
        self.kept: int | None = None
        self._start = 0.0

    def start(self, step: int) -> None:
        if self.kept is None and step < len(self.plan):
            torch.set_num_threads(self.plan[step])
            self._start = time.perf_counter()

    def stop(self, step: int) -> None:
        if self.kept is not None or not 0 < step < len(self.plan):
            return
        self.seconds[self.plan[step]] += time.perf_counter() - self._start
        if step == len(self.counts) and self.seconds[self.counts[-1]] >= SLOWER_BY * self.seconds[1]:
            self.kept = 1  # the first round: more threads were clearly slower
        elif step + 1 == len(self.plan):
            self.kept = faster_thread_count(self.seconds)
        if self.kept is not None:
            keep_threads(self.kept)

    def close(self) -> None:
        """Go back to the count from before the trial when the run ended before the trial did."""
        if self.plan and self.kept is None:
            torch.set_num_threads(self.before)


@contextmanager
def one_thread() -> Iterator[None]:
    """Run a tiny computation (one sentence through a small model, as the explorer does) on one torch thread.

    Splitting a few small matrix products over threads saves nothing, and when the machine is busy the
    threads wait for each other (benchmarks/explorer_speed.py measures both side by side).
    """
    with on_threads(1):
        yield

