"""Real-text results: the notes on a learner's own text take their threshold from the amounts measured over seeds,
the gap figure is labelled, head roles are measured on the right words, the shipped results agree with their runs."""

from __future__ import annotations

import statistics

import pytest
import torch

from helpers.checkpoints import load_model
from helpers.head_roles import KINDS, head_roles, kind_masks
from helpers.model import course_model
from helpers.novels import novel_tokenizer
from helpers.own_text import copied_share, heads_notes
from helpers.plots import presenter_mode, style
from helpers.real_text import gap_figure, noise_threshold, novel_runs, own_text_notes, real_text_results
from helpers.recipes import TEXT_RECIPE
from helpers.tokenizer import Tokenizer
from helpers.train import Corpus, text_corpus


def _row(words: int, gap: float, noise: float) -> dict:
    return {"train_words": words, "seeds": [0, 1, 2], "gap": gap, "seed_range": noise, "clear": abs(gap) > noise}


ROWS = [_row(9_000, 3.0, 6.0), _row(60_000, 0.5, 1.0), _row(240_000, 2.0, 0.6), _row(960_000, 2.5, 0.4)]
RESULTS = {"summary": {"unknown_share": 0.18, "gap_by_words": ROWS}}
TOK = Tokenizer.from_words(["the", "cat", ".", "a"])


def _with(rows: list[dict]) -> dict:
    return {"summary": RESULTS["summary"] | {"gap_by_words": rows}}


def _corpus(n_train: int = 300_000, unknown_every: int = 0, kinds: int = 100) -> Corpus:
    """A text of n_train training words of `kinds` different words; every unknown_every-th validation word <unk>."""
    val = torch.ones(1000, dtype=torch.long)
    if unknown_every:
        val[::unknown_every] = 0
    return Corpus("mine.txt", TOK, torch.arange(n_train) % kinds + 1, val)


def test_the_threshold_is_where_the_gap_leaves_the_seeds_noise_for_good():
    assert noise_threshold(RESULTS) == (60_000, 240_000, 3)
    lucky_start = [_row(9_000, 9.0, 6.0), *ROWS[1:]]  # a tiny amount beyond the noise below one within it
    assert noise_threshold(_with(lucky_start))[:2] == (60_000, 240_000)
    assert noise_threshold(_with([_row(9_000, 1.0, 6.0), _row(60_000, 0.5, 1.0)]))[:2] == (60_000, None)
    assert noise_threshold(_with([r | {"seeds": [0]} for r in ROWS])) is None  # one seed has no noise to measure


def test_a_text_gets_a_note_on_its_length_naming_the_measured_amounts():
    short, between, long = (own_text_notes(_corpus(n), RESULTS) for n in (50_000, 100_000, 300_000))
    assert len(short) == len(between) == len(long) == 2  # the length note, then the <unk> share
    assert "300,000" in long[0] and "240,000" in long[0] and long[0] not in (short[0], between[0])
    assert "60,000" in short[0] and "240,000" in short[0] and "50,000" in short[0] and short[0] != between[0]
    never = own_text_notes(_corpus(), _with(ROWS[:2]))
    assert len(never) == 2 and "60,000" in never[0] and len(own_text_notes(_corpus(), _with([]))) == 2  # no claim


def test_the_unknown_share_is_always_given_and_compared_with_the_novels():
    _, plain = own_text_notes(_corpus(), RESULTS)  # after the length note
    _, many = own_text_notes(_corpus(unknown_every=2), RESULTS)  # half the words are <unk>
    assert "0.0%" in plain and "18.0%" in plain and "50.0%" in many and "18.0%" in many and len(many) > len(plain)
    assert heads_notes(_corpus(unknown_every=2), 1.0, RESULTS) == []  # half: a warning, still a score
    assert len(heads_notes(_corpus(unknown_every=1), 1.0, RESULTS)) == 1  # all <unk>: no verdict on heads
    assert len(own_text_notes(_corpus(unknown_every=1), RESULTS)) == 2, "the share said once, with what it voids"


def test_a_text_of_very_few_different_words_or_one_that_repeats_itself_gets_a_note():
    assert len(own_text_notes(_corpus(kinds=1), RESULTS)) == 3  # one note more than _corpus() gets
    assert heads_notes(_corpus(), 1.003, RESULTS) == [] and len(heads_notes(_corpus(kinds=1), 1.0, RESULTS)) == 1
    text = torch.randint(1, 1000, (300_000,), generator=torch.Generator().manual_seed(0))
    fresh = Corpus("mine.txt", TOK, text, torch.randint(1, 1000, (1000,), generator=torch.Generator().manual_seed(1)))
    pasted_twice = Corpus("mine.txt", TOK, text, text[5_000:6_000])  # the validation part was read in training
    assert copied_share(fresh) == 0.0 and copied_share(pasted_twice) == 1.0
    assert copied_share(Corpus("mine.txt", TOK, text * 0, text[:1000] * 0)) == 0.0, "runs of <unk> are no copy"
    assert len(own_text_notes(pasted_twice, RESULTS)) == len(own_text_notes(fresh, RESULTS)) + 1


def test_a_text_written_without_spaces_gets_a_note_and_if_too_short_a_hint(tmp_path):
    spaced = _corpus()
    spaced.val_words = ["the", "cat", "unbelievably", "."] * 250
    unspaced = _corpus()
    unspaced.val_words = ["我今天去了公园", "，", "天气很好", "。"] * 250  # clauses between punctuation marks
    assert len(own_text_notes(unspaced, RESULTS)) == len(own_text_notes(spaced, RESULTS)) + 1
    spaced.val_words = ["我", "今天", "去", "了", "公园", "，", "天气", "很", "好", "。"] * 100  # spaces put in
    assert len(own_text_notes(spaced, RESULTS)) == len(own_text_notes(unspaced, RESULTS)) - 1
    assert "64% of the validation part's letters run together" in own_text_notes(unspaced, RESULTS)[-1]
    (tmp_path / "diary.txt").write_text("我今天去了公园，天气很好。\n" * 40, encoding="utf-8")
    with pytest.raises(ValueError, match=r"too short to train on.*written without spaces between words"):
        text_corpus(tmp_path / "diary.txt")


def test_unknown_words_the_training_part_never_showed_cost_the_model_dearly():
    """A short text: every training word fits the vocabulary, so <unk> is new to the model in the validation part."""
    short = own_text_notes(_corpus(unknown_every=4), RESULTS)[1]
    full = Corpus("mine.txt", Tokenizer.from_words([f"w{i}" for i in range(1023)]), torch.arange(300_000) % 100 + 1,
                  _corpus(unknown_every=4).val_ids)
    assert "never learnt to expect one" in short and "easy guess" in own_text_notes(full, RESULTS)[1]


def test_a_perplexity_above_the_different_validation_words_gets_a_note():
    corpus = _corpus()
    corpus.val_ids[:3] = torch.tensor([2, 3, 4])  # four different words in the validation part
    base = len(own_text_notes(corpus, RESULTS))
    assert len(own_text_notes(corpus, RESULTS, val_ppl=3.9)) == base
    for ppl in (12.5, 2_000.0, float("nan")):  # above the words that come up, above the vocabulary, no score
        assert len(own_text_notes(corpus, RESULTS, val_ppl=ppl)) == base + 1
    note = own_text_notes(corpus, RESULTS, val_ppl=2_000.0)[-1]  # TOK: 4 words of a text, <unk>, 1,019 reserved
    assert "1,024" in note and "1,019" in note, note
    assert own_text_notes(corpus, RESULTS, val_ppl=2_500.0)[-1] == note, "two models' race prints one note, not two"


def test_gap_figure_draws_the_gap_over_the_seeds_noise_and_fits_a_projector(presenter: bool):
    fig, tallest = gap_figure(RESULTS), style()["tallest"]
    assert fig.layout.height <= tallest <= 590 and fig.layout.width <= 850
    presenter_mode(False)
    fig = gap_figure(RESULTS)
    assert fig.layout.xaxis.title.text.startswith("words of training text") and "minus" in fig.layout.yaxis.title.text
    gap = fig.data[-1]
    assert list(gap.x) == [r["train_words"] for r in ROWS] and list(gap.y) == [r["gap"] for r in ROWS]
    assert list(fig.data[0].y) == [r["seed_range"] for r in ROWS] and fig.data[1].fill == "tonexty"
    with pytest.raises(ValueError, match="amounts"):
        gap_figure(_with([]))


@pytest.mark.parametrize(("kind", "query", "keys"), [
    ("one word back", 4, [3]), ("same word earlier", 3, [0]), ("same word earlier", 4, [1]),  # "the" sees "the"
    ("punctuation", 4, [2]), ("punctuation", 1, []),  # the "." comes later: not visible to word 1 yet
    ("start of the sentence", 4, [3]), ("start of the sentence", 2, [0]), ("first word of the window", 4, [0])])
def test_kind_masks_pick_the_right_earlier_words(kind: str, query: int, keys: list[int]):
    masks = kind_masks(torch.tensor([[1, 2, 3, 1, 2]]), TOK.words)  # the cat . the cat
    assert masks[kind][0, query].nonzero().flatten().tolist() == keys


def test_head_roles_shares_are_attention_fractions_and_chance_is_even_spreading():
    model = course_model(heads=4, seed=0, context=16)
    model.tokenizer = TOK
    ids = torch.randint(1, 5, (16 * 3 + 1,), generator=torch.Generator().manual_seed(0))
    rows = head_roles(model, ids)
    assert [r["head"] for r in rows] == [0, 1, 2, 3]
    for row in rows:
        assert set(row["share"]) == set(KINDS) and all(0 <= v <= 1 for v in row["share"].values())
        assert row["share"]["one word back"] + row["share"]["itself"] <= 1 + 1e-4
    itself = statistics.mean(1 / (i + 1) for i in range(1, 16))
    assert rows[0]["chance"]["itself"] == pytest.approx(itself, abs=1e-4)
    with pytest.raises(ValueError, match="at least 17 word ids"):
        head_roles(model, ids[:10])


def test_shipped_results_agree_with_their_runs():
    results = real_text_results()
    runs = novel_runs(results)
    for heads, name in ((1, "one head"), (4, "four heads")):
        mean = statistics.mean(run["test_ppl"] for run in runs if run["heads"] == heads)
        assert results["summary"]["models"][name]["test_ppl_mean"] == pytest.approx(mean, abs=1e-3)
    for row in results["summary"]["gap_by_words"]:
        assert len(row["seeds"]) >= 2 and len(row["one_head"]) == len(row["four_heads"]) == len(row["seeds"])
        gap = statistics.mean(row["one_head"]) - statistics.mean(row["four_heads"])
        noise = max(max(s) - min(s) for s in (row["one_head"], row["four_heads"]))
        assert row["gap"] == pytest.approx(gap, abs=1e-3) and row["clear"] == (abs(gap) > noise)
    assert noise_threshold(results) is not None  # the notes on a learner's short text have amounts to name


@pytest.mark.parametrize(("name", "heads"), [("novel_one_head", 1), ("novel_four_heads", 4)])
def test_real_text_checkpoints_load_by_name_with_the_novels_vocabulary(name, heads):
    model = load_model(name)
    assert model.config.heads == heads and model.tokenizer.words == novel_tokenizer().words
    assert model.card["corpus"].startswith("novels") and model.card["seed"] == 0
    run = real_text_results()["table"][f"table {'one head' if heads == 1 else 'four heads'} seed=0"]
    assert run["checkpoint"] == f"{name}.json" and model.card["val_ppl"] == run["val_ppl"]
    assert model.card["steps"] == run["steps"] == TEXT_RECIPE.steps_for(run["train_words"])
