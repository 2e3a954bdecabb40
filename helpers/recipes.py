"""The training recipe for real text, chosen by a measured sweep (the story world keeps its own, in train.py).

TEXT_RECIPE is the setting with the lowest validation perplexity of the four-head model in
`python benchmarks/real_text.py sweep` (recorded in `assets/real_text.json` under "chosen"; a test checks
that the two agree). The issue that asked for it found lr 1e-2 worse than 3e-3 on real text after 1,500
steps; at the short training a busy shared machine allowed here (500 steps in the sweep), 1e-2 had the
lower validation perplexity, so that is what the recipe uses until a longer sweep says otherwise. Its step
count is what that machine allowed for the table (250 steps of 32 windows of 128 words: about a million
words seen, one pass over the training text). Far longer training is the obvious next measurement.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Recipe:
    """How to train: peak learning rate, warm-up steps, weight decay, batch size and number of steps."""

    lr: float
    warmup: int
    weight_decay: float
    batch_size: int
    steps: int

    def to_dict(self) -> dict:
        return asdict(self)


TEXT_RECIPE = Recipe(lr=1e-2, warmup=50, weight_decay=0.01, batch_size=32, steps=250)
