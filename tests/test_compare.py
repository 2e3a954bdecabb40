"""helpers.compare: learning curves, scoreboard heatmap, ablation bars and saving an upload."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.compare import ablation_bars, learning_curves, scoreboard_heatmap, smooth, uploaded_file
from helpers.stories import CLUE_KINDS

BOARD_4 = {"subject": [0.01, 0.02, 0.05, 0.37], "previous": [0.03, 0.21, 0.03, 0.04],
           "mood": [0.23, 0.0, 0.0, 0.0], "sense": [0.01, 0.0, 0.0, 0.17], "chance": [0.03, 0.04, 0.02, 0.02]}
BOARD_1 = {"subject": [0.19], "previous": [0.02], "mood": [0.05], "sense": [0.04], "chance": [0.03, 0.04, 0.02, 0.02]}


def test_smooth_is_a_trailing_mean() -> None:
    assert smooth([4.0, 2.0, 0.0, 2.0], window=2) == [4.0, 3.0, 1.0, 1.0]
    assert smooth([1.0, 2.0, 3.0], window=10) == [1.0, 1.5, 2.0]
    assert smooth([], window=3) == []
    with pytest.raises(ValueError, match="window"):
        smooth([1.0], window=0)


def test_learning_curves_draw_every_step_and_a_smoothed_line_per_run() -> None:
    fig = learning_curves({"one head": [7.0, 5.0, 4.0], "four heads": [7.0, 4.0]}, window=2)
    assert len(fig.data) == 4
    raw, bold = fig.data[0], fig.data[1]
    assert list(raw.x) == [1, 2, 3] and list(raw.y) == [7.0, 5.0, 4.0]
    assert list(bold.y) == [7.0, 6.0, 4.5] and bold.name == "one head"
    assert fig.data[3].name == "four heads" and len(fig.data[3].x) == 2
    assert fig.layout.xaxis.title.text == "training step"
    assert "loss" in fig.layout.yaxis.title.text


@pytest.mark.parametrize("curves", [{}, {"one head": []}])
def test_learning_curves_need_losses(curves) -> None:
    with pytest.raises(ValueError, match="at least one"):
        learning_curves(curves)


def test_scoreboard_heatmap_shows_chance_then_each_model() -> None:
    fig = scoreboard_heatmap({"one head": BOARD_1, "four heads": BOARD_4})
    chance, one, four = fig.data
    assert list(chance.x) == ["chance"] and [row[0] for row in chance.z] == BOARD_4["chance"]
    assert list(one.x) == ["head 0"]
    assert list(four.x) == [f"head {h}" for h in range(4)] and list(four.y) == list(CLUE_KINDS)
    assert list(four.z[0]) == BOARD_4["subject"]
    assert four.text[2][0] == "23%"
    shown = [(text, value) for trace in fig.data
             for texts, values in zip(trace.text, trace.z, strict=True)
             for text, value in zip(texts, values, strict=True)]
    assert all(text.endswith("%") and (value >= 0.1 or "." in text) for text, value in shown)  # small: a decimal
    assert fig.layout.yaxis.title.text == "kind of clue"
    assert fig.layout.xaxis2.title.text == "head"
    assert "kind of clue: %{y}" in four.hovertemplate


def test_scoreboard_heatmap_names_real_text_kinds_as_kinds_of_word_not_clues() -> None:
    board = {kind: [0.2, 0.3] for kind in ("previous word", "punctuation")} | {"chance": [0.1, 0.1]}
    fig = scoreboard_heatmap({"novels": board}, kinds=["previous word", "punctuation"],
                             kind_name="kind of earlier word")
    assert fig.layout.yaxis.title.text == "kind of earlier word"
    assert all("kind of earlier word: %{y}" in trace.hovertemplate and "clue" not in trace.hovertemplate
               for trace in fig.data)


def test_scoreboard_heatmap_refuses_a_board_without_the_kinds() -> None:
    with pytest.raises(ValueError, match="lacks the clue kinds"):
        scoreboard_heatmap({"four heads": {"subject": [0.1], "chance": [0.1] * 4}})
    with pytest.raises(ValueError, match="one share per head"):
        scoreboard_heatmap({"four heads": {**BOARD_4, "mood": [0.1]}})
    with pytest.raises(ValueError, match="chance"):
        scoreboard_heatmap({"four heads": {k: v for k, v in BOARD_4.items() if k != "chance"}})


def test_ablation_bars_put_the_whole_model_first_and_the_accuracy_lost_per_kind() -> None:
    baseline = {"val_ppl": 2.3, "clue_accuracy": dict.fromkeys(CLUE_KINDS, 0.7)}
    rows = [{"head": h, "val_ppl": 2.5 + h, "clue_accuracy": dict.fromkeys(CLUE_KINDS, 0.7 - 0.1 * h)}
            for h in range(2)]
    fig = ablation_bars(baseline, rows)
    perplexity, *lost = fig.data
    assert list(perplexity.x) == ["all heads on", "head 0 off", "head 1 off"]
    assert list(perplexity.y) == [2.3, 2.5, 3.5]
    assert [trace.name for trace in lost] == list(CLUE_KINDS)
    assert lost[0].y == pytest.approx([0.0, 0.1])
    with pytest.raises(ValueError, match="clue_accuracy"):
        ablation_bars(baseline, [{"head": 0, "val_ppl": 3.0}])
    with pytest.raises(ValueError, match="at least one"):
        ablation_bars(baseline, [])


def test_uploaded_file_saves_the_bytes_under_the_files_own_name(tmp_path: Path) -> None:
    assert uploaded_file((), folder=tmp_path) is None
    value = ({"name": "../../story.txt", "type": "text/plain", "size": 5, "content": memoryview(b"hello")},)
    path = uploaded_file(value, folder=tmp_path)
    assert path == tmp_path / "story.txt"
    assert path.read_bytes() == b"hello"


@pytest.mark.parametrize("value", [({"name": "..", "content": b"x"},), ({"content": b"x"},), ("story.txt",)])
def test_uploaded_file_refuses_what_is_not_an_upload(value, tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        uploaded_file(value, folder=tmp_path)
    assert not any(tmp_path.iterdir())


def test_late_checks_spread_over_the_last_third() -> None:
    from helpers.compare import late_checks

    assert late_checks(60) == (40, 50, 60)
    assert late_checks(100) == (67, 83, 100)
    assert late_checks(3) == (2, 3)
    with pytest.raises(ValueError, match="whole number of steps"):
        late_checks(2)


def test_race_verdict_compares_the_gap_with_the_runs_own_noise() -> None:
    from types import SimpleNamespace

    from helpers.compare import race_verdict

    def run(curve: dict[int, float], steps: int = 60, clues: float | None = None) -> SimpleNamespace:
        accuracy = {} if clues is None else {"all": clues}
        return SimpleNamespace(val_curve=curve, val_ppl=list(curve.values())[-1], steps=steps,
                               clue_accuracy=accuracy)

    close = race_verdict({"one head": run({40: 30.0, 50: 26.0, 60: 24.0}),
                          "four heads": run({40: 29.0, 50: 25.0, 60: 22.0})})
    assert "a gap of 2.00" in close and "moved by up to 7.00" in close and "within the noise" in close
    assert "after 60 steps each (lower is better):" in close and "clue accuracy" not in close
    assert max(len(line) for line in close.splitlines()) <= 100  # whole on a projector, no wrap mid-word
    clear = race_verdict({"one head": run({40: 30.0, 50: 29.8, 60: 29.7}),
                          "four heads": run({40: 22.4, 50: 22.2, 60: 22.0})})
    assert "verdict: four heads is ahead on perplexity, by more than twice the noise, in this run" in clear
    unfair = race_verdict({"a": run({40: 3.0, 60: 2.0}), "b": run({40: 3.0, 60: 2.5}, steps=90)})
    assert "not a fair race" in unfair and "after 60 and 90 steps (lower" in unfair
    with pytest.raises(ValueError, match="two validation checks"):
        race_verdict({"a": run({60: 2.0}), "b": run({40: 3.0, 60: 2.5})})
    with pytest.raises(ValueError, match="exactly two runs"):
        race_verdict({"a": run({40: 3.0, 60: 2.0})})


def test_a_gap_barely_above_the_noise_or_against_clue_accuracy_is_no_win() -> None:
    """Chapter 7's run once read 'ahead by more than the noise' on a gap of 0.63 against 0.62."""
    from types import SimpleNamespace

    from helpers.compare import race_verdict

    def run(curve: dict[int, float], clues: float) -> SimpleNamespace:
        return SimpleNamespace(val_curve=curve, val_ppl=list(curve.values())[-1], steps=100,
                               clue_accuracy={"all": clues})

    barely = race_verdict({"without feed-forward": run({67: 6.01, 83: 5.6, 100: 5.39}, 0.315),
                           "with feed-forward": run({67: 5.3, 83: 4.9, 100: 4.76}, 0.339)})
    assert "gap of 0.63" in barely and "moved by up to 0.62" in barely
    assert "verdict: with feed-forward ended lower, but by less than twice the noise: too close to call" in barely
    assert "ahead" not in barely
    mixed = race_verdict({"one head": run({67: 9.0, 83: 8.9, 100: 8.8}, 0.45),
                          "four heads": run({67: 6.0, 83: 5.9, 100: 5.8}, 0.40)})
    assert "clue accuracy (higher is better): one head 45.0%, four heads 40.0%" in mixed
    assert "verdict: the scores disagree (four heads has the lower perplexity, one head the higher clue" in mixed
    both = race_verdict({"one head": run({67: 9.0, 83: 8.9, 100: 8.8}, 0.40),
                         "four heads": run({67: 6.0, 83: 5.9, 100: 5.8}, 0.45)})
    assert "four heads is ahead on perplexity and on clue accuracy, by more than twice the noise" in both
    assert "cannot say whether it stays ahead" in both


def test_the_printed_gap_is_the_difference_of_the_printed_perplexities() -> None:
    """Chapter 7 once printed 'without feed-forward 5.25, with feed-forward 4.65: a gap of 0.61'."""
    from types import SimpleNamespace

    from helpers.compare import race_verdict

    def run(curve: dict[int, float]) -> SimpleNamespace:
        return SimpleNamespace(val_curve=curve, val_ppl=list(curve.values())[-1], steps=100, clue_accuracy={})

    verdict = race_verdict({"without feed-forward": run({67: 5.9, 83: 5.6, 100: 5.2549}),
                            "with feed-forward": run({67: 5.1, 83: 4.9, 100: 4.6460})})
    assert "without feed-forward 5.25, with feed-forward 4.65: a gap of 0.60" in verdict
    # the printed gap (0.60) and noise (0.30) decide the verdict: unrounded, 0.596 is over twice 0.296
    edge = race_verdict({"a": run({67: 2.996, 83: 2.8, 100: 2.70}), "b": run({67: 3.4, 83: 3.35, 100: 3.296})})
    assert "a 2.70, b 3.30: a gap of 0.60" in edge and "moved by up to 0.30" in edge
    assert "by less than twice the noise: too close to call" in edge


def test_comparison_figures_fit_850_pixels_and_grow_their_text_for_a_projector() -> None:
    import helpers

    baseline = {"val_ppl": 2.3, "clue_accuracy": dict.fromkeys(CLUE_KINDS, 0.7)}
    rows = [{"head": h, "val_ppl": 2.5, "clue_accuracy": dict.fromkeys(CLUE_KINDS, 0.6)} for h in range(4)]
    try:
        for on in (False, True):
            helpers.presenter_mode(on)
            boards = {"one head": BOARD_1, "four heads": BOARD_4}
            for fig in (learning_curves({"a": [1.0, 0.5]}), scoreboard_heatmap(boards), ablation_bars(baseline, rows)):
                assert fig.layout.width <= 820
                assert fig.layout.font.size == (22 if on else 14)
                assert all(a.font.size == fig.layout.font.size for a in fig.layout.annotations)
    finally:
        helpers.presenter_mode(False)
