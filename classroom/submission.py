"""What a submitted notebook holds, read without running it: its chapter (from its file name and from its code),
each exercise's code (the cell holding the last top-level definition of its function, less its expressions, check
line and IPython magics; with the learner's own definitions and imports from cells above that it uses), and what
is suspect in it (`flags`). What is flagged and why: docs/instructor.md, "Grading a class".
"""

from __future__ import annotations

import ast
import re
import warnings
from functools import cache
from pathlib import Path
from typing import NamedTuple

import nbformat
from nbformat.warnings import MissingIDFieldWarning

from helpers.checks import PRINTED
from helpers.needs import names, python
from tools.chapters import CHAPTERS, NOTEBOOKS
from tools.editions import EXERCISE, checked_exercise, tags

MACHINERY = {"OUTCOMES", "SOLUTIONS", "BY_CHAPTER", "solutions"}
CHECKING = re.compile(r"check_\w+|yours_or_reference|todo")
INTROSPECTION = {"__globals__", "__code__", "__closure__", "__dict__", "__builtins__", "__wrapped__", "__defaults__",
                 "__kwdefaults__", "__subclasses__", "__func__", "__self__", "__getattribute__", "f_globals",
                 "f_back", "modules", "setprofile", "settrace"}  # the last two switch off the grader's watch
DYNAMIC = {"exec", "eval", "compile", "__import__", "globals", "vars", "setattr", "delattr"}
SETTINGS = ("torch.backends.",)  # attributes a notebook may set (cudnn.deterministic = True): not patching
HIDDEN_IMPORTS = {"importlib", "gc", "ctypes", "inspect", "builtins", "signal"}  # signal: the time limit's alarm
MODULES = {"torch", "F", "nn", "math", "helpers", "np", "numpy"}  # in every chapter; an attribute set: patching


class UnreadableError(Exception):
    """A submission that is not a notebook: `status` is "empty" or "corrupt"; the message says why."""

    def __init__(self, status: str, why: str) -> None:
        super().__init__(why)
        self.status = status


class Exercise(NamedTuple):
    name: str
    stub: int  # the course's cell tagged exercise that defines it
    check: int  # the course's check cell (`name = yours_or_reference(check_name, name, ...)`)


def read(path: Path) -> nbformat.NotebookNode:
    """The submission as a notebook, or UnreadableError("empty" | "corrupt", why)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UnreadableError("corrupt", f"the file cannot be read: {err}") from None
    if not text.strip():
        raise UnreadableError("empty", "nothing was saved in it: save the notebook (Ctrl+S), then hand it in again")
    try:
        with warnings.catch_warnings():  # cells without ids (an older Jupyter's): a warning amid the grader's lines
            warnings.simplefilter("ignore", MissingIDFieldWarning)
            nb = nbformat.reads(text, as_version=4)
    except nbformat.reader.NotJSONError:
        raise UnreadableError("corrupt", "the file is not a notebook's JSON (truncated or damaged?): hand the "
                                         "notebook in again") from None
    except Exception as err:  # nbformat raises several kinds for a hand-edited file
        first = str(err).strip().splitlines()[0][:160] if str(err).strip() else type(err).__name__
        raise UnreadableError("corrupt", f"not a readable notebook: {first}") from None
    if not any(cell.cell_type == "code" and cell.source.strip() for cell in nb.cells):
        raise UnreadableError("empty", "the notebook has no code in it")
    return nb


@cache
def course(chapter: str) -> tuple[nbformat.NotebookNode, tuple[Exercise, ...]]:
    """The course's own copy of a chapter (from notebooks/) and its exercises in order."""
    (name,) = [n for n in CHAPTERS if n.startswith(chapter)]
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    stubs = {defined: i for i, cell in enumerate(nb.cells) if EXERCISE in tags(cell)
             for defined in re.findall(r"^def (\w+)\(", cell.source, re.M)}
    checks = [(checked_exercise(cell), i) for i, cell in enumerate(nb.cells) if checked_exercise(cell)]
    return nb, tuple(Exercise(name, stubs[name], i) for name, i in checks)


def chapter_in_name(path: Path) -> str | None:
    """The chapter a file's name says ("01" for 01_one_spotlight.ipynb, 01.ipynb or alice-01.ipynb), or None. A
    name with several two-digit numbers (a date, as a learning platform's export adds) says none by its numbers."""
    stem = path.stem.lower()
    named = [n[:2] for n in CHAPTERS if Path(n).stem in stem]
    numbers = set(re.findall(r"(?<!\d)(\d\d)(?!\d)", stem))
    numbers = numbers & {n[:2] for n in CHAPTERS} if len(numbers) == 1 else set()
    found = named or sorted(numbers)
    return found[0] if len(set(found)) == 1 else None


def chapter_in_code(nb: nbformat.NotebookNode) -> str | None:
    """The chapter whose exercises the notebook defines most of; else whose checks it imports; else None."""
    code = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    defined = set(re.findall(r"^def (\w+)\(", code, re.M))
    counts = {n[:2]: len(defined & {e.name for e in course(n[:2])[1]}) for n in CHAPTERS}
    best = max(counts, key=counts.get)
    if counts[best]:
        return best
    imported = set(re.findall(r"helpers\.checks\.ch(\d\d)\b", code))
    return imported.pop() if len(imported) == 1 else None


def _is_check_line(node: ast.stmt) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "yours_or_reference" for n in ast.walk(node))


def _targets(node: ast.AST) -> list[ast.AST]:
    """What an assignment, a `del`, a loop or a comprehension writes to."""
    return getattr(node, "targets", [node.target] if hasattr(node, "target") else [])


def _binds(node: ast.stmt, name: str) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((alias.asname or alias.name.split(".")[0]) == name for alias in node.names)
    return any(isinstance(t, ast.Name) and t.id == name for t in _targets(node))


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


class Found(NamedTuple):
    cell: int  # the submission's cell holding the learner's definition, from 0
    source: str  # what the grader runs: the cell less its expressions and check line (all of it if not Python)
    whole: str


def learner_code(nb: nbformat.NotebookNode, name: str) -> Found | None:
    """The cell holding the last definition of exercise `name`, and the part of it the grader runs."""
    for index, cell in reversed(list(enumerate(nb.cells))):
        code = python(cell.source) if cell.cell_type == "code" else ""
        tree = _parse(code)
        if tree is None:
            if re.search(rf"^def {name}\(", code, re.M):
                return Found(index, code, cell.source)
            continue
        if any(_binds(node, name) and not _is_check_line(node) for node in tree.body):
            kept = [ast.get_source_segment(code, node) for node in tree.body
                    if not isinstance(node, ast.Expr) and not _is_check_line(node)]
            return Found(index, "\n".join(kept), cell.source)
    return None


def brought_in(nb: nbformat.NotebookNode, above: int, wanted: set[str], given: set[str],
               skip: set[str]) -> list[tuple[int, str]]:
    """(cell, code) of each of the learner's top-level statements, in the code cells above `above` that are not in
    `skip` (the course's own), that last binds a name of `wanted`, and of those they use in turn that are not
    `given` (the course binds them), in notebook order: Run All ran them before the exercise did."""
    statements = [(i, node, ast.get_source_segment(code, node)) for i, cell in enumerate(nb.cells[:above])
                  if cell.cell_type == "code" and cell.source.strip() not in skip
                  for code in [python(cell.source)] for node in getattr(_parse(code), "body", [])]
    taken, todo, seen = {}, set(wanted), set(wanted)
    while todo:
        name = todo.pop()
        found = next((s for s in reversed(statements) if _binds(s[1], name) and not _is_check_line(s[1])), None)
        if found:
            taken[found[0], found[1].lineno] = found[2]
            todo |= names(found[2]).used - given - seen
            seen |= todo
    return [(where[0], code) for where, code in sorted(taken.items())]


def flags(source: str, exercise: bool) -> list[str]:
    """What is suspect in one cell: the checks' machinery used or redefined, monkeypatching; in an exercise
    cell also reaching into functions and code the grader cannot read (exec, importlib, ...)."""
    tree = _parse(python(source))
    if tree is None:
        return []
    found = ["holds the solution that solution() printed (its first line is still there)"] if exercise and (
        PRINTED in source) else []
    modules = MODULES | {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                         if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    for node in ast.walk(tree):
        named = getattr(node, "id", getattr(node, "attr", getattr(node, "value", None)))  # a name, attribute, string
        if isinstance(named, str) and named in MACHINERY:
            found.append(f"uses the checks' own {named}")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported = [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) else [
                a.name for a in node.names]
            if any("solutions" in m for m in imported):
                found.append("imports the course's solutions")
            if any(re.match(r"helpers\.checks\b.*\._", m) for m in imported):
                found.append(f"imports a private name of the checks ({', '.join(imported)})")
            if exercise and {m.split(".")[0] for m in imported} & HIDDEN_IMPORTS:
                found.append(f"imports {', '.join(imported)}")
        defined = [node.name] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else []
        for target in _targets(node):
            root = target
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            defined.append(getattr(target, "id", getattr(target, "attr", "")))  # a name, or an attribute
            if isinstance(target, ast.Attribute) and isinstance(root, ast.Name) and root.id in modules \
                    and not ast.unparse(target).startswith(SETTINGS):
                found.append(f"changes {ast.unparse(target)} (monkeypatching)")
        found += [f"redefines {d}" for d in defined if CHECKING.fullmatch(d)]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"setattr", "delattr"}:
            found.append(f"calls {node.func.id}()")
        if exercise and named in INTROSPECTION:
            found.append(f"reaches into .{named}")
        if exercise and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (node.func.id in DYNAMIC or (
                node.func.id == "getattr" and not isinstance((node.args[1:2] or [None])[0], ast.Constant))):
            found.append(f"calls {node.func.id}(), whose code or name the grader cannot read")
    return list(dict.fromkeys(found))
