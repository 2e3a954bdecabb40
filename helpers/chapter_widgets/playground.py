"""Chapter 1's spotlight playground: drag the match scores, set the temperature, watch the weights share 100%.

One word (the last one given) looks at itself and every word before it. Each word it can see has a slider
for its match score; softmax(scores / temperature) turns them into weights, drawn as bars, and the weights
take the weighted average of the words' vectors. The "three clues" preset boosts three words equally, which
shows the limit of one spotlight: however high the boost, none of the three gets more than a third.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import ipywidgets as widgets
import torch
from IPython.display import HTML

from helpers.chapter_widgets.base import TEXT, ChapterWidget, tensor_table
from helpers.drawing import Drawing, bars, figure, static_view
from helpers.needs import InputError
from helpers.plots import FIT_WIDTH, LOOKED_AT, PALETTE, style
from helpers.reading import unique_labels
from helpers.static import static_build

SCORE_RANGE = (-5.0, 10.0)
"""What the sliders allow: enough to make one word win outright, or to push it to nearly nothing."""
SCORE_STEP = 0.5
"""How far a score slider moves at a time (chapter 1 prints the settings either side of its answer)."""
CLUE_BOOST = 2.0
"""The score each clue gets in the "three clues" preset (every other word gets 0): low enough that the other
words keep a visible share at temperature 1, so lowering the temperature shows the clues' shares climb to a third
and stop there."""
STATIC_TEMPERATURES = (0.25, 0.5, 1.0, 2.0, 4.0, 10.0)
"""The temperatures the static copy's slider offers."""
TEMPERATURE_FORMAT = ".2f"
"""How the live slider's readout and the drawing's title both write the temperature (d3 and Python agree on it)."""


def _check_inputs(words: Sequence[str], vectors: torch.Tensor, features: Sequence[str], clues: Sequence[str]) -> None:
    if not words:
        raise InputError("the playground needs at least one word")
    if not isinstance(vectors, torch.Tensor) or vectors.shape != (len(words), len(features)):
        got = list(vectors.shape) if isinstance(vectors, torch.Tensor) else type(vectors).__name__
        raise InputError(f"vectors must be a [{len(words)} words, {len(features)} features] tensor, got {got}")
    missing = [c for c in clues if c not in words]
    if missing or len(clues) != 3:
        raise InputError(f"the three clues must be three of the words {list(words)}, got {list(clues)}")


def preset_scores(words: Sequence[str], preset: str, clues: Sequence[str]) -> list[float]:
    """Match scores for a preset: 'plain average' (all 0), 'three clues' or 'one clue' (the first clue)."""
    boosted = {"plain average": [], "three clues": list(clues), "one clue": list(clues[:1])}
    if preset not in boosted:
        raise ValueError(f"No preset {preset!r}: choose {', '.join(map(repr, boosted))}.")
    targets = {words.index(c) for c in boosted[preset]}
    return [CLUE_BOOST if i in targets else 0.0 for i in range(len(words))]


class SpotlightPlayground(ChapterWidget):
    """Sliders for each word's match score and the temperature; bars of the weights; the weighted average."""

    css_class = "spotlight-playground"

    def __init__(self, words: Sequence[str], vectors: torch.Tensor, features: Sequence[str],
                 clues: Sequence[str]) -> None:
        _check_inputs(words, vectors, features, clues)
        super().__init__()
        self.words, self.labels = list(words), unique_labels(words)
        self.vectors = vectors.detach().float()  # [T, F]
        self.features, self.clues = list(features), list(clues)
        self.scores = [0.0] * len(words)
        self.temperature = 1.0
        self.weights = torch.full((len(words),), 1 / len(words))  # [T]
        s = style()
        slider_layout = widgets.Layout(width="390px")
        label_style = {"description_width": f"{s['font'] * 7}px"}
        self.sliders = [widgets.FloatSlider(value=0.0, min=SCORE_RANGE[0], max=SCORE_RANGE[1], step=SCORE_STEP,
                                            description=label, layout=slider_layout, style=label_style)
                        for label in self.labels]
        self.temperature_slider = widgets.FloatLogSlider(value=1.0, base=10, min=-1, max=1, step=0.05,
                                                         description="temperature", layout=slider_layout,
                                                         style=label_style, readout_format=TEMPERATURE_FORMAT)
        self.preset_buttons = [widgets.Button(description=name, tooltip=f"set the scores: {name}",
                                              layout=widgets.Layout(width="auto"))
                               for name in ("plain average", "three clues", "one clue")]
        for i, slider in enumerate(self.sliders):
            slider.observe(self.calls(lambda value, i=i: self.set_score(i, value)), names="value")
        self.temperature_slider.observe(self.calls(self.set_temperature), names="value")
        for button in self.preset_buttons:
            button.on_click(lambda b: self.preset(b.description))

        self.bars = Drawing()
        self.average = widgets.HTML()
        scores_title = widgets.HTML(self.html_lines([f"match scores of the words '{self.words[-1]}' can see"]))
        rows = math.ceil((len(self.sliders) + 1) / 2)  # two columns fit 1280x720; filled down, in reading order
        sliders = widgets.GridBox([*self.sliders, self.temperature_slider], layout=widgets.Layout(
            grid_template_columns="repeat(2, 400px)", grid_template_rows=f"repeat({rows}, auto)",
            grid_auto_flow="column"))
        self.children = [self.css, self.access, widgets.HBox(self.preset_buttons), scores_title, sliders, self.message,
                         self.bars, self.summary, self.average]
        self._redraw()

    def _title(self) -> str:
        return f"Where '{self.labels[-1]}' looks (temperature {self.temperature:{TEMPERATURE_FORMAT}})"

    # ----- what code (and the tests) call ------------------------------------------------------

    def set_score(self, word: int | str, score: float) -> None:
        """Set the match score of one word (its position, or the word itself) and redraw."""
        with self.report():
            i = self._position(word)
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise ValueError(f"A match score must be a finite number, got {score!r}.")
            self.scores[i] = float(score)
            self.set_quietly(self.sliders[i], min(max(score, SCORE_RANGE[0]), SCORE_RANGE[1]))
            self._redraw()

    def set_temperature(self, temperature: float) -> None:
        """Divide every score by `temperature` before the softmax: low is sharp, high is soft."""
        with self.report():
            if (isinstance(temperature, bool) or not isinstance(temperature, (int, float))
                    or not math.isfinite(temperature) or temperature <= 0):
                raise ValueError(f"The temperature must be above 0 (got {temperature!r}): small is sharp, large "
                                 "is soft.")
            self.temperature = float(temperature)
            self.set_quietly(self.temperature_slider, min(max(temperature, 0.1), 10.0))
            self._redraw()

    def preset(self, name: str) -> None:
        """Set every score at once: 'plain average', 'three clues' or 'one clue'."""
        with self.report():
            self.scores = preset_scores(self.words, name, self.clues)
            for slider, score in zip(self.sliders, self.scores, strict=True):
                self.set_quietly(slider, score)
            self._redraw()

    # ----- drawing -----------------------------------------------------------------------------------

    def _position(self, word: int | str) -> int:
        if isinstance(word, str) and word in self.labels:
            return self.labels.index(word)
        if type(word) is int and 0 <= word < len(self.words):
            return word
        raise ValueError(f"There is no word {word!r} here: pick a position 0 to {len(self.words) - 1} "
                         f"or one of {', '.join(self.labels)}.")

    def _redraw(self) -> None:
        scores = torch.tensor(self.scores) / self.temperature  # [T]
        self.weights = torch.softmax(scores, dim=-1)  # [T], adds up to 1
        row = self.weights.tolist()
        self.bars.figure = bars_figure(self.labels, row, self._title())
        self.average.value = average_table(self.weights, self.vectors, self.features, self.font)
        self.say(summary_line(self.labels, row, [self.labels[self.words.index(c)] for c in self.clues]))


def average_table(weights: torch.Tensor, vectors: torch.Tensor, features: Sequence[str], font: int) -> str:
    """HTML: the weighted average of the word vectors (weights [T] @ vectors [T, F]) as a one-row table."""
    average = weights @ vectors  # [T] @ [T, F] -> [F]
    return (f"<div style='font-size: {font}px; color: {TEXT}'>the weighted average of the {len(weights)} word "
            f"vectors, shape {list(average.shape)}:</div>"
            + tensor_table([average.tolist()], rows=["average"], columns=features, font=font))


EVEN = 0.005
"""How far above an even share (1 / words) a weight must be to count as looked at more than the rest."""


EVEN_CLUES = 0.05
"""How close the three clues' shares must be for the summary to call them balanced (and name the third)."""


def _looked_at(weights: Sequence[float]) -> tuple[list[int], list[int]]:
    """The positions above an even share (1 / words), strongest first, and those as strong as the strongest."""
    even = 1 / len(weights)
    above = [i for i in sorted(range(len(weights)), key=lambda i: -weights[i]) if weights[i] > even + EVEN]
    return above, [i for i in above if weights[above[0]] - weights[i] < EVEN]


def looks_at(labels: Sequence[str], weights: Sequence[float]) -> str:
    """Where the last word looks, in words: the (up to three) words above an even share, strongest first,
    or that it spreads evenly when none is."""
    even = 1 / len(weights)
    above, tied = _looked_at(weights)
    if not above:
        return f"'{labels[-1]}' spreads its attention evenly: {even:.1%} to each of the {len(weights)} words"
    if len(tied) > 3:  # naming three of them would pick three of equals
        return (f"'{labels[-1]}' gives the same share, {weights[above[0]]:.1%}, to each of {len(tied)} words: "
                + ", ".join(f"'{labels[i]}'" for i in sorted(tied)))
    return f"'{labels[-1]}' looks most at: " + ", ".join(f"'{labels[i]}' {weights[i]:.1%}" for i in above[:3])


def summary_line(labels: Sequence[str], weights: Sequence[float], clues: Sequence[str]) -> str:
    """The playground's summary in words: where the last word looks, then the three clues' shares, to one decimal
    as the bars are labelled (a share the bars show as 0.1% is not called 0%). When the words it looks at most are
    clues, it names their shares once; the weakest only when the shares differ."""
    shares = [weights[labels.index(c)] for c in clues]
    why = ("an even spread gives the clues no more than any other word" if max(weights) - min(weights) < EVEN
           else "the spotlight is on other words, and together the clues get less than an even spread would give them"
           if sum(shares) < len(clues) / len(weights)
           else "one spotlight cannot give every clue more than a third" if max(shares) - min(shares) < EVEN_CLUES
           else "what one clue gains, the others lose, since all the weights share one 100%")
    clue_shares = ", ".join(f"'{c}' {w:.1%}" for c, w in zip(clues, shares, strict=True))
    weakest = "" if len({f"{w:.1%}" for w in shares}) == 1 else f"; the weakest has {min(shares):.1%}"
    total = f" (all weights together: {sum(weights):.0%})"
    above, tied = _looked_at(weights)
    named = [labels[i] for i in above[:3]] if len(tied) <= 3 else []
    if named and set(named) <= set(clues):  # the clues' shares say how much it looks at them
        some = " and ".join(f"'{word}'" for word in named)
        most = "its three clues:" if set(named) == set(clues) else f"{some}: the three clues get"
        return f"'{labels[-1]}' looks most at {most} {clue_shares}{total}{weakest}: {why}."
    return looks_at(labels, weights) + f"{total}. The three clues get {clue_shares}{weakest}: {why}."


def spotlight_playground(words: Sequence[str], vectors: torch.Tensor, features: Sequence[str],
                         clues: Sequence[str]) -> SpotlightPlayground | HTML:
    """The live playground for the last of `words` looking at all of them (vectors [T, F]).

    In a site or slide build (helpers.static.static_build()) it returns the static copy instead.
    """
    if static_build():
        return static_playground(words, vectors, features, clues)
    return SpotlightPlayground(words, vectors, features, clues)


def bars_figure(labels: Sequence[str], weights: Sequence[float], title: str) -> dict:
    """The weights as bars labelled in percent, short enough that the sliders above them and the summary below
    them stay on screen together: a 1366x768 laptop in reading mode, 1280x720 in presenter mode (four rows of two
    sliders)."""
    s = style()
    height = min(int(s["size"] * 0.65), int(s["tallest"] - 12.5 * s["font"]))
    panel = bars(labels, [("weight", weights, PALETTE[0])], ymax=1.15, on_bars=True, tick=s["font"],
                 xtitle=LOOKED_AT)
    return figure(title, [panel], min(FIT_WIDTH, s["size"] + 200), height, s["font"])


def static_playground(words: Sequence[str], vectors: torch.Tensor, features: Sequence[str],
                      clues: Sequence[str]) -> HTML:
    """The playground without a kernel: one menu picks the preset scores, another the temperature; under the bars,
    the live widget's summary line and the weighted average."""
    _check_inputs(words, vectors, features, clues)
    presets = ("plain average", "three clues", "one clue")
    labels, font = unique_labels(words), style()["font"]
    clue_labels, vectors = [labels[list(words).index(c)] for c in clues], vectors.detach().float()  # [T, F]
    states = {}
    for p, name in enumerate(presets):
        scores = torch.tensor(preset_scores(list(words), name, clues))  # [T]
        for t, temperature in enumerate(STATIC_TEMPERATURES):
            weights = torch.softmax(scores / temperature, dim=-1)  # [T]
            row = weights.tolist()
            states[p, t] = bars_figure(labels, row, f"Where '{labels[-1]}' looks (temperature {temperature:g})") | {
                "caption": summary_line(labels, row, clue_labels), "html_height": 4 * font,
                "below": average_table(weights, vectors, features, font)}
    return static_view(states, [("scores", presets), ("temperature", [f"{t:g}" for t in STATIC_TEMPERATURES])],
                       start=[1, STATIC_TEMPERATURES.index(1.0)], font=font)
