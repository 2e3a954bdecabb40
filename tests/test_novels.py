"""The shipped texts: all three novels and eight plays load with their provenance, the splits are disjoint and in
reading order, shares shrink only the training text, and each sweep text stands alone."""

from __future__ import annotations

import pytest

from helpers import novels
from helpers.checkpoints import ASSETS
from helpers.tokenizer import split


def test_three_books_ship_with_their_provenance():
    books = novels.read_novels()
    assert tuple(books) == novels.BOOKS
    assert books["pride_and_prejudice"].startswith("Chapter 1") and "Call me Ishmael" in books["moby_dick"][:200]
    assert all("\u2019" not in text and "\u201c" not in text for text in books.values())  # quotes made plain
    provenance = (ASSETS / "novels.md").read_text()
    assert "public domain" in provenance and "Project Gutenberg" in provenance


def test_splits_cover_each_book_in_reading_order_without_overlap():
    words = novels.novel_words()
    for i, text in enumerate(novels.read_novels().values()):
        train, validation, test = (words[name][i] for name in ("train", "validation", "test"))
        assert train + validation + test == split(text)  # nothing lost, nothing repeated, order kept
        assert len(validation) == pytest.approx(0.05 * len(split(text)), abs=2) and len(test) >= len(validation) > 1000


def test_share_shrinks_only_the_training_text():
    full, quarter = novels.novel_corpus(), novels.novel_corpus(share=0.25)
    assert len(quarter.train_ids) == pytest.approx(len(full.train_ids) / 4, rel=0.001)
    assert quarter.val_ids.equal(full.val_ids) and quarter.tokenizer is full.tokenizer
    test = novels.novel_corpus(evaluate_on="test")
    assert len(test.val_ids) > 1000 and not test.val_ids[:1000].equal(full.val_ids[:1000])
    assert "test" in test.name and "validation" in full.name


def test_vocabulary_comes_from_training_text_and_unknown_share_is_measured():
    tok = novels.novel_tokenizer()
    assert len(tok) == 1024 and {"the", "whale", "elizabeth", "pierre"} <= set(tok.words)
    # about one word in six is outside 1,023 words
    assert 0.05 < novels.unknown_share(novels.novel_corpus().val_ids) < 0.3


@pytest.mark.parametrize(("make", "message"), [
    (lambda: novels.novel_corpus(share=0), "share"), (lambda: novels.novel_corpus(share=1.5), "share"),
    (lambda: novels.novel_corpus(share="all"), "share"), (lambda: novels.novel_corpus(evaluate_on="train"), "test"),
    (lambda: novels.sweep_corpus("hamlet"), "shakespeare_plays"),  # a sweep text's message names the texts it knows
])
def test_bad_arguments_get_clear_messages(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_examples_are_whole_sentences_the_novel_vocabulary_knows():
    examples = novels.novel_examples()
    assert len(examples) == 2 * len(novels.BOOKS)
    known = set(novels.novel_tokenizer().words)
    for sentence in examples:
        words = sentence.split()
        assert 8 <= len(words) <= 18 and words[-1] in ".!?" and set(words) <= known


def test_plays_ship_with_their_provenance_and_are_not_novels():
    plays = novels.read_plays()
    assert len(plays) == 8 and "hamlet" in plays and "HAMLET" in plays["hamlet"][:200]
    assert all("Gutenberg" not in text for text in plays.values())  # header and licence already removed
    provenance = (ASSETS / "plays.md").read_text()
    assert "public domain" in provenance and "shakespeare" in provenance and "Project Gutenberg" in provenance


@pytest.mark.parametrize("text", novels.SWEEP_TEXTS)
def test_each_sweep_text_stands_alone_with_its_own_vocabulary_and_validation_text(text):
    corpus = novels.sweep_corpus(text)
    assert len(corpus.tokenizer) == 1024 and corpus.tokenizer is not novels.novel_tokenizer()
    assert len(corpus.train_ids) > 100_000 and len(corpus.val_ids) > 5_000
    assert len(corpus.val_ids) == pytest.approx(len(corpus.train_ids) * 0.05 / 0.90, rel=0.01)


def test_a_sweep_text_the_series_does_not_ship_is_read_from_its_file_and_cut_like_the_others(tmp_path):
    words = [f"w{i % 50}" for i in range(2_000)]
    path = tmp_path / "outside.txt"
    path.write_text(" ".join(words), encoding="utf-8")
    corpus = novels.sweep_corpus("outside", path)
    assert (len(corpus.train_ids), len(corpus.val_ids)) == (1_800, 100)  # the first 90%, then the next 5%
    assert corpus.tokenizer.decode(corpus.val_ids[:3].tolist()).split() == words[1_800:1_803]
    assert corpus.name == "outside (scored on validation)"
