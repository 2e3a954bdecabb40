"""How long one update of each chapter widget takes in the kernel: compute, then the drawing's data or HTML.

    python -m benchmarks.widget_speed                     # the whole machine
    python -m benchmarks.widget_speed --cpu-share 0.5     # half a CPU, as a learner of a full class gets

Drives every widget through the Python methods its controls call, alternating values so that every update is a
real change. Writes assets/widget_speed.json. Target: median <= 50 ms per update, at half a CPU too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import ipywidgets as widgets
import torch

from benchmarks.measure import measured, median_p90, save, share_parser, time_ms
from benchmarks.report import widgets_block
from helpers.chapter_widgets import change_one_word, split_the_width, spotlight_playground, step_through
from helpers.course import COURSE_EXAMPLES
from helpers.drawing import Drawing

TARGET_MS, REPEATS = 50.0, 60
OUT = Path(__file__).resolve().parents[1] / "assets" / "widget_speed.json"


def widgets_and_updates() -> list[tuple[str, str, widgets.Widget, Callable[[int], object]]]:
    """(chapter widget, what one update does, the widget, the update as a function of the repeat number)."""
    words = COURSE_EXAMPLES[1].split()
    gen = torch.Generator().manual_seed(0)
    visible = words[: words.index("street") + 1]
    play = spotlight_playground(visible, torch.randn(len(visible), 5, generator=gen), list("abcde"), visible[1:4])
    steps = step_through(words, *torch.randn(3, len(words), 4, generator=gen))
    split, one_word = split_the_width(), change_one_word()
    def sixteen(i: int) -> None:
        if split.heads != 16:
            split.set_heads(16)
        split.show_heads_from((0, 4, 8, 12)[i % 4])
    return [(f"chapter {n}: {name}", action, widget, update) for n, name, action, widget, update in (
        (1, "spotlight playground", "drag one match score", play, lambda i: play.set_score(1, float(i % 7))),
        (1, "spotlight playground", "move the temperature slider", play,
         lambda i: play.set_temperature((0.5, 2.0)[i % 2])),
        (2, "step-through", "Next / Back", steps, lambda i: steps.go_to(i % 6)),
        (2, "step-through", "pick another word", steps, lambda i: steps.set_word(i % len(words))),
        (4, "split the width", "pick a head count", split, lambda i: split.set_heads((1, 2, 4, 8, 16)[i % 5])),
        (4, "split the width", "show four other heads of 16", split, sixteen),
        (4, "split the width", "untrained or trained layer", split,
         lambda i: split.set_layer(("untrained layer", "trained four-head checkpoint")[i % 2])),
        (7, "change one word", "type a replacement word", one_word,
         lambda i: one_word.set_replacement(("old", "girl")[i % 2])),
        (7, "change one word", "pick another word", one_word, lambda i: one_word.set_position(i % 10)))]


def sent(widget: widgets.Widget) -> None:
    """Serialise what the widget's drawings and HTML would send (the widget protocol's JSON)."""
    for child in widget.children:
        if isinstance(child, Drawing):
            json.dumps(child.figure)
        elif isinstance(child, widgets.HTML):
            json.dumps(child.value)


def main() -> None:
    share = share_parser(__doc__).parse_args().cpu_share
    with measured(share) as machine:
        rows = [{"widget": name, "update": action,
                 **median_p90(time_ms(lambda i, update=update, widget=widget: (update(i), sent(widget)), REPEATS))}
                for name, action, widget, update in widgets_and_updates()]
    run = {"what": "kernel-side time of one chapter-widget update: compute, then the drawing's data or HTML as JSON",
           "repeats": REPEATS, "target_median_ms": TARGET_MS, "updates": rows,
           "meets_target": all(r["median_ms"] <= TARGET_MS for r in rows), "machine_at_start":
           machine["machine_at_start"], "machine_at_end": machine["machine_at_end"]}
    save(OUT, share, run, run | {"cpu_share_measured": machine["cpu_share_measured"]})
    print(widgets_block())


if __name__ == "__main__":
    main()
