"""A sentence read by a trained model: its words as the model sees them, their labels, its attention, summaries.

The explorer, the chapter widgets and chapter 6 all read sentences this way, so the rules (unknown words keep
what was typed, long sentences are trimmed to the context, empty input gets a clear message) live here once.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from helpers.checkpoints import checkpoint_paths, load_model
from helpers.model import LanguageModel
from helpers.threads import one_thread
from helpers.tokenizer import UNK, split

Loader = Callable[[str], LanguageModel]
"""Checkpoint name -> model: how widgets get their models (tests pass small fakes)."""

_loaded: dict[tuple[str, int], LanguageModel] = {}


def load_cached(name: str) -> LanguageModel:
    """helpers.checkpoints.load_model, but each checkpoint is read from disk only once per session, and again
    when its weights file changed (a learner trained into the same folder again)."""
    try:
        key = (str(name), checkpoint_paths(name)[1].stat().st_mtime_ns)
    except (OSError, ValueError):  # no such checkpoint: load_model says why
        return load_model(name)
    if key not in _loaded:
        _loaded[key] = load_model(name)
    return _loaded[key]


@dataclass(frozen=True)
class Reading:
    """A sentence as the model reads it: ids [T], the words it sees ('<unk>' for unknown), the words as
    typed (`originals`, the same length: an unknown word keeps its text there) and notes."""

    ids: list[int]
    words: list[str]
    notes: list[str]
    originals: list[str]


def _invisible(char: str) -> bool:
    """A character that shows nothing: a space, a joiner, an emoji's variation selector, a control character."""
    return char.isspace() or unicodedata.category(char) in ("Cf", "Mn", "Zs", "Cc")


def shown(word: str, longest: int = 30) -> str:
    """A typed word as notes, menus and labels name it: an invisible character (a joiner inside an emoji) by its
    code, and a very long word cut, so that neither leaves an empty name nor pushes the widget off the screen."""
    if word and all(_invisible(char) for char in word):
        return " ".join(f"U+{ord(char):04X}" for char in word) + " (invisible)"
    return word if len(word) <= longest else f"{word[: longest - 10]}… ({len(word):,} characters)"


def read_sentence(model: LanguageModel, text: str) -> Reading:
    """Tokenize `text` for `model`, trim it to the context, and explain anything surprising in notes.

    Raises ValueError (with a message for the learner) when there is nothing the model could read.
    """
    if not isinstance(text, str):
        raise ValueError(f"a sentence must be text, got {type(text).__name__}.")
    if all(_invisible(char) for char in text):
        hidden = f" (only invisible characters, {shown(text.strip())})" if text.strip() else ""
        raise ValueError(f"Empty sentence{hidden}: type a few words or pick an example.")
    if model.tokenizer is None:
        raise ValueError("this model has no tokenizer: load it with helpers.checkpoints.load_model")
    enc = model.tokenizer.encode_with_report(text)
    if not enc.ids:
        raise ValueError(f"No words found in {text!r}: the model reads words and punctuation.")
    ids, words, notes = list(enc.ids), list(enc.words), []
    originals = [shown(word) for word in split(text)]  # the words as typed: an unknown word keeps its text
    if enc.unknown:
        unknown = list(dict.fromkeys(map(shown, enc.unknown)))
        more = f" and {len(unknown) - 8} more" if len(unknown) > 8 else ""
        listed = ", ".join(f"'{w}'" for w in unknown[:8]) + more
        notes.append(f"Not in the model's vocabulary, shown as <unk>: {listed}.")
    if all(w == UNK or not is_word(w) for w in words):  # punctuation is known everywhere
        learnt = (getattr(model, "card", None) or {}).get("corpus", "").split(" (")[0]  # 'novels (...)': 'novels'
        where = f"the text this model learned ({learnt})" if learnt else "a sentence in the list"
        known = [f"'{w}'" for w in dict.fromkeys(words) if w != UNK]  # marks: the others are unknown
        listed = ", ".join(known[:-1]) + " and " * (len(known) > 1) + "".join(known[-1:])
        marks = f" (the model knows only {listed})" if known else ""
        notes.append((f"None of these words are known{marks}" if enc.unknown else "Only punctuation marks here")
                     + f", so the heatmap can only show word positions: type words from {where}.")
    if len(ids) == 1 and not notes:  # a known word: nothing else explains the single square
        notes.append("One word can only look at itself, so all its weight is on it: give it a few more words to see a "
                     "spotlight spread.")
    context = model.config.context
    if len(ids) > context:
        notes.append(f"The sentence has {len(ids):,} words, more than the model's context of {context}: "
                     f"showing the first {context}.")
        ids, words, originals = ids[:context], words[:context], originals[:context]
    return Reading(ids, words, notes, originals)


def attention(model: LanguageModel, ids: Sequence[int]) -> torch.Tensor:
    """The model's attention weights [H, T, T] for one sentence of word ids."""
    with torch.no_grad(), one_thread():
        _, att = model(torch.tensor(ids, dtype=torch.long), return_attention=True)  # att [1, H, T, T]
    return att[0]


def unique_labels(words: Sequence[str]) -> list[str]:
    """Labels that tell repeated words apart, in figures and summaries alike: 'the', 'the (2)'.

    Plotly merges equal category labels, so a heatmap needs them; the summaries in words use the same ones.
    """
    seen: dict[str, int] = {}
    labels = []
    for w in words:
        seen[w] = seen.get(w, 0) + 1
        labels.append(w if seen[w] == 1 else f"{w} ({seen[w]})")
    return labels


def is_word(token: str) -> bool:
    """A word, not a punctuation mark (nor an emoji): it has a letter or a digit."""
    return any(c.isalnum() for c in token)


def last_word(words: Sequence[str]) -> int:
    """Position of the last real word (not a punctuation mark): where the explorer focuses first."""
    return max((i for i, w in enumerate(words) if is_word(w)), default=len(words) - 1)


def summarise(row: torch.Tensor, words: Sequence[str], top: int = 2, least: float = 0.0,
              names: Sequence[str] | None = None) -> str:
    """The strongest weights of one word's spotlight in words: "animal 61%, street 12%". After the strongest, a
    word is named only with at least `least` of the weight (the explorer leaves out a "to 0%" that way); `names`,
    if given, say the words instead (the explorer's: quoted, an unknown word with what was typed)."""
    labels = list(names) if names is not None else unique_labels(words)
    weights, where = row.topk(min(top, row.shape[0]))
    pairs = list(zip(weights.tolist(), where.tolist(), strict=True))
    kept = pairs[:1] + [(w, j) for w, j in pairs[1:] if w >= least]
    return ", ".join(f"{labels[j]} {w:.0%}" for w, j in kept)
