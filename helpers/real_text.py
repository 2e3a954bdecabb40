"""Real-text results for learners: the measured table, the gap figure, and honest notes on a learner's own text.

Everything here reads `assets/real_text.json`, written by `python benchmarks/real_text.py`; no number is
typed in. The notes on a learner's file take their thresholds from the same measurements: how many words
of training text the novels needed before four heads beat one by more than the seed range, and what share
of `<unk>` the novels themselves have.
"""

from __future__ import annotations

import json
from functools import lru_cache

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.checkpoints import ASSETS
from helpers.plots import PALETTE, style, styled
from helpers.train import Corpus

RESULTS_FILE = ASSETS / "real_text.json"


@lru_cache(maxsize=1)
def real_text_results() -> dict:
    """The measured real-text results (sweep, table, summary); a clear error if the file is missing."""
    if not RESULTS_FILE.is_file():
        raise FileNotFoundError(f"{RESULTS_FILE}: not measured yet; run `python benchmarks/real_text.py table`")
    return json.loads(RESULTS_FILE.read_text())


def stable_word_count(results: dict | None = None) -> int | None:
    """Fewest training words at which four heads beat one head (seed 0) by more than the full text's seed
    range; None if no measured amount of text got there."""
    summary = (results or real_text_results())["summary"]
    seed_range = summary.get("target", {}).get("seed_range")
    if seed_range is None:
        return None
    clear = [row["train_words"] for row in summary["gap_by_words"] if row["gap"] > seed_range]
    return min(clear) if clear else None


def own_text_notes(corpus: Corpus, results: dict | None = None) -> list[str]:
    """Plain-language notes on what a comparison of heads on this text can and cannot show."""
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
    elif words < enough:
        notes.append(
            f"Too short to compare heads: {words:,} words to train on. On the series' novels four heads needed "
            f"about {enough:,} words of training text before they beat one head by more than the luck of the "
            "seed; with less, whichever model wins here may win by chance."
        )
    unknown = float((corpus.val_ids == 0).float().mean()) if len(corpus.val_ids) else 0.0
    novels = summary["unknown_share"]
    if unknown > novels:
        notes.append(
            f"{unknown:.0%} of the validation words are <unk> (outside this text's 1,023 most frequent words), "
            f"more than the {novels:.0%} of the series' novels. Every <unk> is the same blank to the model, so "
            "its perplexity looks better than its real guessing is, and the heads cannot tell those words apart."
        )
    return notes


def gap_figure(results: dict | None = None) -> go.Figure:
    """Two panels: one head's perplexity minus four heads' against training steps, and against amount of text."""
    summary = (results or real_text_results())["summary"]
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.14, subplot_titles=(
        "during training (validation text)", "by amount of training text (test text)"))
    for i, seed in enumerate(sorted({row["seed"] for row in summary["gap_by_steps"]})):
        rows = [row for row in summary["gap_by_steps"] if row["seed"] == seed]
        fig.add_trace(go.Scatter(
            x=[row["steps"] for row in rows], y=[row["gap"] for row in rows], mode="lines+markers",
            name=f"seed {seed}", line={"color": PALETTE[i % len(PALETTE)]},
            hovertemplate=f"seed {seed}<br>after %{{x}} steps<br>one head minus four heads: %{{y:+.2f}}<extra></extra>",
        ), row=1, col=1)
    by_words = summary["gap_by_words"]
    fig.add_trace(go.Scatter(
        x=[row["train_words"] for row in by_words], y=[row["gap"] for row in by_words], mode="lines+markers",
        name="seed 0, after all its steps", line={"color": PALETTE[5]},
        hovertemplate="%{x:,} training words<br>one head minus four heads: %{y:+.2f}<extra></extra>",
    ), row=1, col=2)
    seed_range = summary.get("target", {}).get("seed_range")
    for col in (1, 2):
        fig.add_hline(y=0, line={"color": "grey", "width": 1}, row=1, col=col)
        if seed_range is not None:
            fig.add_hline(y=seed_range, line={"color": "grey", "dash": "dash", "width": 1}, row=1, col=col)
    fig.update_xaxes(title_text="training steps", row=1, col=1)
    fig.update_xaxes(title_text="words of training text", type="log", row=1, col=2)
    fig.update_yaxes(title_text="one head minus four heads", row=1, col=1)
    note = f"; dashed: the seed range, {seed_range:.2f}" if seed_range is not None else ""
    fig.update_layout(title=f"Perplexity gap on the novels<br><sup>above 0: four heads better; grey: no difference"
                            f"{note}</sup>", legend={"orientation": "h", "y": -0.3}, margin={"t": 120})
    return styled(fig, height=style()["size"])
