"""The shipped real-text corpus: three public-domain novels, split into training, validation and test text.

    corpus = novel_corpus()                      # train on 90% of each book, score on the next 5%
    corpus = novel_corpus(share=0.25)            # the first quarter of that training text only
    corpus = novel_corpus(evaluate_on="test")    # the last 5% of each book: for reported numbers only

`assets/novels.txt.gz` holds the books one after another, each opened by a `=== BOOK: name ===` line
(see `assets/novels.md` for where they come from). Every book is cut the same way, in reading order:
the first 90% of its words to train on, the next 5% to choose a recipe by (validation), the last 5% for
the numbers we report (test). The vocabulary (1,023 most frequent words plus `<unk>`) is built from the
whole training text and kept whatever `share` is used, so perplexities stay comparable between shares.
"""

from __future__ import annotations

import gzip
import json
import re
from functools import lru_cache

import torch

from helpers.checkpoints import ASSETS
from helpers.tokenizer import Tokenizer, split
from helpers.train import Corpus

NOVELS_FILE = ASSETS / "novels.txt.gz"
RESULTS_FILE = ASSETS / "real_text.json"
BOOKS = ("pride_and_prejudice", "moby_dick", "war_and_peace")
SPLITS = ("train", "validation", "test")
TRAIN_SHARE, VALIDATION_SHARE = 0.90, 0.05  # of each book's words; the test text is the rest
_BOOK_LINE = re.compile(r"^=== BOOK: (\w+) ===$", re.MULTILINE)


@lru_cache(maxsize=1)
def real_text_results() -> dict:
    """The measured real-text results (sweep, table, summary, examples); a clear error if the file is missing."""
    if not RESULTS_FILE.is_file():
        raise FileNotFoundError(f"{RESULTS_FILE}: not measured yet; run `python -m benchmarks.real_text table`")
    return json.loads(RESULTS_FILE.read_text())


@lru_cache(maxsize=1)
def read_novels() -> dict[str, str]:
    """{book name: its text} from the shipped file, in the order of BOOKS."""
    if not NOVELS_FILE.is_file():
        raise FileNotFoundError(f"{NOVELS_FILE}: the shipped novels are missing; restore it from git")
    text = gzip.decompress(NOVELS_FILE.read_bytes()).decode("utf-8")
    pieces = _BOOK_LINE.split(text)[1:]  # [name, text, name, text, ...]
    books = {name: body.strip() for name, body in zip(pieces[::2], pieces[1::2], strict=True)}
    if tuple(books) != BOOKS:
        raise ValueError(f"{NOVELS_FILE}: expected the books {BOOKS}, found {tuple(books)}")
    return books


@lru_cache(maxsize=1)
def novel_words() -> dict[str, tuple[list[str], ...]]:
    """{split: one word list per book}: each book cut in reading order into train / validation / test."""
    out: dict[str, tuple[list[str], ...]] = {}
    per_book = []
    for text in read_novels().values():
        words = split(text)
        train_end = int(len(words) * TRAIN_SHARE)
        val_end = int(len(words) * (TRAIN_SHARE + VALIDATION_SHARE))
        per_book.append((words[:train_end], words[train_end:val_end], words[val_end:]))
    for i, name in enumerate(SPLITS):
        out[name] = tuple(book[i] for book in per_book)
    return out


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
