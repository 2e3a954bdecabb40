"""Cells run out of order: a NameError also says which cell to run first, a stub run outside its check how to
get a working function back, and an error that explains itself (ExplainedError: a missing checkpoint, a widget's
bad argument) shows its message without a traceback.

A chapter calls, once in its set-up cell, with the map its checks module keeps (helpers.checks.chNN.MADE_IN),

    from helpers.needs import explain_missing
    explain_missing({"model": "'Load the trained model' (section 2)"})

after which a NameError for `model` anywhere in the notebook also says which cell makes it. The names a cell
needs come from a static reading of its code (`names`, ast and symtable), which classroom's lesson plans and
grader use too.
"""

from __future__ import annotations

import ast
import builtins
import os
import re
import symtable
import sys
import textwrap
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple


class ExplainedError(Exception):
    """An error whose message says all a learner needs: a chapter shows it without the traceback above it."""


class InputError(ValueError, ExplainedError):
    """A value passed to a chapter's widget that it cannot show (no words, tensors that do not fit): the message
    names what was given and what is needed, and a chapter shows it without a traceback."""


class NotFilledInError(NotImplementedError, ExplainedError):
    """An exercise's stub run outside its check (helpers.checks.todo raises it): the message says how to get a
    working function back, and a chapter shows that message alone, as it does a NameError's advice."""


def _exercise(cell: str) -> bool:
    """Whether `cell` is an exercise's function (`def ...`): its check cell under it makes the name too, handing on
    the reference until the learner's own is right."""
    return cell.startswith("that starts with `def ")


MENUS = (("JupyterLab and Notebook 7", "Run > Run All Above Selected Cell"),
         ("classic Notebook", "Cell > Run All Above"), ("Colab", "Runtime > Run before"),
         ("VS Code", "Execute Above Cells"))
"""Where each front end the series runs in keeps 'run every cell above this one'."""


def menus() -> tuple[tuple[str, str], ...]:
    """The menus to name: only Colab's or VS Code's when the kernel can tell it runs there (Colab's module is
    loaded; VS Code sets VSCODE_* variables, though not everywhere), else every front end's."""
    if "google.colab" in sys.modules:
        return tuple(m for m in MENUS if m[0] == "Colab")
    if any(key in os.environ for key in ("VSCODE_PID", "VSCODE_CWD")):
        return tuple(m for m in MENUS if m[0] == "VS Code")
    return MENUS


def advice(needed: Mapping[str, str], made_here: Iterable[str] = ()) -> str:
    """The message for a cell that needs the names in `needed`, each mapped to the cell that makes it. An
    exercise's name that this cell makes too (`made_here`: it is the check cell) needs only its `def` cell."""
    def two(name: str, cell: str) -> bool:  # an exercise's def cell, and its check cell (unless that is this one)
        return _exercise(cell) and name not in made_here

    def made_by(name: str, cell: str) -> str:  # plain text: a chapter's `def softmax` shows as 'def softmax'
        said = cell.replace("`", "'")
        return f"the cell {said} and the check cell under it" if two(name, cell) else f"the cell {said}"

    listed = ", ".join(f"'{n}'" for n in needed)
    # what to run first, then how: the menus last, so that the cells to run are the first thing read
    menu = ", ".join(f"{path.replace(' ', chr(0xA0))} in {where}" for where, path in menus())  # a path on one line
    every = f"To run every cell above this one: {menu}."
    cells = list(dict.fromkeys(needed.values()))
    if len(cells) == 1:
        name = next(iter(needed))
        run = "those two cells" if two(name, cells[0]) else "that cell"
        return (f"This cell needs {listed}, made by {made_by(name, cells[0])}: run {run} first (or every cell above "
                f"it), then run this one again.\n{every}")
    by_cell = {cell: [name for name, made in needed.items() if made == cell] for cell in cells}
    where = "; ".join(f"{', '.join(repr(name) for name in names)}: {made_by(names[0], cell)}"
                      for cell, names in by_cell.items())
    return (f"This cell needs {listed}, made by cells above it ({where}): run every cell above it, then run this "
            f"one again.\n{every}")


def explain_missing(makers: Mapping[str, str]) -> None:
    """In IPython/Jupyter: a NameError for a name in `makers` also says which cell makes it, and an exercise's
    check learns whether the learner's function cell last stopped before it ran (`unrun`).

    makers maps a variable name to the cell that defines it. Calling again adds to the map.
    Outside IPython (plain Python) it does nothing: there are no cells to point to.
    """
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in makers.items()):
        raise ValueError("explain_missing needs a dict of {variable name: the cell that makes it}, all text")
    shell = _ipython()
    if shell is None:
        return
    _MAKERS.update(makers)
    shell.set_custom_exc((NameError, ExplainedError), _explain)
    if _after_cell not in shell.events.callbacks["post_run_cell"]:
        shell.events.register("post_run_cell", _after_cell)


_MAKERS: dict[str, str] = {}


def _ipython() -> Any:
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


_UNRUN: set[str] = set()
"""Functions whose cell's last run stopped before running anything (a syntax error): the one defined is older."""


def _after_cell(result: Any) -> None:
    """IPython's post_run_cell event: note whether each function a cell defines was defined by this run."""
    cell = getattr(getattr(result, "info", None), "raw_cell", None) or ""
    for name in re.findall(r"^def (\w+)", cell, re.M):
        (_UNRUN.add if getattr(result, "error_before_exec", None) is not None else _UNRUN.discard)(name)


def unrun(name: str) -> bool:
    """Whether the last run of the cell that defines `name` stopped before it ran, so that a check would test the
    definition of an earlier run as if it were the one on show (known once a chapter's set-up cell has run)."""
    return name in _UNRUN


class Names(NamedTuple):
    """What a cell binds at the notebook's top level, and the names it uses before binding them."""

    bound: frozenset[str]
    used: frozenset[str]


def _globals_read(table: symtable.SymbolTable) -> set[str]:
    """Global names read in a nested scope (a function, lambda, class or comprehension) and in its own nests."""
    found = {s.get_name() for s in table.get_symbols() if s.is_global() and s.is_referenced()}
    return found.union(*map(_globals_read, table.get_children()))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _here(node: ast.AST) -> Iterable[ast.AST]:
    """The nodes under `node` that run in its own scope (a comprehension's first iterable does; its body and
    the bodies of functions, classes and lambdas do not)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _COMPREHENSIONS):
            child = child.generators[0].iter
        elif isinstance(child, _SCOPES):
            continue
        yield child
        yield from _here(child)


def _statement(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    """What one top-level statement reads before binding it, and what it binds (a change in place, x[i] = ...
    or x.a = ..., binds x anew)."""
    nodes = [stmt, *([] if isinstance(stmt, _SCOPES) else _here(stmt))]
    loads = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    stores = {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for node in nodes:
        if isinstance(node, (*_SCOPES[:3], ast.Import, ast.ImportFrom)):
            stores |= {node.name} if hasattr(node, "name") else {
                (a.asname or a.name.split(".")[0]) for a in node.names}
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                while isinstance(target, (ast.Subscript, ast.Attribute)):
                    target = target.value
                stores |= {target.id} if isinstance(target, ast.Name) else set()
                loads |= {target.id} if isinstance(node, ast.AugAssign) and isinstance(target, ast.Name) else set()
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):  # the loop's or with's names first
        targets = [stmt.target] if isinstance(stmt, (ast.For, ast.AsyncFor)) else [
            i.optional_vars for i in stmt.items if i.optional_vars]
        loads -= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return loads, stores


def python(source: str) -> str:
    """A cell as the grader runs it: one that is not Python as it stands has its IPython magic and shell lines
    (%, %%, !) blanked, as IPython takes them out of the Python it runs; line numbers stay."""
    try:
        ast.parse(source)
        return source
    except SyntaxError:
        return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def names(source: str) -> Names:
    """What a cell binds at the notebook's top level, and the names it uses that it has not bound itself
    first (SyntaxError if it is not Python)."""
    code = python(source)
    bound: set[str] = set()
    used: set[str] = set()
    for stmt in ast.parse(code).body:
        loads, stores = _statement(stmt)
        used |= loads - bound
        bound |= stores
    top = symtable.symtable(code, "cell", "exec")
    for child in top.get_children():  # a function reads its globals when called: after the cell binds them
        used |= _globals_read(child) - bound
        bound |= {s.get_name() for s in child.get_symbols() if s.is_declared_global() and s.is_assigned()}
    return Names(frozenset(bound), frozenset(used - set(dir(builtins))))


def _explain(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: int | None = None) -> None:
    """IPython's handler for NameError and an ExplainedError: for a name a chapter's cell makes, a stub or a
    missing checkpoint, the message alone (no traceback, so the advice is the first thing a learner reads); else
    the usual traceback. The advice names every name the cell uses that no cell has made yet, not only the first."""
    if isinstance(value, ExplainedError):
        said = str(value) if isinstance(value, NotFilledInError) else textwrap.fill(  # the stub's is wrapped
            f"{etype.__name__}: {value}", 100, break_long_words=False, break_on_hyphens=False)
        print(said, file=sys.stderr)
        return
    name = getattr(value, "name", None)
    source = (shell.user_ns.get("_ih") or [""])[-1]  # the cell being run
    unquoted = name and re.search(rf"(?<![\w.'\"/]){re.escape(name)}\.(?:txt|text|md|csv|json|gz)\b", source)
    if name not in _MAKERS and unquoted:  # my_story.txt typed as code: Python reads a name and an attribute
        print(f"{etype.__name__}: {value}. A file name is text: put it in quotes, \"{unquoted[0]}\".",
              file=sys.stderr)
        return
    if name not in _MAKERS:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        return
    try:
        read = names(source)  # read before the cell binds them: not inside a string, not after a dot
    except SyntaxError:
        read = Names(frozenset(), frozenset())
    missing = {n: cell for n, cell in _MAKERS.items()  # not what the cell makes itself (in a loop, read and made)
               if n in read.used - read.bound and n not in shell.user_ns}
    needed = {name: _MAKERS[name]} | missing
    # each line wrapped to 100 characters with "NameError: " in front, so that no line breaks inside a word
    said = "\n".join(textwrap.fill(line, 100, break_on_hyphens=False)
                     for line in f"{etype.__name__}: {value}. {advice(needed, read.bound)}".splitlines())
    value.args = (said.removeprefix(f"{etype.__name__}: "),)
    print(said, file=sys.stderr)
