"""The benchmark's verdicts follow from its figures, which are stored once (assets/results.json)."""

from __future__ import annotations

import copy
import json

import pytest

from benchmarks import bench
from helpers.checkpoints import ASSETS, load_model
from helpers.corpus import story_validation
from helpers.evaluate import attention_on_clues, head_ablation


def _results() -> dict:
    return json.loads((ASSETS / "results.json").read_text())


def test_targets_say_what_they_compare() -> None:
    """The rule compares the gap between the means with the wider range; a single seed's gap can be smaller, but
    a seed that four heads lose fails the target."""
    table = copy.deepcopy(_results()["table"])
    one, four = ({r["seed"]: r for r in table["runs"] if r["heads"] == h} for h in (1, 4))
    for runs, accuracies in ((one, (0.70, 0.80, 0.70)), (four, (0.90, 0.85, 0.90))):  # seed 1's own gap: 5 points
        for seed, accuracy in zip(table["seeds"], accuracies, strict=True):  # one head's range: 10 points
            runs[seed]["clue_accuracy"]["all"] = accuracy
    verdict = bench.targets(table)[1]
    assert verdict["target"].endswith("the gap between the two means is larger than the wider of their ranges "
                                      "over seeds")
    assert verdict["measured"] == ("won 3 of 3 seeds; gap between the means 15.0 points, wider range 10.0 points; "
                                   "smallest single-seed gap 5.0 points")
    assert verdict["met"], "the means' gap beats the range although one seed's own gap does not"
    loser = four[table["seeds"][0]]
    loser["val_ppl"], loser["clue_accuracy"]["all"] = 1000.0, 0.0
    assert [t["met"] for t in bench.targets(table)[:2]] == [False, False]


def test_flops_per_token_counts_the_output_mix_only_for_several_heads():
    assert bench.training_flops_per_token(4) - bench.training_flops_per_token(1) == 3 * 2 * 128 * 128
    assert bench.training_flops_per_token(4, out_proj=False) == bench.training_flops_per_token(1)
    assert bench.training_flops_per_token(1, out_proj=True) == bench.training_flops_per_token(4)


def _fake_run(heads: int, steps: int, seed: int, out_proj: bool | None = None, **block: object) -> dict:
    """What _one_run returns, without training: made-up scores, the real parameter count (a block's: any)."""
    params = {(4, False): 328_704, (1, True): 345_216}.get((heads, out_proj), 500_000)
    return {"heads": heads, "seed": seed, "steps": steps, "params": params, "val_ppl": 2.0 if heads == 4 else 9.0,
            "tokens_per_s": 1, "seconds": 1.0, "clue_accuracy": dict.fromkeys(bench.KINDS, 0.5)}


def test_only_controls_merges_into_the_existing_results(tmp_path, monkeypatch) -> None:
    with pytest.raises(SystemExit):  # nothing to merge into yet
        bench.main(["--only-controls", "--out", str(tmp_path)])
    old = _results()
    old.pop("controls", None)
    (tmp_path / "results.json").write_text(json.dumps(old))
    monkeypatch.setattr(bench, "_one_run", _fake_run)
    steps = str(old["table"]["steps"])
    assert bench.main(["--only-controls", "--control", "4-no-proj", "--seeds", "0", "--steps", steps,
                       "--out", str(tmp_path)]) == 0
    merged = json.loads((tmp_path / "results.json").read_text())["controls"]["runs"]
    assert [r["val_ppl"] for r in merged["4-no-proj"]] == [2.0] and not merged.get("1-proj")
    seeds = [str(s) for s in old["table"]["seeds"]]
    assert bench.main(["--only-controls", "--seeds", *seeds, "--steps", steps, "--out", str(tmp_path)]) == 0
    new = json.loads((tmp_path / "results.json").read_text())
    assert new["table"] == old["table"] and new["speed"] == old["speed"]
    assert [r["seed"] for r in new["controls"]["runs"]["4-no-proj"]] == old["table"]["seeds"]  # seed 0 replaced
    assert len(new["controls"]["sessions"]) == 2
    assert "±" not in bench.markdown(new), "a range over seeds is never written as plus or minus"


def test_the_recorded_detectives_are_the_shipped_checkpoints() -> None:
    """docs/measurements.md's detectives come from results.json: a retrained checkpoint needs the benchmark again."""
    four, (ids, clues) = load_model("four_heads"), story_validation()
    recorded = _results()["detectives"]
    rows = [[row["val_ppl"], *row["clue_accuracy"].values()] for row in head_ablation(four, ids, clues)]
    assert [[row["val_ppl"], *row["clue_accuracy"].values()] for row in recorded["head_ablation"]] == [
        pytest.approx(row, abs=1e-3) for row in rows]
    board = attention_on_clues(four, ids, clues)
    assert recorded["attention_on_clues"].keys() == board.keys()
    for kind, shares in board.items():
        assert recorded["attention_on_clues"][kind] == pytest.approx(shares, abs=1e-3), kind
