"""Which kinds of earlier word (or of clue) a head follows: the series' one rule, and what it gives on real text.

On the story world the series knows which clue every word needs; in a novel nobody does. What we can
measure is where each head's 100% of attention goes, sorted by simple, checkable kinds of earlier word:
one word back, the word itself, the same word earlier, punctuation marks, the first word of the current
sentence, and the first word of the window. Each share is set beside *chance*: what spreading attention
evenly over the allowed words would give. One rule (`kinds_followed`) says which kinds a head follows, on the
story world's clues (chapter 6, section 2) and on these kinds (section 4) alike; a head that follows none
gets the honest label that its pattern has no simple name.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import torch

from helpers.model import CourseModel

KINDS = ("one word back", "itself", "same word earlier", "punctuation", "start of the sentence",
         "first word of the window")
SENTENCE_ENDS = (".", "!", "?")
FOLLOWS = 3.0
"""A head follows a kind when its share of attention there is at least this many times chance."""
RULE = f"a head follows a kind when its share of attention there is {FOLLOWS:g} x chance or more"
NO_LABEL = "no simple label"


def heads_named(heads: list[int]) -> str:
    """Heads in words, for a printed sentence: [2] -> "head 2", [0, 1, 3] -> "heads 0, 1 and 3", [] -> "no head"."""
    if len(heads) <= 1:
        return f"head {heads[0]}" if heads else "no head"
    return "heads " + ", ".join(map(str, heads[:-1])) + f" and {heads[-1]}"


def kinds_followed(share: Mapping[str, float], chance: Mapping[str, float]) -> list[str]:
    """The kinds one head follows by the series' one rule (share >= FOLLOWS x chance), furthest above chance first.

    share and chance map each kind to a fraction of attention (the kinds of clue or of earlier word).
    """
    lift = {kind: share[kind] / max(chance[kind], 1e-9) for kind in share}
    return sorted((kind for kind in share if lift[kind] >= FOLLOWS), key=lambda kind: -lift[kind])


def case_verdict(kinds_per_head: Sequence[int]) -> list[str]:
    """Chapter 6's case files on one model, from how many kinds of clue each head follows: the heads counted by
    sort (specialists follow one kind), then whether the course's specialists are there and which heads follow
    none of the kinds, wrapped to 100 characters."""
    specialists = [h for h, n in enumerate(kinds_per_head) if n == 1]
    elsewhere = [h for h, n in enumerate(kinds_per_head) if n == 0]
    counts = (f"the {len(kinds_per_head)} heads by sort: specialists (one kind each): {len(specialists)}; two or more "
              f"kinds: {sum(n > 1 for n in kinds_per_head)}; none of the four kinds: {len(elsewhere)}")
    are = "is a specialist" if len(specialists) == 1 else "are specialists"
    verdict = (f"{heads_named(specialists)} {are}, as the course describes" if specialists
               else "no head of this model is the specialist the course describes")
    verdict += (f"; {heads_named(elsewhere)} {'follows' if len(elsewhere) == 1 else 'follow'} none of our "
                "four kinds of clue" if elsewhere else "; every head follows at least one of our four kinds of clue")
    return [counts, textwrap.fill(f"verdict: {verdict}", 100, subsequent_indent="    ")]


def kind_masks(ids: torch.Tensor, words: list[str]) -> dict[str, torch.Tensor]:
    """For windows of word ids [N, T]: {kind: [N, T, T] bool}, True where key word j is of that kind for
    query word i (only j <= i, the words a causal head may see)."""
    n, t = ids.shape
    pos = torch.arange(t)
    allowed = pos[None, :] <= pos[:, None]  # [T, T]: key j at or before query i
    is_punct = torch.tensor([not w[0].isalnum() and not w.startswith("<") for w in words])[ids]  # [N, T]
    is_end = torch.tensor([w in SENTENCE_ENDS for w in words])[ids]  # [N, T]
    # the sentence of word i starts right after the last sentence end before i (or at the window's start)
    after_end = torch.zeros(n, t, dtype=torch.long)
    after_end[:, 1:] = torch.where(is_end[:, :-1], pos[1:], torch.zeros_like(pos[1:]))  # [N, T]
    start = torch.cummax(after_end, dim=1).values  # [N, T]: position where word i's sentence starts
    same = ids[:, None, :] == ids[:, :, None]  # [N, T, T]: key word j is the query word i
    return {
        "one word back": (pos[None, :] == pos[:, None] - 1).expand(n, t, t),
        "itself": (pos[None, :] == pos[:, None]).expand(n, t, t),
        "same word earlier": same & (pos[None, :] < pos[:, None]) & (ids[:, :, None] != 0),  # <unk> is no word
        "punctuation": is_punct[:, None, :] & allowed,
        "start of the sentence": pos[None, None, :] == start[:, :, None],
        "first word of the window": (pos[None, :] == 0).expand(t, t).expand(n, t, t),
    }


@torch.no_grad()
def head_roles(model: CourseModel, ids: torch.Tensor, max_windows: int = 24) -> list[dict]:
    """For each head: its share of attention on each kind of word, chance for that kind, the kinds it follows
    (`kinds_followed`) and a label naming them (or NO_LABEL).

    ids: validation word ids [N] (cut into windows of the model's context). Queries at position 0 are
    skipped, because the first word can look only at itself.
    """
    if model.tokenizer is None:
        raise ValueError("head_roles needs a model with a tokenizer: load it with helpers.load_model")
    context = model.config.context
    n = min((len(ids) - 1) // context, max_windows)
    if n < 1:
        raise ValueError(f"need at least {context + 1} word ids to fill one window, got {len(ids)}")
    x = ids[: n * context].view(n, context)  # [N, T]
    masks = kind_masks(x, model.tokenizer.words)
    allowed_count = torch.arange(1, context + 1, dtype=torch.float)  # [T]: words query i may see
    shares = {kind: torch.zeros(model.config.heads) for kind in KINDS}
    chance = {}
    for start in range(0, n, 8):
        att = model(x[start : start + 8], return_attention=True)[1]  # [b, H, T, T]
        for kind in KINDS:
            m = masks[kind][start : start + 8, None, 1:, :].float()  # [b, 1, T-1, T]: queries 1..T-1
            shares[kind] += (att[:, :, 1:, :] * m).sum(-1).sum((0, 2))  # [H]
    queries = n * (context - 1)
    for kind in KINDS:
        shares[kind] /= queries
        chance[kind] = float((masks[kind][:, 1:, :].float().sum(-1) / allowed_count[1:]).mean())
    rows = []
    for head in range(model.config.heads):
        share = {kind: round(float(shares[kind][head]), 4) for kind in KINDS}
        follows = kinds_followed(share, chance)
        rows.append({"head": head, "share": share, "chance": {k: round(v, 4) for k, v in chance.items()},
                     "follows": follows, "label": ", ".join(follows) or NO_LABEL})
    return rows
