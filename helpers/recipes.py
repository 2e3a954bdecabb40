"""The training recipe for real text, chosen by a measured sweep (the story world keeps its own, in train.py).

The training length is not tuned but set by a rule, because texts differ in size: PASSES passes over the
training words (a step sees batch x context words), at least MIN_STEPS and at most MAX_STEPS steps, the cap
being what keeps a 1 MB text (about 220,000 training words) within 3 minutes on 2 idle cores. Every
`eval_every` steps the model is scored on a fixed validation sample and the weights with the best score are
kept, so a small text that is learnt by heart before the last step does not end on its worst weights.

The learning rate depends on how many times the cap lets the model read the text: a text read at least
`long_below` times (up to about 410,000 training words) trains at `lr`, a longer one, read fewer times in its
1,000 steps, at `long_lr`, a larger rate for fewer passes. Each rate is what the rule of
`python -m benchmarks.real_text sweep` picked for its size class from the runs recorded in
`assets/real_text.json` (under "chosen"; a test applies the rule again to the recorded runs and checks that the
two agree). The sweep trained one head and four heads at every learning rate of its class's grid, on each text
alone, scored on validation text. The rule looks at both models alike and not at which one wins: in each
class, the learning rate whose worst ratio to the best perplexity reached on each text of the class by each
model is smallest (close to the best everywhere rather than best on one text).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

CONTEXT = 128  # the course model's window: a step trains on batch_size x CONTEXT words


@dataclass(frozen=True)
class Recipe:
    """How to train on a text: peak learning rate (`lr`, or `long_lr` for a text the step cap lets the model read
    fewer than `long_below` times), warm-up steps, weight decay, batch size; a training length from the amount
    of text (passes over it, between min_steps and max_steps); how often to score validation."""

    lr: float
    long_lr: float
    long_below: float
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

    def passes_for(self, train_words: int, context: int = CONTEXT) -> float:
        """How many times the training length lets the model read a text of `train_words` training words."""
        return self.steps_for(train_words, context) * self.batch_size * context / max(train_words, 1)

    def size_class(self, train_words: int, context: int = CONTEXT) -> str:
        """"long" for a text the step cap lets the model read fewer than `long_below` times, else "short"."""
        return "long" if self.passes_for(train_words, context) < self.long_below else "short"

    def lr_for(self, train_words: int, context: int = CONTEXT) -> float:
        """The learning rate for a text of `train_words` training words: its size class's."""
        return self.long_lr if self.size_class(train_words, context) == "long" else self.lr

    def train_options(self, train_words: int, context: int = CONTEXT) -> dict:
        """Keyword arguments for helpers.train.train on a text of `train_words` training words."""
        return {"lr": self.lr_for(train_words, context), "warmup": self.warmup, "weight_decay": self.weight_decay,
                "batch_size": self.batch_size, "steps": self.steps_for(train_words, context),
                "keep_best_every": self.eval_every}

    def to_dict(self) -> dict:
        return asdict(self)


LENGTH_RULE = {"passes": 20, "min_steps": 200, "max_steps": 1000, "eval_every": 50, "long_below": 10}
"""The length rule and size classes every setting of the sweep shares (the sweep varies the learning rates
only). A text is "long" when the cap lets the model read it fewer than 10 times, half the passes a shorter
text gets."""

RATES = ("lr", "long_lr")
"""The recipe's fields the sweep chooses: one learning rate per size class."""


def fixed_settings(recipe: Recipe) -> dict:
    """What shapes a sweep run apart from its learning rate: the recipe without its rates and its size classes
    (a sweep run is given its rate, so which class would pick which rate does not change it)."""
    return {k: v for k, v in recipe.to_dict().items() if k not in (*RATES, "long_below")}

TEXT_RECIPE = Recipe(lr=0.007, long_lr=0.02, warmup=50, weight_decay=0.1, batch_size=32, **LENGTH_RULE)
