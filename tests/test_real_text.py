"""Real-text results: notes on a learner's own text use measured thresholds, the gap figure is labelled,
head roles are measured against the right words, and the shipped results agree with their own runs."""

from __future__ import annotations

import math
import statistics

import pytest
import torch

from helpers.checkpoints import ASSETS, load_model
from helpers.head_roles import KINDS, head_roles, kind_masks
from helpers.model import course_model
from helpers.novels import novel_tokenizer
from helpers.plots import presenter_mode, style
from helpers.real_text import gap_figure, own_text_notes, real_text_results, stable_word_count, worst_ratios
from helpers.recipes import TEXT_RECIPE
from helpers.tokenizer import Tokenizer
from helpers.train import Corpus

RESULTS = {"summary": {
    "unknown_share": 0.18,
    "target": {"seed_range": 0.5, "val_seed_range": 0.4},
    "gap_by_words": [{"share": 0.01, "train_words": 9_000, "gap": -1.0, "one_head": 90, "four_heads": 91},
                     {"share": 0.25, "train_words": 240_000, "gap": 0.8, "one_head": 80, "four_heads": 79.2},
                     {"share": 1.0, "train_words": 960_000, "gap": 1.2, "one_head": 70, "four_heads": 68.8}],
}}
TOK = Tokenizer.from_words(["the", "cat", ".", "a"])


def _corpus(n_train: int, unknown_every: int = 0) -> Corpus:
    val = torch.ones(1000, dtype=torch.long)
    if unknown_every:
        val[::unknown_every] = 0
    return Corpus("mine.txt", TOK, torch.ones(n_train, dtype=torch.long), val)


def test_stable_word_count_is_the_fewest_words_with_a_gap_beyond_the_seed_range():
    assert stable_word_count(RESULTS) == 240_000
    no_clear = {"summary": RESULTS["summary"] | {"target": {"seed_range": 5.0}}}
    assert stable_word_count(no_clear) is None


def test_a_tiny_texts_huge_win_below_a_loss_does_not_count_as_enough_text():
    rows = RESULTS["summary"]["gap_by_words"]
    wild = [rows[0] | {"gap": 118_977.0}, rows[1] | {"gap": -3.0}, rows[2]]  # learnt by heart: wild either way
    assert stable_word_count({"summary": RESULTS["summary"] | {"gap_by_words": wild}}) == 960_000


def test_short_text_gets_a_note_with_the_measured_threshold():
    notes = own_text_notes(_corpus(5_000), RESULTS)
    assert len(notes) == 1 and "Too short to compare heads: 5,000 words" in notes[0]
    assert "more than 9,000 and at most 240,000" in notes[0]
    assert own_text_notes(_corpus(300_000), RESULTS) == []


def test_without_smaller_amounts_measured_the_note_claims_no_threshold():
    only_all = {"summary": RESULTS["summary"] | {"gap_by_words": RESULTS["summary"]["gap_by_words"][-1:]}}
    notes = own_text_notes(_corpus(5_000), only_all)
    assert "Possibly too short" in notes[0] and "960,000" in notes[0] and "not measured" in notes[0]
    assert "needed" not in notes[0]


def test_no_clear_amount_says_even_the_most_text_did_not_settle_it():
    no_clear = {"summary": RESULTS["summary"] | {"target": {"seed_range": 5.0}}}
    notes = own_text_notes(_corpus(300_000), no_clear)
    assert "even 960,000 words" in notes[0] and "may be lower by chance" in notes[0]
    assert "means nothing" not in notes[0]


def test_a_perplexity_above_the_different_validation_words_gets_a_note():
    corpus = _corpus(300_000)
    corpus.val_ids[:3] = torch.tensor([2, 3, 4])  # four different words in the validation part
    assert own_text_notes(corpus, RESULTS, val_ppl=3.9) == []
    (note,) = own_text_notes(corpus, RESULTS, val_ppl=12.5)
    assert "12.5, is above the 4 different words of the validation part:" in note  # within the vocabulary
    (note,) = own_text_notes(corpus, RESULTS, val_ppl=2_000.0)
    assert f"even above the {len(TOK):,} entries of its whole vocabulary" in note
    assert len(own_text_notes(corpus, RESULTS, val_ppl=float("nan"))) == 1  # no usable score: said too


def test_many_unknown_words_get_a_note_compared_with_the_novels():
    notes = own_text_notes(_corpus(300_000, unknown_every=2), RESULTS)  # half the words are <unk>
    assert len(notes) == 1 and "50% of the validation words are <unk>" in notes[0] and "18%" in notes[0]


def test_gap_figure_labels_its_axes_in_words_and_fits_the_output_area():
    fig = gap_figure(RESULTS)
    assert fig.layout.xaxis.title.text == "words of training text"
    assert fig.layout.yaxis.title.text == "test perplexity: one<br>head minus four heads"
    assert "four heads better" in fig.layout.title.subtitle.text
    assert list(fig.data[0].x) == [9_000, 240_000, 960_000] and list(fig.data[0].y) == [-1.0, 0.8, 1.2]
    dashed = [shape.y0 for shape in fig.layout.shapes if shape.line.dash == "dash"]
    assert dashed == [0.5]  # the seed range on the test text
    assert fig.layout.width <= 850


def test_worst_ratio_treats_both_models_alike_and_needs_every_text_and_model():
    def run(text, heads, lr, ppl):
        return {"text": text, "heads": heads, "lr": lr, "val_ppl": ppl}

    scores = {("a", 1): (50, 40, 44), ("a", 4): (48, 40, 41), ("b", 1): (60, 62, 70), ("b", 4): (61, 60, 66)}
    sweep = {f"{t} {h} {lr}": run(t, h, lr, ppl) for (t, h), row in scores.items()
             for lr, ppl in zip((1e-3, 2e-3, 4e-3), row, strict=True)}
    ratios = worst_ratios(sweep)
    assert ratios == pytest.approx({1e-3: 1.25, 2e-3: 62 / 60, 4e-3: 70 / 60}, abs=1e-4)  # rounded to 4 places
    swapped = {k: r | {"heads": 5 - r["heads"]} for k, r in sweep.items()}  # which model is which does not matter
    assert worst_ratios(swapped) == ratios
    assert worst_ratios({k: r for k, r in sweep.items() if r["heads"] == 4}) == {}  # one model alone: no choice


def test_kind_masks_pick_the_right_earlier_words():
    words = TOK.words  # 0 <unk>, 1 the, 2 cat, 3 ".", 4 a
    ids = torch.tensor([[1, 2, 3, 1, 2]])  # the cat . the cat
    masks = kind_masks(ids, words)
    assert masks["previous word"][0, 4].nonzero().flatten().tolist() == [3]
    assert masks["same word earlier"][0, 3].nonzero().flatten().tolist() == [0]  # "the" at 3 sees "the" at 0
    assert masks["same word earlier"][0, 4].nonzero().flatten().tolist() == [1]
    assert masks["punctuation"][0, 4].nonzero().flatten().tolist() == [2]
    assert masks["punctuation"][0, 1].sum() == 0  # the "." comes later: not visible yet
    assert masks["start of the sentence"][0, 4].nonzero().flatten().tolist() == [3]
    assert masks["start of the sentence"][0, 2].nonzero().flatten().tolist() == [0]
    assert masks["first word of the window"][0, 4].nonzero().flatten().tolist() == [0]


def test_head_roles_shares_are_attention_fractions_and_chance_is_even_spreading():
    model = course_model(heads=4, seed=0, context=16)
    model.tokenizer = TOK
    ids = torch.randint(1, 5, (16 * 3 + 1,), generator=torch.Generator().manual_seed(0))
    rows = head_roles(model, ids)
    assert [r["head"] for r in rows] == [0, 1, 2, 3]
    for row in rows:
        assert set(row["share"]) == set(KINDS)
        assert all(0 <= v <= 1 for v in row["share"].values())
        assert row["share"]["previous word"] + row["share"]["itself"] <= 1 + 1e-4
    itself = statistics.mean(1 / (i + 1) for i in range(1, 16))
    assert rows[0]["chance"]["itself"] == pytest.approx(itself, abs=1e-4)
    with pytest.raises(ValueError, match="at least 17 word ids"):
        head_roles(model, ids[:10])


def test_shipped_results_agree_with_their_runs():
    results = real_text_results()
    summary = results["summary"]
    for name, model in summary["models"].items():
        runs = [r for r in results["table"].values() if r["model"] == name and r["share"] == 1.0]
        assert model["seeds"] == sorted(r["seed"] for r in runs)
        assert model["test_ppl_mean"] == pytest.approx(statistics.mean(r["test_ppl"] for r in runs), abs=1e-3)
    complete = all(len(summary["models"].get(name, {}).get("seeds", [])) == 3 for name in ("one head", "four heads"))
    target = summary.get("target")
    assert (target is not None) == complete  # a verdict only when every seed of both models was measured
    if target is not None:
        one, four = summary["models"]["one head"], summary["models"]["four heads"]
        wins = all(f < o for f, o in zip(four["test_ppl"], one["test_ppl"], strict=True))
        assert target["met"] == (wins and target["gap"] > target["seed_range"])
    else:
        assert "**not measured**" in (ASSETS.parent / "docs" / "measurements.md").read_text()


@pytest.mark.parametrize(("name", "heads"), [("novel_one_head", 1), ("novel_four_heads", 4)])
def test_real_text_checkpoints_load_by_name_with_the_novels_vocabulary(name, heads):
    model = load_model(name)
    assert model.config.heads == heads and model.tokenizer.words == novel_tokenizer().words
    assert model.card["corpus"].startswith("novels") and model.card["seed"] == 0
    run = real_text_results()["table"][f"table {'one head' if heads == 1 else 'four heads'} seed=0"]
    assert run["checkpoint"] == f"{name}.json" and model.card["val_ppl"] == run["val_ppl"]
    assert model.card["steps"] == run["steps"] == TEXT_RECIPE.steps_for(run["train_words"])


def test_without_the_seed_range_the_note_says_the_threshold_is_not_measured():
    partial = {"summary": RESULTS["summary"] | {"models": {"four heads": {"seeds": [0]}}}}
    del partial["summary"]["target"]
    notes = own_text_notes(_corpus(300_000), partial)
    assert "possibly luck" in notes[0] and "with 1 training seed so far, too few" in notes[0]
    partial["summary"]["models"]["four heads"]["seeds"] = []
    (note,) = own_text_notes(_corpus(300_000), partial)
    assert "not yet with the training seeds it needs" in note and "0 training seed" not in note


def test_gap_figure_fits_a_projector_screen_and_keeps_its_top_tick_clear_of_the_title():
    presenter_mode(True)
    try:
        fig, tallest = gap_figure(RESULTS), style()["tallest"]
    finally:
        presenter_mode(False)
    assert fig.layout.height <= tallest <= 590  # 1280x720 in presenter mode shows about 590 px of a notebook
    assert fig.layout.yaxis.range[1] > 1.2  # headroom over the top point
    assert fig.layout.xaxis.range[0] < math.log10(9_000)  # the first tick label clears the y axis's labels


def test_gap_figure_says_when_it_has_only_one_point():
    one_amount = {"summary": RESULTS["summary"] | {"gap_by_words": RESULTS["summary"]["gap_by_words"][-1:]}}
    notes = [a.text for a in gap_figure(one_amount).layout.annotations if "one point" in a.text]
    assert len(notes) == 1 and "benchmarks.real_text table" in notes[0]
    assert not [a for a in gap_figure(RESULTS).layout.annotations if "one point" in a.text]


def test_gap_figure_keeps_a_tiny_texts_huge_gap_from_flattening_the_rest():
    rows = RESULTS["summary"]["gap_by_words"]
    huge = {"summary": RESULTS["summary"] | {"gap_by_words": [rows[0] | {"gap": -2959.0}, *rows[1:]]}}
    fig = gap_figure(huge)
    assert list(fig.data[0].x) == [240_000, 960_000]  # the other points stay readable
    assert list(fig.layout.xaxis.tickvals) == [240_000, 960_000] and list(fig.layout.xaxis.ticktext) == [
        "240k", "960k"]  # a tick at each point and none between
    (note,) = [a for a in fig.layout.annotations if "far off the scale" in a.text]
    assert note.text == "not drawn, far off the scale: 9,000 words: gap -2,959"
    assert note.yref == "paper" and note.y == 0 and note.yanchor == "top" and note.yshift < 0  # under the panels
    wild = {"summary": RESULTS["summary"] | {"gap_by_words": [rows[0] | {"gap": 118_977.0}, *rows[1:]]}}
    assert list(gap_figure(wild).data[0].x) == [240_000, 960_000]  # a huge win is kept off the scale as well
    assert any("9,000 words: gap +118,977" in a.text for a in gap_figure(wild).layout.annotations)
    many = {"summary": RESULTS["summary"] | {"gap_by_words": [
        {"train_words": words, "gap": 100_000.0 + words, "one_head": 0.0, "four_heads": 0.0}
        for words in range(1_000, 9_000, 1_000)] + rows[1:]}}
    presenter_mode(True)
    try:
        (note,) = [a for a in gap_figure(many).layout.annotations if "far off the scale" in a.text]
    finally:
        presenter_mode(False)
    lines = note.text.split("<br>")  # several lines on a projector, never an item cut in two
    assert len(lines) > 1 and all(len(line) <= 70 for line in lines) and note.text.count("gap +") == 8
