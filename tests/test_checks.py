"""The exercise checks (helpers/checks, found by name) and how a chapter calls them: solutions pass, stubs are
"not attempted", every wrong answer in WRONG gets a message naming its mistake; yours_or_reference keeps a right
answer, else hands on the solution, leaving the learner's function alone, and never raises."""

import importlib
import inspect
import json
import math
import pkgutil
from functools import lru_cache

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import helpers.checks
from helpers.attention import MultiHeadAttention, causal_mask
from helpers.block import TransformerBlock
from helpers.checkpoints import ASSETS
from helpers.checks import LINE, OUTCOMES, SOLUTIONS_OFF, say, solution, solution_in_use, todo, yours_or_reference
from helpers.checks.ch03 import SMILES_SENTENCE
from helpers.checks.ch05 import FOUR_HEADS, NO_CLEAR_WINNER, ONE_HEAD, winner
from helpers.checks.ch06 import watched_most
from helpers.checks.solutions import SOLUTIONS
from helpers.evaluate import attention_on_clues
from helpers.model import course_model
from helpers.static import STATIC_ENV
from helpers.stories import CLUE_KINDS

CHECKS = {
    name.removeprefix("check_"): fn
    for module in pkgutil.iter_modules(helpers.checks.__path__) if module.name.startswith("ch")
    for name, fn in inspect.getmembers(importlib.import_module(f"helpers.checks.{module.name}"), inspect.isfunction)
    if name.startswith("check_") and fn.__module__ == f"helpers.checks.{module.name}"
}
S = SOLUTIONS  # short, for the table below
MEASURED = [{"head": h, "val_ppl": 3.0, "clue_accuracy": dict.fromkeys(CLUE_KINDS, acc)}  # chapter 6's ablation rows
            for h, acc in enumerate((0.6, 0.5, 0.3, 0.7))]


@lru_cache(maxsize=1)
def detectives() -> tuple:
    """What chapter 6's naming check needs besides the learner's function: the trained model and its stories."""
    from helpers.checkpoints import load_model
    from helpers.corpus import story_validation

    ids, clues = story_validation(40)
    return load_model("four_heads"), ids, clues


RUNS = json.loads((ASSETS / "results.json").read_text())["table"]["runs"]  # the benchmark's, as chapter 5 hands on
# the extra arguments a chapter hands a check, ARGS.get(name, tuple)() (chapters 5 and 6 hand some)
ARGS = {"name_the_detectives": detectives, "lifeline": lambda: (MEASURED,), "clear_winner": lambda: (RUNS,)}


def stub(*given: object) -> None:
    todo()


def handed_on(name: str, capsys: pytest.CaptureFixture[str], why: str = "right") -> str:
    """Printed words as one line (a wrapped term reads whole); each line fits, the last hands on the reference."""
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"Using the reference {name} from helpers, since yours is not {why} yet."
    assert all(len(line) <= LINE for line in out.splitlines())
    return " ".join(out.split())


def test_every_exercise_has_one_solution_one_check_that_returns_bool_and_wrong_answers_in_the_table() -> None:
    assert set(SOLUTIONS) == set(CHECKS) == {name for name, _, _ in WRONG}
    assert all(inspect.signature(check).return_annotation in (bool, "bool") for check in CHECKS.values())


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_every_solution_passes_and_every_stub_is_not_attempted(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    extra = ARGS.get(name, tuple)()
    state = torch.get_rng_state()
    assert CHECKS[name](SOLUTIONS[name], *extra) is True
    assert torch.equal(torch.get_rng_state(), state), "the check changed the learner's random seed"
    assert f"{name}: correct" in capsys.readouterr().out and CHECKS[name](stub, *extra) is False
    handed = yours_or_reference(CHECKS[name], stub, *extra)
    assert handed is SOLUTIONS[name], "never raises, hands on the reference"
    assert (helpers.checks.whose(handed), helpers.checks.whose(stub)) == ("the reference", "your")
    words = handed_on(name, capsys, "finished")
    assert "not attempted yet" in words and "correct" not in words


def test_a_page_or_slide_says_what_the_check_does_in_the_notebook(monkeypatch, capsys) -> None:
    monkeypatch.setenv(STATIC_ENV, "1")  # a site or slide build: nobody can fill the stub in
    assert yours_or_reference(CHECKS["softmax"], stub) is SOLUTIONS["softmax"]
    out = " ".join(capsys.readouterr().out.split())
    assert "in the notebook, your code goes in the stub above" in out and "goes on with the reference softmax" in out
    assert "not attempted" not in out and "Using the reference" not in out, out


def test_code_written_below_the_stubs_todo_line_is_told_to_delete_that_line(capsys: pytest.CaptureFixture[str]) -> None:
    def softmax(scores):
        todo()
        return S["softmax"](scores)

    assert yours_or_reference(CHECKS["softmax"], softmax) is S["softmax"]
    assert "below the stub's todo() line" in handed_on("softmax", capsys)


# Chapter 2's one head, built from pieces so that each mistake is made on purpose
def head_with(scores=lambda q, k: q @ k.T / q.shape[-1] ** 0.5, weights=S["masked_weights"], out="v"):
    def one_head(x, query, key, value):
        q, k, v = query(x), key(x), value(x)
        att = weights(scores(q, k))
        return att @ {"q": q, "k": k, "v": v}[out], att

    return one_head


def causal(scores, mask=None, dim=-1):
    return torch.softmax(scores.masked_fill(~(causal_mask(len(scores)) if mask is None else mask), -math.inf), dim=dim)


def attn(b, h):
    return b.attn(h)[0]


RIGHT_CLUES = S["clues_for_smiles"](SMILES_SENTENCE.split())


def ff_of(w):
    return 8 * w * w + 5 * w


def by_rule(rule):
    """A clear_winner answering rule(gap, one, four): one's mean perplexity minus four's, and both as tensors."""
    def clear_winner(runs):
        one, four = (torch.tensor([r["val_ppl"] for r in runs if r["heads"] == h]) for h in (1, 4))
        return rule(one.mean() - four.mean(), one, four)

    return clear_winner


def spread(ppl):
    return ppl.max() - ppl.min()


def ahead(gap, margin=-1.0):
    """The model with the lower mean perplexity, or no clear winner when the gap is no larger than the margin."""
    return NO_CLEAR_WINNER if abs(gap) <= margin else FOUR_HEADS if gap > 0 else ONE_HEAD


WRONG = [  # (exercise, a wrong answer, the words of the check's message that name the mistake)
    ("weighted_average", lambda w, v: w[:, None] * v, "did not add the words up"),
    ("weighted_average", lambda w, v: [w[i] * v[i] for i in range(len(w))], "got a list of 3 tensors: torch.stack"),
    ("weighted_average", lambda w, v: v.mean(dim=0), "plain average"),
    ("weighted_average", lambda w, v: v.sum(dim=0), "plain sum of the words, which ignores the weights"),
    ("weighted_average", lambda w, v: w @ v / len(w), "divided by the number of words"),
    ("weighted_average", lambda w, v: (w[:, None] * v).sum(dim=1), "added up each word's own numbers (dim=1"),
    ("weighted_average", lambda w, v: (w * v).sum(dim=0), "Make the weights a column first: weights[:, None]"),
    ("weighted_average", lambda w, v: v @ w, "with @ the order matters"),
    ("weighted_average", lambda w, v: w[:, None] @ v, "a column of weights, [3, 1], does not go with @"),
    ("weighted_average", lambda w, v: w @ v.T, "values.T has shape [2, 3]: turning values round"),
    ("weighted_average", lambda w, v: (w[:, None] * v).sum(), "added up everything"),
    ("weighted_average", lambda w, v: w @ v + 0.5, "differs from the reference"),
    ("softmax", lambda s: s, "negative weight"), ("softmax", lambda s: s.exp(), "divide each exp(score) by the total"),
    ("softmax", lambda s: s.exp() / s.exp().sum(), "each row must add up to 1"),
    ("softmax", lambda s: (lambda e: e / e.sum())(torch.tensor([math.exp(v - max(s)) for v in s])),
     "works on one row of scores but not on a grid"),
    ("softmax", lambda s: s.exp() / s.exp().sum(dim=-1, keepdim=True), "Subtract the LARGEST score of each row"),
    ("softmax", lambda s: (e := s.exp()) / e.sum(dim=0, keepdim=True), "the softmax ran over dim=0"),
    ("softmax", lambda s: torch.softmax(s, dim=-1), "calls PyTorch's own softmax (torch.softmax)"),
    ("softmax", lambda s: s.softmax(-1), "calls PyTorch's own softmax (.softmax())"),
    ("softmax", lambda s: s.exp() / s.exp().sum(dim=-1), "Add keepdim=True"),
    ("softmax", lambda s: s.tolist(), "should return a torch tensor"),
    ("scaled_scores", lambda q, k: q @ k.T, "divide them by sqrt(D)"),
    ("scaled_scores", lambda q, k: q @ k / q.shape[-1] ** 0.5, "turn k on its side, as .T does"),
    ("scaled_scores", lambda q, k: q @ k.T / q.shape[-1], "divide by its square root"),
    ("scaled_scores", lambda q, k: k @ q.T / q.shape[-1] ** 0.5, "rows and columns swapped"),
    ("scaled_scores", lambda q, k: q @ k.T / 4, "with D = q.shape[-1]"),
    ("scaled_scores", lambda q, k: q.T @ k, "q.T @ k multiplies over the words"),
    ("scaled_scores", lambda q, k: (q * k).sum(dim=-1) / q.shape[-1] ** 0.5, "met only its own word's key"),
    ("scaled_scores", lambda q, k: q @ k.T / q.shape[0] ** 0.5, "square root of the number of words"),
    ("scaled_scores", lambda q, k: q @ k.T / torch.sqrt(q.shape[-1]), "with ** 0.5"),
    ("masked_weights", lambda s: torch.softmax(s, dim=-1), "peeking at the future"),
    ("masked_weights", lambda s: torch.softmax(s.masked_fill(~causal_mask(len(s)).T, -math.inf), -1), "earlier words"),
    ("masked_weights", lambda s: torch.softmax(s.masked_fill(~causal_mask(len(s)), 0.0), dim=-1), "exp(0) = 1"),
    ("masked_weights", lambda s: torch.softmax(s, dim=-1) * causal_mask(len(s)), "before the softmax, not after"),
    ("masked_weights", lambda s: causal(s, causal_mask(len(s)).tril(-1)), "the diagonal"),  # -inf: row 0 NaN
    ("masked_weights", lambda s: torch.softmax(s.masked_fill(~causal_mask(len(s)).tril(-1), -1e9), -1), "the diagonal"),
    ("masked_weights", lambda s: causal(s, dim=0), "the softmax ran over dim=0"),
    ("masked_weights", lambda s: torch.softmax(s.masked_fill(torch.ones(len(s), len(s)).triu(1), -math.inf), dim=-1),
     "build it with dtype=torch.bool"),
    ("masked_weights", lambda s: torch.softmax(s.masked_fill(1 - causal_mask(len(s)), -math.inf), dim=-1),
     "write ~mask, not 1 - mask"),
    ("masked_weights", lambda s: causal(s, ~causal_mask(len(s))), "the mask is the wrong way round"),
    ("masked_weights", lambda s: causal(s, causal_mask(9)), "Use causal_mask(scores.shape[-1])"),
    ("masked_weights", lambda s: s.masked_fill(~causal_mask(len(s)), -math.inf), "finish with a softmax"),
    ("one_head", head_with(lambda q, k: q @ k.T), "forgot to scale"),
    ("one_head", head_with(lambda q, k: k @ q.T / q.shape[-1] ** 0.5), "swapped queries and keys"),
    ("one_head", head_with(weights=lambda s: torch.softmax(s, dim=-1)), "left out the mask"),
    ("one_head", head_with(weights=lambda s: s), "scores, not weights"),
    ("one_head", head_with(weights=lambda s: torch.softmax(s.masked_fill(~causal_mask(len(s)), 0), -1)), "fill of 0"),
    ("one_head", head_with(out="k"), "averaged the keys"),
    ("one_head", lambda x, q, k, v: (lambda y, att: (v(x) @ att, att))(*head_with()(x, q, k, v)), "wrong way round"),
    ("one_head", lambda x, q, k, v: (lambda y, att: (v(x).T @ att, att))(*head_with()(x, q, k, v)), "wrong way round"),
    ("one_head", lambda x, query, key, value: head_with()(x, query, query, value), "from query(x) and query(x)"),
    ("one_head", head_with(lambda q, k: q @ k.T / q.shape[-1]), "by D = 3 itself"),
    ("one_head", lambda x, q, k, v: head_with()(x, q, k, v)[0], "should return two things, (y, att)"),
    ("one_head", lambda x, q, k, v: head_with()(x, q, k, v)[::-1], "the order is (y, att)"),
    ("one_head", head_with(lambda q, k: q @ k.T / 8**0.5), "not the notebook's"),
    ("one_head", lambda x, q, k, v: head_with(lambda a, b: a @ b.T / x.shape[-1] ** 0.5)(x, q, k, v),
     "sqrt(C) = sqrt(6), the width of a word vector"),
    ("clues_for_smiles", lambda words: [3, 0, 8], "should return a dict"),
    ("clues_for_smiles", lambda words: {"subject": 3, "mood": 0}, "missing 'previous'"),
    ("clues_for_smiles", lambda words: {**RIGHT_CLUES, 1: 2}, "not one of them: 1"),
    ("clues_for_smiles", lambda words: {"Subject": 3, "mood": 0, "previous": 8}, "'Subject' should be 'subject'"),
    ("clues_for_smiles", lambda words: {**RIGHT_CLUES, "subject": "fox"}, "a position (a whole number)"),
    ("clues_for_smiles", lambda words: {k: v + 1 for k, v in RIGHT_CLUES.items()}, "one too high"),
    ("clues_for_smiles", lambda words: {**RIGHT_CLUES, "subject": 8}, "the nearest noun"),
    ("clues_for_smiles", lambda words: {**RIGHT_CLUES, "mood": 1}, "how the fox feels"),
    ("clues_for_smiles", lambda words: {**RIGHT_CLUES, "previous": 7}, "the word right before"),
    ("clues_for_smiles", lambda words: {**RIGHT_CLUES, "previous": 9}, "is 'smiles' itself"),
    ("clues_for_smiles", lambda words: {**RIGHT_CLUES, "previous": 10}, "comes after 'smiles'"),
    ("clues_for_smiles", lambda words: {**RIGHT_CLUES, "mood": 11}, "outside the sentence"),
    ("clue_share", lambda w, p: w[:, p].mean(dim=-1), "took the average"),
    ("clue_share", lambda w, p: w[p].sum(dim=-1), "picked rows (heads)"),
    ("clue_share", lambda w, p: w[p], "the rows (heads) [1, 3] of the weights, whole"),
    ("clue_share", lambda w, p: w[:, p].sum(dim=0), "one number per clue position"),
    ("clue_share", lambda w, p: w.sum(dim=0), "added up the heads"),
    ("clue_share", lambda w, p: w[0, p].sum(), "head 0's total"),
    ("clue_share", lambda w, p: 100 * w[:, p].sum(dim=-1), "as a fraction"),
    ("clue_share", lambda w, p: torch.stack([w[h, p].sum() for h in range(4)]), "head count is typed in"),
    ("clue_share", lambda w, p: w[:4, p].sum(dim=-1) if len(w) > 3 else torch.zeros(4), "head count is typed in"),
    ("clue_share", lambda w, p: w[:, p].sum(dim=-1).tolist(), "should return a torch tensor"),
    ("clue_share", lambda w, p: [w[h, p].sum() for h in range(len(w))], "makes them one tensor of shape [4]"),
    ("split_heads", lambda x, heads: x.chunk(heads, dim=-1), "a tuple of 3 tensors, one per head"),
    ("split_heads", lambda x, h: x.view(x.shape[0], h, x.shape[1], -1), "reshaped straight to [B, H, T, D]"),
    ("split_heads", lambda x, h: x.view(*x.shape[:2], -1, h).permute(0, 3, 1, 2), "one number out of every 3"),
    ("split_heads", lambda x, h: x.view(*x.shape[:2], h, -1), "dimensions with .transpose(1, 2)"),
    ("split_heads", lambda x, h: x.view(*x.shape[:2], 4, -1).transpose(1, 2), "head count is typed in"),
    ("split_heads", lambda x, h: x.view(*x.shape[:2], h, 32).transpose(1, 2), "C // heads"),
    ("split_heads", lambda x, h: x.view(1, 9, h, -1).transpose(1, 2), "Read B, T and C from x.shape"),
    ("split_heads", lambda x, h: x.view(*x.shape[:2], h, -1).transpose(2, 3), "(that is [B, T, D, H])"),
    ("split_heads", lambda x, h: x.view(*x.shape[:2], h, x.shape[-1] / h).transpose(1, 2), "C / heads is a float"),
    ("split_heads", lambda x, h: S["split_heads"](x, h).numpy(), "should return a torch tensor"),
    ("merge_heads", lambda y: y, "still has shape"),
    ("merge_heads", lambda y: y.transpose(1, 2), "but still apart: read the sizes from y first"),
    ("merge_heads", lambda y: y.reshape(y.shape[0], y.shape[2], -1), "without moving the head dimension"),
    ("merge_heads", lambda y: y.transpose(1, 2).view(y.shape[0], y.shape[2], -1), "Use .reshape, which copies"),
    ("merge_heads", lambda y: y.transpose(1, 2).reshape(y.shape[0], y.shape[2], 128), "read all four sizes"),
    ("merge_heads", lambda y: y.transpose(1, 2).reshape(*y.shape[:1], y.shape[2], y.shape[3]), "every one stays"),
    ("merge_heads", lambda y: y.transpose(1, 2).reshape(y.shape[0], -1), "3 heads of 4 numbers side by side"),
    ("count_attention_parameters", lambda w, h: 4 * w * w + w * h, "other head counts give other totals"),
    ("count_attention_parameters", lambda w, h: h * 3 * w * w + w * w + w, "multiplied the query/key/value"),
    ("count_attention_parameters", lambda w, h: 3 * w * w, "forgot the output projection"),
    ("count_attention_parameters", lambda w, h: None, "return missing"),
    ("count_attention_parameters", lambda w, h: 3 * w * w + (w * w + w) * (h > 1), "out for a single head"),
    ("count_attention_parameters", lambda w, h: 4 * w * w, "also has a bias"),
    ("count_attention_parameters", lambda w, h: 65_664, "a typed-in width"),
    ("count_attention_parameters", lambda w, h: float(4 * w * w + w), "written as a decimal (a / makes one)"),
    ("count_attention_parameters", lambda w, h: str(4 * w * w + 4 * w), "a whole number (int), got str"),
    ("perplexity_from_losses", lambda x: x.mean().item(), "the average loss itself"),
    ("perplexity_from_losses", lambda x: x.exp().mean().item(), "exponential of every loss"),
    ("perplexity_from_losses", lambda x: x.sum().item(), "added the losses up"),
    ("perplexity_from_losses", lambda x: 1 / (-x).exp().mean().item(), "averaged the probabilities"),
    ("perplexity_from_losses", lambda x: x.mean().exp().item, "returned a method, not its result"),
    ("perplexity_from_losses", lambda x: math.exp(x.sum().item()), "before the exponential"),
    ("perplexity_from_losses", lambda x: 2 ** x.mean().item(), "raised 2"),
    ("perplexity_from_losses", lambda x: math.exp(-x.mean().item()), "the sign is flipped"),
    ("perplexity_from_losses", lambda x: x.exp(), "average the losses before taking the exponential"),
    ("perplexity_from_losses", lambda x: x.mean().exp(), "the task asks for a number"),
    ("perplexity_from_losses", lambda x: str(math.exp(x.mean().item())), "should return a number"),
    ("perplexity_from_losses", lambda x: math.exp(x.mean().item()) if len(x) > 6 else 3.0, "a perplexity of 4"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(-gap, max(spread(one), spread(four)))),
     "lower perplexity is better"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap)), "no larger than the range over the seeds"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap, min(spread(one), spread(four)))),
     "compare the gap with the wider"),
    ("clear_winner", lambda runs: NO_CLEAR_WINNER, "so the answer is 'four heads'. It answered 'no clear winner'"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap, spread(one) + spread(four))), "not with their sum"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap, spread(four))), "four heads' range alone"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap, spread(one))), "one head's range alone"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap, 2 * max(one.std(), four.std()))), "standard deviation"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap, max(spread(one), spread(four)) / 2)), "half the wider"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap, (spread(one) + spread(four)) / 2)), "averages the two"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(one.sum() - four.sum(), max(spread(one), spread(four)))),
     "the sums of the perplexities"),
    ("clear_winner", lambda runs: FOUR_HEADS, "'four heads' for every made-up example"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap * len(one) / 3, max(spread(one), spread(four)))), "O ("),
    ("clear_winner", by_rule(lambda gap, one, four: FOUR_HEADS if four.max() < one.min() else ONE_HEAD
                             if one.max() < four.min() else NO_CLEAR_WINNER), "do not overlap"),
    ("clear_winner", lambda runs: "four", "should return one of"),
    ("clear_winner", lambda runs: runs[0]["ppl"], "the keys 'heads', 'seed', 'val_ppl'"),
    ("name_the_detectives", lambda board: list(watched_most(board).values()), "should return a dict"),
    ("name_the_detectives", lambda board: {k: h for h, k in watched_most(board).items()}, "Turn it round"),
    ("name_the_detectives", lambda board: {h: max(CLUE_KINDS, key=lambda k: board[k][h]) for h in range(4)},
     "not a typed-in 4"),
    ("name_the_detectives", lambda board: {h: max(CLUE_KINDS, key=lambda k: board[k][h])
                                           for h in range(len(board["chance"]))}, "one value per kind of clue"),
    ("name_the_detectives", lambda board: {h: max(list(board)[:-1], key=lambda k: board[k][h])
                                           for h in range(len(board["subject"]))},
     "first): head 1 is named 'chance', but"),
    ("lifeline", lambda rows, kind: min(rows, key=lambda r: r["clue_accuracy"]["all"])["head"], "all clues together"),
    ("lifeline", lambda rows, kind: min(rows, key=lambda r: r["clue_acuracy"][kind])["head"],
     "there is no key 'clue_acuracy'"),
    ("name_the_detectives", lambda board: {h: max(CLUE_KINDS, key=lambda k: board[k][h]) for h in range(len(board))},
     "len(board['subject'])"),
    ("name_the_detectives", lambda board: {**watched_most(board), 1: "grammar"}, "choose one of"),
    ("name_the_detectives", lambda board: {i: h for i, (h, k) in enumerate(watched_most(board).items())},
     "numbers as its values"),  # {kind's index: head}
    ("name_the_detectives", lambda board: {h: min(CLUE_KINDS, key=lambda k: board[k][h])
                                           for h in range(len(board["subject"]))}, "the largest share in its column"),
    ("name_the_detectives", lambda board: {h: max(CLUE_KINDS, key=lambda k: board[k][h] / board["chance"][
        CLUE_KINDS.index(k)]) for h in range(len(board["subject"]))}, "divided by chance"),
    ("lifeline", lambda rows, kind: max(rows, key=lambda r: r["clue_accuracy"][kind])["head"], "HIGHEST"),
    ("lifeline", lambda rows, kind: print(rows[0]["head"]), "returned nothing (None): is its return missing?"),
    ("lifeline", lambda rows, kind: min(rows, key=lambda r: r["clue_accuracy"][kind]), "returned a whole row"),
    ("lifeline", lambda rows, kind: min(r["clue_accuracy"][kind] for r in rows), "an accuracy"),
    ("lifeline", lambda rows, kind: min(range(len(rows)), key=lambda i: rows[i]["clue_accuracy"][kind]),
     "the position of the right row"),
    ("lifeline", lambda rows, kind: min(range(4), key=lambda h: rows[h]["clue_accuracy"][kind]), "row['head']"),
    ("lifeline", lambda rows, kind: 7, "there is no head 7"),
    ("lifeline", lambda rows, kind: S["lifeline"](rows, kind) if len(rows) == 3 else rows[1]["head"],
     "with head 2 off it drops to 30.0%"),
    ("lifeline", lambda rows, kind: f"head {S['lifeline'](rows, kind)}", "the text 'head"),
    ("feed_forward", lambda ff, x: ff.down(ff.up(x)), "no GELU"),
    ("feed_forward", lambda ff, x: F.gelu(x), "did not run ff.up and ff.down, the layers it is given"),
    ("feed_forward", lambda ff, x: ff.down(F.gelu(ff.up(x.transpose(1, 2)))), "x was turned round"),
    ("feed_forward", lambda ff, x: ff.down(F.relu(ff.up(x))), "you used ReLU"),
    ("feed_forward", lambda ff, x: x + ff(x), "you added x back"),
    ("feed_forward", lambda ff, x: F.gelu(ff.up(x)), "the widened middle"),
    ("feed_forward", lambda ff, x: ff(x).cumsum(dim=1), "changed the output of other words"),
    ("feed_forward", lambda ff, x: ff.up(F.gelu(ff.down(x))), "F.gelu bends them, and ff.down brings them back"),
    ("block_step", lambda b, x: b.ff(b.ln2(attn(b, b.ln1(x)))), "nothing is added back"),
    ("block_step", lambda b, x: x + attn(b, b.ln1(x)), "the feed-forward step is missing"),
    ("block_step", lambda b, x: x + b.ff(b.ln2(x)), "the attention step is missing"),
    ("block_step", lambda b, x: x + attn(b, b.ln1(x)) + b.ff(b.ln2(x)), "read the old x"),
    ("block_step", lambda b, x: (y := x + attn(b, b.ln1(x))) + y + b.ff(b.ln2(y)), "x was added twice"),
    ("block_step", lambda b, x: (y := (n := b.ln1(x)) + attn(b, n)) + b.ff(b.ln2(y)),
     "replaced by its normalised version"),
    ("block_step", lambda b, x: b.ln2((y := b.ln1(x + attn(b, x))) + b.ff(y)), "post-norm order"),
    ("block_step", lambda b, x: (y := x + attn(b, x)) + b.ff(y), "the layer norms are missing"),
    ("block_step", lambda b, x: (y := x + b.ln1(attn(b, x))) + b.ln2(b.ff(y)), "went on a part's output"),
    ("block_step", lambda b, x: (y := x + attn(b, b.ln1(x))) + b.ff(y), "feed-forward part got x without"),
    ("block_step", lambda b, x: (y := x + attn(b, x)) + b.ff(b.ln2(y)), "attention got x without"),
    ("block_step", lambda b, x: (y := x + attn(b, b.ln2(x))) + b.ff(b.ln1(y)), "ln1 and ln2 are swapped"),
    ("block_step", lambda b, x: b.attn(b.ln1(x)), "returned a pair"),
    ("block_step", lambda b, x: b(x)[0], "called the whole block"),
    ("block_step", lambda b, x: x + b.attention(b.ln1(x))[0], "the block's parts are block.ln1, block.attn"),
    ("block_step", lambda b, x: (y := b.ln2((n := b.ln1(x)) + attn(b, n))) + b.ff(y),
     "replaced by its normalised version"),  # the running x normalised before both parts
    ("block_step", lambda b, x: x + b.attn(b.ln1(x)), "returns a pair (y, att)"),
    ("count_block_parameters", lambda w, h: 4 * w * w + w + ff_of(w), "either the two layer norms"),
    ("count_block_parameters", lambda w, h: 4 * w * w + w + 2 * w + ff_of(w), "a scale AND a shift"),
    ("count_block_parameters", lambda w, h: 4 * w * w + 5 * w + 8 * w * w, "the feed-forward layers' biases"),
    ("count_block_parameters", lambda w, h: 4 * w * w + 5 * w + 2 * w * w + 2 * w, "widens to 4 x width"),
    ("count_block_parameters", lambda w, h: 3 * w * w + 4 * w + ff_of(w), "its output projection"),
    ("count_block_parameters", lambda w, h: h * 3 * w * w + w * w + 5 * w + ff_of(w), "split the width"),
    ("count_block_parameters", lambda w, h: 3 * w * w // h + w * w + 5 * w + ff_of(w), "split the width"),
    ("count_block_parameters", lambda w, h: h * 3 * w * w + w * w + 5 * w + ff_of(w) + 7, "other head counts"),
    ("count_block_parameters", lambda w, h: 65_664 + 512 + ff_of(128), "a typed-in width"),
    ("softmax", lambda s: (s - s.max(dim=-1, keepdim=True)).exp(), "take .values"),
    ("softmax", lambda s: (e := (s - s.max()).exp()) / e.sum(dim=-1, keepdim=True), "whole grid, scores.max()"),
    ("softmax", lambda s: S["softmax"](s.sub_(s.max(dim=-1, keepdim=True).values)), "changed its input s in place"),
    ("scaled_scores", lambda q, k: q.div_(q.shape[-1] ** 0.5) @ k.T, "changed its input q in place"),
    ("masked_weights", lambda s: torch.softmax(s.masked_fill(~causal_mask(len(s)), -15.0), -1), "float('-inf')"),
    ("scaled_scores", lambda q, k: q @ k.T / q.shape[-1] ** 1 / 2, "mind the brackets"),
    ("scaled_scores", lambda q, k: q @ k.T * q.shape[-1] ** 0.5, "multiplied the scores by"),
    ("one_head", head_with(weights=lambda s: S["masked_weights"](s * 3) / 3), "scaled after the softmax"),
    ("masked_weights", lambda s: torch.softmax(s + (~causal_mask(len(s))) * -math.inf, -1), "0 * -inf is NaN"),
    ("one_head", head_with(weights=lambda s: torch.softmax(s.masked_fill(~causal_mask(len(s)), math.inf), -1)),
     "scores are all hidden"),
    ("masked_weights", lambda s: torch.softmax(s.masked_fill_(~causal_mask(len(s)), float("-inf")), -1),
     "changed its input s in place: the tensor it was given"),
    ("scaled_scores", lambda q, k: q @ k.T / math.sqrt(4), "which is sqrt(4)"),
    ("scaled_scores", lambda q, k: q * k, "multiplies position by position"),
    ("scaled_scores", lambda q, k: torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1), "not weights"),
    ("one_head", lambda x, query, key, value: head_with()(x @ query.weight, query, key, value),
     "nn.Linear keeps its matrix as [D, C]"),
    ("one_head", lambda x, q, k, v: (lambda y, att: (att @ x, att))(*head_with()(x, q, k, v)), "the word vectors x"),
    ("clue_share", lambda w, p: w[:, p], "add up the positions, the last dimension"),
    ("clue_share", lambda w, p: w[:, p[0]:p[-1] + 1].sum(-1), "a slice"),
    ("clue_share", lambda w, p: w[:, [i - 1 for i in p]].sum(-1), "positions count from 0"),
    ("clue_share", lambda w, p: w[:, [i + 1 for i in p]].sum(-1), "one place to the right"),
    ("clue_share", lambda w, p: w[:, p].sum(-1) * 0.9, "Add up exactly the columns at those positions"),
    ("clue_share", lambda w, p: w[:, p].sum(), "a single number (shape [])"),
    ("softmax", lambda s: (s - s.max()) / (s - s.max()).sum(), "Take exp() of each score first"),
    ("clues_for_smiles", lambda words: {**RIGHT_CLUES, "subject": torch.tensor(3)}, "use int(...)"),
    ("count_attention_parameters", lambda w, h: 3 * h * (w // h) ** 2 + w * w + w, "its own D x D matrices"),
    ("count_attention_parameters", lambda w, h: 4 * w * w + 4 * w, "have no biases"),
    ("count_attention_parameters", lambda w, h: 4 * w * w + w - 7, "7 short. Recount each part"),
    ("merge_heads", lambda y: y.permute(0, 2, 3, 1).reshape(y.shape[0], y.shape[2], -1), "interleaved"),
    ("merge_heads", lambda y: y.transpose(2, 3).reshape(y.shape[0], y.shape[2], -1), "Swap the heads with the words"),
    ("merge_heads", lambda y: S["merge_heads"](y).roll(1, dims=-1), "Where word 0's column 0 belongs"),
    ("split_heads", lambda x, h: S["split_heads"](x, h).flip(2), "you put word 4's column 0"),
    ("perplexity_from_losses", lambda x: torch.exp(x.mean().item()), "torch.exp takes a tensor"),
    ("perplexity_from_losses", lambda x: math.exp(x), "average first, then math.exp"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap, max(one.std(), four.std()))), "a standard deviation"),
    ("clear_winner", by_rule(lambda gap, one, four: FOUR_HEADS if gap > max(spread(one), spread(four)) else
                             NO_CLEAR_WINNER), "compare abs(gap)"),
    ("lifeline", lambda rows, kind: max(rows, key=lambda r: r["val_ppl"])["head"], "the highest perplexity"),
    ("feed_forward", lambda ff, x: ff(x), "called the whole module"),
    ("feed_forward", lambda ff, x: ff.down(F.gelu(ff.up(x), approximate="tanh")), "approximate='tanh'"),
    ("feed_forward", lambda ff, x: F.gelu(ff.down(ff.up(x))), "came after ff.down"),
    ("block_step", lambda b, x: b.ff(b.ln2(x + attn(b, b.ln1(x)))), "the second add-back is missing"),
    ("block_step", lambda b, x: (lambda y: y + b.ff(b.ln2(y)))(attn(b, b.ln1(x))), "the first add-back is missing"),
    ("count_block_parameters", lambda w, h: 4 * w * w + w + 6 * w + ff_of(w), "three layer norms"),
    ("feed_forward", lambda ff, x: ff.down(F.dropout(F.gelu(ff.up(x)), p=0.1)), "such as dropout"),
    ("softmax", lambda s: (lambda e: e / e.sum(dim=1, keepdim=True))((s - s.max(dim=1, keepdim=True).values).exp()),
     "use dim=-1"),
    ("count_block_parameters", lambda w, h: 4 * w * w + 5 * w + 8 * w * w + 4 * w, "or the output projection's"),
    ("count_block_parameters", lambda w, h: 4 * w * w + 4 * w + 4 * w + ff_of(w), "query, key and value got biases"),
    ("count_block_parameters", lambda w, h: 4 * w * w + 5 * w + 4 * w * w + 3 * w, "not 2 x width"),
    ("count_block_parameters", lambda w, h: 12 * w * w + 10 * w + 1, "1 too many. Recount each part"),
    ("count_block_parameters", lambda w, h: 12 * w * w + 4 * w, "every bias of the linear layers"),
    ("lifeline", lambda rows, kind: rows.sort(key=lambda r: r["clue_accuracy"][kind]) or rows[0]["head"],
     "changed its input rows in place"),
    ("lifeline", lambda rows, kind: [row["clue_accuracy"].update({kind: 0.0}) for row in rows] and S["lifeline"](
        rows, kind), "changed its input rows in place"),  # a change inside a row: every level is compared
    ("name_the_detectives", lambda board: board.pop("chance") and watched_most(board), "changed its input board"),
    ("lifeline", lambda rows, kind: 0, "for every kind of clue: does it read"),
    ("lifeline", lambda rows, kind: 1, "for every kind of clue: does it read"),  # head 1: lowest perplexity there
    ("clear_winner", by_rule(lambda gap, one, four: ahead(one.median() - four.median(),
                                                          max(spread(one), spread(four)))), "made-up runs L"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap, max((one[-1] - one[0]).abs(),
                                                                   (four[-1] - four[0]).abs()))), "made-up runs M"),
    ("clear_winner", by_rule(lambda gap, one, four: ahead(gap, max(spread(one), spread(four)) - 1e-6)),
     "made-up runs N"),
    ("clear_winner", lambda runs: S["clear_winner"](runs) if all("params" not in run for run in runs)  # made up
     else next(a for a in (ONE_HEAD, FOUR_HEADS, NO_CLEAR_WINNER) if a != winner(runs)), "the benchmark's runs"),
    ("perplexity_from_losses", lambda x: math.prod(math.exp(v) for v in x.tolist()) ** (1 / len(x)), "overflows"),
    ("perplexity_from_losses", lambda x: 10**400, "the check could not use what your function returned"),
    ("count_attention_parameters", lambda w, h: sum(p.numel() for p in MultiHeadAttention(w, h).parameters()),
     "builds a layer (MultiHeadAttention)"),
    ("count_block_parameters", lambda w, h: sum(p.numel() for p in TransformerBlock(w, h).parameters()),
     "builds a layer (TransformerBlock)"),
    ("block_step", lambda b, x: (y := x + attn(b, b.ln1(x))) + b.ff(b.ln1(y)), "got block.ln1(x)"),
    ("block_step", lambda b, x: b.ln2((y := x + attn(b, b.ln1(x))) + b.ff(b.ln2(y))), "through block.ln2 at the end"),
    ("feed_forward", lambda ff, x: ff.down(torch.nn.GELU(ff.up(x))), "layer class: nn.GELU(...) makes a new layer"),
    ("feed_forward", lambda ff, x: ff.down(F.GELU(ff.up(x))), "GELU's function is F.gelu, in small letters"),
    ("feed_forward", lambda ff, x: ff.dwn(F.gelu(ff.up(x))), "the parts are ff.up and ff.down"),
    ("feed_forward", lambda ff, x: ff.down(F.gelu(F.gelu(ff.up(x)))), "you applied GELU twice"),
    ("feed_forward", lambda ff, x: ff.down(ff.up(F.gelu(x))), "the GELU came before ff.up"),
    ("split_heads", lambda x, h: x.view(*x.shape[:2], x.shape[2] // h, h).transpose(1, 2), "the wrong way round"),
    ("one_head", lambda x, q, k, v: list(head_with()(x, q, k, v)), "a tuple"),
    ("one_head", lambda x, q, k, v: head_with()(torch.randn(9, x.shape[1]), q, k, v), "not the notebook's own"),
    ("one_head", lambda x, q, k, v: head_with()(torch.randn(9, 8), q, k, v), "from its first argument, x,"),
    ("masked_weights", lambda s: torch.softmax(s.masked_fill(~causal_mask(len(s)), "-inf"), -1), "not the string"),
]


@pytest.mark.parametrize(("name", "wrong", "names_it"), WRONG, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(WRONG)])
def test_a_wrong_answer_gets_a_message_that_names_its_mistake(name, wrong, names_it, capsys) -> None:
    """Explained, not raised: the chapter goes on with the solution, and the learner's function is left as it is."""
    code = wrong.__code__
    assert yours_or_reference(CHECKS[name], wrong, *ARGS.get(name, tuple)()) is SOLUTIONS[name]
    words = handed_on(name, capsys)
    assert names_it in words, words
    assert f"{name}: your code stopped" not in words, "a wrong answer is explained, not reported as a crash"
    assert wrong.__code__ is code and OUTCOMES[name].passed is False and names_it in " ".join(
        OUTCOMES[name].feedback.split())


def test_a_passing_answer_is_kept_and_a_solution_cell_says_it_is_in_use_or_what_is_wrong(capsys) -> None:
    def weighted_average(weights, values):
        return weights @ values

    assert yours_or_reference(CHECKS["weighted_average"], weighted_average) is weighted_average
    assert "Using the reference" not in capsys.readouterr().out
    assert OUTCOMES["weighted_average"] == (True, "weighted_average: correct")
    assert yours_or_reference(CHECKS["weighted_average"], weighted_average, solution=True) is weighted_average
    assert capsys.readouterr().out == solution_in_use("weighted_average") + "\n", "no praise for work not done"
    yours_or_reference(CHECKS["softmax"], lambda s: (e := s.exp()) / e.sum(dim=0, keepdim=True), solution=True)
    out = capsys.readouterr().out
    assert "dim=-1" in out and solution_in_use("softmax") not in out and not OUTCOMES["softmax"].passed


@pytest.mark.parametrize("error", [ZeroDivisionError("division by zero"), KeyboardInterrupt(), ValueError("?" * 10**6),
                                   NameError("name 'math' is not defined", name="math"),  # the chapter has no math
                                   NameError("name 'sqrt' is not defined", name="sqrt")])
def test_a_crash_or_an_interrupt_hands_on_the_solution_and_names_the_line(error, capsys) -> None:
    def weighted_average(weights, values):
        raise error

    assert yours_or_reference(CHECKS["weighted_average"], weighted_average) is SOLUTIONS["weighted_average"]
    words = handed_on("weighted_average", capsys)
    assert f"stopped with {type(error).__name__}" in words and "(at: raise error)" in words and len(words) < 600
    assert ("Add the line " in words and "** 0.5" in words) == isinstance(error, NameError)


def test_a_crash_inside_torch_or_explained_by_a_hint_names_the_learners_line(capsys) -> None:
    def weighted_average(weights, values):
        return torch.nn.Identity().nowhere  # torch raises the AttributeError

    def block_step(block, x):
        return x + block.attn(block.ln1(x))  # the pair added: a TypeError, explained by the check's hint

    yours_or_reference(CHECKS["weighted_average"], weighted_average)
    assert "(at: return torch.nn.Identity().nowhere" in handed_on("weighted_average", capsys)
    def masked_weights(scores):
        return torch.softmax(scores.masked_fill(~causal_mask(len(scores)), float("-inf")))  # no dim: a TypeError

    yours_or_reference(CHECKS["block_step"], block_step)
    assert "(at: return x + block.attn(block.ln1(x))" in handed_on("block_step", capsys)
    yours_or_reference(CHECKS["masked_weights"], masked_weights)
    assert "which dimension it works along: dim=-1" in handed_on("masked_weights", capsys)
    yours_or_reference(CHECKS["masked_weights"], lambda s: softmax(s))  # noqa: F821 - chapter 1's: not in chapter 2
    assert "PyTorch's own is torch.softmax" in handed_on("masked_weights", capsys)


def test_a_clear_winner_calling_seed_margin_passes_and_is_told_a_graded_class_will_not_count_it(capsys) -> None:
    from helpers.compare import seed_margin

    def clear_winner(runs):
        one, four = ([r["val_ppl"] for r in runs if r["heads"] == h] for h in (1, 4))
        margin = seed_margin(one, four)
        return NO_CLEAR_WINNER if not margin.beats_range else FOUR_HEADS if margin.gap > 0 else ONE_HEAD

    out = " ".join(capsys.readouterr().out.split()) if CHECKS["clear_winner"](clear_winner) else "it failed"
    assert "does not count it" in out and "Well done" not in out, "the refusal, and no praise above it"


def test_the_solution_handed_back_is_not_checked_again_and_a_non_check_is_refused(capsys) -> None:
    OUTCOMES.pop("softmax", None)
    assert yours_or_reference(CHECKS["softmax"], SOLUTIONS["softmax"]) is SOLUTIONS["softmax"]
    assert "already the reference" in capsys.readouterr().out and "softmax" not in OUTCOMES
    with pytest.raises(ValueError, match="needs an exercise's check first"):
        yours_or_reference(print, stub)


def test_solution_prints_a_solution_and_never_runs_it(monkeypatch, capsys) -> None:
    def softmax(scores):
        raise AssertionError("solution() ran the solution")

    monkeypatch.setitem(SOLUTIONS, "softmax", softmax)
    solution("softmax")
    assert 'raise AssertionError("solution() ran the solution")' in capsys.readouterr().out
    solution(CHECKS["lifeline"])
    assert inspect.getsource(SOLUTIONS["lifeline"]).rstrip() in capsys.readouterr().out
    solution("sofmax")
    assert "no exercise called 'sofmax'. Did you mean 'softmax'?" in capsys.readouterr().out
    solution()
    assert 'chapter 6: "name_the_detectives", "lifeline"' in capsys.readouterr().out  # no name: names to pick from
    monkeypatch.setenv(SOLUTIONS_OFF, "off")
    solution("lifeline")
    assert "switched off" in capsys.readouterr().out


def test_feedback_wraps_between_words_never_inside_code() -> None:
    for start in range(60, 100):
        lines = say("x" * start + " view(B, T, heads, C // heads) then [B, H, T, D]").splitlines()
        assert any("view(B, T, heads, C // heads)" in line for line in lines), lines
        for kept in ("x = x + attn(ln1(x))", "4 width x width", "feed-forward"):
            assert any(kept in line for line in say("y" * start + " " + kept).splitlines()), kept
        assert any("[B, H, T, D]" in line for line in lines) and all(len(line) <= LINE for line in lines)
        code = "(at: return weights.gather(1, torch.tensor(positions)).sum(-1))"  # the learner's line, quoted
        assert any(code in line for line in say("z" * (start - 40) + f" stopped {code}. A hint").splitlines())
        prose = say("w" * start + " for made-up runs C (the seeds differ more than the models), although")
        first, second = prose.splitlines()[:2]
        assert len(first) + 1 + len(second.split()[0]) > LINE, "a bracket of prose wraps like any words"
    assert say("a sentence").endswith("sentence.")


def test_numpy_numbers_count_as_numbers() -> None:
    assert CHECKS["perplexity_from_losses"](lambda x: np.exp(x.numpy().mean())) is True
    assert CHECKS["lifeline"](lambda rows, kind: np.int64(S["lifeline"](rows, kind)), MEASURED) is True


def test_the_detectives_are_judged_by_the_model_not_by_a_stored_answer() -> None:
    model, ids, clues = detectives()
    answer = watched_most(attention_on_clues(model, ids, clues, max_windows=len(ids)))
    blank = course_model(heads=4, seed=0)
    with pytest.raises(AssertionError, match="watches most"):
        CHECKS["name_the_detectives"](lambda board: dict(answer), blank, ids, clues)


def test_a_lifeline_that_empties_the_measured_rows_leaves_them_whole() -> None:
    rows = [dict(row, clue_accuracy=dict(row["clue_accuracy"])) for row in MEASURED]

    def spoil(seen: list, kind: str) -> int:  # right, and empties the 4 measured rows (the made-up ones are 3)
        return (S["lifeline"](seen, kind), len(seen) == 3 or seen.clear())[0]

    yours_or_reference(CHECKS["lifeline"], spoil, rows)
    assert rows == MEASURED


@pytest.mark.parametrize("name", ["count_attention_parameters", "count_block_parameters"])
def test_a_count_off_for_no_known_reason_is_told_how_far_off_not_the_right_count(name, capsys) -> None:
    right = SOLUTIONS[name](128, 4)
    yours_or_reference(CHECKS[name], lambda width, heads: SOLUTIONS[name](width, heads) + 3)
    words = handed_on(name, capsys)
    assert "3 too many" in words and f"{right:,}" not in words and str(right) not in words, words
