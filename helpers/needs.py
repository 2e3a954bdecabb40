"""Cells run out of order: a NameError also says which cell to run first, and a stub run outside its check
how to get a working function back.

A chapter calls, once in its set-up cell,

    from helpers.needs import explain_missing
    explain_missing({"model": "'Load the trained model' (section 2)"})

after which a NameError for `model` anywhere in the notebook also says which cell makes it.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from collections.abc import Mapping
from typing import Any


class NotFilledInError(NotImplementedError):
    """An exercise's stub run outside its check (helpers.checks.todo raises it): the message says how to get a
    working function back, and a chapter shows that message alone, as it does a NameError's advice."""


def _exercise(cell: str) -> bool:
    """Whether `cell` is an exercise's function (`def ...`): its check cell under it makes the name too, handing on
    the reference until the learner's own is right."""
    return cell.startswith("that starts with `def ")


def _made_by(cell: str) -> str:
    return f"the cell {cell} and the check cell under it" if _exercise(cell) else f"the cell {cell}"


def advice(needed: Mapping[str, str]) -> str:
    """The message for a cell that needs the names in `needed`, each mapped to the cell that makes it."""
    listed = ", ".join(f"`{n}`" for n in needed)
    menu = "Run\u00a0>\u00a0Run All Above"  # the menu path kept on one line
    cells = list(dict.fromkeys(needed.values()))
    if len(cells) == 1:
        run = "those two cells" if _exercise(cells[0]) else "that cell"
        return (f"This cell needs {listed}, made by {_made_by(cells[0])}: run {run} first (or {menu}), then run this "
                "one again.")
    where = "; ".join(f"`{name}`: {_made_by(cell)}" for name, cell in needed.items())
    return (f"This cell needs {listed}, made by cells above it: run them with {menu}, then run this one again "
            f"({where}).")


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
    shell.set_custom_exc((NameError, NotFilledInError), _explain)


_MAKERS: dict[str, str] = {}


def _ipython() -> Any:
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


def _reads_and_binds(source: str) -> tuple[set[str], set[str]]:
    """The names a cell's code reads, and those it binds (assigned, looped over, defined, imported): the advice
    lists a name the cell reads (not one inside a string or after a dot, as in run.losses) and does not make
    itself. Nothing, if the code does not parse."""
    reads: set[str] = set()
    binds: set[str] = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return reads, binds
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (reads if isinstance(node.ctx, ast.Load) else binds).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            binds.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            binds.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return reads, binds


def _explain(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: int | None = None) -> None:
    """IPython's handler for NameError and NotFilledInError: for a name a chapter's cell makes, or a stub, the
    message alone (no traceback, so the advice is the first thing a learner reads); else the usual traceback. The
    advice names every name the cell uses that no cell has made yet, not only the first."""
    if isinstance(value, NotFilledInError):
        print(value, file=sys.stderr)
        return
    name = getattr(value, "name", None)
    if name not in _MAKERS:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        return
    source = (shell.user_ns.get("_ih") or [""])[-1]  # the cell being run
    reads, binds = _reads_and_binds(source)
    needed = {name: _MAKERS[name]} | {n: cell for n, cell in _MAKERS.items()
                                      if n in reads - binds and n not in shell.user_ns}
    # wrapped to 100 characters with "NameError: " in front, so that no line breaks inside a word
    said = textwrap.fill(f"{etype.__name__}: {value}. {advice(needed)}", 100, break_on_hyphens=False)
    value.args = (said.removeprefix(f"{etype.__name__}: "),)
    print(said, file=sys.stderr)
