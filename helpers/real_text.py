"""Real-text results for learners: the measured table, the gap figure, and honest notes on a learner's own text.

Everything here reads `assets/real_text.json` (through `helpers.novels.real_text_results`), written by
`python -m benchmarks.real_text`; no number is typed in. The notes on a learner's file take their thresholds
from the same measurements: how many words of training text the novels needed before four heads beat one by
more than the seed range, and what share of `<unk>` the novels themselves have.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.novels import real_text_results
from helpers.plots import FIT_WIDTH, PALETTE, hung_title, style, styled
from helpers.recipes import Recipe
from helpers.train import Corpus

SETTING = tuple(Recipe.__dataclass_fields__)  # ("lr", "warmup", "weight_decay", "batch_size", "steps")


def sweep_pairs(sweep: dict) -> dict[tuple, dict[int, dict]]:
    """{setting (values in SETTING order): {heads: run}}: the sweep's runs, one and four heads side by side,
    in the order they ran."""
    pairs: dict[tuple, dict[int, dict]] = {}
    for run in sweep.values():
        pairs.setdefault(tuple(run[k] for k in SETTING), {})[run["heads"]] = run
    return pairs


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
    return notes


def _short(count: int) -> str:
    """A tick label: 250, 1,000, 48k, 962k."""
    return f"{count / 1000:,.0f}k" if count >= 10_000 else f"{count:,}"


def gap_figure(results: dict | None = None) -> go.Figure:
    """Two panels on one vertical scale: one head's perplexity minus four heads' against training length (each
    length a separate run, validation text) and against the amount of training text (test text); dashed: the
    seed range. A gap far off the others' scale, either way (a tiny text the models learn by heart), is named
    in words under the panels, not drawn, so the rest stay readable."""
    summary = (results or real_text_results())["summary"]
    target = summary.get("target", {})
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1, shared_yaxes=True,
                        subplot_titles=("by training length", "by amount of text"))
    panels = ((1, summary["gap_by_steps"], "steps", PALETTE[0], "trained for %{x:,} steps",
               "python benchmarks/real_text.py longer"),
              (2, summary["gap_by_words"], "train_words", PALETTE[5], "%{x:,} words of training text",
               "python benchmarks/real_text.py table"))
    font = style()["font"]
    drawn, off_notes = [0.0, target.get("seed_range", 0.0), target.get("val_seed_range", 0.0)], []
    for col, rows, x, colour, hover, command in panels:
        scale = 3 * max([target.get("seed_range", 1.0), *(abs(row["gap"]) for row in rows if abs(row["gap"]) < 10)])
        shown = [row for row in rows if abs(row["gap"]) <= scale]
        fig.add_trace(go.Scatter(
            x=[row[x] for row in shown], y=[row["gap"] for row in shown], mode="lines+markers",
            line={"color": colour}, hovertemplate=hover + "<br>one head minus four heads: %{y:+.2f}<extra></extra>",
        ), row=1, col=col)
        ticks = [row[x] for row in shown]  # a tick at each measured point, none between (log axes clutter)
        padded = [math.log10(min(ticks)) - 0.15, math.log10(max(ticks)) + 0.15] if ticks else None
        fig.update_xaxes(tickvals=ticks, ticktext=[_short(value) for value in ticks], range=padded, row=1, col=col)
        drawn += [row["gap"] for row in shown]
        unit = "words" if x == "train_words" else "steps"
        off_notes += [f"{row[x]:,} {unit}: gap {row['gap']:+,.0f}" for row in rows if abs(row["gap"]) > scale]
        if len(rows) < 2:  # a single point shows no trend: say what is missing and how to measure it
            fig.add_annotation(text=f"one point measured so far;<br>the rest: {command}", x=0.5, y=0.9,
                               xref=f"x{col if col > 1 else ''} domain", yref=f"y{col if col > 1 else ''} domain",
                               showarrow=False, font={"color": "grey"})
    span = max(drawn) - min(drawn) or 1.0  # room above the top tick, so its label stays clear of the panel title
    fig.update_yaxes(range=[min(drawn) - 0.04 * span, max(drawn) + 0.1 * span])
    bottom = int(4.6 * font) + 20  # tick labels and the two-line axis titles
    if off_notes:  # below the axis titles, where no point or line can run through it; no item split over lines
        lines, per_line = ["not drawn, far off the scale:"], int(FIT_WIDTH / (0.55 * font))
        for item in off_notes:
            if len(lines[-1]) + len(item) + 2 > per_line:
                lines.append(item)
            else:
                lines[-1] += (" " if lines[-1].endswith(":") else "; ") + item
        fig.add_annotation(text="<br>".join(lines), xref="paper", yref="paper", x=1, xanchor="right", y=0,
                           yanchor="top", yshift=-bottom, showarrow=False, font={"color": "grey"}, align="right")
        bottom += int(1.4 * font * len(lines)) + 6
    for col, key in ((1, "val_seed_range"), (2, "seed_range")):
        fig.add_hline(y=0, line={"color": "grey", "width": 1}, row=1, col=col)
        if key in target:
            fig.add_hline(y=target[key], line={"color": "grey", "dash": "dash", "width": 1}, row=1, col=col)
    fig.update_xaxes(title_text="training steps<br>(validation text)", type="log", row=1, col=1)
    fig.update_xaxes(title_text="words of training text<br>(test text)", type="log", row=1, col=2)
    fig.update_yaxes(title_text="one head minus<br>four heads", row=1, col=1)
    note = "; dashed: the seed range on that panel's text" if target else ""
    fig.update_layout(title=hung_title("Perplexity gap on the novels (seed 0)", f"above 0: four heads better{note}"),
                      showlegend=False, margin={"t": 6 * font + 12, "b": bottom})
    return styled(fig, height=min(style()["size"], style()["tallest"]))
