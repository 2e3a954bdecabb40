"""Checkpoints: the shipped models load, score what their cards say, and damaged files are refused."""

from __future__ import annotations

import json
import shutil

import pytest

from helpers import checkpoints
from helpers.corpus import story_validation, text_corpus
from helpers.course import COURSE_TABLE
from helpers.evaluate import perplexity
from helpers.model import count_parameters
from helpers.registry import CARD, DEFAULT, SHIPPED, STORY_WORLD, card_names, shipped, shipped_names, trained_on
from helpers.tokenizer import Tokenizer, story_tokenizer

COURSE_PARAMS = {row["heads"]: row["params"] for row in COURSE_TABLE}  # 328,704 and 345,216


@pytest.mark.parametrize(("name", "heads", "params"),
                         [(c.name, c.heads, COURSE_PARAMS[c.heads]) for c in SHIPPED if c.text == STORY_WORLD])
def test_shipped_checkpoint_matches_its_card(name, heads, params):
    model = checkpoints.load_model(name)
    assert not model.training
    assert model.config.heads == heads and count_parameters(model) == params == model.card["params"]
    assert model.tokenizer.words == story_tokenizer().words  # whose round trips test_tokenizer checks
    assert model.card["command"].startswith(f"python -m helpers.train --heads {heads} ")
    assert perplexity(model, story_validation()[0]) == pytest.approx(model.card["val_ppl"], rel=0.01)


def test_four_heads_beat_one_head_in_the_shipped_checkpoints():
    """The course's claim, whatever a retraining gives: chapter 3's checked cells print the numbers themselves."""
    one, four = (checkpoints.load_model(trained_on(STORY_WORLD, heads).name).card for heads in (1, 4))
    assert four["val_ppl"] < one["val_ppl"] and four["clue_accuracy"]["all"] > one["clue_accuracy"]["all"]


# ----- a learner's own checkpoints: `mine` (tests/conftest.py), as `python -m helpers.train --out mine` writes it


def test_a_card_written_with_out_keeps_held_out_sentences_the_rate_the_kept_step_and_the_unknown_share(
        mine, sample_text):
    corpus = text_corpus(sample_text)
    held_out = " ".join(corpus.val_words)  # as written: the explorer names an unknown word ('<unk> = ...')
    card = json.loads((mine / "four_heads.json").read_text())
    examples = card["examples"]
    assert 1 <= len(examples) <= checkpoints.EXAMPLES
    for sentence in examples:
        assert f" {sentence}" in held_out, f"not a whole sentence of the held-out text: {sentence!r}"
    unknown = [corpus.tokenizer.encode(sentence).count(0) for sentence in examples]
    assert unknown == sorted(unknown) and 0 < max(unknown) <= checkpoints.MOST_UNKNOWN  # fewest <unk> first
    assert card["lr"] == card["recipe"]["lr"] > 0 and 0 <= card["best_step"] <= card["steps"]
    assert card["unknown_share"] == pytest.approx(float((corpus.val_ids == 0).float().mean()), abs=1e-4)
    assert f"--lr {card['lr']:g}" in card["command"]
    assert {"warmup", "weight_decay", "batch_size", "keep_best_every"} <= set(card["recipe"])


def test_held_out_examples_take_sentences_with_few_unknown_words_and_else_pieces_of_text():
    tok = Tokenizer.from_words("the cat sat on a mat and then it slept . -".split())
    known = "the cat sat on a mat and then it slept ."
    one = "the dog sat on a mat and then it slept ."  # 'dog' is unknown
    three = "the dog ran on a rug and then it slept ."
    words = f". {three} {one} {known} the - cat - sat - on - a mat - too . {known[:-1]} 0 . 5 .".split()  # not prose
    held_out = checkpoints.held_out_examples
    assert held_out(tok, words) == [known, one] and held_out(tok, words, count=1) == [known]  # fewest <unk> first
    assert held_out(tok, f". {known} {known} {one} {known}".split()) == [known, one]
    pieces = held_out(tok, ("the cat sat on a mat and then it slept and the cat sat on a mat and then "
                            "it slept and the cat sat").split())  # no sentence end: pieces of text
    assert pieces and all(len(piece.split()) == checkpoints.PIECE_WORDS for piece in pieces)
    assert len(set(pieces)) == len(pieces)  # a text that repeats itself offers each piece once


def test_find_checkpoints_describes_shipped_names_folders_and_cards(mine):
    assert checkpoints.find_checkpoints(DEFAULT) == [shipped(DEFAULT)]
    found = checkpoints.find_checkpoints(mine)
    assert [(c.name, c.heads, c.label, c.examples) for c in found] == [
        (str(mine / "one_head.json"), 1, "one head, sample.txt (mine)", CARD),
        (str(mine / "four_heads.json"), 4, "four heads, sample.txt (mine)", CARD)]
    assert checkpoints.find_checkpoints(mine / "one_head.safetensors") == found[:1]
    other = mine.parent / "other"
    shutil.copytree(mine, other)
    (other / "four_heads.json").rename(other / "big.json")
    (other / "four_heads.safetensors").rename(other / "big.safetensors")
    assert [c.label for c in checkpoints.find_checkpoints(other)] == ["one head, sample.txt (other)",
                                                          "four heads, sample.txt (other/big)"]


def test_load_model_takes_a_card_or_a_folder_holding_one(mine, tmp_path):
    assert checkpoints.load_model(mine / "four_heads.json").config.heads == 4
    with pytest.raises(checkpoints.CheckpointError, match=r"holds 2 checkpoints \(four_heads\.json, one_head\.json\): "
                                              r"give the path of one card"):
        checkpoints.load_model(mine)
    shutil.copytree(mine, tmp_path / "one", ignore=shutil.ignore_patterns("four_heads.*"))
    assert checkpoints.load_model(tmp_path / "one").config.heads == 1


def test_a_wrong_path_names_what_was_looked_for(tmp_path, monkeypatch, sample_text, mine):
    with pytest.raises(checkpoints.CheckpointError) as error:
        checkpoints.load_model(tmp_path / "mien")
    for part in (str((tmp_path / "mien").resolve()), *card_names(), *shipped_names()):
        assert part in str(error.value)
    with pytest.raises(checkpoints.CheckpointError, match=f"{tmp_path.resolve()} holds no checkpoint card"):
        checkpoints.load_model(tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(checkpoints.CheckpointError, match="checkpoint card not found") as error:
        checkpoints.load_model("mine/nothing.json")
    assert str(tmp_path.resolve() / "mine" / "nothing.json") in str(error.value)  # the whole path, not a part
    shutil.copy(sample_text, tmp_path / "my_text.txt")
    (tmp_path / "my_text.json").write_text("{}")  # its --json output beside it: still the text that was meant
    with pytest.raises(checkpoints.CheckpointError, match=r"-m helpers\.train .*--text my_text\.txt .*../mine"):
        checkpoints.find_checkpoints("my_text.txt")
    monkeypatch.chdir(mine.parent)  # beside the folder that training on sample.txt wrote: the text, or a typo, says it
    for given, says in ((sample_text, r"wrote, 'mine'\."), ("Mien", r"name: 'mine'\."),
                        ("mine/four_head.json", r"holds four_heads\.json, one_head\.json\.")):
        with pytest.raises(checkpoints.CheckpointError, match=says):
            checkpoints.load_model(given)
    (mine.parent / "notebooks").mkdir(exist_ok=True)
    monkeypatch.chdir(mine.parent / "notebooks")  # where a notebook's kernel runs: mine is one folder up
    with pytest.raises(ValueError, match=r"from a notebook, give '\.\./mine'"):
        checkpoints.load_model("mine")
    assert [checkpoint.heads for checkpoint in checkpoints.find_checkpoints("../mine")] == [1, 4]
