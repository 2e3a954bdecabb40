"""The real-text recipe: `--text` trains with it, the story world keeps its own, its length and rate follow the
amount of text, and its rates are the ones the sweep's rule chose on validation text (assets/real_text.json)."""

from __future__ import annotations

from dataclasses import replace

import pytest

import benchmarks.real_text as script
import helpers.train as train_module
from helpers.novels import SWEEP_TEXTS
from helpers.real_text import current_sweep, real_text_results
from helpers.recipes import TEXT_RECIPE, fixed_settings
from helpers.train import text_corpus

SHORT = 211_371  # training words of a text of about 1 MB: a short text


def test_text_command_uses_the_text_recipe_and_the_story_world_its_own(monkeypatch, sample_text):
    seen = []

    def stop(**kwargs):
        seen.append(kwargs)
        raise SystemExit(0)

    monkeypatch.setattr(train_module, "train", stop)
    for argv in (["--text", str(sample_text)], [], ["--text", str(sample_text), "--lr", "0.03", "--steps", "7"]):
        with pytest.raises(SystemExit):
            train_module.main(argv)
    text, story, chosen = seen
    options = TEXT_RECIPE.train_options(len(text_corpus(sample_text).train_ids))
    assert {k: text[k] for k in options} == options
    assert "lr" not in story and "keep_best_every" not in story and story["steps"] == train_module.CHECKPOINT_STEPS
    assert (chosen["lr"], chosen["steps"], chosen["keep_best_every"]) == (0.03, 7, TEXT_RECIPE.eval_every)


def test_length_and_learning_rate_follow_the_number_of_words():
    per_step, cap = TEXT_RECIPE.batch_size * 128, TEXT_RECIPE.max_steps * TEXT_RECIPE.batch_size * 128
    assert TEXT_RECIPE.steps_for(10) == TEXT_RECIPE.min_steps  # a tiny text still gets a real run
    middle = round(TEXT_RECIPE.min_steps * 2 * per_step / TEXT_RECIPE.passes)  # words for twice the minimum
    assert TEXT_RECIPE.steps_for(middle) == pytest.approx(2 * TEXT_RECIPE.min_steps, abs=1)
    assert TEXT_RECIPE.steps_for(SHORT) == TEXT_RECIPE.steps_for(10**8) == TEXT_RECIPE.max_steps
    assert TEXT_RECIPE.passes_for(cap) == pytest.approx(1.0)
    edge = int(cap / TEXT_RECIPE.long_below)  # the most training words still read long_below times
    for words, size in ((5_000, "short"), (SHORT, "short"), (edge, "short"), (edge + 1, "long"), (962_010, "long")):
        lr = TEXT_RECIPE.lr if size == "short" else TEXT_RECIPE.long_lr
        assert (TEXT_RECIPE.size_class(words), TEXT_RECIPE.train_options(words)["lr"]) == (size, lr), words


def _measure(score) -> dict:
    """Every run of the sweep plan with made-up validation perplexities: {id: run} as the script records them."""
    return {r["id"]: r | {"val_ppl": score(r), "fixed": fixed_settings(TEXT_RECIPE)} for r in script.sweep_plan()}


def test_sweep_trains_both_models_at_every_rate_of_its_class_grid_on_every_text():
    plan, classes, grids = script.sweep_plan(), script.SWEEP_CLASSES, script.GRIDS
    assert {(r["text"], r["heads"], r["lr"]) for r in plan} == {
        (text, heads, lr) for text, size in classes.items() for heads in (1, 4) for lr in grids[size]}
    assert len(plan) == len({r["id"] for r in plan})
    assert set(SWEEP_TEXTS) < set(classes) and set(classes) - set(SWEEP_TEXTS) == set(script.OUTSIDE_TEXTS)


def test_sweep_rule_prefers_close_to_best_everywhere_in_each_class_and_ignores_which_model_wins():
    def score(run):  # short texts: 5e-3 is best but poor on the plays, 1e-2 near-best everywhere; long: 4e-2
        if script.SWEEP_CLASSES[run["text"]] == "long":
            return {2e-2: 40.5, 4e-2: 40.0}.get(run["lr"], 45.0) + (run["heads"] == 1)
        plays = run["text"] == "shakespeare_plays" and run["lr"] == 5e-3
        return (58.0 if plays else {5e-3: 50.0, 1e-2: 50.5}.get(run["lr"], 60.0)) + (run["heads"] == 1)

    chosen = script.choose_recipe(_measure(score))
    assert (chosen["lr"], chosen["long_lr"]) == (1e-2, 4e-2)
    assert chosen["worst_ratio"]["short"] == pytest.approx(50.5 / 50, abs=1e-4)
    swapped = script.choose_recipe(_measure(lambda run: score(run | {"heads": 5 - run["heads"]})))
    assert (swapped["lr"], swapped["long_lr"]) == (1e-2, 4e-2)  # one head winning instead changes nothing
    assert script.choose_recipe({k: r for k, r in _measure(score).items() if r["heads"] == 4}) is None  # one model
    unfinished = dict(list(_measure(score).items())[:-1])
    other = {k: r | {"fixed": fixed_settings(replace(TEXT_RECIPE, max_steps=7))} for k, r in _measure(score).items()}
    assert script.choose_recipe(unfinished) is None and script.choose_recipe(other) is None


def test_text_recipe_is_the_one_the_rule_picks_from_the_recorded_sweep():
    results = real_text_results()
    chosen = script.choose_recipe(results["sweep"])  # the rule, applied again to every recorded run
    assert chosen is not None and chosen == results["chosen"]
    assert TEXT_RECIPE.to_dict() == {k: chosen[k] for k in TEXT_RECIPE.to_dict()}
    for run in current_sweep(results["sweep"]).values():
        assert TEXT_RECIPE.size_class(run["train_words"]) == script.SWEEP_CLASSES[run["text"]], run["id"]


def test_transfer_verdict_measures_the_default_against_the_best_rate_and_four_heads_against_one():
    default, plan = TEXT_RECIPE.lr_for(SHORT), script.transfer_runs(SHORT)
    assert [(r["heads"], r["lr"]) for r in plan[:2]] == [(4, None), (1, None)]  # the command line's defaults
    assert {r["lr"] for r in plan[2:]} | {default} == set(script.GRIDS["short"])
    scores = {lr: 50.0 + 10 * abs(lr - 1e-2) for lr in script.GRIDS["short"]}  # best at 1e-2
    runs = {r["id"]: r | {"lr": r["lr"] or default, "seconds": 1.0,
                          "val_ppl": scores[r["lr"] or default] + (2.0 if r["heads"] == 1 else 0.0)} for r in plan}
    verdict = script.transfer_verdict({"train_words": SHORT, "runs": runs})
    assert verdict["best_lr"] == 1e-2 and verdict["four_beat_one"]
    assert verdict["above_best"] == pytest.approx(scores[default] / scores[1e-2] - 1, abs=1e-4)
    runs["default one head"]["val_ppl"] = 1.0  # one head wins instead
    assert not script.transfer_verdict({"train_words": SHORT, "runs": runs})["four_beat_one"]
    earlier = runs | {"default four heads": runs["default four heads"] | {"lr": 1.0}}  # an earlier recipe's default
    assert script.transfer_verdict({"train_words": SHORT, "runs": earlier}) is None
    del runs["default one head"]
    assert script.transfer_verdict({"train_words": SHORT, "runs": runs}) is None
    for entry in real_text_results().get("transfer", {}).values():  # the recorded checks agree with their runs
        assert entry["verdict"] == script.transfer_verdict(entry)
        assert entry["size_class"] == TEXT_RECIPE.size_class(entry["train_words"])


def test_the_amounts_give_every_seed_of_both_models_and_a_run_counts_once_whatever_its_id():
    runs = script.table_runs(TEXT_RECIPE, amounts_only=True)
    models = ("one head", "four heads")
    assert {(r["model"], r["seed"], r["share"]) for r in runs} == {
        (model, seed, share) for model in models for seed in script.SEEDS for share in script.SHARES}
    assert len({script._run_key(r) for r in script.table_runs(TEXT_RECIPE)}) == len(script.table_runs(TEXT_RECIPE))
    assert script._run_key({"id": "old name", "model": "one head", "seed": 0, "share": 0.01}) == script._run_key(
        runs[0])
