"""Checkpoints: the shipped models load, score what their cards say, and damaged files are refused."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
import torch

from helpers.checkpoints import ASSETS, CheckpointError, load_model, save_checkpoint
from helpers.evaluate import perplexity
from helpers.model import count_parameters
from helpers.train import story_corpus, story_validation, train


@pytest.mark.parametrize(("name", "heads", "params"), [("one_head", 1, 328_704), ("four_heads", 4, 345_216)])
def test_shipped_checkpoint_matches_its_card(name, heads, params):
    model = load_model(name)
    assert not model.training
    assert model.config.heads == heads and count_parameters(model) == params == model.card["params"]
    assert len(model.tokenizer) == 1024
    assert model.card["command"].startswith(f"python -m helpers.train --heads {heads} ")
    val_ppl = perplexity(model, story_validation()[0])
    assert val_ppl == pytest.approx(model.card["val_ppl"], rel=0.01)
    ids = model.tokenizer.encode("the fox that crosses the wet streets")
    assert model.tokenizer.decode(ids) == "the fox that crosses the wet streets"


def test_four_heads_beat_one_head_in_the_shipped_checkpoints():
    one, four = load_model("one_head").card, load_model("four_heads").card
    assert four["val_ppl"] < one["val_ppl"]
    assert four["clue_accuracy"]["all"] > one["clue_accuracy"]["all"]


def test_unknown_name_lists_the_choices():
    with pytest.raises(ValueError, match="one_head, four_heads"):
        load_model("five_heads")


@pytest.fixture
def copy(tmp_path):
    for suffix in (".json", ".safetensors"):
        shutil.copy(ASSETS / f"four_heads{suffix}", tmp_path / f"four_heads{suffix}")
    return tmp_path / "four_heads"


def _edit_card(stem, **changes):
    path = stem.with_suffix(".json")
    card = json.loads(path.read_text())
    for key, value in changes.items():
        if key == "config":
            card["config"].update(value)
        else:
            card[key] = value
    path.write_text(json.dumps(card))


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_copy_loads_from_a_path(copy):
    model = load_model(copy.with_suffix(".safetensors"))
    assert model.config.heads == 4


def test_corrupt_weights_are_refused(copy):
    weights = copy.with_suffix(".safetensors")
    data = bytearray(weights.read_bytes())
    data[-100] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"four_heads\.safetensors: the file is corrupt or was changed"):
        load_model(copy.with_suffix(".json"))


def test_truncated_weights_are_refused(copy):
    weights = copy.with_suffix(".safetensors")
    weights.write_bytes(weights.read_bytes()[:5000])
    _edit_card(copy, sha256=_sha(weights))
    with pytest.raises(CheckpointError, match=r"four_heads\.safetensors: cannot be read as safetensors"):
        load_model(copy)


def test_card_that_does_not_match_the_weights_is_refused(copy):
    _edit_card(copy, config={"heads": 1, "out_proj": False})
    with pytest.raises(CheckpointError, match=r"four_heads\.safetensors: tensors do not match .*attn\.proj"):
        load_model(copy)
    _edit_card(copy, config={"heads": 4, "out_proj": True, "vocab_size": 512})
    with pytest.raises(CheckpointError, match=r"tok_emb\.weight is \[1024, 128\] .* needs \[512, 128\]"):
        load_model(copy)


def test_broken_card_is_refused(copy):
    copy.with_suffix(".json").write_text("{not json")
    with pytest.raises(CheckpointError, match=r"four_heads\.json: is not a readable JSON"):
        load_model(copy)
    copy.with_suffix(".json").unlink()
    with pytest.raises(CheckpointError, match="not found"):
        load_model(copy.with_suffix(".safetensors"))


def test_save_and_load_round_trip(tmp_path):
    corpus = story_corpus(train_stories=30, val_stories=4)
    result = train(heads=4, steps=2, seed=0, corpus=corpus, batch_size=4, progress=False)
    card_path = save_checkpoint(result, tmp_path / "tiny", "python -m helpers.train --heads 4 --steps 2")
    model = load_model(card_path)
    ids = corpus.val_ids[:20]
    assert torch.equal(model(ids), result.model(ids))
    assert model.tokenizer.words == result.model.tokenizer.words
    assert model.card["steps"] == 2 and model.card["val_ppl"] == pytest.approx(result.val_ppl, abs=1e-3)
