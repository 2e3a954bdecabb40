"""Checks for chapter 3 (one spotlight is not enough): finding a word's clues, sharing one spotlight."""

from __future__ import annotations

from collections.abc import Callable

import torch

from helpers.checks import attempt, expect, expect_close, expect_one_tensor, expect_tensor, passed, type_of

SMILES_SENTENCE = "eagerly , the fox that crosses the wet streets smiles ."
"""The story-world sentence of the first exercise: 'smiles' needs three clues at once."""

_WANT_KEYS = ("subject", "mood", "previous")


def check_clues_for_smiles(clues_for_smiles: Callable[[list[str]], dict[str, int]]) -> bool:
    """clues_for_smiles(words): {'subject', 'mood', 'previous'} -> positions of fox, eagerly, streets."""
    name = "clues_for_smiles"
    words = SMILES_SENTENCE.split()
    done, got = attempt(name, clues_for_smiles, list(words))
    if not done:
        return False
    expect(isinstance(got, dict), f"{name} should return a dict of positions, {{'subject': a whole number, ...}}, "
                                  f"got {type_of(got)}")
    wrong = []  # which keys are missing, and which are not the clues'
    if missing := [k for k in _WANT_KEYS if k not in got]:
        wrong.append(f"missing {', '.join(map(repr, missing))}")
    if extra := [k for k in got if k not in _WANT_KEYS]:
        wrong.append(f"not one of them: {', '.join(map(repr, extra))}")
        wrong += [f"{k!r} should be {k.lower()!r} (keys must match exactly, capitals too)" for k in extra
                  if isinstance(k, str) and k.lower() in missing]
    expect(not wrong, f"{name} should have exactly the keys {list(_WANT_KEYS)}: {'; '.join(wrong)}")
    for kind in _WANT_KEYS:
        expect(not isinstance(got[kind], torch.Tensor),
               f"{name}: the {kind} clue is a tensor, {got[kind]!r}, not a plain position: use int(...) around it")
        expect(isinstance(got[kind], int) and not isinstance(got[kind], bool),
               f"{name}: the {kind} clue should be a position (a whole number), got {got[kind]!r}")
    target = words.index("smiles")
    want = {"subject": words.index("fox"), "mood": words.index("eagerly"), "previous": target - 1}
    expect(any(got[kind] != want[kind] + 1 for kind in _WANT_KEYS),
           f"{name}: every position is one too high. Python counts from 0: "
           f"the first word is at position 0, the comma after it at {words.index(',')}.")
    for kind in _WANT_KEYS:
        pos = got[kind]
        expect(0 <= pos < len(words), f"{name}: position {pos} for the {kind} clue is outside the sentence "
                                      f"(positions run from 0 to {len(words) - 1})")
        expect(pos != target, f"{name}: position {pos} is 'smiles' itself; a clue is another word it looks at")
        expect(pos < target, f"{name}: position {pos} ('{words[pos]}') comes after 'smiles'; "
                             "the model reads left to right, so a clue must come earlier")
    subject = got["subject"]
    count = "Every word counts, the comma too, from 0 (" + ", ".join(f"{i} '{w}'" for i, w in enumerate(words)) + ")"
    expect(words[subject] != "streets",
           f"{name}: position {subject} is 'streets', the nearest noun, but there are many streets and "
           "the verb says 'smiles' (one): who does the smiling?")
    expect(subject == want["subject"],
           f"{name}: position {subject} is '{words[subject]}'. The subject is the one who smiles. {count}")
    expect(got["mood"] == want["mood"],
           f"{name}: position {got['mood']} is '{words[got['mood']]}'. The mood clue is the word that says "
           f"how the fox feels (it decides smile rather than sigh). {count}")
    expect(got["previous"] == want["previous"],
           f"{name}: position {got['previous']} is '{words[got['previous']]}'. The previous-word clue is "
           f"the word right before 'smiles'. {count}")
    return passed(name)


def check_clue_share(clue_share: Callable[[torch.Tensor, list[int]], torch.Tensor]) -> bool:
    """clue_share(weights [H, T], positions): for every head, the total weight on the clue positions -> [H]."""
    name = "clue_share"
    gen = torch.Generator().manual_seed(3)
    weights = torch.softmax(torch.randn(4, 7, generator=gen) * 2, dim=-1)  # [H, T]: 4 heads, 7 words
    positions = [1, 3]
    done, got = attempt(name, clue_share, weights.clone(), list(positions))
    if not done:
        return False
    want = weights[:, positions].sum(-1)  # [H]
    got = expect_one_tensor(name, got)
    if tuple(got.shape) == (len(positions),):
        expect(not torch.allclose(got, torch.ones(len(positions))),
               f"{name}: you picked rows (heads) {positions} instead of the columns (words) at those positions. "
               "Rows are heads, columns are words looked at: keep every row and pick the columns at those "
               "positions.")
        expect(False, f"{name} returned one number per clue position ({list(got.shape)}); it should add the "
                      "positions up and give one number per head. Sum over the last dimension.")
    expect(not (tuple(got.shape) == (len(positions), weights.shape[1]) and torch.allclose(got, weights[positions])),
           f"{name} returned the rows (heads) {positions} of the weights, whole ({list(got.shape)}). Rows are heads, "
           "columns are words looked at: keep every row, pick the columns at those positions and add them up, "
           "one number per head.")
    expect(not (tuple(got.shape) == (weights.shape[0], len(positions)) and torch.allclose(got, weights[:, positions])),
           f"{name} returned each head's weight on each clue position ({list(got.shape)}): add up the positions, "
           "the last dimension, for one number per head")
    expect(tuple(got.shape) != (weights.shape[1],),
           f"{name} returned one number per word ({list(got.shape)}): it added up the heads. Keep the heads "
           "apart and add up the clue positions instead.")
    expect(not (got.dim() == 0 and torch.isclose(got, want[0])),
           f"{name} returned one number, head 0's total: every head needs its own. Keep all the rows, and add "
           "up the clue columns in each")
    got = expect_tensor(name, got, (weights.shape[0],))
    expect(not torch.allclose(got, weights[:, positions].mean(-1)),
           f"{name}: you took the average over the clue positions. A clue made of two words gets both "
           "words' weights together: add them up.")
    expect(not torch.allclose(got, 100 * want), f"{name}: give the share as a fraction (0.25), not in percent")
    for step, side in ((-1, "left"), (1, "right")):
        expect(not torch.allclose(got, weights[:, [p + step for p in positions]].sum(-1)),
               f"{name}: you took the columns one place to the {side} of the positions {positions}: positions "
               "count from 0, so take them as they are, with no shift")
    first, last = positions[0], positions[-1]
    for end in (last, last + 1):
        expect(not torch.allclose(got, weights[:, first:end].sum(-1)),
               f"{name}: you added up every column from position {first} to {end - 1}, a slice, but the clue is only "
               f"the words at the positions {positions}: index with the list of positions itself")
    head = int((got - want).abs().argmax())
    terms = " + ".join(f"weights[{head}, {p}]" for p in positions)
    expect(torch.allclose(got, want, atol=1e-5),
           f"{name}: on the check's example, head {head} puts {float(want[head]):.4f} on the positions {positions} "
           f"({terms}), and yours gave {float(got[head]):.4f}. Add up exactly the columns at those positions, for "
           "every head.")
    three = weights[:3]  # [3, T]: a model with another number of heads
    typed_in = (f"The check also gives weights for {len(three)} heads, and your function counts on "
                f"{weights.shape[0]}: the head count is typed in (a loop over range(4)?). Work on every row of "
                "weights, however many there are.")
    _, other = attempt(name, clue_share, three.clone(), list(positions), hint=typed_in,
                       errors=(RuntimeError, IndexError))
    expect(not (isinstance(other, torch.Tensor) and tuple(other.shape) == (weights.shape[0],)),
           f"{name} gave {weights.shape[0]} shares for weights with {len(three)} heads. {typed_in}")
    expect_close(f"{name} for {len(three)} heads", expect_tensor(name, other, (len(three),)), want[:3],
                 "the share of this head")
    _, single = attempt(name, clue_share, weights.clone(), [6], errors=(IndexError,),
                        hint="The check also gives it a single clue position, [6]: work with however many positions "
                             "the list holds, rather than positions[0] and positions[1]")
    single = expect_tensor(f"{name} with one position", single, (weights.shape[0],))
    expect(torch.allclose(single, weights[:, 6]),
           f"{name}: with a single clue position it should return that column of weights")
    return passed(name)


MADE_IN = {
    "words": "'words = SMILES_SENTENCE.split()' (exercise 1)",
    "clues_for_smiles": "that starts with `def clues_for_smiles` (exercise 1)",
    "clue_share": "that starts with `def clue_share` (exercise 2)",
    "models": "that starts with `models = {` (section 4)",
    "corpus": "that starts with `val_stories =` (section 4)",
    "scored": "that starts with `val_stories =` (section 4)",
    "scores": "that starts with `val_stories =` (section 4)",
    "twins": "'twins = ...' (section 5)",
    "sentence_clues": "'twins = ...' (section 5)",
    "rows": "'twins = ...' (section 5)",
    "looker": "'twins = ...' (section 5)",
    "four_clues": "'twins = ...' (section 5)",
    "live": "that starts with `small = story_corpus(` (section 6)",
    "val_stories": "that starts with `val_stories =` (section 4)",
}
"""For a NameError's advice (helpers.needs.explain_missing, called in the set-up cell): the cell of the
chapter that makes each name a later cell needs."""
