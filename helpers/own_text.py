"""Honest notes on a learner's own text, from the measured real-text results (`assets/real_text.json`).

The notes take their thresholds from the measurements of `python -m benchmarks.real_text`: how many words of
training text the novels needed before four heads beat one by more than the seed range, and what share of
`<unk>` the novels themselves have; no number is typed in. This module sits below helpers.train, whose
command line prints the notes, puts them in its JSON and writes them into the checkpoint's card.
"""

from __future__ import annotations

import json
from collections.abc import Sized
from functools import lru_cache
from typing import Protocol

import torch

from helpers.checkpoints import ASSETS

RESULTS_FILE = ASSETS / "real_text.json"


class Corpus(Protocol):
    """What the notes read of a helpers.train.Corpus (named here, not imported: helpers.train imports this
    module)."""

    train_ids: torch.Tensor
    val_ids: torch.Tensor
    tokenizer: Sized


@lru_cache(maxsize=1)
def real_text_results() -> dict:
    """The measured real-text results (sweep, table, summary, examples); a clear error if the file is missing."""
    if not RESULTS_FILE.is_file():
        raise FileNotFoundError(f"{RESULTS_FILE}: not measured yet; run `python -m benchmarks.real_text table`")
    return json.loads(RESULTS_FILE.read_text())


def stable_word_count(results: dict | None = None) -> int | None:
    """Fewest training words from which four heads beat one head (seed 0) by more than the full text's seed
    range at that amount and at every larger amount measured; None if the most text measured does not.

    A tiny text can show a huge gap either way (both models learn it by heart and guess wildly on new text),
    so a win below a loss does not count: the comparison is stable only from there upwards."""
    summary = (results or real_text_results())["summary"]
    seed_range = summary.get("target", {}).get("seed_range")
    if seed_range is None:
        return None
    stable = None
    for row in sorted(summary["gap_by_words"], key=lambda row: -row["train_words"]):
        if row["gap"] <= seed_range:
            break
        stable = row["train_words"]
    return stable


def own_text_notes(corpus: Corpus, results: dict | None = None, val_ppl: float | None = None) -> list[str]:
    """Plain-language notes on what a comparison of heads on this text can and cannot show: too little text,
    a large share of <unk>, and (given a trained model's validation perplexity) a perplexity above the number
    of different words in the validation part. The one source of these notes: the notebook, the command line,
    its JSON and the checkpoint card all print what this returns."""
    results = results or real_text_results()
    summary = results["summary"]
    notes = []
    words = len(corpus.train_ids)
    enough = stable_word_count(results)
    most = max((row["train_words"] for row in summary["gap_by_words"]), default=0)
    if "target" not in summary:
        seeds = len(summary.get("models", {}).get("four heads", {}).get("seeds", []))
        measured = (f"with {seeds} training seed{'s' * (seeds != 1)} so far, too few" if seeds else
                    "not yet with the training seeds it needs")
        notes.append(
            f"Treat any difference here as possibly luck: {words:,} words to train on. The series has measured "
            f"one head against four heads on its novels {measured} to know how much text a fair comparison needs "
            "(see assets/real_text.json)."
        )
    elif enough is None:
        notes.append(
            f"Too short to compare heads: {words:,} words to train on. On the series' novels even {most:,} words "
            "did not give four heads a lead larger than the luck of the seed, so whichever model comes out lower "
            "here may be lower by chance."
        )
    elif words < enough and any(row["train_words"] < enough for row in summary["gap_by_words"]):
        below = max(row["train_words"] for row in summary["gap_by_words"] if row["train_words"] < enough)
        notes.append(
            f"Too short to compare heads: {words:,} words to train on. On the series' novels four heads needed "
            f"more than {below:,} and at most {enough:,} words of training text (the amounts measured) before "
            "they beat one head by more than the luck of the seed; with less, whichever model wins here may win "
            "by chance."
        )
    elif words < enough:
        notes.append(
            f"Possibly too short to compare heads: {words:,} words to train on. On the series' novels four heads "
            f"beat one head by more than the luck of the seed with {enough:,} words of training text, the least "
            "the series measured; whether less text is enough was not measured, so a winner here may be chance."
        )
    unknown = float((corpus.val_ids == 0).float().mean()) if len(corpus.val_ids) else 0.0
    novels = summary["unknown_share"]
    if unknown > novels:
        notes.append(
            f"{unknown:.0%} of the validation words are <unk> (outside this text's 1,023 most frequent words), "
            f"more than the {novels:.0%} of the series' novels. Every <unk> is the same blank to the model, so "
            "its perplexity looks better than its real guessing is, and the heads cannot tell those words apart."
        )
    different = len(set(corpus.val_ids.tolist()))
    vocabulary = len(corpus.tokenizer)
    if val_ppl is not None and not val_ppl <= different:  # NaN counts too: no trustworthy score
        beyond = (f", and even above the {vocabulary:,} entries of its whole vocabulary (an even guess among all "
                  f"of them scores {vocabulary:,})") if not val_ppl <= vocabulary else ""
        notes.append(
            f"The validation perplexity, {val_ppl:,.1f}, is above the {different:,} different words of the "
            f"validation part{beyond}: the model guesses worse than an even choice among the words that actually "
            "come up there. It has most likely learnt its training text by heart (too little text to generalise), "
            "so this score says nothing about heads."
        )
    return notes
