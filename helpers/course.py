"""Facts quoted from the course, kept in one place so notebooks display them instead of retyping them."""

from __future__ import annotations

COURSE_TABLE = (
    {"model": "one attention head", "heads": 1, "params": 328_704, "perplexity": 46.1},
    {"model": "four heads instead of one", "heads": 4, "params": 345_216, "perplexity": 43.2},
)
"""The course's measured table: a small language model with one head vs four heads."""

ILLUSTRATION_SCORES = {"one spotlight": 0.35, "four spotlights": 0.75}
"""An illustration from the course video, not a measurement: the series measures its own instead."""

COURSE_EXAMPLES = (
    "He eagerly ran to the bank to deposit his check",
    "the animal that crossed the wet street was tired",
)
"""The course's example sentences: each word in them needs several clues at once."""

BANK_CLUES = {"mood": "eagerly", "person": "He", "action": "deposit"}
"""What the word 'bank' wants to look at in the first example, by kind of clue."""

ANIMAL_CLUES = {"the subject": "animal", "the grammar": "that", "the last word": "street"}
"""What helps guess the word after 'street' in the second example: the same three clues in every chapter."""
