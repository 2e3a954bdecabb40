"""Sizing a live race: the arithmetic of plan_race, and steps_that_fit on fake timings (no timed asserts)."""

from __future__ import annotations

import pytest
import torch

import helpers.race as race
from helpers.compare import late_checks
from helpers.model import course_model
from helpers.race import MIN_STEPS, RACE_BUDGET_S, plan_race, steps_that_fit
from helpers.threads import apply_thread_policy, faster_thread_count
from helpers.train import story_corpus


@pytest.fixture(autouse=True)
def _same_threads_after():
    """steps_that_fit may keep another thread count for the process: give the next test the count it had. The
    policy is applied first, so that making the race's models does not set the count the test chose."""
    apply_thread_policy()
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def _text(note: str) -> str:
    return " ".join(note.split())


def test_a_fast_machine_runs_the_full_race_and_says_nothing() -> None:
    plan = plan_race(full_steps=60, step_s=0.05, score_s=0.2, scores=5)
    assert plan.steps == 60 and not plan.shrunk
    assert plan.note() == ""
    assert plan.seconds == pytest.approx(60 * 0.05 + 5 * 0.2)


def test_a_slow_machine_gets_the_steps_that_fit_what_scoring_and_measuring_leave() -> None:
    plan = plan_race(full_steps=100, step_s=0.5, score_s=1.0, scores=5, spent_s=3.0, budget_s=20.0)
    assert plan.steps == 24  # (20 - 3 - 5 * 1.0) / 0.5
    assert plan.shrunk and plan.seconds <= 20.0
    note = plan.note()
    assert note == "a shorter race for this CPU (2.0 steps a second of every model): each trains 24 of 100 steps"
    assert len(note) <= 100


def test_steps_that_just_fit_are_not_cut() -> None:
    assert plan_race(full_steps=60, step_s=0.25, score_s=0.0, scores=5, budget_s=15.0).steps == 60
    assert plan_race(full_steps=60, step_s=0.25, score_s=0.0, scores=5, budget_s=14.9).steps == 59


def test_a_single_live_run_is_shortened_the_same_way_and_says_it_of_itself() -> None:
    plan = plan_race(full_steps=60, step_s=0.4, score_s=1.0, scores=2, models=1)
    assert plan.steps == 45
    assert plan.note() == "a shorter run for this CPU (2.5 steps a second): it trains 45 of 60 steps"


def test_a_very_slow_machine_still_races_the_minimum_and_says_it_takes_longer() -> None:
    plan = plan_race(full_steps=60, step_s=2.0, score_s=3.0, scores=5, spent_s=10.0)
    assert plan.steps == MIN_STEPS
    assert plan.seconds > RACE_BUDGET_S
    assert _text(plan.note()).endswith(f"each trains {MIN_STEPS} of 60 steps (the fewest allowed, about 65 s)")
    assert all(len(line) <= 100 for line in plan.note().splitlines())


def test_the_minimum_never_lengthens_a_race_shorter_than_it() -> None:
    assert plan_race(full_steps=10, step_s=5.0, score_s=1.0, scores=5, minimum=20).steps == 10


@pytest.mark.parametrize("bad", [
    {"full_steps": 0}, {"full_steps": 2.5}, {"step_s": 0.0}, {"score_s": -1.0}, {"budget_s": 0.0},
])
def test_plan_race_refuses_what_cannot_be_a_plan(bad: dict) -> None:
    arguments = {"full_steps": 60, "step_s": 0.1, "score_s": 0.1, "scores": 5} | bad
    with pytest.raises(ValueError, match=r"need|full race"):
        plan_race(**arguments)


@pytest.mark.parametrize(("seconds", "expected"), [
    ({1: 0.30, 2: 1.00}, 1),  # a shared machine: the threads wait on each other
    ({1: 1.00, 2: 0.50}, 2),  # an idle one: two threads are twice as fast
    ({1: 1.00, 2: 0.95}, 1),  # a tie (within 10%) goes to fewer threads
    ({1: 0.50}, 1),
])
def test_faster_thread_count_keeps_more_threads_only_when_they_clearly_win(seconds: dict, expected: int) -> None:
    assert faster_thread_count(seconds) == expected


@pytest.mark.parametrize("seconds", [{}, {0: 1.0}, {1: 0.0}])
def test_faster_thread_count_needs_timings(seconds: dict) -> None:
    with pytest.raises(ValueError, match="positive time"):
        faster_thread_count(seconds)


@pytest.fixture
def tiny():
    return story_corpus(train_stories=60, val_stories=6)


MAKERS = {"one head": lambda: course_model(heads=1, seed=0), "four heads": lambda: course_model(heads=4, seed=0)}


def _fake(monkeypatch: pytest.MonkeyPatch, step_s: dict[int, float], score_s: float) -> None:
    """Timings by thread count, instead of training; the process may use as many threads as step_s has."""
    monkeypatch.setattr(race, "usable_threads", lambda: max(step_s))
    monkeypatch.setattr(race, "step_seconds", lambda model, corpus, batch: step_s[torch.get_num_threads()])
    monkeypatch.setattr(race, "_score_seconds", lambda model, corpus: score_s)


def test_steps_that_fit_on_a_fast_machine_is_the_full_race_on_the_policy_threads(monkeypatch, tiny, capsys) -> None:
    torch.set_num_threads(2)
    _fake(monkeypatch, {1: 0.02, 2: 0.01}, 0.01)
    assert steps_that_fit(MAKERS, full_steps=60, corpus=tiny, batch_size=4) == 60
    assert torch.get_num_threads() == 2
    assert capsys.readouterr().out == ""


def test_steps_that_fit_on_a_slow_machine_is_shorter_and_says_so_in_one_line(monkeypatch, tiny, capsys) -> None:
    torch.set_num_threads(1)  # nothing to compare: only the shorter race is said
    _fake(monkeypatch, {1: 0.25}, 0.5)
    steps = steps_that_fit(MAKERS, full_steps=60, corpus=tiny, batch_size=4)
    # two models: 0.5 s for a step of both, 5 scores of 1.0 s for both, within 20 s (minus the measuring)
    assert MIN_STEPS <= steps <= 30
    out = capsys.readouterr().out
    assert _text(out) == (f"a shorter race for this CPU (2.0 steps a second of every model): each trains {steps} "
                          "of 60 steps")


def test_a_race_checks_as_often_as_late_checks_says() -> None:
    assert len(late_checks(60)) == len(late_checks(MIN_STEPS)) == race.CHECKS


def test_steps_that_fit_needs_a_model(tiny) -> None:
    with pytest.raises(ValueError, match="at least one model"):
        steps_that_fit({}, full_steps=60, corpus=tiny, batch_size=4)


def test_steps_that_fit_counts_the_checks_only_of_checked_runs(monkeypatch, tiny) -> None:
    torch.set_num_threads(1)
    _fake(monkeypatch, {1: 0.1}, 1.0)
    one = {"four heads": MAKERS["four heads"]}
    # one model: 0.1 s a step; scoring 5 times (3 checks, perplexity, clues) or twice, 1.0 s each
    checked = steps_that_fit(one, full_steps=1000, corpus=tiny, batch_size=4)
    unchecked = steps_that_fit(one, full_steps=1000, corpus=tiny, batch_size=4, checked=False)
    assert abs(unchecked - checked - 30) <= 1  # 3 checks of 1.0 s = 30 steps; the real measuring time may round


def test_steps_that_fit_goes_back_to_more_threads_when_they_are_faster(monkeypatch, tiny, capsys) -> None:
    torch.set_num_threads(1)  # as the policy leaves it when the machine was busy
    _fake(monkeypatch, {1: 0.04, 2: 0.02}, 0.01)
    assert steps_that_fit(MAKERS, full_steps=60, corpus=tiny, batch_size=4) == 60
    assert torch.get_num_threads() == 2
    out = capsys.readouterr().out
    assert out == "training on 2 threads from here on: a step took 0.04 s on 1 and 0.02 s on 2 here\n"


def test_steps_that_fit_keeps_one_thread_when_it_is_faster(monkeypatch, tiny, capsys) -> None:
    torch.set_num_threads(2)
    _fake(monkeypatch, {1: 0.01, 2: 0.04}, 0.01)
    assert steps_that_fit(MAKERS, full_steps=60, corpus=tiny, batch_size=4) == 60
    assert torch.get_num_threads() == 1
    out = capsys.readouterr().out
    assert out == "training on 1 thread from here on: a step took 0.01 s on 1 and 0.04 s on 2 here\n"


def test_steps_that_fit_times_real_steps(tiny) -> None:
    steps = steps_that_fit(MAKERS, full_steps=30, corpus=tiny, batch_size=4)
    assert MIN_STEPS <= steps <= 30

