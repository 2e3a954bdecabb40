"""Checks for chapter 5 (train and compare): perplexity from losses, and calling a winner only beyond the noise."""

from __future__ import annotations

import math
import numbers
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from helpers.checks import attempt, expect, passed, say, type_of
from helpers.checks.solutions import FOUR_HEADS, NO_CLEAR_WINNER, ONE_HEAD
from helpers.compare import seed_margin

Runs = list[dict[str, Any]]


def perplexities(runs: Sequence[Mapping[str, Any]], heads: int) -> list[float]:
    """The validation perplexities of the runs with `heads` heads, in order."""
    return [run["val_ppl"] for run in runs if run["heads"] == heads]


def winner(runs: Sequence[Mapping[str, Any]]) -> str:
    """The reference: the model with the lower mean perplexity, if the gap is larger than the range over seeds."""
    one, four = perplexities(runs, 1), perplexities(runs, 4)
    if not one or not four:
        raise ValueError(f"need runs with 1 and with 4 heads, got heads {sorted({r['heads'] for r in runs})}")
    margin = seed_margin(one, four)
    if not margin.beats_range:
        return NO_CLEAR_WINNER
    return FOUR_HEADS if margin.gap > 0 else ONE_HEAD


def _as_number(name: str, got: Any) -> float:
    """The value of a Python number or of a one-element tensor (judged later), else an explaining AssertionError."""
    if isinstance(got, torch.Tensor):
        expect(got.numel() == 1, f"{name} returned a tensor of shape {list(got.shape)}, one value per word: average "
                                 "the losses before taking the exponential, so that one number comes out.")
        return float(got.item())
    expect(not callable(got), f"{name} returned a method, not its result: a call needs its brackets, as in "
                              ".item().")
    expect(isinstance(got, numbers.Real) and not isinstance(got, bool),  # NumPy's numbers too
           f"{name} should return a number, got {type_of(got)}")
    return float(got)


def _not_a_tensor(name: str, got: Any) -> None:
    """The right value, but still inside a tensor: the task asks for a number."""
    if isinstance(got, torch.Tensor):
        raise AssertionError(f"{name} returned the right value, but inside a tensor (tensor({float(got.item()):.4f}) "
                             "on the check's own test losses), where the task asks for a number: take the number "
                             "out with .item().")


def _near(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6)


def check_perplexity_from_losses(perplexity_from_losses: Callable[[torch.Tensor], Any]) -> bool:
    """perplexity_from_losses(losses [N]) -> exp(mean(losses)): the losses are cross-entropies in nats."""
    name = "perplexity_from_losses"
    gen = torch.Generator().manual_seed(5)
    losses = 0.5 + 3.5 * torch.rand(12, generator=gen)  # [N]: twelve words' losses
    done, got = attempt(name, perplexity_from_losses, losses.clone(),
                        errors=(TypeError, ValueError, RuntimeError, AttributeError),
                        hint="torch.exp takes a tensor and math.exp one plain number, and .item() turns a one-number "
                             "tensor into a plain number: average the losses first, then take one exponential.")
    if not done:
        return False
    value = _as_number(name, got)
    mean = losses.mean().item()
    want = math.exp(mean)
    mistakes = [
        (mean, "you returned the average loss itself. Perplexity is e raised to that average."),
        (losses.exp().mean().item(), "you took the exponential of every loss and then averaged. Average the "
                                     "losses first, then take one exponential of the average."),
        (1 / (-losses).exp().mean().item(), "you averaged the probabilities, exp(-loss), and turned the average "
                                            "back. Perplexity averages the losses themselves, then takes one "
                                            "exponential."),
        (losses.sum().item(), "you added the losses up. Perplexity uses their average (divide by how many)."),
        (math.exp(losses.sum().item()), "you added the losses up before the exponential. Use their average."),
        (2**mean, "you raised 2 to the average loss. The losses are natural logarithms (PyTorch's "
                  "cross-entropy), so raise e to it: math.exp."),
        (10**mean, "you raised 10 to the average loss. The losses are natural logarithms, so raise e to it."),
        (math.exp(-mean), "the sign is flipped: a loss is already minus the log of the probability, so use "
                          "exp(+average)."),
    ]
    if not _near(value, want):
        for wrong, reason in mistakes:
            expect(not _near(value, wrong), f"{name}: {reason}")
        expect(False, f"{name}: got {value:.4f} for these losses, but e to the power of their average "
                      f"({mean:.4f}) is {want:.4f}")
    _not_a_tensor(name, got)
    even = torch.full((6,), math.log(4))  # a model torn evenly between 4 words, on every word
    got_even = _as_number(name, perplexity_from_losses(even))
    expect(_near(got_even, 4.0), f"{name}: a model that gives each of 4 words 25% has a loss of ln 4 on every "
                                 f"word and a perplexity of 4, but you returned {got_even:.4f}")
    many = 0.5 + 3.5 * torch.rand(5000, generator=gen)  # [N]: a validation text's worth of losses
    got_many, want_many = _as_number(name, perplexity_from_losses(many)), math.exp(many.mean().item())
    expect(math.isfinite(got_many), f"{name} returned {got_many} for 5,000 losses, though their perplexity is "
                                    f"{want_many:.4f}: multiplying thousands of exponentials overflows. Average "
                                    "the losses first, then take one exponential of that average.")
    expect(_near(got_many, want_many), f"{name}: for 5,000 losses it returned {got_many:.4f}, but e to the power "
                                       f"of their average is {want_many:.4f}")
    return passed(name)


def _runs(one: Sequence[float], four: Sequence[float]) -> Runs:
    """Made-up benchmark runs: seeds 0, 1, ... for each model, listed seed by seed like results.json."""
    runs = []
    for seed, (a, b) in enumerate(zip(one, four, strict=True)):
        runs.append({"heads": 1, "seed": seed, "val_ppl": a, "clue_accuracy": {"all": 0.6}})
        runs.append({"heads": 4, "seed": seed, "val_ppl": b, "clue_accuracy": {"all": 0.65}})
    return runs


_EXAMPLES = (
    ("made-up runs A (four heads far lower)", _runs([2.45, 2.42, 2.43], [2.28, 2.30, 2.27])),
    ("made-up runs B (one head far lower)", _runs([3.00, 3.10, 3.05], [3.60, 3.50, 3.55])),
    ("made-up runs C (the seeds differ more than the models)", _runs([2.40, 2.50, 2.45], [2.38, 2.47, 2.44])),
    ("made-up runs D (one head's seeds agree, four heads' do not)", _runs([2.40, 2.41, 2.42], [2.20, 2.45, 2.30])),
    ("made-up runs E (close, and one head's seeds far apart)", _runs([2.40, 2.45, 2.50], [2.35, 2.37, 2.39])),
    ("made-up runs F (four heads ahead by more than either range)", _runs([2.40, 2.45, 2.50], [2.25, 2.30, 2.35])),
    ("made-up runs G (four heads' seeds far apart, one head's close)", _runs([2.45, 2.46, 2.47], [2.20, 2.30, 2.40])),
    # H to K tell apart rules that the evenly spaced seeds above cannot: twice a standard deviation, half the range,
    # the mean of the two ranges, seeds that do not overlap
    ("made-up runs H (two of four heads' seeds close, one far)", _runs([2.47, 2.48, 2.49], [2.20, 2.21, 2.40])),
    ("made-up runs I (close, four heads' seeds uneven)", _runs([2.385, 2.388, 2.391], [2.30, 2.30, 2.40])),
    ("made-up runs J (the seeds overlap, four heads' far apart)", _runs([2.40, 2.45, 2.50], [2.25, 2.30, 2.45])),
    ("made-up runs K (very close, one head's seeds agree)", _runs([2.381, 2.382, 2.383], [2.30, 2.30, 2.40])),
    # L to N: a median instead of the mean, a range taken as the last seed minus the first, a gap equal to the range
    ("made-up runs L (one of four heads' seeds far behind)", _runs([2.47, 2.48, 2.49], [2.20, 2.21, 2.45])),
    ("made-up runs M (one head's seeds not in order)", _runs([2.40, 2.50, 2.45], [2.36, 2.37, 2.38])),
    ("made-up runs N (the gap exactly as large as the range)", _runs([3.0, 3.25, 3.5], [2.5, 2.75, 3.0])),
    ("made-up runs O (two seeds each, not three)", _runs([2.40, 2.50], [2.30, 2.32])),  # a mean typed as sum / 3
)


def _by(limit: Callable[[list[float], list[float]], float], either_way: bool = True) -> Callable[[Runs], str]:
    """A rule like the reference but with another yard stick (`limit`), or counting only four heads' lead."""
    def rule(runs: Runs) -> str:
        one, four = perplexities(runs, 1), perplexities(runs, 4)
        gap = statistics.mean(one) - statistics.mean(four)  # > 0: four heads lower
        if (abs(gap) if either_way else gap) <= limit(one, four):
            return NO_CLEAR_WINNER
        return FOUR_HEADS if gap > 0 else ONE_HEAD
    return rule


def _spread(scores: list[float]) -> float:
    return max(scores) - min(scores)


def _apart(runs: Runs) -> str:
    """A winner only where every seed of one model beats every seed of the other."""
    one, four = perplexities(runs, 1), perplexities(runs, 4)
    return FOUR_HEADS if max(four) < min(one) else ONE_HEAD if max(one) < min(four) else NO_CLEAR_WINNER


_MATCH = "perhaps your rule "  # the answers fit this rule on every example, which a few other rules may also do
_STDEV = (_MATCH + "compares the gap with a standard deviation; the chapter's rule compares it with the range (largest "
          "minus smallest over the seeds), which is wider")
_MISREAD = (  # rules a learner may write instead of the chapter's, each with what to say when the answers follow one
    (_by(lambda one, four: min(_spread(one), _spread(four))),
     _MATCH + "uses the narrower of the two ranges: compare the gap with the wider one"),
    (_by(lambda one, four: _spread(one) + _spread(four)),
     _MATCH + "adds the two ranges together: compare the gap with the wider of the two, not with their sum"),
    (_by(lambda one, four: _spread(four)), _MATCH + "uses four heads' range alone: compare the gap with the wider "
                                                    "of the two models' ranges"),
    (_by(lambda one, four: _spread(one)), _MATCH + "uses one head's range alone: compare the gap with the wider "
                                                   "of the two models' ranges"),
    (_by(lambda one, four: max(statistics.stdev(one), statistics.stdev(four))), _STDEV),
    (_by(lambda one, four: max(statistics.pstdev(one), statistics.pstdev(four))), _STDEV),
    (_by(lambda one, four: 2 * max(statistics.stdev(one), statistics.stdev(four))), _STDEV),
    (_by(lambda one, four: max(_spread(one), _spread(four)) / 2),
     _MATCH + "uses half the wider range: compare the gap with the whole range, largest minus smallest"),
    (_by(lambda one, four: (_spread(one) + _spread(four)) / 2),
     _MATCH + "averages the two ranges: compare the gap with the wider of the two"),
    (_by(lambda one, four: max(_spread(one), _spread(four)) / len(one)),  # sums: the gap times the seeds
     _MATCH + "compares the sums of the perplexities: use each model's mean, the sum divided by its number of "
              "runs"),
    (_apart, _MATCH + "calls a winner when the seeds do not overlap: the chapter's rule compares the gap between "
                      "the means with the wider range over the seeds instead"),
    (_by(lambda one, four: max(_spread(one), _spread(four)), either_way=False),
     _MATCH + "never names one head: a gap counts in either direction, so compare abs(gap) with the range, or "
     "check one head's lead too"),
    (lambda runs: NO_CLEAR_WINNER,
     "It answered 'no clear winner' for every made-up example. A range taken over both models' perplexities "
     "together always covers the gap between their means, so a rule that uses it never finds a winner"),
    *((lambda runs, answer=answer: answer, f"It answered {answer!r} for every made-up example, whatever the runs: "
       "work the answer out from the perplexities in the runs it is given") for answer in (ONE_HEAD, FOUR_HEADS)),
)


def _judge(name: str, clear_winner: Callable[[Runs], Any], runs: Runs, what: str, follows: str | None) -> None:
    """Judge one answer; `follows` is what to add when the learner's answers follow one of the _MISREAD rules."""
    got = clear_winner([dict(run) for run in runs])
    answers = (ONE_HEAD, FOUR_HEADS, NO_CLEAR_WINNER)
    expect(got in answers, f"{name} should return one of {list(answers)}, got {got!r}")
    want = winner(runs)
    if got == want:
        return
    one, four = perplexities(runs, 1), perplexities(runs, 4)
    gap = f"the gap between the means ({abs(seed_margin(one, four).gap):.3f})"
    ranges = f"one head's {_spread(one):.3f}, four heads' {_spread(four):.3f}"
    why = f" {follows[0].upper()}{follows[1:]}." if follows else ""
    if want == NO_CLEAR_WINNER:
        expect(False, f"{name} named {got!r} for {what}, although {gap} is no larger than the range over the seeds "
                      f"({ranges}; the rule takes the wider): a gap the seeds alone could make is no win, so the "
                      f"answer is {NO_CLEAR_WINNER!r}.{why}")
    expect(got == NO_CLEAR_WINNER,
           f"{name} named {got!r} for {what}, whose mean perplexities are {statistics.mean(one):.3f} with one "
           f"head and {statistics.mean(four):.3f} with four: lower perplexity is better, so the answer is {want!r}."
           f"{why}")
    expect(False, f"{name} saw no clear winner in {what}, where {gap} is larger than each model's own range over "
                  f"the seeds ({ranges}), so the answer is {want!r}.{why}")


def check_clear_winner(clear_winner: Callable[[Runs], Any], runs: Sequence[Mapping[str, Any]] | None = None) -> bool:
    """clear_winner(runs) -> "one head", "four heads" or "no clear winner", on made-up runs and then `runs`."""
    name = "clear_winner"
    keys = ", ".join(repr(key) for key in _EXAMPLES[0][1][0])
    done, _ = attempt(name, clear_winner, [dict(run) for run in _EXAMPLES[0][1]], errors=(KeyError,),
                      hint=f"Each run is a dict with the keys {keys}: read a run's perplexity as run['val_ppl'].")
    if not done:
        return False
    yours = [clear_winner([dict(run) for run in example]) for _, example in _EXAMPLES]
    follows = next((say for rule, say in _MISREAD if yours == [rule(example) for _, example in _EXAMPLES]), None)
    for what, example in _EXAMPLES:
        _judge(name, clear_winner, example, what, follows)
    if runs is not None:
        _judge(name, clear_winner, [dict(run) for run in runs], "the benchmark's runs", follows)
    code = getattr(clear_winner, "__code__", None)
    if "seed_margin" in (*getattr(code, "co_names", ()), *getattr(code, "co_freevars", ())):  # as classroom flags
        print(say(f"{name}: it calls seed_margin, which works the rule out for you, so a graded class does not count "
                  "it, though the answers are right. Write the comparison yourself."))
        return True
    return passed(name)


MADE_IN = {
    "four": "'four = load_model(...)' (section 1)",
    "ids": "'ids, _ = story_validation()' (section 1)",
    "vocab": "'ids, _ = story_validation()' (section 1)",
    "x": "'ids, _ = story_validation()' (section 1)",
    "losses": "'losses = ...cross_entropy...' (section 1)",
    "perplexity_from_losses": "that starts with `def perplexity_from_losses` (exercise 1)",
    "live": "'live = ...train(...)' (section 2)",
    "results": "'results = json.loads(...)' (section 3)",
    "runs": "'runs = results[...]' (section 3)",
    "clear_winner": "that starts with `def clear_winner` (exercise 2)",
    "real": "'real = real_text_results()' (section 4)",
    "upload": "'upload = widgets.FileUpload(...)' (section 5)",
    "own_corpus": "'own_corpus = text_corpus(...)' (section 5)",
    "n": "'ids, _ = story_validation()' (section 1)",
    "y": "'ids, _ = story_validation()' (section 1)",
    "right": "'ids, _ = story_validation()' (section 1)",
    "MY_TEXT": "'MY_TEXT = ...' (section 5)",
}
"""For a NameError's advice (helpers.needs.explain_missing, called in the set-up cell): the cell of the
chapter that makes each name a later cell needs."""
