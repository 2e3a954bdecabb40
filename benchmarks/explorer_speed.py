"""How long one explorer update takes in the kernel: tokenize, forward pass, figure update.

Run: .venv/bin/python benchmarks/explorer_speed.py
Alternates between two 20-word sentences with the four-head model (so every update is a real change),
prints the median and writes it to assets/explorer_speed.json. Target: median <= 30 ms.
A head change (no forward pass, only the figure update) is timed the same way for comparison, and so is
a model switch (one head <-> four heads, the sentence read again by the other model). Target: <= 300 ms.
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


def main() -> None:
    explorer = explore("four_heads")
    tokenizer = explorer.model.tokenizer
    stories = example_sentences()
    sentences = [twenty_words(stories[2], tokenizer), twenty_words(stories[3], tokenizer)]
    assert all(len(tokenizer.encode(s)) == WORDS for s in sentences)

    sentence_ms = time_ms(lambda i: explorer.set_sentence(sentences[i % 2]))
    assert len(explorer.words) == WORDS and not explorer.problem, explorer.message.value
    head_ms = time_ms(lambda i: explorer.set_head(i % 4))
    switch_ms = time_ms(lambda i: explorer.set_model(("one_head", "four_heads")[i % 2]), repeats=SWITCHES)
    assert not explorer.problem, explorer.message.value

    result = {
        "what": "kernel-side time of one explorer update: tokenize, forward pass, figure update",
        "words": WORDS,
        "model": "four_heads",
        "repeats": REPEATS,
        "sentence_update_median_ms": round(statistics.median(sentence_ms), 2),
        "sentence_update_p90_ms": round(statistics.quantiles(sentence_ms, n=10)[-1], 2),
        "head_change_median_ms": round(statistics.median(head_ms), 2),
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
    print(f"one head change (figure only): median {result['head_change_median_ms']} ms")
    print(f"one model switch: median {result['model_switch_median_ms']} ms, slowest {result['model_switch_max_ms']} ms "
          f"(target <= {SWITCH_TARGET_MS:.0f} ms: {'met' if result['model_switch_meets_target'] else 'MISSED'}); "
          f"load average {result['load_average_1_5_15']}")
    print(f"written to {OUT.relative_to(OUT.parents[1])}")


if __name__ == "__main__":
    main()
