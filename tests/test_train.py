"""Training: loss goes down, runs repeat exactly, stops cleanly, and the command line prints JSON."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch

import helpers.train as train_module
from helpers.block import block_model
from helpers.checkpoints import load_model, save_checkpoint
from helpers.evaluate import perplexity
from helpers.real_text import own_text_notes
from helpers.recipes import TEXT_RECIPE
from helpers.train import main, text_corpus, train

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("make", [lambda: None, lambda: block_model(heads=2, width=32, seed=0)],
                         ids=["course model", "block model"])
def test_loss_goes_down_in_a_tiny_run(small_stories, make):
    """A fresh course model of four heads, or the model given (chapter 7's block, here with two heads)."""
    model = make()
    result = train(heads=4, steps=40, seed=0, corpus=small_stories, batch_size=8, lr=3e-3, progress=False, model=model)
    assert model is None or result.model is model
    assert result.steps == 40 and len(result.losses) == 40 and result.heads == (2 if model else 4)
    assert sum(result.losses[-5:]) / 5 < sum(result.losses[:5]) / 5 - 1.0
    assert result.val_ppl < 1024 and result.model.tokenizer is small_stories.tokenizer
    assert set(result.clue_accuracy) == {"subject", "previous", "mood", "sense", "all"}
    assert result.tokens_per_s > 0 and result.seconds > 0 and not result.model.training


def test_same_seed_same_run(small_stories):
    runs = [train(heads=1, steps=5, seed=3, corpus=small_stories, batch_size=4, progress=False, evaluate_at_end=False)
            for _ in range(2)]
    assert runs[0].losses == runs[1].losses
    assert all(torch.equal(a, b) for a, b in zip(runs[0].model.parameters(), runs[1].model.parameters(), strict=True))


def test_interrupt_keeps_a_usable_model_which_saves_and_loads_back_unchanged(small_stories, monkeypatch, tmp_path):
    real_batch, calls = train_module.random_batch, []

    def interrupted_batch(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real_batch(*args, **kwargs)

    monkeypatch.setattr(train_module, "random_batch", interrupted_batch)
    result = train(heads=4, steps=50, seed=0, corpus=small_stories, batch_size=4, progress=False)
    assert result.steps == 3 and "interrupted after 3 of 50 steps" in result.stopped_early
    model = load_model(save_checkpoint(result, tmp_path / "four_heads", "--steps 50"))
    ids = small_stories.val_ids[:20]
    assert torch.equal(model(ids), result.model(ids)) and model.tokenizer.words == result.model.tokenizer.words
    assert model.card["steps"] == 3 and model.card["val_ppl"] == pytest.approx(result.val_ppl, abs=1e-3)
    assert model.card["stopped_early"] == result.stopped_early, "the card says why it has fewer steps than its command"


def test_time_budget_stops_early(small_stories):
    result = train(heads=1, steps=1000, seed=0, corpus=small_stories, batch_size=4, max_seconds=1e-6, progress=False,
                   evaluate_at_end=False)
    assert result.steps == 1 and "time budget" in result.stopped_early


def test_the_progress_bar_names_the_run_and_counts_words(small_stories, monkeypatch):
    """Chapter 7's three four-head models: bars carry their names, not '4 heads'; a bar counts words (words/s)."""
    seen, bars = [], []
    monkeypatch.setattr(train_module, "_progress_bar", lambda **options: seen.append(options)
                        or bars.append(train_module.text_tqdm(**options | {"disable": True})) or bars[-1])
    for label, model in (("block with feed-forward", block_model(heads=4)), (None, None)):
        result = train(heads=1, steps=12, corpus=small_stories, batch_size=4, evaluate_at_end=False, model=model,
                       label=label)
    assert [options["desc"] for options in seen] == ["block with feed-forward", "1 head"]
    assert seen[1]["total"] == 12 * 4 * 128 and seen[1]["unit"] == " words" and seen[1]["unit_scale"]
    assert bars[1].postfix == f"loss={result.losses[-1]:.3f}", "the bar ends on the last step's loss"


def test_command_line_prints_one_json_object_and_on_the_story_world_no_notes(capsys, tmp_path):
    assert main(["--heads", "4", "--steps", "2", "--seed", "1", "--json", "--out", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"] == 345_216 and out["steps"] == 2 and {"val_ppl", "tokens_per_s", "seconds"} <= set(out)
    assert set(out["clue_accuracy"]) == {"subject", "previous", "mood", "sense", "all"}
    assert "notes" not in out and "notes" not in json.loads((tmp_path / "four_heads.json").read_text())


def test_a_score_beyond_a_float_is_written_as_strict_json_null(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(train_module, "perplexity", lambda *args, **kwargs: math.inf)

    def strict(text: str) -> dict:  # Python's json reads Infinity; other readers (JavaScript, jq) refuse it
        return json.loads(text, parse_constant=lambda constant: pytest.fail(f"not strict JSON: {constant}"))

    assert main(["--heads", "1", "--steps", "1", "--json", "--out", str(tmp_path)]) == 0
    assert strict(capsys.readouterr().out)["val_ppl"] is None
    assert strict((tmp_path / "one_head.json").read_text())["val_ppl"] is None


@pytest.mark.parametrize(("argv", "message"), [(["--heads", "3"], "divide"), (["--steps", "0"], ">= 1"),
                                               (["--seed", "x"], "whole number"),
                                               (["--text", str(DATA / "binary.bin")], "binary"),
                                               (["--out", str(DATA / "binary.bin")], "is a file; --out names a folder"),
                                               (["--heads", "1", "--steps", "3", "--lr", "1e6"], "training diverged")])
def test_command_line_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code in (1, 2) and message in err and "Traceback" not in err
    assert ("usage:" in err) == (argv[0] in ("--heads", "--steps", "--seed") and "--lr" not in argv), "a file's alone"


def test_keep_best_ends_with_the_weights_that_scored_best_on_validation(small_stories):
    result = train(heads=1, steps=12, seed=0, corpus=small_stories, batch_size=4, lr=0.1, progress=False,
                   keep_best_every=3)
    assert sorted(result.val_curve) == [3, 6, 9, 12]
    best_step = min((s for s in result.val_curve if result.val_curve[s] is not None), key=result.val_curve.get)
    assert result.best_step == best_step
    sample = small_stories.val_ids[: train_module.EVAL_WORDS]
    assert perplexity(result.model, sample) == pytest.approx(result.val_curve[best_step], rel=1e-4)
    assert train(heads=1, steps=4, seed=0, corpus=small_stories, batch_size=4, progress=False).best_step == 0  # off


def test_a_text_files_vocabulary_comes_from_its_training_part(tmp_path: Path) -> None:
    """As for the novels: a word only the validation part (the last tenth) has is <unk>, and counted as such."""
    (tmp_path / "zebra.txt").write_text("the fox ran home . " * 300 + "zebra " * 150)  # 1,650 words: 165 validate
    corpus = text_corpus(tmp_path / "zebra.txt")
    assert "zebra" not in corpus.tokenizer.ids and len(corpus.val_ids) == 165 and (corpus.val_ids == 0).sum() == 150


def test_command_line_prints_the_rate_words_per_second_and_the_even_guess(capsys, tmp_path, sample_text):
    """On one's own text: the printout, the JSON (its notes also on stderr) and the card; loading it says the notes."""
    sample, corpus = str(sample_text), text_corpus(sample_text)
    different = len(set(corpus.val_ids.tolist()))
    assert main(["--heads", "1", "--steps", "2", "--text", sample, "--out", str(tmp_path / "printed")]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert " words/s), learning rate " in printed and "tokens/s" not in printed
    assert f"it read the training text {2 * TEXT_RECIPE.batch_size * 128 / len(corpus.train_ids):,.1f} times" in printed
    assert f"an even guess scores 1,024 (every one of the 1,024 vocabulary entries alike), or {different:,}" in printed
    assert "the card keeps " in printed and "from the validation text" in printed
    assert f"{len(corpus.train_ids):,} words to train on" in printed and "replacing" not in printed
    assert printed.index("validation perplexity") < printed.index("Note: The validation perplexity"), "score first"
    assert main(["--heads", "4", "--steps", "3", "--text", sample, "--out", str(tmp_path / "printed")]) == 0
    one, beside = json.loads((tmp_path / "printed" / "one_head.json").read_text()), capsys.readouterr().out
    assert f"one_head.json (1 head), validation perplexity {one['val_ppl']:.2f}" in beside
    assert "it trained 2 steps and this one 3" in " ".join(beside.split()), "a gap in steps is not the heads'"
    assert main(["--heads", "1", "--steps", "2", "--text", sample, "--out", str(tmp_path), "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)  # stdout holds the one JSON object; the notes are printed on stderr
    assert out["params"] == 328_704 and out["clue_accuracy"] == {} and (tmp_path / "one_head.safetensors").is_file()
    short = f"This run trained 2 of the {TEXT_RECIPE.steps_for(len(corpus.train_ids)):,} steps the recipe gives"
    assert out["notes"][1:] == own_text_notes(corpus, val_ppl=out["val_ppl"]) and out["notes"][0].startswith(short)
    assert f"{len(corpus.train_ids):,} words" in out["notes"][1]  # after the short run's: too short to compare
    assert out["unknown_share"] == pytest.approx(float((corpus.val_ids == 0).float().mean()), abs=1e-4)
    assert "different words of the validation part" in out["notes"][-1]  # two steps: still worse than guessing
    assert "Note: " + out["notes"][0][:40] in captured.err.replace("\n", " ")
    card = json.loads((tmp_path / "one_head.json").read_text())
    assert card["notes"] == out["notes"]
    assert out["even_guess"] == {"vocabulary": 1024, "different_validation_words": different}
    assert out["lr"] == out["recipe"]["lr"] == card["lr"] and out["examples"] == len(card["examples"])
    first = (load_model(tmp_path / "one_head.json"), capsys.readouterr().out)[1]  # what loading it printed
    load_model(tmp_path / "one_head.safetensors")  # the same checkpoint again, by its other file
    assert first.count("Note on one_head.json:") == len(out["notes"]) and capsys.readouterr().out == ""
    assert main(["--heads", "1", "--steps", "3", "--text", sample, "--out", str(tmp_path), "--json"]) == 0
    assert f"replacing {tmp_path / 'one_head.json'} (trained on {corpus.name})" in capsys.readouterr().err
    assert "This run trained 3 of" in (load_model(tmp_path / "one_head.json"), capsys.readouterr().out)[1], "new notes"
