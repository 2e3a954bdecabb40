"""Real-text results for learners: the measured table, the gap figure, and honest notes on a learner's own text.

Everything here reads `assets/real_text.json` (through `helpers.novels.real_text_results`), written by
`python -m benchmarks.real_text`; no number is typed in. The notes on a learner's file take their thresholds
from the same measurements: how many words of training text the novels needed before four heads beat one by
more than the seed range, and what share of `<unk>` the novels themselves have.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import plotly.graph_objects as go

from helpers.novels import real_text_results
from helpers.plots import FIT_WIDTH, PALETTE, hung_title, style, styled
from helpers.recipes import TEXT_RECIPE, fixed_settings

if TYPE_CHECKING:
    from helpers.train import Corpus


def current_sweep(sweep: dict) -> dict:
    """The sweep runs made with today's recipe apart from its learning rate (runs of an older rule do not count)."""
    fixed = fixed_settings(TEXT_RECIPE)
    return {k: run for k, run in sweep.items() if run.get("fixed") == fixed}


def sweep_grid(sweep: dict) -> dict[str, dict[int, dict[float, float]]]:
    """{text: {heads: {learning rate: validation perplexity}}}: the sweep's runs, texts in the order they ran."""
    grid: dict[str, dict[int, dict[float, float]]] = {}
    for run in sweep.values():
        grid.setdefault(run["text"], {}).setdefault(run["heads"], {})[run["lr"]] = run["val_ppl"]
    return grid


def worst_ratios(sweep: dict) -> dict[float, float]:
    """{learning rate: its worst ratio to the best}: for every text and both models, the perplexity at this
    rate divided by the lowest that model reached on that text at any rate, and of those the largest. Only
    rates measured on every text with both models count. The rule picks the rate with the smallest: close
    to the best everywhere, whichever model wins."""
    grid = sweep_grid(sweep)
    cells = [by_lr for by_heads in grid.values() for by_lr in by_heads.values()]
    rates = set.intersection(*(set(by_lr) for by_lr in cells)) if cells else set()
    if not rates or any(set(by_heads) != {1, 4} for by_heads in grid.values()):
        return {}
    return {lr: round(max(by_lr[lr] / min(by_lr.values()) for by_lr in cells), 4) for lr in sorted(rates)}


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
        notes.append(
            f"Treat any difference here as possibly luck: {words:,} words to train on. The series has measured "
            f"one head against four heads on its novels with {seeds} training seed(s) so far, too few to know how "
            "much text a fair comparison needs (see assets/real_text.json)."
        )
    elif enough is None:
        notes.append(
            f"Too short to compare heads: {words:,} words to train on. On the series' novels even {most:,} words "
            "did not give four heads a lead larger than the luck of the seed, so no winner here means nothing."
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
    if val_ppl is not None and not val_ppl <= different:  # NaN counts too: no trustworthy score
        notes.append(
            f"The validation perplexity, {val_ppl:,.1f}, is above the {different:,} different words of the "
            "validation part: the model guesses worse than an even choice among the words that actually come up "
            "there. It has most likely learnt its training text by heart (too little text to generalise), so this "
            "score says nothing about heads."
        )
    return notes


def _short(count: int) -> str:
    """A tick label: 250, 1,000, 48k, 962k."""
    return f"{count / 1000:,.0f}k" if count >= 10_000 else f"{count:,}"


def gap_figure(results: dict | None = None) -> go.Figure:
    """One head's test perplexity minus four heads' against the amount of training text (seed 0; each amount a
    pair trained from the start with the recipe's length for it); dashed: the seed range on the test text. A
    gap far off the others' scale, either way (a tiny text the models learn by heart), is named in words under
    the plot, not drawn, so the rest stay readable."""
    summary = (results or real_text_results())["summary"]
    target = summary.get("target", {})
    rows, font = summary["gap_by_words"], style()["font"]
    scale = 3 * max([target.get("seed_range", 1.0), *(abs(row["gap"]) for row in rows if abs(row["gap"]) < 10)])
    shown = [row for row in rows if abs(row["gap"]) <= scale]
    fig = go.Figure(go.Scatter(
        x=[row["train_words"] for row in shown], y=[row["gap"] for row in shown], mode="lines+markers",
        line={"color": PALETTE[5]},
        hovertemplate="%{x:,} words of training text<br>one head minus four heads: %{y:+.2f}<extra></extra>"))
    ticks = [row["train_words"] for row in shown]  # a tick at each measured point, none between (log axes clutter)
    padded = [math.log10(min(ticks)) - 0.15, math.log10(max(ticks)) + 0.15] if ticks else None
    fig.update_xaxes(tickvals=ticks, ticktext=[_short(value) for value in ticks], range=padded, type="log",
                     title_text="words of training text (test text)")
    drawn = [0.0, target.get("seed_range", 0.0), *(row["gap"] for row in shown)]
    span = max(drawn) - min(drawn) or 1.0  # room above the top tick, so its label stays clear of the title
    fig.update_yaxes(range=[min(drawn) - 0.04 * span, max(drawn) + 0.1 * span],
                     title_text="one head minus<br>four heads")
    if len(rows) < 2:  # a single point shows no trend: say what is missing and how to measure it
        fig.add_annotation(text="one point measured so far;<br>the rest: python -m benchmarks.real_text table",
                           x=0.5, y=0.9, xref="x domain", yref="y domain", showarrow=False, font={"color": "grey"})
    off_notes = [f"{row['train_words']:,} words: gap {row['gap']:+,.0f}" for row in rows if abs(row["gap"]) > scale]
    bottom = int(3.2 * font) + 20  # tick labels and the axis title
    if off_notes:  # below the axis title, where no point or line can run through it; no item split over lines
        lines, per_line = ["not drawn, far off the scale:"], int(FIT_WIDTH / (0.55 * font))
        for item in off_notes:
            if len(lines[-1]) + len(item) + 2 > per_line:
                lines.append(item)
            else:
                lines[-1] += (" " if lines[-1].endswith(":") else "; ") + item
        fig.add_annotation(text="<br>".join(lines), xref="paper", yref="paper", x=1, xanchor="right", y=0,
                           yanchor="top", yshift=-bottom, showarrow=False, font={"color": "grey"}, align="right")
        bottom += int(1.4 * font * len(lines)) + 6
    fig.add_hline(y=0, line={"color": "grey", "width": 1})
    if "seed_range" in target:
        fig.add_hline(y=target["seed_range"], line={"color": "grey", "dash": "dash", "width": 1})
    note = "; dashed: the seed range" if target else ""
    fig.update_layout(title=hung_title("Perplexity gap on the novels by amount of text (seed 0)",
                                       f"above 0: four heads better{note}"),
                      showlegend=False, margin={"t": 6 * font + 12, "b": bottom})
    return styled(fig, height=min(style()["size"], style()["tallest"]))
