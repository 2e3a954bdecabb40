"""The attention explorer driven from code, without a browser: behaviour, and bad input that must not break it.

Most tests use freshly initialised course models with the story-world tokenizer (fast, and independent of
the trained checkpoints); the last ones open the real checkpoints through explore().
"""

from __future__ import annotations

import math
import re
from functools import cache
from pathlib import Path

import nbformat
import plotly.graph_objects as go
import pytest
import torch
from plotly.callbacks import InputDeviceState, Points

from helpers.checkpoints import CheckpointError, load_model, save_checkpoint
from helpers.course import COURSE_EXAMPLES
from helpers.examples import default_examples, novel_examples
from helpers.explorer import ALL_HEADS, CONTROLS, PICK, Explorer, explore, static_explorer
from helpers.model import CourseModel, course_model
from helpers.plots import FIT_WIDTH, heatmap_side, least_label, presenter_mode, quoted, style
from helpers.reading import attention, read_sentence, summarise, unique_labels
from helpers.registry import DEFAULT, NOVELS, STORY_WORLD, shipped, shipped_names
from helpers.stories import example_sentences
from helpers.tokenizer import story_tokenizer
from helpers.train import main as train_main
from helpers.train import story_corpus, train

SAMPLE = Path(__file__).resolve().parent / "data" / "sample.txt"
NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

STORY = "sadly , the foxes that cross the old bridge sigh ."
OTHER = "wearily , tom looks at the sky . then he quietly sobs and weeps ."


@cache
def _model(name: str) -> CourseModel:
    entry = shipped(name)
    if entry.text == NOVELS:
        return load_model(name)  # the real-text checkpoints, loaded by name (they may be retrained)
    model = course_model(heads=entry.heads, seed=0).eval()
    model.tokenizer = story_tokenizer()
    return model


def _explorer(**kwargs) -> Explorer:
    return Explorer(loader=_model, **kwargs)


def _grid(trace) -> list[list[float]]:
    """A heatmap trace's z as lists, masked cells (None) as NaN."""
    return [[math.nan if v is None else float(v) for v in row] for row in trace.z]


def _assert_shows(ex: Explorer, sentence: str) -> None:
    """The heatmap shows `sentence`'s words on both axes, the future masked and each row summing to 1."""
    labels = unique_labels(story_tokenizer().encode_with_report(sentence).words)
    shown, masked = ex.heatmap.data
    assert list(shown.x) == labels and list(shown.y) == labels
    z = _grid(shown)
    for i, row in enumerate(z):
        assert all(math.isnan(v) for v in row[i + 1 :]), f"row {i} shows weights for later words"
        assert sum(row[: i + 1]) == pytest.approx(1, abs=1e-5)
        assert [v == 1 for v in _grid(masked)[i][i + 1 :]] == [True] * (len(row) - i - 1)
        assert all(math.isnan(v) for v in _grid(masked)[i][: i + 1]), f"row {i} greys out words it may see"


# ----- behaviour ---------------------------------------------------------------------------------------


def test_opens_on_a_story_sentence_with_words_on_both_axes() -> None:
    ex = _explorer(sentence=STORY)
    _assert_shows(ex, STORY)
    assert ex.model_picker.value == "four_heads"
    assert [label for label, _ in ex.head_picker.options] == ["head 0", "head 1", "head 2", "head 3", ALL_HEADS]
    assert ex.heatmap.layout.title.text == "Head 0 of the 4-head model"
    assert ex.heatmap.layout.xaxis.title.text == "word looked at"
    assert ex.heatmap.layout.yaxis.title.text == "word that looks"
    assert ex.heatmap.data[0].colorscale[0][1] != ex.heatmap.data[0].colorscale[-1][1]
    assert ex.message_lines == [] and ex.message.value == ""
    sigh = ex.words.index("sigh")
    assert ex.focus == sigh and ex.focus_picker.value == sigh, "the first focus is the last word, not the '.'"
    assert ex.summary_lines == [
        f"head 0, reading 'sigh', looks mostly at: {summarise(ex.att[0, sigh, : sigh + 1], ex.words[: sigh + 1])}"
    ]


def test_default_sentence_is_the_first_story_example() -> None:
    ex = _explorer()
    assert ex.sentence.value == example_sentences()[0]
    assert ex.offered_examples == list(dict.fromkeys([*COURSE_EXAMPLES, *example_sentences()]))


def test_summary_names_the_strongest_words_in_percent() -> None:
    row = torch.tensor([0.1, 0.61, 0.17, 0.12])
    assert summarise(row, ["the", "animal", "the", "street"]) == "animal 61%, the (2) 17%"
    assert summarise(torch.tensor([1.0]), ["the"]) == "the 100%"


def test_head_change_updates_the_same_figure_in_place() -> None:
    ex = _explorer(sentence=STORY)
    figure, before = ex.heatmap, _grid(ex.heatmap.data[0])
    ex.head_picker.value = 2
    assert ex.heatmap is figure, "the heatmap was rebuilt instead of updated"
    assert ex.heatmap.layout.title.text == "Head 2 of the 4-head model"
    after = _grid(ex.heatmap.data[0])
    assert after != before
    assert torch.allclose(torch.tensor(after).nan_to_num(0), ex.att[2].tril(), atol=1e-6)
    assert ex.summary_lines[0].startswith("head 2, reading 'sigh', looks mostly at: ")


def test_sentence_change_redraws_words_and_weights() -> None:
    ex = _explorer(sentence=STORY)
    ex.sentence.value = OTHER
    _assert_shows(ex, OTHER)
    assert ex.focus_picker.value == ex.words.index("weeps")
    assert [label for label, _ in ex.focus_picker.options] == unique_labels(ex.words)


def test_example_picker_loads_the_example() -> None:
    ex = _explorer(sentence=STORY)
    ex.example_picker.value = example_sentences()[4]
    assert ex.sentence.value == example_sentences()[4]
    _assert_shows(ex, example_sentences()[4])
    ex.sentence.value = STORY
    assert ex.example_picker.value == STORY, "a sentence typed that is an example: the menu names it"
    ex.sentence.value = "the girl walks to the old bridge ."
    assert ex.example_picker.value == PICK[1], "the example list still names a sentence that is not on show"
    assert ex.example_picker.label == PICK[0], "an empty menu would look like a text box"
    ex.example_picker.value = PICK[1]  # choosing the menu's own first entry changes nothing
    assert ex.sentence.value == "the girl walks to the old bridge ." and not ex.problem


def test_in_presenter_mode_the_explorer_opens_on_a_sentence_whose_every_word_is_labelled() -> None:
    presenter_mode(True)
    try:
        ex = explore()
        assert ex.heatmap.layout.xaxis.dtick == 1, f"every {ex.heatmap.layout.xaxis.dtick}th word labelled"
        assert len(ex.sentence.value.split()) == min(len(text.split()) for text in ex._text_examples(DEFAULT))
    finally:
        presenter_mode(False)


def test_all_heads_shows_a_grid_with_one_shared_colour_scale() -> None:
    ex = _explorer(sentence=STORY)
    ex.head_picker.value = ALL_HEADS
    assert ex.figure is ex.grid and len(ex.grid.data) == 8
    assert {(t.zmin, t.zmax) for t in ex.grid.data[::2]} == {(0, 1)}
    assert sum(bool(t.showscale) for t in ex.grid.data[::2]) == 1
    assert ex.grid_box.layout.visibility == "visible" and ex.heatmap_box.layout.visibility == "hidden"
    assert len(ex.summary_lines) == 4 and ex.summary_lines[3].startswith("head 3, reading 'sigh'")
    grid = ex.grid
    ex.sentence.value = OTHER
    assert ex.grid is grid and list(grid.data[6].x) == unique_labels(ex.words)
    ex.head_picker.value = 1
    assert ex.figure is ex.heatmap and ex.grid_box.layout.visibility == "hidden"
    _assert_shows(ex, OTHER)


def test_focus_view_shows_one_words_spotlight_from_every_head() -> None:
    ex = _explorer(sentence=STORY)
    i = ex.words.index("bridge")
    ex.focus_picker.value = i
    assert len(ex.bars.data) == 4
    for h, bars in enumerate(ex.bars.data):
        assert list(bars.x) == unique_labels(ex.words)[: i + 1]
        assert torch.allclose(torch.tensor(list(bars.y), dtype=torch.float32), ex.att[h, i, : i + 1])
    assert ex.bars.layout.title.text == "Where 'bridge' looks, in every head"
    assert ex.summary_lines[0].startswith("head 0, reading 'bridge', looks mostly at: ")


def test_clicking_a_heatmap_row_focuses_on_that_word() -> None:
    ex = _explorer(sentence=STORY)
    trace = ex.heatmap.data[0]
    trace._dispatch_on_click(Points(point_inds=[[3, 1]], xs=["the"], ys=["foxes"], trace_index=0),
                             InputDeviceState())
    assert ex.focus == 3 and ex.focus_picker.value == 3
    assert "reading 'foxes'" in ex.summary_lines[0]


def test_model_picker_switches_to_one_head() -> None:
    ex = _explorer(sentence=STORY)
    ex.head_picker.value = 3
    ex.model_picker.value = "one_head"
    assert ex.model.config.heads == 1 and ex.att.shape[0] == 1
    assert ex.head == 0 and ex.head_picker.value == 0
    assert [label for label, _ in ex.head_picker.options] == ["head 0", ALL_HEADS]
    assert ex.heatmap.layout.title.text == "Head 0 of the one-head model"
    assert len(ex.bars.data) == 1
    assert ex.bars.layout.title.text.startswith("Where '") and "every head" not in ex.bars.layout.title.text
    ex.head_picker.value = ALL_HEADS
    assert len(ex.grid.data) == 2
    _assert_shows(ex, STORY)


def test_models_are_loaded_once_and_cached() -> None:
    calls = []

    def loader(name: str) -> CourseModel:
        calls.append(name)
        return _model(name)

    ex = Explorer(loader=loader, sentence=STORY)
    assert sorted(calls) == sorted(shipped_names())  # every model read once, when the explorer opens
    from helpers import reading as module

    module._loaded["four_heads"] = _model("four_heads")
    try:
        assert module.load_cached("four_heads") is _model("four_heads")
    finally:
        module._loaded.pop("four_heads")
    for name in ("one_head", "novel_four_heads", "novel_one_head", "four_heads"):
        ex.set_model(name)
    assert sorted(calls) == sorted(shipped_names())  # switching reads nothing again


def test_static_figure_switches_heads_and_sentences_with_its_own_menus() -> None:
    sentences = [STORY, OTHER]
    fig = static_explorer("four_heads", sentences=sentences, loader=_model, partner=False)
    assert isinstance(fig, go.Figure) and not isinstance(fig, go.FigureWidget)
    title = fig.layout.title  # a two-line title hung from the figure's top edge (a <br> one was clipped there)
    assert "<br>" not in title.text and title.subtitle.text == "pick a sentence and a head"
    assert (title.yref, title.yanchor) == ("container", "top")
    sentence_menu, head_menu = fig.layout.updatemenus
    assert [b.label for b in head_menu.buttons] == ["head 0", "head 1", "head 2", "head 3"]
    assert len(sentence_menu.buttons) == 2 and len(fig.data) == 4
    assert [t.visible for t in fig.data] == [True, True, False, False]
    assert sentence_menu.buttons[1].args[0]["visible"] == [False, False, True, True]
    restyle, traces = head_menu.buttons[2].args
    assert list(traces) == [0, 2]
    model = _model("four_heads")
    for s, sentence in enumerate(sentences):
        att = model(torch.tensor(model.tokenizer.encode(sentence)), return_attention=True)[1][0]
        z = torch.tensor([[math.nan if v is None else v for v in row] for row in restyle["z"][s]])
        assert torch.allclose(z.nan_to_num(0), att[2].tril(), atol=1e-6)
        assert list(fig.data[2 * s].x) == unique_labels(story_tokenizer().encode_with_report(sentence).words)


# ----- bad input: a message in the widget, never a traceback, and the next good input works -----------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ["The sentence is empty", "still shows the previous sentence"]),
        ("    \n ", ["The sentence is empty"]),
        ("!!! ??? ...", []),  # punctuation only: known tokens, no problem
    ],
)
def test_empty_sentence_gets_a_message_and_keeps_the_last_heatmap(text: str, expected: list[str]) -> None:
    ex = _explorer(sentence=STORY)
    before = list(ex.heatmap.data[0].x)
    ex.sentence.value = text
    message = " ".join(ex.message_lines)
    for part in expected:
        assert part in message
    if expected:
        assert list(ex.heatmap.data[0].x) == before
    ex.sentence.value = OTHER
    assert ex.message_lines == []
    _assert_shows(ex, OTHER)


@pytest.mark.parametrize(
    ("text", "unknown"),
    [
        ("zorblax quuxifies flimflam", ["zorblax", "quuxifies", "flimflam"]),
        ("🦊🐱 🐶", ["🦊", "🐱", "🐶"]),
        ("кошка сидит на окне", ["кошка", "сидит", "на", "окне"]),
        ("猫が好きです", ["猫が好きです"]),
    ],
    ids=["made-up words", "emoji", "cyrillic", "japanese"],
)
def test_only_unknown_words_are_shown_as_unk_with_a_note(text: str, unknown: list[str]) -> None:
    ex = _explorer(sentence=STORY)
    ex.sentence.value = text
    assert ex.words == ["<unk>"] * len(story_tokenizer().split(text))
    assert set(ex.heatmap.data[0].x) <= {"<unk>", *(f"<unk> ({n})" for n in range(2, 9))}
    note = ex.message_lines[0]
    assert note.startswith("Not in the model's vocabulary, shown as <unk>:")
    assert all(f"'{w}'" in note for w in unknown)
    assert "None of these words are known" in ex.message_lines[1]
    assert "&lt;unk&gt;" in ex.message.value, "the note must show <unk> as text, not as an HTML tag"
    ex.sentence.value = STORY
    assert ex.message_lines == []
    _assert_shows(ex, STORY)


def test_some_unknown_words_are_named_once_in_the_note() -> None:
    ex = _explorer(sentence="the fox met a <b>bold</b> snowman ☃ on the bridge .")
    assert ex.words[:5] == ["the", "fox", "<unk>", "a", "<unk>"]
    assert ex.message_lines == ["Not in the model's vocabulary, shown as <unk>: 'met', '<', 'b', '>', 'bold', "
                                "'/', 'snowman', '☃'."]
    assert "<b>" not in ex.message.value, "typed HTML must be shown as text"
    ex.sentence.value = "<script>alert(1)</script> " + " ".join(f"x{i}" for i in range(6))
    assert ex.message_lines[0].endswith("'(', '1', ')', '/' and 6 more.")
    assert "<script>" not in ex.message.value


def test_a_500_word_sentence_is_trimmed_to_the_context_with_a_note() -> None:
    words = " ".join((STORY.split() * 50)[:500])
    ex = _explorer(sentence=STORY)
    ex.sentence.value = words
    assert len(ex.words) == 128 and len(ex.heatmap.data[0].x) == 128
    assert ex.message_lines == ["The sentence has 500 words, more than the model's context of 128: "
                                "showing the first 128."]
    assert ex.heatmap.layout.width <= 1200, "a long sentence should still fit on screen"
    ex.sentence.value = STORY
    _assert_shows(ex, STORY)
    assert ex.message_lines == []


def test_the_long_sentence_the_explorer_notebook_suggests_is_cut_with_a_note() -> None:
    """The explorer notebook's "Things to try" gives a line of code that makes a sentence longer than the
    context; run on the shortest example sentence, it must cut the sentence and say so."""
    cell = next(c for c in nbformat.read(NOTEBOOKS / "explorer.ipynb", as_version=4).cells if c.get("id") == "b8b00c00")
    suggested = re.search(r"`(explorer\.set_sentence\(.+?\))`", cell.source)
    assert suggested, "the explorer's things to try should give the code that makes a too-long sentence"
    explorer = _explorer(sentence=min(example_sentences(), key=lambda s: len(s.split())))
    eval(suggested[1], {"explorer": explorer})  # the notebook's own line, run as a learner would
    assert len(explorer.words) == 128
    assert explorer.message_lines[-1].endswith("more than the model's context of 128: showing the first 128.")


@pytest.mark.parametrize("head", [4, -1, 99, "two", 1.0, True, None])
def test_a_head_that_does_not_exist_gets_a_message(head: object) -> None:
    ex = _explorer(sentence=STORY)
    ex.set_head(1)
    ex.set_head(head)
    assert ex.message_lines == [f"There is no head {head!r}: this model has heads 0, 1, 2, 3 (or 'all heads')."]
    assert ex.head == 1 and ex.head_picker.value == 1
    assert ex.heatmap.layout.title.text == "Head 1 of the 4-head model"
    ex.head_picker.value = 3
    assert ex.message_lines == [] and ex.heatmap.layout.title.text == "Head 3 of the 4-head model"


@pytest.mark.parametrize("name", ["five_heads", "", "Four Heads", None])
def test_a_model_that_does_not_exist_gets_a_message(name: object) -> None:
    ex = _explorer(sentence=STORY)
    ex.set_model(name)
    assert ex.message_lines == [f"There is no model {name!r}: choose one of 'one_head', 'four_heads', "
                                "'novel_one_head', 'novel_four_heads'."]
    assert ex.model_name == "four_heads" and ex.model_picker.value == "four_heads"
    ex.model_picker.value = "one_head"
    assert ex.message_lines == [] and ex.model.config.heads == 1


def test_opening_on_a_model_that_does_not_exist_shows_four_heads_and_says_so() -> None:
    ex = _explorer(model="seven_heads", sentence=STORY)
    [message] = ex.message_lines
    assert message.startswith("unknown checkpoint 'seven_heads': choose one of one_head, four_heads, "
                              "novel_one_head, novel_four_heads, or give your own")
    assert message.endswith(f"Nothing is at {Path('seven_heads').resolve()} or {Path('seven_heads').resolve()}.json."
                            " Showing the model 'four heads, story world' instead.")
    assert ex.model_name == DEFAULT
    _assert_shows(ex, STORY)


def test_a_broken_checkpoint_gets_a_message_and_the_widget_keeps_working() -> None:
    def loader(name: str) -> CourseModel:
        if name == "one_head":
            raise CheckpointError("assets/one_head.safetensors: tensor attn.query.weight has shape [3, 3]")
        return _model(name)

    ex = Explorer(loader=loader, sentence=STORY)
    ex.model_picker.value = "one_head"
    assert ex.message_lines == ["assets/one_head.safetensors: tensor attn.query.weight has shape [3, 3]"]
    assert ex.model_name == "four_heads" and ex.model_picker.value == "four_heads"
    ex.sentence.value = OTHER
    _assert_shows(ex, OTHER)


def test_an_unexpected_error_is_reported_not_raised() -> None:
    def loader(name: str) -> CourseModel:
        if name == "one_head":
            raise RuntimeError("disk on fire")
        return _model(name)

    ex = Explorer(loader=loader, sentence=STORY)
    ex.set_model("one_head")
    assert ex.message_lines == ["Something went wrong (RuntimeError): disk on fire"]
    ex.set_head(2)
    assert ex.message_lines == [] and ex.heatmap.layout.title.text == "Head 2 of the 4-head model"


@pytest.mark.parametrize("position", [-1, 11, 99, "fox", None])
def test_a_focus_word_that_does_not_exist_gets_a_message(position: object) -> None:
    ex = _explorer(sentence=STORY)
    ex.set_focus(position)
    assert ex.message_lines[0].startswith(f"There is no word at position {position!r}: the sentence has 11")
    ex.set_focus(2)
    assert ex.message_lines == [] and "reading 'the'" in ex.summary_lines[0]


def test_read_sentence_keeps_the_first_words_of_a_long_text() -> None:
    model = _model("four_heads")
    reading = read_sentence(model, " ".join(["fox"] * 127 + ["bridge", "sky"]))
    assert len(reading.ids) == 128 and reading.words[-1] == "bridge"
    with pytest.raises(ValueError, match="must be text"):
        read_sentence(model, 42)


def test_no_traceback_reaches_the_output(capsys: pytest.CaptureFixture[str]) -> None:
    ex = _explorer(sentence=STORY)
    for bad in ("", "🦊", " ".join(["fox"] * 500)):
        ex.sentence.value = bad
    ex.set_head(9)
    ex.set_model("nope")
    ex.set_focus(-5)
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err


# ----- the real checkpoints --------------------------------------------------------------------------------


def test_explore_opens_the_trained_four_head_checkpoint() -> None:
    ex = explore()
    assert ex.model_name == "four_heads" and ex.problem == ""
    assert ex.model.config.heads == 4 and len(ex.words) > 5
    ex.set_model("one_head")
    assert ex.problem == "" and ex.att.shape[0] == 1


def test_static_figure_shows_whole_on_a_projector_with_its_menus_apart() -> None:
    presenter_mode(True)
    try:
        fig = static_explorer("four_heads", sentences=[STORY], loader=_model, partner=False)
        tallest, side = style()["tallest"], heatmap_side(len(STORY.split()))
    finally:
        presenter_mode(False)
    assert fig.layout.height <= tallest <= 590  # 1280x720 in presenter mode shows about 590 px of a notebook
    assert fig.layout.width == min(side + 200, FIT_WIDTH)  # as wide as ever: wider cells instead of scrolling
    assert all(menu.font.size <= 16 for menu in fig.layout.updatemenus)  # side by side without touching


def test_on_a_projector_the_heatmap_and_the_grid_fit_below_the_controls() -> None:
    """In presenter mode a 20-word sentence's heatmap and grid keep within what the screen shows under the
    controls, with word labels of at least least_label() px; the controls take the larger text too."""
    presenter_mode(True)
    try:
        ex = _explorer(sentence=" ".join((STORY.split() * 2)[:20]))
        ex.set_head(ALL_HEADS)
        room, smallest, font = style()["tallest"] - CONTROLS * style()["font"], least_label(), style()["font"]
    finally:
        presenter_mode(False)
    for fig in (ex.heatmap, ex.grid):
        assert fig.layout.height <= room and fig.layout.width <= FIT_WIDTH
        assert min(a.tickfont.size for a in (*fig.select_xaxes(), *fig.select_yaxes())) >= smallest
    assert f"font-size: {font}px" in ex.children[0].value and ex.access in ex.children


def test_switching_models_and_views_reuses_the_figures() -> None:
    """A figure is built once per number of heads: switching back shows it again instead of a new one (a new
    figure costs the kernel and the browser far more than new numbers in an old one)."""
    ex = _explorer(sentence=STORY)
    ex.set_head(ALL_HEADS)
    four_bars, four_grid = ex.bars, ex.grid
    ex.set_model("one_head")
    one_bars = ex.bars
    ex.set_model("four_heads")
    assert ex.bars is four_bars and ex.grid is four_grid and one_bars is not four_bars
    shown = {box.children[0] is four_bars: box.layout.visibility for box in ex.bars_box.children}
    assert shown == {True: "visible", False: "hidden"}, "the four-head focus view on show, the one-head one hidden"


def test_static_fallback_offers_the_story_and_the_novel_four_head_models() -> None:
    fig = static_explorer()
    novels = novel_examples()
    assert len(fig.data) == 2 * (len(example_sentences()) + len(novels))
    sentence_menu, head_menu = fig.layout.updatemenus
    labels = [b.label for b in sentence_menu.buttons]
    assert labels[0].startswith(f"{STORY_WORLD}: ") and labels[-1].startswith(f"{NOVELS}: ")
    assert len([label for label in labels if label.startswith(f"{NOVELS}: ")]) == len(novels)
    assert len(head_menu.buttons) == 4
    model = load_model("novel_four_heads")  # the novel sentences' weights come from the novel model
    reading = read_sentence(model, novels[-1])
    z = torch.tensor([[math.nan if v is None else v for v in row] for row in head_menu.buttons[1].args[0]["z"][-1]])
    assert torch.allclose(z.nan_to_num(0), attention(model, reading.ids)[1].tril(), atol=1e-6)


# ----- what the learner sees: focus kept, unknown words named, tooltips --------------------------------


def test_focus_word_is_kept_when_the_new_sentence_has_it() -> None:
    ex = _explorer(sentence=STORY)
    ex.set_focus(ex.words.index("bridge"))
    ex.set_sentence("the old bridge is wet .")
    assert ex.words[ex.focus] == "bridge" and ex.focus_picker.value == ex.focus
    ex.set_model("one_head")  # a model switch reads the sentence again: still 'bridge'
    assert ex.words[ex.focus] == "bridge"
    ex.set_sentence("the girl walks .")  # no 'bridge' here: back to the last word
    assert ex.words[ex.focus] == "walks"


def test_unknown_words_show_their_own_text_in_picker_and_tooltip() -> None:
    """One name for an unknown word everywhere: in the menu, the tooltips, the summary and the bars' title."""
    ex = _explorer(sentence="the zebra walks to the bridge .")
    assert ex.words[1] == "<unk>" and ex.originals[1] == "zebra"
    assert ex.focus_picker.options[1][0] == "<unk> = zebra"
    shown, masked = ex.heatmap.data
    assert shown.text[2][1] == "'walks' looks at '<unk> = zebra'"
    assert masked.text[1][2] == "masked: '<unk> = zebra' cannot see the later word 'walks'"
    ex.set_focus(1)
    assert "reading '<unk> = zebra'" in ex.summary_lines[0]
    assert ex.bars.layout.title.text.startswith("Where '<unk> = zebra' looks")


def test_a_quote_mark_is_named_in_double_quotes() -> None:
    """Not as three quote marks in a row."""
    assert quoted("fox") == "'fox'" and quoted("'") == "\u201c'\u201d" and quoted("don't") == "\u201cdon't\u201d"
    ex = _explorer(sentence="the fox ' s bridge .")
    where = ex.originals.index("'")
    assert f"looks at {quoted(ex.focus_picker.options[where][0])}" in ex.heatmap.data[0].text[where][where]
    assert "'" * 3 not in str(ex.heatmap.data[0].text)


def test_tooltips_hover_only_their_own_cells() -> None:
    ex = _explorer(sentence=STORY)
    for fig in (ex.heatmap, ex.set_head(ALL_HEADS) or ex.grid):
        for shown, masked in zip(fig.data[::2], fig.data[1::2], strict=True):
            assert shown.hoverongaps is False and masked.hoverongaps is False
            assert "%{z:.1%}" in shown.hovertemplate and "%{text}" in masked.hovertemplate
    assert ex.grid.layout.width <= 820 and len({t.xaxis for t in ex.grid.data}) == 4


def _labelled(axis, words: list[str]) -> list[str]:
    """The words a plotly axis with tickmode 'linear' over category positions labels."""
    assert axis.tickmode == "linear"
    return unique_labels(words)[int(axis.tick0) :: int(axis.dtick)]


def test_live_updates_switch_between_every_word_and_every_kth_word_labelled() -> None:
    """A 60-word sentence typed into the open explorer labels every 2nd word in the heatmap and says so (the
    grid's smaller panels every 3rd: no label smaller than least_label); a short one afterwards labels every
    word again, in the heatmap, the grid and the focus bars."""
    long = " ".join((STORY.split() * 6)[:60])
    ex = _explorer(sentence=STORY)
    for step, every, ordinal in (("head", 2, "2nd"), (ALL_HEADS, 3, "3rd")):
        if step == ALL_HEADS:
            ex.set_head(ALL_HEADS)
        fig = ex.figure
        assert "labelled" not in str(fig.layout)
        ex.sentence.value = long
        assert ex.figure is fig, "the figure was rebuilt instead of updated"
        xaxis, yaxis = fig.layout.xaxis, fig.layout.yaxis
        assert _labelled(xaxis, ex.words) == unique_labels(ex.words)[::every] == _labelled(yaxis, ex.words)
        assert min(xaxis.tickfont.size, yaxis.tickfont.size) >= least_label()
        titles = {a.title.text for a in fig.select_xaxes() if a.title.text}
        assert titles == {f"word looked at (every {ordinal} word labelled)"}, titles
        ex.set_focus(59)
        assert ex.bars.layout.xaxis.title.text == "word looked at (every 2nd word labelled)"
        assert _labelled(ex.bars.layout.xaxis, ex.words) == unique_labels(ex.words)[::2]
        ex.head_picker.value = 1 if step == "head" else ALL_HEADS  # a head change keeps the long labelling
        assert fig.layout.xaxis.dtick == every
        ex.sentence.value = STORY
        assert fig.layout.xaxis.dtick == 1 and fig.layout.yaxis.dtick == 1
        assert _labelled(fig.layout.xaxis, ex.words) == unique_labels(ex.words)
        assert {a.title.text for a in fig.select_xaxes() if a.title.text} == {"word looked at"}
        assert ex.bars.layout.xaxis.title.text == "word looked at" and ex.bars.layout.xaxis.dtick == 1


def test_novel_models_switch_the_example_menu_and_keep_the_sentence_and_focus() -> None:
    ex = explore("four_heads")
    story_examples = ex.offered_examples
    assert set(shipped_names()) <= set(ex.models), "every model of the menu is read when the explorer opens"
    sentence = "the girl walks to the river with her boat ."
    ex.set_sentence(sentence)
    novel = read_sentence(ex.models["novel_four_heads"], sentence)  # its vocabulary may change with retraining
    both = [w for w in ex.words[1:] if w in novel.words and w.isalpha() and ex.words.count(w) == 1]
    assert both, "no word of the sentence is known to both models"
    ex.set_focus(ex.words.index(both[0]))
    ex.model_picker.value = "novel_four_heads"
    assert ex.model_name == "novel_four_heads" and ex.att.shape[0] == 4 and ex.problem == ""
    assert ex.offered_examples == novel_examples() != story_examples
    assert ex.words[ex.focus] == both[0], "the focus word was lost in the switch"
    assert ex.words == novel.words and ex.message_lines == novel.notes
    assert ex.heatmap.layout.title.text == "Head 0 of the 4-head model (novels)"
    ex.example_picker.value = novel_examples()[0]
    assert ex.sentence.value == novel_examples()[0] and not ex.message_lines, "a novel example has unknown words"
    ex.model_picker.value = "novel_one_head"
    assert ex.example_picker.value == novel_examples()[0], "the same examples: the pick stays"
    assert ex.att.shape[0] == 1 and len(ex.bars.data) == 1
    ex.model_picker.value = "four_heads"
    assert ex.offered_examples == story_examples and ex.example_picker.value == PICK[1]


def test_words_the_novel_models_do_not_know_show_what_they_were() -> None:
    ex = explore("novel_four_heads")
    assert ex.sentence.value == novel_examples()[0], "a novel model opens on a novel example"
    ex.set_sentence("at night she opened her heart to zxqwv .")
    i = ex.originals.index("zxqwv")
    assert ex.words[i] == "<unk>" and ex.message_lines == ["Not in the model's vocabulary, shown as <unk>: 'zxqwv'."]
    assert ex.heatmap.data[0].text[i][i] == "'<unk> = zxqwv' looks at '<unk> = zxqwv'"



# ----- a learner's own checkpoints (python -m helpers.train --text FILE --out FOLDER) -------------------------


@pytest.fixture(scope="module")
def mine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A learner's folder "mine": one head and four heads, two training steps each on a small text file."""
    folder = tmp_path_factory.mktemp("runs") / "mine"
    for heads in (1, 4):
        argv = ["--heads", str(heads), "--steps", "2", "--text", str(SAMPLE), "--out", str(folder), "--json"]
        assert train_main(argv) == 0
    return folder


def test_a_learners_folder_joins_the_menu_with_examples_from_its_own_text(mine: Path) -> None:
    ex = explore(str(mine))
    own = ["one head, your text (mine)", "four heads, your text (mine)"]
    assert [label for label, _ in ex.model_picker.options] == [*(shipped(n).label for n in shipped_names()), *own]
    four = str(mine / "four_heads.json")
    assert ex.model_name == four and ex.problem == "" and ex.model.config.heads == 4, ex.message_lines
    examples = load_model(four).card["examples"]
    assert examples and ex.offered_examples == examples
    notes = [f"Note on this model: {note}" for note in load_model(four).card.get("notes", [])]
    assert ex.sentence.value == examples[0] and ex.message_lines == notes, "an example has words the model lacks"
    assert ex.heatmap.layout.title.text == "Head 0 of the 4-head model (mine)"
    ex.model_picker.value = DEFAULT
    assert ex.model_name == DEFAULT and ex.offered_examples != examples
    ex.model_picker.value = str(mine / "one_head.json")
    assert ex.att.shape[0] == 1 and ex.offered_examples == examples and ex.problem == ""


def test_a_learners_card_opens_that_model(mine: Path) -> None:
    card = str(mine / "one_head.json")
    ex = explore(card)
    assert ex.model_name == card and ex.model.config.heads == 1 and ex.problem == ""
    assert [name for _, name in ex.model_picker.options] == [*shipped_names(), card]


def test_a_wrong_folder_says_what_was_looked_for_and_shows_the_default(tmp_path: Path) -> None:
    ex = explore(str(tmp_path / "mien"))
    [message] = ex.message_lines
    for part in (str((tmp_path / "mien").resolve()), "one_head.json or four_heads.json", *shipped_names()):
        assert part in message
    assert message.endswith(f"Showing the model '{shipped(DEFAULT).label}' instead.")
    assert ex.model_name == DEFAULT and [name for _, name in ex.model_picker.options] == list(shipped_names())
    ex = explore(str(tmp_path))  # a folder that exists, without a checkpoint card
    assert f"{tmp_path.resolve()} holds no checkpoint card" in ex.message_lines[0]


def test_the_static_copy_of_a_learners_model_shows_its_own_examples(mine: Path) -> None:
    card = mine / "four_heads.json"
    fig = static_explorer(str(card))
    labels = [b.label for b in fig.layout.updatemenus[0].buttons]
    assert len(labels) == len(load_model(card).card["examples"]) and all(x.startswith("your text: ") for x in labels)


def test_a_card_without_examples_offers_the_story_examples(tmp_path: Path) -> None:
    """A card written without held-out text (an older one) still opens, on the story-world examples."""
    result = train(heads=1, steps=1, corpus=story_corpus(train_stories=30, val_stories=4), batch_size=2,
                   progress=False)
    save_checkpoint(result, tmp_path / "old" / "one_head", "python -m helpers.train --heads 1 --steps 1")
    ex = explore(str(tmp_path / "old"))
    assert ex.model_picker.options[-1][0] == "one head, story world (old)" and ex.problem == ""
    assert ex.offered_examples == default_examples()
    assert ex.sentence.value == example_sentences()[0]
