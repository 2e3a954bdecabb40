"""Example sentences for each checkpoint, in the vocabulary of the text it learned.

The explorer offers them in its example list, its static copy precomputes them, and chapter 6 counts them.
Where each checkpoint's examples come from is an entry of helpers.registry: the course's sentences and the
story world's, the novel sentences recorded by the real-text benchmark, or a learner's own card.
"""

from __future__ import annotations

from collections.abc import Mapping

from helpers.course import COURSE_EXAMPLES
from helpers.own_text import real_text_results
from helpers.registry import CARD, NOVELS, Checkpoint
from helpers.stories import example_sentences


def default_examples() -> list[str]:
    """The story-world sentences followed by the course's example sentences (which use words outside it)."""
    return list(dict.fromkeys([*example_sentences(), *COURSE_EXAMPLES]))


def novel_examples() -> list[str]:
    """Sentences from the novels that the real-text models know every word of (assets/real_text.json),
    or the story-world examples when that file has none."""
    try:
        examples = real_text_results().get("examples") or []
    except (FileNotFoundError, ValueError):
        examples = []
    return list(dict.fromkeys(examples)) or default_examples()


def examples_for(checkpoint: Checkpoint, card: Mapping | None = None) -> list[str]:
    """The example sentences of `checkpoint`; a learner's come from its `card` (written by
    `python -m helpers.train --out`), or are the story-world examples when the card has none."""
    if checkpoint.examples == NOVELS:
        return novel_examples()
    return _card_examples(checkpoint, card) or default_examples()


def text_examples(checkpoint: Checkpoint, card: Mapping | None = None) -> list[str]:
    """The examples from the text the model learned, without the course's sentences (they use words outside
    the story world): where the explorer opens, and what its static copy precomputes."""
    if checkpoint.examples == NOVELS:
        return novel_examples()
    return _card_examples(checkpoint, card) or example_sentences()


def _card_examples(checkpoint: Checkpoint, card: Mapping | None) -> list[str]:
    """The sentences on a learner's card (none for a shipped checkpoint, or a card written without them)."""
    if checkpoint.examples != CARD:
        return []
    return list(dict.fromkeys((card or {}).get("examples") or []))  # each once, even on a card written before
