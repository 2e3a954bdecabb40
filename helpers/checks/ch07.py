"""Checks for chapter 7 (the transformer block): the feed-forward part, one pre-norm block, its size."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from helpers.block import FeedForward, TransformerBlock
from helpers.checks import (
    arithmetic_only,
    attempt,
    expect,
    expect_close,
    expect_same_for_any_heads,
    expect_tensor,
    expect_whole,
    off_by,
    passed,
)
from helpers.model import count_parameters

_B, _T, _C, _H = 2, 5, 12, 3  # a small, lopsided example: every size different, so mix-ups show


def _example() -> torch.Tensor:
    return torch.randn(_B, _T, _C, generator=torch.Generator().manual_seed(7))  # [B, T, C]


class _Watched(torch.nn.Module):
    """A module that notes when it is run as a whole: the exercises write its forward from its parts."""

    called = False

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        self.called = True
        return super().forward(*args, **kwargs)


_WatchedFeedForward = type("FeedForward", (_Watched, FeedForward), {})  # named as the learner knows it, in errors
_WatchedBlock = type("TransformerBlock", (_Watched, TransformerBlock), {})


def _feed_forward() -> FeedForward:
    with torch.random.fork_rng(devices=[]):  # creating layers draws random numbers: keep the learner's seed
        torch.manual_seed(7)
        return _WatchedFeedForward(_C)


def _same_twice(name: str, got: torch.Tensor, again: object, parts: str) -> None:
    """Fail when a second call on the same x gives another output: randomness such as dropout is left in."""
    expect(isinstance(again, torch.Tensor) and torch.allclose(got, again.detach(), atol=1e-6),
           f"{name} gives another output when called again on the same x: something random is left in, such as "
           "dropout (F.dropout, nn.Dropout), or a layer made inside the function (nn.Linear(...) starts from new "
           f"random weights at each call). This block has neither: use {parts}, with no dropout.")


def _feed_forward_hint(err: Exception) -> str:
    """What usually raises inside feed_forward: GELU by a wrong name, a GELU layer given the numbers, a misspelt
    part, or the steps out of order."""
    if isinstance(err, AttributeError) and "gelu" in str(err).lower():
        return ("GELU's function is F.gelu, in small letters (torch.nn.functional.gelu); nn.GELU is the layer class. "
                "Call F.gelu on what ff.up gives.")
    if "GELU" in str(err):
        return ("nn.GELU is a layer class: nn.GELU(...) makes a new layer instead of bending the numbers. Call the "
                "function F.gelu on what ff.up gives (nn.GELU()(...) would work too).")
    if isinstance(err, AttributeError):
        return "Check the names: the parts are ff.up and ff.down, and the bend is F.gelu."
    if re.search(rf"\(\d+x{_T} and {_C}x", str(err)):  # ff.up was given words last: x transposed
        return (f"x was turned round: it is [B, T, C] already, each word's {_C} numbers last, which is where a linear "
                "layer reads them. Give x to ff.up as it is, with no transpose, then F.gelu, then ff.down.")
    return (f"Check the order of the steps: ff.up takes each word's {_C} numbers to {4 * _C}, F.gelu bends them, "
            f"and ff.down brings them back to {_C}.")


def check_feed_forward(feed_forward: Callable[[FeedForward, torch.Tensor], torch.Tensor]) -> bool:
    """feed_forward(ff, x [B, T, C]) must return ff.down(gelu(ff.up(x))): [B, T, C]."""
    name = "feed_forward"
    ff, x = _feed_forward(), _example()
    ran: list[torch.nn.Module] = []  # ff's layers the function ran: layers of its own start from other weights
    for layer in (ff.up, ff.down):
        layer.register_forward_hook(lambda layer, *_: ran.append(layer))
    done, got = attempt(name, feed_forward, ff, x.clone(), errors=(RuntimeError, TypeError, AttributeError),
                        hint=_feed_forward_hint)
    if not done:
        return False
    own_layers = not ff.called and not (ff.up in ran and ff.down in ran)  # before the check runs ff.up itself
    with torch.no_grad():
        hidden = ff.up(x)  # [B, T, 4C]
        want = ff.down(F.gelu(hidden))  # [B, T, C]
        expect(not (isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(hidden.shape)),
               f"{name}: the result has shape {list(hidden.shape)}, the widened middle. Bring it back to the "
               f"word's width {_C} with ff.down after the GELU.")
        got = expect_tensor(name, got, (_B, _T, _C)).detach()
        _same_twice(name, got, feed_forward(ff, x.clone()), "ff.up and ff.down, the layers it is given")
        other = x.clone()
        other[:, 2] += 1.0  # change only word 2
        changed = (feed_forward(ff, other).detach() - got).abs().amax(dim=-1)  # [B, T]
        changed[:, 2] = 0  # word 2 itself may change
        expect(float(changed.max()) < 1e-6,
               f"{name}: changing only word 2 changed the output of other words. The feed-forward part works "
               "on each word on its own: apply the layers to x directly, without mixing words.")
        if not torch.allclose(got, want, atol=1e-5):
            expect(not own_layers,
                   f"{name}: your function did not run ff.up and ff.down, the layers it is given. A layer made "
                   "inside it (nn.Linear(...)) starts from new random weights: use ff.up, then F.gelu, then ff.down.")
            between = "The bend goes once, between the two layers: ff.up, then F.gelu, then ff.down."
            twice = f"you applied GELU twice. {between}"
            mistakes = [
                (ff.down(hidden), "there is no GELU between the two layers. Two linear layers in a row are no more "
                                  "than one linear layer; the bend in the middle (F.gelu) is what lets them compute "
                                  "something new."),
                (ff.down(F.relu(hidden)), "you used ReLU. It is a close cousin, but this block uses GELU: F.gelu."),
                (ff.down(F.gelu(hidden, approximate="tanh")), "you used approximate='tanh', a quicker approximation "
                                                               "of GELU. This block uses the exact one, F.gelu's "
                                                               "default: F.gelu(h)."),
                (ff.down(F.gelu(F.gelu(hidden))), twice),
                (F.gelu(want), twice),
                (F.gelu(ff.down(hidden)), f"the GELU came after ff.down. {between}"),
                (ff.down(ff.up(F.gelu(x))), f"the GELU came before ff.up. {between}"),
                (x + want, "you added x back. Return only the feed-forward part's output; adding back is the "
                           "block's job (x = x + ff(ln2(x)))."),
            ]
            for wrong, reason in mistakes:
                expect(not torch.allclose(got, wrong, atol=1e-5), f"{name}: {reason}")
            expect_close(name, got, want, "the output")
    expect(not ff.called, f"{name}: you called the whole module, ff(x): that runs the forward pass the exercise "
                          "asks you to write. Write it from the parts: ff.up, then F.gelu, then ff.down.")
    return passed(name)


def _block() -> TransformerBlock:
    """A small block whose two layer norms differ (random scales and shifts), so swapping them shows."""
    with torch.random.fork_rng(devices=[]), torch.no_grad():  # keep the learner's seed
        torch.manual_seed(7)
        block = _WatchedBlock(_C, _H)
        for ln in (block.ln1, block.ln2):
            ln.weight.normal_(1.0, 0.3)
            ln.bias.normal_(0.0, 0.3)
    return block


_PAIR = "block.attn(...) returns a pair (y, att): add only its first element, y."
_ORDER = "Check the order of the steps: each part takes and gives vectors of the block's width."
_WEIGHTS = ("block.attn(...) returns (y, att): y, its element [0], is what to add; att, [1], is the weights, "
            "[B, H, T, T], one more dimension than x.")


def _block_step_hint(err: Exception) -> str:
    """What usually raises inside block_step: a misspelt part, a pair added to x, or the steps out of order."""
    if isinstance(err, AttributeError):
        return "Check the names: the block's parts are block.ln1, block.attn, block.ln2 and block.ff."
    return _PAIR if "tuple" in str(err) else _WEIGHTS if "dimension 3" in str(err) else _ORDER  # 3: att's last


def check_block_step(block_step: Callable[[TransformerBlock, torch.Tensor], torch.Tensor]) -> bool:
    """block_step(block, x [B, T, C]) must compute x + attn(ln1(x)), then x + ff(ln2(x)): [B, T, C]."""
    name = "block_step"
    block, x = _block(), _example()
    done, got = attempt(name, block_step, block, x.clone(), hint=_block_step_hint,
                        errors=(RuntimeError, TypeError, ValueError, AttributeError))
    if not done:
        return False
    expect(not block.called, f"{name}: you called the whole block, block(x): that runs the forward pass the exercise "
                             "asks you to write. Write it from the parts: block.ln1, block.attn, block.ln2, block.ff.")
    expect(not isinstance(got, tuple),
           f"{name} returned a pair. block.attn(...) gives (y, att): keep y, and return only the new x, computed "
           "step by step with the block's parts.")
    got = expect_tensor(name, got, (_B, _T, _C)).detach()
    with torch.no_grad():
        _same_twice(name, got, block_step(block, x.clone()), "block.ln1, block.attn, block.ln2 and block.ff")
        ln1, ln2, ff = block.ln1, block.ln2, block.ff

        def attn(h: torch.Tensor) -> torch.Tensor:
            return block.attn(h)[0]  # [B, T, C] -> [B, T, C]

        mid = x + attn(ln1(x))  # [B, T, C]
        want = mid + ff(ln2(mid))  # [B, T, C]
        if torch.allclose(got, want, atol=1e-5):
            return passed(name)
        post = ln1(x + attn(x))  # the post-norm order: normalise after adding
        normed = ln1(x) + attn(ln1(x))  # the running x replaced by its normalised version
        both = ln2(normed)  # ... before each part
        plain = x + attn(x)  # no layer norm at all
        swapped = x + attn(ln2(x))  # ln2 where ln1 belongs
        found = attn(ln1(x))  # attention's output alone, without x
        outputs = x + ln1(attn(x))  # the layer norm on attention's output, not its input
        twice = x + mid  # x added twice in the first step
        inside = attn(x + ln1(x))  # x handed to the part with its layer norm, not added to the part's output
        first = x + ff(ln2(x))  # the feed-forward step before attention
        doubled = ("x was added twice in one step: each step adds its part's output onto x once, x = x + part, "
                   "not x + x + part.")
        replaced = ("x itself was replaced by its normalised version. Only the input handed to each part is "
                    "normalised; the running x is added to unchanged.")
        output_normed = ("the layer norm went on a part's output. It normalises what each part reads: "
                         "x + attn(ln1(x)), not x + ln1(attn(x)).")
        mistakes = [
            (ff(ln2(found)), "nothing is added back. Keep x and add each part's output onto it, in the two "
                             "steps section 4 writes out."),
            (ff(ln2(mid)), "the second add-back is missing: after attention, x = x + ff(ln2(x)), not ff(ln2(x)) "
                           "alone, which drops the x that attention's findings were added to."),
            (found + ff(ln2(found)), "the first add-back is missing: x = x + attn(ln1(x)), not attention's output "
                                     "alone, which drops each word's own vector."),
            (mid, "the feed-forward step is missing: after attention comes section 4's second step."),
            (x + ff(ln2(x)), "the attention step is missing: section 4's first step comes before the "
                             "feed-forward part."),
            (mid + ff(ln2(x)), "the feed-forward part read the old x. It should see x after attention's findings "
                               "were added: update x first, then x = x + ff(ln2(x))."),
            (want + mid, doubled),
            (ff(inside + ln2(inside)), "x went into the part's input, as x + ln1(x). A part reads only its layer "
                                       "norm's output, and what it gives is added onto x: x = x + attn(ln1(x))."),
            (x + ff(found), "the feed-forward part read attention's output alone. Add that onto x first, "
                            "x = x + attn(ln1(x)), then give the feed-forward part ln2 of the new x."),
            (first + attn(ln1(first)), "the feed-forward step came first. Attention comes first: it gathers from "
                                       "the words, then the feed-forward part works on what each word gathered."),
            (twice + ff(ln2(twice)), doubled),
            (normed + ff(ln2(normed)), replaced),
            (both + ff(both), replaced),
            (outputs + ln2(ff(outputs)), output_normed),
            (outputs + ff(ln2(outputs)), output_normed),
            (mid + ln2(ff(mid)), output_normed),
            (ln2(post + ff(post)), "that is the older post-norm order (normalise after adding). This block "
                                   "normalises the input of each part instead: x + attn(ln1(x))."),
            (plain + ff(plain), "the layer norms are missing: hand block.ln1(x) to attention and block.ln2(x) "
                                "to the feed-forward part."),
            (mid + ff(mid), "the feed-forward part got x without its layer norm: hand it block.ln2(x)."),
            (plain + ff(ln2(plain)), "attention got x without its layer norm: hand it block.ln1(x)."),
            (swapped + ff(ln1(swapped)), "ln1 and ln2 are swapped: ln1 goes before attention, ln2 before the "
                                         "feed-forward part."),
            (mid + ff(ln1(mid)), "the feed-forward part got block.ln1(x): each part has its own layer norm, and "
                                 "the feed-forward part's is block.ln2."),
            (ln2(want), "the result went through block.ln2 at the end. A block returns x after the two add-backs, "
                        "with no layer norm after them (the model's last one, ln_f, sits after all the blocks)."),
        ]
        for wrong, reason in mistakes:
            expect(not torch.allclose(got, wrong, atol=1e-5), f"{name}: {reason}")
    expect_close(name, got, want, "the new x (section 4's two steps, in order)")
    return passed(name)


def _reference_count(width: int, heads: int) -> int:
    with torch.device("meta"):  # shapes only: nothing is allocated, so even width 768 is instant
        return count_parameters(TransformerBlock(width, heads))


def check_count_block_parameters(count: Callable[[int, int], int]) -> bool:
    """count(width, heads): learnable numbers in one block (attention with output mix, 2 layer norms, FF 4x)."""
    name = "count_block_parameters"
    count = arithmetic_only(name, count)
    done, got = attempt(name, count, 128, 4)
    if not done:
        return False
    expect_whole(name, got)
    expect(len({count(width, heads) for width, heads in ((128, 4), (64, 8), (768, 12))}) > 1,
           f"{name} gives {got:,} for widths 128, 64 and 768 alike: it does not depend on the argument width "
           "(a typed-in width, or a layer the notebook built). Count with the argument width, so that the function "
           "works for any block.")
    for width, heads in ((128, 4), (64, 8), (96, 3), (768, 12)):
        got, want = count(width, heads), _reference_count(width, heads)
        if got == want:
            continue
        w = width
        attention, norms, ff = 4 * w * w + w, 4 * w, 8 * w * w + 5 * w
        expect(got != attention + ff,  # the same total as leaving out ff.up's bias
               f"{name}({width}, {heads}): {4 * width:,} short. Left out: either the two layer norms (each a scale "
               f"and a shift per number: 2 x {width}) or ff.up's bias ({4 * width} numbers, one per output).")
        bias = f"a bias of {width} numbers (ff.down's, or the output projection's: one per output)"
        expect(got != want - w, f"{name}({width}, {heads}): {width} short. Left out: {bias}.")
        expect(got != attention + 2 * w + ff,
               f"{name}({width}, {heads}): {2 * width} short. Left out: either half of the layer norms (each has a "
               f"scale AND a shift for every number, 2 x {width}, and there are two) or both biases of {width} "
               "numbers, ff.down's and the output projection's.")
        expect(got != want - 6 * w,
               f"{name}({width}, {heads}): {6 * width} short. Left out: every bias of the linear layers, it seems: "
               f"the output projection's ({width}), ff.up's ({4 * width}) and ff.down's ({width}).")
        expect(got != attention + norms + 8 * w * w,
               f"{name}({width}, {heads}): {5 * width} short. Left out: either the feed-forward layers' biases "
               f"({4 * width} for the first, {width} for the second) or the two layer norms and {bias}.")
        expect(got != attention + 6 * w + ff,
               f"{name}({width}, {heads}): you counted three layer norms. A block has two, ln1 and ln2; the last "
               "one before the output layer (ln_f) belongs to the model around the blocks, not to a block.")
        expect(got != attention + 3 * w + norms + ff,
               f"{name}({width}, {heads}): {3 * width} too many. Either query, key and value got biases (they have "
               f"none; only the output projection has one, {width} numbers) or ff.down's bias was counted as "
               f"{4 * width} numbers: it has {width}, one per output.")
        expect(got != attention + norms + 4 * w * w + 3 * w,
               f"{name}({width}, {heads}): the feed-forward part widens to 4 x width = {4 * width}, not 2 x width.")
        expect(got != attention + norms + 2 * w * w + 2 * w,
               f"{name}({width}, {heads}): the feed-forward part widens to 4 x width = {4 * width} in the middle, "
               f"so its layers are {width} x {4 * width} and {4 * width} x {width}.")
        expect(got != 3 * w * w + norms + ff,
               f"{name}({width}, {heads}): the attention part also has its output projection that mixes the "
               f"heads: {width} x {width} weights plus {width} biases.")
        expect(got not in {heads * 3 * w * w + w * w + w + norms + ff, 3 * w * w // heads + w * w + w + norms + ff},
               f"{name}({width}, {heads}): the heads split the width: {heads} heads of {width} x {width // heads} make "
               f"query, key and value {width} x {width} each, the same count however many heads there are.")
        expect_same_for_any_heads(name, count, width, heads, want, "attention's four projections, the layer norms "
                                  "and the feed-forward part")
        expect(False, f"{name}({width}, {heads}) returned {got:,}: {off_by(got, want)}. Recount each part with "
                      "the argument width: attention's four projections (only the output projection has a bias), "
                      "the two layer norms, and the feed-forward part's two layers with their biases. To see which "
                      "part is off, run this in a scratch cell: b = TransformerBlock"
                      f"({width}, {heads}); [count_parameters(p) for p in (b.attn, b.ln1, b.ff)]; it prints the "
                      "counts of attention, of one layer norm (there are two) and of the feed-forward part, to "
                      "compare with yours.")
    return passed(name)


MADE_IN = {
    "words": "that makes `words`, `attn` and `ff` (section 1)",
    "width": "that makes `words`, `attn` and `ff` (section 1)",
    "attn": "that makes `words`, `attn` and `ff` (section 1)",
    "ff": "that makes `words`, `attn` and `ff` (section 1)",
    "block": "`block = TransformerBlock(...)` (section 4)",
    "h": "`block = TransformerBlock(...)` (section 4)",
    "feed_forward": "that starts with `def feed_forward` (exercise 1)",
    "block_step": "that starts with `def block_step` (exercise 2)",
    "count_block_parameters": "that starts with `def count_block_parameters` (exercise 3)",
    "models": "that makes `models` (section 5)",
    "corpus": "`corpus = story_corpus(...)` (section 6)",
    "SEED": "`corpus = story_corpus(...)` (section 6)",
    "runs": "that trains the three models (section 6)",
    "x": "that makes `words`, `attn` and `ff` (section 1)",
    "ln": "that makes `ln` (section 3)",
    "STEPS": "`corpus = story_corpus(...)` (section 6)",
    "BATCH": "`corpus = story_corpus(...)` (section 6)",
    "full": "`without, full = runs[...]` (section 6)",
}
"""For a NameError's advice (helpers.needs.explain_missing, called in the set-up cell): the cell of the
chapter that makes each name a later cell needs."""
