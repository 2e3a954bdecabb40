"""Live training that fits the CPU a learner is getting: how many steps each model of a live run may train.

Chapter 3 trains a fresh model live, and chapters 5 and 7 race fresh models against each other for the same
number of steps. On an idle laptop a chapter's full run takes seconds; in a class, four learners on two cores
get about half a CPU each, and on a shared machine torch's threads can wait on each other. So `steps_that_fit`
first times a few real training steps of the first model on one thread and on the threads this process may use
(keeping the faster, as helpers.threads.faster_thread_count decides), then of the other models, and the
validation scoring the run will do. It returns the number of steps, the same for every model so that a race
stays fair, that fits RACE_BUDGET_S of wall time: never more than the chapter's full run, never fewer than
MIN_STEPS. When it shortens the run it prints one line saying so, with what it measured; a change of thread
count goes unsaid (training decides its own count again, helpers.threads.ThreadTrial)."""

from __future__ import annotations

import math
import textwrap
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch

from helpers.corpus import Corpus
from helpers.evaluate import perplexity
from helpers.model import LanguageModel
from helpers.threads import faster_thread_count, keep_threads, on_threads, usable_threads
from helpers.train import train

RACE_BUDGET_S = 20.0
"""Wall time a live race may take, its own timing included: a cell should finish within 30 s at half a CPU
(CELL_TARGET_S in benchmarks/sizing.py); the rest is room for a machine that slows down mid-race."""
MIN_STEPS = 20
"""The shortest race: fewer steps, and the loss has barely started to fall."""
PROBE_STEPS = 3
"""Training steps timed per model and thread count, after one untimed step (the first one sets things up)."""
CHECKS = 3
"""Validation checks in each run of a race: what helpers.compare.late_checks(steps) gives for its verdict."""
PROBE_WINDOWS = 16
"""Validation windows scored to time the scoring (one batch); the time is scaled to the whole validation text."""


@dataclass(frozen=True)
class RacePlan:
    """How long a live race can be on this machine now: the figures measured and the steps they allow."""

    full_steps: int
    """the chapter's full race"""
    steps: int
    """what every model trains here"""
    step_s: float
    """seconds for one training step of every model of the race, one after the other"""
    score_s: float
    """seconds for every model to score the validation text once"""
    scores: int
    """validation scores in each run: the checks during the run and the scores at its end"""
    spent_s: float = 0.0
    """seconds the measuring took, before the race"""
    budget_s: float = RACE_BUDGET_S
    threads: int = 1
    """torch threads the race runs on"""
    models: int = 2
    """how many models race (one: a live run on its own)"""

    @property
    def shrunk(self) -> bool:
        return self.steps < self.full_steps

    @property
    def seconds(self) -> float:
        """The race's expected wall time, the measuring included."""
        return self.spent_s + self.scores * self.score_s + self.steps * self.step_s

    def note(self) -> str:
        """One line for the learner when the race is shorter than the chapter's (empty when it is not)."""
        if not self.shrunk:
            return ""
        if self.models == 1:
            line = (f"a shorter run for this CPU (one training step takes {self.step_s:.2f} s here): it trains "
                    f"{self.steps} of {self.full_steps} steps")
        else:
            line = (f"a shorter race for this CPU (one step of every model together takes {self.step_s:.2f} s "
                    f"here): each trains {self.steps} of {self.full_steps} steps")
        if self.seconds > self.budget_s:
            line += ", the fewest a race may have"
        return textwrap.fill(line, 100, subsequent_indent="  ")


def plan_race(full_steps: int, step_s: float, score_s: float, scores: int, spent_s: float = 0.0,
              budget_s: float = RACE_BUDGET_S, threads: int = 1, minimum: int = MIN_STEPS, models: int = 2
              ) -> RacePlan:
    """The most steps, the same for every model, whose training and scoring fit what is left of `budget_s`.

    step_s: one training step of every model; score_s: one validation score of every model; scores: how many
    each run does. Never more than `full_steps`, never fewer than `minimum` (or the full race, if shorter).
    """
    if not isinstance(full_steps, int) or full_steps < 1:
        raise ValueError(f"the full race needs a whole number of steps >= 1, got {full_steps!r}")
    if not step_s > 0 or not score_s >= 0 or not budget_s > 0:
        raise ValueError(f"need a step time > 0, a scoring time >= 0 and a budget > 0, got {step_s!r}, {score_s!r} "
                         f"and {budget_s!r}")
    room = budget_s - spent_s - scores * score_s
    fits = math.floor(room / step_s) if room > 0 else 0
    steps = max(min(fits, full_steps), min(minimum, full_steps))
    return RacePlan(full_steps=full_steps, steps=steps, step_s=step_s, score_s=score_s, scores=scores,
                    spent_s=spent_s, budget_s=budget_s, threads=threads, models=models)


def step_seconds(model: LanguageModel, corpus: Corpus, batch_size: int) -> float:
    """Seconds per training step of `model`, over PROBE_STEPS steps after an untimed one."""
    options = {"seed": 0, "corpus": corpus, "batch_size": batch_size, "progress": False, "evaluate_at_end": False}
    train(model=model, steps=1, **options)
    return train(model=model, steps=PROBE_STEPS, **options).seconds / PROBE_STEPS


def _score_seconds(model: LanguageModel, corpus: Corpus) -> float:
    """Seconds `model` takes to score the whole validation text, timed on its first PROBE_WINDOWS windows."""
    context = model.config.context
    windows = (len(corpus.val_ids) - 1) // context
    sample = min(windows, PROBE_WINDOWS)
    start = time.perf_counter()
    perplexity(model, corpus.val_ids[: sample * context + 1])
    return (time.perf_counter() - start) * windows / sample


def steps_that_fit(makers: Mapping[str, Callable[[], LanguageModel]], full_steps: int, corpus: Corpus,
                   batch_size: int, checked: bool = True, budget_s: float = RACE_BUDGET_S) -> int:
    """Steps every model of a live race trains here: the chapter's `full_steps`, or fewer on a slow or busy CPU.

    makers: a function per model that makes it fresh (the models are timed, then thrown away); a single model
    is a live run on its own, sized the same way. checked: each run also scores the validation text during
    training (eval_at=late_checks(steps), as a race does for its verdict). Times PROBE_STEPS training steps of
    the first model on one thread and on the threads this process may use (helpers.threads.usable_threads),
    keeps the faster count for this process, times the other models on it and the scoring, and plans with
    `plan_race`; prints a line when it shrinks the race.
    """
    if not makers:
        raise ValueError("need at least one model to train: makers maps a name to a function that makes it")
    start = time.perf_counter()
    first, *others = [make() for make in makers.values()]
    counts = sorted({1, usable_threads()})
    on_first = {}
    for count in counts:  # side by side on the first model: which thread count trains faster here
        with on_threads(count):
            on_first[count] = step_seconds(first, corpus, batch_size)
    chosen = faster_thread_count(on_first)
    if chosen != torch.get_num_threads():
        keep_threads(chosen)
    step_s = on_first[chosen] + sum(step_seconds(model, corpus, batch_size) for model in others)
    models = [first, *others]
    score_s = sum(_score_seconds(model, corpus) for model in models)
    scores = CHECKS * checked + 1 + corpus.has_clues  # the checks, then perplexity (and clue accuracy) at the end
    plan = plan_race(full_steps, step_s, score_s, scores, spent_s=time.perf_counter() - start,
                     budget_s=budget_s, threads=chosen, models=len(models))
    if plan.shrunk:
        print(plan.note())
    return plan.steps
