"""Training speed: `python -m helpers.train`'s loop at the thread policy's count, on one thread, and a plain loop.

    python -m benchmarks.threads

Fresh processes train the four-head model for STEPS steps: helpers.train.train (its first steps time one thread
against the usable count), the same with OMP_NUM_THREADS=1, and PLAIN, the same model, batches and optimizer in a
bare loop; alternating, ROUNDS times, then again beside a busy process. Writes the median words per second with
the load to assets/threads.json. Targets: idle, TARGET_RATIO of the plain loop; busy, no slower than one thread.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from benchmarks.measure import busy_loops, load, machine
from benchmarks.report import threads_block
from helpers.threads import affinity_cpus, cgroup_quota, usable_threads
from tools.chapters import ROOT

OUT = ROOT / "assets" / "threads.json"
STEPS, ROUNDS = 100, 5
TARGET_RATIO = 0.8
STORIES = (2000, 60)  # the speed of a step does not depend on the text's length: a short one is made faster
POLICY = f"""
import sys, torch
from helpers.train import story_corpus, train
run = train(heads=4, steps=int(sys.argv[1]), corpus=story_corpus(*{STORIES}), progress=False, evaluate_at_end=False)
print(run.tokens_per_s, torch.get_num_threads())
"""
PLAIN = f"""
import sys, time, torch, torch.nn.functional as F
from helpers.model import course_model
from helpers.train import BATCH_SIZE, random_batch, story_corpus
steps, corpus, model = int(sys.argv[1]), story_corpus(*{STORIES}), course_model(heads=4, seed=0)
opt, gen = torch.optim.AdamW(model.parameters(), lr=1e-2), torch.Generator().manual_seed(0)
start = time.perf_counter()
for _ in range(steps):
    x, y = random_batch(corpus.train_ids, BATCH_SIZE, model.config.context, gen)
    loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
    opt.zero_grad()
    loss.backward()
    opt.step()
print(steps * BATCH_SIZE * model.config.context / (time.perf_counter() - start), torch.get_num_threads())
"""
RUNS = {  # name: the command (it prints words per second and the torch threads it ended on) and the environment it adds
    "plain loop": ([sys.executable, "-c", PLAIN, str(STEPS)], {}),
    "helpers.train": ([sys.executable, "-c", POLICY, str(STEPS)], {}),
    "helpers.train, 1 thread": ([sys.executable, "-c", POLICY, str(STEPS)], {"OMP_NUM_THREADS": "1"}),
}


def run(name: str) -> tuple[float, int]:
    """Words per second of one fresh run, and the torch threads it ended on."""
    command, env = RUNS[name]
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"} | env
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{name} failed:\n{done.stderr[-3000:]}")
    speed, threads = done.stdout.split()[-2:]
    return float(speed), int(threads)


def measure(condition: str) -> dict:
    with busy_loops(int(condition == "busy")):
        start, runs = load(), {name: [] for name in RUNS}
        for _ in range(ROUNDS):
            for name in RUNS:
                runs[name].append(run(name))
        end = load()
    return {name: {"tokens_per_s": round(statistics.median(s for s, _ in r)), "threads": [t for _, t in r]}
            for name, r in runs.items()} | {"load_average_1_5_15": [start, end]}


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()  # only --help
    before = machine()
    result = {"what": f"words per second of {STEPS} four-head training steps (median of {ROUNDS} alternating fresh "
                      "runs): helpers.train with its thread policy, with OMP_NUM_THREADS=1, and a plain PyTorch loop; "
                      "on the machine as it was (idle) and beside one busy process (busy)",
              "steps": STEPS, "rounds": ROUNDS, "target_ratio": TARGET_RATIO, "usable_threads": usable_threads(),
              "affinity_cpus": affinity_cpus(), "cgroup_quota_cpus": cgroup_quota(), "idle": measure("idle"),
              "busy": measure("busy"), "machine_start": before, "machine_end": machine()}
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(threads_block())

if __name__ == "__main__":
    main()
