"""Every checkpoint the series ships, in one place: what `load_model`, the explorer and the widgets read.

Each entry says the checkpoint's file name in `assets/` (without extension), its number of heads, the text
it learned, its partner (the shipped checkpoint of the same size that learned the other text) and where its
example sentences come from. Its menu label is made from these. A learner's own checkpoints (written by
`python -m helpers.train --out FOLDER`) get entries of the same kind from `helpers.checkpoints.find_checkpoints`.
`ASSETS` is the folder of the shipped files. This module only describes; it reads no file.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

ASSETS = Path(str(files("helpers.assets")))
"""The shipped files (the repository's assets/, installed as the package helpers.assets): found the same way in a
checkout installed with `pip install -e .` and in a regular install from a wheel or git URL."""

STORY_WORLD = "story world"
"""The made-up stories of the course (helpers.stories): the text the chapters' models learn."""
NOVELS = "novels"
"""Three public-domain novels (helpers.novels): the real text of chapters 5 and 6."""
OWN_TEXT = "your text"
"""A learner's own text file (`python -m helpers.train --text FILE --out FOLDER`) whose card does not name it."""
CARD = "card"
"""Example sentences from the checkpoint's own card: held-out sentences of the text it learned."""


def heads_named(heads: int, kind: str = "") -> str:
    """A head count as messages and titles say it: "1 head", "4 heads", "2 untrained heads"."""
    return f"{heads} {kind + ' ' if kind else ''}head{'s' if heads != 1 else ''}"


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint: `name` is what `load_model` takes (a shipped name, or a learner's card path)."""

    name: str
    heads: int
    text: str  # the text it learned: STORY_WORLD, NOVELS, a learner's file name ("my_book.txt") or OWN_TEXT
    examples: str  # where its example sentences come from: STORY_WORLD, NOVELS or CARD
    partner: str = ""  # the shipped checkpoint of the same size that learned the other text, if any
    folder: str = ""  # a learner's checkpoint: the folder it was saved in, to tell it from the shipped ones

    @property
    def label(self) -> str:
        """The model menu's label: "four heads, story world", "one head, my_book.txt (mine)"."""
        return f"{heads_in_words(self.heads)}, {self.text}" + (f" ({self.folder})" if self.folder else "")

    @property
    def title(self) -> str:
        """What a figure's title calls it: "4-head model" for the story world, else with the text (and a learner's
        folder, as the menu's label names both): "one-head model (novels)", "4-head model (my_book.txt, mine)"."""
        name = ("one-head" if self.heads == 1 else f"{self.heads}-head") + " model"
        if self.folder:
            return f"{name} ({self.text}, {self.folder})"
        return name if self.text == STORY_WORLD else f"{name} ({self.text})"


SHIPPED = (
    Checkpoint("one_head", 1, STORY_WORLD, examples=STORY_WORLD, partner="novel_one_head"),
    Checkpoint("four_heads", 4, STORY_WORLD, examples=STORY_WORLD, partner="novel_four_heads"),
    Checkpoint("novel_one_head", 1, NOVELS, examples=NOVELS, partner="one_head"),
    Checkpoint("novel_four_heads", 4, NOVELS, examples=NOVELS, partner="four_heads"),
)
"""The checkpoints in assets/, in the order of the explorer's model menu."""

DEFAULT = "four_heads"
"""What `load_model()` and `explore()` open when given no name."""


def shipped(name: object) -> Checkpoint | None:
    """The shipped checkpoint called `name`, or None."""
    return next((c for c in SHIPPED if c.name == name), None)


def shipped_names() -> tuple[str, ...]:
    """The shipped checkpoints' names, in menu order."""
    return tuple(c.name for c in SHIPPED)


def trained_on(text: str, heads: int) -> Checkpoint:
    """The shipped checkpoint with `heads` heads that learned `text` (STORY_WORLD or NOVELS)."""
    found = next((c for c in SHIPPED if c.text == text and c.heads == heads), None)
    if found is None:
        raise ValueError(f"no shipped checkpoint with {heads_named(heads)} learned the {text}")
    return found


def default_name(heads: int) -> str:
    """File name (no extension) for a model with `heads` heads, as the story-world checkpoints are named:
    one_head, four_heads; 2_heads, 8_heads, ... for the others."""
    named = next((c.name for c in SHIPPED if c.text == STORY_WORLD and c.heads == heads), None)
    return named or f"{heads}_heads"


def card_names() -> tuple[str, ...]:
    """The cards `python -m helpers.train --out FOLDER` writes for the shipped head counts: one_head.json, ..."""
    return tuple(f"{default_name(heads)}.json" for heads in sorted({c.heads for c in SHIPPED}))


def heads_in_words(heads: int) -> str:
    """How the menus and labels say a head count: "one head", "four heads", "8 heads"."""
    words = {1: "one head", 2: "two heads", 4: "four heads"}
    return words.get(heads, f"{heads} heads")
