"""Facts quoted from the course, kept in one place so notebooks display them instead of retyping them.

The series reproduces these: the parameter counts 328,704 (one head) and 345,216 (four heads) are the
course model's (checked by tests/test_model.py), the 46.1 / 43.2 perplexities are the course's own measurement
on its text (shown beside the series' measurements, never compared as if from the same data), and the
768/12 and 4,096/32 rows are the course's layer at those sizes (see helpers.published_models for real models).
"""

from __future__ import annotations

from helpers.model import attention_layer_size

COURSE_TABLE = (
    {"model": "one attention head", "heads": 1, "params": 328_704, "perplexity": 46.1},
    {"model": "four heads instead of one", "heads": 4, "params": 345_216, "perplexity": 43.2},
)
"""The course's measured table: a small language model with one head vs four heads."""

ILLUSTRATION_SCORES = {"one spotlight": 0.35, "four spotlights": 0.75}
"""An illustration from the course video, not a measurement: the series measures its own instead."""

COURSE_SIZES = ((128, 4), (768, 12), (4096, 32))
"""(width, heads) rows of the course's table of model sizes: the course model, then 768 with 12 heads and 4,096
with 32."""

COURSE_EXAMPLES = (
    "He eagerly ran to the bank to deposit his check",
    "the animal that crossed the wet street was tired",
)
"""The course's example sentences: each word in them needs several clues at once."""

BANK_CLUES = {"person": "He", "mood": "eagerly", "action": "deposit"}
"""What the word 'bank' wants to look at in the first example, by kind of clue."""

ANIMAL_CLUES = {"the subject": "animal", "the grammar": "that", "the last word": "street"}
"""What helps guess the word after 'street' in the second example: the same three clues in every chapter."""


def course_size_table() -> list[dict[str, int]]:
    """attention_layer_size for each (width, heads) row of the course's table of model sizes."""
    return [attention_layer_size(width, heads) for width, heads in COURSE_SIZES]
