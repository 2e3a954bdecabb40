"""The real-text recipe: `--text` trains with it, the story world keeps its own, and it is the one the
measured sweep chose on validation text (assets/real_text.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import helpers.train as train_module
from helpers.checkpoints import ASSETS
from helpers.recipes import TEXT_RECIPE

DATA = Path(__file__).parent / "data"


def test_text_command_uses_the_text_recipe_and_the_story_world_its_own(monkeypatch):
    seen = []

    def fake_train(**kwargs):
        seen.append(kwargs)
        raise SystemExit(0)

    monkeypatch.setattr(train_module, "train", fake_train)
    with pytest.raises(SystemExit):
        train_module.main(["--text", str(DATA / "sample.txt")])
    with pytest.raises(SystemExit):
        train_module.main([])
    text, story = seen
    assert (text["lr"], text["warmup"], text["weight_decay"], text["batch_size"], text["steps"]) == (
        TEXT_RECIPE.lr, TEXT_RECIPE.warmup, TEXT_RECIPE.weight_decay, TEXT_RECIPE.batch_size, TEXT_RECIPE.steps)
    assert "lr" not in story and story["steps"] == train_module.CHECKPOINT_STEPS


@pytest.fixture
def real_text_script():
    """The real-text benchmark module (benchmarks/real_text.py)."""
    from benchmarks import real_text

    return real_text


def _measure(script, four_ppl, one_ppl, seconds_per_step=0.1) -> dict:
    """Run the staged sweep plan to its end with made-up scores: {id: run} as the script records them."""
    sweep = {}
    while todo := [r for r in script.sweep_plan(sweep) if r["id"] not in sweep]:
        run = todo[0]
        ppl = (four_ppl if run["heads"] == 4 else one_ppl)(run)
        sweep[run["id"]] = run | {"val_ppl": ppl, "seconds": run["steps"] * seconds_per_step}
    return sweep


def test_sweep_rule_takes_the_lowest_four_head_perplexity_where_four_heads_also_beat_one(real_text_script):
    def four(run):  # best at lr 1e-2 with batch 64, then with weight decay 0.1; better with more steps
        return 50 - 2 * (run["lr"] == 1e-2) - 0.5 * (run["batch_size"] == 64) - 0.2 * (run["weight_decay"] == 0.1) \
            - run["steps"] / 1000

    def one(run):  # one head beats four heads at batch 64 only
        return four(run) + (-1 if run["batch_size"] == 64 else 1)

    sweep = _measure(real_text_script, four, one)
    start = real_text_script.SWEEP_START | {"heads": 4}
    lrs = [r["lr"] for r in sweep.values() if all(r[k] == start[k] for k in start if k != "lr")]
    assert sorted(lrs) == sorted(real_text_script.LEARNING_RATES)  # stage 1: every learning rate, four heads
    chosen = real_text_script.choose_recipe(sweep)
    assert (chosen["lr"], chosen["weight_decay"], chosen["batch_size"]) == (1e-2, 0.1, 32)  # batch 64 fails the check
    assert chosen["val_gap"] == pytest.approx(1) and chosen["steps"] == max(real_text_script.STEP_COUNTS)
    one_head = [r for r in sweep.values() if r["heads"] == 1]
    # one-head runs only where the rule checks (batch 64, which fails, then decay 0.1), then at the other lengths
    assert len(one_head) == 2 + len(real_text_script.STEP_COUNTS) - 1
    longer = real_text_script.longer_runs(sweep)  # measured after the table, never chosen
    assert {(r["heads"], r["weight_decay"], r["steps"]) for r in longer} == {
        (heads, 0.1, steps) for heads in (1, 4) for steps in real_text_script.LONGER}
    too_slow = 301 / min(real_text_script.STEP_COUNTS)  # seconds a step: every length takes more than 300 s
    slow = {k: r | {"seconds": r["steps"] * too_slow} for k, r in sweep.items()}
    assert real_text_script.choose_recipe(slow) is None  # no length trains within the target's time


def test_an_unfinished_sweep_chooses_nothing(real_text_script):
    assert real_text_script.choose_recipe({}) is None


def test_text_recipe_is_the_one_the_rule_picks_from_the_recorded_sweep(real_text_script):
    results = json.loads((ASSETS / "real_text.json").read_text())
    chosen = real_text_script.choose_recipe(results["sweep"])  # the rule, applied again to every recorded run
    assert chosen == results["chosen"]
    assert TEXT_RECIPE.to_dict() == {k: chosen[k] for k in TEXT_RECIPE.to_dict()}
    run = results["sweep"][chosen["chosen_from"]]
    assert run["heads"] == 4 and run["val_ppl"] == chosen["val_ppl"]
