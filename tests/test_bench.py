"""The benchmark's verdicts follow from its figures, and the shipped results files agree with each other."""

from __future__ import annotations

import copy
import json

from helpers.bench import markdown, targets, training_flops_per_token
from helpers.checkpoints import ASSETS


def _results() -> dict:
    return json.loads((ASSETS / "results.json").read_text())


def test_results_markdown_is_rendered_from_results_json():
    assert (ASSETS / "results.md").read_text() == markdown(_results())


def test_results_cover_both_models_and_every_seed():
    table = _results()["table"]
    assert {(r["seed"], r["heads"]) for r in table["runs"]} == {(s, h) for s in table["seeds"] for h in (1, 4)}
    assert table["models"]["1"]["params"] == 328_704 and table["models"]["4"]["params"] == 345_216


def test_a_seed_where_four_heads_lose_fails_the_target():
    results = _results()
    table = copy.deepcopy(results["table"])
    loser = next(r for r in table["runs"] if r["heads"] == 4)
    loser["val_ppl"] = 1000.0
    loser["clue_accuracy"]["all"] = 0.0
    verdicts = targets(table, results["speed"])
    assert not verdicts[0]["met"] and not verdicts[1]["met"]
    assert f"won {len(table['seeds']) - 1} of {len(table['seeds'])} seeds" in verdicts[0]["measured"]


def test_flops_per_token_counts_the_output_mix_only_for_several_heads():
    assert training_flops_per_token(4) - training_flops_per_token(1) == 3 * 2 * 128 * 128
