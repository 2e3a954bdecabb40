"""Sizing a live race: the arithmetic of plan_race, and steps_that_fit on fake timings (no timed asserts)."""

from __future__ import annotations

import pytest
import torch

import helpers.race as race
from helpers.model import course_model
from helpers.race import MIN_STEPS, plan_race, steps_that_fit
from helpers.threads import faster_thread_count

pytestmark = pytest.mark.usefixtures("threads_back")


PLANS = [  # plan_race's arguments; the steps it plans; how its note ends (none when the race is not shorter)
    ({"full_steps": 60, "step_s": 0.05, "score_s": 0.2, "scores": 5}, 60, ""),  # a fast machine: the full race
    ({"full_steps": 100, "step_s": 0.5, "score_s": 1.0, "scores": 5, "spent_s": 3.0, "budget_s": 20.0}, 24,
     "a shorter race for this CPU (one step of every model together takes 0.50 s here): each trains 24 of 100 steps"),
    ({"full_steps": 60, "step_s": 0.25, "score_s": 0.0, "scores": 5, "budget_s": 15.0}, 60, ""),  # just fits
    ({"full_steps": 60, "step_s": 0.25, "score_s": 0.0, "scores": 5, "budget_s": 14.9}, 59, "trains 59 of 60 steps"),
    ({"full_steps": 60, "step_s": 0.4, "score_s": 1.0, "scores": 2, "models": 1}, 45,  # a live run says it of itself
     "a shorter run for this CPU (one training step takes 0.40 s here): it trains 45 of 60 steps"),
    ({"full_steps": 60, "step_s": 2.0, "score_s": 3.0, "scores": 5, "spent_s": 10.0}, MIN_STEPS,  # still the minimum
     f"each trains {MIN_STEPS} of 60 steps, the fewest a race may have"),
    ({"full_steps": 10, "step_s": 5.0, "score_s": 1.0, "scores": 5, "minimum": 20}, 10, ""),  # never lengthened
]


@pytest.mark.parametrize(("arguments", "steps", "says"), PLANS)
def test_a_race_trains_the_steps_that_fit_what_scoring_and_measuring_leave_and_says_so(arguments, steps, says):
    plan = plan_race(**arguments)
    assert plan.steps == steps and plan.shrunk == bool(says)
    assert " ".join(plan.note().split()).endswith(says) if says else plan.note() == ""
    assert all(len(line) <= 100 for line in plan.note().splitlines())
    assert " s)" not in plan.note().replace("s here)", "")  # no estimate of the race's length: it was far off
    a = arguments
    assert plan.seconds == pytest.approx(a.get("spent_s", 0.0) + a["scores"] * a["score_s"] + steps * a["step_s"])
    assert plan.seconds <= plan.budget_s or steps == min(a.get("minimum", MIN_STEPS), a["full_steps"])


@pytest.mark.parametrize("bad", [
    {"full_steps": 0}, {"full_steps": 2.5}, {"step_s": 0.0}, {"score_s": -1.0}, {"budget_s": 0.0},
])
def test_plan_race_refuses_what_cannot_be_a_plan(bad: dict) -> None:
    arguments = {"full_steps": 60, "step_s": 0.1, "score_s": 0.1, "scores": 5} | bad
    with pytest.raises(ValueError, match=r"need|full race"):
        plan_race(**arguments)


@pytest.mark.parametrize("seconds", [{}, {0: 1.0}, {1: 0.0}])
def test_faster_thread_count_needs_timings(seconds: dict) -> None:
    with pytest.raises(ValueError, match="positive time"):
        faster_thread_count(seconds)


MAKERS = {"one head": lambda: course_model(heads=1, seed=0), "four heads": lambda: course_model(heads=4, seed=0)}


def _fake(monkeypatch: pytest.MonkeyPatch, step_s: dict[int, float], score_s: float) -> None:
    """Timings by thread count, instead of training; the process may use as many threads as step_s has."""
    monkeypatch.setattr(race, "usable_threads", lambda: max(step_s))
    monkeypatch.setattr(race, "step_seconds", lambda model, corpus, batch: step_s[torch.get_num_threads()])
    monkeypatch.setattr(race, "_score_seconds", lambda model, corpus: score_s)


@pytest.mark.parametrize(("start", "step_s", "kept"), [
    (2, {1: 0.02, 2: 0.01}, 2),  # the policy's threads are the faster: nothing to say
    (1, {1: 0.04, 2: 0.02}, 2),  # back to more threads when they are faster
    (2, {1: 0.01, 2: 0.04}, 1),  # one thread when it is faster
    (2, {1: 0.020, 2: 0.019}, 1),  # a tie (within 10%) goes to fewer threads
])
def test_steps_that_fit_on_a_fast_machine_is_the_full_race_on_the_faster_threads(start, step_s, kept, monkeypatch,
                                                                                 small_stories, capsys) -> None:
    torch.set_num_threads(start)
    _fake(monkeypatch, step_s, 0.01)
    assert steps_that_fit(MAKERS, full_steps=60, corpus=small_stories, batch_size=4) == 60
    assert torch.get_num_threads() == kept
    assert capsys.readouterr().out == "", "a full race says nothing, whichever thread count it keeps"


def test_steps_that_fit_on_a_slow_machine_is_shorter_and_says_so_in_one_line(monkeypatch, small_stories,
                                                                            capsys) -> None:
    torch.set_num_threads(1)  # nothing to compare: only the shorter race is said
    _fake(monkeypatch, {1: 0.25}, 0.5)
    steps = steps_that_fit(MAKERS, full_steps=60, corpus=small_stories, batch_size=4)
    # two models: 0.5 s for a step of both, 5 scores of 1.0 s for both, within 20 s (minus the measuring)
    assert MIN_STEPS <= steps <= 30
    said = " ".join(capsys.readouterr().out.split())
    assert said == ("a shorter race for this CPU (one step of every model together takes 0.50 s here): "
                    f"each trains {steps} of 60 steps")


def test_steps_that_fit_needs_a_model(small_stories) -> None:
    with pytest.raises(ValueError, match="at least one model"):
        steps_that_fit({}, full_steps=60, corpus=small_stories, batch_size=4)


def test_steps_that_fit_counts_the_checks_only_of_checked_runs(monkeypatch, small_stories) -> None:
    torch.set_num_threads(1)
    _fake(monkeypatch, {1: 0.1}, 1.0)
    one = {"four heads": MAKERS["four heads"]}
    # one model: 0.1 s a step; scoring 5 times (3 checks, perplexity, clues) or twice, 1.0 s each
    checked = steps_that_fit(one, full_steps=1000, corpus=small_stories, batch_size=4)
    unchecked = steps_that_fit(one, full_steps=1000, corpus=small_stories, batch_size=4, checked=False)
    assert abs(unchecked - checked - 30) <= 1  # 3 checks of 1.0 s = 30 steps; the real measuring time may round
