"""Real-text results for learners: the measured table, the gap figure, and honest notes on a learner's own text.

Everything here reads `assets/real_text.json` (through `helpers.own_text.real_text_results`), written by
`python -m benchmarks.real_text`; no number is typed in. The notes on a learner's own text live in
helpers.own_text, below helpers.train, which prints them on the command line.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from helpers.own_text import own_text_notes, real_text_results, stable_word_count
from helpers.plots import FIT_WIDTH, PALETTE, hung_title, style, styled
from helpers.recipes import TEXT_RECIPE, fixed_settings

__all__ = ["current_sweep", "gap_figure", "own_text_notes", "real_text_results", "stable_word_count", "sweep_grid",
           "worst_ratios"]  # the notes and the results are helpers.own_text's, offered here too for chapter 5

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
                     title_text="words of training text")
    drawn = [0.0, target.get("seed_range", 0.0), *(row["gap"] for row in shown)]
    span = max(drawn) - min(drawn) or 1.0  # room above the top tick, so its label stays clear of the title
    fig.update_yaxes(range=[min(drawn) - 0.04 * span, max(drawn) + 0.1 * span],
                     title_text="test perplexity: one<br>head minus four heads")
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
