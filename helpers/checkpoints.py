"""Save and load trained course models: weights in safetensors (cannot run code when loaded) + a JSON card.

The JSON card holds the config, seed, steps, scores, the sha256 of the weights file, the command that
reproduces it and the tokenizer. The weights file's metadata holds the config too, because tensor shapes
alone cannot tell 1 head from 4 (every head count that divides the width gives the same shapes).
`load_model` checks all of it before handing back a model, and refuses a truncated, corrupt or
mismatched file with a `CheckpointError` naming the file and the problem.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from helpers.model import CourseConfig, CourseModel, count_parameters
from helpers.tokenizer import Tokenizer

if TYPE_CHECKING:
    from helpers.train import TrainResult

ASSETS = Path(__file__).resolve().parent.parent / "assets"
NAMES = ("one_head", "four_heads")
NOVEL_NAMES = ("novel_one_head", "novel_four_heads")  # the same models trained on the novels (helpers.novels)
_FORMAT = "several-spotlights-checkpoint"


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt, or does not match what its JSON card says."""


def default_name(heads: int) -> str:
    """File name (no extension) for a model with `heads` heads: one_head, four_heads, 2_heads, ..."""
    return {1: "one_head", 4: "four_heads"}.get(heads, f"{heads}_heads")


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def save_checkpoint(result: TrainResult, stem: str | Path, command: str) -> Path:
    """Write `stem`.safetensors and `stem`.json for a training result; returns the JSON path."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    weights = stem.with_suffix(".safetensors")
    model = result.model
    tensors = {name: t.detach().contiguous() for name, t in model.state_dict().items()}
    save_file(tensors, str(weights), metadata=weights_metadata(model.config))
    weights.chmod(0o644)  # readable like the card beside it
    card = {
        "format": _FORMAT,
        "version": 1,
        "weights": weights.name,
        "sha256": sha256(weights),
        "config": model.config.to_dict(),
        "params": count_parameters(model),
        "seed": result.seed,
        "steps": result.steps,
        "corpus": result.corpus,
        "val_ppl": round(result.val_ppl, 4),
        "clue_accuracy": result.clue_accuracy,
        "train_seconds": round(result.seconds, 2),
        "tokens_per_s": round(result.tokens_per_s),
        "command": command,
        "tokenizer": model.tokenizer.to_dict(),
    }
    path = stem.with_suffix(".json")
    path.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    return path


def weights_metadata(config: CourseConfig) -> dict[str, str]:
    """The safetensors metadata of a weights file: its format and the config it was trained with."""
    return {"format": _FORMAT, "config": json.dumps(config.to_dict(), sort_keys=True)}


def checkpoint_paths(name_or_path: str | Path) -> tuple[Path, Path]:
    """(card .json, weights .safetensors) for "one_head", "four_heads", or a path to either file."""
    if isinstance(name_or_path, str) and name_or_path in NAMES + NOVEL_NAMES:
        stem = ASSETS / name_or_path
    elif isinstance(name_or_path, (str, Path)):
        stem = Path(name_or_path)
        if stem.suffix in (".json", ".safetensors"):
            stem = stem.with_suffix("")
        elif not stem.with_suffix(".json").exists():
            raise ValueError(
                f"unknown checkpoint {str(name_or_path)!r}: choose one of {', '.join(NAMES + NOVEL_NAMES)} "
                "or give the path of a .json / .safetensors checkpoint file"
            )
    else:
        raise ValueError(f"checkpoint must be a name ({', '.join(NAMES)}) or a path, got {type(name_or_path).__name__}")
    return stem.with_suffix(".json"), stem.with_suffix(".safetensors")


def read_card(card_path: Path) -> dict:
    """The JSON card of a checkpoint, checked for the entries load_model needs."""
    if not card_path.is_file():
        raise CheckpointError(f"{card_path}: checkpoint card not found")
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


def load_model(name_or_path: str | Path = "four_heads") -> CourseModel:
    """A trained course model in eval mode, with `.tokenizer` and `.card` (its JSON card) attached. A card with
    notes (a checkpoint trained on a text too short or too unusual to compare heads) prints them once a session.

    name_or_path: "one_head", "four_heads" (story world), "novel_one_head", "novel_four_heads" (the novels),
    or the path of a checkpoint's .json or .safetensors file.
    """
    card_path, weights = checkpoint_paths(name_or_path)
    card = read_card(card_path)
    if not weights.is_file():
        raise CheckpointError(f"{weights}: weights file not found (its card is {card_path})")
    digest = sha256(weights)
    if digest != card["sha256"]:
        raise CheckpointError(
            f"{weights}: the file is corrupt or was changed: its sha256 is {digest[:12]}..., "
            f"the card {card_path.name} expects {str(card['sha256'])[:12]}..."
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


_NOTED: set[Path] = set()  # cards whose notes were printed in this session


def _repeat_notes(card_path: Path, card: dict) -> None:
    """Print a card's notes (what its training text could not show) the first time it loads in a session."""
    notes = card.get("notes") or []
    if notes and card_path.resolve() not in _NOTED:
        _NOTED.add(card_path.resolve())
        for note in notes:
            print(textwrap.fill(f"Note on {card_path.name}: {note}", 100))


def _check_tensors(model: CourseModel, tensors: dict[str, torch.Tensor], weights: Path, config: CourseConfig) -> None:
    """Every tensor the config needs is in the file, with the right shape, and nothing else."""
    expected = model.state_dict()
    missing = sorted(set(expected) - set(tensors))
    extra = sorted(set(tensors) - set(expected))
    sizes = f"{config.heads} head(s), width {config.width}, vocabulary {config.vocab_size}"
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
