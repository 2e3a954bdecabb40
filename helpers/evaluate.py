"""Scores for a trained model (the course model or the block model): perplexity, clue accuracy, where each
head looks, head ablation.

Validation text is cut into windows of the model's context (128 words); every word after the first
is predicted once, from the words before it in its window. A clue-dependent word is scored only when
all its clue words are inside the same window (otherwise no model could see them).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager

import torch
import torch.nn.functional as F

from helpers import guards
from helpers.model import LanguageModel
from helpers.stories import CLUE_KINDS, Clue


def _windows(ids: torch.Tensor, context: int, who: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Non-overlapping windows: inputs [N, T] and next words [N, T] covering ids[1 : N*T + 1].

    `who` names the public function asking, for the message when `ids` is not a tensor.
    """
    if not isinstance(ids, torch.Tensor):
        raise ValueError(f"{who} needs a 1-D torch tensor of word ids, got {type(ids).__name__} "
                         "(turn a list into one with torch.tensor(ids))")
    if ids.dim() != 1 or len(ids) < 2:
        raise ValueError(f"need a 1-D tensor of at least 2 word ids, got shape {list(ids.shape)}")
    n = (len(ids) - 1) // context
    if n == 0:
        raise ValueError(f"{len(ids)} words is shorter than one window of {context + 1}")
    x = ids[: n * context].view(n, context)
    y = ids[1 : n * context + 1].view(n, context)
    return x, y


def _check_model(model: object, who: str) -> None:
    if not isinstance(model, LanguageModel):
        raise ValueError(f"{who} needs one of the series' models (helpers.load_model, course_model or block_model), "
                         f"got {type(model).__name__}")


@contextmanager
def evaluating(model: LanguageModel) -> Iterator[LanguageModel]:
    """The model in evaluation mode for the `with` block, then back in the mode it was in (even after an error)."""
    was_training = model.training
    model.eval()
    try:
        yield model
    finally:
        model.train(was_training)


@torch.no_grad()
def _guesses(model: LanguageModel, x: torch.Tensor, batch: int = 16) -> torch.Tensor:
    """The model's top guess for every position of every window: [N, T].

    Works batch by batch so that only one batch of scores over the vocabulary is held at a time, and writes each
    batch's guesses into one tensor made first: small results kept between the large scores would scatter them in
    memory, and the process would grow by one batch of scores per batch.
    """
    guesses = torch.empty(x.shape, dtype=torch.long)  # [N, T]
    for i in range(0, len(x), batch):
        torch.argmax(model(x[i : i + batch]), -1, out=guesses[i : i + batch])
    return guesses


@torch.no_grad()
def perplexity(model: LanguageModel, ids: torch.Tensor) -> float:
    """exp(mean cross-entropy) of predicting each next word of `ids`: how many words the model is torn between."""
    _check_model(model, "perplexity")
    x, y = _windows(ids, model.config.context, "perplexity")
    total = 0.0
    batch = 16  # scores over the vocabulary are [batch, T, V]: kept small for Binder's memory
    with evaluating(model):
        for i in range(0, len(x), batch):
            logits = model(x[i : i + batch])  # [b, T, V]
            total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y[i : i + batch].reshape(-1),
                                     reduction="sum").item()
    mean = total / y.numel()
    return math.exp(mean) if mean < 700 else math.inf  # a diverged model's: beyond what a float holds


def scorable_clues(clues: list[Clue], n_words: int, context: int) -> list[tuple[Clue, int, int]]:
    """(clue, window, index of the word that looks) for clues whose target and clue words share a window.

    Target word at stream position p is predicted at input index (p - 1) of window (p - 1) // context.
    """
    out = []
    limit = ((n_words - 1) // context) * context
    for clue in clues:
        look = clue.target - 1
        if look < 0 or look >= limit:
            continue
        window, index = divmod(look, context)
        if min(clue.clues) >= window * context:
            out.append((clue, window, index))
    return out


def scored_words(clues: list[Clue], n_words: int, context: int) -> int:
    """How many clue-dependent words `clue_accuracy` scores: those with a clue inside their own window.

    A word needing several kinds of clue counts once (in "all"), and is scored on each kind whose clue words
    lie in its window (see `scorable_clues`); a clue in an earlier window is out of every model's sight.
    """
    return len({clue.target for clue, _, _ in scorable_clues(clues, n_words, context)})


@torch.no_grad()
def clue_accuracy(model: LanguageModel, ids: torch.Tensor, clues: list[Clue]) -> dict[str, float]:
    """Share of clue-dependent words the model guesses exactly (top choice), per clue kind and "all"."""
    _check_model(model, "clue_accuracy")
    context = model.config.context
    x, _ = _windows(ids, context, "clue_accuracy")
    with evaluating(model):
        guesses = _guesses(model, x).reshape(-1)  # [N*T]: guess for stream word p at index p - 1
    right: dict[str, list[bool]] = defaultdict(list)
    seen: dict[int, bool] = {}
    for clue, window, index in scorable_clues(clues, len(ids), context):
        ok = bool(guesses[window * context + index] == ids[clue.target])
        right[clue.kind].append(ok)
        seen[clue.target] = ok
    if not seen:
        raise ValueError("no clue-dependent word has its clues inside one window: nothing to score")
    scores = {kind: sum(right[kind]) / len(right[kind]) for kind in CLUE_KINDS if right[kind]}
    scores["all"] = sum(seen.values()) / len(seen)
    return {k: round(v, 4) for k, v in scores.items()}


@torch.no_grad()
def attention_on_clues(
    model: LanguageModel, ids: torch.Tensor, clues: list[Clue], max_windows: int | None = 40
) -> dict[str, list[float]]:
    """The detective scoreboard: per clue kind, the share of each head's attention on the clue words.

    For every clue-dependent word, the word just before it (the one that looks, since it predicts the
    target) spends some of its 100% attention on the clue positions; this averages that share over the
    words that need that kind of clue, so the kinds' shares do not add up to 100%.
    Returns {kind: [share for head 0, head 1, ...]} plus "chance": what spreading evenly would give.
    Only the first `max_windows` windows are scored; None scores every window (the words clue_accuracy scores).
    """
    _check_model(model, "attention_on_clues")
    context = model.config.context
    x, _ = _windows(ids, context, "attention_on_clues")
    if max_windows is not None:
        guards.check_counts(max_windows=max_windows)
        x = x[:max_windows]
    scored = scorable_clues(clues, len(x) * context + 1, context)
    windows = torch.tensor([w for _, w, _ in scored], dtype=torch.long)  # [K]
    looking = torch.tensor([i for _, _, i in scored], dtype=torch.long)  # [K]
    on_clue = torch.zeros(len(scored), context)  # [K, T]: 1 on the clue words of each record
    for k, (clue, window, _) in enumerate(scored):
        on_clue[k, [p - window * context for p in clue.clues]] = 1.0
    shares = torch.zeros(len(scored), model.config.heads)  # [K, H]
    batch = 16  # attention is [batch, H, T, T]: only one batch of it is held at a time
    with evaluating(model):
        for start in range(0, len(x), batch):
            att = model(x[start : start + batch], return_attention=True)[1]  # [b, H, T, T]
            pick = (windows >= start) & (windows < start + len(att))  # records in this batch
            rows = att[windows[pick] - start, :, looking[pick], :]  # [k, H, T]: each record's spotlight
            shares[pick] = (rows * on_clue[pick, None, :]).sum(-1)  # [k, H]
    share: dict[str, list[torch.Tensor]] = defaultdict(list)
    chance: dict[str, list[float]] = defaultdict(list)
    for k, (clue, _, index) in enumerate(scored):
        share[clue.kind].append(shares[k])
        chance[clue.kind].append(len(clue.clues) / (index + 1))
    scores = {kind: torch.stack(share[kind]).mean(0).tolist() for kind in CLUE_KINDS if share[kind]}
    scores["chance"] = [sum(chance[k]) / len(chance[k]) for k in CLUE_KINDS if chance[k]]
    return {k: [round(v, 4) for v in vals] for k, vals in scores.items()}


@contextmanager
def head_removed(model: LanguageModel, head: int) -> Iterator[LanguageModel]:
    """Run the model with one head of its watched attention layer switched off (the head's value rows set to 0,
    so it hands over nothing), restored afterwards."""
    _check_model(model, "head_removed")
    layer = model.attention_layer
    guards.check_head(head, layer.heads)
    d = layer.head_width
    weight = layer.value.weight  # [C, C]: output rows h*D:(h+1)*D belong to head h
    saved = weight.data[head * d : (head + 1) * d].clone()
    weight.data[head * d : (head + 1) * d] = 0
    try:
        yield model
    finally:
        weight.data[head * d : (head + 1) * d] = saved


def head_ablation(model: LanguageModel, ids: torch.Tensor, clues: list[Clue] | None = None,
                  progress: bool = False) -> list[dict]:
    """For each head: validation perplexity and clue accuracy with that head switched off; with `progress`, a line
    that grows head by head, so that a room watching a slow machine sees it at work."""
    rows = []
    for head in range(model.config.heads):
        if progress:
            print(f"head {head} off ...", end=" ", flush=True)
        with head_removed(model, head):
            row: dict = {"head": head, "val_ppl": round(perplexity(model, ids), 4)}
            if clues:
                row["clue_accuracy"] = clue_accuracy(model, ids, clues)
        rows.append(row)
    if progress:
        print("done")
    return rows


@torch.no_grad()
def next_word_guesses(model: LanguageModel, ids: list[int] | torch.Tensor, position: int, k: int = 3) -> str:
    """The model's k most likely words to follow word `position` of `ids`, as text: "smiles 82%, sighs 9%"."""
    _check_model(model, "next_word_guesses")
    if model.tokenizer is None:
        raise ValueError("next_word_guesses needs a model with a tokenizer: load it with helpers.load_model")
    ids = torch.as_tensor(ids)
    if not -ids.shape[-1] <= position < ids.shape[-1]:
        raise ValueError(f"position must point at one of the {ids.shape[-1]} words, got {position}")
    probs = model(ids)[0, position].softmax(-1)  # [V]
    top = probs.topk(k)
    return ", ".join(f"{model.tokenizer.decode([i])} {p:.0%}" for p, i in zip(*top, strict=True))
