"""Checks for chapter 1 (one spotlight): softmax and the weighted average."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from unittest.mock import patch

import torch
import torch.nn.functional as F

from helpers.checks import attempt, expect, expect_close, expect_tensor, passed, softmax_went_down_columns


def _reference_softmax(scores: torch.Tensor) -> torch.Tensor:
    return torch.softmax(scores, dim=-1)


def _on_grid(name: str, softmax: Callable[[torch.Tensor], torch.Tensor], grid: torch.Tensor) -> object:
    """softmax(grid); a shape error (a row's total without keepdim) or code for one row only (a loop, max(),
    math.exp) becomes a plain-words explanation."""
    rows = grid.shape[0]

    def hint(err: Exception) -> str:
        if "must match" in str(err):
            return (f"A row's largest score or total taken with .max(dim=-1) or .sum(dim=-1) has shape [{rows}], one "
                    f"number per row, which does not line up with the {list(grid.shape)} grid. Add keepdim=True: the "
                    f"shape becomes [{rows}, 1] and each row is divided by its own total")
        return ("It works on one row of scores but not on a grid: Python's max(), math.exp and a loop over the scores "
                "handle single numbers. Use tensor operations along the last dimension instead: scores.max(dim=-1, "
                "keepdim=True).values, torch.exp(scores), .sum(dim=-1, keepdim=True)")

    return attempt(f"{name} on a {list(grid.shape)} grid of scores", softmax, grid.clone(),
                   errors=(RuntimeError, TypeError), hint=hint)[1]


@contextmanager
def _torch_softmax_watched() -> Iterator[list[str]]:
    """While open, torch's own softmax (torch.softmax, F.softmax, Tensor.softmax, nn.Softmax) still works but
    notes each use in the list it yields: the exercise is to build softmax, not to call it."""
    used: list[str] = []

    def watched(original: Callable[..., torch.Tensor], called: str) -> Callable[..., torch.Tensor]:
        def call(*args: object, **kwargs: object) -> torch.Tensor:
            used.append(called)
            with warnings.catch_warnings():  # F.softmax without dim warns from in here; the check's message says more
                warnings.simplefilter("ignore")
                return original(*args, **kwargs)
        return call

    with ExitStack() as stack:
        for owner, attribute, called in ((torch, "softmax", "torch.softmax"), (F, "softmax", "F.softmax"),
                                         (torch.Tensor, "softmax", ".softmax()"),
                                         (torch.special, "softmax", "torch.special.softmax")):
            stack.enter_context(patch.object(owner, attribute, watched(getattr(owner, attribute), called)))
        yield used


def check_softmax(softmax: Callable[[torch.Tensor], torch.Tensor]) -> bool:
    """softmax(scores) must turn each row of scores into weights that are >= 0 and add up to 1."""
    name = "softmax"
    scores = torch.tensor([2.0, -1.0, 0.5, 3.0])  # [4], one word's scores
    try:
        with _torch_softmax_watched() as used:
            done, got = attempt(name, softmax, scores.clone(), errors=(IndexError, ValueError, RuntimeError),
                                hint="The check gives it one word's scores first, shape [4] (a single dimension), "
                                     "and a [2, 3] grid later: use dim=-1, the last dimension, which fits both "
                                     "(and whole-tensor operations, not a loop over single numbers).")
    except TypeError as err:  # s - s.max(dim=-1): the largest along a dimension comes as (values, positions)
        if "return_types" not in str(err):
            raise
        raise AssertionError(
            f"{name} stopped with an error ({err}). .max(dim=...) gives back two things, the largest values and "
            f"their positions: take .values, as in s.max(dim=-1, keepdim=True).values") from err
    if not done:
        return False
    expect(not used, f"{name} calls PyTorch's own softmax ({used[0] if used else ''}): its numbers are right, but this "
                     "exercise is to build it from exp and a sum, so that you see what it does")
    got = expect_tensor(name, got, (4,))
    expect(bool((got >= 0).all()),
           f"{name} gave a negative weight ({float(got.min()):.3f}): a spotlight never shines a negative "
           f"amount. exp() of any number is positive, so take exp() of the scores first")
    total = float(got.sum())
    expect(abs(total - 1) < 1e-4,
           f"{name}'s weights add up to {total:.3f}, not 1: divide each exp(score) by the total of all of them")
    shifted = scores - scores.max()
    no_exp = [s / s.sum() for s in (scores, shifted, scores.abs(), shifted.abs())]  # [4] each
    expect(not any(torch.allclose(got, weights) for weights in no_exp),
           f"{name}: your weights add up to 1, but they are the scores themselves (or their sizes) divided by "
           f"their total. Take exp() of each score first, then divide by the total of the exps, so that a "
           f"higher score always gets a larger weight")
    expect_close(name, got, _reference_softmax(scores), "the weight")

    grid = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 4.0]])  # [2, 3], two words' scores, one row each
    got = expect_tensor(f"{name} on a [2, 3] grid of scores", _on_grid(name, softmax, grid), (2, 3))
    softmax_went_down_columns(f"{name} on a [2, 3] grid of scores", got, by_hand=True)
    row_sums = got.sum(dim=-1)
    expect(bool(((row_sums - 1).abs() < 1e-4).all()),
           f"{name} on a grid: each row is one word's spotlight, so each row must add up to 1, but the rows "
           f"add up to {[round(float(s), 3) for s in row_sums]}. Sum along the last dimension: "
           f".sum(dim=-1, keepdim=True)")
    expect_close(f"{name} on a grid", got, _reference_softmax(grid), "the weight",
                 example=f" (the grid {grid.int().tolist()})")

    big = torch.tensor([1000.0, 1001.0, -1000.0])  # [3], large scores overflow exp()
    got = softmax(big.clone())
    expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got).all()),
           f"{name} of the scores [1000, 1001, -1000] gave {got}: exp(1000) is too large for a float and "
           f"becomes infinity. Subtract the LARGEST score of each row first (the .values of .max(dim=-1, "
           f"keepdim=True)), so that every score is at most 0; the weights do not change, because it divides the "
           f"top and the bottom of the fraction by the same number.")
    expect_close(f"{name} of large scores", got, _reference_softmax(big), "the weight")

    far_apart = torch.tensor([[1000.0, 1001.0], [-1000.0, -1001.0]])  # [2, 2], rows far apart
    got = softmax(far_apart.clone())
    want = _reference_softmax(far_apart)
    whole_grid = (isinstance(got, torch.Tensor) and got.shape == want.shape and bool(torch.allclose(got[0], want[0]))
                  and not bool(torch.isfinite(got[1]).all()))  # what subtracting s.max() gives
    expect(not whole_grid,
           f"{name} of the grid [[1000, 1001], [-1000, -1001]] gave NaN in the second row. You subtracted the "
           f"largest score of the whole grid, scores.max(), which is far above every score of the second row, so "
           f"all its exp() become 0 and 0 / 0 is NaN. Subtract each row's own largest score: "
           f"scores.max(dim=-1, keepdim=True).values")
    got = expect_tensor(f"{name} of the grid {far_apart.int().tolist()}", got, (2, 2))  # named: to run again
    expect_close(f"{name} of a grid of large scores", got, want, "the weight")
    return passed(name)


def check_weighted_average(weighted_average: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> bool:
    """weighted_average(weights [T], values [T, C]) must return the [C] sum of weight times value."""
    name = "weighted_average"
    weights = torch.tensor([0.1, 0.6, 0.3])  # [3], adds up to 1
    values = torch.tensor([[1.0, 0.0], [2.0, 4.0], [-3.0, 1.0]])  # [3, 2], one row per word
    t, c = values.shape

    def hint(err: Exception) -> str:
        """Shapes that do not line up: * needs the weights as a column; @ needs them first, as they are."""
        example = f"In the check's small example ({t} words, {c} numbers each)"
        if "must match the size" in str(err):  # from *
            return (f"{example}, weights has shape [{t}] (one number per word) and values [{t}, {c}] (one row per "
                    f"word). PyTorch lines shapes up from the right, so weights * values pairs the {t} weights with "
                    f"the {c} numbers inside each row instead of with the {t} words. Make the weights a column first: "
                    f"weights[:, None] has shape [{t}, 1], and each weight then multiplies its own word's whole row")
        shapes = re.search(r"\((\d+)x(\d+) and (\d+)x(\d+)\)", str(err))  # @'s two sides, as torch saw them
        left, right = ((int(shapes[1]), int(shapes[2])), (int(shapes[3]), int(shapes[4]))) if shapes else ((), ())
        if left == (t, 1):  # a column, then @
            return (f"{example}, a column of weights, [{t}, 1], does not go with @: @ pairs the left side's last "
                    f"dimension (1) with the right side's first ({t} words). The column is for *, which lines up "
                    f"each weight with its word's row (then add the rows up); @ takes the weights as they are, [{t}]")
        if right == (c, t):  # values turned round
            return (f"{example}, values.T has shape [{c}, {t}]: turning values round puts its {c} numbers per word "
                    f"where @ looks for the words. weights @ values already pairs the {t} weights with the {t} words "
                    f"(one row each): leave values as it is")
        return (f"{example}: with @ the order matters, because @ pairs the left side's last dimension with the right "
                f"side's first. With values [{t}, {c}] on the left, its {c} numbers per word meet the {t} weights. "
                f"Put the weights, [{t}], on the left, so that the {t} weights meet the {t} words")

    done, got = attempt(name, weighted_average, weights.clone(), values.clone(), hint=hint)
    if not done:
        return False
    expect(not (isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(values.shape)),
           f"{name} returned shape {list(values.shape)}, one row per word: you multiplied each word by "
           f"its weight but did not add the words up. Sum over the words (dim=0), or use weights @ values")
    expect(not (isinstance(got, torch.Tensor) and got.dim() == 0),
           f"{name} returned a single number: you added up everything. The result is one vector with a number "
           f"per feature ({values.shape[1]} here): add up the words only, over dim=0")
    expect(not (isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(weights.shape)),
           f"{name} returned shape {list(weights.shape)}, one number per word: you added up each word's own "
           f"numbers (dim=1, along a row). Add the words up instead, each row weighted: sum over dim=0, the "
           f"dimension that counts the words")
    got = expect_tensor(name, got, (2,))
    want = weights @ values  # [2]
    expect(not torch.allclose(got, (weights[:, None] + values).sum(dim=0), atol=1e-5),
           f"{name} added each weight to its word's numbers (+): multiply them instead (*), so that a word with "
           "a small weight counts for little, then add the words up")
    for plain, said in ((values.mean(dim=0), "the plain average"), (values.sum(dim=0), "the plain sum")):
        expect(not torch.allclose(got, plain, atol=1e-5), f"{name} returned {said} of the words, which ignores the "
                                                          "weights: multiply each word by its weight before adding "
                                                          "them up")
    expect(not torch.allclose(got, want / len(weights), atol=1e-5),
           f"{name} divided by the number of words: no need, the weights already add up to 1, "
           f"so the weighted sum is already an average")
    rows = ", ".join(f"[{a:g}, {b:g}]" for a, b in values.tolist())
    expect_close(name, got, want, "the average", example=f" (weights [{', '.join(f'{w:g}' for w in weights.tolist())}],"
                 f" values [{rows}])")
    return passed(name)


MADE_IN = {
    "words": "`words = COURSE_EXAMPLES[1].split()` (section 1)",
    "x": "`words = COURSE_EXAMPLES[1].split()` (section 1)",
    "features": "`words = COURSE_EXAMPLES[1].split()` (section 1)",
    "n_features": "`words = COURSE_EXAMPLES[1].split()` (section 1)",
    "seen": "`t = words.index(\"tired\")` (section 2)",
    "t": "`t = words.index(\"tired\")` (section 2)",
    "plain": "`t = words.index(\"tired\")` (section 2)",
    "weighted_average": "that starts with `def weighted_average` (exercise 1)",
    "chosen": "`chosen = torch.zeros(len(seen))` (section 3)",
    "scores": "`question = ...; scores = seen @ question` (section 4)",
    "softmax": "that starts with `def softmax` (exercise 2)",
    "tired_weights": "`tired_weights = softmax(scores)` (section 5)",
    "all_scores": "`asks = {...}` that computes every word's spotlight (section 5)",
    "all_weights": "`asks = {...}` that computes every word's spotlight (section 5)",
    "temperatures": "`temperatures = [...]` (section 6)",
    "by_temperature": "`temperatures = [...]` (section 6)",
    "visible": '`s = words.index("street")` (section 7)',
    "clues": '`s = words.index("street")` (section 7)',
    "boosts": '`s = words.index("street")` (section 7)',
    "boost": "`boost = boosts[-2]` (section 7)",
    "separate_weights": "`boost = boosts[-2]` (section 7)",
    "s": '`s = words.index("street")` (section 7)',
}
"""For a NameError's advice (helpers.needs.explain_missing, called in the set-up cell): the cell of the
chapter that makes each name a later cell needs."""
