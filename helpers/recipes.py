"""The training recipe for real text, chosen by a measured sweep (the story world keeps its own, in train.py).

TEXT_RECIPE is what the rule of `python benchmarks/real_text.py sweep` picked from the runs it recorded in
`assets/real_text.json` (under "chosen"; a test applies the rule again to the recorded runs and checks that
the two agree). The sweep tried the learning rate, warm-up, weight decay, batch size and training length
one at a time on the novels' validation text. The rule: the lowest validation perplexity of four heads among
the settings where four heads also beat one head on validation, with a training length no longer than the
table of 17 models could afford on the machine that measured it (see the script).
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


TEXT_RECIPE = Recipe(lr=0.02, warmup=50, weight_decay=0.1, batch_size=32, steps=1000)
