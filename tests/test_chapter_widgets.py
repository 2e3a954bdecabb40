"""The chapter widgets driven from Python: what they compute, what they show, and how they take bad values."""

import html
import json
import math
import re

import pytest
import torch
from IPython.display import HTML

from helpers.chapter_widgets import change_one_word, split_the_width, spotlight_playground, step_through
from helpers.chapter_widgets.playground import CLUE_BOOST
from helpers.chapter_widgets.split_width import AT_ONCE, HEAD_COUNTS, TRAINED, UNTRAINED
from helpers.chapter_widgets.step_through import STEPS, static_step_through
from helpers.explorer_figures import head_figure
from helpers.model import attention_layer_size
from helpers.plots import ink, presenter_mode
from helpers.reading import unique_labels
from helpers.static import STATIC_ENV
from helpers.stories import ADJECTIVES

WORDS = "the animal that crossed the wet street".split()
FEATURES = ["living", "place", "action", "describes", "grammar"]
CLUES = ["animal", "crossed", "wet"]
SENTENCE = [*WORDS, "was", "tired"]
VECTORS = torch.randn(len(WORDS), len(FEATURES), generator=torch.Generator().manual_seed(0))
Q, K, V = torch.randn(3, len(SENTENCE), 4, generator=torch.Generator().manual_seed(0))


@pytest.fixture(scope="module")
def split() -> object:
    return split_the_width()


@pytest.fixture
def static_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """A site or slide build: each widget's factory returns its static copy."""
    monkeypatch.setenv(STATIC_ENV, "1")


def test_playground_weights_share_100_percent_and_one_spotlight_gives_three_clues_a_third() -> None:
    p = spotlight_playground(WORDS, VECTORS, FEATURES, CLUES)
    p.set_score("animal", 4.0)
    assert math.isclose(float(p.weights.sum()), 1.0, rel_tol=1e-6) and int(p.weights.argmax()) == 1
    assert p.bars.figure["panels"][0]["series"][0]["y"] == pytest.approx(p.weights.tolist(), abs=1e-6)
    assert f"{(p.weights @ VECTORS)[0]:.2f}" in p.average.value  # the weighted average of the vectors
    p.preset("plain average")
    assert f"{1 / len(WORDS):.1%}" in p.summary_text and "animal" not in p.summary_text.split("(all weights")[0]
    even = p.summary_text.rsplit(": ", 1)[-1]  # why no clue gets more: the spread is even, not a third's limit
    p.set_score("animal", -5.0)  # the six others tie: all of them named, none picked out
    named = p.summary_text.split(" (all weights")[0]
    assert f"to each of {len(WORDS) - 1} words" in named and "animal" not in named and "'wet'" in named, named
    p.preset("three clues")
    assert [s.value for s in p.sliders if s.value > 0] == [CLUE_BOOST] * 3
    assert float(p.weights[WORDS.index(CLUES[0])]) < 0.3, "room to climb to a third as the temperature falls"
    named = p.summary_text.split(" (all weights")[0].split("looks most at")[1]
    assert sorted(word for word in WORDS if f"'{word}'" in named) == sorted(CLUES), named
    for temperature in (1.0, 0.1):  # as sharp as the slider goes: still a third at most
        p.set_temperature(temperature)
        shares = [float(p.weights[WORDS.index(c)]) for c in CLUES]
        assert max(shares) - min(shares) < 1e-6 and max(shares) <= 1 / 3 + 1e-6
    assert min(shares) > 1 / 3 - 1e-3, "at the sharpest, the three clues share nearly everything"
    balanced = p.summary_text.rsplit(": ", 1)[-1]  # why the weakest clue has no more: the limit of a third
    assert balanced != even, "three clues at a third each: the summary gives the third's limit as the reason"
    p.preset("one clue")
    assert p.summary_text.rsplit(": ", 1)[-1] != balanced, "one clue ahead: the summary gives the other reason"
    p.preset("three clues")
    p.set_score(next(word for word in WORDS if word not in CLUES), 10.0)  # the spotlight on a word that is no clue
    assert "the spotlight is on other words" in p.summary_text, p.summary_text
    p.set_temperature(4.0)
    soft = float(p.weights.max())
    shares = [f"'{c}' {float(p.weights[WORDS.index(c)]):.1%}" for c in CLUES]  # as the bars label them
    assert all(share in p.summary_text for share in shares), (shares, p.summary_text)
    p.set_temperature(0.5)
    assert float(p.weights.max()) > soft and p.temperature_slider.value == pytest.approx(0.5)
    p.temperature_slider.value = 10**-0.25  # a step of the log slider: its readout and the title say the same
    assert f"temperature {format(p.temperature, p.temperature_slider.readout_format)})" in p.bars.figure["title"]


@pytest.mark.parametrize("call", [lambda p: p.set_temperature(0), lambda p: p.set_temperature(float("nan")),
                                  lambda p: p.set_score("zebra", 1.0), lambda p: p.set_score(0, float("inf")),
                                  lambda p: p.preset("four clues")])
def test_playground_bad_values_get_a_message_and_keep_the_widget(call) -> None:
    p = spotlight_playground(WORDS, VECTORS, FEATURES, CLUES)
    p.preset("three clues")
    before = p.weights.clone()
    call(p)
    assert p.problem and p.problem in html.unescape(p.message.value) and torch.equal(p.weights, before)
    p.set_score("animal", 2.0)  # the next good value simply works
    assert p.problem == "" and p.message.value == ""


def _states(page: HTML) -> dict:
    """The figures a static copy holds, by the menu choices that show them ("0|1")."""
    return json.loads(re.search(r"states = (\{.*?\}), listeners", page.data, re.S)[1].replace("<\\/", "</"))


def test_playground_static_copy_has_presets_and_temperatures(static_build: None) -> None:
    page = spotlight_playground(WORDS, VECTORS, FEATURES, CLUES)
    states = _states(page)
    assert len(states) == 3 * 6 and "<option value='1' selected>three clues</option>" in page.data
    for spec in states.values():
        assert sum(spec["panels"][0]["series"][0]["y"]) == pytest.approx(1.0, abs=1e-5)
    sharp, soft = (max(states[f"2|{t}"]["panels"][0]["series"][0]["y"]) for t in (0, 5))  # "one clue"
    assert sharp > soft
    weights = torch.tensor(states["2|0"]["panels"][0]["series"][0]["y"])  # under the bars, as live: the average
    average = weights @ VECTORS  # [F]
    assert all(f"{x:.2f}</td>" in states["2|0"]["below"] for x in average.tolist())
    assert f"{sharp:.1%}" in states["2|0"]["caption"], "and the summary line"


def test_step_through_shows_every_step_with_its_shape_and_computes_it_right() -> None:
    s = step_through(SENTENCE, Q, K, V)
    for n, shape in enumerate([[4], [9], [9], [9], [9], [4]]):
        s.go_to(n)
        assert list(s.tensors[n].shape) == shape and f"has shape <b>{shape}</b>" in s.view.value
    s.set_word(3)
    _, raw, scaled, masked, weights, y = s.tensors
    assert torch.allclose(raw, K @ Q[3]) and torch.allclose(scaled, raw / 2)  # sqrt(D) = 2
    assert torch.isinf(masked[4:]).all() and not torch.isinf(masked[:4]).any()
    assert float(weights[4:].sum()) == 0 and math.isclose(float(weights.sum()), 1, rel_tol=1e-6)
    assert torch.allclose(y, weights @ V)
    s.go_to(5)  # y first, on screen with the buttons; then each row of v beside the weight it is multiplied by
    labels = unique_labels(SENTENCE)  # 'the', 'the (2)'
    assert all(f"{word}: weight {w:.1%}" in s.view.value for w, word in zip(weights.tolist(), labels, strict=True))
    assert s.view.value.index("y[i] = weights @ v") < s.view.value.index(f"the: weight {weights[0]:.1%}")
    worked = re.search(r"y's d0 = (.*?) = (-?[\d.]+) \(", s.view.value)  # one number of y, its sum written out
    assert worked and worked[1].count("×") == 4 and float(worked[2]) == pytest.approx(float(y[0]), abs=0.005)
    s.go_to(2)
    assert "scaled scores" in s.summary_text
    s.set_scale(False)
    assert torch.allclose(s.tensors[2], raw) and "not scaled" in s.summary_text and "not scaled</u>" in s.view.value


def test_step_through_back_button_and_a_step_or_word_that_does_not_exist() -> None:
    """Next and the step slider are driven by keyboard in tests/browser/test_live_views.py."""
    s = step_through(SENTENCE, Q, K, V)
    assert s.back.disabled
    s.go_to(2)
    s.back.click()
    assert s.step == 1 and not s.back.disabled
    s.go_to(6)  # past the last step
    assert s.problem and s.step == 1
    s.set_word(42)
    assert "42" in s.message.value and s.position == 8


def test_step_through_static_copy_has_every_word_and_step(static_build: None) -> None:
    page = step_through(SENTENCE, Q, K, V).data
    assert page.count("<details") == len(SENTENCE) * (1 + len(STEPS))  # a fold-out per word, one per step
    assert page.count("has shape") == len(SENTENCE) * (len(STEPS) + 1) and "<script" not in page  # v's too
    assert page.count("<details open>") == 1 + len(STEPS), "at reading sizes the last word's steps are open"


def test_split_counts_parameters_from_the_model_code_at_sizes_that_fit(split) -> None:
    tall = {}
    for heads in HEAD_COUNTS:
        split.set_heads(heads)
        with_proj = attention_layer_size(128, heads, out_proj=True)["attention_params"]
        without = attention_layer_size(128, heads, out_proj=False)["attention_params"]
        drawn = with_proj if heads > 1 else without  # the course's one head has no output projection
        assert (split.option.params, split.option.qkv_params) == (drawn, without)
        assert split.option.att.shape[0] == heads == split.strip.value.count("title='head")
        assert f"of {128 // heads}" in split.strip.value, "the split says how many numbers each head gets"
        named = [h for h in range(16) if f"head\u00a0{h}\u00a0→" in split.summary_text]  # one line per head's answer
        assert named == list(range(min(heads, AT_ONCE)))
        count = split.strip.value.split("</div>")[-2]  # under the split bar, above the heatmaps (in view at 720 px)
        assert f"value {without:,} " in count and f">{drawn:,} parameters" in count and not split.grid.figure["caption"]
        assert split.grid.figure["panels"][0]["focus"] == len(split.words) - 3, "'bridge' guesses 'sigh'"
        assert ("no output projection" in count) == (heads == 1)
        assert [p["title"] for p in split.grid.figure["panels"]] == [f"head {h}" for h in range(min(heads, AT_ONCE))]
        assert len(split.group_picker.options) == max(1, heads // AT_ONCE)
        assert (split.group_picker.layout.visibility == "visible") == (heads > AT_ONCE)
        tall[heads] = split.grid.figure["height"]
    alone = head_figure(split.option.att[0], split.words, "one head alone")["height"]
    assert tall[4] < tall[1] <= alone, f"one head's grid is no taller than its heatmap alone: {tall}, {alone}"
    assert [ink(c) for c in ("#F0E442", "#E69F00", "#0072B2", "#000000")] == ["black", "black", "white", "white"]


def test_split_draws_many_heads_four_at_a_time(split) -> None:
    split.set_heads(16)
    for first in (4, 12):
        split.show_heads_from(first)
        spec = split.grid.figure
        assert [p["title"] for p in spec["panels"]] == [f"head {h}" for h in range(first, first + 4)]
        assert f"{first} to {first + 3}" in spec["title"]
        heatmaps = [torch.tensor([[0.0 if v is None else v for v in row] for row in p["z"]]) for p in spec["panels"]]
        assert torch.allclose(torch.stack(heatmaps), split.option.att[first : first + 4].tril(), atol=1e-4)
        marked = re.findall(r"title='head (\d+)[^>]*solid #222", split.strip.value)
        assert marked == [str(h) for h in range(first, first + 4)], "the strip marks the heads drawn"
    split.show_heads_from(6)
    assert "0, 4, 8, 12" in split.problem and split.first == 12
    split.set_heads(8)
    assert split.first == 0 and split.group_picker.value == 0
    split.set_heads(4)
    assert "#222" not in split.strip.value, "all four heads are drawn: none stands out"


def test_split_trained_checkpoint_fixes_four_heads_and_bad_values_get_a_message(split) -> None:
    split.set_heads(16)
    split.show_heads_from(12)
    split.set_layer(TRAINED)
    assert split.option.heads == 4 and split.head_buttons.disabled and split.head_buttons.value == 4
    assert split.group_picker.value == 0 and len(split.grid.figure["panels"]) == 4
    assert not torch.equal(split.option.att, split.options[HEAD_COUNTS.index(4)].att)
    split.set_layer(UNTRAINED)
    assert split.option.heads == 16 == split.head_buttons.value, "the learner's own count comes back"
    assert split.group_picker.value == 12 and split.grid.figure["title"].endswith("heads 12 to 15"), "and its heads"
    split.set_layer(TRAINED)
    split.set_heads(8)  # picking a head count goes back to the untrained layer
    assert split.layer != TRAINED and not split.head_buttons.disabled
    for bad in (lambda: split.set_heads(3), lambda: split.set_layer("half trained")):
        bad()
        assert split.problem and split.message.value and split.option.heads == 8


def test_split_of_a_sentence_of_ones_own_says_how_the_model_read_it() -> None:
    empty, unknown = split_the_width(" "), split_the_width("the zebra crossed " + "the wet street " * 50)
    assert empty.message_lines == ["Empty sentence: showing the chapter's sentence instead."] and empty.words
    empty.set_heads(2)
    assert empty.message_lines and empty.grid.figure["panels"], "said while the chapter's sentence is drawn"
    assert "'zebra'" in unknown.message.value and "showing the first 128" in unknown.message.value
    unknown.set_heads(2)
    assert "'zebra'" in unknown.message.value and not unknown.problem, "the notes stay with the sentence"
    short, alone = split_the_width("the fox sees the zebra"), split_the_width("bridge")  # one word: nothing later
    assert "= zebra', looks hardest at" in short.summary_text and "guesses" not in alone.summary_text, "as typed"


def test_split_static_copy_has_every_option_and_four_heads_at_a_time(static_build: None) -> None:
    states = _states(split_the_width())
    assert len(states) == (len(HEAD_COUNTS) + 1) * (max(HEAD_COUNTS) // AT_ONCE)
    for n, heads in enumerate((*HEAD_COUNTS, 4)):
        drawn = [p["title"] for p in states[f"{n}|3"]["panels"]]
        assert drawn == [f"head {h}" for h in range(max(0, heads - AT_ONCE), heads)][:AT_ONCE]
        assert f"of {128 // heads}" in states[f"{n}|0"]["above"] and "parameters: " in states[f"{n}|0"]["above"]
        assert states[f"{n}|3"]["above"].count("title='head ") == heads, "the split bar, a slice for each head"
        assert [h for h in range(16) if f"head\u00a0{h}\u00a0→" in states[f"{n}|3"]["above"]] == list(range(heads))[-4:]
        assert (f"With {heads} head" in states[f"{n}|3"]["caption"]) == (heads < 16), "it says what it drew instead"
        assert (f"With {heads} head" in states[f"{n}|0"]["caption"]) == (heads < AT_ONCE), "fewer than it names"


def test_change_one_word_attention_moves_later_words_feed_forward_only_its_own() -> None:
    """The feed-forward part alone moves at the changed word only; inside the block wherever attention moved."""
    w = change_one_word()
    for position in (2, w.words.index("wet"), 6):  # 6: the second 'the'
        w.set_position(position)
        w.set_replacement("girl")
        assert w.bars.figure["title"].startswith(f"'{w.word_picker.label}' → 'girl'")
        later = len(w.words) - position
        assert (w.attn_moved[:position] == 0).all() and (w.attn_moved[position:] > 1e-5).all()
        assert (w.ff_moved > 1e-5).tolist() == [i == position for i in range(len(w.words))]
        assert ((w.inside_moved > 1e-5) == (w.attn_moved > 1e-5)).all()
        assert w.bars.figure["panels"][0]["series"][0]["y"] == pytest.approx(w.attn_moved.tolist(), abs=1e-6)
        assert f"at {later} positions." in w.summary_text  # inside the block: wherever attention moved
        ticks, top = w.bars.figure["panels"][0]["ticks"], w.bars.figure["panels"][0]["ymax"]
        step = ticks[1]  # a round step (1, 2 or 5 times a power of ten), the last line the top of the axis
        assert round(step / 10 ** math.floor(math.log10(step)), 6) in (1, 2, 5), ticks
        assert ticks == pytest.approx([k * step for k in range(len(ticks))])
        assert 3 <= len(ticks) <= 7 and ticks[-1] == top >= max(w.attn_moved.max(), w.ff_moved.max())
    assert [w.set_position(p) or w.new_word for p in (3, 2)] == ["girl", "a"], "typed: kept for 'fox', its kind only"


@pytest.mark.parametrize("word", ["zebraish", "two words", 7, "wet", "a long paste of many words, " * 9, "!!!",
                                  "", "x" * 300])
def test_change_one_word_bad_replacements_get_a_message(word) -> None:  # wet: the word already there
    w = change_one_word()
    before = w.attn_moved.clone()
    w.set_replacement(word)
    assert w.problem and torch.equal(w.attn_moved, before), "the bars stay"
    assert w.replacement.value == (word if isinstance(word, str) else w.new_word), "typed: kept to correct"
    tried = re.findall(r"'(\w+)'", w.problem.partition("try ")[2])  # not the box's word; others like 'wet'
    assert len(w.problem) <= 80 and w.new_word not in tried and set(tried) <= set(ADJECTIVES), "a projector line"
    w.set_position(99)
    assert "99" in w.problem


def test_change_one_word_static_copy_changes_each_word(static_build: None) -> None:
    states = _states(change_one_word())
    assert len(states) == 11
    attn, ff = (p["series"][0]["y"] for p in states["3"]["panels"])
    assert [a > 1e-5 for a in attn] == [i >= 3 for i in range(11)]
    assert [f > 1e-5 for f in ff] == [i == 3 for i in range(11)] and "at 8 positions" in states["3"]["caption"]


def test_presenter_mode_enlarges_the_widgets_and_folds_the_static_step_through(presenter: bool) -> None:
    """Whether each live widget fits a 1280x720 projector is measured on screen: tests/browser/test_live_views.py."""
    big, step = spotlight_playground(WORDS, VECTORS, FEATURES, CLUES), step_through(SENTENCE, Q, K, V)
    folded = static_step_through(SENTENCE, Q, K, V)
    presenter_mode(False)
    step.go_to(5)  # the last step: y, and its rows of v folded under it, so that y shows whole with the buttons
    assert "<details" in step.view.value and "<details" not in step_through(SENTENCE, Q, K, V).view.value
    assert "<details open" not in folded.data, "on a projector every fold-out starts closed, so the slide fits"
    small = spotlight_playground(WORDS, VECTORS, FEATURES, CLUES)
    assert big.font > small.font and big.bars.figure["font"] > small.bars.figure["font"]
    assert "font-size: 22px" in step.view.value
    big.preset("one clue")  # after the switch to reading sizes, the presenter's widget redraws at its own
    assert big.bars.figure["font"] == big.font and big.bars.figure["height"] <= 580 - 2 * 22
