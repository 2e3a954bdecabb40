"""Figures and small tools for comparing models (chapters 5 and 6).

- `learning_curves`: training loss against step for several runs, in one chart;
- `scoreboard_heatmap`: the detective scoreboard (share of attention on each kind of clue, per head);
- `ablation_bars`: what switching off each head costs in perplexity and clue accuracy;
- `late_checks` and `race_verdict`: score two equally long live runs; say whether one is clearly ahead;
- `seed_margin`: the gap between two models' means over seeds against the range over those seeds;
- `print_course_table`: the benchmark's story-world table (means and ranges over seeds) beside the course's;
- `print_equal_size`: chapter 5's control, one head and four heads against models of the other's size;
- `print_measured_pair`: two of the benchmark's other models over their seeds, and chapter 5's rule on them;
- `uploaded_file`: the file a learner gave an ipywidgets FileUpload, saved so `text_corpus` can read it.
"""

from __future__ import annotations

import math
import statistics
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.course import COURSE_TABLE
from helpers.plots import COLOUR_BAR, COLOURS, PALETTE, style, styled
from helpers.stories import CLUE_KINDS

UPLOADS = Path("uploads")
"""Where `uploaded_file` saves what a learner uploads: a folder beside the notebook (the kernel's working folder),
the learner's own on a shared hub, where the file browser shows it and `MY_TEXT` can name it later."""


def smooth(values: Sequence[float], window: int) -> list[float]:
    """Running mean over the last `window` values (fewer at the start): a steadier learning curve."""
    if not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a whole number >= 1, got {window!r}")
    out, total = [], 0.0
    for i, value in enumerate(values):
        total += value
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def learning_curves(
    curves: Mapping[str, Sequence[float]], title: str = "Learning curves", window: int | None = None
) -> go.Figure:
    """Training loss at every step for each named run: faint raw values and a bold running mean over `window` steps
    (by default a sixth of the longest run, at most 10: a short run's mean would lag far behind its losses)."""
    if not curves or any(len(losses) == 0 for losses in curves.values()):
        sizes = {name: len(losses) for name, losses in curves.items()}
        raise ValueError(f"need at least one run with at least one loss, got these numbers of losses: {sizes}")
    window = window or max(1, min(10, max(map(len, curves.values())) // 6))
    fig = go.Figure()
    for i, (name, losses) in enumerate(curves.items()):
        colour = PALETTE[i % len(PALETTE)]
        steps = list(range(1, len(losses) + 1))
        fig.add_trace(go.Scatter(
            x=steps, y=list(losses), mode="lines", line={"color": colour, "width": 1.5}, opacity=0.45,
            name=f"{name} (every step)", legendgroup=name, showlegend=False,
            hovertemplate=f"{name}<br>step %{{x}}<br>loss %{{y:.3f}}<extra></extra>",
        ))
        fig.add_trace(go.Scatter(
            x=steps, y=smooth(losses, window), mode="lines",  # a dash of its own: told apart without colour too
            line={"color": colour, "width": 3, "dash": ("solid", "dash", "dot", "dashdot")[i % 4]},
            name=name, legendgroup=name,
            hovertemplate=f"{name}<br>step %{{x}}<br>loss, mean of the last {window} steps %{{y:.3f}}<extra></extra>",
        ))
    fig.update_layout(
        title=f"{title}<br><sup>thin lines: every step; bold: mean of the last {window} steps (so it lags "
              "behind at first)</sup>",
        xaxis_title="training step", yaxis_title="training loss (lower is better)", legend={"title": "model"},
    )
    return styled(fig, height=int(style()["size"] * 0.9))


def _share(value: float) -> str:
    """A share as the chapter's tables print it, one decimal (12.5%, 3.5%), without a trailing .0 from 10% up."""
    text = f"{value:.1%}"
    return text.replace(".0%", "%") if value >= 0.1 else text


def _check_board(name: str, board: Mapping[str, Sequence[float]], kinds: Sequence[str]) -> int:
    """Number of heads in a scoreboard from helpers.evaluate.attention_on_clues (checks its shape)."""
    missing = [k for k in kinds if k not in board]
    if missing:
        raise ValueError(f"scoreboard {name!r} lacks the clue kinds {missing}; it has {sorted(board)}")
    heads = {len(board[k]) for k in kinds}
    if len(heads) != 1 or 0 in heads:
        raise ValueError(f"scoreboard {name!r} needs one share per head for every clue kind, got lengths {heads}")
    return heads.pop()


def scoreboard_heatmap(
    boards: Mapping[str, Mapping[str, Sequence[float]]],
    title: str = "Share of attention on each kind of clue",
    kinds: Sequence[str] = CLUE_KINDS,
    kind_name: str = "kind of clue",
) -> go.Figure:
    """Scoreboards side by side (rows: clue kind, columns: head), with a first panel for chance.

    boards maps a model's name to `attention_on_clues(...)`; the "chance" entry of the first board
    (attention spread evenly over the words seen) becomes its own one-column panel. kind_name names the rows
    on the axis and in the hover text ("kind of earlier word" for real text, where nobody planted clues).
    """
    if not boards:
        raise ValueError("need at least one scoreboard")
    heads = {name: _check_board(name, board, kinds) for name, board in boards.items()}
    first = next(iter(boards.values()))
    if len(first.get("chance", [])) != len(kinds):
        raise ValueError(f"the first scoreboard needs a 'chance' entry with one value per clue kind {list(kinds)}")
    panels = [("chance", ["spread evenly"], [[v] for v in first["chance"]])]
    panels += [(name, [f"head {h}" for h in range(heads[name])],
                [list(board[k]) for k in kinds]) for name, board in boards.items()]
    widths = [len(cols) + 0.6 for _, cols, _ in panels]
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=[p[0] for p in panels], shared_yaxes=True,
                        column_widths=widths, horizontal_spacing=0.04)
    for col, (name, columns, z) in enumerate(panels, start=1):
        fig.add_trace(go.Heatmap(
            z=z, x=columns, y=list(kinds), zmin=0, zmax=max(0.5, max(max(r) for _, _, g in panels for r in g)),
            colorscale=COLOURS, showscale=col == len(panels),
            text=[[_share(v) for v in row] for row in z],
            texttemplate="%{text}", colorbar=COLOUR_BAR | {"title": {"text": "share", "side": "top"}},
            hovertemplate=f"{name}<br>%{{x}}<br>{kind_name}: %{{y}}<br>share of attention: %{{z:.1%}}<extra></extra>",
        ), row=1, col=col)
    fig.update_yaxes(autorange="reversed")
    fig.update_yaxes(title_text=kind_name, row=1, col=1)
    for col in range(2, len(panels) + 1):
        fig.update_xaxes(title_text="head", row=1, col=col)
    fig.update_xaxes(tickangle=-45)
    fig.update_layout(title=title, margin={"t": 110})
    return styled(fig, height=int(style()["size"] * 0.9))


def ablation_bars(
    baseline: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], kinds: Sequence[str] = CLUE_KINDS
) -> go.Figure:
    """Two panels side by side: perplexity with each head switched off (grey: all heads on), and the clue
    accuracy lost, with its key under it.

    baseline: {"val_ppl": float, "clue_accuracy": {kind: share}} of the whole model;
    rows: helpers.evaluate.head_ablation(...), one {"head", "val_ppl", "clue_accuracy"} per head.
    """
    if not rows:
        raise ValueError("need at least one ablation row (one per head)")
    for row in rows:
        missing = [k for k in kinds if k not in row.get("clue_accuracy", {})]
        if "val_ppl" not in row or "head" not in row or missing:
            raise ValueError(f"each row needs 'head', 'val_ppl' and clue_accuracy for {list(kinds)}, got {row}")
    labels = [f"head {row['head']} off" for row in rows]
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.16, subplot_titles=[
        "perplexity (lower is better)", "clue accuracy lost"])
    perplexities = [baseline["val_ppl"]] + [row["val_ppl"] for row in rows]
    fig.add_trace(go.Bar(
        x=["all heads on", *labels], y=perplexities, marker_color=["#999999"] + ["#3b528b"] * len(rows),
        showlegend=False, text=[f"{v:.2f}" for v in perplexities], textposition="outside", cliponaxis=False,
        hovertemplate="%{x}<br>perplexity %{y:.3f}<extra></extra>",
    ), row=1, col=1)
    every_loss = []
    for i, kind in enumerate(kinds):
        lost = [baseline["clue_accuracy"][kind] - row["clue_accuracy"][kind] for row in rows]
        every_loss += lost
        fig.add_trace(go.Bar(
            x=labels, y=lost, name=kind, marker_color=PALETTE[i % len(PALETTE)], customdata=[100 * v for v in lost],
            hovertemplate=f"%{{x}}<br>{kind} clues: accuracy lost %{{customdata:.1f}} points<extra></extra>",
        ), row=1, col=2)
    fig.update_xaxes(tickangle=-45)
    fig.update_yaxes(title_text="validation perplexity", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(range=[0, max(perplexities) * 1.2], row=1, col=1)  # room for the numbers over the bars
    # a difference of two accuracies is in percentage points: ticks say 10, 20, ... rather than 10%
    step = 0.1 if max(every_loss) - min(every_loss) > 0.3 else 0.05
    ticks = [step * k for k in range(math.floor(min(0.0, *every_loss) / step), math.ceil(max(every_loss) / step) + 1)]
    fig.update_yaxes(title_text="accuracy lost (percentage points)", tickvals=ticks,
                     ticktext=[f"{100 * tick:.0f}" for tick in ticks], row=1, col=2)
    # the clue kinds' key stands beside the panel that uses it (the right one)
    fig.update_layout(title="Switching off one head at a time", barmode="group", margin={"t": 100},
                      legend={"title": {"text": "kind of clue"}})
    return styled(fig, height=int(style()["size"] * 1.1))


def late_checks(steps: int, checks: int = 3) -> tuple[int, ...]:
    """Steps at which to score the validation text in a live run: `checks` steps spread over its last third."""
    if not isinstance(steps, int) or steps < checks:
        raise ValueError(f"need a whole number of steps >= {checks} to check {checks} times, got {steps!r}")
    first = steps - steps // 3
    return tuple(sorted({first + round(i * (steps - first) / (checks - 1)) for i in range(checks)}))


@dataclass(frozen=True)
class Margin:
    """How far apart two models' scores over several seeds are, against how much the seeds alone move them."""

    gap: float
    """mean of the first model's scores minus mean of the second's"""
    range: float
    """the wider of the two ranges over the seeds (largest minus smallest; not a standard deviation)"""

    @property
    def beats_range(self) -> bool:
        """True when the gap is larger than the range: another set of seeds is unlikely to reverse it."""
        return abs(self.gap) > self.range


def seed_margin(first: Sequence[float], second: Sequence[float]) -> Margin:
    """The one rule for calling a winner over seeds: the gap between the means must beat the seed range."""
    if not first or not second:
        raise ValueError(f"need at least one score per model, got {len(first)} and {len(second)}")
    wider = max(max(first) - min(first), max(second) - min(second))
    return Margin(gap=statistics.mean(first) - statistics.mean(second), range=wider)


def print_measured_pair(results: Mapping[str, Any], first: str, second: str) -> None:
    """Two models the benchmark trained beside its table (`results["controls"]`, `assets/results.json`) with the
    table's steps and seeds: each one's mean validation perplexity and range, then chapter 5's rule on the gap."""
    controls = results["controls"]
    missing = [name for name in (first, second) if name not in controls["runs"]]
    if missing:
        raise ValueError(f"results.json has no runs of {missing}: python -m benchmarks.bench --only-controls --control "
                         f"{' '.join(missing)} trains them")
    ppl = {name: [run["val_ppl"] for run in controls["runs"][name]] for name in (first, second)}
    print(f"{'model':<52}{'parameters':>11}{'val perplexity, mean (range)':>31}")
    for name in (first, second):
        row, values = controls["models"][name], ppl[name]
        spread = f"{statistics.mean(values):.3f} ({min(values):.3f} to {max(values):.3f})"
        print(f"{row['label']:<52}{row['params']:>11,}{spread:>31}")
    margin = seed_margin(ppl[first], ppl[second])
    ahead = controls["models"][second if margin.gap > 0 else first]["label"]
    print(f"{controls['steps']:,} steps each, seeds {', '.join(map(str, sorted(controls['models'][first]['seeds'])))}")
    print(f"the gap between the means: {abs(margin.gap):.3f}; the wider range over the seeds: {margin.range:.3f} "
          "(from the unrounded values)")  # the rounded ends above may differ by 0.001
    print(f"{ahead} came out ahead by more than the seeds move either" if margin.beats_range
          else "too close to call: the gap is inside what the seeds alone move")


def print_equal_size(results: Mapping[str, Any]) -> None:
    """Chapter 5's control (`assets/results.json`): one head and four heads beside a model of the other's size
    (four heads without the output projection, one head with it), chapter 5's rule on each pair of equal size and
    on the projection alone, then the verdict those three say together."""
    runs, control = results["table"]["runs"], results["controls"]["runs"]
    groups = {"one head": [run for run in runs if run["heads"] == 1], "four heads, no projection": control["4-no-proj"],
              "one head with a projection": control["1-proj"], "four heads": [run for run in runs if run["heads"] == 4]}
    print(f"{'model':<28}{'parameters':>12}{'seeds':>7}{'mean perplexity':>17}")
    for name, group in groups.items():
        mean = statistics.mean(run["val_ppl"] for run in group)
        print(f"{name:<28}{group[0]['params']:>12,}{len(group):>7}{mean:>17.3f}")

    def compare(first: str, second: str) -> Margin:  # gap > 0: `second` scored lower (better)
        margin = seed_margin([run["val_ppl"] for run in groups[first]], [run["val_ppl"] for run in groups[second]])
        side, noise = "lower" if margin.gap > 0 else "higher", "beyond" if margin.beats_range else "within"
        print(textwrap.fill(f"{second} against {first}: {side} by {abs(margin.gap):.3f}, seed range "
                            f"{margin.range:.3f}: {noise} the noise", 100, subsequent_indent="    "))
        return margin

    equal_size = [compare("one head", "four heads, no projection"), compare("one head with a projection", "four heads")]
    projection = compare("one head", "one head with a projection")
    if all(margin.beats_range and margin.gap > 0 for margin in equal_size):
        heads = ("at equal size, four heads beat one head both times, so their lead comes from the heads, not from "
                 "the projection's extra parameters")
    else:
        heads = ("at equal size, four heads do not beat one head both times beyond the noise, so the heads alone do "
                 "not explain their lead")
    if not projection.beats_range:
        added = "changes nothing beyond the noise"
    else:
        added = "helps it" if projection.gap > 0 else "makes it worse"
    print(textwrap.fill(f"verdict: {heads}; a projection added to one head {added}", 100, subsequent_indent="    "))


def print_course_table(results: Mapping[str, Any]) -> None:
    """The course's table beside the series' (`assets/results.json` of benchmarks/bench.py): parameters, and per
    model the mean validation perplexity and clue accuracy over the seeds with their range (lowest to highest)."""
    table, course = results["table"], {row["heads"]: row for row in COURSE_TABLE}
    print(f"the course: its own training text; this series: the story world, seeds {table['seeds']}, "
          f"{table['steps']:,} steps each\n")
    print(f"{'':<12}{'the course':^26}|{'this series':^48}")
    print(f"{'model':<12}{'parameters':>12}{'perplexity':>13} |{'parameters':>12}{'perplexity (range)':>24}"
          f"{'clue accuracy (range)':>24}")
    for heads, label in ((1, "one head"), (4, "four heads")):
        runs = [run for run in table["runs"] if run["heads"] == heads]  # one per seed
        ppl, acc = [run["val_ppl"] for run in runs], [run["clue_accuracy"]["all"] for run in runs]
        spread = (f"{sum(ppl) / len(ppl):.3f} ({min(ppl):.3f} to {max(ppl):.3f})",
                  f"{sum(acc) / len(acc):.1%} ({min(acc):.1%} to {max(acc):.1%})")
        print(f"{label:<12}{course[heads]['params']:>12,}{course[heads]['perplexity']:>13} |"
              f"{table['models'][str(heads)]['params']:>12,}{spread[0]:>24}{spread[1]:>24}")


def race_verdict(runs: Mapping[str, Any], notes: Mapping[str, Sequence[str]] | None = None) -> str:
    """The verdict on two live runs (train() results with a val_curve from `eval_at=late_checks(steps)`).

    `notes`, by run name, say that a run's score cannot compare heads (helpers.own_text.own_text_notes given its
    validation perplexity): they are printed, and no model is called ahead.

    How far each model's validation perplexity still moved over its last checks ("still changing") is the yard
    stick, measured in the run itself. It is a rough one (three checks, and the models are still learning: a
    trend, not noise), so a model counts as ahead only when its lead is more than twice that movement and, where the
    text has clues, the clue accuracy agrees. Anything less is called too close or mixed, never a win. The gap
    and the movement are worked out from the perplexities as printed (two decimals), so the printout adds up.
    Lines wrap at 100 characters, so the printout reads whole on a projector.
    """
    stopped = [f"'{name}' stopped after {run.steps} of {run.steps_planned} steps" for name, run in runs.items()
               if getattr(run, "stopped_early", "")]  # the stop button (■), or a time budget
    if stopped:
        return textwrap.fill(f"verdict: none yet, as {' and '.join(stopped)}: a race is read at its end. Run the "
                             "training cell again and let it finish.", 100, subsequent_indent="  ")
    if len(runs) != 2:
        raise ValueError(f"a race needs exactly two runs, got {len(runs)}: {list(runs)}")
    (name_a, a), (name_b, b) = runs.items()
    for name, run in runs.items():
        if len(run.val_curve) < 2:
            raise ValueError(f"run {name!r} needs at least two validation checks: train it with "
                             f"eval_at=late_checks(steps), got {dict(run.val_curve)}")
    # every figure compared is the one printed (two decimals), so a reader can redo the verdict from the printout
    moved = round(max(max(run.val_curve.values()) - min(run.val_curve.values()) for run in runs.values()), 2)
    checks = ", ".join(str(step) for step in a.val_curve)
    gap = round(abs(round(a.val_ppl, 2) - round(b.val_ppl, 2)), 2)
    ahead = name_a if a.val_ppl < b.val_ppl else name_b
    after = f"{a.steps} steps each" if a.steps == b.steps else f"{a.steps} and {b.steps} steps"
    lines = [f"validation perplexity after {after} (lower is better):",
             f"  {name_a} {a.val_ppl:,.2f}, {name_b} {b.val_ppl:,.2f}: a gap of {gap:,.2f}"]
    clues = [getattr(run, "clue_accuracy", {}).get("all") for run in (a, b)]
    clue_leader = None  # the model with the higher clue accuracy, if both have one and they differ
    if None not in clues:
        lines.append(f"clue accuracy (higher is better): {name_a} {clues[0]:.1%}, {name_b} {clues[1]:.1%}")
        if clues[0] != clues[1]:
            clue_leader = name_a if clues[0] > clues[1] else name_b
    if a.steps != b.steps:
        lines.append("the runs took different numbers of steps, so this is not a fair race")
    lines.append(f"still changing: over the last checks (steps {checks}), each model's perplexity moved by up "
                 f"to\u00a0{moved:,.2f}")  # a non-breaking space: the number never sits alone on a line
    owners = {}  # note -> the runs it is about: one said of both runs (a note on the text) is printed once
    for name, run_notes in (notes or {}).items():
        for note in run_notes:
            owners.setdefault(note, []).append(name)
    said = [f"Note{'' if len(names) == len(runs) else ' (' + ', '.join(names) + ')'}: {note}"
            for note, names in owners.items()]
    if said:
        notes_say = "the notes say" if len(said) > 1 else "the note says"
        lines += [*said, f"verdict: none, as {notes_say} a score here cannot compare heads"]
    elif gap <= 2 * moved:
        if gap <= moved:
            lines.append(f"verdict on perplexity: the gap ({gap:,.2f}) is no larger than how much the models were "
                         f"still changing ({moved:,.2f}); this race does not say which model is better")
        else:
            lines.append(f"verdict on perplexity: {ahead} ended lower, but its lead ({gap:,.2f}) is not more than "
                         f"twice how much the models were still changing (2 x {moved:,.2f} = {2 * moved:,.2f}): too "
                         "close to call, even in this race")
        if clue_leader is not None:  # a clue accuracy far apart is what a reader sees next: say why it is no verdict
            lines.append(f"clue accuracy: {clue_leader} scored higher, but it was scored only at the end of the "
                         "run, so there is no yardstick for how much it moves by chance; models trained from several "
                         "seeds settle it")
    elif clue_leader is not None and clue_leader != ahead:
        lines.append(f"verdict: the scores disagree ({ahead} has the lower perplexity, {clue_leader} the higher "
                     "clue accuracy); this race does not say which model is better")
    else:
        on = "on perplexity and on clue accuracy" if clue_leader == ahead else "on perplexity"
        lines.append(f"verdict: {ahead} came out ahead {on}, by more than twice how much they were still changing, in "
                     "this run; one seed and one short run cannot say whether it stays ahead")
    return "\n".join(textwrap.fill(line, 100, subsequent_indent="  ") for line in lines)


def uploaded_file(value: Sequence[Mapping[str, Any]] | Mapping[str, Any], folder: str | Path = UPLOADS) -> Path | None:
    """Save the first file of a FileUpload's `value` into `folder` and return its path; None if empty.

    ipywidgets 8 gives a tuple of files, each with its name; ipywidgets 7 (Colab's) a dict from each file's name
    to its content and metadata. Only the file's own name is kept (no folders from it), so an upload cannot
    write elsewhere.
    """
    if not value:
        return None
    if isinstance(value, Mapping):  # ipywidgets 7: {name: {"metadata": ..., "content": ...}}
        name, entry = next(iter(value.items()))
        value = [{**entry, "name": name}] if isinstance(entry, Mapping) else [entry]
    item = value[0]
    try:
        name, content = Path(str(item["name"])).name, bytes(item["content"])
    except (KeyError, TypeError) as err:
        raise ValueError(f"not a FileUpload value (needs 'name' and 'content'), got {type(item).__name__}") from err
    if name in ("", ".", ".."):
        raise ValueError(f"the uploaded file needs a file name, got {item['name']!r}")
    path = Path(folder) / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    except OSError as err:
        raise ValueError(f"the upload cannot be saved as {path.resolve()} ({err.strerror}): put the file next to the "
                         "notebook instead and give its name in MY_TEXT") from None
    return path
