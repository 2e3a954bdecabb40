"""A text as word ids, split for training and validation, with its tokenizer: the story world or a file.

`story_corpus()` is the story world (generated from CORPUS_SEED, its validation stories from the next seed,
with the clues each word depends on); `text_corpus(path)` is a learner's UTF-8 file, with a vocabulary of its
own; helpers.novels cuts the shipped novels the same way. helpers.train trains on any of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import torch

from helpers.stories import Clue, generate_stories, join_stories
from helpers.tokenizer import (
    UNSPACED_HINT,
    UNSPACED_TEXT,
    Tokenizer,
    read_text_file,
    split,
    story_tokenizer,
    unspaced_share,
)

TRAIN_STORIES = 12_000
VAL_STORIES = 600
CORPUS_SEED = 12345  # the story world's text is the same for every training seed


@dataclass
class Corpus:
    """Token ids for training and validation, the tokenizer, and (story world only) the clue annotations."""

    name: str
    tokenizer: Tokenizer
    train_ids: torch.Tensor  # [N_train] long
    val_ids: torch.Tensor  # [N_val] long
    val_clues: list[Clue] = field(default_factory=list)  # positions index val_ids
    val_words: list[str] = field(default_factory=list)  # a file's validation words as written, unknown ones too

    @property
    def has_clues(self) -> bool:
        return bool(self.val_clues)


@lru_cache(maxsize=4)
def _story_ids(n_stories: int, seed: int) -> tuple[torch.Tensor, tuple[Clue, ...]]:
    stream = join_stories(generate_stories(n_stories, seed=seed))
    ids = torch.tensor(story_tokenizer().encode(" ".join(stream.words)), dtype=torch.long)
    return ids, tuple(stream.clues)


def story_validation(val_stories: int = VAL_STORIES) -> tuple[torch.Tensor, list[Clue]]:
    """The story world's validation text: word ids [N] and their clue annotations (cached)."""
    ids, clues = _story_ids(val_stories, CORPUS_SEED + 1)
    return ids, list(clues)


def story_corpus(train_stories: int = TRAIN_STORIES, val_stories: int = VAL_STORIES) -> Corpus:
    """The story world, generated from CORPUS_SEED (validation stories from the next seed); cached."""
    train_ids, _ = _story_ids(train_stories, CORPUS_SEED)
    val_ids, val_clues = story_validation(val_stories)
    return Corpus("story world", story_tokenizer(), train_ids, val_ids, val_clues)


def text_corpus(path: str | Path, context: int = 128) -> Corpus:
    """A user's UTF-8 text file: first 90% for training, last 10% to validate, and a vocabulary of the training
    part's 1,023 most frequent words (as for the novels: a word only the validation part has reads <unk>)."""
    words = split(read_text_file(path))
    n_val = max(len(words) // 10, context + 1)
    if len(words) - n_val < context + 1:
        raise ValueError(
            f"{path}: has {len(words)} word{'' if len(words) == 1 else 's'} (each punctuation mark counts as one), "
            f"too short to train on: it needs at least {2 * (context + 1)} ({context + 1} for one training window of "
            f"{context} words, as many again to validate)"
            + (f"; {UNSPACED_HINT}" if unspaced_share(words) > UNSPACED_TEXT else "")
        )
    train, validation = words[:-n_val], words[-n_val:]
    tok = Tokenizer.from_text(" ".join(train), source=f"{path} (training part)")
    ids = [torch.tensor([tok.ids.get(word, 0) for word in part], dtype=torch.long) for part in (train, validation)]
    return Corpus(Path(path).name, tok, *ids, val_words=validation)  # the file's name: no folders in titles


def split_said(corpus: Corpus) -> str:
    """How a text was split, in words, and why more than a tenth validates a short text."""
    train, validate = len(corpus.train_ids), len(corpus.val_ids)
    said = f"{corpus.name}: {train:,} words to train on, {validate:,} to validate (each punctuation mark a word)"
    if validate > (train + validate) // 10:  # a short text: the last tenth would not fill one window
        said += (f" ({validate / (train + validate):.0%} of the text, not a tenth: validation needs at least one "
                 "window's worth)")
    return said
