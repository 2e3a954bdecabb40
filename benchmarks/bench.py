"""Benchmark: one head vs four heads over 3 seeds, training speed against this machine's peak, attention speed.

    python -m benchmarks.bench                    # writes assets/results.json
    python -m benchmarks.bench --only-controls    # reruns just the controls (and chapter 7's blocks), merged in

Everything is measured in one run, side by side, with the load average at the start and the end; each target
says whether it was met, nothing is adjusted to make it pass. Training speed against a plain loop: threads.py.
"""

from __future__ import annotations

import argparse
import json
import statistics
from functools import partial
from pathlib import Path

import torch

from benchmarks.measure import machine, markdown_table, time_ms
from helpers.block import block_model
from helpers.checkpoints import ASSETS, load_model
from helpers.compare import seed_margin
from helpers.course import COURSE_TABLE
from helpers.evaluate import attention_on_clues, head_ablation
from helpers.model import CourseConfig, course_model
from helpers.registry import SHIPPED, STORY_WORLD, heads_named
from helpers.stories import CLUE_KINDS
from helpers.train import BATCH_SIZE, CHECKPOINT_STEPS, story_corpus, train

SEEDS = (0, 1, 2)
TARGET_SECONDS = 90
TARGET_TOKENS_PER_S = 80_000
KINDS = (*CLUE_KINDS, "all")
CONTROLS = {
    "4-no-proj": {"heads": 4, "out_proj": False, "label": "four heads, no output projection"},
    "1-proj": {"heads": 1, "out_proj": True, "label": "one head with an output projection"},
    "block-no-ff": {"heads": 4, "feed_forward": False, "label": "a transformer block without its feed-forward part"},
    "block-ff": {"heads": 4, "feed_forward": True, "label": "a transformer block"},
}
"""Trained beside the table, with its steps and seeds: the output-projection control (do four heads gain from the
heads or from the projection's parameters?) and chapter 7's question (what does a block's feed-forward part add?)."""
MODELS = (("1", "one head"), ("4", "four heads"))


def _best_s(fn, repeats: int = 5, warmup: int = 2) -> float:
    """The fastest of `repeats` timings of fn(), in seconds: the one least disturbed by other programs."""
    return min(time_ms(lambda _: fn(), repeats, warmup)) / 1e3


def matmul_gflops(n: int = 1024) -> float:
    """This machine's fp32 matrix-multiply rate in GFLOP/s (n x n times n x n, best of 10)."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    return 2 * n**3 / _best_s(lambda: a @ b, repeats=10) / 1e9


def training_flops_per_token(heads: int, out_proj: bool | None = None) -> float:
    """Arithmetic per training token of the course model: forward (matmuls + attention) times 3 for backward."""
    config = CourseConfig(heads=heads, out_proj=out_proj)
    width = config.width
    projections = 3 * width * width + (width * width if config.out_proj else 0)  # q, k, v (+ output mix)
    attention = 2 * width * (config.context + 1) / 2  # scores and weighted sum over on average (T+1)/2 words
    return 3 * (2 * (projections + width * config.vocab_size) + 2 * attention)


def attention_speed(heads: int, batch: int = BATCH_SIZE) -> dict:
    """The series' attention (need_weights=True: scores, mask, softmax by hand) vs torch's fused kernel."""
    torch.manual_seed(0)
    model = course_model(heads=heads)
    x = torch.randn(batch, model.config.context, model.config.width, requires_grad=True)  # [B, T, C]

    def step(need_weights: bool, backward: bool) -> None:
        y, _ = model.attn(x, need_weights=need_weights)
        if backward:
            y.sum().backward()

    speed = {"heads": heads, "shape": list(x.shape)}
    for part, backward in (("forward", False), ("train", True)):
        with torch.set_grad_enabled(backward):
            series, fused = (_best_s(partial(step, weights, backward)) for weights in (True, False))
        speed |= {f"series_{part}_ms": round(series * 1e3, 2), f"fused_{part}_ms": round(fused * 1e3, 2),
                  f"{part}_ratio": round(series / fused, 2)}
    return speed


def _one_run(heads: int, steps: int, seed: int, out_proj: bool | None = None, feed_forward: bool | None = None,
             **_: object) -> dict:
    """The figures of one course model (out_proj None: the course's default) or, with `feed_forward`, a block."""
    model = (course_model(heads=heads, seed=seed, out_proj=out_proj) if feed_forward is None
             else block_model(heads=heads, seed=seed, feed_forward=feed_forward))
    result = train(steps=steps, seed=seed, progress=False, model=model)
    mixes = bool(getattr(model.config, "out_proj", True))
    kind = "" if feed_forward is None else f", a block {'with' if feed_forward else 'without'} feed-forward"
    print(f"  seed {seed}, {heads_named(heads)}{kind}, output projection {'yes' if mixes else 'no'}: val perplexity "
          f"{result.val_ppl:.3f}, clue accuracy {result.clue_accuracy['all']:.1%}, {result.seconds:.1f} s, "
          f"{result.tokens_per_s:,.0f} tokens/s", flush=True)
    flops = {"flops_per_token": training_flops_per_token(heads, out_proj=mixes)} if feed_forward is None else {}
    return result.summary() | flops


def _summary(runs: list[dict]) -> dict:
    """Mean and range (largest minus smallest, not a standard deviation) over the seeds of one model's runs."""
    def spread(values: list[float]) -> float:
        return round(max(values) - min(values), 4)

    ppl = [r["val_ppl"] for r in runs]
    return {"heads": runs[0]["heads"], "params": runs[0]["params"],
            "val_ppl_mean": round(statistics.mean(ppl), 4), "val_ppl_spread": spread(ppl),
            "clue_accuracy_mean": {k: round(statistics.mean(r["clue_accuracy"][k] for r in runs), 4) for k in KINDS},
            "clue_accuracy_spread": {k: spread([r["clue_accuracy"][k] for r in runs]) for k in KINDS},
            "seconds_mean": round(statistics.mean(r["seconds"] for r in runs), 1),
            "seconds_max": round(max(r["seconds"] for r in runs), 1),
            "tokens_per_s_mean": round(statistics.mean(r["tokens_per_s"] for r in runs))}


def controls(steps: int, seeds: tuple[int, ...], rows: tuple[str, ...] = tuple(CONTROLS),
             earlier: dict | None = None) -> dict:
    """Train the control `rows` for every seed, merged into `earlier` results of the same step count (a new run
    replaces one of the same row and seed); each session keeps its load average before and after."""
    start = machine()
    fresh = {key: [_one_run(steps=steps, seed=seed, **CONTROLS[key]) for seed in seeds] for key in rows}
    session = {"rows": list(rows), "seeds": list(seeds), "machine_at_start": start, "machine_at_end": machine()}
    keep = earlier is not None and earlier["steps"] == steps
    runs = {key: list(earlier["runs"].get(key, [])) if keep else [] for key in CONTROLS}
    for key, new in fresh.items():
        runs[key] = sorted([r for r in runs[key] if r["seed"] not in seeds] + new, key=lambda r: r["seed"])
    models = {key: _summary(mine) | {"label": CONTROLS[key]["label"], "out_proj": CONTROLS[key].get("out_proj"),
                                     "seeds": [r["seed"] for r in mine]}
              for key, mine in runs.items() if mine}
    return {"steps": steps, "sessions": [*(earlier["sessions"] if keep else []), session], "runs": runs,
            "models": models}


def targets(table: dict) -> list[dict]:
    by_seed = {(r["seed"], r["heads"]): r for r in table["runs"]}
    seeds, rows = table["seeds"], []
    rule = "and the gap between the two means is larger than the wider of their ranges over seeds"
    for what, score, lower in (("validation perplexity", lambda r: r["val_ppl"], True),
                               ("clue accuracy", lambda r: r["clue_accuracy"]["all"], False)):
        one, four = ([score(by_seed[s, h]) for s in seeds] for h in (1, 4))
        first, second = (one, four) if lower else (four, one)  # a gap > 0: four heads better
        gaps, margin = [a - b for a, b in zip(first, second, strict=True)], seed_margin(first, second)
        show = (lambda v: f"{v:.3f}") if lower else (lambda v: f"{100 * v:.1f} points")
        rows.append({"target": f"four heads beat one head on {what} in every seed, {rule}",
                     "measured": f"won {sum(g > 0 for g in gaps)} of {len(seeds)} seeds; gap between the means "
                                 f"{show(margin.gap)}, wider range {show(margin.range)}; smallest single-seed gap "
                                 f"{show(min(gaps))}",
                     "met": all(g > 0 for g in gaps) and margin.gap > 0 and margin.beats_range})
    slowest = max(table["models"][h]["seconds_max"] for h in ("1", "4"))
    speed = table["models"]["4"]["tokens_per_s_mean"]
    return [*rows,
            {"target": f"each model reaches its checkpoint quality in <= {TARGET_SECONDS} s of training",
             "measured": f"slowest run {slowest:.1f} s for {table['steps']} steps", "met": slowest <= TARGET_SECONDS},
            {"target": f"four-head training throughput >= {TARGET_TOKENS_PER_S:,} tokens/s",
             "measured": f"{speed:,} tokens/s", "met": speed >= TARGET_TOKENS_PER_S}]


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


def run(steps: int, seeds: tuple[int, ...]) -> dict:
    start = machine()
    print(f"machine: {start}", flush=True)
    corpus = story_corpus()  # generate the text before any timing
    gflops_before = matmul_gflops()
    attention = [attention_speed(h) for h in (1, 4)]
    print(f"matmul {gflops_before:.1f} GFLOP/s; attention {attention}", flush=True)
    runs = [_one_run(heads, steps, seed) for seed in seeds for heads in (1, 4)]
    table = {"steps": steps, "seeds": list(seeds), "runs": runs,
             "models": {str(h): _summary([r for r in runs if r["heads"] == h]) for h in (1, 4)}}
    control = controls(steps, seeds)
    gflops_after = matmul_gflops()
    peak = max(gflops_before, gflops_after)
    share = {h: table["models"][h]["tokens_per_s_mean"] * training_flops_per_token(int(h)) / 1e9 for h in ("1", "4")}
    speed = {"matmul_gflops_before": round(gflops_before, 1), "matmul_gflops_after": round(gflops_after, 1),
             "training_gflops": {h: round(v, 1) for h, v in share.items()},
             "share_of_peak": {h: round(v / peak, 3) for h, v in share.items()}, "attention": attention}
    four = load_model("four_heads")
    return {"machine_at_start": start, "machine_at_end": machine(), "speed": speed, "table": table,
            "controls": control, "targets": targets(table), "checkpoints": checkpoint_check(table),
            "detectives": {"attention_on_clues": attention_on_clues(four, corpus.val_ids, corpus.val_clues),
                           "head_ablation": head_ablation(four, corpus.val_ids, corpus.val_clues)},
            "course_table": list(COURSE_TABLE)}


def control_markdown(table: dict, control: dict) -> list[str]:
    one, four = table["models"]["1"], table["models"]["4"]
    rows = [("one head", "no", [r for r in table["runs"] if r["heads"] == 1]),
            (CONTROLS["4-no-proj"]["label"], "no", control["runs"]["4-no-proj"]),
            (CONTROLS["1-proj"]["label"], "yes", control["runs"]["1-proj"]),
            ("four heads", "yes", [r for r in table["runs"] if r["heads"] == 4]),
            *((CONTROLS[key]["label"], "yes", control["runs"].get(key, [])) for key in ("block-no-ff", "block-ff"))]
    lines = [
        f"### Heads or parameters? The output-projection control ({control['steps']} training steps each)", "",
        f"Four heads have {four['params'] - one['params']:,} more parameters than one head: the output projection "
        "that mixes the heads. The control swaps it: four heads without it (one head's parameter count) and one "
        "head with it (four heads' count), each from the seeds listed; the last two rows are chapter 7's question, "
        "a transformer block without and with its feed-forward part. Trained in these sessions (load average "
        "over 1, 5 and 15 min at the start and at the end; a load far above the number of cores means the "
        "machine was shared, which slows training but does not change what it learns):", "",
        *(f"- {s['machine_at_start']['date_utc']} UTC, {', '.join(s['rows'])}, seeds {s['seeds']}: load "
          f"{s['machine_at_start']['load_average_1_5_15']} at the start, "
          f"{s['machine_at_end']['load_average_1_5_15']} at the end" for s in control["sessions"]), "",
        *markdown_table(["model", "output projection", "parameters", "seeds", "val perplexity: mean (range)",
                         "clue accuracy: mean (range)"], "llrlrr",
                        [[label, mixes, f"{runs[0]['params']:,}", ", ".join(str(r["seed"]) for r in runs),
                          *_ranges(runs)] if runs else [label, mixes, "", "not measured yet", "", ""]
                         for label, mixes, runs in rows]), ""]
    if control["steps"] != table["steps"]:
        return [*lines, f"The control trained {control['steps']} steps and the course models {table['steps']}: "
                        "no seed-by-seed comparison.", ""]
    by_seed = {(r["seed"], r["heads"]): r for r in table["runs"]}
    for key, rival_heads, who, rival in (("4-no-proj", 1, "four heads without the projection", "one head"),
                                         ("1-proj", 4, "one head with the projection", "four heads")):
        pairs = [(r, by_seed[r["seed"], rival_heads]) for r in control["runs"][key] if (r["seed"], rival_heads)
                 in by_seed]
        if pairs:
            wins = sum(r["val_ppl"] < other["val_ppl"] for r, other in pairs)
            lines.append(f"- Same parameter count ({pairs[0][0]['params']:,}): {who} reached a lower perplexity "
                         f"than {rival} in {wins} of {len(pairs)} seeds.")
    return [*lines, ""]


def _ranges(runs: list[dict]) -> list[str]:
    """Validation perplexity and clue accuracy over the seeds of `runs`, each as 'mean (lowest to highest)'."""
    return [f"{statistics.mean(values):{fmt}} ({min(values):{fmt}} to {max(values):{fmt}})" for values, fmt in
            (([r["val_ppl"] for r in runs], ".3f"), ([r["clue_accuracy"]["all"] for r in runs], ".1%"))]


def markdown(results: dict) -> str:
    measured, speed = results["table"], results["speed"]
    start, end = results["machine_at_start"], results["machine_at_end"]
    busy = max(start["load_average_1_5_15"][0], end["load_average_1_5_15"][0]) > start["cpus"] / 2
    lines = [
        f"Written by `python -m benchmarks.bench` on {start['date_utc']} UTC: {start['cpus']} CPU cores, "
        f"torch {start['torch']} with {start['torch_threads']} threads. Load average (1, 5, 15 min) "
        f"{start['load_average_1_5_15']} at the start and {end['load_average_1_5_15']} at the end"
        + (": other programs shared the machine, so speeds are lower than on an idle one." if busy
           else " (a load near or above the number of cores means other programs slowed the runs)."), "",
        f"### One head vs four heads ({len(measured['seeds'])} seeds, {measured['steps']} training steps each)", "",
        "Validation perplexity on the story world (lower is better) and clue accuracy: how often the model's "
        "top guess is right for words that depend on a clue (higher is better). Each is the mean over the "
        "seeds, with the range in brackets: the lowest and the highest seed (a range, not a standard deviation).", "",
        *markdown_table(["model", "parameters", "val perplexity: mean (range)", "clue accuracy: mean (range)",
                         *CLUE_KINDS, "training time", "tokens/s"], "l" + "r" * (len(CLUE_KINDS) + 5),
                        [[label, f"{m['params']:,}", *_ranges([r for r in measured["runs"] if r["heads"] == int(key)]),
                          *(f"{m['clue_accuracy_mean'][k]:.1%}" for k in CLUE_KINDS), f"{m['seconds_mean']:.1f} s",
                          f"{m['tokens_per_s_mean']:,}"] for key, label in MODELS for m in [measured["models"][key]]]),
        "", "Every run:", "",
        *markdown_table(["seed", "heads", "val perplexity", "clue accuracy", "seconds", "tokens/s"], "rrrrrr",
                        [[r["seed"], r["heads"], f"{r['val_ppl']:.3f}", f"{r['clue_accuracy']['all']:.1%}",
                          f"{r['seconds']:.1f}", f"{r['tokens_per_s']:,}"] for r in measured["runs"]]),
        "", "For comparison, the course measured on its own text: "
        + " and ".join(f"{c['model']}: {c['params']:,} parameters, perplexity {c['perplexity']}"
                       for c in results["course_table"])
        + ". Perplexities on different text are not comparable; the story world is far more predictable than real "
        "writing.", ""]
    if "controls" in results:
        lines += control_markdown(measured, results["controls"])
    lines += ["### Targets", "", *(f"- **{'met' if t['met'] else 'NOT met'}**: {t['target']} ({t['measured']})"
                                   for t in targets(measured)), "", "### Speed", "",
              f"- fp32 matrix multiply on this machine: {speed['matmul_gflops_before']} GFLOP/s before the "
              f"training runs, {speed['matmul_gflops_after']} after."]
    lines += [f"- training {label}: {measured['models'][h]['tokens_per_s_mean']:,} tokens/s = "
              f"{speed['training_gflops'][h]} GFLOP/s, {speed['share_of_peak'][h]:.0%} of the matrix-multiply rate."
              for h, label in MODELS]
    lines += [f"- attention, {heads_named(a['heads'])}, shape {a['shape']}: the series' "
              f"attention (weights kept for plots) takes {a['forward_ratio']}x the time of torch's fused "
              f"scaled_dot_product_attention for a forward pass ({a['series_forward_ms']} vs {a['fused_forward_ms']} "
              f"ms), {a['train_ratio']}x for "
              "forward + backward." for a in speed["attention"]]
    lines += ["", "### Shipped checkpoints", ""]
    for c in results["checkpoints"]:
        again = c.get("bench_val_ppl")
        lines.append(f"- {c['name']}: could not be loaded ({c['problem']})" if "problem" in c else
                     f"- {c['name']}: card says val perplexity {c['card_val_ppl']:.3f} after {c['card_steps']} steps"
                     + (f"; this run's same seed gives {again:.3f}" if again is not None else ""))
    board = results["detectives"]["attention_on_clues"]
    lines += ["", "### The four detectives (four-head checkpoint)", "",
              "Share of each head's attention that lands on the clue words, by kind of clue "
              "(chance = spreading attention evenly over the words seen):", "",
              *markdown_table(["clue kind", *(f"head {h}" for h in range(4)), "chance"], "lrrrrr",
                     [[kind, *(f"{v:.0%}" for v in board[kind]), f"{chance:.0%}"]
                      for kind, chance in zip(CLUE_KINDS, board["chance"], strict=True)]),
              "", "Switching one head off (its output set to zero):", "",
              *markdown_table(["head off", "val perplexity", "clue accuracy"], "rrr",
                     [[r["head"], f"{r['val_ppl']:.3f}", f"{r['clue_accuracy']['all']:.1%}"]
                      for r in results["detectives"]["head_ablation"]])]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=CHECKPOINT_STEPS, help="training steps per run")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS), help="training seeds")
    parser.add_argument("--out", type=Path, default=ASSETS, help="folder for results.json")
    parser.add_argument("--only-controls", action="store_true",
                        help="train only the control rows (output projection, chapter 7's blocks) and merge them into "
                             "the existing results.json")
    parser.add_argument("--control", nargs="+", choices=list(CONTROLS), default=list(CONTROLS),
                        help="with --only-controls: which control rows to train (default: all)")
    args = parser.parse_args(argv)
    existing = args.out / "results.json"
    if args.steps < 1:
        parser.error(f"--steps must be >= 1, got {args.steps}")
    if args.only_controls and not existing.exists():
        parser.error(f"--only-controls merges into {existing}, which does not exist: run the full benchmark first")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.only_controls:
        results = json.loads(existing.read_text(encoding="utf-8"))
        story_corpus()  # generate the text before any timing
        results["controls"] = controls(args.steps, tuple(args.seeds), tuple(args.control), results.get("controls"))
        results["targets"] = targets(results["table"])
    else:
        results = run(args.steps, tuple(args.seeds))
    existing.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(markdown(results))
    print("Run `python -m benchmarks.report` to put these figures in docs/measurements.md.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
