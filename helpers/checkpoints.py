"""Save and load trained course models: weights in safetensors (cannot run code when loaded) + a JSON card.

The JSON card holds the config, seed, steps, scores, the sha256 of the weights file, the command that
reproduces it, the tokenizer and a few example sentences from the held-out text. The weights file's metadata
holds the config too, because tensor shapes alone cannot tell 1 head from 4 (every head count that divides the
width gives the same shapes). `load_model` checks all of it before handing back a model, and refuses a
truncated, corrupt or mismatched file with a `CheckpointError` naming the file and the problem.

A checkpoint is named by a shipped name (helpers.registry), or by a path: a card (.json) or weights file
(.safetensors), or a folder written by `python -m helpers.train --out FOLDER`. `find_checkpoints` describes
what a name or path stands for, so the explorer can list a learner's own models beside the shipped ones.
"""

from __future__ import annotations

import hashlib
import json
import math
import textwrap
from pathlib import Path
from typing import Any, Protocol

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from helpers.model import CourseConfig, CourseModel, LanguageModel, count_parameters
from helpers.needs import ExplainedError
from helpers.registry import (
    ASSETS,
    CARD,
    DEFAULT,
    OWN_TEXT,
    Checkpoint,
    card_names,
    default_name,
    heads_named,
    shipped,
    shipped_names,
)
from helpers.tokenizer import Tokenizer, near_name

EXAMPLES = 6
"""How many held-out sentences a card written with its held-out text keeps as examples."""
MOST_UNKNOWN = 2
"""The most <unk> an example sentence from a learner's held-out text may hold."""
PIECE_WORDS = 12
"""Words in a piece of held-out text, the example when the text has no sentence of 8 to 18 words."""
_FORMAT = "several-spotlights-checkpoint"


class CheckpointError(ValueError, ExplainedError):
    """A checkpoint file is missing, corrupt, or does not match what its JSON card says (its message says which,
    and a chapter shows it without a traceback)."""


class Trained(Protocol):
    """What save_checkpoint reads from a training run (a helpers.train.TrainResult)."""

    model: LanguageModel
    seed: int
    steps: int
    corpus: str
    val_ppl: float
    clue_accuracy: dict[str, float]
    seconds: float
    tokens_per_s: float
    lr: float
    best_step: int


def json_number(value: float) -> float | None:
    """`value` to 4 decimals, or None (JSON's null) for a score beyond a float, which strict JSON cannot hold."""
    return round(value, 4) if math.isfinite(value) else None


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def save_checkpoint(result: Trained, stem: str | Path, command: str, **entries: Any) -> Path:
    """Write `stem`.safetensors and `stem`.json for a training result; returns the JSON path.

    The card records the steps taken and, in `best_step`, the step whose weights were kept (0: the last), and
    any further `entries` (a learner's run adds its notes, recipe and held-out example sentences).
    """
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    weights = stem.with_suffix(".safetensors")
    model = result.model
    tensors = {name: t.detach().contiguous() for name, t in model.state_dict().items()}
    save_file(tensors, str(weights), metadata=weights_metadata(model.config))
    weights.chmod(0o644)  # readable like the card beside it
    tokenizer = model.tokenizer
    card = {
        "format": _FORMAT,
        "version": 1,
        "weights": weights.name,
        "sha256": sha256(weights),
        "config": model.config.to_dict(),
        "params": count_parameters(model),
        "seed": result.seed,
        "steps": result.steps,
        "stopped_early": result.stopped_early,  # why it took fewer steps than its command asks, if it did
        "best_step": result.best_step,
        "lr": result.lr,
        "corpus": result.corpus,
        "val_ppl": json_number(result.val_ppl),
        "clue_accuracy": result.clue_accuracy,
        "train_seconds": round(result.seconds, 2),
        "tokens_per_s": round(result.tokens_per_s),
        "command": command,
        "tokenizer": tokenizer.to_dict(),
    } | entries
    path = stem.with_suffix(".json")
    path.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    return path


def held_out_examples(tokenizer: Tokenizer, words: list[str], count: int = EXAMPLES,
                      most_unknown: int = MOST_UNKNOWN) -> list[str]:
    """Up to `count` sentences of `words` (held-out text, split) for the explorer, those with the fewest unknown
    words first (none with more than `most_unknown`), each group in reading order; if the text has no such
    sentence, pieces of PIECE_WORDS words in a row, the same way.

    A learner's text often has no 8-to-18-word sentence whose every word is among its 1,023 most frequent
    ones; a sentence with one or two unknown words, or a piece of one, still shows where the heads look. The
    words stay as written: the explorer reads an unknown one as <unk> and names it ('<unk> = lighthouse')."""
    def unknown(text: str) -> int:
        return tokenizer.encode(text).count(0)

    def prose(text: str) -> bool:  # not code ('python - m benchmarks .') nor a number cut at its point ('at 0 .')
        said = text.split()
        return sum(not word[0].isalnum() for word in said) <= len(said) // 4 and not said[-2].isdigit()

    found = [s for s in tokenizer.known_sentences(words, len(words), max_unknown=most_unknown) if prose(s)]
    if not found:
        pieces = [" ".join(words[i : i + PIECE_WORDS]) for i in range(0, len(words) - PIECE_WORDS + 1, PIECE_WORDS)]
        found = [piece for piece in pieces if unknown(piece) <= most_unknown]
    unique = list(dict.fromkeys(found))  # a text that repeats itself offers each sentence once
    return sorted(unique, key=unknown)[:count]  # stable: reading order


def weights_metadata(config: CourseConfig) -> dict[str, str]:
    """The safetensors metadata of a weights file: its format and the config it was trained with."""
    return {"format": _FORMAT, "config": json.dumps(config.to_dict(), sort_keys=True)}


def checkpoint_paths(name_or_path: str | Path) -> tuple[Path, Path]:
    """(card .json, weights .safetensors) for a shipped name, the path of either file, or a folder holding one
    checkpoint."""
    if shipped(name_or_path) is not None:
        stem = ASSETS / str(name_or_path)
    elif isinstance(name_or_path, (str, Path)):
        path = Path(name_or_path).expanduser()
        if path.is_dir():
            stem = _one_card(path).with_suffix("")
        elif path.suffix in (".json", ".safetensors"):
            stem = path.with_suffix("")
        elif path.with_suffix(".json").is_file() and not path.is_file():  # "mine/four_heads": the card's stem
            stem = path
        else:
            raise _unknown(name_or_path)
    else:
        raise ValueError(f"checkpoint must be a name ({', '.join(shipped_names())}) or a path, "
                         f"got {type(name_or_path).__name__}")
    return stem.with_suffix(".json"), stem.with_suffix(".safetensors")


def find_checkpoints(name_or_path: str | Path) -> list[Checkpoint]:
    """What a name or path stands for: a shipped name gives its registry entry; a folder written by
    `python -m helpers.train --out FOLDER` gives one entry per card in it (fewest heads first); the path of a
    card (or its weights) gives that card's entry. Raises CheckpointError (or ValueError) saying what was
    looked for."""
    entry = shipped(name_or_path)
    if entry is not None:
        return [entry]
    if isinstance(name_or_path, (str, Path)) and Path(name_or_path).expanduser().is_dir():
        cards = cards_in(Path(name_or_path).expanduser())
        if not cards:
            raise _unknown(name_or_path)
    else:
        cards = [checkpoint_paths(name_or_path)[0]]
    found = [_own_checkpoint(card) for card in cards]
    return sorted(found, key=lambda c: (c.heads, c.name))


def _own_checkpoint(card_path: Path) -> Checkpoint:
    """The registry entry of a learner's card: its heads, the text it learned, its folder in the label."""
    card = read_card(card_path)
    heads = card["config"].get("heads") if isinstance(card["config"], dict) else None
    if not isinstance(heads, int) or heads < 1:
        raise CheckpointError(f"{card_path}: bad config {card['config']}: heads must be a whole number >= 1")
    folder = card_path.parent.resolve().name
    if card_path.stem != default_name(heads):  # several cards with these heads may share the folder
        folder += f"/{card_path.stem}"
    corpus = card.get("corpus")
    text = corpus if isinstance(corpus, str) and corpus else OWN_TEXT  # "story world", or the file it learned
    return Checkpoint(str(card_path), heads, text, examples=CARD, folder=folder)


def cards_in(folder: Path) -> list[Path]:
    """The checkpoint cards in `folder` (other .json files are left alone)."""
    cards = []
    for path in sorted(folder.glob("*.json")):
        try:
            card = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(card, dict) and card.get("format") == _FORMAT:
            cards.append(path)
    return cards


def _one_card(folder: Path) -> Path:
    """The one card in `folder`, or a CheckpointError naming what is there."""
    cards = cards_in(folder)
    if not cards:
        raise _unknown(folder)
    if len(cards) > 1:
        raise CheckpointError(
            f"{folder.resolve()}: holds {len(cards)} checkpoints ({', '.join(c.name for c in cards)}): "
            f"give the path of one card, such as {cards[-1]}"
        )
    return cards[0]


def _unknown(name_or_path: str | Path) -> CheckpointError:
    """The message for a name or path where no checkpoint is: what was looked for, a near name if there is one,
    then the shipped names."""
    resolved = Path(name_or_path).expanduser().resolve()
    expected = " or ".join(card_names())
    trained = _trained_on(resolved.name) if resolved.is_file() else []
    if trained:  # the text a learner's models learned, given in place of the folder they were saved in
        return CheckpointError(f"{resolved} is the text your models learned, not a checkpoint: give the folder "
                               f"that training wrote, {str(trained[0])!r}.")
    if resolved.is_file():  # most likely the text a learner means to train on
        folders = ("../mine", *(f"../mine{n}" for n in range(2, 100)))  # not one that holds models already
        out = next(folder for folder in folders if not cards_in(Path(folder)))
        return CheckpointError(
            f"{resolved} is a file but not a checkpoint: if it is a text, train on it first. In a notebook cell, "
            f"after `import sys`: `!{{sys.executable}} -m helpers.train --heads 4 --text {name_or_path} --out {out}` "
            f"(and `--heads 1` for the other model), then give the folder that wrote, {out!r}.")
    where = (f"{resolved} holds no checkpoint card" if resolved.is_dir()
             else f"Nothing is at {resolved}" + ("" if resolved.suffix else f" or {resolved}.json"))
    one_up = Path("..") / name_or_path  # a notebook runs in notebooks/; `--out` wrote from the folder above
    relative = not Path(name_or_path).is_absolute() and not resolved.exists()
    near = None if resolved.exists() else near_name(Path(name_or_path)) or (relative and near_name(one_up))
    if relative and one_up.exists():
        where += f". There is {one_up.resolve()}: from a notebook, give {str(one_up)!r}"
    elif near:
        where += f". There is one with a close name: {str(near)!r}"
    return CheckpointError(
        f"unknown checkpoint {str(name_or_path)!r}. {where}. Choose one of {', '.join(shipped_names())}, or give "
        f"your own: the folder that `python -m helpers.train --out FOLDER` wrote (holding {expected}) or the path "
        "of a .json card in it."
    )


def _trained_on(text: str) -> list[Path]:
    """Folders beside here, then one up (chapter 5 trains into ../mine), holding a checkpoint that learned `text`."""
    folders = [folder for where in (Path("."), Path(".."))
               for folder in sorted({card.parent for card in where.glob("*/*.json")})]
    return [folder for folder in folders
            if any(json.loads(card.read_text(encoding="utf-8")).get("corpus") == text for card in cards_in(folder))]


def read_card(card_path: Path) -> dict:
    """The JSON card of a checkpoint, checked for the entries load_model needs."""
    if not card_path.is_file():
        cards = cards_in(card_path.parent) if card_path.parent.is_dir() else []
        there = f" {card_path.parent.resolve()} holds {', '.join(c.name for c in cards)}." if cards else ""
        raise CheckpointError(f"{card_path.resolve()}: checkpoint card not found.{there}")
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CheckpointError(f"{card_path}: is not a readable JSON checkpoint card ({err})") from None
    if not isinstance(card, dict) or card.get("format") != _FORMAT:
        raise CheckpointError(f"{card_path}: is not a Several Spotlights checkpoint card (format entry missing)")
    missing = [k for k in ("sha256", "config", "tokenizer") if k not in card]
    if missing:
        raise CheckpointError(f"{card_path}: the card lacks {', '.join(missing)}")
    return card


def load_model(name_or_path: str | Path = DEFAULT) -> CourseModel:
    """A trained course model in eval mode, with `.tokenizer` and `.card` (its JSON card) attached. A card with
    notes (a checkpoint trained on a text too short or too unusual to compare heads) prints them once a session.

    name_or_path: a shipped name ("one_head", "four_heads": story world; "novel_one_head", "novel_four_heads":
    the novels; helpers.registry lists them), the path of a checkpoint's .json or .safetensors file, or a folder
    holding one checkpoint (written by `python -m helpers.train --out FOLDER`).
    """
    card_path, weights = checkpoint_paths(name_or_path)
    card = read_card(card_path)
    if not weights.is_file():
        raise CheckpointError(f"{weights}: weights file not found (its card is {card_path})")
    digest = sha256(weights)
    if digest != card["sha256"]:
        raise CheckpointError(
            f"{weights}: the file is corrupt or was changed: its sha256 is {digest[:12]}..., "
            f"the card {card_path.name} expects {str(card['sha256'])[:12]}...; get the file again: reinstall the "
            "series (or run `git checkout assets` in its repository) for a model it ships, or train your own again"
        )
    try:
        config = CourseConfig(**card["config"])
    except (TypeError, ValueError) as err:
        raise CheckpointError(f"{card_path}: bad config {card['config']}: {err}") from None
    try:
        with safe_open(str(weights), framework="pt") as file:
            metadata = file.metadata() or {}
            tensors = {name: file.get_tensor(name) for name in file.keys()}
    except (SafetensorError, OSError, ValueError) as err:
        raise CheckpointError(f"{weights}: cannot be read as safetensors ({err})") from None
    model = CourseModel(config)
    _check_tensors(model, tensors, weights, config)
    _check_metadata(metadata, weights, card_path, config)
    model.load_state_dict(tensors)
    try:
        tokenizer = Tokenizer.from_dict(card["tokenizer"], where=str(card_path))
    except ValueError as err:
        raise CheckpointError(str(err)) from None
    if len(tokenizer) != config.vocab_size:
        raise CheckpointError(
            f"{card_path}: the tokenizer has {len(tokenizer)} words but the model expects {config.vocab_size}"
        )
    model.tokenizer = tokenizer
    model.card = card
    _repeat_notes(card_path, card)
    return model.eval()


_NOTED: set[tuple[Path, str]] = set()  # cards whose notes were printed in this session, with those notes


def _repeat_notes(card_path: Path, card: dict) -> None:
    """Print a card's notes (what its training text could not show) the first time it loads in a session, and
    again when a run into the same folder wrote new ones."""
    notes = card.get("notes") or []
    if notes and (seen := (card_path.resolve(), json.dumps(notes))) not in _NOTED:
        _NOTED.add(seen)
        for note in notes:
            print(textwrap.fill(f"Note on {card_path.name}: {note}", 100))


def _check_tensors(model: CourseModel, tensors: dict[str, torch.Tensor], weights: Path, config: CourseConfig) -> None:
    """Every tensor the config needs is in the file, with the right shape, and nothing else."""
    expected = model.state_dict()
    missing = sorted(set(expected) - set(tensors))
    extra = sorted(set(tensors) - set(expected))
    sizes = f"{heads_named(config.heads)}, width {config.width}, vocabulary {config.vocab_size}"
    if missing or extra:
        raise CheckpointError(
            f"{weights}: tensors do not match the card's config ({sizes}): "
            f"missing {missing or 'none'}, unexpected {extra or 'none'}"
        )
    for name, want in expected.items():
        got = tensors[name]
        if got.shape != want.shape:
            raise CheckpointError(
                f"{weights}: tensor {name} is {list(got.shape)} but the card's config ({sizes}) "
                f"needs {list(want.shape)}"
            )
        if not torch.isfinite(got).all():
            raise CheckpointError(f"{weights}: tensor {name} holds NaN or infinite values")


def _check_metadata(metadata: dict[str, str], weights: Path, card_path: Path, config: CourseConfig) -> None:
    """The config saved inside the weights file is the card's config (shapes alone cannot tell head counts)."""
    if "config" not in metadata:
        raise CheckpointError(
            f"{weights}: has no config in its metadata, so nothing shows it was trained with the card "
            f"{card_path.name}'s config; save it again with helpers.checkpoints.save_checkpoint"
        )
    try:
        saved = CourseConfig(**json.loads(metadata["config"])).to_dict()
    except (TypeError, ValueError) as err:
        raise CheckpointError(f"{weights}: unreadable config in its metadata ({err})") from None
    card = config.to_dict()
    differences = [f"{key} {card[key]} on the card, {saved.get(key)} in the weights"
                   for key in card if card[key] != saved.get(key)]
    if differences:
        raise CheckpointError(
            f"{weights}: the card {card_path.name} does not match the config the weights were saved with: "
            + "; ".join(differences)
        )
