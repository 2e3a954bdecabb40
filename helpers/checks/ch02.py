"""Checks for chapter 2 (queries, keys and values): scaled scores, the causal mask, one head."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable

import torch
from torch import nn

from helpers.attention import AttentionHead, causal_mask, spotlight
from helpers.checks import (
    attempt,
    expect,
    expect_close,
    expect_tensor,
    parameter_name,
    passed,
    softmax_went_down_columns,
    type_error_hint,
    type_of,
)


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.allclose(a, b, atol=1e-5)


_HIDE = ("Set the later words' scores to float('-inf') before the softmax: an ordinary fill leaves them some weight "
         "(a fill of 0 gives each exp(0) = 1)")
_NAN = ("NaN, 'not a number', is what 0 / 0 or 0 * infinity gives. Adding mask * float('-inf') makes it (0 * -inf "
        "is NaN), and so does a fill of float('inf') without its minus sign. Fill the later words' places "
        "instead: scores.masked_fill(~causal_mask(scores.shape[-1]), float('-inf'))")


def _weight(w: float) -> str:
    """A weight in percent, or in powers of ten when it would read 0.0%."""
    return f"{w:.1%}" if w >= 5e-4 else f"{w:.1e}"


def _first_peek(weights: torch.Tensor) -> tuple[int, int] | None:
    """(looking word, later word) of the first weight above the diagonal that is not zero, if any."""
    future = ~causal_mask(weights.shape[-1])  # [T, T], True above the diagonal
    peeks = torch.nonzero((weights.abs() > 1e-6) & future)
    return None if len(peeks) == 0 else (int(peeks[0][0]), int(peeks[0][1]))


_SQRT = ("torch.sqrt takes a tensor, and q.shape[-1] is a plain number: take its square root with ** 0.5 "
         "(or math.sqrt)")


def check_scaled_scores(scaled_scores: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> bool:
    """scaled_scores(q [T, D], k [T, D]) must return q @ k.T / sqrt(D), shape [T, T]."""
    name = "scaled_scores"
    gen = torch.Generator().manual_seed(2)
    for words, d in ((5, 16), (3, 9)):
        q = torch.randn(words, d, generator=gen)  # [T, D]
        k = torch.randn(words, d, generator=gen)  # [T, D]
        shapes = (f"q and k are both [T, D] (here {words} x {d}), and @ needs the first one's columns to match the "
                  "second one's rows: turn k on its side, as .T does, so that [T, D] @ [D, T] gives [T, T], every "
                  "query against every key")
        done, got = attempt(name, scaled_scores, q.clone(), k.clone(), errors=(RuntimeError, TypeError),
                            hint=lambda err, shapes=shapes: _SQRT if "sqrt" in str(err) else (
                                shapes if isinstance(err, RuntimeError) else ""))
        if not done:
            return False
        expect(not (isinstance(got, torch.Tensor) and tuple(got.shape) == (d, d)),
               f"{name} returned a {d} x {d} grid, one row and column per number of a query, not per word: "
               "q.T @ k multiplies over the words. Score every query against every key with q @ k.T")
        raw = q @ k.T  # [T, T]
        expect(not (isinstance(got, torch.Tensor) and any(_close(got, q * k / c) for c in (1, d**0.5, d))),
               f"{name} returned a {words} x {d} grid, one number per word and per position of its query: q * k "
               "multiplies position by position. Use @, which multiplies and adds up: q @ k.T scores every query "
               "against every key")
        expect(not (isinstance(got, torch.Tensor) and tuple(got.shape) == (words,)),
               f"{name} returned {words} numbers, one per word: each query met only its own word's key. Score every "
               f"query against every key, a {words} x {words} grid: q @ k.T")
        expect(not (isinstance(got, torch.Tensor) and got.shape == (words, words) and bool((got >= 0).all())
                    and _close(got.float().sum(dim=-1), torch.ones(words))),  # a softmax, scaled or not
               f"{name} returned weights (each row adds up to 1): return the scores, not weights. The softmax "
               "comes in exercise 2")
        got = expect_tensor(f"{name} for {words} words with D = {d}", got, (words, words))
        expect(not _close(got, raw),
               f"{name} returned the plain dot products: divide them by sqrt(D), the square root of the "
               f"head width (in the check's example, D = {d}), to keep the scores in a sensible range")
        expect(not _close(got, raw / d),
               f"{name} divided by D = {d}; divide by its square root, sqrt(D) = {d**0.5:g}, instead")
        expect(not _close(got, raw / words**0.5),
               f"{name} divided by the square root of the number of words ({words}, q.shape[0]); divide by "
               f"sqrt(D), the width of each query, q.shape[-1]")
        expect(not _close(got, raw.T / d**0.5),
               f"{name} has rows and columns swapped: each row belongs to a word that looks (a query), each "
               f"column to a word looked at (a key), so the queries come first in the product")
        divisor = float((raw * raw).sum() / (raw * got).sum())  # raw / divisor is closest to got
        how = (f"multiplied the scores by {1 / divisor:.4g}" if 0 < divisor < 1
               else f"divided the scores by {divisor:.4g}")
        if 1 < divisor <= 8 and abs(divisor**2 - round(divisor**2)) < 1e-3:  # e.g. sqrt(4), typed in
            how += f", which is sqrt({round(divisor**2)})"
        ending = (": mind the brackets, as x / D ** 1/2 is x / D / 2 (write D ** 0.5)" if abs(divisor - 2 * d) < 1e-3
                  else ", with D = q.shape[-1], the width of each query, whatever the example")
        expect(not (0 < divisor < math.inf and _close(got, raw / divisor) and abs(divisor - d**0.5) > 1e-3),
               f"{name} {how}; here D = {d}, so divide by sqrt(D) = {d**0.5:g}{ending}")
        expect_close(f"{name} with D = {d}", got, raw / d**0.5,
                     "the score (if it is right for one D but not another, read D from q.shape[-1])")
    return passed(name)


def _divisor(att: torch.Tensor, raw: torch.Tensor) -> float | None:
    """The number the plain scores `raw` [T, T] were divided by to give the causal softmax `att`, if any.

    Within a row, the log of a weight minus the log of the row's first weight is the score difference over
    that divisor, so a least-squares fit over every allowed pair recovers it. None when `att` is not such a
    softmax (the fit leaves a large remainder) or has no pair to fit.
    """
    allowed = causal_mask(att.shape[-1]) & (att > 1e-12)  # [T, T]
    allowed[:, 0] = False  # the first column is the reference of each row
    rows, cols = torch.nonzero(allowed, as_tuple=True)
    if len(rows) == 0 or bool((att[:, 0] <= 1e-12).any()):
        return None
    logs = att[rows, cols].log() - att[rows, 0].log()  # [pairs]
    gaps = raw[rows, cols] - raw[rows, 0]  # [pairs]
    slope = float((gaps * logs).sum() / (gaps * gaps).sum())  # 1 / divisor
    if slope <= 0 or float((logs - slope * gaps).abs().max()) > 1e-3:
        return None
    return 1 / slope


def _hid_the_past(got: object, scores: torch.Tensor) -> bool:
    """True when got is what a mask used the wrong way round gives: the past hidden and the future shown."""
    return _hidden(got, scores, causal_mask(scores.shape[-1]))


def _hidden(got: object, scores: torch.Tensor, hide: torch.Tensor) -> bool:
    """True when got is the softmax of `scores` with the places where `hide` is True filled with -inf."""
    wrong = torch.softmax(scores.masked_fill(hide, float("-inf")), dim=-1)  # [T, T]
    return isinstance(got, torch.Tensor) and got.shape == wrong.shape and bool(
        torch.allclose(got, wrong, atol=1e-5, equal_nan=True))


def _mask_hint(words: int) -> Callable[[Exception], str]:
    """What usually lies behind an error in masked_weights: a mask of numbers, 1 - mask, a fill typed as text, a
    softmax without its dim, or the notebook's T."""
    def hint(err: Exception) -> str:
        said = str(err)
        if "boolean" in said:
            return ("masked_fill needs a mask of True and False: causal_mask(...) is one, while a mask of 1s and 0s "
                    "(torch.ones, torch.triu) is numbers: build it with dtype=torch.bool, or add .bool()")
        if "bool tensor is not supported" in said:
            return "To turn a True/False mask round, write ~mask, not 1 - mask"
        if typed := type_error_hint(err):  # a fill given as text ('-inf'), or a softmax without its dim
            return typed.removeprefix(". ")
        if "must match the size" in said or "does not match the shape" in said:
            return (f"The check gives your function grids of scores of its own sizes, here {words} x {words}, not "
                    "the notebook's sentence, and the mask does not fit them: most likely it was built with the "
                    "notebook's T (the length of our sentence) instead of the size of the scores it is given. "
                    "Use causal_mask(scores.shape[-1]): the mask then always has the size of these scores.")
        return ("Build the mask with causal_mask(scores.shape[-1]) and hide the later words with "
                "scores.masked_fill(~mask, float('-inf')) before the softmax")
    return hint


def check_masked_weights(masked_weights: Callable[[torch.Tensor], torch.Tensor]) -> bool:
    """masked_weights(scores [T, T]) must give causal softmax weights: rows add to 1, no weight on later words."""
    name = "masked_weights"
    gen = torch.Generator().manual_seed(3)
    for words, low in ((4, 0.0), (6, 0.0), (5, -40.0)):  # -40: scores so low that a finite fill shows
        scores = torch.randn(words, words, generator=gen) * 2 + low  # [T, T]
        done, got = attempt(name, masked_weights, scores.clone(), hint=_mask_hint(words),
                            errors=(RuntimeError, IndexError, TypeError))
        if not done:
            return False
        expect(not _hid_the_past(got, scores),
               f"{name}: the mask is the wrong way round. causal_mask(...) is True where a word MAY look (itself "
               "and earlier words), so filling those places with -inf hid the past and showed the future; the "
               "last word, which may look everywhere, was left with nothing and its row became NaN. Fill where "
               "the mask is False instead (~ turns each True into False and each False into True).")
        expect(not _hidden(got, scores, ~causal_mask(words).T),  # True on the earlier words, not the word itself
               f"{name}: the earlier words were hidden and the later ones left in view: it is the later words a "
               "word may not see. causal_mask(...) is True where a word may look; fill where it is False.")
        masked = scores.masked_fill(~causal_mask(words), float("-inf"))  # [T, T]
        expect(not (isinstance(got, torch.Tensor) and got.shape == masked.shape and torch.equal(got, masked)),
               f"{name} returned the masked scores, with -inf for the later words, not weights: finish with a "
               "softmax along each row, torch.softmax(..., dim=-1), so that each row adds up to 1")
        own = got.diagonal()[1:] if isinstance(got, torch.Tensor) and got.shape == (words, words) else None  # [T-1]
        expect(own is None or bool(got[1:].isnan().any()) or not bool((own.abs() < 1e-6).all()),  # row 0 may be NaN
               f"{name}: no word gives any weight to itself, so the mask hides the diagonal too, and the first word, "
               "which may look only at itself, is left nothing to look at. The diagonal (a word looking at itself) "
               "must stay allowed.")
        expect(not (isinstance(got, torch.Tensor) and bool(got.isnan().any())), f"{name}: a row came out NaN. {_NAN}")
        got = expect_tensor(f"{name} for {words} words", got, (words, words))
        softmax_went_down_columns(name, got)
        expect(bool((got >= 0).all()),
               f"{name} gave a negative weight ({float(got.min()):.3f}): weights come out of softmax, "
               f"which never gives negative numbers")
        peek = _first_peek(got)
        if peek is not None:
            raise AssertionError(
                f"{name}: peeking at the future: the word at position {peek[0]} gives weight "
                f"{_weight(float(got[peek]))} to the later word at position {peek[1]} (positions count from 0). "
                f"{_HIDE}" + (f". The check's scores here are near {low:g}, so even a fill such as -15 is not low "
                              "enough" if low else ""))
        row_sums = got.sum(dim=-1)
        expect(bool(((row_sums - 1).abs() < 1e-4).all()),
               f"{name}: each row must add up to 1, but the rows add up to "
               f"{[round(float(s), 3) for s in row_sums]}. Hide the future before the softmax, not after: "
               f"zeroing weights afterwards leaves rows that no longer add up to 1")
        want = torch.softmax(scores.masked_fill(~causal_mask(words), float("-inf")), dim=-1)  # [T, T]
        expect_close(name, got, want, "the weight")
    return passed(name)


def _reference_head(x: torch.Tensor, query: nn.Linear, key: nn.Linear, value: nn.Linear) -> AttentionHead:
    with torch.random.fork_rng(devices=[]):
        head = AttentionHead(x.shape[-1], query.out_features)
    head.load_state_dict({"query.weight": query.weight, "key.weight": key.weight, "value.weight": value.weight})
    return head


def _explain_untransposed(one_head: Callable[..., object], words: int, width: int, d: int) -> Callable[..., object]:
    """one_head, but multiplying x [T, C] by a layer's weight [D, C] as it is (no .T) fails with a plain-words
    explanation instead of torch's "shapes cannot be multiplied"."""
    def run(*args: object) -> object:
        try:
            return one_head(*args)
        except RuntimeError as err:
            if f"{words}x{width}" not in str(err) or f"{d}x{width}" not in str(err):
                raise
            raise AssertionError(
                f"one_head stopped with an error ({str(err).rstrip('.')}). nn.Linear keeps its matrix as [D, C], "
                f"here [{d}, {width}]: call query(x), or write x @ query.weight.T") from err

    return run


def _head_hint(words: int, width: int, d: int, x: str) -> Callable[[Exception], str]:
    """What usually lies behind an error in one_head, run on the check's `words` words of width `width` with layers
    of head width `d` (its first parameter named `x` by the learner): the notebook's own x, a product the wrong way
    round, or a size taken from the notebook."""
    def hint(err: Exception) -> str:
        if re.search(rf"\((?!{words}x)\d+x\d+ and {width}x{d}\)", str(err)):  # another x met query.weight.T
            return (f"Your one_head read other words than the ones it was given (the check's have width {width}): "
                    f"compute q, k and v from its first argument, {x}, as in q = query({x}), not from the notebook's "
                    "own x.")
        if "cannot be multiplied" in str(err):
            return ("A matrix product is the wrong way round: the scores are q @ k.T, [T, D] @ [D, T] = [T, T], and "
                    "the output is att @ v, [T, T] @ [T, D] = [T, D].")
        return (f"The check runs your head on its own example, {words} words of width {width} with a head width of "
                f"{d}, so a size taken from the notebook's T, C or D does not fit it. Read the sizes from the inputs: "
                "the mask from the scores, causal_mask(scores.shape[-1]), and D from q.shape[-1].")
    return hint


def check_one_head(
    one_head: Callable[[torch.Tensor, nn.Linear, nn.Linear, nn.Linear], tuple[torch.Tensor, torch.Tensor]],
) -> bool:
    """one_head(x [T, C], query, key, value) must return (y [T, D], att [T, T]) like helpers' AttentionHead."""
    name = "one_head"
    words, width, d = 5, 6, 3  # sizes unlike the notebook's (9 words, C = 8, D = 4): a size typed in shows
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(words, width, generator=gen)  # [T, C]
    with torch.random.fork_rng(devices=[]):  # creating layers draws random numbers: keep the learner's seed
        query, key, value = (nn.Linear(width, d, bias=False) for _ in range(3))
    with torch.no_grad():
        for layer, size in ((query, 1.5), (key, 1.0), (value, 1.0)):  # a large query: a forgotten scaling shows
            layer.weight.copy_(torch.randn(d, width, generator=gen) * size)  # [D, C]
        done, result = attempt(
            name, _explain_untransposed(one_head, words, width, d), x.clone(), query, key, value,
            hint=_head_hint(words, width, d, parameter_name(one_head, 0)))
        if not done:
            return False
        expect(not (isinstance(result, list) and len(result) == 2),
               f"{name} returned a list of two things: return them as a pair, a tuple (return y, att)")
        expect(isinstance(result, tuple) and len(result) == 2,
               f"{name} should return two things, (y, att), got {type_of(result)}")
        y, att = result
        expect(not (isinstance(y, torch.Tensor) and tuple(y.shape) == (words, words) and isinstance(att, torch.Tensor)
                    and tuple(att.shape) == (words, d)),
               f"{name} returned (att, y), the weights first: the order is (y, att), the new vectors and then the "
               f"weights, as helpers' AttentionHead returns them: swap the two in your return line")
        expect(not (isinstance(att, torch.Tensor) and bool(att.isnan().any())),
               f"{name}'s att has NaN in it. A row whose scores are all hidden gives NaN (a mask the wrong way "
               f"round, or one that hides the word itself), and so does a bad fill. {_NAN}")
        expect(not (isinstance(att, torch.Tensor) and att.dim() == 2 and att.shape[0] == att.shape[1] != words),
               f"{name}'s att is {att.shape[0]} x {att.shape[0]}, but the check's x has {words} words: compute q, "
               "k and v inside one_head from the x it is given (q = query(x), k = key(x), v = value(x)), not "
               "the notebook's own q, k and v")
        expect(not (isinstance(att, torch.Tensor) and bool((att < 0).any())),
               f"{name}'s att has numbers below 0, so it holds scores, not weights: return the weights that the mask "
               "and the softmax make from the scores (your masked_weights from exercise 2), and use them for y too")
        att = expect_tensor(f"{name} (its att)", att, (words, words))
        expect(not (isinstance(y, torch.Tensor) and _close(y, att @ x)),
               f"{name} averaged the word vectors x, not the values v: the output is att @ v, with v = value(x)")
        y = expect_tensor(f"{name} (its y)", y, (words, d))
        want_y, want_att = (t[0] for t in _reference_head(x, query, key, value)(x.unsqueeze(0)))
        q, k, v = query(x), key(x), value(x)  # [T, D] each
        mask = causal_mask(words)  # [T, T]
        expect(not any(_close(att, torch.softmax(scores, dim=-1)) for scores in (q @ k.T / d**0.5, q @ k.T)),
               f"{name} left out the mask: every word gives weight to the words after it. Make the weights with "
               "your masked_weights from exercise 2 (it hides the later words), not a plain torch.softmax")
        peek = _first_peek(att)
        if peek is not None:
            raise AssertionError(f"{name}: peeking at the future: in att, the word at position {peek[0]} gives "
                                 f"weight to the later word at position {peek[1]} (positions count from 0). Make the "
                                 f"weights with your masked_weights from exercise 2. {_HIDE}")
        sums = att.sum(dim=-1)  # [T]
        expect(not (bool((sums - sums[0]).abs().max() < 1e-4) and abs(float(sums[0]) - 1) > 1e-4),
               f"{name}: every row of att adds up to {float(sums[0]):.3g}, not 1: the weights were scaled after the "
               "softmax. Divide the scores by sqrt(D) before it, so the softmax makes the weights")
        expect(bool(((sums - 1).abs() < 1e-4).all()),
               f"{name}: each row of att must add up to 1 (softmax along the last dimension, after masking)")
        expect(not _close(att, spotlight(q @ k.T, v, mask)[1]),
               f"{name} forgot to scale: divide the scores by sqrt(D) before the softmax, reading D from q.shape[-1] "
               f"(in the check's example D = {d}, so sqrt(D) = {d**0.5:.3g})")
        expect(not _close(att, spotlight(q @ k.T / width**0.5, v, mask)[1]),
               f"{name} divided the scores by sqrt(C) = sqrt({width}), the width of a word vector. Divide by "
               f"sqrt(D) = sqrt({d}), the width of the head: the length of each query and key, q.shape[-1]")
        divisor = _divisor(att, q @ k.T)  # None when att is no scaled softmax of q @ k.T
        if divisor is not None:
            expect(abs(divisor - d) > 0.05,
                   f"{name} divided the scores by D = {d} itself; divide by its square root, "
                   f"sqrt(D) = {d**0.5:.3g}")
            expect(abs(divisor - d**0.5) < 0.05,
                   f"{name} divided the scores by about {divisor:.2f}, the square root of {divisor**2:.0f}. The "
                   f"check uses its own sizes (a word width C = {width}, a head width D = {d}), not the notebook's: "
                   f"divide by sqrt(D) = {d**0.5:.3g}, reading D from q.shape[-1]")
        expect(not _close(att, spotlight(k @ q.T / d**0.5, v, mask)[1]),
               f"{name} swapped queries and keys: rows are the words that look (q), so the scores are q @ k.T")
        for (a, a_of), (b, b_of) in itertools.product(((q, "query"), (k, "key"), (v, "value")), repeat=2):
            expect((a_of, b_of) == ("query", "key") or not _close(att, spotlight(a @ b.T / d**0.5, v, mask)[1]),
                   f"{name} made the scores from {a_of}(x) and {b_of}(x): a word's query comes from the query "
                   "projection and each key from the key projection, each layer its own")
        expect_close(f"{name}'s att", att, want_att, "the weight")
        for wrong, what in ((att @ k, "keys"), (att @ q, "queries")):
            expect(not _close(y, wrong),
                   f"{name} averaged the {what}: the output is the weighted average of the values, att @ v")
        expect(not _close(y, att.T @ v), f"{name} turned att round for y (att.T @ v): each row of att is one word's "
                                         "weights over the words it looks at, so y = att @ v, row by row")
        expect_close(f"{name}'s y", y, want_y, "the output")
    return passed(name)


MADE_IN = {
    "words": "that makes `words` and `x` (section 1)",
    "x": "that makes `words` and `x` (section 1)",
    "T": "that makes `words` and `x` (section 1)",
    "C": "that makes `words` and `x` (section 1)",
    "D": "that makes `words` and `x` (section 1)",
    "query": "that makes `query`, `key` and `value` (section 1)",
    "key": "that makes `query`, `key` and `value` (section 1)",
    "value": "that makes `query`, `key` and `value` (section 1)",
    "q": "that makes `query`, `key` and `value` (section 1)",
    "k": "that makes `query`, `key` and `value` (section 1)",
    "v": "that makes `query`, `key` and `value` (section 1)",
    "scaled_scores": "that starts with `def scaled_scores` (exercise 1)",
    "mask": "`mask = causal_mask(...)` (section 3)",
    "scores": "that makes `scores` (section 3)",
    "masked_weights": "that starts with `def masked_weights` (exercise 2)",
    "att": "that makes `att` (section 3, exercise 2)",
    "one_head": "that starts with `def one_head` (exercise 3)",
    "head": "that makes `head` (section 5)",
    "diff_helper": "that makes `head` (section 5)",
    "diff_torch": "that makes `head` (section 5)",
}
"""For a NameError's advice (helpers.needs.explain_missing, called in the set-up cell): the cell of the
chapter that makes each name a later cell needs."""
