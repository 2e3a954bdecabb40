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


def test_text_recipe_is_the_one_the_sweep_chose():
    results = json.loads((ASSETS / "real_text.json").read_text())
    chosen = results["chosen"]
    assert (TEXT_RECIPE.lr, TEXT_RECIPE.warmup, TEXT_RECIPE.weight_decay, TEXT_RECIPE.batch_size) == (
        chosen["lr"], chosen["warmup"], chosen["weight_decay"], chosen["batch_size"])
    assert all(run["val_ppl"] >= chosen["val_ppl"] for run in results["sweep"].values() if run["heads"] == 4)
