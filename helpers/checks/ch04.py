"""Checks for chapter 4 (multi-head attention): splitting the width into heads, merging, counting."""

from __future__ import annotations

import re
from collections.abc import Callable

import torch

from helpers.checks import (
    arithmetic_only,
    attempt,
    expect,
    expect_close,
    expect_one_tensor,
    expect_same_for_any_heads,
    expect_tensor,
    expect_whole,
    off_by,
    passed,
)
from helpers.model import attention_layer_size

_B, _T, _C, _H = 2, 5, 12, 3  # a small, lopsided example: every size different, so mix-ups show
_D = _C // _H


def _numbered() -> torch.Tensor:
    """[B, T, C] tensor whose entries say where they came from: batch*1000 + word*100 + column."""
    b = torch.arange(_B).view(_B, 1, 1) * 1000
    t = torch.arange(_T).view(1, _T, 1) * 100
    c = torch.arange(_C).view(1, 1, _C)
    return (b + t + c).float()


def _place(value: float) -> str:
    """Where a number of `_numbered()` came from, in words: "word 1's column 8" (with its batch when not 0)."""
    number = int(value)
    batch, word, column = number // 1000, number % 1000 // 100, number % 100
    return f"word {word}'s column {column}" + (f" of sentence {batch}" if batch else "")


def _misplaced(name: str, got: torch.Tensor, want: torch.Tensor) -> None:
    """Fail saying which number landed where, when `got` holds numbers of `_numbered()` in the wrong places;
    otherwise (numbers that are not the example's) show where and by how much, as expect_close does."""
    wrong, known = (got != want).nonzero(), set(want.flatten().tolist())
    if len(wrong) and all(value in known for value in got.flatten().tolist()):
        where = tuple(int(i) for i in wrong[0])
        raise AssertionError(
            f"{name}: the numbers are in the wrong places. The check's example holds, at every place, "
            "sentence*1000 + word*100 + column of the original x (so 108 is word 1's column 8). Where "
            f"{_place(float(want[where]))} belongs (index {list(where)}), you put {_place(float(got[where]))}.")
    expect_close(name, got, want, "the number at this place")


def _split(x: torch.Tensor, heads: int) -> torch.Tensor:
    B, T, C = x.shape
    return x.view(B, T, heads, C // heads).transpose(1, 2)  # [B, T, C] -> [B, H, T, D]


_SIZES = (f"The check uses its own small example, not the notebook's: x of shape [B, T, C] = {[_B, _T, _C]}, split "
          f"into {_H} heads. Read B, T and C from x.shape, and the head width from them: C // heads. Cut each "
          "word's C numbers, the last dimension, not the words")
_FLOAT = "C / heads is a float, and a size must be a whole number: C // heads is one"
_JOIN = ("read the sizes from y first (B, H, T, D = y.shape), then join each word's heads into one row of H * D "
         "numbers with .reshape (step 4 of section 1)")


def _shape_for(split_heads: Callable[[torch.Tensor, int], torch.Tensor], x: torch.Tensor, heads: int) -> tuple | None:
    """The shape split_heads(x, heads) returns, or None when it fails or returns no tensor."""
    try:
        got = split_heads(x.clone(), heads)
    except Exception:  # any failure here only means this probe says nothing
        return None
    return tuple(got.shape) if isinstance(got, torch.Tensor) else None


def check_split_heads(split_heads: Callable[[torch.Tensor, int], torch.Tensor]) -> bool:
    """split_heads(x [B, T, C], heads) must return [B, H, T, D] with head h holding columns h*D:(h+1)*D."""
    name = "split_heads"
    x = _numbered()
    done, got = attempt(name, split_heads, x.clone(), _H, errors=(RuntimeError, TypeError),
                        hint=lambda err: _FLOAT if "float" in str(err) else _SIZES)
    if not done:
        return False
    if isinstance(got, (tuple, list)) and got and all(isinstance(piece, torch.Tensor) for piece in got):
        raise AssertionError(f"{name} returned a {type(got).__name__} of {len(got)} tensors, one per head, as .chunk "
                             "and .split give: return one tensor [B, H, T, D], as view then transpose give (or "
                             "torch.stack the pieces along dim=1)")
    got = expect_one_tensor(name, got)
    expect(not torch.equal(got, x.view(_B, _T, _H, _D)),
           f"{name}: the cut is right but the heads are not in front yet. view(B, T, heads, C // heads) gave "
           f"{[_B, _T, _H, _D]}, that is [B, T, H, D]: each word's numbers cut into {_H} slices of {_D}, the "
           "heads still behind the words. Swap the word and head dimensions with .transpose(1, 2), as step 2 of "
           f"section 1 does: [B, H, T, D] = {[_B, _H, _T, _D]}, one small sentence per head.")
    if got.dim() == 4 and got.shape[1] != _H:
        expect({_shape_for(split_heads, x, heads) for heads in (2, 6)} != {tuple(got.shape)},
               f"{name} returned shape {list(got.shape)} when asked for {_H} heads, and the same when asked for 2 "
               "or 6: the head count is typed in. Use the argument heads (and C // heads for the head width), so "
               "that the function works for any model.")
    expect(tuple(got.shape) != (_B, _D, _T, _H),
           f"{name} returned shape {list(got.shape)}: {_H} numbers per head in {_D} heads, the view's last two "
           f"sizes the wrong way round. Cut into heads first, then the numbers inside a head, as the steps "
           "above do.")
    letters = {_B: "B", _H: "H", _T: "T", _D: "D"}  # the check's sizes all differ: a shape names its order
    order = f" (that is [{', '.join(letters[n] for n in got.shape)}])" if sorted(got.shape) == sorted(letters) else ""
    expect(tuple(got.shape) == (_B, _H, _T, _D),
           f"{name} returned shape {list(got.shape)}{order}, but "
           f"[B, H, T, D] is {[_B, _H, _T, _D]} here: {_B} sentences, {_H} heads, {_T} words, {_D} numbers per head")
    got = expect_tensor(name, got, (_B, _H, _T, _D))
    want = _split(x, _H)
    if not torch.equal(got, want):
        expect(not torch.equal(got, x.view(_B, _H, _T, _D)),
               f"{name}: you reshaped straight to [B, H, T, D]. That cuts the list of words into chunks "
               "instead of cutting each word's numbers into slices. Cut each word's numbers first, [B, T, H, D], "
               "then swap the word and head dimensions.")
        expect(not torch.equal(got, x.view(_B, _T, _D, _H).permute(0, 3, 1, 2)),
               f"{name}: head 0 got one number out of every {_H} (columns 0, {_H}, {2 * _H}, ...) instead of "
               f"one slice of neighbours (columns 0..{_D - 1}). Cut into heads first, then the numbers inside a "
               "head.")
        _misplaced(name, got, want)
    for heads in (1, _C):
        expect_tensor(f"{name} with heads={heads}", split_heads(x, heads), (_B, heads, _T, _C // heads))
    return passed(name)


def check_merge_heads(merge_heads: Callable[[torch.Tensor], torch.Tensor]) -> bool:
    """merge_heads(y [B, H, T, D]) must undo split_heads: [B, T, H*D] with the heads side by side."""
    name = "merge_heads"
    x = _numbered()
    y = _split(x, _H).contiguous()  # [B, H, T, D] stored in its own order, as att @ v returns it
    try:
        done, got = attempt(name, merge_heads, y.clone())
    except RuntimeError as err:
        expect("view" not in str(err),
               f"{name} stopped with an error ({str(err).strip().splitlines()[0].rstrip('.')}). After "
               ".transpose(1, 2) the numbers are no longer stored in row order, so .view() cannot reinterpret "
               "them; real attention output (att @ v) is always in this state. Use .reshape, which copies when "
               "it has to (or .contiguous() before .view).")
        asked = re.search(r"shape '(\[[-\d, ]*\])' is invalid for input of size (\d+)", str(err))
        sizes = {int(size) for size in re.findall(r"-?\d+", asked[1])} if asked else set()
        expect(asked is None or bool(sizes - {_B, _H, _T, _D, _C, -1}),  # a size not the check's: typed in
               f"{name}: you asked for shape {asked and asked[1]}, but y holds {asked and asked[2]} numbers and "
               f"every one stays: [B, T, H*D] keeps all {_H} heads of {_D} numbers for each word.")
        raise AssertionError(
            f"{name} stopped with an error ({str(err).strip().splitlines()[0].rstrip('.')}). The check merges its "
            f"own small example, y of shape [B, H, T, D] = {[_B, _H, _T, _D]}, not the notebook's: read all four "
            "sizes from y.shape (B, H, T, D = y.shape) instead of typing them in.") from err
    if not done:
        return False
    got = expect_one_tensor(name, got)
    expect(tuple(got.shape) != (_B, _H, _T, _D),
           f"{name}: the result still has shape {list(got.shape)}; the heads should be put back side by side "
           f"as one row of {_C} numbers per word: [B, T, H*D] = {[_B, _T, _C]}")
    expect(tuple(got.shape) != (_B, _T, _H, _D),
           f"{name}: the heads are behind the words now, [B, T, H, D] = {list(got.shape)} for the check's own "
           "small y, but still apart: "
           f"{_JOIN}, giving {[_B, _T, _C]}.")
    expect(tuple(got.shape) == (_B, _T, _C),
           f"{name} returned shape {list(got.shape)}, but [B, T, H*D] is {[_B, _T, _C]} here: {_B} sentences, "
           f"{_T} words, {_H} heads of {_D} numbers side by side")
    got = expect_tensor(name, got, (_B, _T, _C))
    if not torch.equal(got, x):
        expect(not torch.equal(got, y.reshape(_B, _T, _C)),
               f"{name}: you reshaped [B, H, T, D] straight to [B, T, C] without moving the head dimension back "
               "behind the words first, so each row mixes several words' numbers. Step 4 of section 1 shows the "
               "order of the two moves.")
        expect(not torch.equal(got, y.permute(0, 2, 3, 1).reshape(_B, _T, _C)),
               f"{name}: the heads ended up interleaved: each word's row takes number 0 of every head, then number "
               f"1 of every head, and so on (column {_D} of x, head 1's first number, lands at place 1). Keep each "
               "head's numbers together: move only the heads behind the words, [B, T, H, D]; joining them then "
               "lays the heads side by side.")
        expect(not torch.equal(got, y.transpose(2, 3).reshape(_B, _T, _C)),
               f"{name}: you swapped dimensions 2 and 3 (a head's words with its numbers), so each word's row got "
               "one number from every word. Swap the heads with the words instead, dimensions 1 and 2.")
        _misplaced(name, got, x)
    expect(torch.equal(merge_heads(_split(x, 1).contiguous()), x), f"{name}: with a single head it should give x back")
    return passed(name)


def check_count_attention_parameters(count: Callable[[int, int], int]) -> bool:
    """count(width, heads): learnable numbers in one attention layer, output projection included."""
    name = "count_attention_parameters"
    count = arithmetic_only(name, count)
    done, got = attempt(name, count, 128, 4)
    if not done:
        return False
    expect_whole(name, got)
    expect(len({count(width, heads) for width, heads in ((128, 4), (64, 8), (768, 12))}) > 1,
           f"{name} gives {got:,} for widths 128, 64 and 768 alike: it does not depend on the argument width "
           "(a typed-in width, or a layer the notebook built). Count with the argument width, so that the function "
           "works for any layer.")
    for width, heads in ((128, 4), (128, 1), (64, 8), (768, 12)):
        got = count(width, heads)
        want = attention_layer_size(width, heads)["attention_params"]
        qkv, proj = 3 * width * width, width * width + width
        if got == want:
            continue
        expect(got != heads * qkv + proj,
               f"{name}({width}, {heads}): you multiplied the query/key/value matrices by the number of "
               f"heads. The heads split the width {width} into {heads} slices of {width // heads}; they do "
               f"not each get a full copy. Query, key and value stay {width} x {width} each.")
        expect(not (got == qkv and heads == 1),
               f"{name}({width}, 1): you left the output projection out for a single head. The course's one-head "
               "model does that (one head has nothing to mix: see 'Why one head can do without the output "
               "projection', further down), but this exercise counts the layer helpers.MultiHeadAttention(width, "
               "heads) builds, which has its output projection whatever the number of heads: count it for heads=1 "
               "too.")
        expect(got != 3 * heads * (width // heads) ** 2 + proj,
               f"{name}({width}, {heads}): you gave each head its own D x D matrices ({width // heads} x "
               f"{width // heads}), or counted a single head's D x C slice ({width // heads} x {width}): both come "
               f"to the same. A head's queries are a D x C slice of the one C x C query matrix, one slice per head: "
               f"its {width // heads} output numbers each read all {width} input numbers. So query, key and value "
               f"stay {width} x {width} each, whatever the head count.")
        other = count(width, 2 if heads == 1 else 1)  # biases do not depend on the head count; a sum that does is
        expect(not (got == qkv + 3 * width + proj and other == got),  # another mistake that happens to match here
               f"{name}({width}, {heads}): you gave query, key and value biases, but they have no biases "
               f"(bias=False in section 1); only the output projection has one, {width} numbers.")
        expect(got != qkv,
               f"{name}({width}, {heads}): you counted query, key and value ({qkv:,}) but forgot the output "
               "projection that mixes the heads (step 5 of section 1): count its weights and its biases too.")
        expect(got != qkv + width * width,
               f"{name}({width}, {heads}): almost: the output projection also has a bias, one number per "
               f"output ({width} of them, one per row of its weight matrix).")
        expect_same_for_any_heads(name, count, width, heads, want, "query, key, value and the output projection")
        expect(False, f"{name}({width}, {heads}) returned {got:,}: {off_by(got, want)}. Recount each part with "
                      "the argument width: the query, key and value projections (no biases) and the output "
                      "projection that mixes the heads (with its bias).")
    return passed(name)


MADE_IN = {
    "x": "that makes `words` and `x` (section 1)",
    "query": "under the heading 'Step 1: project' (section 1)",
    "q": "under the heading 'Step 1: project' (section 1)",
    "q_heads": "under the heading 'Step 2: split into heads' (section 1)",
    "k_heads": "under the heading 'Step 2: split into heads' (section 1)",
    "att": "under the heading 'Step 3: every head matches on its own' (section 1)",
    "y_cat": "under the heading 'Step 4: concatenate' (section 1)",
    "split_heads": "that starts with `def split_heads` (exercise 1, section 2)",
    "merge_heads": "that starts with `def merge_heads` (exercise 2, section 2)",
    "att_ours": "that defines and runs `multi_head_attention` (section 3)",
    "count_attention_parameters": "that starts with `def count_attention_parameters` (exercise 3)",
    "one": "'one, four = course_model(...)' (section 4)",
    "width": "'width, heads = 128, 4' (section 1)",
    "heads": "'width, heads = 128, 4' (section 1)",
    "head_width": "'width, heads = 128, 4' (section 1)",
    "words": "that makes `words` and `x` (section 1)",
    "B": "that makes `words` and `x` (section 1)",
    "T": "that makes `words` and `x` (section 1)",
    "key": "under the heading 'Step 1: project' (section 1)",
    "value": "under the heading 'Step 1: project' (section 1)",
    "k": "under the heading 'Step 1: project' (section 1)",
    "v": "under the heading 'Step 1: project' (section 1)",
    "proj": "under the heading 'Step 1: project' (section 1)",
    "v_heads": "under the heading 'Step 2: split into heads' (section 1)",
    "rows": "under the heading 'Step 2: split into heads' (section 1)",
    "h": "under the heading 'Step 2: split into heads' (section 1)",
    "y_ours": "'multi_head_attention(...)' (section 3)",
    "y_helper": "'helper_layer = MultiHeadAttention(...)' (section 3)",
    "att_helper": "'helper_layer = MultiHeadAttention(...)' (section 3)",
    "y_torch": "'torch_layer = nn.MultiheadAttention(...)' (section 3)",
    "att_torch": "'torch_layer = nn.MultiheadAttention(...)' (section 3)",
    "four": "'one, four = course_model(...)' (section 4)",
    "n_one": "'one, four = course_model(...)' (section 4)",
    "n_four": "'one, four = course_model(...)' (section 4)",
    "trained": "'trained = load_model(...)' (section 6)",
    "trained_att": "'trained = load_model(...)' (section 6)",
    "sentence": "'trained = load_model(...)' (section 6)",
    "story_words": "'trained = load_model(...)' (section 6)",
}
"""For a NameError's advice (helpers.needs.explain_missing, called in the set-up cell): the cell of the
chapter that makes each name a later cell needs."""
