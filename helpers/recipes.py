"""The training recipe for real text, chosen by a measured sweep (the story world keeps its own, in train.py).

TEXT_RECIPE's learning rate is what the rule of `python -m benchmarks.real_text sweep` picked from the runs it
recorded in `assets/real_text.json` (under "chosen"; a test applies the rule again to the recorded runs and
checks that the two agree). The sweep trained one head and four heads at every learning rate of its grid, on
each of four texts alone (three novels and a set of plays), scored on validation text. The rule looks at both
models alike and not at which one wins: the learning rate whose worst ratio to the best perplexity reached on
each text by each model is smallest (close to the best everywhere rather than best on one text).

The training length is not tuned but set by a rule, because texts differ in size: PASSES passes over the
training words (a step sees batch x context words), at least MIN_STEPS and at most MAX_STEPS steps, the cap
being what keeps a 1 MB text (about 220,000 training words) within 3 minutes on 2 idle cores. Every
`eval_every` steps the model is scored on a fixed validation sample and the weights with the best score are
kept, so a small text that is learnt by heart before the last step does not end on its worst weights.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

CONTEXT = 128  # the course model's window: a step trains on batch_size x CONTEXT words


@dataclass(frozen=True)
class Recipe:
    """How to train on a text: peak learning rate, warm-up steps, weight decay, batch size; a training length
    from the amount of text (passes over it, between min_steps and max_steps); how often to score validation."""

    lr: float
    warmup: int
    weight_decay: float
    batch_size: int
    passes: float
    min_steps: int
    max_steps: int
    eval_every: int

    def steps_for(self, train_words: int, context: int = CONTEXT) -> int:
        """Steps for a text of `train_words` training words: `passes` passes over it, within the bounds."""
        wanted = round(self.passes * train_words / (self.batch_size * context))
        return max(self.min_steps, min(self.max_steps, wanted))

    def train_options(self, train_words: int, context: int = CONTEXT) -> dict:
        """Keyword arguments for helpers.train.train on a text of `train_words` training words."""
        return {"lr": self.lr, "warmup": self.warmup, "weight_decay": self.weight_decay,
                "batch_size": self.batch_size, "steps": self.steps_for(train_words, context),
                "keep_best_every": self.eval_every}

    def to_dict(self) -> dict:
        return asdict(self)


LENGTH_RULE = {"passes": 20, "min_steps": 200, "max_steps": 1000, "eval_every": 50}
"""The length rule every setting of the sweep shares (the sweep varies the learning rate only)."""

TEXT_RECIPE = Recipe(lr=0.01, warmup=50, weight_decay=0.1, batch_size=32, **LENGTH_RULE)
