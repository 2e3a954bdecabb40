"""helpers.compare: learning curves, scoreboard heatmap, ablation bars, races, the seed margin and an upload."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers import compare
from helpers.plots import FIT_WIDTH
from helpers.stories import CLUE_KINDS

BOARD_4 = {"subject": [0.01, 0.02, 0.05, 0.37], "previous": [0.03, 0.21, 0.03, 0.04],
           "mood": [0.23, 0.0, 0.0, 0.0], "sense": [0.01, 0.0, 0.0, 0.17], "chance": [0.03, 0.04, 0.02, 0.02]}
BOARD_1 = {"subject": [0.19], "previous": [0.02], "mood": [0.05], "sense": [0.04], "chance": [0.03, 0.04, 0.02, 0.02]}
BASELINE = {"val_ppl": 2.3, "clue_accuracy": dict.fromkeys(CLUE_KINDS, 0.7)}  # the whole model, for ablation_bars


def test_smooth_is_a_trailing_mean() -> None:
    assert compare.smooth([4.0, 2.0, 0.0, 2.0], window=2) == [4.0, 3.0, 1.0, 1.0]
    assert compare.smooth([1.0, 2.0, 3.0], window=10) == [1.0, 1.5, 2.0] and compare.smooth([], window=3) == []
    with pytest.raises(ValueError, match="window"):
        compare.smooth([1.0], window=0)


def test_learning_curves_draw_every_step_and_a_smoothed_line_per_run() -> None:
    fig = compare.learning_curves({"one head": [7.0, 5.0, 4.0], "four heads": [7.0, 4.0]}, window=2)
    raw, bold, _, four = fig.data
    assert list(raw.x) == [1, 2, 3] and list(raw.y) == [7.0, 5.0, 4.0]
    assert list(bold.y) == [7.0, 6.0, 4.5] and bold.name == "one head"
    assert four.name == "four heads" and len(four.x) == 2 and bold.line.dash != four.line.dash, "told apart by dash"
    assert fig.layout.xaxis.title.text == "training step" and "loss" in fig.layout.yaxis.title.text
    for steps, window in ((26, 4), (60, 10), (1000, 10)):  # a shortened race's mean keeps up with its losses
        assert f"mean of the last {window} steps" in compare.learning_curves({"a": [1.0] * steps}).layout.title.text
    for empty in ({}, {"one head": []}):
        with pytest.raises(ValueError, match="at least one"):
            compare.learning_curves(empty)


def test_scoreboard_heatmap_shows_chance_then_each_model() -> None:
    fig = compare.scoreboard_heatmap({"one head": BOARD_1, "four heads": BOARD_4})
    chance, one, four = fig.data
    assert list(chance.x) == ["spread evenly"] and [row[0] for row in chance.z] == BOARD_4["chance"]
    assert [a.text for a in fig.layout.annotations][:3] == ["chance", "one head", "four heads"]  # panel titles
    assert list(one.x) == ["head 0"]
    assert list(four.x) == [f"head {h}" for h in range(4)] and list(four.y) == list(CLUE_KINDS)
    assert list(four.z[0]) == BOARD_4["subject"] and four.text[2][0] == "23%"
    shown = [(text, value) for trace in fig.data
             for texts, values in zip(trace.text, trace.z, strict=True)
             for text, value in zip(texts, values, strict=True)]
    assert all(text.endswith("%") and (value >= 0.1 or "." in text) for text, value in shown)  # small: a decimal
    assert fig.layout.yaxis.title.text == "kind of clue" and fig.layout.xaxis2.title.text == "head"
    assert "kind of clue: %{y}" in four.hovertemplate
    board = {kind: [0.2, 0.3] for kind in ("one word back", "punctuation")} | {"chance": [0.1, 0.1]}
    real = compare.scoreboard_heatmap({"novels": board}, kinds=["one word back", "punctuation"],
                                      kind_name="kind of word")
    assert real.layout.yaxis.title.text == "kind of word" and all("clue" not in t.hovertemplate for t in real.data)


def test_scoreboard_heatmap_refuses_a_board_without_the_kinds() -> None:
    with pytest.raises(ValueError, match="lacks the clue kinds"):
        compare.scoreboard_heatmap({"four heads": {"subject": [0.1], "chance": [0.1] * 4}})
    with pytest.raises(ValueError, match="one share per head"):
        compare.scoreboard_heatmap({"four heads": {**BOARD_4, "mood": [0.1]}})
    with pytest.raises(ValueError, match="chance"):
        compare.scoreboard_heatmap({"four heads": {k: v for k, v in BOARD_4.items() if k != "chance"}})


def test_ablation_bars_put_the_whole_model_first_and_the_accuracy_lost_per_kind() -> None:
    rows = [{"head": h, "val_ppl": 2.5 + h, "clue_accuracy": dict.fromkeys(CLUE_KINDS, 0.7 - 0.1 * h)}
            for h in range(2)]
    perplexity, *lost = compare.ablation_bars(BASELINE, rows).data
    assert list(perplexity.x) == ["all heads on", "head 0 off", "head 1 off"] and list(perplexity.y) == [2.3, 2.5, 3.5]
    assert [trace.name for trace in lost] == list(CLUE_KINDS) and lost[0].y == pytest.approx([0.0, 0.1])
    with pytest.raises(ValueError, match="clue_accuracy"):
        compare.ablation_bars(BASELINE, [{"head": 0, "val_ppl": 3.0}])
    with pytest.raises(ValueError, match="at least one"):
        compare.ablation_bars(BASELINE, [])


def test_uploaded_file_saves_the_bytes_under_the_files_own_name(tmp_path: Path) -> None:
    assert compare.uploaded_file((), folder=tmp_path) is None
    value = ({"name": "../../story.txt", "type": "text/plain", "size": 5, "content": memoryview(b"hello")},)
    path = compare.uploaded_file(value, folder=tmp_path)
    assert path == tmp_path / "story.txt" and path.read_bytes() == b"hello"
    seven = {"tale.txt": {"metadata": {"name": "tale.txt", "size": 3}, "content": memoryview(b"hey")}}  # ipywidgets 7
    assert compare.uploaded_file(seven, folder=tmp_path).read_bytes() == b"hey"
    (tmp_path / "taken").write_text("a file where the folder would go")  # (as a hub's read-only folder would)
    with pytest.raises(ValueError, match=r"cannot be saved as .*MY_TEXT"):
        compare.uploaded_file(value, folder=tmp_path / "taken")


@pytest.mark.parametrize("value", [({"name": "..", "content": b"x"},), ({"content": b"x"},), ("story.txt",),
                                   {"story.txt": b"x"}])
def test_uploaded_file_refuses_what_is_not_an_upload(value, tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        compare.uploaded_file(value, folder=tmp_path)
    assert not any(tmp_path.iterdir())


def test_late_checks_spread_over_the_last_third_as_often_as_a_race_checks() -> None:
    from helpers.race import CHECKS, MIN_STEPS

    assert len(compare.late_checks(60)) == len(compare.late_checks(MIN_STEPS)) == CHECKS
    assert compare.late_checks(60) == (40, 50, 60)
    assert compare.late_checks(100) == (67, 83, 100) and compare.late_checks(3) == (2, 3)
    with pytest.raises(ValueError, match="whole number of steps"):
        compare.late_checks(2)


def _flat(text: str) -> str:
    """A printout with its line wraps undone, to look for a phrase that may wrap."""
    return " ".join(text.split())


def _run(curve: dict[int, float], steps: int = 100, clues: float | None = None) -> SimpleNamespace:
    """What race_verdict reads of a training run."""
    return SimpleNamespace(val_curve=curve, val_ppl=list(curve.values())[-1], steps=steps,
                           clue_accuracy={} if clues is None else {"all": clues})


def test_seed_margin_sets_the_gap_between_the_means_against_the_wider_range() -> None:
    margin = compare.seed_margin([40.0, 41.0, 40.5], [38.0, 38.4, 38.2])
    assert margin.gap == pytest.approx(2.3) and margin.range == pytest.approx(1.0) and margin.beats_range
    assert not compare.seed_margin([40.0, 43.0], [38.0, 39.0]).beats_range  # a gap of 3.0 within a range of 3.0
    assert compare.seed_margin([1.0], [3.0]).beats_range  # either way round
    with pytest.raises(ValueError, match="at least one score"):
        compare.seed_margin([], [1.0])


def test_race_verdict_compares_the_gap_with_how_much_the_runs_still_changed() -> None:
    close = compare.race_verdict({"one head": _run({40: 30.0, 50: 26.0, 60: 24.0}, 60),
                          "four heads": _run({40: 29.0, 50: 25.0, 60: 22.0}, 60)})
    assert "a gap of 2.00" in close and "moved by up to 7.00" in _flat(close) and "noise" not in close  # a trend
    assert "ahead" not in close and max(len(line) for line in close.splitlines()) <= 100
    runs = {"one head": _run({40: 30.0, 50: 29.8, 60: 29.7}, 60),
            "four heads": _run({40: 22.4, 50: 22.2, 60: 22.0}, 60)}
    assert "verdict: four heads came out ahead on perplexity" in compare.race_verdict(runs)
    learnt = compare.race_verdict(runs, {"one head": ["learnt by heart"], "four heads": []})
    assert "Note (one head): learnt by heart" in learnt and "ahead" not in learnt, "no verdict a note contradicts"
    pattern = compare.race_verdict(runs, {"one head": ["a pattern"], "four heads": ["a pattern"]})
    assert pattern.count("a pattern") == 1 and "Note: a pattern" in pattern, "a note on the text, said once"
    unfair = {"a": _run({40: 3.0, 60: 2.0}, 60), "b": _run({40: 3.0, 60: 2.5}, 90)}
    assert "not a fair race" in compare.race_verdict(unfair)
    halted = SimpleNamespace(steps=11, steps_planned=60, stopped_early="interrupted", val_curve={})
    assert "none yet, as 'one head' stopped after 11 of 60 steps" in _flat(compare.race_verdict({
        "one head": halted, "four heads": runs["four heads"]})), "the Stop button: a sentence, not an error"
    with pytest.raises(ValueError, match="two validation checks"):
        compare.race_verdict({"a": _run({60: 2.0}), "b": _run({40: 3.0, 60: 2.5})})
    with pytest.raises(ValueError, match="exactly two runs"):
        compare.race_verdict({"a": _run({40: 3.0, 60: 2.0})})


def test_a_gap_barely_above_the_runs_movement_or_against_clue_accuracy_is_no_win() -> None:
    """Chapter 7's run once read 'ahead by more than the noise' on a gap of 0.63 against 0.62."""
    barely = compare.race_verdict({"without feed-forward": _run({67: 6.01, 83: 5.6, 100: 5.39}, clues=0.315),
                           "with feed-forward": _run({67: 5.3, 83: 4.9, 100: 4.76}, clues=0.339)})
    assert "gap of 0.63" in barely and "moved by up to 0.62" in _flat(barely)
    assert "clue accuracy: with feed-forward scored higher, but it was scored only at the end" in _flat(barely)
    assert "too close to call" in _flat(barely) and "ahead" not in barely
    mixed = compare.race_verdict({"one head": _run({67: 9.0, 83: 8.9, 100: 8.8}, clues=0.45),
                          "four heads": _run({67: 6.0, 83: 5.9, 100: 5.8}, clues=0.40)})
    assert "the scores disagree" in _flat(mixed) and "ahead" not in mixed
    both = compare.race_verdict({"one head": _run({67: 9.0, 83: 8.9, 100: 8.8}, clues=0.40),
                         "four heads": _run({67: 6.0, 83: 5.9, 100: 5.8}, clues=0.45)})
    assert "four heads came out ahead on perplexity and on clue accuracy" in _flat(both)


def test_the_printed_gap_is_the_difference_of_the_printed_perplexities() -> None:
    """Chapter 7 once printed 'without feed-forward 5.25, with feed-forward 4.65: a gap of 0.61'."""
    verdict = compare.race_verdict({"without feed-forward": _run({67: 5.9, 83: 5.6, 100: 5.2549}),
                            "with feed-forward": _run({67: 5.1, 83: 4.9, 100: 4.6460})})
    assert "without feed-forward 5.25, with feed-forward 4.65: a gap of 0.60" in verdict
    # the printed gap (0.60) and movement (0.30) decide the verdict: unrounded, 0.596 is over twice 0.296
    edge = compare.race_verdict({"a": _run({67: 2.996, 83: 2.8, 100: 2.70}),
                                 "b": _run({67: 3.4, 83: 3.35, 100: 3.296})})
    assert "a gap of 0.60" in edge and "moved by up to 0.30" in _flat(edge) and "too close to call" in _flat(edge)


@pytest.mark.parametrize("presenter", [False, True], indirect=True)
def test_comparison_figures_fit_850_pixels_and_grow_their_text_for_a_projector(presenter: bool) -> None:
    rows = [{"head": h, "val_ppl": 2.5, "clue_accuracy": dict.fromkeys(CLUE_KINDS, 0.6)} for h in range(4)]
    figures = (compare.learning_curves({"a": [1.0, 0.5]}),
               compare.scoreboard_heatmap({"one head": BOARD_1, "four heads": BOARD_4}),
               compare.ablation_bars(BASELINE, rows))
    for fig in figures:
        assert fig.layout.width <= FIT_WIDTH and fig.layout.font.size == (22 if presenter else 14)
        assert all(a.font.size == fig.layout.font.size for a in fig.layout.annotations)


@pytest.mark.parametrize(("second", "verdict"), [([2.00, 2.01, 2.02], "ahead"), ([2.05, 2.06, 2.20], "too close")])
def test_a_measured_pair_is_called_by_chapter_5s_rule(second: list[float], verdict: str, capsys) -> None:
    runs = {"a": [{"val_ppl": v} for v in (2.10, 2.11, 2.12)], "b": [{"val_ppl": v} for v in second]}
    models = {name: {"label": f"model {name}", "params": 10, "seeds": [0, 1, 2]} for name in runs}
    compare.print_measured_pair({"controls": {"steps": 1000, "runs": runs, "models": models}}, "a", "b")
    said = capsys.readouterr().out
    assert verdict in said and ("model b came out ahead" in said) == (verdict == "ahead")
    with pytest.raises(ValueError, match="no runs of"):
        compare.print_measured_pair({"controls": {"steps": 1000, "runs": runs, "models": models}}, "a", "c")


@pytest.mark.parametrize(("four_no_proj", "heads_win"), [([2.00, 2.01], True), ([2.10, 2.13], False)])
def test_the_control_calls_the_heads_only_when_both_pairs_of_equal_size_agree(four_no_proj, heads_win, capsys) -> None:
    def runs(heads: int, *ppl: float) -> list[dict]:
        return [{"heads": heads, "params": 10, "val_ppl": v} for v in ppl]
    results = {"table": {"runs": runs(1, 2.10, 2.12) + runs(4, 1.90, 1.91)},
               "controls": {"runs": {"4-no-proj": runs(4, *four_no_proj), "1-proj": runs(1, 2.09, 2.12)}}}
    compare.print_equal_size(results)
    said = " ".join(capsys.readouterr().out.split())  # the verdict wraps over lines
    assert ("four heads beat one head both times" in said) == heads_win
    assert said.endswith("a projection added to one head changes nothing beyond the noise")
