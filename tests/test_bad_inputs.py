"""The catalogue of bad inputs (docs/bad_inputs.md), one test per row.

Each case calls a public helper with something a learner might really pass and asserts the exception type
AND that the message names the problem. The case id is the "test" column of the catalogue;
test_catalogue_matches_the_tests keeps the table and this file in step.
"""

from __future__ import annotations

import json
import pickle
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from helpers.attention import AttentionHead, MultiHeadAttention, causal_mask, spotlight
from helpers.checkpoints import CheckpointError, load_model, save_checkpoint, sha256
from helpers.evaluate import clue_accuracy, head_removed, perplexity
from helpers.explorer import Explorer
from helpers.model import CourseConfig, CourseModel, attention_layer_size, count_parameters, course_model
from helpers.plots import attention_heatmap, heads_grid, spotlight_bars
from helpers.reading import read_sentence
from helpers.stories import generate_stories
from helpers.tokenizer import MAX_TEXT_BYTES, Tokenizer, story_tokenizer
from helpers.train import Corpus, TrainResult, text_corpus, train

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "docs" / "bad_inputs.md"


@dataclass(frozen=True)
class Case:
    id: str
    where: str
    tried: str
    call: Callable[[Path], object]  # gets a fresh temporary folder for any files it needs
    error: type[BaseException]
    says: str  # regular expression the message must contain


def _x(width: int = 8, words: int = 4) -> torch.Tensor:
    return torch.randn(1, words, width)


def _file(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        path.write_bytes(data)
        return path

    return make


_TOK = story_tokenizer()
_MODEL = course_model(heads=4, seed=0).eval()
_HEAD = AttentionHead(8)
_MHA = MultiHeadAttention(8, 2)
_NO_ROW = torch.tensor([[True, False], [False, False]])  # the second word may look nowhere
_EMPTY, _BINARY = _file("empty.txt", b"  \n"), _file("picture.txt", b"\x89PNG\x00\x00\x01")
_LATIN1 = _file("notes.txt", "caf\xe9 cr\xe8me".encode("latin-1"))
_SHORT = _file("short.txt", b"the fox ran home . " * 20)


def _huge(tmp: Path) -> Path:
    path = tmp / "big.txt"
    with path.open("wb") as file:
        file.truncate(MAX_TEXT_BYTES + 1)  # a sparse file: takes no disk space, but its size is too large
    return path


def _folder(tmp: Path) -> Path:
    (tmp / "texts").mkdir()
    return tmp / "texts"


def _tiny_corpus(words: int) -> Corpus:
    ids = torch.randint(0, 1024, (words,), generator=torch.Generator().manual_seed(0))
    return Corpus("tiny text", _TOK, ids, ids.clone())


def _train(**kwargs: object) -> object:
    settings = {"corpus": _tiny_corpus(400), "steps": 2, "batch_size": 2, "progress": False,
                "evaluate_at_end": False}
    return train(**{**settings, **kwargs})


def _remove_head(head: object) -> None:
    with head_removed(_MODEL, head):
        pass


def _tokenizer_json(text: str) -> Callable[[Path], Tokenizer]:
    return lambda tmp: Tokenizer.load(_file("tokenizer.json", text.encode())(tmp))


def _checkpoint(folder: Path, name: str = "model") -> Path:
    """A real (untrained) one-head checkpoint in `folder`: name.json + name.safetensors; returns the .json."""
    model = course_model(heads=1, seed=0)
    model.tokenizer = _TOK
    result = TrainResult(model=model, heads=1, seed=0, steps=0, steps_planned=0, losses=[], val_ppl=float("nan"),
                         clue_accuracy={}, tokens_per_s=0.0, seconds=0.0)
    return save_checkpoint(result, folder / name, "python -m helpers.train --heads 1 --steps 0")


def _edit_card(card_path: Path, keep_sha: bool = False, **config: object) -> None:
    """Change the card's config; the recorded sha256 follows the weights file unless keep_sha."""
    card = json.loads(card_path.read_text(encoding="utf-8"))
    card["config"].update(config)
    if not keep_sha:
        card["sha256"] = sha256(card_path.with_suffix(".safetensors"))
    card_path.write_text(json.dumps(card), encoding="utf-8")


def _broken(damage: Callable[[Path, Path], None]) -> Callable[[Path], object]:
    """A case that saves a checkpoint, damages it (card path, weights path), then loads it."""
    def call(folder: Path) -> object:
        card = _checkpoint(folder)
        damage(card, card.with_suffix(".safetensors"))
        return load_model(card)

    return call


def _truncate(card: Path, weights: Path, fix_sha: bool = False) -> None:
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) // 2])
    if fix_sha:
        _edit_card(card)


def _flip_a_byte(card: Path, weights: Path) -> None:
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))


class _RunsCode:
    """A pickle that would create a file named PWNED if anything unpickled it."""

    def __init__(self, folder: Path) -> None:
        self.marker = str(folder / "PWNED")

    def __reduce__(self) -> tuple:
        return (open, (self.marker, "w"))


def _pickle_instead(card: Path, weights: Path) -> None:
    weights.write_bytes(pickle.dumps({"tok_emb.weight": _RunsCode(card.parent)}))
    _edit_card(card)


def _drop_metadata(card: Path, weights: Path) -> None:
    save_file(load_file(str(weights)), str(weights))  # the same tensors, no metadata
    _edit_card(card)


def _nan_weight(card: Path, weights: Path) -> None:
    tensors = load_file(str(weights))
    tensors["lm_head.bias"][3] = float("nan")
    save_file(tensors, str(weights))
    _edit_card(card)


def _edit_json(change: Callable[[dict], None]) -> Callable[[Path, Path], None]:
    def damage(card: Path, weights: Path) -> None:
        data = json.loads(card.read_text(encoding="utf-8"))
        change(data)
        card.write_text(json.dumps(data), encoding="utf-8")

    return damage


CASES = [
    # ---- helpers.attention: spotlight and causal_mask -------------------------------------------
    Case("spotlight-1d-scores", "attention.spotlight", "scores with one dimension [4]",
         lambda _: spotlight(torch.randn(4), torch.randn(4, 2)), ValueError, r"at least 2 dimensions.*got \[4\]"),
    Case("spotlight-words-mismatch", "attention.spotlight", "scores for 4 words, values for 3",
         lambda _: spotlight(torch.randn(4, 4), torch.randn(3, 2)), ValueError, r"4 words.*hold 3 words"),
    Case("spotlight-list", "attention.spotlight", "scores as a Python list",
         lambda _: spotlight([[1.0]], torch.randn(1, 2)), ValueError, r"scores must be a torch tensor, got list"),
    Case("spotlight-int-scores", "attention.spotlight", "integer scores (torch.long)",
         lambda _: spotlight(torch.ones(2, 2, dtype=torch.long), torch.randn(2, 2)), ValueError,
         r"floating-point.*int64"),
    Case("spotlight-mixed-dtypes", "attention.spotlight", "float64 scores with float32 values",
         lambda _: spotlight(torch.randn(2, 2, dtype=torch.float64), torch.randn(2, 2)), ValueError,
         r"float64.*float32.*one dtype"),
    Case("spotlight-no-words", "attention.spotlight", "scores [2, 0]: nothing to look at",
         lambda _: spotlight(torch.randn(2, 0), torch.randn(0, 2)), ValueError, r"no words to look at"),
    Case("spotlight-batch-mismatch", "attention.spotlight", "scores batch 3, values batch 2",
         lambda _: spotlight(torch.randn(3, 2, 2), torch.randn(2, 2, 2)), ValueError, r"batch sizes"),
    Case("spotlight-mask-float", "attention.spotlight", "mask of 0.0/1.0 floats",
         lambda _: spotlight(torch.randn(2, 2), torch.randn(2, 2), torch.ones(2, 2)), ValueError,
         r"mask must be boolean.*float32"),
    Case("spotlight-mask-list", "attention.spotlight", "mask as a Python list",
         lambda _: spotlight(torch.randn(2, 2), torch.randn(2, 2), [[True, True]] * 2), ValueError,
         r"mask must be a boolean torch tensor, got list"),
    Case("spotlight-mask-size", "attention.spotlight", "mask [3, 3] for 2 words",
         lambda _: spotlight(torch.randn(2, 2), torch.randn(2, 2), causal_mask(3)), ValueError,
         r"mask is \[3, 3\].*must be \[2, 2\]"),
    Case("spotlight-mask-all-false-row", "attention.spotlight", "mask with a row that is all False",
         lambda _: spotlight(torch.randn(2, 2), torch.randn(2, 2), _NO_ROW), ValueError, r"all False"),
    Case("spotlight-mask-batch", "attention.spotlight", "mask [2, 2, 2] for scores [3, 2, 2]",
         lambda _: spotlight(torch.randn(3, 2, 2), torch.randn(3, 2, 2), torch.ones(2, 2, 2, dtype=torch.bool)),
         ValueError, r"does not fit"),
    Case("causal-mask-zero", "attention.causal_mask", "0 words",
         lambda _: causal_mask(0), ValueError, r"whole number of words >= 1, got 0"),
    Case("causal-mask-float", "attention.causal_mask", "2.5 words",
         lambda _: causal_mask(2.5), ValueError, r"got 2\.5"),
    # ---- helpers.attention: the layers -----------------------------------------------------------
    Case("head-rank-2", "AttentionHead.forward", "one sentence [4, 8] without a batch dimension",
         lambda _: _HEAD(torch.randn(4, 8)), ValueError, r"3-D input.*got \[4, 8\].*unsqueeze\(0\)"),
    Case("head-wrong-width", "AttentionHead.forward", "width 6 into a width-8 head",
         lambda _: _HEAD(_x(6)), ValueError, r"\[1, 4, 6\].*expects width 8"),
    Case("head-integer-input", "AttentionHead.forward", "integer tensor (word ids instead of vectors)",
         lambda _: _HEAD(torch.ones(1, 4, 8, dtype=torch.long)), ValueError, r"floating-point.*int64"),
    Case("head-numpy-input", "AttentionHead.forward", "a numpy array",
         lambda _: _HEAD(np.zeros((1, 4, 8))), ValueError, r"torch tensor.*got ndarray"),
    Case("head-float64-input", "AttentionHead.forward", "float64 input into float32 weights",
         lambda _: _HEAD(_x().double()), ValueError, r"float64.*float32"),
    Case("head-no-words", "AttentionHead.forward", "input with 0 words [1, 0, 8]",
         lambda _: _HEAD(torch.randn(1, 0, 8)), ValueError, r"no words"),
    Case("head-zero-width", "AttentionHead()", "width 0",
         lambda _: AttentionHead(0), ValueError, r"whole numbers >= 1, got 0"),
    Case("head-float-width", "AttentionHead()", "width 8.0 (a float)",
         lambda _: AttentionHead(8.0), ValueError, r"whole numbers >= 1, got 8\.0"),
    Case("mha-indivisible", "MultiHeadAttention()", "width 128 with 3 heads",
         lambda _: MultiHeadAttention(128, 3), ValueError, r"128 is not divisible by 3 heads"),
    Case("mha-zero-heads", "MultiHeadAttention()", "0 heads",
         lambda _: MultiHeadAttention(128, 0), ValueError, r"heads >= 1, got heads=0"),
    Case("mha-float-heads", "MultiHeadAttention()", "2.0 heads (a float)",
         lambda _: MultiHeadAttention(128, 2.0), ValueError, r"got heads=2\.0"),
    Case("mha-mask-3d", "MultiHeadAttention.forward", "mask [1, 4, 4]",
         lambda _: _MHA(_x(), mask=torch.ones(1, 4, 4, dtype=torch.bool)), ValueError, r"2-D.*got \[1, 4, 4\]"),
    Case("mha-mask-size", "MultiHeadAttention.forward", "mask [3, 3] for 4 words",
         lambda _: _MHA(_x(), mask=causal_mask(3)), ValueError, r"mask is \[3, 3\].*\[4, 4\]"),
    Case("mha-mask-int", "MultiHeadAttention.forward", "mask of 0/1 integers",
         lambda _: _MHA(_x(), mask=torch.ones(4, 4, dtype=torch.long)), ValueError, r"boolean.*int64"),
    Case("mha-mask-all-false-fused", "MultiHeadAttention.forward", "all-False mask row, need_weights=False",
         lambda _: _MHA(_x(words=2), mask=_NO_ROW, need_weights=False), ValueError, r"all False"),
    # ---- helpers.model ------------------------------------------------------------------------------
    Case("model-list-ids", "CourseModel.forward", "a Python list of ids",
         lambda _: _MODEL([1, 2, 3]), ValueError, r"torch tensor of word ids, got list"),
    Case("model-float-ids", "CourseModel.forward", "float ids tensor([1.0, 2.0])",
         lambda _: _MODEL(torch.tensor([1.0, 2.0])), ValueError, r"whole numbers.*float32"),
    Case("model-bool-ids", "CourseModel.forward", "boolean ids",
         lambda _: _MODEL(torch.tensor([True, False])), ValueError, r"whole numbers.*bool"),
    Case("model-negative-ids", "CourseModel.forward", "id -1",
         lambda _: _MODEL(torch.tensor([-1, 2])), ValueError, r"0\.\.1023, got values from -1"),
    Case("model-id-too-big", "CourseModel.forward", "id 1024 (vocabulary is 0..1023)",
         lambda _: _MODEL(torch.tensor([5, 1024])), ValueError, r"0\.\.1023.*to 1024"),
    Case("model-empty", "CourseModel.forward", "no ids at all",
         lambda _: _MODEL(torch.tensor([], dtype=torch.long)), ValueError, r"empty.*at least one word"),
    Case("model-empty-batch", "CourseModel.forward", "a batch of 0 sentences [0, 3]",
         lambda _: _MODEL(torch.zeros(0, 3, dtype=torch.long)), ValueError, r"batch of 0"),
    Case("model-too-long", "CourseModel.forward", "129 ids (context is 128)",
         lambda _: _MODEL(torch.zeros(129, dtype=torch.long)), ValueError, r"129 words.*context of 128"),
    Case("model-3d-ids", "CourseModel.forward", "ids [1, 1, 3]",
         lambda _: _MODEL(torch.zeros(1, 1, 3, dtype=torch.long)), ValueError, r"\[words\] or \[batch, words\]"),
    Case("model-scalar-id", "CourseModel.forward", "a single id tensor(3) with no dimension",
         lambda _: _MODEL(torch.tensor(3)), ValueError, r"\[words\] or \[batch, words\], got shape \[\]"),
    Case("config-indivisible", "CourseConfig()", "width 128 with 3 heads",
         lambda _: CourseConfig(heads=3), ValueError, r"128 is not divisible by 3 heads: each head gets"),
    Case("config-zero-heads", "CourseConfig()", "0 heads",
         lambda _: CourseConfig(heads=0), ValueError, r"heads must be a whole number >= 1, got 0"),
    Case("config-bool-heads", "CourseConfig()", "heads=True",
         lambda _: CourseConfig(heads=True), ValueError, r"heads must be a whole number >= 1, got True"),
    Case("config-out-proj-text", "CourseConfig()", "out_proj='no'",
         lambda _: CourseConfig(out_proj="no"), ValueError, r"out_proj must be True, False or None"),
    Case("course-model-unknown-size", "course_model()", "a size it does not have (colour=3)",
         lambda _: course_model(1, colour=3), TypeError, r"unexpected keyword argument 'colour'"),
    Case("count-parameters-not-model", "count_parameters()", "a number instead of a model",
         lambda _: count_parameters(3), ValueError, r"nn\.Module.*got int"),
    Case("layer-size-indivisible", "attention_layer_size()", "width 128, 3 heads",
         lambda _: attention_layer_size(128, 3), ValueError, r"128 is not divisible by 3 heads: each head gets"),
    Case("layer-size-float", "attention_layer_size()", "width 128.0 (a float)",
         lambda _: attention_layer_size(128.0, 4), ValueError, r"whole numbers >= 1, got 128\.0"),
    # ---- helpers.plots and helpers.stories ----------------------------------------------------------------
    Case("heatmap-3d", "plots.attention_heatmap", "all heads [4, 3, 3] instead of one head's [3, 3]",
         lambda _: attention_heatmap(torch.rand(4, 3, 3), ["a", "b", "c"]), ValueError,
         r"2-D \[looking words, looked-at words\] grid, got \[4, 3, 3\]"),
    Case("heatmap-words-mismatch", "plots.attention_heatmap", "2 words for a 3 x 3 grid",
         lambda _: attention_heatmap(torch.rand(3, 3), ["a", "b"]), ValueError,
         r"2 words need a 2 x 2 grid, got a \[3, 3\] grid \(3 rows, 3 columns\)"),
    Case("heatmap-missing-columns", "plots.attention_heatmap", "a [3, 2] grid for 3 words (a column missing)",
         lambda _: attention_heatmap(torch.rand(3, 2), ["a", "b", "c"]), ValueError,
         r"3 words need a 3 x 3 grid, got a \[3, 2\] grid \(3 rows, 2 columns\)"),
    Case("heatmap-ragged-rows", "plots.attention_heatmap", "a list of rows of different lengths",
         lambda _: attention_heatmap([[0.5, 0.5], [1.0]], ["a", "b"]), ValueError,
         r"needs a grid of numbers \(a tensor, or a list of rows of equal length\), got a list"),
    Case("heads-grid-one-head", "plots.heads_grid", "one head's [3, 3] instead of [heads, 3, 3]",
         lambda _: heads_grid(torch.rand(3, 3), ["a", "b", "c"]), ValueError,
         r"needs a \[heads, words, words\] tensor, got \[3, 3\]"),
    Case("heads-grid-list", "plots.heads_grid", "a Python list of weights",
         lambda _: heads_grid([[[1.0]]], ["a"]), ValueError, r"needs a \[heads, words, words\] tensor, got list"),
    Case("bars-words-mismatch", "plots.spotlight_bars", "3 weights for 2 words",
         lambda _: spotlight_bars(torch.rand(3), ["a", "b"]), ValueError, r"2 words need 2 weights, got 3"),
    Case("stories-zero", "stories.generate_stories", "0 stories",
         lambda _: generate_stories(0), ValueError, r"n_stories must be a whole number >= 1, got 0"),
    # ---- helpers.tokenizer --------------------------------------------------------------------------
    Case("encode-none", "Tokenizer.encode", "None instead of text",
         lambda _: _TOK.encode(None), ValueError, r"text must be a string, got NoneType"),
    Case("encode-bytes", "Tokenizer.encode", "bytes b'the fox'",
         lambda _: _TOK.encode(b"the fox"), ValueError, r"text must be a string, got bytes"),
    Case("decode-out-of-range", "Tokenizer.decode", "id 5000",
         lambda _: _TOK.decode([5000]), ValueError, r"5000 is outside the vocabulary 0\.\.1023"),
    Case("decode-negative", "Tokenizer.decode", "id -1",
         lambda _: _TOK.decode([-1]), ValueError, r"-1 is outside the vocabulary"),
    Case("decode-word", "Tokenizer.decode", "a word instead of an id, ['fox']",
         lambda _: _TOK.decode(["fox"]), ValueError, r"word ids must be whole numbers, got 'fox'"),
    Case("decode-float", "Tokenizer.decode", "a float id, [1.7]",
         lambda _: _TOK.decode([1.7]), ValueError, r"word ids must be whole numbers, got 1\.7"),
    Case("decode-none", "Tokenizer.decode", "None instead of a list of ids",
         lambda _: _TOK.decode(None), ValueError, r"decode needs a list of word ids, got NoneType"),
    Case("decode-text", "Tokenizer.decode", "text instead of ids, 'the fox'",
         lambda _: _TOK.decode("the fox"), ValueError, r"decode needs a list of word ids, got str"),
    Case("file-empty", "Tokenizer.from_text_file", "a file holding only whitespace",
         lambda tmp: Tokenizer.from_text_file(_EMPTY(tmp)), ValueError, r"empty\.txt: the file is empty"),
    Case("file-binary", "Tokenizer.from_text_file", "a binary file (PNG bytes)",
         lambda tmp: Tokenizer.from_text_file(_BINARY(tmp)), ValueError, r"picture\.txt: looks like a binary"),
    Case("file-not-utf8", "Tokenizer.from_text_file", "a Latin-1 file ('café')",
         lambda tmp: Tokenizer.from_text_file(_LATIN1(tmp)), ValueError, r"notes\.txt: is not UTF-8.*0xe9"),
    Case("file-missing", "Tokenizer.from_text_file", "a file that does not exist",
         lambda tmp: Tokenizer.from_text_file(tmp / "nope.txt"), ValueError, r"nope\.txt: no such file"),
    Case("file-folder", "Tokenizer.from_text_file", "a folder instead of a file",
         lambda tmp: Tokenizer.from_text_file(_folder(tmp)), ValueError, r"texts: is a folder, not a text file"),
    Case("file-huge", "Tokenizer.from_text_file", "a file of 10 MB and 1 byte",
         lambda tmp: Tokenizer.from_text_file(_huge(tmp)), ValueError, r"big\.txt: is 10\.0 MB, too large"),
    Case("text-no-words", "Tokenizer.from_text", "text with no words",
         lambda _: Tokenizer.from_text("   "), ValueError, r"no words to build a vocabulary"),
    Case("tokenizer-not-json", "Tokenizer.load", "a file that is not JSON",
         _tokenizer_json("words, words"), ValueError, r"tokenizer\.json: is not valid JSON"),
    Case("tokenizer-other-json", "Tokenizer.load", "JSON that is not a tokenizer",
         _tokenizer_json('{"a": 1}'), ValueError, r"is not a Several Spotlights tokenizer"),
    Case("tokenizer-short-vocabulary", "Tokenizer.load", "a tokenizer file with 2 words",
         _tokenizer_json('{"format": "several-spotlights-tokenizer", "words": ["<unk>", "fox"]}'),
         ValueError, r"exactly 1024 entries, got 2"),
    # ---- helpers.train and helpers.evaluate -----------------------------------------------------------
    Case("train-text-too-short", "train.text_corpus", "a text file of 100 words",
         lambda tmp: text_corpus(_SHORT(tmp)), ValueError, r"short\.txt: has 100 words, too short.*258"),
    Case("train-text-missing", "train.text_corpus", "a text file that does not exist",
         lambda tmp: text_corpus(tmp / "story.txt"), ValueError, r"story\.txt: no such file"),
    Case("train-corpus-too-short", "train.train", "a corpus of 100 words (one window needs 130)",
         lambda _: _train(corpus=_tiny_corpus(100)), ValueError, r"100 words is too short for one training window"),
    Case("train-zero-steps", "train.train", "steps=0",
         lambda _: _train(steps=0), ValueError, r"steps must be a whole number >= 1, got 0"),
    Case("train-float-steps", "train.train", "steps=1.5",
         lambda _: _train(steps=1.5), ValueError, r"steps must be a whole number >= 1, got 1\.5"),
    Case("train-text-steps", "train.train", "steps='10' (text)",
         lambda _: _train(steps="10"), ValueError, r"steps must be a whole number >= 1, got '10'"),
    Case("train-indivisible-heads", "train.train", "heads=3",
         lambda _: _train(heads=3), ValueError, r"not divisible by 3 heads"),
    Case("train-zero-batch", "train.train", "batch_size=0",
         lambda _: _train(batch_size=0), ValueError, r"batch_size must be a whole number >= 1, got 0"),
    Case("train-zero-lr", "train.train", "learning rate 0",
         lambda _: _train(lr=0), ValueError, r"learning rate must be a finite number > 0, got 0"),
    Case("train-nan-lr", "train.train", "learning rate NaN",
         lambda _: _train(lr=float("nan")), ValueError, r"learning rate must be a finite number > 0, got nan"),
    Case("train-inf-lr", "train.train", "learning rate inf",
         lambda _: _train(lr=float("inf")), ValueError, r"learning rate must be a finite number > 0, got inf"),
    Case("train-text-lr", "train.train", "learning rate '0.01' (text)",
         lambda _: _train(lr="0.01"), ValueError, r"learning rate must be a finite number > 0, got '0\.01'"),
    Case("train-float-seed", "train.train", "seed=1.5",
         lambda _: _train(seed=1.5), ValueError, r"seed must be a whole number >= 0, got 1\.5"),
    Case("train-text-seed", "train.train", "seed='a' (text)",
         lambda _: _train(seed="a"), ValueError, r"seed must be a whole number >= 0, got 'a'"),
    Case("train-negative-seed", "train.train", "seed=-1",
         lambda _: _train(seed=-1), ValueError, r"seed must be a whole number >= 0, got -1"),
    Case("train-path-corpus", "train.train", "a file path 'story.txt' as the corpus",
         lambda _: _train(corpus="story.txt"), ValueError,
         r"corpus must be a Corpus, got str: use text_corpus\(path\) for a text file"),
    Case("train-negative-seconds", "train.train", "max_seconds=-1",
         lambda _: _train(max_seconds=-1), ValueError,
         r"max_seconds must be a number > 0 \(or None for no time limit\), got -1"),
    Case("train-zero-seconds", "train.train", "max_seconds=0",
         lambda _: _train(max_seconds=0), ValueError, r"max_seconds must be a number > 0 .*got 0"),
    Case("train-loss-diverges", "train.train", "a learning rate so high the loss becomes NaN",
         lambda _: _train(lr=1e6, steps=20), FloatingPointError, r"loss became nan at step \d+ of 20.*lower learning"),
    Case("perplexity-too-short", "evaluate.perplexity", "50 ids (one window needs 129)",
         lambda _: perplexity(_MODEL, torch.arange(50)), ValueError, r"50 words is shorter than one window of 129"),
    Case("perplexity-2d", "evaluate.perplexity", "ids [2, 300]",
         lambda _: perplexity(_MODEL, torch.zeros(2, 300, dtype=torch.long)), ValueError, r"1-D.*\[2, 300\]"),
    Case("perplexity-list", "evaluate.perplexity", "a Python list of 300 ids",
         lambda _: perplexity(_MODEL, list(range(300))), ValueError,
         r"perplexity needs a 1-D torch tensor of word ids, got list \(.*torch\.tensor\(ids\)\)"),
    Case("clue-accuracy-list", "evaluate.clue_accuracy", "a Python list of 300 ids",
         lambda _: clue_accuracy(_MODEL, list(range(300)), []), ValueError,
         r"clue_accuracy needs a 1-D torch tensor of word ids, got list"),
    Case("head-removed-out-of-range", "evaluate.head_removed", "head 4 of a 4-head model",
         lambda _: _remove_head(4), ValueError, r"head must be one of 0\.\.3.*got 4"),
    # ---- helpers.checkpoints ----------------------------------------------------------------------------
    Case("checkpoint-truncated", "checkpoints.load_model", "weights file cut in half",
         _broken(_truncate), CheckpointError, r"model\.safetensors: the file is corrupt or was changed: its sha256"),
    Case("checkpoint-truncated-sha-matches", "checkpoints.load_model",
         "weights file cut in half, card's sha256 updated to match", _broken(lambda c, w: _truncate(c, w, True)),
         CheckpointError, r"model\.safetensors: cannot be read as safetensors"),
    Case("checkpoint-flipped-byte", "checkpoints.load_model", "one byte of the weights changed",
         _broken(_flip_a_byte), CheckpointError, r"model\.safetensors: the file is corrupt or was changed"),
    Case("checkpoint-empty-weights", "checkpoints.load_model", "an empty weights file (sha256 matching)",
         _broken(lambda c, w: (w.write_bytes(b""), _edit_card(c))), CheckpointError,
         r"model\.safetensors: cannot be read as safetensors"),
    Case("checkpoint-pickle", "checkpoints.load_model",
         "a pickle that runs code, in place of the weights (sha256 matching)", _broken(_pickle_instead),
         CheckpointError, r"model\.safetensors: cannot be read as safetensors"),
    Case("checkpoint-nan-weights", "checkpoints.load_model", "a NaN inside the weights (sha256 matching)",
         _broken(_nan_weight), CheckpointError, r"tensor lm_head\.bias holds NaN or infinite values"),
    Case("checkpoint-wrong-vocabulary", "checkpoints.load_model", "card says vocabulary 1000, weights have 1024",
         _broken(lambda c, w: _edit_card(c, vocab_size=1000)), CheckpointError,
         r"tok_emb\.weight is \[1024, 128\] but the card's config \(.*vocabulary 1000\) needs \[1000, 128\]"),
    Case("checkpoint-wrong-width", "checkpoints.load_model", "card says width 64, weights have 128",
         _broken(lambda c, w: _edit_card(c, width=64)), CheckpointError,
         r"is \[1024, 128\] but the card's config \(.*width 64.*\) needs \[1024, 64\]"),
    Case("checkpoint-wrong-heads", "checkpoints.load_model",
         "card says 4 heads with an output projection, weights are one head without",
         _broken(lambda c, w: _edit_card(c, heads=4, out_proj=True)), CheckpointError,
         r"do not match the card's config \(4 head\(s\).*missing \['attn\.proj\.bias', 'attn\.proj\.weight'\]"),
    Case("checkpoint-indivisible-heads", "checkpoints.load_model", "card says 3 heads (128 does not split in 3)",
         _broken(lambda c, w: _edit_card(c, heads=3)), CheckpointError,
         r"model\.json: bad config .*not divisible by 3 heads"),
    Case("checkpoint-heads-disagree", "checkpoints.load_model",
         "card says 4 heads without an output projection, weights are one head (every shape the same)",
         _broken(lambda c, w: _edit_card(c, heads=4)), CheckpointError,
         r"model\.safetensors: the card model\.json does not match the config the weights were saved with: "
         r"heads 4 on the card, 1 in the weights"),
    Case("checkpoint-no-metadata", "checkpoints.load_model",
         "weights saved without their config in the metadata (sha256 matching)", _broken(_drop_metadata),
         CheckpointError, r"model\.safetensors: has no config in its metadata"),
    Case("checkpoint-unknown-name", "checkpoints.load_model", "the name 'five_heads'",
         lambda _: load_model("five_heads"), ValueError, r"unknown checkpoint 'five_heads': choose one of one_head"),
    Case("checkpoint-not-a-name", "checkpoints.load_model", "a number instead of a name or path",
         lambda _: load_model(4), ValueError, r"name \(one_head, four_heads, novel_one_head, novel_four_heads\) or"),
    Case("checkpoint-missing-card", "checkpoints.load_model", "the path of a .json card that does not exist",
         lambda tmp: load_model(tmp / "gone.json"), CheckpointError, r"gone\.json: checkpoint card not found"),
    Case("checkpoint-missing-weights", "checkpoints.load_model", "a card whose weights file was deleted",
         _broken(lambda c, w: w.unlink()), CheckpointError, r"model\.safetensors: weights file not found"),
    Case("checkpoint-card-not-json", "checkpoints.load_model", "a card that is not JSON",
         _broken(lambda c, w: c.write_text("{oops")), CheckpointError, r"model\.json: is not a readable JSON"),
    Case("checkpoint-card-not-ours", "checkpoints.load_model", "a JSON card of something else",
         _broken(lambda c, w: c.write_text('{"a": 1}')), CheckpointError,
         r"model\.json: is not a Several Spotlights checkpoint card"),
    Case("checkpoint-card-no-sha", "checkpoints.load_model", "a card without its sha256",
         _broken(_edit_json(lambda card: card.pop("sha256"))), CheckpointError, r"model\.json: the card lacks sha256"),
    Case("checkpoint-bad-tokenizer", "checkpoints.load_model", "a card whose tokenizer lists 10 words",
         _broken(_edit_json(lambda card: card["tokenizer"].update(words=card["tokenizer"]["words"][:10]))),
         CheckpointError, r"model\.json: a tokenizer needs exactly 1024 entries, got 10"),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input_raises_a_clear_error(case: Case, tmp_path: Path) -> None:
    with pytest.raises(case.error, match=case.says):
        case.call(tmp_path)


# ---- the explorer (tests/test_explorer.py covers the rest; the catalogue names those tests) ------------


def _stub_loader(name: str) -> CourseModel:
    """An untrained stand-in for a checkpoint, so these tests do not depend on assets/."""
    model = course_model(heads=4 if name == "four_heads" else 1, seed=0).eval()
    model.tokenizer = _TOK
    return model


def test_explorer_says_a_sentence_must_be_text_and_keeps_working() -> None:
    explorer = Explorer(model="four_heads", sentence="the fox crosses the bridge .", loader=_stub_loader)
    words, att = list(explorer.words), explorer.att.clone()
    explorer.set_sentence(42)  # must not raise
    assert re.search(r"a sentence must be text, got int\. The heatmap still shows the previous sentence\.",
                     explorer.problem)
    assert "a sentence must be text, got int" in explorer.message.value
    assert explorer.words == words and torch.equal(explorer.att, att), "the last good sentence stays on show"
    explorer.set_sentence("the boy walks to the bank .")
    assert explorer.problem == "" and len(explorer.words) == 7


def test_read_sentence_needs_a_model_with_a_tokenizer() -> None:
    with pytest.raises(ValueError, match=r"no tokenizer: load it with helpers\.checkpoints\.load_model"):
        read_sentence(course_model(heads=1), "the fox crosses the bridge .")


# ---- rows where the right answer is not an exception ---------------------------------------------------


def test_a_pickled_checkpoint_is_never_unpickled(tmp_path: Path) -> None:
    control = tmp_path / "control"
    control.mkdir()
    pickle.loads(pickle.dumps(_RunsCode(control)))  # the pickle is live: unpickling it does create the file
    assert (control / "PWNED").exists()
    with pytest.raises(CheckpointError, match="cannot be read as safetensors"):
        _broken(_pickle_instead)(tmp_path)
    assert not (tmp_path / "PWNED").exists()
    assert load_model(_checkpoint(tmp_path, "sound")).config.heads == 1  # while a sound checkpoint loads


def test_empty_text_gives_no_ids_and_the_model_says_so() -> None:
    assert _TOK.encode("   \n") == []
    with pytest.raises(ValueError, match=r"empty.*at least one word"):
        _MODEL(torch.tensor(_TOK.encode("   \n"), dtype=torch.long))


def test_unknown_words_and_emoji_are_reported_not_dropped() -> None:
    enc = _TOK.encode_with_report("The xylophone 🙂 walks home")
    assert enc.words == ["the", "<unk>", "<unk>", "walks", "home"]
    assert enc.unknown == ["xylophone", "🙂"]
    assert enc.ids[1] == enc.ids[2] == 0 and len(enc.ids) == 5


def test_only_unknown_words_still_run_through_the_model() -> None:
    enc = _TOK.encode_with_report("xylophone quasar zeppelin")
    assert enc.unknown == ["xylophone", "quasar", "zeppelin"] and set(enc.ids) == {0}
    with torch.no_grad():
        logits = _MODEL(torch.tensor(enc.ids))
    assert logits.shape == (1, 3, 1024) and torch.isfinite(logits).all()


def test_a_file_of_only_emoji_builds_a_tokenizer_of_emoji(tmp_path: Path) -> None:
    tok = Tokenizer.from_text_file(_file("emoji.txt", "🙂 🚀 🙂".encode())(tmp_path))
    assert tok.encode("🙂 🚀 🌵") == [tok.ids["🙂"], tok.ids["🚀"], 0]


# ---- the catalogue and the tests stay in step --------------------------------------------------------


def _catalogue_rows() -> list[list[str]]:
    rows = []
    for line in CATALOGUE.read_text(encoding="utf-8").split("## Not yet handled")[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].isdigit():
            rows.append(cells)
    return rows


def test_catalogue_matches_the_tests() -> None:
    """Every case here has a row; every row names a case here or an existing test function in tests/."""
    rows = _catalogue_rows()
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1)), "rows must be numbered 1, 2, 3, ..."
    assert len(rows) >= 30
    named = [name for r in rows for name in re.findall(r"`([^`]+)`", r[-1])]
    case_ids = {case.id for case in CASES}
    assert len(case_ids) == len(CASES), "case ids must be unique"
    assert case_ids <= set(named), f"cases missing from the catalogue: {sorted(case_ids - set(named))}"
    test_source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py"))
    for name in set(named) - case_ids:
        file, _, test_name = name.rpartition("::")
        source = (ROOT / file).read_text(encoding="utf-8") if file else test_source
        assert re.search(rf"def {re.escape(test_name)}\(", source), f"catalogue names a missing test {name}"
