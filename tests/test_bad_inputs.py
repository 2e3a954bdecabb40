"""The catalogue of bad inputs (docs/bad_inputs.md): each case's error type, and that its message names the problem."""

import json
import pickle
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from helpers.attention import AttentionHead, MultiHeadAttention, causal_mask, spotlight
from helpers.chapter_widgets import InputError, spotlight_playground, step_through
from helpers.checkpoints import CheckpointError, load_model, save_checkpoint, sha256
from helpers.evaluate import clue_accuracy, head_removed, perplexity
from helpers.model import CourseConfig, attention_layer_size, count_parameters, course_model
from helpers.plots import attention_heatmap, heads_grid, spotlight_bars
from helpers.reading import read_sentence
from helpers.stories import generate_stories
from helpers.tokenizer import MAX_TEXT_BYTES, Tokenizer, story_tokenizer
from helpers.train import Corpus, text_corpus, train

ROOT = Path(__file__).resolve().parents[1]
_TOK, _MODEL = story_tokenizer(), course_model(heads=4, seed=0).eval()
_HEAD, _MHA = AttentionHead(8), MultiHeadAttention(8, 2)
_NO_ROW = torch.tensor([[True, False], [False, False]])  # the second word may look nowhere
_X = torch.randn(1, 4, 8)  # one sentence of 4 words, width 8
_SQ = torch.randn(2, 2)  # scores or values for two words
Case = Callable[[Path], object]  # a case's call, given the test's own folder


def _read(name: str, data: bytes, read: Case = Tokenizer.from_text_file) -> Case:
    """A case: `data` written to a file `name` in the test's folder, then `read`."""
    def call(folder: Path) -> object:
        (folder / name).write_bytes(data)
        return read(folder / name)

    return call


def _huge(tmp: Path) -> Path:
    with (tmp / "big.txt").open("wb") as file:
        file.truncate(MAX_TEXT_BYTES + 1)  # a sparse file: takes no disk space, but its size is too large
    return tmp / "big.txt"


def _folder(tmp: Path) -> Path:
    (tmp / "texts").mkdir()
    (tmp / "texts" / "my_book.txt").write_text("a text")
    return tmp / "texts"


def _tiny_corpus(words: int) -> Corpus:
    ids = torch.randint(0, 1024, (words,), generator=torch.Generator().manual_seed(0))
    return Corpus("tiny text", _TOK, ids, ids.clone())


def _train(**kwargs: object) -> object:
    settings = {"corpus": _tiny_corpus(400), "steps": 2, "batch_size": 2, "progress": False, "evaluate_at_end": False}
    return train(**{**settings, **kwargs})


def _tokenizer_json(text: str) -> Case:
    return _read("tokenizer.json", text.encode(), Tokenizer.load)


CASES: dict[str, tuple] = {  # the catalogue's test id: (call, what the message says[, error type])
    "spotlight-1d-scores": (lambda _: spotlight(torch.randn(4), torch.randn(4, 2)), r"at least 2 dimensions.*\[4\]"),
    "spotlight-words-mismatch": (lambda _: spotlight(torch.randn(4, 4), torch.randn(3, 2)), r"4 words.*hold 3 words"),
    "spotlight-list": (lambda _: spotlight([[1.0]], torch.randn(1, 2)), r"scores must be a torch tensor, got list"),
    "spotlight-int-scores": (lambda _: spotlight(torch.ones(2, 2, dtype=torch.long), _SQ), r"floating-point.*int64"),
    "spotlight-mixed-dtypes": (lambda _: spotlight(_SQ.double(), _SQ), r"float64.*float32"),
    "spotlight-no-words": (lambda _: spotlight(torch.randn(2, 0), torch.randn(0, 2)), r"no words to look at"),
    "spotlight-batch-mismatch": (lambda _: spotlight(torch.randn(3, 2, 2), torch.randn(2, 2, 2)), r"batch sizes"),
    "spotlight-mask-float": (lambda _: spotlight(_SQ, _SQ, torch.ones(2, 2)), r"boolean.*float32"),
    "spotlight-mask-list": (lambda _: spotlight(_SQ, _SQ, [[True, True]] * 2), r"mask must be a boolean .*got list"),
    "spotlight-mask-size": (lambda _: spotlight(_SQ, _SQ, causal_mask(3)), r"mask is \[3, 3\].*must be \[2, 2\]"),
    "spotlight-mask-all-false-row": (lambda _: spotlight(_SQ, _SQ, _NO_ROW), r"all False"),
    "spotlight-mask-batch": (lambda _: spotlight(_SQ.expand(3, 2, 2), _SQ.expand(3, 2, 2), torch.ones(2, 2, 2) > 0),
                             r"does not fit"),
    "causal-mask-zero": (lambda _: causal_mask(0), r"whole number of words >= 1, got 0"),
    "causal-mask-float": (lambda _: causal_mask(2.5), r"got 2\.5"),
    "head-rank-2": (lambda _: _HEAD(torch.randn(4, 8)), r"3-D input.*got \[4, 8\].*unsqueeze\(0\)"),
    "head-wrong-width": (lambda _: _HEAD(_X[..., :6]), r"\[1, 4, 6\].*expects width 8"),
    "head-integer-input": (lambda _: _HEAD(torch.ones(1, 4, 8, dtype=torch.long)), r"floating-point.*int64"),
    "head-numpy-input": (lambda _: _HEAD(np.zeros((1, 4, 8))), r"torch tensor.*got ndarray"),
    "head-float64-input": (lambda _: _HEAD(_X.double()), r"float64.*float32"),
    "head-no-words": (lambda _: _HEAD(torch.randn(1, 0, 8)), r"no words"),
    "head-zero-width": (lambda _: AttentionHead(0), r"whole numbers >= 1, got 0"),
    "head-float-width": (lambda _: AttentionHead(8.0), r"got 8\.0"),
    "mha-zero-heads": (lambda _: MultiHeadAttention(128, 0), r"heads >= 1, got heads=0"),
    "mha-float-heads": (lambda _: MultiHeadAttention(128, 2.0), r"got heads=2\.0"),
    "mha-mask-3d": (lambda _: _MHA(_X, mask=torch.ones(1, 4, 4, dtype=torch.bool)), r"2-D.*got \[1, 4, 4\]"),
    "mha-mask-size": (lambda _: _MHA(_X, mask=causal_mask(3)), r"mask is \[3, 3\].*\[4, 4\]"),
    "mha-mask-int": (lambda _: _MHA(_X, mask=torch.ones(4, 4, dtype=torch.long)), r"boolean.*int64"),
    "mha-mask-all-false-fused": (lambda _: _MHA(_X[:, :2], mask=_NO_ROW, need_weights=False), r"all False"),
    "model-list-ids": (lambda _: _MODEL([1, 2, 3]), r"torch tensor of word ids, got list"),
    "model-float-ids": (lambda _: _MODEL(torch.tensor([1.0, 2.0])), r"whole numbers.*float32"),
    "model-bool-ids": (lambda _: _MODEL(torch.tensor([True, False])), r"whole numbers.*bool"),
    "model-negative-ids": (lambda _: _MODEL(torch.tensor([-1, 2])), r"0\.\.1023, got values from -1"),
    "model-id-too-big": (lambda _: _MODEL(torch.tensor([5, 1024])), r"0\.\.1023.*to 1024"),
    "model-empty": (lambda _: _MODEL(torch.tensor(_TOK.encode("   \n"))), r"empty.*at least one word"),  # [] (float)
    "model-empty-batch": (lambda _: _MODEL(torch.zeros(0, 3, dtype=torch.long)), r"batch of 0"),
    "model-too-long": (lambda _: _MODEL(torch.zeros(129, dtype=torch.long)), r"129 words.*context of 128"),
    "model-3d-ids": (lambda _: _MODEL(torch.zeros(1, 1, 3, dtype=torch.long)), r"\[batch, words\], got shape \[1, 1"),
    "model-scalar-id": (lambda _: _MODEL(torch.tensor(3)), r"\[batch, words\], got shape \[\]"),
    "config-zero-heads": (lambda _: CourseConfig(heads=0), r"^heads must be a whole number >= 1, got 0$"),
    "config-bool-heads": (lambda _: CourseConfig(heads=True), r"^heads must be a whole number >= 1, got True$"),
    "config-out-proj-text": (lambda _: CourseConfig(out_proj="no"), r"out_proj must be True, False or None.*'no'"),
    "course-model-unknown-size": (lambda _: course_model(1, colour=3), r"argument 'colour'", TypeError),
    "count-parameters-not-model": (lambda _: count_parameters(3), r"nn\.Module.*got int"),
    "layer-size-float": (lambda _: attention_layer_size(128.0, 4),
                         r"^width and heads must be whole numbers >= 1, got 128\.0 and 4$"),
    "heatmap-3d": (lambda _: attention_heatmap(torch.rand(4, 3, 3), ["a", "b", "c"]), r"2-D .* got \[4, 3, 3\]"),
    "heatmap-words-mismatch": (lambda _: attention_heatmap(torch.rand(3, 3), ["a", "b"]), r"2 words .* \[3, 3\] grid"),
    "heatmap-missing-columns": (lambda _: attention_heatmap(torch.rand(3, 2), list("abc")), r"3 words .* \[3, 2\]"),
    "heatmap-ragged-rows": (lambda _: attention_heatmap([[0.5, 0.5], [1.0]], ["a", "b"]), r"grid of numbers.*a list"),
    "heads-grid-one-head": (lambda _: heads_grid(torch.rand(3, 3), ["a", "b", "c"]), r"\[heads, .* got \[3, 3\]"),
    "heads-grid-list": (lambda _: heads_grid([[[1.0]]], ["a"]), r"needs a \[heads, words, words\] tensor, got list"),
    "bars-words-mismatch": (lambda _: spotlight_bars(torch.rand(3), ["a", "b"]), r"2 words need 2 weights, got 3"),
    "step-through-no-words": (lambda _: step_through([], *[torch.zeros(0, 4)] * 3), r"needs at least one word"),
    "step-through-rows": (lambda _: step_through(["a", "b"], *[torch.zeros(3, 4)] * 3), r"\[2 words, D\], got \[3"),
    "playground-clue-not-in-sentence": (lambda _: spotlight_playground(["the", "fox"], torch.zeros(2, 1), ["f"],
                                                                       ["the", "fox", "zebra"]), r"got .*'zebra'"),
    "read-sentence-number": (lambda _: read_sentence(_MODEL, 42), r"a sentence must be text, got int"),
    "read-sentence-no-tokenizer": (lambda _: read_sentence(_MODEL, "the fox"), r"no tokenizer: load it with helpers"),
    "stories-zero": (lambda _: generate_stories(0), r"n_stories must be a whole number >= 1, got 0"),
    "encode-none": (lambda _: _TOK.encode(None), r"text must be a string, got NoneType"),
    "encode-bytes": (lambda _: _TOK.encode(b"the fox"), r"text must be a string, got bytes"),
    "decode-out-of-range": (lambda _: _TOK.decode([5000]), r"5000 is outside the vocabulary 0\.\.1023"),
    "decode-negative": (lambda _: _TOK.decode([-1]), r"-1 is outside the vocabulary"),
    "decode-word": (lambda _: _TOK.decode(["fox"]), r"word ids must be whole numbers, got 'fox'"),
    "decode-float": (lambda _: _TOK.decode([1.7]), r"word ids must be whole numbers, got 1\.7"),
    "decode-none": (lambda _: _TOK.decode(None), r"list of word ids, got NoneType"),
    "decode-text": (lambda _: _TOK.decode("the fox"), r"list of word ids, got str"),
    "file-empty": (_read("empty.txt", b"  \n"), r"empty\.txt: the file is empty"),
    "file-binary": (_read("picture.txt", b"\x89PNG\x00\x00\x01"), r"picture\.txt: looks like a binary.*plain text"),
    "file-weights": (_read("model.safetensors", b"\x08\x00\x00\x00{}"), r"\(a model's weights\).*the text file itself"),
    "file-not-utf8": (_read("notes.txt", "caf\xe9 cr\xe8me".encode("latin-1")), r"0xe9.*after 'caf'.*Latin-1"),
    "file-missing": (lambda tmp: Tokenizer.from_text_file(tmp / "nope.txt"), r"nope\.txt: no such file"),
    "file-folder": (lambda tmp: Tokenizer.from_text_file(_folder(tmp)), r"texts: is a folder.*holds my_book\.txt"),
    "file-huge": (lambda tmp: Tokenizer.from_text_file(_huge(tmp)), r"big\.txt: is 10\.0 MB, too large"),
    "text-no-words": (lambda _: Tokenizer.from_text(" "), r"no words to build a vocabulary"),
    "tokenizer-not-json": (_tokenizer_json("words, words"), r"tokenizer\.json: is not valid JSON"),
    "tokenizer-other-json": (_tokenizer_json('{"a": 1}'), r"is not a Several Spotlights tokenizer"),
    "tokenizer-short-vocabulary": (_tokenizer_json('{"format": "several-spotlights-tokenizer", "words": ["a", "b"]}'),
                                   r"exactly 1024 entries, got 2"),
    "train-text-too-short": (_read("short.txt", b"the fox ran home . " * 20, text_corpus),
                             r"short\.txt: has 100 words.*too short.*258"),
    "train-text-no-name": (lambda _: text_corpus(""), r"no file name was given.*in quotes"),  # not "is a folder"
    "train-text-pasted": (lambda _: text_corpus("Once upon a time a lamp\nwas lit."), r"a text itself.*New > Text"),
    "train-text-pasted-long": (lambda _: text_corpus("The lamp was lit at dusk. " * 20), r"a text itself"),
    "file-utf16": (_read("notepad.txt", "the fox".encode("utf-16")), r"notepad\.txt: is UTF-16 text; save it as UTF-8"),
    "train-corpus-too-short": (lambda _: _train(corpus=_tiny_corpus(100)), r"100 words is too short for one"),
    "train-zero-steps": (lambda _: _train(steps=0), r"steps must be a whole number >= 1, got 0"),
    "train-float-steps": (lambda _: _train(steps=1.5), r"steps must be a whole number >= 1, got 1\.5"),
    "train-text-steps": (lambda _: _train(steps="10"), r"steps must be a whole number >= 1, got '10'"),
    "train-indivisible-heads": (lambda _: _train(heads=3), r"not divisible by 3 heads"),
    "train-zero-batch": (lambda _: _train(batch_size=0), r"batch_size must be a whole number >= 1, got 0"),
    "train-zero-lr": (lambda _: _train(lr=0), r"learning rate must be a finite number > 0, got 0"),
    "train-nan-lr": (lambda _: _train(lr=float("nan")), r"learning rate must be a finite number > 0, got nan"),
    "train-inf-lr": (lambda _: _train(lr=float("inf")), r"learning rate must be a finite number > 0, got inf"),
    "train-text-lr": (lambda _: _train(lr="0.01"), r"learning rate must be a finite number > 0, got '0\.01'"),
    "train-float-seed": (lambda _: _train(seed=1.5), r"seed must be a whole number >= 0, got 1\.5"),
    "train-text-seed": (lambda _: _train(seed="a"), r"seed must be a whole number >= 0, got 'a'"),
    "train-negative-seed": (lambda _: _train(seed=-1), r"seed must be a whole number >= 0, got -1"),
    "train-path-corpus": (lambda _: _train(corpus="story.txt"), r"must be a Corpus, got str: use text_corpus\(path"),
    "train-negative-seconds": (lambda _: _train(max_seconds=-1), r"max_seconds must be a number > 0 .*got -1"),
    "train-zero-seconds": (lambda _: _train(max_seconds=0), r"max_seconds must be a number > 0 .*got 0"),
    "train-loss-diverges": (lambda _: _train(lr=1e6, steps=20), r"nan at step \d+ of 20.*lower", FloatingPointError),
    "perplexity-too-short": (lambda _: perplexity(_MODEL, torch.arange(50)), r"50 words is shorter than one window"),
    "perplexity-2d": (lambda _: perplexity(_MODEL, torch.zeros(2, 300, dtype=torch.long)), r"1-D.*\[2, 300\]"),
    "perplexity-list": (lambda _: perplexity(_MODEL, list(range(300))), r"perplexity needs a 1-D .* got list"),
    "clue-accuracy-list": (lambda _: clue_accuracy(_MODEL, list(range(300)), []), r"clue_accuracy .* got list"),
    "head-removed-out-of-range": (lambda _: head_removed(_MODEL, 4).__enter__(), r"head must be one of 0\.\.3.*got 4"),
    "checkpoint-unknown-name": (lambda _: load_model("five_heads"), r"unknown checkpoint 'five_heads'.*one_head"),
    "checkpoint-not-a-name": (lambda _: load_model(4), r"must be a name \(one_head, .*\) or a path, got int"),
}


def _checkpoint(folder: Path, name: str = "model") -> Path:
    """A real one-head checkpoint (one training step) in `folder`: name.json + name.safetensors; returns the .json."""
    return save_checkpoint(_train(heads=1, steps=1), folder / name, "python -m helpers.train --heads 1 --steps 1")


def _edit(card: Path, change: Callable[[dict], object]) -> None:
    data = json.loads(card.read_text(encoding="utf-8"))
    change(data)
    card.write_text(json.dumps(data), encoding="utf-8")


def _sha(damage: Callable[[Path, Path], object]) -> Callable[[Path, Path], None]:
    """The damage, then the card records the damaged weights' sha256, so loading gets past the sha256 check."""
    def damage_and_record(card: Path, weights: Path) -> None:
        damage(card, weights)
        _edit(card, lambda data: data.update(sha256=sha256(weights)))

    return damage_and_record


def _config(**config: object) -> Callable[[Path, Path], None]:
    return lambda card, _: _edit(card, lambda data: data["config"].update(config))


def _halve(card: Path, weights: Path) -> None:
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])


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


def _nan_weight(card: Path, weights: Path) -> None:
    tensors = load_file(str(weights))
    tensors["lm_head.bias"][3] = float("nan")
    save_file(tensors, str(weights))


BROKEN: dict[str, tuple] = {  # the catalogue's test id: (damage to the saved card and weights, what the message says)
    "checkpoint-truncated": (_halve, r"model\.safetensors: the file is corrupt or was changed: .*get the file again"),
    "checkpoint-truncated-sha-matches": (_sha(_halve), r"model\.safetensors: cannot be read as safetensors"),
    "checkpoint-flipped-byte": (_flip_a_byte, r"model\.safetensors: the file is corrupt or was changed"),
    "checkpoint-empty-weights": (_sha(lambda c, w: w.write_bytes(b"")), r"model\.safetensors: cannot be read as"),
    "checkpoint-nan-weights": (_sha(_nan_weight), r"tensor lm_head\.bias holds NaN or infinite values"),
    "checkpoint-wrong-vocabulary": (_config(vocab_size=1000), r"tok_emb\.weight is \[1024, 128\].*needs \[1000, 128\]"),
    "checkpoint-wrong-width": (_config(width=64), r"is \[1024, 128\].*width 64.*needs \[1024, 64\]"),
    "checkpoint-wrong-heads": (_config(heads=4, out_proj=True), r"\(4 heads,.*missing \['attn\.proj\.bias'"),
    "checkpoint-indivisible-heads": (_config(heads=3), r"model\.json: bad config .*not divisible by 3 heads"),
    "checkpoint-heads-disagree": (_config(heads=4), r"card model\.json does not match.*heads 4 on the card, 1 in"),
    "checkpoint-no-metadata": (_sha(lambda c, w: save_file(load_file(str(w)), str(w))), r"safetensors: has no config"),
    "checkpoint-missing-weights": (lambda c, w: w.unlink(), r"model\.safetensors: weights file not found"),
    "checkpoint-card-not-json": (lambda c, w: c.write_text("{oops"), r"model\.json: is not a readable JSON"),
    "checkpoint-card-not-ours": (lambda c, w: c.write_text('{"a": 1}'), r"model\.json: is not a Several Spotlights"),
    "checkpoint-card-no-sha": (lambda c, w: _edit(c, lambda d: d.pop("sha256")), r"model\.json: the card lacks sha256"),
    "checkpoint-bad-tokenizer": (lambda c, w: _edit(c, lambda card: card["tokenizer"].update(words=list("abcdefghij"))),
                                 r"model\.json: a tokenizer needs exactly 1024 entries, got 10"),
}


def _broken(damage: Callable[[Path, Path], object]) -> Case:
    """A case that saves a checkpoint, damages it (card path, weights path), then loads it."""
    def call(folder: Path) -> object:
        card = _checkpoint(folder)
        damage(card, card.with_suffix(".safetensors"))
        return load_model(card)

    return call


CASES.update({case: (_broken(damage), says, CheckpointError) for case, (damage, says) in BROKEN.items()})
CASES.update({case: (*CASES[case], InputError) for case in CASES if case.startswith(("step-through", "playground"))})


@pytest.mark.parametrize("case", CASES)
def test_bad_input_raises_a_clear_error(case: str, tmp_path: Path) -> None:
    call, says, *error = CASES[case]
    with pytest.raises(error[0] if error else ValueError, match=says):
        call(tmp_path)


# ---- rows where the right answer is not an exception ---------------------------------------------------
def test_a_pickled_checkpoint_is_never_unpickled(tmp_path: Path) -> None:
    pickle.loads(pickle.dumps(_RunsCode(tmp_path)))  # the pickle is live: unpickling it does create the file
    assert (tmp_path / "PWNED").exists()
    (tmp_path / "PWNED").unlink()
    with pytest.raises(CheckpointError, match=r"model\.safetensors: cannot be read as safetensors"):
        _broken(_sha(_pickle_instead))(tmp_path)
    assert not (tmp_path / "PWNED").exists() and load_model(_checkpoint(tmp_path, "sound")).config.heads == 1


def test_unknown_words_and_emoji_are_reported_not_dropped_and_still_run_through_the_model(tmp_path: Path) -> None:
    enc = _TOK.encode_with_report("The xylophone 🙂 walks home")
    assert enc.words == ["the", "<unk>", "<unk>", "walks", "home"] and enc.unknown == ["xylophone", "🙂"]
    assert enc.ids[1] == enc.ids[2] == 0 and len(enc.ids) == 5
    enc = _TOK.encode_with_report("xylophone quasar zeppelin")  # only unknown words
    assert enc.unknown == ["xylophone", "quasar", "zeppelin"] and set(enc.ids) == {0}
    logits = _MODEL(torch.tensor(enc.ids))
    assert logits.shape == (1, 3, 1024) and torch.isfinite(logits).all()
    tok = _read("emoji.txt", "🙂 🚀 🙂".encode())(tmp_path)  # a file of only emoji: a tokenizer of emoji
    assert tok.encode("🙂 🚀 🌵") == [tok.ids["🙂"], tok.ids["🚀"], 0]


def test_catalogue_matches_the_tests() -> None:
    """Rows are numbered 1, 2, ...; every case has a row; every row names a case or an existing test in tests/."""
    text = (ROOT / "docs" / "bad_inputs.md").read_text(encoding="utf-8")
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines() if re.match(r"\| \d", line)]
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1)) and len(rows) >= 30
    named = {name for r in rows for name in re.findall(r"`([^`]+)`", r[-1])}
    assert set(CASES) <= named, f"cases missing from the catalogue: {sorted(set(CASES) - named)}"
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py"))
    for name in named - set(CASES):
        file, _, test = name.rpartition("::")
        source = (ROOT / file).read_text(encoding="utf-8") if file else tests
        assert re.search(rf"def {re.escape(test)}\(", source), f"the catalogue names a missing test {name}"
