"""Train the course model: one loop for notebooks and scripts.

    result = train(heads=4, steps=1000, seed=0)       # story world, progress bar with live loss
    python -m helpers.train --heads 4 --steps 1000 --seed 0 --out assets --json
    python -m helpers.train --heads 4 --text my.txt    # a text file, with the real-text recipe (helpers.recipes)

AdamW with a short warm-up and a cosine schedule; batches drawn with a seeded torch.Generator, so
a run is reproducible on one machine. Ctrl-C (or a stop button) ends training early with a usable
model; a NaN or infinite loss stops with a message naming the step. With `keep_best_every`, the validation
text is scored every so many steps and the run ends with the weights that scored best.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from tqdm.auto import tqdm
from tqdm.std import tqdm as text_tqdm

from helpers import guards
from helpers.checkpoints import (
    CheckpointError,
    cards_in,
    default_name,
    held_out_examples,
    json_number,
    read_card,
    save_checkpoint,
)
from helpers.corpus import Corpus, split_said, story_corpus, text_corpus
from helpers.evaluate import clue_accuracy, perplexity
from helpers.model import CourseConfig, LanguageModel, count_parameters, course_model
from helpers.own_text import own_text_notes, unknown_share
from helpers.recipes import TEXT_RECIPE
from helpers.registry import heads_named
from helpers.static import static_build
from helpers.threads import ThreadTrial

BATCH_SIZE = 32
LEARNING_RATE = 1e-2
WARMUP_STEPS = 50
WEIGHT_DECAY = 0.01
CHECKPOINT_STEPS = 1000  # the recipe of the shipped checkpoints and of the benchmark's table
EVAL_WORDS = 32_768  # keep_best_every scores the first this many validation words: a fixed, cheap sample


@dataclass
class TrainResult:
    """What a training run produced: the model, its learning curve and its scores."""

    model: LanguageModel
    heads: int
    seed: int
    steps: int  # steps actually taken (fewer than asked if stopped early)
    steps_planned: int
    losses: list[float]  # training loss at every step: the learning curve
    val_ppl: float
    clue_accuracy: dict[str, float]  # per clue kind and "all" (story world only)
    tokens_per_s: float
    seconds: float
    stopped_early: str = ""  # why training stopped before `steps_planned`, if it did
    corpus: str = "story world"
    val_curve: dict[int, float | None] = field(default_factory=dict)  # validation perplexity after step n
    best_step: int = 0  # with keep_best_every: the step whose weights were kept (0: the last step's)
    notes: list[str] = field(default_factory=list)  # honest notes on the text (helpers.real_text.own_text_notes)
    cpu_seconds: float = 0.0  # processor time of all threads: on a busy machine, a truer cost than `seconds`
    lr: float = LEARNING_RATE  # the peak learning rate it trained with

    @property
    def params(self) -> int:
        return count_parameters(self.model)

    def summary(self) -> dict:
        """The run's figures as plain JSON-ready values."""
        return {
            "heads": self.heads, "seed": self.seed, "steps": self.steps, "params": self.params,
            "val_ppl": json_number(self.val_ppl), "tokens_per_s": round(self.tokens_per_s),
            "seconds": round(self.seconds, 2), "cpu_seconds": round(self.cpu_seconds, 2),
            "clue_accuracy": self.clue_accuracy,
            "corpus": self.corpus, "stopped_early": self.stopped_early, "best_step": self.best_step,
            "lr": self.lr,
        }


def learning_rate(step: int, steps: int, peak: float = LEARNING_RATE, warmup: int = WARMUP_STEPS) -> float:
    """Linear warm-up to `peak`, then a cosine down to 10% of it at the last step."""
    warmup = min(warmup, max(steps // 10, 1))
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(steps - warmup, 1)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def random_batch(
    ids: torch.Tensor, batch_size: int, context: int, gen: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """`batch_size` random windows: inputs [B, T] and the words that follow them [B, T]."""
    starts = torch.randint(0, len(ids) - context - 1, (batch_size,), generator=gen)
    offsets = starts[:, None] + torch.arange(context)  # [B, T]
    return ids[offsets], ids[offsets + 1]


def _progress_bar(**options: Any) -> tqdm:
    """A live progress widget, or plain text on stdout in a site or slide build (no widget can show there)."""
    return text_tqdm(file=sys.stdout, **options) if static_build() else tqdm(**options)


def train(
    heads: int = 4,
    steps: int = CHECKPOINT_STEPS,
    seed: int = 0,
    corpus: Corpus | None = None,
    batch_size: int = BATCH_SIZE,
    lr: float = LEARNING_RATE,
    max_seconds: float | None = None,
    progress: bool = True,
    evaluate_at_end: bool = True,
    model: LanguageModel | None = None,
    warmup: int = WARMUP_STEPS,
    weight_decay: float = WEIGHT_DECAY,
    eval_at: tuple[int, ...] = (),
    keep_best_every: int = 0,
    label: str | None = None,
) -> TrainResult:
    """Train a fresh course model with `heads` heads for `steps` steps (or until `max_seconds` pass).

    Pass `model` to train another of the series' models (a `LanguageModel`), such as the transformer block
    of chapter 7; `heads` is then ignored.
    eval_at: step counts after which to score the validation text too (the learning curve on unseen text).
    keep_best_every: if > 0, score the first EVAL_WORDS validation words every so many steps and after the last,
    and end with the weights that scored best (their scores go into `val_curve`; this time counts as training).
    label: the progress bar's name for the run (default: its number of heads, "4 heads").
    """
    for name, value in (("heads", heads), ("steps", steps), ("batch_size", batch_size)):
        guards.check_counts(**{name: value})
    if not isinstance(keep_best_every, int) or isinstance(keep_best_every, bool) or keep_best_every < 0:
        raise ValueError(f"keep_best_every must be a whole number >= 0 (0: keep the last weights), "
                         f"got {keep_best_every!r}")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    if not _is_number(lr) or not 0 < lr < math.inf:
        raise ValueError(f"the learning rate must be a finite number > 0, got {lr!r}")
    if max_seconds is not None and (not _is_number(max_seconds) or not max_seconds > 0):
        raise ValueError(f"max_seconds must be a number > 0 (or None for no time limit), got {max_seconds!r}")
    if corpus is not None and not isinstance(corpus, Corpus):
        raise ValueError(f"corpus must be a Corpus, got {type(corpus).__name__}: "
                         "use text_corpus(path) for a text file, or None for the story world")
    if model is not None and not isinstance(model, LanguageModel):
        raise ValueError(f"model must be one of the series' models (course_model or block_model), "
                         f"got {type(model).__name__}")
    corpus = story_corpus() if corpus is None else corpus
    if model is None:
        model = course_model(heads=heads, seed=seed)
    else:
        heads = model.config.heads
    model.tokenizer = corpus.tokenizer
    context = model.config.context
    if len(corpus.train_ids) < context + 2:
        raise ValueError(f"{corpus.name}: {len(corpus.train_ids)} words is too short for one training window")

    gen = torch.Generator().manual_seed(seed)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "emb" not in n]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and "emb" not in n)]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}], lr=lr
    )
    losses: list[float] = []
    val_curve: dict[int, float | None] = {}
    stopped = ""
    sample = corpus.val_ids[:EVAL_WORDS]
    best = _Best(model, sample if keep_best_every and len(sample) > context else None, val_curve)
    model.train()
    words = batch_size * context  # per step: the bar counts words, so it shows words per second and time left
    label = heads_named(heads) if label is None else label
    bar = _progress_bar(total=steps * words, desc=label, disable=not progress, leave=True, unit=" words",
                        unit_scale=True)
    trial = ThreadTrial(steps)  # the run's thread count: its first steps time one thread against more (threads.py)
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        for step in range(steps):
            trial.start(step)
            for group in opt.param_groups:
                group["lr"] = learning_rate(step, steps, lr, warmup)
            x, y = random_batch(corpus.train_ids, batch_size, context, gen)  # [B, T], [B, T]
            logits = model(x)  # [B, T, V]
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
            if not torch.isfinite(loss):
                raise FloatingPointError(
                    f"the loss became {loss.item()} at step {step + 1} of {steps}: training diverged. "
                    f"Try a lower learning rate (now {lr:g}, e.g. {min(lr / 3, LEARNING_RATE):.2g})."
                )
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            trial.stop(step)
            losses.append(loss.item())
            if step + 1 in eval_at:
                paused = time.perf_counter()
                val_curve[step + 1] = round(perplexity(model, corpus.val_ids), 4)
                start += time.perf_counter() - paused  # scoring is not training time
            if keep_best_every and (step + 1) % keep_best_every == 0:
                best.score(step + 1)
            bar.update(words)
            if step % 10 == 0:
                bar.set_postfix(loss=f"{losses[-1]:.3f}")
            if max_seconds is not None and time.perf_counter() - start > max_seconds:
                if step + 1 < steps:
                    stopped = f"time budget of {max_seconds:g} s reached after {step + 1} of {steps} steps"
                    bar.total = (step + 1) * words  # a planned stop: the bar ends as finished, not as failed
                break
    except KeyboardInterrupt:
        stopped = f"interrupted after {len(losses)} of {steps} steps; the model keeps what it learned so far"
    finally:
        trial.close()
        if losses:  # the bar ends on the last step's loss, as the run's printouts do
            bar.set_postfix(loss=f"{losses[-1]:.3f}", refresh=False)
        bar.close()
    if keep_best_every and losses:
        best.score(len(losses))  # the last weights compete too (scored already if the last step was a multiple)
        best.restore()
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    if stopped and progress:  # a note, on ordinary output: a pink stderr box would look like a failure
        several = stopped.startswith("interrupted") and "ipykernel" in sys.modules  # a cell may train more models
        said = stopped + (" (the stop button, ■, interrupts one model: a cell that trains several goes on with "
                          "the next, if any)") * several
        print(textwrap.fill(said, 100))  # whole words on each line, however wide the output area
    model.eval()
    val_ppl, accuracy = float("nan"), {}
    if evaluate_at_end:
        val_ppl = perplexity(model, corpus.val_ids)
        if corpus.has_clues:
            accuracy = clue_accuracy(model, corpus.val_ids, corpus.val_clues)
    return TrainResult(
        model=model, heads=heads, seed=seed, steps=len(losses), steps_planned=steps, losses=losses,
        val_ppl=val_ppl, clue_accuracy=accuracy, tokens_per_s=len(losses) * batch_size * context / seconds,
        seconds=seconds, stopped_early=stopped, corpus=corpus.name, val_curve=val_curve, best_step=best.step,
        cpu_seconds=cpu_seconds, lr=lr,
    )


class _Best:
    """The weights with the lowest perplexity on a fixed validation sample so far (sample None: keep nothing)."""

    def __init__(self, model: LanguageModel, sample: torch.Tensor | None, curve: dict[int, float | None]) -> None:
        self.model, self.sample, self.curve = model, sample, curve
        self.ppl, self.step, self.state, self.scored = math.inf, 0, None, set()

    def score(self, step: int) -> None:
        if self.sample is None or step in self.scored:
            return
        self.scored.add(step)
        try:
            ppl = perplexity(self.model, self.sample)  # evaluates in eval mode, then puts training mode back
        except OverflowError:  # a loss too large for exp: worse than any weights kept so far
            ppl = math.inf
        self.curve.setdefault(step, round(ppl, 4) if math.isfinite(ppl) else None)  # eval_at's score stays
        if ppl < self.ppl:
            self.ppl, self.step = ppl, step
            self.state = {name: t.detach().clone() for name, t in self.model.state_dict().items()}

    def restore(self) -> None:
        if self.state is not None:
            self.model.load_state_dict(self.state)


def _is_number(value: object) -> bool:
    """A real number (int or float), not a bool or a piece of text."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _print_notes(notes: list[str], to_stderr: bool, lead: str = "Note: ", indent: str = "") -> None:
    """Each note as a wrapped paragraph after `lead`: on stderr when stdout carries the one JSON object."""
    for note in notes:
        print(textwrap.fill(f"{lead}{note}", 100, subsequent_indent=indent),
              file=sys.stderr if to_stderr else sys.stdout)


def reproduce_command(heads: int, steps: int, seed: int, out: str | Path | None = None, lr: float | None = None,
                      text: str | Path | None = None, name: str | None = None,
                      max_seconds: float | None = None) -> str:
    """The shell command that trains this model again (with `lr`, the learning rate it trained with: the
    default rate may change when a sweep picks another)."""
    parts = [f"python -m helpers.train --heads {heads} --steps {steps} --seed {seed}"]
    parts += [f"--lr {lr:g}"] if lr is not None else []
    parts += [f"--out {out}"] if out else []
    parts += [f"--text {text}"] if text else []
    parts += [f"--name {name}"] if name else []
    parts += [f"--max-seconds {max_seconds:g}"] if max_seconds is not None else []
    return " ".join(parts)


def even_guess_line(vocabulary: int, val_ids: torch.Tensor) -> str:
    """The baseline a validation perplexity is read against: an even guess among the whole vocabulary, and among
    the different words that actually come up in the validation part."""
    different = len(set(val_ids.tolist()))
    unk = " (<unk> counted once)" if (val_ids == 0).any() else ""
    return (f"an even guess scores {vocabulary:,} (every one of the {vocabulary:,} vocabulary entries alike), or "
            f"{different:,} if it knew which different words the validation part holds{unk}")


def _whole(text: str, minimum: int) -> int:
    """argparse helper: text as a whole number >= minimum, or a message saying what is wrong."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
    return value


def _positive(text: str) -> int:
    return _whole(text, 1)


def _rate(text: str) -> float:
    """argparse helper: a learning rate, a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value


def _seed(text: str) -> int:
    return _whole(text, 0)


def _heads(text: str) -> int:
    value = _positive(text)
    try:
        guards.check_heads_divide_width(CourseConfig.width, value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m helpers.train", description=__doc__.split("\n")[0])
    parser.add_argument("--heads", type=_heads, default=4,
                        help=f"attention heads (divides the width {CourseConfig.width}); default 4")
    parser.add_argument("--steps", type=_positive,
                        help=f"training steps; default {CHECKPOINT_STEPS}, or with --text the recipe's length for that "
                             f"text ({TEXT_RECIPE.passes:g} passes over it, within {TEXT_RECIPE.min_steps} to "
                             f"{TEXT_RECIPE.max_steps} steps: a short text is read many more times)")
    parser.add_argument("--seed", type=_seed, default=0, help="random seed; default 0")
    parser.add_argument("--lr", type=_rate, help=f"peak learning rate; default {LEARNING_RATE:g}, or with --text "
                                                 f"the recipe's: {TEXT_RECIPE.lr:g} for a text that the recipe's "
                                                 f"length (not --steps) reads at least {TEXT_RECIPE.long_below:g} "
                                                 f"times, else {TEXT_RECIPE.long_lr:g}")
    parser.add_argument("--max-seconds", type=float, help="stop after this many seconds even if steps remain")
    parser.add_argument("--text", type=Path, help="train on this UTF-8 text file instead of the story world")
    parser.add_argument("--out", type=Path, help="save a checkpoint (.safetensors + .json) in this folder")
    parser.add_argument("--name", help="checkpoint file name without extension (default one_head/four_heads/...)")
    parser.add_argument("--json", action="store_true", help="print one JSON object with the results")
    args = parser.parse_args(argv)
    if args.max_seconds is not None and not args.max_seconds > 0:
        parser.error(f"argument --max-seconds: must be > 0, got {args.max_seconds}")
    if args.out and args.out.exists() and not args.out.is_dir():  # said now, not after the training
        parser.exit(2, f"{parser.prog}: --out {args.out} is a file; --out names a folder to save the model in\n")
    try:
        corpus = text_corpus(args.text) if args.text else story_corpus()
    except ValueError as err:  # a file's problem: its message alone, not the usage of every option
        parser.exit(2, f"{parser.prog}: {err}\n")
    notes: list[str] = []
    if args.text:  # real text: the recipe chosen by the sweep (helpers.recipes); the story world keeps its own
        recipe = TEXT_RECIPE.train_options(len(corpus.train_ids))
        steps = recipe.pop("steps")
        args.steps = args.steps or steps
        notes = own_text_notes(corpus)
        _print_notes([split_said(corpus)], args.json, lead="", indent="  ")
        _print_notes(notes, args.json)
    else:
        args.steps, recipe = args.steps or CHECKPOINT_STEPS, {}
    if args.lr is not None:
        recipe["lr"] = args.lr
    try:
        result = train(heads=args.heads, steps=args.steps, seed=args.seed, corpus=corpus, progress=not args.json,
                       **recipe, max_seconds=args.max_seconds)
    except FloatingPointError as err:  # diverged: one line, not a traceback
        parser.exit(1, f"{parser.prog}: {err}\n")
    scored = own_text_notes(corpus, val_ppl=result.val_ppl)[len(notes):] if args.text else []  # need the score
    short = [f"This run trained {result.steps:,} of the {steps:,} steps the recipe gives this text: it is further "
             "from finished than the recipe's model, and the note on comparing one head with four is about models "
             "trained for the recipe's full length."] if args.text and result.steps < steps else []  # --steps, ...
    late = short + scored  # printed after the score
    if args.text:
        result.notes = short + notes + scored  # on the card too, a short run's note first: it qualifies the rest
    summary = result.summary()
    summary["even_guess"] = {"vocabulary": result.model.config.vocab_size,
                             "different_validation_words": len(set(corpus.val_ids.tolist()))}
    summary["recipe"] = {"lr": result.lr, "warmup": recipe.get("warmup", WARMUP_STEPS),
                         "weight_decay": recipe.get("weight_decay", WEIGHT_DECAY),
                         "batch_size": recipe.get("batch_size", BATCH_SIZE),
                         "keep_best_every": recipe.get("keep_best_every", 0)}
    if args.text:
        summary["notes"] = result.notes
        summary["unknown_share"] = round(unknown_share(corpus.val_ids), 4)  # of the validation words
    if args.out:
        command = reproduce_command(args.heads, args.steps, args.seed, args.out, result.lr, args.text, args.name,
                                    args.max_seconds)
        held_out = corpus.val_words or corpus.tokenizer.decode(corpus.val_ids.tolist()).split()
        examples = held_out_examples(corpus.tokenizer, held_out)
        # the card repeats the notes (load_model prints them once per session) and the recipe it trained with
        kept = {key: summary[key] for key in ("notes", "unknown_share") if key in summary}
        _say_replaced(args.out / f"{args.name or default_name(args.heads)}.json", args.json)
        card = save_checkpoint(result, args.out / (args.name or default_name(args.heads)), command,
                               recipe=summary["recipe"], examples=examples, **kept)
        summary["checkpoint"] = str(card)
        summary["examples"] = len(examples)
    if args.json:
        _print_notes(late, True)
        for line in _beside(Path(summary["checkpoint"]), corpus.name, result.val_ppl, result.steps) if args.out else ():
            print(line, file=sys.stderr)  # stdout holds the JSON alone
        print(json.dumps(summary))
    else:
        accuracy = ", ".join(f"{k} {v:.1%}" for k, v in result.clue_accuracy.items())
        print(f"{heads_named(result.heads)}, {result.params:,} parameters, {result.steps} steps in "
              f"{result.seconds:.1f} s ({result.tokens_per_s:,.0f} words/s), learning rate {result.lr:g}")
        if args.text:  # a short text's 200 steps read it hundreds of times: said, as chapter 5 says it
            words = result.steps * summary["recipe"]["batch_size"] * result.model.config.context
            print(f"  it read the training text {words / len(corpus.train_ids):,.1f} times")
        kept = f" (the weights of step {result.best_step:,}, the best on validation)" if result.best_step else ""
        print(f"validation perplexity {result.val_ppl:,.2f}{kept}"
              + (f"; clue accuracy: {accuracy}" if accuracy else ""))
        baseline = even_guess_line(result.model.config.vocab_size, corpus.val_ids)
        print(textwrap.fill(baseline, 100, subsequent_indent="  "))
        _print_notes(late, False)  # after the score they are about
        if "checkpoint" in summary:
            print(f"saved {summary['checkpoint']}")
            for line in _beside(Path(summary["checkpoint"]), corpus.name, result.val_ppl, result.steps):
                print(textwrap.fill(line, 100, subsequent_indent="  "))
            print(textwrap.fill(
                f"the card keeps {summary['examples']} example sentence{'s' * (summary['examples'] != 1)} from the "
                "validation text for the "
                "explorer" + ("" if summary["examples"] else ": it found none short enough with few <unk>, so "
                              "the explorer offers the story-world sentences; type your own there"),
                100, subsequent_indent="  "))
    return 0


def _say_replaced(card: Path, to_stderr: bool) -> None:
    """A model about to be saved over says so, with the text it was trained on: a folder holds one of each size."""
    try:
        was = read_card(card).get("corpus", "an unnamed text") if card.exists() else None
    except CheckpointError:
        was = "a text its card no longer says"
    if was:
        print(f"replacing {card} (trained on {was})", file=sys.stderr if to_stderr else sys.stdout)


def _beside(card: Path, corpus: str, val_ppl: float, steps: int) -> list[str]:
    """The other models trained on the same text in the card's folder, to read the new one's perplexity against
    (a card that cannot be read is passed over), saying so when they trained for another number of steps."""
    lines = []
    for path in cards_in(card.parent):
        try:
            other = read_card(path) if path != card else {}
        except CheckpointError:
            continue
        if other.get("corpus") == corpus and "val_ppl" in other:
            heads = other["config"]["heads"]
            other_steps = other.get("steps", steps)
            unlike = (f"; it trained {other_steps:,} steps and this one {steps:,}, so the gap is not the heads' alone"
                      if other_steps != steps else "")
            lines.append(f"beside it: {path.name} ({heads_named(heads)}), validation perplexity "
                         f"{other['val_ppl']:,.2f} on the same text, against {val_ppl:,.2f} here (one seed each: "
                         f"chapter 5's section 3, 'A winner, or just noise?', tells how sure a gap is{unlike})")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
