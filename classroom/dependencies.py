"""Which earlier cells of a notebook some cells need: for every name they use, the latest earlier cell binding it.

A static reading (ast and symtable) for the lesson plans and the grader. It cannot see a change made by a method
call (`rows.append(...)`) or names made with exec or globals(): a miss shows as a NameError where they run it.
"""

from __future__ import annotations

import ast
import builtins
import symtable
from collections.abc import Iterable, Sequence
from typing import NamedTuple


class Names(NamedTuple):
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


def needed(sources: Sequence[str], wanted: Iterable[int]) -> list[int]:
    """The cells `wanted` (indices into `sources`) and every earlier cell they need, in notebook order."""
    scanned = [names(source) for source in sources]
    keep = set(wanted)
    todo = sorted(keep)
    while todo:
        i = todo.pop()
        for name in scanned[i].used:
            j = next((j for j in range(i - 1, -1, -1) if name in scanned[j].bound), None)
            if j is not None and j not in keep:
                keep.add(j)
                todo.append(j)
    return sorted(keep)
