"""The attention explorer driven from code (mostly on untrained models): what it draws, and bad input it survives."""

from __future__ import annotations

import html
import json
import re
from functools import cache, partial
from pathlib import Path

import nbformat
import pytest
import torch

from helpers import checkpoints
from helpers.chapter_widgets.base import control_height
from helpers.checkpoints import CheckpointError, load_model, save_checkpoint
from helpers.examples import default_examples, novel_examples
from helpers.explorer import ALL_HEADS, PICK, RESTORED, SWAPPED, Explorer, controls_height, explore, static_explorer
from helpers.model import CourseModel, course_model
from helpers.plots import FIT_WIDTH, least_label, quoted, style
from helpers.reading import attention, read_sentence, summarise, unique_labels
from helpers.registry import DEFAULT, NOVELS, STORY_WORLD, shipped, shipped_names
from helpers.stories import example_sentences
from helpers.tokenizer import story_tokenizer
from helpers.train import train

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


_explorer = partial(Explorer, loader=_model)


@pytest.fixture
def ex() -> Explorer:
    """An explorer on the untrained models, showing STORY."""
    return _explorer(sentence=STORY)


def _panel(ex: Explorer) -> dict:
    return ex.heatmap.figure["panels"][0]


def _weights(panel: dict) -> torch.Tensor:
    """A drawn heatmap's weights, the masked cells (None) as NaN."""
    return torch.tensor([[float("nan") if v is None else v for v in row] for row in panel["z"]])


def _assert_shows(ex: Explorer, sentence: str, head: int = 0, quiet: bool = True) -> None:
    """The heatmap shows `sentence`'s words on both axes, head `head`'s weights, the future masked; quiet: no note."""
    assert ex.message_lines == [] or not quiet, ex.message_lines
    labels = unique_labels(story_tokenizer().encode_with_report(sentence).words)
    panel = _panel(ex)
    assert panel["x"] == labels and panel["y"] == labels
    z = _weights(panel)
    assert torch.isnan(z).equal(torch.ones_like(z).triu(1).bool()), "the future must be masked, nothing else"
    assert torch.allclose(z.nan_to_num(0), ex.att[head].tril(), atol=1e-4)
    assert torch.allclose(z.nan_to_num(0).sum(-1), torch.ones(len(labels)), atol=1e-3)


def test_opens_on_a_story_sentence_with_words_on_both_axes(ex: Explorer) -> None:
    _assert_shows(ex, STORY)
    assert ex.model_picker.value == "four_heads" and ex.message.value == ""
    assert [label for label, _ in ex.head_picker.options] == ["head 0", "head 1", "head 2", "head 3", ALL_HEADS]
    assert ex.heatmap.figure["title"] == "Head 0 of the 4-head model" and ex.heatmap.figure["scale"]
    sigh = ex.words.index("sigh")
    assert ex.focus == sigh and ex.focus_picker.value == sigh, "the first focus is the last word, not the '.'"
    looks = summarise(ex.att[0, sigh, : sigh + 1], ex.words[: sigh + 1], names=[f"'{w}'" for w in ex.words])
    assert ex.summary_lines == [f"head 0, reading 'sigh', looks most at: {looks}"] and "'" in looks
    assert summarise(torch.tensor([0.1, 0.61, 0.17, 0.12]), ["the", "animal", "the", "street"]) == (
        "animal 61%, the (2) 17%")


def test_a_new_sentence_keeps_the_head_and_focuses_on_its_last_word(ex: Explorer) -> None:
    """Picking a head redraws with its weights on screen: tests/browser/test_live_views.py reads them back."""
    ex.head_picker.value = 2
    ex.sentence.value = OTHER
    _assert_shows(ex, OTHER, head=2)
    ex.model_picker.value = "one_head"  # head 0 alone there; back on four heads, head 2 is on show again
    ex.model_picker.value = DEFAULT
    assert ex.head == ex.head_picker.value == 2 and ex.focus_picker.value == ex.words.index("weeps")
    assert [label for label, _ in ex.focus_picker.options] == unique_labels(ex.words)


def test_example_picker_loads_the_example(ex: Explorer) -> None:
    ex.example_picker.value = example_sentences()[4]
    assert ex.sentence.value == example_sentences()[4]
    _assert_shows(ex, example_sentences()[4])
    ex.sentence.value = STORY
    assert ex.example_picker.value == STORY, "a sentence typed that is an example: the menu names it"
    ex.sentence.value = "the girl walks to the old bridge ."
    assert ex.example_picker.value == PICK[1] and ex.example_picker.label == PICK[0]
    ex.example_picker.value = PICK[1]  # choosing the menu's own first entry changes nothing
    assert ex.sentence.value == "the girl walks to the old bridge ." and not ex.problem
    labels = dict((text, label) for label, text in ex.example_picker.options)
    unknown = [len(ex.model.tokenizer.encode_with_report(text).unknown) for text in ex.offered_examples]
    assert unknown == sorted(unknown) and unknown[-1] > 0, "the model's own sentences first, the course's after"
    assert all(labels[text] == text if n == 0 else str(n) in labels[text].removeprefix(text)
               for text, n in zip(ex.offered_examples, unknown, strict=True)), "a label counts the unknown words"


def test_all_heads_shows_a_grid_with_one_colour_scale_and_a_click_focuses_on_a_row(ex: Explorer) -> None:
    ex.head_picker.value = ALL_HEADS
    panels = ex.heatmap.figure["panels"]
    assert [p["title"] for p in panels] == [f"head {h}" for h in range(4)] and ex.heatmap.figure["scale"]
    for h, panel in enumerate(panels):
        assert torch.allclose(_weights(panel).nan_to_num(0), ex.att[h].tril(), atol=1e-4)
    assert [(p["show_y"], p["show_x"]) for p in panels] == [(True, True), (False, True), (False, True), (False, True)]
    ex.heatmap.click(3, 1)  # what the browser's click on row 3 ('foxes'), column 1 sends
    assert ex.focus == 3 and ex.focus_picker.value == 3 and "reading 'foxes'" in ex.summary_lines[0]
    assert len(ex.summary_lines) == 4 and "In every head, 'foxes' looks" in ex.summary.value  # one paragraph on show
    assert [h for h in range(8) if f"head\u00a0{h}\u00a0→\u00a0'" in ex.summary.value] == [0, 1, 2, 3], "unbroken"
    assert ex.summary.value.count("%") == 4, "each head's strongest word only: the bars below show the rest"
    assert [p["focus"] for p in ex.heatmap.figure["panels"]] == [3] * 4, "the grid labels the focus row"
    ex.heatmap.click(500, 0)  # a click the sentence has no row for: a message, the focus stays
    assert "500" in ex.problem and ex.focus == 3
    ex.head_picker.value = 1
    _assert_shows(ex, STORY, head=1)


def test_focus_view_shows_one_words_spotlight_from_every_head(ex: Explorer) -> None:
    i = ex.words.index("bridge")
    ex.focus_picker.value = i
    [panel] = ex.bars.figure["panels"]
    assert panel["x"] == unique_labels(ex.words)[: i + 1] and len(panel["series"]) == 4
    for h, series in enumerate(panel["series"]):
        assert torch.allclose(torch.tensor(series["y"]), ex.att[h, i, : i + 1], atol=1e-5)
    assert ex.bars.figure["title"] == "Where 'bridge' looks, in every head" and ex.bars.figure["legend"]


def test_model_picker_switches_to_one_head_and_reads_no_model_again() -> None:
    calls = []
    ex = Explorer(loader=lambda name: calls.append(name) or _model(name), sentence=STORY)
    assert sorted(calls) == sorted(shipped_names())  # every model read once, when the explorer opens
    ex.head_picker.value = 3
    ex.model_picker.value = "one_head"
    assert ex.att.shape[0] == 1 and ex.head == 0 and ex.head_picker.value == 0
    assert [label for label, _ in ex.head_picker.options] == ["head 0"], "one head is all heads: no second name"
    assert ex.heatmap.figure["title"] == "Head 0 of the one-head model"
    assert len(ex.bars.figure["panels"][0]["series"]) == 1 and not ex.bars.figure["legend"]
    ex.set_head(ALL_HEADS)  # from code: the one head, and every head again on a model of more
    assert len(ex.heatmap.figure["panels"]) == 1 and not ex.problem
    for name in ("novel_four_heads", "novel_one_head", shipped("four_heads").label):  # a name, or the menu's label
        ex.set_model(name)
    assert sorted(calls) == sorted(shipped_names()), "switching read a model again"
    assert ex.model_name == "four_heads" and not ex.problem and ex.head == ALL_HEADS


def test_static_explorer_precomputes_every_sentence_and_head_behind_two_menus() -> None:
    page = static_explorer("four_heads", sentences=[STORY, OTHER], loader=_model, partner=False)
    states = json.loads(re.search(r"states = (\{.*?\}), listeners", page.data, re.S)[1].replace("<\\/", "</"))
    assert sorted(states) == [f"{s}|{h}" for s in range(2) for h in range(4)]
    assert page.data.count("<select>") == 2 and "://" not in page.data.replace("http://www.w3.org/2000/svg", "")
    model = _model("four_heads")
    for s, sentence in enumerate([STORY, OTHER]):
        att = attention(model, model.tokenizer.encode(sentence))
        assert torch.allclose(_weights(states[f"{s}|2"]["panels"][0]).nan_to_num(0), att[2].tril(), atol=1e-4)
        assert states[f"{s}|0"]["panels"][0]["x"] == unique_labels(story_tokenizer().encode_with_report(sentence).words)


@pytest.mark.parametrize(("bad", "says"), [("", "Empty sentence"), ("    \n ", "Empty sentence"),
                                           ("\u200d", "only invisible characters, U+200D"),
                                           (42, "must be text, got int")])
def test_an_empty_sentence_or_not_text_gets_a_message_and_keeps_the_last_heatmap(ex: Explorer, bad, says) -> None:
    words = list(ex.words)
    ex.set_sentence(bad)  # must not raise
    assert says in ex.problem and ex.problem in ex.message.value and ex.words == words and ex.sentence.value == STORY
    _assert_shows(ex, STORY, quiet=False)  # the last good sentence stays on show, in the box too
    ex.model_picker.value = "one_head"  # the next model reads the sentence on show, not the box's refused one
    assert ex.sentence.value == STORY and ex.att.shape[0] == 1 and _assert_shows(ex, STORY) is None
    ex.sentence.value = OTHER
    _assert_shows(ex, OTHER)


@pytest.mark.parametrize("text", ["zorblax quuxifies flimflam", "🦊🐱 🐶", "кошка сидит на окне .", "猫が好きです"])
def test_only_unknown_words_are_shown_as_unk_with_a_note(ex: Explorer, text: str) -> None:
    ex.sentence.value = text  # a full stop, which every model knows, leaves the sentence as unknown
    typed = [word for word in story_tokenizer().split(text) if word != "."]
    assert ex.words.count("<unk>") == len(typed) and {x[:5] for x in _panel(ex)["x"]} <= {"<unk>", "."}
    assert all(f"'{w}'" in ex.message_lines[0] for w in typed)
    assert ex.message_lines[1].endswith("the list.") and ("only '.')" in ex.message_lines[1]) == ("." in text)
    learnt = course_model(heads=1, seed=0)
    learnt.tokenizer, learnt.card = story_tokenizer(), {"corpus": "mine.txt"}  # a learner's checkpoint
    assert read_sentence(learnt, text).notes[-1].endswith("(mine.txt)."), "the text whose words it knows"
    assert len(read_sentence(learnt, "fox").notes) == 1 and not read_sentence(learnt, "the fox").notes, "one word"
    assert "&lt;unk&gt;" in ex.message.value, "the note must show <unk> as text, not as an HTML tag"
    ex.sentence.value = STORY
    _assert_shows(ex, STORY)


def test_some_unknown_words_are_named_once_in_the_note() -> None:
    """Typed HTML is shown as text; each unknown piece is named once, and a long list is cut short."""
    ex = _explorer(sentence="the fox met a <b>bold</b> snowman ☃ on the bridge zebra .")
    assert ex.words[:5] == ["the", "fox", "<unk>", "a", "<unk>"] and "<b>" not in ex.message.value
    assert ex.words[ex.focus] == "bridge", "the focus starts on the last word the model knows, not on 'zebra'"
    assert all(ex.message_lines[0].count(f"'{w}'") == 1 for w in ("met", "<", "b", ">", "bold", "/", "☃"))
    ex.sentence.value = "<script>alert(1)</script> " + " ".join(f"x{i}" for i in range(6))
    assert "<script>" not in ex.message.value and ex.message_lines[0].endswith("and 6 more.")


def test_a_500_word_sentence_is_trimmed_to_the_context_with_a_note() -> None:
    """The explorer notebook's suggested too-long sentence is cut to 128 words, with a note, and still fits."""
    cell = next(c for c in nbformat.read(NOTEBOOKS / "explorer.ipynb", as_version=4).cells if c.get("id") == "b8b00c00")
    suggested = re.search(r"`(explorer\.set_sentence\(.+?\))`", cell.source)
    assert suggested, "the explorer's things to try should give the code that makes a too-long sentence"
    ex = _explorer(sentence=min(example_sentences(), key=lambda s: len(s.split())))
    eval(suggested[1], {"explorer": ex})  # the notebook's own line, run as a learner would
    assert len(ex.words) == len(_panel(ex)["x"]) == 128 and "128" in ex.message_lines[-1]
    assert ex.words == story_tokenizer().split(ex.sentence.value)[:128], "the first words are kept, not the last"
    assert ex.heatmap.figure["width"] <= FIT_WIDTH and _panel(ex)["every"] > 1, "a long sentence still fits"
    ex.sentence.value = STORY
    _assert_shows(ex, STORY)


@pytest.mark.parametrize(("pick", "bad"), [("set_head", b) for b in (4, -1, 99, "two", 1.0, True, None)]
                         + [("set_model", b) for b in ("five_heads", "", "Four Heads", None)]
                         + [("set_focus", b) for b in (-1, 11, 99, "fox", None)])
def test_a_head_model_or_focus_word_that_does_not_exist_gets_a_message(ex: Explorer, pick: str, bad: object,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    ex.set_head(1)
    before = (ex.heatmap.figure, ex.bars.figure, ex.model_name, ex.head_picker.value, ex.model_picker.value)
    getattr(ex, pick)(bad)
    assert repr(bad) in ex.problem and ex.problem in ex.message.value
    out = capsys.readouterr().out
    assert out.split() == ex.problem.split() and max(map(len, out.splitlines())) <= 100, "answered in its cell too"
    assert (ex.heatmap.figure, ex.bars.figure, ex.model_name, ex.head_picker.value, ex.model_picker.value) == before
    ex.head_picker.value = 3  # the next good pick simply works
    assert ex.message_lines == [] and ex.heatmap.figure["title"] == "Head 3 of the 4-head model"
    ex.sentence.value = ""
    assert ex.problem and capsys.readouterr().out == "", "a control's problem shows in the widget alone"


@pytest.mark.parametrize("error", [CheckpointError("tensor attn.query.weight has shape [3, 3]"),
                                   RuntimeError("disk on fire")])
def test_a_broken_checkpoint_gets_a_message_and_the_widget_keeps_working(error: Exception) -> None:
    def loader(name: str) -> CourseModel:
        if name == "one_head":
            raise error
        return _model(name)

    ex = Explorer(loader=loader, sentence=STORY)
    ex.model_picker.value = "one_head"
    assert str(error) in ex.message_lines[0] and ex.model_name == ex.model_picker.value == "four_heads"
    ex.sentence.value = OTHER
    _assert_shows(ex, OTHER)


def test_on_a_projector_the_heatmap_and_the_grid_fit_below_the_controls(presenter: bool) -> None:
    """Presenter mode: every word labelled; a 20-word heatmap and grid fit under the controls, labels readable."""
    ex = explore()
    assert _panel(ex)["every"] == 1
    assert len(ex.sentence.value.split()) == min(len(text.split()) for text in ex._text_examples(DEFAULT))
    ex = _explorer(sentence=" ".join((STORY.split() * 2)[:20]))
    views = [ex.heatmap.figure, ex.set_head(ALL_HEADS) or ex.heatmap.figure]
    room, smallest, font = style()["tallest"] - controls_height(style()["font"]), least_label(), style()["font"]
    for spec in views:
        assert spec["height"] <= room and spec["width"] <= FIT_WIDTH and spec["font"] == font
        assert min(p["tick"] for p in spec["panels"]) >= smallest
    assert f"font-size: {font}px" in ex.children[0].value and ex.access in ex.children
    ex.set_sentence("zanzibar")  # two notes over three lines: the heatmap gives up two lines of its height
    assert len(ex.notes) == 2 and ex.heatmap.figure["height"] <= room - 2 * control_height(font)


def test_long_sentences_label_every_kth_word_and_say_so(ex: Explorer) -> None:
    """60 words: about every 3rd word labelled (a grid of four heads every 6th), said on the axis; 11 words: every
    word."""
    for head, every, short in ((0, 3, 1), (ALL_HEADS, 6, 2)):
        ex.set_head(head)
        ex.sentence.value = " ".join((STORY.split() * 6)[:60])
        assert {p["every"] for p in ex.heatmap.figure["panels"]} == {every}
        assert _panel(ex)["xtitle"].endswith(f"(about every {every}{'rd' if every == 3 else 'th'} word labelled)")
        ex.set_focus(59)
        assert ex.bars.figure["panels"][0]["every"] == 2 and ex.bars.figure["panels"][0]["focus"] == 59
        rows = [_weights(p)[59].nan_to_num(-1) for p in ex.heatmap.figure["panels"]]  # [T] per head
        cols = ex.heatmap.figure["cols"]
        for h, panel in enumerate(ex.heatmap.figure["panels"]):  # under each head, the word its summary line names
            above = rows[h % cols :: cols]  # the heads in this panel's column of the grid
            most = sorted({int(row.argmax()) for row in above},
                          key=lambda c: -max(float(r[c]) for r in above if int(r.argmax()) == c))  # strongest first
            assert panel["keep"] == most, "the words a summary names keep a label"
        tallest = {int(row.argmax()) for row in ex.att[:, 59, :60]}  # each head's tallest bar, under the heatmap
        assert set(ex.bars.figure["panels"][0]["keep"]) == tallest, "each head's tallest bar keeps its label"
        ex.sentence.value = STORY
        assert _panel(ex)["every"] == short and ex.bars.figure["panels"][0]["every"] == 1
        assert (_panel(ex)["xtitle"] == "word looked at") == (short == 1)


def test_focus_word_is_kept_when_the_new_sentence_has_it(ex: Explorer) -> None:
    ex.set_focus(ex.words.index("bridge"))
    ex.set_sentence("the old bridge is wet .")
    assert ex.words[ex.focus] == "bridge" and ex.focus_picker.value == ex.focus
    ex.set_sentence("the girl walks !")  # no 'bridge' here: back to the last word as typed (an unknown '!')
    assert ex.words[ex.focus] == "walks" and not ex.set_sentence("the girl walks and the fox smiles .")
    assert ex.words[ex.focus] == "smiles", "a focus nobody picked moves on to the new last word"
    ex.set_sentence("the fox that crosses the bridge walks .")
    ex.set_focus(4)  # the second 'the'
    ex.set_sentence("the fox that crosses the old bridge walks .")
    assert ex.focus == 4, "the same 'the' of two, not the first"
    ex.set_sentence("the fox that crosses the old bridge sees the girl .")
    ex.set_sentence("a fox that crosses the old bridge sees the girl .")
    assert ex.focus == 4, "the first 'the' changed: the focus stays on its word, not on the next 'the'"


def test_unknown_words_and_quote_marks_have_one_name_everywhere() -> None:
    """An unknown word is '<unk> = zebra' in menu, tooltips, summary and title; a quote mark in double quotes."""
    ex = _explorer(sentence="the zebra walks to the bridge .")
    assert ex.words[1] == "<unk>" and ex.focus_picker.options[1][0] == "<unk> = zebra"
    assert _panel(ex)["names"][1] == "'<unk> = zebra'"
    ex.set_focus(1)
    assert "reading '<unk> = zebra'" in ex.summary_lines[0] and ex.bars.figure["title"].startswith(
        "Where '<unk> = zebra' looks")
    assert quoted("fox") == "'fox'" and quoted("'") == "\u201c'\u201d" and quoted("don't") == "\u201cdon't\u201d"
    ex.set_sentence("the fox ' s bridge .")
    assert _panel(ex)["names"][2].startswith("\u201c") and "'" * 3 not in str(_panel(ex)["names"])


def test_novel_models_switch_the_example_menu_and_keep_the_sentence_and_focus() -> None:
    ex = explore()  # the trained four-head checkpoint
    assert ex.model_name == "four_heads" and ex.problem == "" and ex.model.config.heads == 4 and len(ex.words) > 5
    story_examples = ex.offered_examples
    sentence = "the girl walks to the river with her boat ."
    ex.set_sentence(sentence)
    novel = read_sentence(ex.models["novel_four_heads"], sentence)  # its vocabulary may change with retraining
    both = [w for w in ex.words[1:] if w in novel.words and w.isalpha() and ex.words.count(w) == 1]
    assert both, "no word of the sentence is known to both models"
    ex.set_focus(ex.words.index(both[0]))
    ex.model_picker.value = "novel_four_heads"
    assert ex.model_name == "novel_four_heads" and ex.problem == ""
    assert ex.offered_examples == novel_examples() != story_examples
    assert ex.words[ex.focus] == both[0], "the focus word was lost in the switch"
    assert ex.words == novel.words and ex.message_lines == novel.notes
    assert ex.heatmap.figure["title"] == "Head 0 of the 4-head model (novels)"
    ex.example_picker.value = novel_examples()[0]
    assert ex.sentence.value == novel_examples()[0] and not ex.message_lines, "a novel example has unknown words"
    ex.model_picker.value = "novel_one_head"
    assert ex.example_picker.value == novel_examples()[0], "the same examples: the pick stays"
    ex.model_picker.value = "four_heads"  # a novel example gives way to a story one, with a note that says why
    assert ex.offered_examples == story_examples and ex.example_picker.value == ex.sentence.value in story_examples
    assert ex.message_lines[-1] == SWAPPED and "<unk>" not in ex.words
    ex.set_focus(1)
    assert SWAPPED not in ex.message_lines, "the switch's note goes with the next change"
    kept, ex.model_picker.value = ex.shown_text, "novel_four_heads"  # a story example, its focus picked
    assert ex.shown_text == novel_examples()[0] and ex.message_lines[-1] == RESTORED, "the novels' last example"
    ex.model_picker.value = "four_heads"
    assert (ex.shown_text, ex.focus) == (kept, 1), "the way back shows the example and the focus it left"


def test_the_static_explorer_offers_the_story_and_the_novel_four_head_models() -> None:
    page = static_explorer()
    labels = re.findall(r"<option value='\d+'(?: selected)?>([^<]*)</option>", page.data)
    novels = [label for label in labels if label.startswith(f"{NOVELS}: ")]
    assert labels[0].startswith(f"{STORY_WORLD}: ") and len(novels) == len(novel_examples())
    assert labels[-4:] == [f"head {h}" for h in range(4)]
    assert "Head 0 of the 4-head model\"" in page.data and f"Head 0 of the 4-head model ({NOVELS})" in page.data


def test_a_learners_folder_joins_the_menu_with_its_card_notes_and_examples_from_its_own_text(
    mine: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(checkpoints, "_NOTED", set())  # as in a new session: the notes not yet printed
    ex = explore(str(mine))
    assert capsys.readouterr().out == "", "the card notes are printed above the widget that shows them"
    own = ["one head, sample.txt (mine)", "four heads, sample.txt (mine)"]  # the file each learned
    assert [label for label, _ in ex.model_picker.options] == [*(shipped(n).label for n in shipped_names()), *own]
    assert int(ex.model_picker.layout.width.removesuffix("px")) > int(explore().model_picker.layout.width[:-2]), "wider"
    four = str(mine / "four_heads.json")
    assert ex.model_name == four and ex.problem == "" and ex.model.config.heads == 4, ex.message_lines
    card = load_model(four).card
    notes, examples = card["notes"], card["examples"]
    assert notes and all(html.escape(note, quote=False) in ex.card_notes.value for note in notes), "folded, above"
    assert examples and ex.offered_examples == examples and ex.sentence.value == examples[0]
    assert ex.heatmap.figure["title"] == "Head 0 of the 4-head model (sample.txt, mine)"
    ex.model_picker.value = DEFAULT
    assert ex.model_name == DEFAULT and ex.offered_examples != examples
    ex.model_picker.value = str(mine / "one_head.json")
    assert ex.att.shape[0] == 1 and ex.offered_examples == examples and ex.problem == ""
    assert "sample.txt: " in static_explorer(four).data


@pytest.mark.parametrize("presenter", [False, True], indirect=True)
def test_a_learners_long_card_notes_fold_into_one_line_above_the_heatmap(mine: Path, presenter: bool) -> None:
    ex = explore(str(mine))
    assert len(ex.card_notes.value) > 500 and ex.card_notes.value.count("<details") == 1, ex.card_notes.value
    assert ex.heatmap.figure["height"] >= ex.tallest - 3 * control_height(ex.font), "the summary's lines at most"


def test_a_learners_card_opens_that_model_and_a_wrong_one_shows_the_default_and_says_so(mine, tmp_path) -> None:
    card = str(mine / "one_head.json")
    ex = explore(card)
    assert ex.model_name == card and ex.model.config.heads == 1 and ex.problem == ""
    assert [name for _, name in ex.model_picker.options] == [*shipped_names(), card]
    ex = explore(str(tmp_path / "mien"), STORY)  # a folder that does not exist: the default, on that sentence
    [message] = ex.message_lines
    assert all(part in message for part in (str((tmp_path / "mien").resolve()), *shipped_names()))
    assert "<code>python -m helpers.train --out FOLDER</code>" in ex.message.value, "a command set as code, no `"
    assert ex.model_name == DEFAULT and [name for _, name in ex.model_picker.options] == list(shipped_names())
    assert shipped(DEFAULT).label in message  # the model shown instead
    _assert_shows(ex, STORY, quiet=False)


def test_a_card_without_examples_offers_the_story_examples(tmp_path: Path, small_stories) -> None:
    """A card written without held-out text (an older one) still opens, on the story-world examples."""
    result = train(heads=1, steps=1, corpus=small_stories, progress=False)
    save_checkpoint(result, tmp_path / "old" / "one_head", "python -m helpers.train --heads 1 --steps 1")
    ex = explore(str(tmp_path / "old"))
    assert ex.model_picker.options[-1][0] == "one head, story world (old)" and ex.problem == ""
    assert ex.offered_examples == default_examples() and ex.sentence.value == example_sentences()[0]
    lent = {text: label.split(": ")[0] for label, text in ex.example_picker.options[1:]}  # and said so
    assert {lent[text] for text in example_sentences()} == {"story world"} and set(lent.values()) > {"story world"}
    again = train(heads=1, steps=2, corpus=small_stories, progress=False)  # trained again into the same folder
    save_checkpoint(again, tmp_path / "old" / "one_head", "python -m helpers.train --heads 1 --steps 2")
    assert ex.model.card["steps"] == 1 and explore(str(tmp_path / "old")).model.card["steps"] == 2, "a stale model"


def test_a_very_long_word_and_an_invisible_character_get_short_visible_names(ex: Explorer) -> None:
    ex.set_sentence("the fox " + "x" * 5000 + " smiles \u200d .")
    labels, notes = [label for label, _ in ex.focus_picker.options], " ".join(ex.message_lines)
    assert max(map(len, labels)) < 60 and len(notes) < 300, "a long word cut in the menu and the notes"
    assert "U+200D" in notes and not any(label.endswith("= ") for label in labels), "an invisible joiner named"
