"""A live widget for chapters 1, 2, 4 and 7: move something, watch each step of the computation change.

- `spotlight_playground` (chapter 1): drag match scores and the temperature, see the weights share 100%.
- `step_through` (chapter 2): one word's trip through a head, step by step, every tensor with its shape.
- `split_the_width` (chapter 4): 1 to 16 heads at width 128: the split, the cost, the heads' heatmaps.
- `change_one_word` (chapter 7): swap a word, see which outputs move after attention and after the
  feed-forward part.

Each is an ipywidgets box with update methods callable from Python, a message area for bad values and a
summary line in words. In a site or slide build (helpers.static.static_build()) each factory returns a
static copy that works with no kernel.
"""

from helpers.chapter_widgets.one_word import change_one_word
from helpers.chapter_widgets.playground import spotlight_playground
from helpers.chapter_widgets.split_width import split_the_width
from helpers.chapter_widgets.step_through import step_through
from helpers.needs import InputError  # what a factory raises for arguments it cannot show, shown without a traceback

__all__ = ["InputError", "change_one_word", "split_the_width", "spotlight_playground", "step_through"]
