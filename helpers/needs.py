"""Cells run out of order: say which cell to run first instead of a bare NameError.

Two ways for a chapter to use it:

    from helpers.needs import need, explain_missing
    explain_missing({"model": "'Load the trained model' (section 2)"})   # once, in the set-up cell

after which a NameError for `model` anywhere in the notebook also says which cell makes it; or, at the
top of a cell that needs earlier results,

    need("scores", "weights", cell="'Scores for every pair of words' (section 1)")

which stops the cell with that advice before anything else runs.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Mapping
from typing import Any


class RunCellFirstError(NameError):
    """A cell needs a name that an earlier cell makes, and that cell has not been run (yet)."""


def advice(names: list[str], cell: str) -> str:
    """The message for a cell that needs `names`, which `cell` makes."""
    listed = ", ".join(f"`{n}`" for n in names)
    return (f"This cell needs {listed}, made by the cell {cell}: run that cell first "
            f"(or Run > Run All Above), then run this one again.")


def need(*names: str, cell: str) -> None:
    """Raise RunCellFirstError naming `cell` if any of `names` is not defined in the calling notebook."""
    __tracebackhide__ = True  # IPython then shows the learner's cell, not this function
    if not names or not all(isinstance(n, str) and n.isidentifier() for n in names):
        raise ValueError(f"need() takes the variable names a cell uses, as strings, got {names!r}")
    if not isinstance(cell, str) or not cell.strip():
        raise ValueError(f"need() takes cell=<words that find the cell to run first>, got {cell!r}")
    caller = inspect.currentframe().f_back  # the notebook cell (or function) that called need()
    defined = {**caller.f_globals, **caller.f_locals}
    missing = [n for n in names if n not in defined]
    if missing:
        raise RunCellFirstError(advice(missing, cell), name=missing[0])


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
    """IPython's handler for NameError: the usual traceback, its last line saying which cell to run first."""
    name = getattr(value, "name", None)
    if name in _MAKERS and not isinstance(value, RunCellFirstError):
        value.args = (f"{value}. {advice([name], _MAKERS[name])}",)
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
