"""Which earlier cells of a notebook some cells need: for every name they use, the latest earlier cell binding it.

A static reading (Python's symtable and ast): a cell *binds* what it assigns, imports or defines at its top level,
and what it changes in place there (`x[i] = ...`, `x.a = ...`); it *uses* every global name it reads, inside its
functions too (they run later, when called). What this cannot see: a change made by a method call
(`rows.append(...)`) or names made with exec or globals(). The lesson plans (tools/lessons.py) and the grader
(tools/grade.py) run what `needed` returns in a fresh kernel or process, so a miss shows there as a NameError.
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
    for child in table.get_children():
        found |= _globals_read(child)
    return found


def _top_level(node: ast.AST) -> Iterable[ast.AST]:
    """Every node of a module outside its functions, classes and lambdas."""
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            yield child
            yield from _top_level(child)


def names(source: str) -> Names:
    """What a cell binds and uses at the notebook's top level (SyntaxError if it is not Python)."""
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    top = symtable.symtable(code, "cell", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    used = {s.get_name() for s in top.get_symbols() if s.is_referenced()}
    for child in top.get_children():
        used |= _globals_read(child)
        bound |= {s.get_name() for s in child.get_symbols() if s.is_declared_global() and s.is_assigned()}
    for node in _top_level(ast.parse(code)):  # x[i] = ..., x.a += ...: a change in place binds x anew
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for target in targets if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) else []:
            while isinstance(target, (ast.Subscript, ast.Attribute)):
                target = target.value
            if isinstance(target, ast.Name):
                bound.add(target.id)
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
