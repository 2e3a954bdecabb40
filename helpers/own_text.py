"""Honest notes on a learner's own text, from the measured real-text results (`assets/real_text.json`).

The notes take their thresholds from the measurements of `python -m benchmarks.real_text`: at which amounts of
the novels the gap between one and four heads stayed within the seeds' noise (several seeds of both models at
each amount), and what share of `<unk>` the novels themselves have; no measured number is typed in. This module
sits below helpers.train, whose command line prints the notes, puts them in its JSON and on the checkpoint card.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import NamedTuple

import torch

from helpers.corpus import Corpus
from helpers.registry import ASSETS
from helpers.tokenizer import UNSPACED_TEXT, unspaced_share

RESULTS_FILE = ASSETS / "real_text.json"
FEW_WORDS = 50
"""Fewer different words than this in the training text (the story world, the smallest text the series trains
on, has several hundred): the text is nearly one pattern repeated, and a perplexity near 1 shows only that."""

MOSTLY_UNKNOWN = 0.5
"""A larger share of <unk> among the validation words (the novels: under a fifth) makes a score mostly the model's
skill at guessing one blank."""

STRETCH = 8
"""Words in a row that ordinary writing seldom repeats word for word; a text that repeats most of them repeats
itself."""


class Threshold(NamedTuple):
    """Where the gap between one and four heads left the seeds' noise on the novels (amounts measured)."""

    within: int | None
    """the most training words at which the gap was still within the noise (None: every amount beat it)"""
    beyond: int | None
    """the fewest training words from which the gap beat the noise at every larger amount (None: never)"""
    seeds: int
    """the fewest seeds per model at any amount counted"""


@lru_cache(maxsize=1)
def real_text_results() -> dict:
    """The measured real-text results (sweep, table, summary, examples); a clear error if the file is missing."""
    if not RESULTS_FILE.is_file():
        raise FileNotFoundError(f"{RESULTS_FILE}: not measured yet; run `python -m benchmarks.real_text table`")
    return json.loads(RESULTS_FILE.read_text())


def noise_threshold(results: dict | None = None) -> Threshold | None:
    """From the amounts measured with several seeds (summary "gap_by_words"), where the gap between the two
    models' mean perplexities first beats the wider range over the seeds (exercise 2's rule) and keeps beating
    it at every larger amount; None while no amount has two seeds or more."""
    rows = sorted((row for row in (results or real_text_results())["summary"].get("gap_by_words", [])
                   if len(row.get("seeds", [])) >= 2), key=lambda row: row["train_words"])
    if not rows:
        return None
    beyond = None
    for row in reversed(rows):
        if not row["clear"]:
            break
        beyond = row["train_words"]
    within = max((row["train_words"] for row in rows if not row["clear"]), default=None)
    return Threshold(within, beyond, min(len(row["seeds"]) for row in rows))


def unknown_share(ids: torch.Tensor) -> float:
    """Share of word ids that are <unk> (id 0): words outside the 1,024-entry vocabulary."""
    return float((ids == 0).float().mean()) if len(ids) else 0.0


def copied_share(corpus: Corpus) -> float:
    """Share of the validation part's STRETCH-word stretches that occur word for word in the training part (a
    text pasted twice: its validation part was read in training). Each stretch is hashed to one number; stretches
    with <unk> are left out, as runs of <unk> look alike whatever words they stand for."""
    if len(corpus.val_ids) < STRETCH or len(corpus.train_ids) < STRETCH:
        return 0.0
    weights = torch.tensor([1_000_003**k % (2**61 - 1) for k in range(STRETCH)])  # overflow wraps: still a hash
    val, train = (ids.long().unfold(0, STRETCH, 1) for ids in (corpus.val_ids, corpus.train_ids))  # [N - 7, 8]
    val = val[(val != 0).all(1)]
    return float(torch.isin((val * weights).sum(1), (train * weights).sum(1)).float().mean()) if len(val) else 0.0


def _length_note(words: int, results: dict) -> str:
    """Whether `words` training words are enough to tell one head from four, by the novels' measurements."""
    found = noise_threshold(results)
    if found is None:
        return (f"Treat any difference here as possibly luck: {words:,} words to train on. The series has not yet "
                "measured on its novels, over several seeds, how much text a fair comparison needs "
                "(python -m benchmarks.real_text amounts).")
    within, beyond, seeds = found
    measured = (f"On the series' novels ({seeds} seeds of each model at each amount, each trained for the recipe's "
                "full length)")
    words_here = f"{words:,} words to train on. {measured} the gap between one and four heads"
    if beyond is None:
        return (f"Too short to compare one head with four: {words_here} stayed within the seeds' noise even at "
                f"{within:,} words, so whichever model comes out lower here may be lower by chance.")
    if words >= beyond:
        return (f"Long enough to compare one head with four: {words_here} stood clear of the seeds' noise from "
                f"{beyond:,} words of training text up.")
    if within is not None and words <= within:
        return (f"Too short to compare one head with four: {words_here} was within the seeds' noise at {within:,} "
                f"words of training text and beyond it from {beyond:,} words up; with this little text, whichever "
                "model wins may win by chance.")
    lower = f"within the seeds' noise at {within:,} words and " if within is not None else ""
    return (f"Possibly too short to compare one head with four: {words_here} was {lower}beyond it from {beyond:,} "
            "words up; amounts in between were not measured, so a winner here may be chance.")


def own_text_notes(corpus: Corpus, results: dict | None = None, val_ppl: float | None = None) -> list[str]:
    """Plain-language notes on what a comparison of heads on this text can and cannot show: too little text,
    its share of <unk> (always given, with a warning above the novels'), a text of very few different words,
    and (given a trained model's validation perplexity) a perplexity above the number of different words in the
    validation part (that note leaves the number to the printout beside it, so two models get the same note). The
    one source of these notes: the notebook, the command line, its JSON and the checkpoint card all print what this
    returns."""
    told, voiding = _notes(corpus, results, val_ppl)
    return told + voiding


def _notes(corpus: Corpus, results: dict | None, val_ppl: float | None) -> tuple[list[str], list[str]]:
    """own_text_notes as two lists: the notes that only inform, then those that void a comparison of heads."""
    results = results or real_text_results()
    told, voids = [_length_note(len(corpus.train_ids), results)], []
    unknown, novels = unknown_share(corpus.val_ids), results["summary"]["unknown_share"]
    placeholders = corpus.tokenizer.reserved  # a text of few words leaves some entries unused
    kept = "1,023 most frequent words"  # unless the training part has fewer: then every word it uses
    outside = "words the training part never uses" if placeholders else f"not among the training part's {kept}"
    note = f"{unknown:.1%} of the validation words are <unk> ({outside}; the series' novels: {novels:.1%})."
    never = bool(placeholders) and unknown > 0  # every training word fits the vocabulary: no <unk> to learn from
    blank = (" The training part has no <unk> at all (all its words fit the vocabulary), so the model never learnt "
             "to expect one: each <unk> here costs it dearly and lifts its perplexity" if never else
             " Every <unk> is the same blank to the model, an easy guess that lowers its perplexity")
    if unknown > MOSTLY_UNKNOWN:
        voids.append(note + blank + "; with most words <unk>, a score here says nothing about one head against four.")
    else:
        told.append(note + (blank + ", and the heads cannot tell those words apart." if never or unknown > novels
                            else ""))
    if (unspaced := unspaced_share(corpus.val_words)) > UNSPACED_TEXT:
        told.append(f"{unspaced:.0%} of the validation part's letters run together, five or more at a time, in a "
                    "script written without spaces between words (Chinese, Japanese or Thai, say). The series splits "
                    "words at spaces and punctuation, so such a text reaches the model as whole phrases, "
                    + ("many of them never met in the training part and so <unk>" if unknown else "each a 'word' of "
                       "its own, which says little of how the heads read words") + ": put a space between its words "
                    "first.")
    kinds = len(set(corpus.train_ids.tolist()))
    if kinds < FEW_WORDS:
        voids.append(
            f"The training text has only {kinds:,} different word{'s' * (kinds != 1)}: more a pattern than "
            "language. A low perplexity here would show that the pattern is easy to continue, not that the model "
            "reads language, and it says nothing about one head against four.")
    copied = copied_share(corpus)
    if copied > 0.5 and kinds >= FEW_WORDS:  # (a text of very few words repeats itself: said above)
        voids.append(
            f"{copied:.0%} of the validation part's {STRETCH}-word stretches also occur word for word in the training "
            "part: the text repeats itself, so the validation perplexity measures what the model remembers, not "
            "how well it guesses new text.")
    different = len(set(corpus.val_ids.tolist()))
    counted = " (<unk> counted once, for every word the vocabulary lacks)" if (corpus.val_ids == 0).any() else ""
    vocabulary = len(corpus.tokenizer)
    most = different if different > 1 else 1.01  # one word: any perplexity only nears its floor of 1 from above
    if val_ppl is not None and not val_ppl <= most:  # NaN counts too: no trustworthy score
        filled = (f" ({vocabulary - placeholders - 1:,} words of this text, <unk> and {placeholders:,} placeholders "
                  "that no text fills)") if placeholders else ""
        beyond = (f", and even above {vocabulary:,}, the score of an even guess among all {vocabulary:,} entries "
                  f"of its vocabulary{filled}") if not val_ppl <= vocabulary else ""
        voids.append(
            f"The validation perplexity is above the {different:,} different words of the "
            f"validation part{counted}{beyond}: the model guesses worse than an even choice among the words that "
            "actually come up there. "
            + ("Its <unk>, which the training part never showed it, cost it the most and may be all that lifts the "
               "score so high; besides, " if never else "Nothing it learnt carries over to the validation part: ")
            + "it may have trained too few steps, learnt a short training text by heart, or found little pattern to "
            "learn. So this score says nothing about heads.")
    return told, voids


def heads_notes(corpus: Corpus, val_ppl: float, results: dict | None = None) -> list[str]:
    """The notes that say a score on this text cannot compare heads (mostly <unk>, few different words, a text that
    repeats itself, a perplexity above an even guess): own_text_notes but those that only inform."""
    return _notes(corpus, results, val_ppl)[1]
