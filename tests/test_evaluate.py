"""Evaluation: perplexity, clue accuracy, the detective scoreboard and switching heads off."""

from __future__ import annotations

import math

import pytest
import torch

from helpers import evaluate
from helpers.block import block_model
from helpers.checkpoints import load_model
from helpers.corpus import story_validation
from helpers.model import LanguageModel, course_model
from helpers.stories import Clue
from helpers.train import train


@pytest.fixture(scope="module")
def val():
    return story_validation(val_stories=12)


def test_a_model_that_knows_nothing_has_perplexity_1024(val):
    model = course_model(heads=4)
    torch.nn.init.zeros_(model.lm_head.weight)
    torch.nn.init.zeros_(model.lm_head.bias)
    assert evaluate.perplexity(model, val[0]) == pytest.approx(1024, rel=1e-4)
    torch.nn.init.normal_(model.lm_head.weight, std=1e4)  # a diverged model's scores: beyond what a float holds
    assert evaluate.perplexity(model, val[0]) == float("inf")


def test_the_scored_words_are_those_with_a_clue_in_their_own_window_each_counted_once():
    """Chapter 3 prints this one count beside its clue accuracy; a clue outside its word's window is not scored."""
    clues = [Clue(5, "mood", (2,)), Clue(5, "subject", (3,)), Clue(130, "mood", (100,)),
             Clue(130, "sense", (120, 127)), Clue(140, "mood", (128, 131)), Clue(300, "mood", (250,))]
    kept = evaluate.scorable_clues(clues, n_words=257, context=128)
    assert [(c.target, w, i) for c, w, i in kept] == [(5, 0, 4), (5, 0, 4), (140, 1, 11)]
    assert evaluate.scored_words(clues, n_words=257, context=128) == 2  # word 5 (two kinds, once) and word 140


def test_clue_accuracy_counts_exact_guesses(val):
    ids, clues = val
    model = course_model(heads=1)
    scores = evaluate.clue_accuracy(model, ids, clues)
    assert set(scores) == {"subject", "previous", "mood", "sense", "all"} and all(0 <= v <= 1 for v in scores.values())
    assert evaluate.clue_accuracy(Oracle(ids, model.config), ids, clues) == dict.fromkeys(scores, 1.0)


class Oracle(LanguageModel):
    """Always scores highest the word that really follows (it reads the answer from the stream)."""

    def __init__(self, ids, config):
        super().__init__(config)
        self.ids, self.windows_seen = ids, 0

    @property
    def attention_layer(self):
        raise AssertionError("the oracle reads the answer; it has no attention to watch")

    def forward(self, x):
        B, T = x.shape
        rows = torch.arange(self.windows_seen, self.windows_seen + B)
        self.windows_seen += B
        return torch.nn.functional.one_hot(self.ids[rows[:, None] * T + torch.arange(T) + 1], 1024).float()


def test_scoreboard_gives_each_head_a_share_per_clue_kind_over_the_windows_asked_for(val):
    """max_windows=None scores every window; a count below 1 is refused with a message."""
    ids, clues = val
    model = course_model(heads=4)
    every = evaluate.attention_on_clues(model, ids, clues, max_windows=None)
    assert every == evaluate.attention_on_clues(model, ids, clues, max_windows=len(ids))
    assert every != evaluate.attention_on_clues(model, ids, clues, max_windows=1)
    assert set(every) == {"subject", "previous", "mood", "sense", "chance"}
    for kind in ("subject", "previous", "mood", "sense"):
        assert len(every[kind]) == 4 and all(0 <= v <= 1 for v in every[kind])
    with pytest.raises(ValueError, match="max_windows must be a whole number >= 1, got 0"):
        evaluate.attention_on_clues(model, ids, clues, max_windows=0)


def test_trained_heads_specialise():
    """Chapter 6's claim, whatever a retraining gives: some head looks at each kind of clue far more than chance."""
    ids, clues = story_validation()
    board = evaluate.attention_on_clues(load_model("four_heads"), ids, clues)
    for kind, chance in zip(("subject", "previous", "mood", "sense"), board["chance"], strict=True):
        assert max(board[kind]) > 2 * chance, (kind, board[kind], chance)


@pytest.mark.parametrize("make", [lambda: course_model(heads=4), lambda: block_model(heads=4, layers=2).eval()],
                         ids=["course model", "block model"])
def test_removing_a_head_changes_the_output_and_is_undone_and_ablation_reports_every_head(val, make):
    ids, clues = val
    model, x = make(), ids[:50]
    before = model(x)
    with evaluate.head_removed(model, 2):
        assert not torch.allclose(model(x), before)
    assert torch.equal(model(x), before)  # a head out of range: test_bad_inputs' head-removed-out-of-range
    rows = evaluate.head_ablation(model, ids, clues)
    assert [r["head"] for r in rows] == [0, 1, 2, 3]
    assert all(math.isfinite(r["val_ppl"]) and "all" in r["clue_accuracy"] for r in rows)
    assert set(evaluate.attention_on_clues(model, ids, clues, max_windows=2)) >= {"chance"}


def test_next_word_guesses_lists_the_most_likely_words_in_order() -> None:
    model = load_model("four_heads")
    ids = model.tokenizer.encode("eagerly , the fox that crosses the wet streets smiles .")
    text = evaluate.next_word_guesses(model, ids, 8, k=3)
    parts = [part.rsplit(" ", 1) for part in text.split(", ")]
    with torch.no_grad():
        probs = model(torch.tensor(ids))[0, 8].softmax(-1)
    assert [word for word, _ in parts] == [model.tokenizer.decode([i]) for i in probs.topk(3).indices.tolist()]
    shares = [int(share.rstrip("%")) for _, share in parts]
    assert shares == sorted(shares, reverse=True)
    with pytest.raises(ValueError, match="position must point at one of the 11 words"):
        evaluate.next_word_guesses(model, ids, 11)
    with pytest.raises(ValueError, match="needs a model with a tokenizer"):
        evaluate.next_word_guesses(course_model(heads=4), ids, 2)


def test_evaluating_restores_the_mode_even_after_an_error_so_scores_leave_a_training_model_training(val) -> None:
    model = course_model(heads=1).train()
    with pytest.raises(RuntimeError, match="stop"), evaluate.evaluating(model):
        assert not model.training
        raise RuntimeError("stop")
    assert model.training
    with evaluate.evaluating(model.eval()):
        pass
    assert not model.training
    ids, clues = val
    model = course_model(heads=4).train()
    evaluate.perplexity(model, ids)
    evaluate.clue_accuracy(model, ids, clues)
    evaluate.attention_on_clues(model, ids, clues, max_windows=2)
    assert model.training


@pytest.mark.parametrize(("score", "says"), [
    (evaluate.perplexity, "needs"), (lambda m, ids: evaluate.head_removed(m, 0).__enter__(), "needs"),
    (lambda m, ids: train(model=m, steps=1, progress=False), "model must be")])  # training refuses it as well
def test_something_that_is_not_a_series_model_is_refused_clearly(val, score, says) -> None:
    ids, _ = val
    with pytest.raises(ValueError, match=rf"{says} one of the series' models .* got Linear"):
        score(torch.nn.Linear(2, 2), ids)
