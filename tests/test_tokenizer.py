"""Word-level tokenizer: 1,024 entries, round trips, vocabularies from a text (bad inputs: test_bad_inputs)."""

from __future__ import annotations

import pytest

from helpers.stories import STORY_START, generate_stories
from helpers.tokenizer import UNK, VOCAB_SIZE, Tokenizer, read_text_file, split, story_tokenizer


def test_story_tokenizer_has_exactly_1024_entries():
    tok = story_tokenizer()
    assert len(tok) == VOCAB_SIZE == 1024 and tok.words[0] == UNK and tok.words[1] == STORY_START
    reserved = [w for w in tok.words if w.startswith("<reserved-")]
    assert len(reserved) == 1024 - 2 - len([w for w in tok.words if not w.startswith("<")])
    assert not any(split(w) == [w] for w in reserved)  # reserved entries can never come out of text
    with pytest.raises(ValueError, match="more than once"):  # too few entries: tokenizer-short-vocabulary
        Tokenizer([UNK] + ["a"] * 1023)


def test_split_lowercases_and_separates_punctuation():
    assert split("The FOX, who smiles.") == ["the", "fox", ",", "who", "smiles", "."]
    assert split("<story> it's") == ["<story>", "it's"]


def test_round_trip_on_stories():
    tok = story_tokenizer()
    for story in generate_stories(20, seed=3):
        ids = tok.encode(story.text)
        assert tok.decode(ids) == story.text  # so no word came back as <unk>, and encoding it again gives ids


def test_a_typed_unknown_marker_is_the_unknown_word_and_not_reported():
    """Unknown words are reported (test_bad_inputs); an example sentence's lost word typed back is not."""
    typed = story_tokenizer().encode_with_report(f"the fox hums a {UNK} .")
    assert typed.unknown == [] and typed.ids[4] == 0


def test_a_byte_order_mark_is_no_word(tmp_path):
    marked = tmp_path / "marked.txt"
    marked.write_bytes("\ufeffThe keeper lit the lamp.\n".encode())
    assert read_text_file(marked) == "The keeper lit the lamp.\n"
    assert split("the \ufeffkeeper\ufeff .") == ["the", "keeper", "."]  # one pasted inside the text as well
    assert "\ufeff" not in Tokenizer.from_text_file(marked).words


def test_a_missing_file_names_the_file_the_learner_likely_meant(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a notebook's folder, with an upload and a saved text in it
    (tmp_path / "uploads").mkdir()
    (tmp_path / "uploads" / "moby.txt").write_text("call me")
    (tmp_path / "my_story.txt").write_text("once")
    for given, meant in (("moby.txt", "uploads/moby.txt"), ("notebooks/my_story.txt", "my_story.txt"),
                         ("my_story", "my_story.txt"), ("my_stroy.txt", "my_story.txt")):  # a typo too
        with pytest.raises(ValueError, match=f"no such file.*did you mean '{meant}'"):
            read_text_file(given)
    with pytest.raises(ValueError, match="no such file"):  # a name too long for the file system: no suggestion
        read_text_file("x" * 400)
    monkeypatch.chdir(tmp_path / "uploads")  # a text at the repository's root, seen from notebooks/
    with pytest.raises(ValueError, match=r"did you mean '\.\./my_story\.txt'"):
        read_text_file("my_story.txt")
    with pytest.raises(ValueError, match=f"in the folder {tmp_path}; put the file there, or give its full path"):
        read_text_file("../absent.txt")  # the folder it looked in: one up from here


def test_more_than_1023_distinct_words_keeps_the_1023_most_frequent():
    text = " ".join(f"w{i}" for i in range(1500)) + " common" * 5
    tok = Tokenizer.from_text(text)
    assert len(tok) == 1024 and tok.words[1] == "common" and sum(not w.startswith("<") for w in tok.words) == 1023


def test_save_and_load_round_trip(tmp_path):
    tok = story_tokenizer()
    tok.save(tmp_path / "tok.json")
    again = Tokenizer.load(tmp_path / "tok.json")
    assert again.words == tok.words and again.source == tok.source


def test_known_sentences_are_whole_sentences_of_known_words():
    tok = Tokenizer.from_words(split("the fox sees a cat on the hill and runs home mr . ! ?"))
    text = ("sees a cat . mr . fox sees a cat on the hill and runs home . the zebra sees a cat on the hill . "
            "? the fox runs . a cat sees the fox on the hill and runs ! the fox sees a cat and runs home ?")
    # the first piece may be cut; 'mr .' ends none; 'zebra' is unknown; '?' starts with no letter; 3 words: short
    assert tok.known_sentences(split(text), 5, min_words=5) == [
        "mr . fox sees a cat on the hill and runs home .", "a cat sees the fox on the hill and runs !",
        "the fox sees a cat and runs home ?"]
    assert tok.known_sentences(split(text), 1, min_words=5) == ["mr . fox sees a cat on the hill and runs home ."]
    assert tok.known_sentences(split(text), 5, min_words=5, max_words=10) == ["the fox sees a cat and runs home ?"]
