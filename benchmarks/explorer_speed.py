"""How long one explorer update takes in the kernel: tokenize, forward pass, figure update.

Run: .venv/bin/python -m benchmarks.explorer_speed
Alternates between two 20-word sentences with the four-head model (so every update is a real change),
prints the median and writes it to assets/explorer_speed.json. Target: median <= 30 ms.
A head change (no forward pass, only the figure update) is timed the same way (target: median <= 30 ms),
and so is a model switch (through every model of the explorer's menu, the sentence read again by each).
Target: <= 300 ms. The forward pass alone is timed side by side on the thread policy's count and on one
thread (helpers.threads.one_thread, what the explorer uses), to show what a busy machine does to it.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch

from helpers.explorer import explore
from helpers.reading import attention
from helpers.stories import example_sentences
from helpers.tokenizer import Tokenizer

WORDS = 20
REPEATS = 60
TARGET_MS = 30.0
SWITCH_TARGET_MS = 300.0
SWITCHES = 20
OUT = Path(__file__).resolve().parents[1] / "assets" / "explorer_speed.json"


def twenty_words(text: str, tokenizer: Tokenizer) -> str:
    """The first WORDS words (and punctuation marks) of text, padded by repeating it if too short."""
    words = tokenizer.split(text)
    while len(words) < WORDS:
        words += words
    return " ".join(words[:WORDS])


def time_ms(step: Callable[[int], None], repeats: int = REPEATS) -> list[float]:
    """Milliseconds each call of step(i) took, after a few warm-up calls."""
    for i in range(5):
        step(i)
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        step(i)
        times.append((time.perf_counter() - start) * 1000)
    return times


def _forward(model: torch.nn.Module, ids: list[int]) -> None:
    """The explorer's forward pass on the thread policy's count (no one_thread), for comparison."""
    with torch.no_grad():
        model(torch.tensor(ids, dtype=torch.long), return_attention=True)


def main() -> None:
    explorer = explore("four_heads")
    tokenizer = explorer.model.tokenizer
    stories = example_sentences()
    sentences = [twenty_words(stories[2], tokenizer), twenty_words(stories[3], tokenizer)]
    assert all(len(tokenizer.encode(s)) == WORDS for s in sentences)

    sentence_ms = time_ms(lambda i: explorer.set_sentence(sentences[i % 2]))
    assert len(explorer.words) == WORDS and not explorer.problem, explorer.message.value
    head_ms = time_ms(lambda i: explorer.set_head(i % 4))
    models = list(explorer.menu)
    switch_ms = time_ms(lambda i: explorer.set_model(models[i % len(models)]), repeats=SWITCHES)
    assert not explorer.problem, explorer.message.value
    explorer.set_model("four_heads")
    ids = explorer.model.tokenizer.encode(sentences[0])
    policy_ms, one_ms = [], []
    for _ in range(REPEATS):  # interleaved, so both see the same load
        for times, forward in ((policy_ms, _forward), (one_ms, attention)):
            start = time.perf_counter()
            forward(explorer.model, ids)
            times.append((time.perf_counter() - start) * 1000)

    result = {
        "what": "kernel-side time of one explorer update: tokenize, forward pass, figure update",
        "words": WORDS,
        "model": "four_heads",
        "repeats": REPEATS,
        "sentence_update_median_ms": round(statistics.median(sentence_ms), 2),
        "sentence_update_p90_ms": round(statistics.quantiles(sentence_ms, n=10)[-1], 2),
        "head_change_median_ms": round(statistics.median(head_ms), 2),
        "head_change_meets_target": statistics.median(head_ms) <= TARGET_MS,
        "forward_policy_threads_median_ms": round(statistics.median(policy_ms), 2),
        "forward_one_thread_median_ms": round(statistics.median(one_ms), 2),
        "policy_threads": torch.get_num_threads(),
        "switched_models": models,
        "model_switch_median_ms": round(statistics.median(switch_ms), 2),
        "model_switch_max_ms": round(max(switch_ms), 2),
        "model_switch_repeats": SWITCHES,
        "model_switch_target_ms": SWITCH_TARGET_MS,
        "model_switch_meets_target": max(switch_ms) <= SWITCH_TARGET_MS,
        "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
        "target_median_ms": TARGET_MS,
        "meets_target": statistics.median(sentence_ms) <= TARGET_MS,
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads, python {platform.python_version()}",
    }
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(f"one update for a {WORDS}-word sentence (tokenize + forward + figure): "
          f"median {result['sentence_update_median_ms']} ms, 90th percentile {result['sentence_update_p90_ms']} ms "
          f"(target <= {TARGET_MS:.0f} ms: {'met' if result['meets_target'] else 'MISSED'})")
    print(f"one head change (figure only): median {result['head_change_median_ms']} ms "
          f"(target <= {TARGET_MS:.0f} ms: {'met' if result['head_change_meets_target'] else 'MISSED'})")
    print(f"forward pass alone: median {result['forward_policy_threads_median_ms']} ms on "
          f"{result['policy_threads']} threads, {result['forward_one_thread_median_ms']} ms on one thread")
    print(f"one model switch: median {result['model_switch_median_ms']} ms, slowest {result['model_switch_max_ms']} ms "
          f"(target <= {SWITCH_TARGET_MS:.0f} ms: {'met' if result['model_switch_meets_target'] else 'MISSED'}); "
          f"load average {result['load_average_1_5_15']}")
    print(f"written to {OUT.relative_to(OUT.parents[1])}")


if __name__ == "__main__":
    main()
