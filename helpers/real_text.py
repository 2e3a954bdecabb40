"""Real-text results for learners: one head against four on the novels, over seeds and by amount of text.

Everything here reads `assets/real_text.json` (through `helpers.own_text.real_text_results`), written by
`python -m benchmarks.real_text`; no number is typed in. Chapter 5 prints the table and the gap by amount with
`print_novel_table` and `print_gap_by_amount`, and draws the gap with `gap_figure`. The notes on a learner's own
text live in helpers.own_text, below helpers.train, which prints them on the command line. The sweep that chose
the recipe (`current_sweep`, `sweep_grid`, `worst_ratios`) is the benchmark's; docs/recipe.md tells its story.
"""

from __future__ import annotations

import math
import textwrap

import plotly.graph_objects as go

from helpers.own_text import noise_threshold, own_text_notes, real_text_results
from helpers.plots import PALETTE, hung_title, style, styled
from helpers.recipes import TEXT_RECIPE, fixed_settings

__all__ = ["current_sweep", "gap_figure", "noise_threshold", "novel_runs", "own_text_notes", "print_gap_by_amount",
           "print_novel_table", "real_text_results", "sweep_grid", "worst_ratios"]
MODELS = {1: "one head", 4: "four heads"}


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


def novel_runs(results: dict | None = None) -> list[dict]:
    """The table's runs of one and four heads on all of the novels' training text, one dict per seed and model
    with "heads", "seed", "val_ppl" and "test_ppl": what exercise 2's `clear_winner` reads."""
    table = (results or real_text_results()).get("table", {}).values()
    heads = {name: count for count, name in MODELS.items()}
    return [{"heads": heads[run["model"]], "seed": run["seed"], "val_ppl": run["val_ppl"], "test_ppl": run["test_ppl"]}
            for run in sorted(table, key=lambda run: (run["seed"], -len(run["model"])))
            if run["share"] == 1.0 and run["model"] in heads]


def print_novel_table(results: dict | None = None) -> None:
    """One head against four heads on the novels: each model's mean perplexity over the seeds with its range, on
    the validation and the test text, and the share of <unk> in each."""
    results = results or real_text_results()
    runs, summary = novel_runs(results), results["summary"]
    words = max((run["train_words"] for run in results.get("table", {}).values() if run["share"] == 1.0), default=0)
    print(f"the novels together: {words:,} words to train on")
    print(f"<unk>: {summary['unknown_share']:.1%} of the validation words, {summary['test_unknown_share']:.1%} of "
          "the test words")
    print(f"{'model':<12}{'seeds':>7}{'validation perplexity':>30}{'test perplexity':>30}")
    for heads, name in MODELS.items():
        mine = [run for run in runs if run["heads"] == heads]
        cells = [f"{sum(s) / len(s):.3f} ({min(s):.3f} to {max(s):.3f})"  # a gap printed to 2 then agrees
                 for s in ([run[key] for run in mine] for key in ("val_ppl", "test_ppl"))] if mine else ["-", "-"]
        print(f"{name:<12}{len(mine):>7}{cells[0]:>30}{cells[1]:>30}")


def print_gap_by_amount(results: dict | None = None) -> None:
    """For each amount of training text measured over several seeds: the gap between the two models' mean test
    perplexities, the wider range over the seeds, and whether the gap beats it (exercise 2's rule)."""
    rows = (results or real_text_results())["summary"].get("gap_by_words", [])
    if not rows:
        print("the gap by amount of text is not measured yet: python -m benchmarks.real_text amounts")
        return
    print(f"{'training words':>15}{'seeds':>7}{'gap (one minus four)':>22}{'seed range':>12}   verdict")
    for row in rows:
        verdict = "beyond the noise" if row["clear"] else "within the noise"
        print(f"{row['train_words']:>15,}{len(row['seeds']):>7}{row['gap']:>+22.2f}{row['seed_range']:>12.2f}"
              f"   {verdict}")
    found = noise_threshold(results)
    if found and found.beyond is not None:
        below = f"; the most text within it: {found.within:,} words" if found.within else ", at every amount"
        print(textwrap.fill(f"the gap is beyond the seeds' noise from {found.beyond:,} words of training text up"
                            f"{below}", 100))


def gap_figure(results: dict | None = None) -> go.Figure:
    """The gap between one head's and four heads' mean test perplexity against the amount of training text,
    over a grey band from minus to plus the wider range over the seeds at each amount: a point outside the band
    is a gap larger than the seeds' noise."""
    rows = (results or real_text_results())["summary"].get("gap_by_words", [])
    if not rows:
        raise ValueError("no amounts of text measured yet: python -m benchmarks.real_text amounts")
    words = [row["train_words"] for row in rows]
    noise = [row["seed_range"] for row in rows]
    fig = go.Figure([
        go.Scatter(x=words, y=noise, mode="lines", line={"width": 0}, hoverinfo="skip", showlegend=False),
        go.Scatter(x=words, y=[-value for value in noise], mode="lines", line={"width": 0}, fill="tonexty",
                   fillcolor="rgba(128,128,128,0.3)", name="the seeds' noise (± the wider range)",
                   hovertemplate="%{x:,} words: seed range %{customdata:.2f}<extra></extra>", customdata=noise),
        go.Scatter(x=words, y=[row["gap"] for row in rows], mode="lines+markers", line={"color": PALETTE[5]},
                   name="gap between the means", hovertemplate="%{x:,} words of training text<br>one head minus "
                                                               "four heads: %{y:+.2f}<extra></extra>"),
    ])
    fig.update_xaxes(type="log", tickvals=words, ticktext=[f"{w / 1000:,.0f}k" for w in words],
                     range=[math.log10(min(words)) - 0.1, math.log10(max(words)) + 0.1],
                     title_text="words of training text (log scale)")
    fig.update_yaxes(title_text="test perplexity:<br>one head minus four heads", zeroline=True)
    font = style()["font"]
    fig.update_layout(title=hung_title("One head against four on the novels, by amount of text",
                                       "above the grey band: four heads better by more than the seeds' noise"),
                      margin={"t": 6 * font + 12}, legend={"orientation": "h", "y": -0.3, "x": 0})
    return styled(fig, height=min(style()["size"], style()["tallest"]))
