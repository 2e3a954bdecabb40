"""Benchmark: one head vs four heads over 3 seeds, training speed against this machine's peak, attention speed.

    python -m benchmarks.bench                    # writes assets/results.json
    python -m benchmarks.bench --only-controls    # reruns just the output-projection control, merged in

The figures are stored once, in assets/results.json; `markdown(results)` renders them for people, and
benchmarks/report.py puts that text in the README.

Everything is measured in one run, side by side, because the machine is shared and noisy: the load
average seen at the start and the end is recorded with the figures. Each target prints whether it
was met; nothing is adjusted to make it pass.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import torch
import torch.nn.functional as F

from helpers.checkpoints import ASSETS, load_model
from helpers.compare import seed_margin
from helpers.course import COURSE_TABLE
from helpers.evaluate import attention_on_clues, head_ablation
from helpers.model import CourseConfig, course_model
from helpers.registry import SHIPPED, STORY_WORLD
from helpers.stories import CLUE_KINDS
from helpers.train import BATCH_SIZE, CHECKPOINT_STEPS, random_batch, story_corpus, train

SEEDS = (0, 1, 2)
TARGET_SECONDS = 90
TARGET_TOKENS_PER_S = 80_000
KINDS = (*CLUE_KINDS, "all")
CONTROLS = {
    "4-no-proj": {"heads": 4, "out_proj": False, "label": "four heads, no output projection"},
    "1-proj": {"heads": 1, "out_proj": True, "label": "one head with an output projection"},
}
"""The control: does four heads' gain come from the heads or from the output projection's parameters?"""


def machine() -> dict:
    """What the figures were measured on, and how busy it was."""
    return {
        "date_utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "cpus": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
        "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }


def _best_time(fn: Callable[[], object], repeats: int = 5, warmup: int = 2) -> float:
    """Fastest of `repeats` timings of fn() in seconds (the least disturbed by other programs)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def matmul_gflops(n: int = 1024) -> float:
    """This machine's fp32 matrix-multiply rate in GFLOP/s (n x n times n x n, best of 5)."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    return 2 * n**3 / _best_time(lambda: a @ b, repeats=10) / 1e9


def training_flops_per_token(heads: int, out_proj: bool | None = None) -> float:
    """Arithmetic per training token of the course model: forward (matmuls + attention) times 3 for backward."""
    config = CourseConfig(heads=heads, out_proj=out_proj)
    width = config.width
    projections = 3 * width * width + (width * width if config.out_proj else 0)  # q, k, v (+ output mix)
    attention = 2 * width * (config.context + 1) / 2  # scores and weighted sum over on average (T+1)/2 words
    forward = 2 * (projections + width * config.vocab_size) + 2 * attention
    return 3 * forward


def attention_speed(heads: int, batch: int = BATCH_SIZE) -> dict:
    """The series' attention (need_weights=True: scores, mask, softmax by hand) vs torch's fused kernel."""
    torch.manual_seed(0)
    model = course_model(heads=heads)
    context, width = model.config.context, model.config.width
    layer = model.attn
    x = torch.randn(batch, context, width, requires_grad=True)  # [B, T, C]

    def step(need_weights: bool, backward: bool):
        def run():
            y, _ = layer(x, need_weights=need_weights)
            if backward:
                y.sum().backward()

        return run

    with torch.no_grad():
        series_fwd = _best_time(step(True, False))
        fused_fwd = _best_time(step(False, False))
    series_train = _best_time(step(True, True))
    fused_train = _best_time(step(False, True))
    return {
        "heads": heads, "shape": [batch, context, width],
        "series_forward_ms": round(series_fwd * 1e3, 2), "fused_forward_ms": round(fused_fwd * 1e3, 2),
        "forward_ratio": round(series_fwd / fused_fwd, 2),
        "series_train_ms": round(series_train * 1e3, 2), "fused_train_ms": round(fused_train * 1e3, 2),
        "train_ratio": round(series_train / fused_train, 2),
    }


def plain_loop_tokens_per_s(heads: int, steps: int = 30) -> float:
    """Tokens/s of the plainest PyTorch loop for the same model, batch and optimiser (no schedule, no bar)."""
    corpus = story_corpus()
    model = course_model(heads=heads)
    context, vocab = model.config.context, model.config.vocab_size
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(0)
    batches = [random_batch(corpus.train_ids, BATCH_SIZE, context, gen) for _ in range(steps + 3)]

    def one(x: torch.Tensor, y: torch.Tensor) -> None:
        loss = F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    for x, y in batches[:3]:
        one(x, y)
    start = time.perf_counter()
    for x, y in batches[3:]:
        one(x, y)
    return steps * BATCH_SIZE * context / (time.perf_counter() - start)


def _range(values: list[float]) -> float:
    """The range over the seeds: largest minus smallest (not a standard deviation)."""
    return max(values) - min(values)


def _mean_range(values: list[float], fmt: str) -> str:
    """'mean (lowest to highest)', each value written with format `fmt`."""
    mean, low, high = (format(v, fmt) for v in (statistics.mean(values), min(values), max(values)))
    return f"{mean} ({low} to {high})"


def _one_run(heads: int, steps: int, seed: int, out_proj: bool | None = None) -> dict:
    """Train one course model (out_proj=None: the course's default) and return its figures."""
    model = course_model(heads=heads, seed=seed, out_proj=out_proj)
    result = train(steps=steps, seed=seed, progress=False, model=model)
    mixes = bool(model.config.out_proj)
    print(f"  seed {seed}, {heads} head(s), output projection {'yes' if mixes else 'no'}: val perplexity "
          f"{result.val_ppl:.3f}, clue accuracy {result.clue_accuracy['all']:.1%}, {result.seconds:.1f} s, "
          f"{result.tokens_per_s:,.0f} tokens/s", flush=True)
    return result.summary() | {"flops_per_token": training_flops_per_token(heads, out_proj=mixes)}


def _summary(runs: list[dict]) -> dict:
    """Mean and range (largest minus smallest) over the seeds of one model's runs."""
    ppl = [r["val_ppl"] for r in runs]
    return {
        "heads": runs[0]["heads"], "params": runs[0]["params"],
        "val_ppl_mean": round(statistics.mean(ppl), 4), "val_ppl_spread": round(_range(ppl), 4),
        "clue_accuracy_mean": {k: round(statistics.mean(r["clue_accuracy"][k] for r in runs), 4) for k in KINDS},
        "clue_accuracy_spread": {k: round(_range([r["clue_accuracy"][k] for r in runs]), 4) for k in KINDS},
        "seconds_mean": round(statistics.mean(r["seconds"] for r in runs), 1),
        "seconds_max": round(max(r["seconds"] for r in runs), 1),
        "tokens_per_s_mean": round(statistics.mean(r["tokens_per_s"] for r in runs)),
    }


def compare(steps: int, seeds: tuple[int, ...]) -> dict:
    """Train one head and four heads for every seed; collect per-run figures and per-model summaries."""
    runs = [_one_run(heads, steps, seed) for seed in seeds for heads in (1, 4)]
    models = {str(heads): _summary([r for r in runs if r["heads"] == heads]) for heads in (1, 4)}
    return {"steps": steps, "seeds": list(seeds), "runs": runs, "models": models}


def controls(
    steps: int, seeds: tuple[int, ...], rows: tuple[str, ...] = tuple(CONTROLS), earlier: dict | None = None
) -> dict:
    """Train the control `rows` for every seed, merged into `earlier` results of the same step count.

    A new run replaces an earlier one of the same row and seed, so the rows can be measured a few at a time on
    a busy machine; each session keeps the load average seen before and after it.
    """
    start = machine()
    fresh = {key: [_one_run(CONTROLS[key]["heads"], steps, seed, CONTROLS[key]["out_proj"]) for seed in seeds]
             for key in rows}
    end = machine()
    keep = earlier is not None and earlier["steps"] == steps
    runs = {key: list(earlier["runs"].get(key, [])) if keep else [] for key in CONTROLS}
    for key, new in fresh.items():
        runs[key] = sorted([r for r in runs[key] if r["seed"] not in seeds] + new, key=lambda r: r["seed"])
    sessions = [*(earlier["sessions"] if keep else []),
                {"rows": list(rows), "seeds": list(seeds), "machine_at_start": start, "machine_at_end": end}]
    models = {key: _summary(mine) | {"label": CONTROLS[key]["label"], "out_proj": CONTROLS[key]["out_proj"],
                                     "seeds": [r["seed"] for r in mine]}
              for key, mine in runs.items() if mine}
    return {"steps": steps, "sessions": sessions, "runs": runs, "models": models}


def targets(table: dict, speed: dict) -> list[dict]:
    """Each target of the series, with the measured figure and whether it was met."""
    one, four = table["models"]["1"], table["models"]["4"]
    by_seed = {(r["seed"], r["heads"]): r for r in table["runs"]}
    seeds = table["seeds"]
    ppl = {h: [by_seed[s, h]["val_ppl"] for s in seeds] for h in (1, 4)}
    acc = {h: [by_seed[s, h]["clue_accuracy"]["all"] for s in seeds] for h in (1, 4)}
    ppl_gaps = [o - f for o, f in zip(ppl[1], ppl[4], strict=True)]  # > 0: four heads lower
    acc_gaps = [f - o for o, f in zip(acc[1], acc[4], strict=True)]  # > 0: four heads higher
    ppl_margin = seed_margin(ppl[1], ppl[4])  # gap > 0: four heads lower
    acc_margin = seed_margin(acc[4], acc[1])  # gap > 0: four heads higher
    slowest = max(one["seconds_max"], four["seconds_max"])
    rule = "and the gap between the two means is larger than the wider of their ranges over seeds"
    return [
        {"target": f"four heads beat one head on validation perplexity in every seed, {rule}",
         "measured": f"won {sum(g > 0 for g in ppl_gaps)} of {len(seeds)} seeds; gap between the means "
                     f"{ppl_margin.gap:.3f}, wider range {ppl_margin.range:.3f}; smallest single-seed gap "
                     f"{min(ppl_gaps):.3f}",
         "met": all(g > 0 for g in ppl_gaps) and ppl_margin.gap > 0 and ppl_margin.beats_range},
        {"target": f"four heads beat one head on clue accuracy in every seed, {rule}",
         "measured": f"won {sum(g > 0 for g in acc_gaps)} of {len(seeds)} seeds; gap between the means "
                     f"{100 * acc_margin.gap:.1f} points, wider range {100 * acc_margin.range:.1f} points; "
                     f"smallest single-seed gap {100 * min(acc_gaps):.1f} points",
         "met": all(g > 0 for g in acc_gaps) and acc_margin.gap > 0 and acc_margin.beats_range},
        {"target": f"each model reaches its checkpoint quality in <= {TARGET_SECONDS} s of training",
         "measured": f"slowest run {slowest:.1f} s for {table['steps']} steps",
         "met": slowest <= TARGET_SECONDS},
        {"target": f"four-head training throughput >= {TARGET_TOKENS_PER_S:,} tokens/s",
         "measured": f"{four['tokens_per_s_mean']:,} tokens/s (a plain PyTorch loop measured now: "
                     f"{speed['plain_loop_tokens_per_s']['4']:,} tokens/s)",
         "met": four["tokens_per_s_mean"] >= TARGET_TOKENS_PER_S},
    ]


def checkpoint_check(table: dict) -> list[dict]:
    """Does the seed-0 run of this benchmark reproduce each shipped checkpoint's card?"""
    rows = []
    for name, heads in ((c.name, c.heads) for c in SHIPPED if c.text == STORY_WORLD):
        try:
            card = load_model(name).card
        except (ValueError, OSError) as err:
            rows.append({"name": name, "problem": str(err)})
            continue
        run = next((r for r in table["runs"] if r["heads"] == heads and r["seed"] == card["seed"]), None)
        rows.append({"name": name, "card_val_ppl": card["val_ppl"], "card_steps": card["steps"],
                     "bench_val_ppl": run["val_ppl"] if run and card["steps"] == table["steps"] else None})
    return rows


def detectives() -> dict:
    """The four-head checkpoint's scoreboard (attention share on each clue kind) and head ablation."""
    model = load_model("four_heads")
    corpus = story_corpus()
    return {"attention_on_clues": attention_on_clues(model, corpus.val_ids, corpus.val_clues),
            "head_ablation": head_ablation(model, corpus.val_ids, corpus.val_clues)}


def run(steps: int, seeds: tuple[int, ...]) -> dict:
    """The whole benchmark; returns the results (also what results.json holds)."""
    start_machine = machine()
    print(f"machine: {start_machine}", flush=True)
    story_corpus()  # generate the text before any timing
    gflops_before = matmul_gflops()
    plain = {str(h): round(plain_loop_tokens_per_s(h)) for h in (1, 4)}
    attention = [attention_speed(h) for h in (1, 4)]
    print(f"matmul {gflops_before:.1f} GFLOP/s; plain loop {plain} tokens/s; attention {attention}", flush=True)
    table = compare(steps, seeds)
    control = controls(steps, seeds)
    gflops_after = matmul_gflops()
    peak = max(gflops_before, gflops_after)
    share = {
        h: table["models"][h]["tokens_per_s_mean"] * training_flops_per_token(int(h)) / 1e9 for h in ("1", "4")
    }
    speed = {
        "matmul_gflops_before": round(gflops_before, 1), "matmul_gflops_after": round(gflops_after, 1),
        "training_gflops": {h: round(v, 1) for h, v in share.items()},
        "share_of_peak": {h: round(v / peak, 3) for h, v in share.items()},
        "plain_loop_tokens_per_s": plain, "attention": attention,
    }
    results = {
        "machine_at_start": start_machine, "machine_at_end": machine(), "speed": speed, "table": table,
        "controls": control,
        "targets": targets(table, speed), "checkpoints": checkpoint_check(table), "detectives": detectives(),
        "course_table": list(COURSE_TABLE),
    }
    return results


def control_markdown(table: dict, control: dict) -> list[str]:
    """The output-projection control beside the two course models, with per-seed verdicts."""
    one, four = table["models"]["1"], table["models"]["4"]
    rows = [("one head", "no", [r for r in table["runs"] if r["heads"] == 1]),
            (CONTROLS["4-no-proj"]["label"], "no", control["runs"]["4-no-proj"]),
            (CONTROLS["1-proj"]["label"], "yes", control["runs"]["1-proj"]),
            ("four heads", "yes", [r for r in table["runs"] if r["heads"] == 4])]
    lines = [
        f"### Heads or parameters? The output-projection control ({control['steps']} training steps each)",
        "",
        f"Four heads have {four['params'] - one['params']:,} more parameters than one head: the output projection "
        "that mixes the heads. The control swaps it: four heads without it (one head's parameter count) and one "
        "head with it (four heads' count), each from the seeds listed. Trained in these sessions (load average "
        "over 1, 5 and 15 min at the start and at the end; a load far above the number of cores means the "
        "machine was shared, which slows training but does not change what it learns):",
        "",
    ]
    for session in control["sessions"]:
        start, end = session["machine_at_start"], session["machine_at_end"]
        lines.append(f"- {start['date_utc']} UTC, {', '.join(session['rows'])}, seeds {session['seeds']}: load "
                     f"{start['load_average_1_5_15']} at the start, {end['load_average_1_5_15']} at the end")
    lines += ["", "| model | output projection | parameters | seeds | val perplexity: mean (range) | "
              "clue accuracy: mean (range) |", "|---|---|---:|---|---:|---:|"]
    for label, mixes, runs in rows:
        if not runs:
            lines.append(f"| {label} | {mixes} | | not measured yet | | |")
            continue
        lines.append(f"| {label} | {mixes} | {runs[0]['params']:,} | {', '.join(str(r['seed']) for r in runs)} | "
                     f"{_mean_range([r['val_ppl'] for r in runs], '.3f')} | "
                     f"{_mean_range([r['clue_accuracy']['all'] for r in runs], '.1%')} |")
    lines.append("")
    if control["steps"] != table["steps"]:
        return [*lines, f"The control trained {control['steps']} steps and the course models {table['steps']}: "
                        "no seed-by-seed comparison.", ""]
    by_seed = {(r["seed"], r["heads"]): r for r in table["runs"]}
    for key, rival_heads, who, rival in (("4-no-proj", 1, "four heads without the projection", "one head"),
                                         ("1-proj", 4, "one head with the projection", "four heads")):
        pairs = [(r, by_seed.get((r["seed"], rival_heads))) for r in control["runs"][key]]
        pairs = [(r, other) for r, other in pairs if other is not None]
        if not pairs:
            continue
        wins = sum(r["val_ppl"] < other["val_ppl"] for r, other in pairs)
        lines.append(f"- Same parameter count ({pairs[0][0]['params']:,}): {who} reached a lower perplexity than "
                     f"{rival} in {wins} of {len(pairs)} seeds.")
    return [*lines, ""]


def markdown(results: dict) -> str:
    """The figures of results.json for people, as markdown (the README's results block)."""
    table, speed = results["table"], results["speed"]
    start, end = results["machine_at_start"], results["machine_at_end"]
    lines = [
        "## Measured results",
        "",
        f"Written by `python -m benchmarks.bench` on {start['date_utc']} UTC: {start['cpus']} CPU cores, "
        f"torch {start['torch']} with {start['torch_threads']} threads. Load average (1, 5, 15 min) "
        f"{start['load_average_1_5_15']} at the start and {end['load_average_1_5_15']} at the end"
        + (": other programs shared the machine, so speeds are lower than on an idle one."
           if max(start["load_average_1_5_15"][0], end["load_average_1_5_15"][0]) > start["cpus"] / 2
           else " (a load near or above the number of cores means other programs slowed the runs)."),
        "",
        f"### One head vs four heads ({len(table['seeds'])} seeds, {table['steps']} training steps each)",
        "",
        "Validation perplexity on the story world (lower is better) and clue accuracy: how often the model's "
        "top guess is right for words that depend on a clue (higher is better). Each is the mean over the "
        "seeds, with the range in brackets: the lowest and the highest seed (a range, not a standard deviation).",
        "",
        "| model | parameters | val perplexity: mean (range) | clue accuracy: mean (range) | "
        + " | ".join(CLUE_KINDS) + " | training time | tokens/s |",
        "|---|---:|---:|---:|" + "---:|" * len(CLUE_KINDS) + "---:|---:|",
    ]
    for key, label in (("1", "one head"), ("4", "four heads")):
        m = table["models"][key]
        acc = m["clue_accuracy_mean"]
        mine = [r for r in table["runs"] if r["heads"] == m["heads"]]
        lines.append(
            f"| {label} | {m['params']:,} | {_mean_range([r['val_ppl'] for r in mine], '.3f')} | "
            f"{_mean_range([r['clue_accuracy']['all'] for r in mine], '.1%')} | "
            + " | ".join(f"{acc[k]:.1%}" for k in CLUE_KINDS)
            + f" | {m['seconds_mean']:.1f} s | {m['tokens_per_s_mean']:,} |"
        )
    lines += ["", "Every run:", "", "| seed | heads | val perplexity | clue accuracy | seconds | tokens/s |",
              "|---:|---:|---:|---:|---:|---:|"]
    for r in table["runs"]:
        lines.append(f"| {r['seed']} | {r['heads']} | {r['val_ppl']:.3f} | {r['clue_accuracy']['all']:.1%} | "
                     f"{r['seconds']:.1f} | {r['tokens_per_s']:,} |")
    course = " and ".join(f"{c['model']}: {c['params']:,} parameters, perplexity {c['perplexity']}"
                          for c in results["course_table"])
    lines += ["", f"For comparison, the course measured on its own text: {course}. Perplexities on different "
              "text are not comparable; the story world is far more predictable than real writing.", ""]
    if "controls" in results:
        lines += control_markdown(table, results["controls"])
    lines += ["### Targets", ""]
    for t in targets(table, speed):  # the wording follows this script; the figures are the stored runs
        lines.append(f"- **{'met' if t['met'] else 'NOT met'}**: {t['target']} ({t['measured']})")
    lines += ["", "### Speed", ""]
    lines.append(f"- fp32 matrix multiply on this machine: {speed['matmul_gflops_before']} GFLOP/s before the "
                 f"training runs, {speed['matmul_gflops_after']} after.")
    for h, label in (("1", "one head"), ("4", "four heads")):
        lines.append(f"- training {label}: {table['models'][h]['tokens_per_s_mean']:,} tokens/s = "
                     f"{speed['training_gflops'][h]} GFLOP/s, {speed['share_of_peak'][h]:.0%} of the matrix-"
                     f"multiply rate (a plain PyTorch loop: {speed['plain_loop_tokens_per_s'][h]:,} tokens/s).")
    for a in speed["attention"]:
        lines.append(f"- attention, {a['heads']} head(s), shape {a['shape']}: the series' attention (weights "
                     f"kept for plots) takes {a['forward_ratio']}x the time of torch's fused "
                     f"scaled_dot_product_attention for a forward pass ({a['series_forward_ms']} vs "
                     f"{a['fused_forward_ms']} ms), {a['train_ratio']}x for forward + backward.")
    lines += ["", "### Shipped checkpoints", ""]
    for c in results["checkpoints"]:
        if "problem" in c:
            lines.append(f"- {c['name']}: could not be loaded ({c['problem']})")
        else:
            again = c["bench_val_ppl"]
            lines.append(f"- {c['name']}: card says val perplexity {c['card_val_ppl']:.3f} after {c['card_steps']} "
                         "steps" + (f"; this run's same seed gives {again:.3f}" if again is not None else ""))
    board = results["detectives"]["attention_on_clues"]
    lines += ["", "### The four detectives (four-head checkpoint)", "",
              "Share of each head's attention that lands on the clue words, by kind of clue "
              "(chance = spreading attention evenly over the words seen):", "",
              "| clue kind | " + " | ".join(f"head {h}" for h in range(4)) + " | chance |",
              "|---|" + "---:|" * 5]
    for kind, chance in zip(CLUE_KINDS, board["chance"], strict=True):
        lines.append(f"| {kind} | " + " | ".join(f"{v:.0%}" for v in board[kind]) + f" | {chance:.0%} |")
    lines += ["", "Switching one head off (its output set to zero):", "",
              "| head off | val perplexity | clue accuracy |", "|---:|---:|---:|"]
    for row in results["detectives"]["head_ablation"]:
        lines.append(f"| {row['head']} | {row['val_ppl']:.3f} | {row['clue_accuracy']['all']:.1%} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=CHECKPOINT_STEPS, help="training steps per run")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS), help="training seeds")
    parser.add_argument("--out", type=Path, default=ASSETS, help="folder for results.json")
    parser.add_argument("--only-controls", action="store_true",
                        help="train only the output-projection control and merge it into the existing results.json")
    parser.add_argument("--control", nargs="+", choices=list(CONTROLS), default=list(CONTROLS),
                        help="with --only-controls: which control rows to train (default: both)")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error(f"--steps must be >= 1, got {args.steps}")
    existing = args.out / "results.json"
    if args.only_controls and not existing.exists():
        parser.error(f"--only-controls merges into {existing}, which does not exist: run the full benchmark first")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.only_controls:
        results = json.loads(existing.read_text(encoding="utf-8"))
        story_corpus()  # generate the text before any timing
        results["controls"] = controls(args.steps, tuple(args.seeds), tuple(args.control), results.get("controls"))
        results["targets"] = targets(results["table"], results["speed"])
    else:
        results = run(args.steps, tuple(args.seeds))
    (args.out / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(markdown(results))
    print("Run `python -m benchmarks.report` to put these figures in the README.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
