"""Cells run out of order: a NameError also says which cell to run first.

A chapter calls, once in its set-up cell,

    from helpers.needs import explain_missing
    explain_missing({"model": "'Load the trained model' (section 2)"})

after which a NameError for `model` anywhere in the notebook also says which cell makes it.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Mapping
from typing import Any


def advice(names: list[str], cell: str) -> str:
    """The message for a cell that needs `names`, which `cell` makes: with an exercise's function (`def ...`),
    the check cell under it too, which hands on the reference until the learner's own is right."""
    listed = ", ".join(f"`{n}`" for n in names)
    maker, run = ((f"the cell {cell} and the check cell under it", "those two cells") if cell.startswith(
        "that starts with `def ") else (f"the cell {cell}", "that cell"))
    return (f"This cell needs {listed}, made by {maker}: run {run} first "
            f"(or Run\u00a0>\u00a0Run All Above), then run this one again.")  # the menu path kept on one line


def explain_missing(makers: Mapping[str, str]) -> None:
    """In IPython/Jupyter: a NameError for a name in `makers` also says which cell makes it.

    makers maps a variable name to the cell that defines it. Calling again adds to the map.
    Outside IPython (plain Python) it does nothing: there are no cells to point to.
    """
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in makers.items()):
        raise ValueError("explain_missing needs a dict of {variable name: the cell that makes it}, all text")
    shell = _ipython()
    if shell is None:
        return
    _MAKERS.update(makers)
    shell.set_custom_exc((NameError,), _explain)


_MAKERS: dict[str, str] = {}


def _ipython() -> Any:
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


def _explain(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: int | None = None) -> None:
    """IPython's handler for NameError: for a name a chapter's cell makes, the error alone (no traceback, so the
    advice is the first thing a learner reads) saying which cell to run first; else the usual traceback."""
    name = getattr(value, "name", None)
    known = name in _MAKERS
    if known:
        # wrapped to 100 characters with "NameError: " in front, so that no line breaks inside a word
        said = textwrap.fill(f"{etype.__name__}: {value}. {advice([name], _MAKERS[name])}", 100,
                             break_on_hyphens=False)
        value.args = (said.removeprefix(f"{etype.__name__}: "),)
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset, exception_only=known)
