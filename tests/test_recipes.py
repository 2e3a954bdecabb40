"""The real-text recipe: `--text` trains with it, the story world keeps its own, its length follows the amount
of text, and its learning rate is the one the measured sweep's rule chose on validation text
(assets/real_text.json)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

import benchmarks.real_text as real_text_script
import helpers.train as train_module
from helpers.checkpoints import ASSETS
from helpers.novels import SWEEP_TEXTS
from helpers.real_text import current_sweep
from helpers.recipes import TEXT_RECIPE, fixed_settings
from helpers.train import text_corpus

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
    with pytest.raises(SystemExit):
        train_module.main(["--text", str(DATA / "sample.txt"), "--lr", "0.03", "--steps", "7"])
    text, story, chosen = seen
    words = len(text_corpus(DATA / "sample.txt").train_ids)
    assert {k: text[k] for k in ("lr", "warmup", "weight_decay", "batch_size", "steps", "keep_best_every")} == (
        TEXT_RECIPE.train_options(words))
    assert "lr" not in story and "keep_best_every" not in story and story["steps"] == train_module.CHECKPOINT_STEPS
    assert (chosen["lr"], chosen["steps"], chosen["keep_best_every"]) == (0.03, 7, TEXT_RECIPE.eval_every)


def test_training_length_follows_the_number_of_words_within_its_bounds():
    per_step = TEXT_RECIPE.batch_size * 128
    assert TEXT_RECIPE.steps_for(10) == TEXT_RECIPE.min_steps  # a tiny text still gets a real run
    middle = round(TEXT_RECIPE.min_steps * 2 * per_step / TEXT_RECIPE.passes)  # words for twice the minimum
    assert TEXT_RECIPE.steps_for(middle) == pytest.approx(2 * TEXT_RECIPE.min_steps, abs=1)
    assert TEXT_RECIPE.steps_for(220_000) == TEXT_RECIPE.max_steps  # a 1 MB text: the cap that fits 3 minutes
    assert TEXT_RECIPE.steps_for(10**8) == TEXT_RECIPE.max_steps


def test_the_learning_rate_follows_how_often_the_step_cap_lets_the_model_read_the_text():
    cap = TEXT_RECIPE.max_steps * TEXT_RECIPE.batch_size * 128  # words the capped run reads
    edge = int(cap / TEXT_RECIPE.long_below)  # the most training words still read long_below times
    assert TEXT_RECIPE.passes_for(50_000) == pytest.approx(TEXT_RECIPE.passes, rel=0.01)  # uncapped: every pass
    assert TEXT_RECIPE.passes_for(cap) == pytest.approx(1.0)
    for words, size, lr in ((5_000, "short", TEXT_RECIPE.lr), (220_000, "short", TEXT_RECIPE.lr),
                            (edge, "short", TEXT_RECIPE.lr), (edge + 1, "long", TEXT_RECIPE.long_lr),
                            (962_010, "long", TEXT_RECIPE.long_lr)):
        assert (TEXT_RECIPE.size_class(words), TEXT_RECIPE.lr_for(words)) == (size, lr), words
        assert TEXT_RECIPE.train_options(words)["lr"] == lr


def _measure(score) -> dict:
    """Every run of the sweep plan with made-up validation perplexities: {id: run} as the script records them."""
    fixed = current_sweep  # only runs with today's recipe apart from the learning rates count
    sweep = {r["id"]: r | {"val_ppl": score(r), "fixed": real_text_script._fixed()}
             for r in real_text_script.sweep_plan()}
    assert fixed(sweep) == sweep
    return sweep


def test_sweep_trains_both_models_at_every_rate_of_its_class_grid_on_every_text():
    plan = real_text_script.sweep_plan()
    classes, grids = real_text_script.SWEEP_CLASSES, real_text_script.GRIDS
    assert {(r["text"], r["heads"], r["lr"]) for r in plan} == {
        (text, heads, lr) for text, size in classes.items() for heads in (1, 4) for lr in grids[size]}
    assert len(plan) == len({r["id"] for r in plan}) == sum(2 * len(grids[size]) for size in classes.values())
    assert {"short", "long"} == set(classes.values())  # a rate for each class, chosen on texts of that class
    assert set(SWEEP_TEXTS) < set(classes) and set(classes) - set(SWEEP_TEXTS) == set(real_text_script.OUTSIDE_TEXTS)


def test_sweep_rule_prefers_close_to_best_everywhere_in_each_class_and_ignores_which_model_wins():
    def score(run):  # short texts: 5e-3 is best but poor on the plays, 1e-2 near-best everywhere; long: 4e-2
        if real_text_script.SWEEP_CLASSES[run["text"]] == "long":
            best = {2e-2: 40.5, 4e-2: 40.0}.get(run["lr"], 45.0)
        else:
            best = {5e-3: 50.0, 1e-2: 50.5}.get(run["lr"], 60.0)
            if run["text"] == "shakespeare_plays" and run["lr"] == 5e-3:
                best = 58.0
        return best + (1.0 if run["heads"] == 1 else 0.0)

    sweep = _measure(score)
    chosen = real_text_script.choose_recipe(sweep)
    assert (chosen["lr"], chosen["long_lr"]) == (1e-2, 4e-2)
    assert chosen["worst_ratio"]["short"] == pytest.approx(50.5 / 50, abs=1e-4)
    assert set(chosen["worst_ratios"]["short"]) == {f"{lr:g}" for lr in real_text_script.GRIDS["short"]}
    swapped = _measure(lambda run: score(run | {"heads": 5 - run["heads"]}))  # one head wins instead
    assert (real_text_script.choose_recipe(swapped)["lr"], real_text_script.choose_recipe(swapped)["long_lr"]) == (
        1e-2, 4e-2)
    assert {k: chosen[k] for k in fixed_settings(TEXT_RECIPE)} == fixed_settings(TEXT_RECIPE)


def test_an_unfinished_sweep_or_one_of_another_length_rule_chooses_nothing():
    assert real_text_script.choose_recipe({}) is None
    sweep = _measure(lambda run: 50.0)
    sweep.popitem()
    assert real_text_script.choose_recipe(sweep) is None
    other = {k: r | {"fixed": fixed_settings(replace(TEXT_RECIPE, max_steps=7))}
             for k, r in _measure(lambda r: 5.0).items()}
    assert real_text_script.choose_recipe(other) is None


def test_text_recipe_is_the_one_the_rule_picks_from_the_recorded_sweep():
    results = json.loads((ASSETS / "real_text.json").read_text())
    chosen = real_text_script.choose_recipe(results["sweep"])  # the rule, applied again to every recorded run
    assert chosen is not None and chosen == results["chosen"]
    assert TEXT_RECIPE.to_dict() == {k: chosen[k] for k in TEXT_RECIPE.to_dict()}


def test_each_recorded_sweep_text_is_in_the_size_class_its_training_words_give():
    runs = current_sweep(json.loads((ASSETS / "real_text.json").read_text())["sweep"]).values()
    assert {run["text"] for run in runs} == set(real_text_script.SWEEP_CLASSES)
    for run in runs:
        assert TEXT_RECIPE.size_class(run["train_words"]) == real_text_script.SWEEP_CLASSES[run["text"]], run["id"]


def test_transfer_check_runs_the_defaults_and_every_other_rate_of_the_text_class_grid():
    words = 211_371  # about 1 MB: a short text
    runs = real_text_script.transfer_runs(words)
    assert [(r["heads"], r["lr"]) for r in runs[:2]] == [(4, None), (1, None)]  # the command line's defaults
    others = {r["lr"] for r in runs[2:]}
    assert others | {TEXT_RECIPE.lr_for(words)} == set(real_text_script.GRIDS["short"])
    assert TEXT_RECIPE.lr_for(words) not in others and all(r["heads"] == 4 for r in runs[2:])


def test_transfer_verdict_measures_the_default_against_the_best_rate_and_four_heads_against_one():
    words = 211_371
    default = TEXT_RECIPE.lr_for(words)
    scores = {lr: 50.0 + 10 * abs(lr - 1e-2) for lr in real_text_script.GRIDS["short"]}  # best at 1e-2
    runs = {r["id"]: r | {"lr": r["lr"] or default, "seconds": 1.0,
                          "val_ppl": scores[r["lr"] or default] + (2.0 if r["heads"] == 1 else 0.0)}
            for r in real_text_script.transfer_runs(words)}
    verdict = real_text_script.transfer_verdict({"train_words": words, "runs": runs})
    assert verdict["best_lr"] == 1e-2 and verdict["four_beat_one"]
    assert verdict["above_best"] == pytest.approx(scores[default] / scores[1e-2] - 1, abs=1e-4)
    assert verdict["within_3_percent"] == (verdict["above_best"] <= 0.03)
    runs["default one head"]["val_ppl"] = 1.0  # one head wins instead
    assert not real_text_script.transfer_verdict({"train_words": words, "runs": runs})["four_beat_one"]
    del runs["default one head"]
    assert real_text_script.transfer_verdict({"train_words": words, "runs": runs}) is None


def test_recorded_transfer_verdicts_agree_with_their_runs():
    results = json.loads((ASSETS / "real_text.json").read_text())
    for entry in results.get("transfer", {}).values():
        assert entry["verdict"] == real_text_script.transfer_verdict(entry)
        assert entry["size_class"] == TEXT_RECIPE.size_class(entry["train_words"])
