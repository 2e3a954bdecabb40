"""Word-level tokenizer with exactly 1,024 entries, so the course model's parameter counts hold.

Text is lower-cased and split into words; each punctuation mark is its own token. Entry 0 is
"<unk>", used for any word the vocabulary lacks (and reported, never silently). The story world's
tokenizer also has "<story>", the separator that opens each story. It has far fewer than 1,024
distinct words, so the remaining entries are "<reserved-NNNN>" placeholders that never occur in
text: the course model has a 1,024-word vocabulary, and its embedding and output layers (and so its
328,704 / 345,216 parameters) are sized by it. A tokenizer built from a user's file keeps that
file's 1,023 most frequent words.
"""

from __future__ import annotations

import difflib
import json
import operator
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from helpers.stories import STORY_START, story_vocabulary

VOCAB_SIZE = 1024
UNK = "<unk>"
RESERVED = "<reserved-{:04d}>"
_FORMAT = "several-spotlights-tokenizer"
TITLES = frozenset({"mr", "mrs", "ms", "dr", "st", "prof", "rev", "capt", "col", "gen", "lt", "jr", "sr"})
"""Words whose abbreviation point ends no sentence (Mrs. Bennet), as split text writes them: lower case."""
MAX_TEXT_BYTES = 10_000_000  # twice the series' three novels together; more would take minutes just to read
_WORD = re.compile(rf"<unk>|{STORY_START}|\w+(?:'\w+)*|[^\w\s\ufeff]")
"""A word, or a mark of punctuation on its own; a byte-order mark (U+FEFF, which some editors put at the start
of a file) is neither, so it is skipped."""


_UNSPACED = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
"""A letter of a script written without spaces between words: Thai, Lao, Myanmar, Khmer, Japanese kana, Chinese."""
UNSPACED_TEXT = 0.3
"""A larger share of such letters (`unspaced_share`) makes a text one whose "words" are phrases."""
UNSPACED_HINT = ("its script is written without spaces between words, and the series splits words at spaces and "
                 "punctuation, so each phrase counts as one word: put a space between its words first")


def unspaced_share(words: Iterable[str]) -> float:
    """The share of the letters in `words` that belong to a script written without spaces between words and sit in
    a "word" of more than four letters: a phrase, as such a script reaches the series without spaces put in."""
    letters = together = 0
    for word in words:
        count = sum(char.isalpha() for char in word)
        letters += count
        together += sum(bool(_UNSPACED.match(char)) for char in word) if count > 4 else 0
    return together / max(letters, 1)


class Encoding(NamedTuple):
    """Result of `Tokenizer.encode_with_report`."""

    ids: list[int]  # one id per word
    words: list[str]  # the words as the model sees them, "<unk>" for unknown ones
    unknown: list[str]  # the original words that were not in the vocabulary, in order


def split(text: str) -> list[str]:
    """Lower-case `text` and split it into words and punctuation marks."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    return _WORD.findall(text.lower())


class Tokenizer:
    """Maps words to ids 0..1023 and back. Build with `from_words`, `from_text_file` or `load`."""

    def __init__(self, vocabulary: Sequence[str], source: str = "") -> None:
        words = list(vocabulary)
        if len(words) != VOCAB_SIZE:
            raise ValueError(f"a tokenizer needs exactly {VOCAB_SIZE} entries, got {len(words)}")
        if words[0] != UNK:
            raise ValueError(f"entry 0 must be {UNK!r}, got {words[0]!r}")
        if len(set(words)) != len(words):
            doubles = sorted(w for w, n in Counter(words).items() if n > 1)
            raise ValueError(f"the vocabulary lists these words more than once: {doubles[:5]}")
        self.words = words
        self.ids = {w: i for i, w in enumerate(words)}
        self.source = source

    # building ---------------------------------------------------------------------------------
    @classmethod
    def from_words(cls, words: Iterable[str], specials: Sequence[str] = (), source: str = "") -> Tokenizer:
        """<unk>, then `specials`, then `words` (most important first), then reserved fill up to 1,024."""
        vocabulary = [UNK, *specials]
        seen = set(vocabulary)
        for word in words:
            if word not in seen:
                vocabulary.append(word)
                seen.add(word)
        if len(vocabulary) > VOCAB_SIZE:
            raise ValueError(f"{len(vocabulary)} entries do not fit in {VOCAB_SIZE}: pass fewer words")
        vocabulary += [RESERVED.format(i) for i in range(VOCAB_SIZE - len(vocabulary))]
        return cls(vocabulary, source)

    @classmethod
    def from_text(cls, text: str, source: str = "text") -> Tokenizer:
        """The `text`'s 1,023 most frequent words (ties: first seen first), plus <unk>."""
        counts = Counter(split(text))
        if not counts:
            raise ValueError(f"{source}: has no words to build a vocabulary from")
        counts.pop(UNK, None)
        ranked = [w for w, _ in counts.most_common(VOCAB_SIZE - 1)]
        return cls.from_words(ranked, source=source)

    @classmethod
    def from_text_file(cls, path: str | Path) -> Tokenizer:
        """Tokenizer for a UTF-8 text file; empty, binary or non-UTF-8 files raise a ValueError."""
        return cls.from_text(read_text_file(path), source=str(path))

    # using ------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.words)

    @property
    def reserved(self) -> int:
        """How many entries are reserved fill (RESERVED), which no text fills: a vocabulary built from fewer than
        1,023 different words has some."""
        return sum(word.startswith(RESERVED.split("{")[0]) for word in self.words)

    def split(self, text: str) -> list[str]:
        """Lower-case and split into words and punctuation marks (before looking them up)."""
        return split(text)

    def encode_with_report(self, text: str) -> Encoding:
        """Ids, the words as the model sees them, and the list of words it did not know."""
        ids, seen, unknown = [], [], []
        for word in split(text):
            i = self.ids.get(word, 0)
            if i == 0 and word != UNK:  # a typed "<unk>" (as on an older card's examples) is the entry itself
                unknown.append(word)
            ids.append(i)
            seen.append(self.words[i])
        return Encoding(ids, seen, unknown)

    def encode(self, text: str) -> list[int]:
        """Text -> list of ids (unknown words become <unk>; use encode_with_report to see which)."""
        return self.encode_with_report(text).ids

    def known_sentences(self, words: Iterable[str], count: int, min_words: int = 8, max_words: int = 18,
                        max_unknown: int = 0) -> list[str]:
        """The first `count` whole sentences of `words` (split text) that this vocabulary knows every word of
        (or all but at most `max_unknown` words, kept as written: the model reads each as <unk>).

        A sentence ends at '.', '!' or '?', starts with a letter and has `min_words` to `max_words` words; it
        is returned as split (lower case, punctuation split off); the point after a title (Mr., Mrs., Dr.) ends
        none. The words before the first
        sentence end are skipped: a text cut out of a longer one may start in the middle of a sentence.
        Example sentences for a model: the novels' (helpers.novels) and a learner's held-out text
        (helpers.checkpoints) come from here.
        """
        found: list[str] = []
        sentence: list[str] | None = None  # None until the first sentence end
        before = ""
        for word in words:
            if len(found) == count:
                break
            if sentence is not None:
                sentence.append(word)
            ends = word in ("!", "?") or (word == "." and before not in TITLES)  # 'mrs . bennet' goes on
            before = word
            if ends:
                if (sentence is not None and min_words <= len(sentence) <= max_words and sentence[0].isalpha()
                        and sum(self.ids.get(w, 0) == 0 for w in sentence) <= max_unknown):
                    found.append(" ".join(sentence))
                sentence = []
        return found

    def decode(self, ids: Iterable[int]) -> str:
        """Ids -> text, words separated by spaces. Ids are whole numbers (ints, or integer tensor elements)."""
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
            raise ValueError(f"decode needs a list of word ids, got {type(ids).__name__}")
        words = []
        for given in ids:
            try:
                i = operator.index(given)  # an int, or a numpy / torch integer; never a float or text
            except TypeError:
                i = None
            if i is None or isinstance(given, bool):
                raise ValueError(f"word ids must be whole numbers, got {given!r}")
            if not 0 <= i < len(self.words):
                raise ValueError(f"word id {i} is outside the vocabulary 0..{len(self.words) - 1}")
            words.append(self.words[i])
        return " ".join(words)

    # saving -----------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"format": _FORMAT, "version": 1, "source": self.source, "words": self.words}

    @classmethod
    def from_dict(cls, data: dict, where: str = "tokenizer") -> Tokenizer:
        if not isinstance(data, dict) or data.get("format") != _FORMAT or not isinstance(data.get("words"), list):
            raise ValueError(f"{where}: is not a Several Spotlights tokenizer (no 'format'/'words' entries)")
        try:
            return cls(data["words"], data.get("source", ""))
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict()), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        try:
            data = json.loads(read_text_file(path))
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: is not valid JSON ({err.msg} at line {err.lineno})") from None
        return cls.from_dict(data, where=str(path))

    def __repr__(self) -> str:
        return f"Tokenizer({len(self)} entries, source={self.source!r})"


def _did_you_mean(path: Path) -> str:
    """A file a learner likely meant: the same name here (a path copied from JupyterLab's Save As dialog names
    the notebook's folder too), in uploads/ (where chapter 5 saves an upload), one folder up (the repository's
    root, seen from notebooks/), the name with .txt added, or a name a typo away in its folder; else what to do."""
    guesses = [Path(path.name), Path("uploads") / path.name, Path("..") / path.name, path.with_name(path.name + ".txt")]
    try:
        found = [guess for guess in guesses if guess != path and guess.is_file()]
    except OSError:  # a name the file system refuses: nothing to suggest
        return ""
    found += [near] if (near := near_name(path, cutoff=0.8, files_only=True)) else []
    here = f", in {Path.cwd()} itself" if found and found[0] == Path(path.name) != path else ""  # not path's folder
    return f"; did you mean '{found[0]}'{here}?" if found else "; put the file there, or give its full path"


def near_name(path: Path, cutoff: float = 0.7, files_only: bool = False) -> Path | None:
    """A file (or folder) beside `path` whose name is a typo or a capital letter away, as ../mine is for ../Mine."""
    try:
        names = [p.name for p in path.parent.iterdir() if p.is_file() or not files_only] if path.parent.is_dir() else []
    except OSError:  # a folder the file system will not list, or a name it refuses: nothing to suggest
        return None
    lower = {name.lower(): name for name in names}
    close = difflib.get_close_matches(path.name.lower(), list(lower), n=1, cutoff=cutoff)
    return path.with_name(lower[close[0]]) if close else None


def read_text_file(path: str | Path) -> str:
    """Contents of a UTF-8 text file, or a ValueError that names the file and what is wrong with it."""
    if not str(path).strip():  # Path("") is the current folder: say what was given instead
        raise ValueError("no file name was given (an empty name): give one in quotes, such as \"my_story.txt\"")
    path = Path(path)
    try:
        folder, file = path.is_dir(), path.is_file()
    except OSError:  # a name the file system refuses (too long): most likely a text pasted in its place
        folder = file = False
    if folder:
        texts = sorted(p.name for p in path.glob("*.txt"))[:3]
        inside = f" (it holds {', '.join(texts)}: give one of those)" if texts else ""
        raise ValueError(f"{path}: is a folder, not a text file{inside}")
    if not file:
        given = " ".join(str(path).split())
        if "\n" in str(path) or len(given.split()) > 5:  # a text pasted where its file's name goes
            raise ValueError(f"'{given[:30]}...' looks like a text itself, not a file's name: save the text as a .txt "
                             "file (in JupyterLab: File > New > Text File) and give the file's name")
        where = path.absolute().parent.resolve()  # where a relative name points: '../story.txt', one folder up
        raise ValueError(f"{path}: no such file" + ("" if path.is_absolute() else f" in the folder {where}")
                         + _did_you_mean(path))
    size = path.stat().st_size
    if size > MAX_TEXT_BYTES:
        raise ValueError(f"{path}: is {size / 1e6:.1f} MB, too large (the limit is {MAX_TEXT_BYTES / 1e6:.0f} MB, "
                         "twice the series' three novels together); save a part of it as its own file")
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ValueError(f"{path}: cannot be read ({err.strerror})") from None
    if not data.strip():
        raise ValueError(f"{path}: the file is empty; it needs some text")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # the byte-order mark of UTF-16 (Notepad's "Unicode")
        raise ValueError(f"{path}: is UTF-16 text; save it as UTF-8 (in Notepad: Save As, Encoding UTF-8)")
    if b"\x00" in data[:8192]:
        weights = path.suffix in (".safetensors", ".pt", ".pth", ".bin")
        kind = "a model's weights" if weights else "a picture, a PDF or a word processor's .docx or .odt"
        then = "give the text file itself" if weights else "a document can be saved as one first"
        raise ValueError(f"{path}: looks like a binary file ({kind}), not text: the series reads plain text "
                         f"(.txt); {then}")
    try:
        return data.decode("utf-8-sig")  # a byte-order mark at the start is dropped, not read as a word
    except UnicodeDecodeError as err:
        at = len(data) - len(err.object) + err.start  # err counts from after a byte-order mark
        before = data[max(0, at - 20):at].decode("utf-8", "replace").split("\n")[-1]
        raise ValueError(
            f"{path}: is not UTF-8 text (byte 0x{data[at]:02x} at position {at}, after {before!r}); it may be "
            "Latin-1 or Windows-1252, encodings older editors save in: open it in an editor, Save As with the "
            "encoding UTF-8, and try again"
        ) from None


def story_tokenizer() -> Tokenizer:
    """The story world's tokenizer: <unk>, <story>, every story-world word, reserved fill to 1,024."""
    return Tokenizer.from_words(story_vocabulary(), specials=(STORY_START,), source="story world")
