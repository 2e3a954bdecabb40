"""The shipped real-text corpus: three public-domain novels, split into training, validation and test text,
and eight public-domain plays (writing of another kind, used only to choose the training recipe).

    corpus = novel_corpus()                      # train on 90% of each book, score on the next 5%
    corpus = novel_corpus(share=0.25)            # the first quarter of that training text only
    corpus = novel_corpus(evaluate_on="test")    # the last 5% of each book: for reported numbers only
    corpus = sweep_corpus("shakespeare_plays")   # one text alone, its own vocabulary, scored on validation

`assets/novels.txt.gz` holds the books one after another, each opened by a `=== BOOK: name ===` line
(see `assets/novels.md` for where they come from); `assets/plays.txt.gz` holds eight plays the same way
(`assets/plays.md`). Every book is cut the same way, in reading order:
the first 90% of its words to train on, the next 5% to choose a recipe by (validation), the last 5% for
the numbers we report (test). The vocabulary (1,023 most frequent words plus `<unk>`) is built from the
whole training text and kept whatever `share` is used, so perplexities stay comparable between shares.
"""

from __future__ import annotations

import gzip
import re
from functools import lru_cache
from pathlib import Path

import torch

from helpers.corpus import Corpus
from helpers.registry import ASSETS
from helpers.tokenizer import Tokenizer, read_text_file, split

NOVELS_FILE = ASSETS / "novels.txt.gz"
PLAYS_FILE = ASSETS / "plays.txt.gz"
BOOKS = ("pride_and_prejudice", "moby_dick", "war_and_peace")
PLAYS = "shakespeare_plays"
SWEEP_TEXTS = (*BOOKS, PLAYS)
"""The texts the recipe is chosen on, each alone: the three novels and the plays (writing of another kind)."""
SPLITS = ("train", "validation", "test")
TRAIN_SHARE, VALIDATION_SHARE = 0.90, 0.05  # of each book's words; the test text is the rest
_BOOK_LINE = re.compile(r"^=== BOOK: (\w+) ===$", re.MULTILINE)


def _read_parts(path: Path) -> dict[str, str]:
    """{part name: its text} from a shipped gzip file of `=== BOOK: name ===` parts, in the file's order."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: a shipped text is missing; restore it from git")
    pieces = _BOOK_LINE.split(gzip.decompress(path.read_bytes()).decode("utf-8"))[1:]  # [name, text, ...]
    return {name: body.strip() for name, body in zip(pieces[::2], pieces[1::2], strict=True)}


@lru_cache(maxsize=1)
def read_novels() -> dict[str, str]:
    """{book name: its text} from the shipped file, in the order of BOOKS."""
    books = _read_parts(NOVELS_FILE)
    if tuple(books) != BOOKS:
        raise ValueError(f"{NOVELS_FILE}: expected the books {BOOKS}, found {tuple(books)}")
    return books


@lru_cache(maxsize=1)
def read_plays() -> dict[str, str]:
    """{play name: its text} from the shipped plays file."""
    return _read_parts(PLAYS_FILE)


def _cut(texts: list[str]) -> dict[str, tuple[list[str], ...]]:
    """{split: one word list per text}: each text cut in reading order into train / validation / test."""
    per_text = []
    for text in texts:
        words = split(text)
        train_end = int(len(words) * TRAIN_SHARE)
        val_end = int(len(words) * (TRAIN_SHARE + VALIDATION_SHARE))
        per_text.append((words[:train_end], words[train_end:val_end], words[val_end:]))
    return {name: tuple(part[i] for part in per_text) for i, name in enumerate(SPLITS)}


@lru_cache(maxsize=1)
def novel_words() -> dict[str, tuple[list[str], ...]]:
    """{split: one word list per book}: each book cut in reading order into train / validation / test."""
    return _cut(list(read_novels().values()))


def sweep_corpus(text: str, path: str | Path | None = None) -> Corpus:
    """One text alone, as a learner's own file would be: a vocabulary of its own training text's 1,023 most
    frequent words, trained on its training text and scored on its validation text (never test). `text` is one
    of SWEEP_TEXTS, or with `path` the name of a text the series does not ship (read from that UTF-8 file and
    cut like the others: the first 90% of its words to train on, the next 5% to validate)."""
    if path is not None:
        words = _cut([read_text_file(path)])
        train, validation = words["train"][0], words["validation"][0]
    elif text not in SWEEP_TEXTS:
        raise ValueError(f"text must be one of {', '.join(SWEEP_TEXTS)} (or give the path of a file), got {text!r}")
    elif text == PLAYS:
        words = _cut(list(read_plays().values()))
        train, validation = ([word for part in words[name] for word in part] for name in SPLITS[:2])
    else:
        i = BOOKS.index(text)
        train, validation = novel_words()["train"][i], novel_words()["validation"][i]
    tok = Tokenizer.from_text(" ".join(train), source=f"{text} (training text)")
    ids = [torch.tensor([tok.ids.get(word, 0) for word in part], dtype=torch.long) for part in (train, validation)]
    return Corpus(f"{text} (scored on validation)", tok, *ids)


@lru_cache(maxsize=1)
def novel_tokenizer() -> Tokenizer:
    """The 1,023 most frequent words of the training text (all of it), plus <unk>."""
    train_text = " ".join(" ".join(book) for book in novel_words()["train"])
    return Tokenizer.from_text(train_text, source="novels (training text)")


def _ids(books: tuple[list[str], ...], share: float = 1.0) -> torch.Tensor:
    """Word ids [N] of the first `share` of every book's words, the books one after another."""
    tok = novel_tokenizer()
    ids = [tok.ids.get(word, 0) for book in books for word in book[: round(len(book) * share)]]
    return torch.tensor(ids, dtype=torch.long)


def novel_corpus(share: float = 1.0, evaluate_on: str = "validation") -> Corpus:
    """The novels as a training Corpus: the first `share` of each book's training text, scored on
    `evaluate_on` ("validation" to choose a recipe, "test" only for the numbers reported)."""
    if not isinstance(share, (int, float)) or isinstance(share, bool) or not 0 < share <= 1:
        raise ValueError(f"share must be a number in (0, 1], the part of the training text to use, got {share!r}")
    if evaluate_on not in SPLITS[1:]:
        raise ValueError(f"evaluate_on must be 'validation' or 'test', got {evaluate_on!r}")
    words = novel_words()
    name = f"novels ({share:.0%} of the training text, scored on {evaluate_on})"
    return Corpus(name, novel_tokenizer(), _ids(words["train"], share), _ids(words[evaluate_on]))


def unknown_share(ids: torch.Tensor) -> float:
    """Share of word ids that are <unk> (id 0): words outside the 1,024-word vocabulary."""
    return float((ids == 0).float().mean()) if len(ids) else 0.0


def novel_examples(per_book: int = 2, min_words: int = 8, max_words: int = 18) -> list[str]:
    """Whole sentences from each book's test text made only of words in the vocabulary (no <unk>):
    examples the real-text models know every word of, as the model sees them (lower case, split)."""
    tokenizer = novel_tokenizer()
    return [sentence for book in novel_words()["test"]
            for sentence in tokenizer.known_sentences(book, per_book, min_words, max_words)]
