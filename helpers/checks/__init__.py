"""Exercise checks: each one runs a learner's function, asserts, and explains what is wrong in plain words.

Every check returns a bool: False (with a note) when the stub still raises NotImplementedError, so
"Run All" keeps going; True after printing a short confirmation when the answer is right. A wrong
answer raises AssertionError with the reason.

A chapter calls each check through `yours_or_reference`, which keeps the learner's function when it passes
and otherwise hands the rest of the chapter the exercise's solution (`helpers.checks.solutions`), saying so in
one line: one unfinished exercise never stops the chapter, and the learner's own cell is never touched. It
also keeps each exercise's latest outcome in `OUTCOMES`. A learner who wants to see a solution calls
`solution("softmax")`, which prints it without running it. The instructor edition's solution cells call
`yours_or_reference` with `solution=True`, so that Run All says the solution was checked and is now in use
instead of congratulating a learner who wrote nothing.
"""

from __future__ import annotations

import ast
import copy
import difflib
import functools
import inspect
import io
import os
import re
import sys
import sysconfig
import textwrap
import traceback
from collections.abc import Callable
from contextlib import nullcontext, redirect_stdout
from pathlib import Path
from typing import Any, NamedTuple

import torch

from helpers.checks.solutions import BY_CHAPTER, SOLUTIONS
from helpers.needs import NotFilledInError, unrun
from helpers.static import static_build

LINE = 100  # printed lines stay within what a projector shows unwrapped
BELOW_TODO = "below the stub's todo() line"  # the grader flags what a check says this of: right code may sit there
_TERM = r"(?:\d[\d,]* )?(?:\d[\d,]*|width)\b"  # 128, 4 width
_PROSE = r"(?![^()\[\]\n]*\b[a-z]{3,} [a-z]{3,}\b)"  # two words in a row: a bracket of prose, free to wrap
_CODE_SPAN = re.compile(  # (at: a learner's line), view(B, T, H, D), [B, T, C], x = x + attn(ln1(x)), 4 width x width
    rf"\(at: [^\n]{{1,88}}?\)(?=\.?(?:\s|$))|\({_PROSE}[^()\n]{{1,40}}\)|\[{_PROSE}[^\[\]\n]{{1,40}}\]"
    rf"|(?:\b\w+ = )?\b\w+ \+ [\w.()\[\]]+|\b{_TERM}(?: x {_TERM})+")


def say(text: str) -> str:
    """`text` wrapped to LINE characters, never inside a short bracket of code, the learner's line a message
    quotes, a sum, a product or a hyphenated word (.reshape(B, T, H * D), [B, T, C], x = x + attn(ln1(x)),
    4 width x width or feed-forward stays on one line), ending with a full stop."""
    text = text.rstrip()
    if not text.endswith((".", "!", "?", ":")):
        text += "."
    kept = _CODE_SPAN.sub(lambda m: m.group().replace(" ", "\u00a0"), text)  # textwrap splits only at spaces
    return textwrap.fill(kept, LINE, break_on_hyphens=False).replace("\u00a0", " ")


def todo() -> None:
    """Placeholder for a learner's stub: raises NotImplementedError, which the checks recognise. Raised in a later
    cell (the stub's cell run again after its check), it says how to get a working function back."""
    name = sys._getframe(1).f_code.co_name  # the stub's own name: the exercise's function
    if not name.isidentifier():
        raise NotFilledInError("this exercise is not filled in yet")
    said = (f"{name} is not filled in yet. Fill in the cell that starts with `def {name}` and run it, then run the "
            f"check cell under it: until yours is right, the check hands on the reference {name}, so the cells below "
            "work.")
    raise NotFilledInError(textwrap.fill(said, LINE))


def attempt(
    name: str, fn: Callable[..., Any], *args: Any, hint: str | Callable[[Exception], str] | None = None,
    errors: tuple[type[Exception], ...] = (RuntimeError,),
) -> tuple[bool, Any]:
    """Call the learner's fn; (False, None) with a note when it is still a stub, else (True, result).

    With a `hint`, an error of the kinds in `errors` raised inside the learner's code (by default torch's
    RuntimeError: shapes that do not line up) becomes an AssertionError that quotes the error's first line and
    then says, in the hint (or what `hint(error)` returns), what the usual mistake behind it is. An input it
    changed in place (a tensor, list or dict it was given) fails the check: in the notebook, that change would
    land on the chapter's own data.
    """
    if not callable(fn):
        raise AssertionError(f"{name}: expected a function, got {type(fn).__name__}")
    given = {i: copy.deepcopy(arg) for i, arg in enumerate(args) if isinstance(arg, (torch.Tensor, list, dict))}
    try:
        got = fn(*args)
    except NotImplementedError:
        if _code_below_todo(fn):
            raise AssertionError(f"{name}: your code is {BELOW_TODO}, and todo() stops the function before it runs: "
                                 "delete that line, then run the cell again.") from None
        if static_build():  # a page or a slide: nobody can fill the stub in there
            print(say(f"{name}: in the notebook, your code goes in the stub above and this check says whether it is "
                      f"right, or what is wrong. Here the chapter goes on with the reference {name} from helpers."))
        else:
            print(say(f"{name}: not attempted yet. Fill in the stub above and run it, then this check again."))
        return False, None
    except errors as err:
        if hint is None:
            raise
        torch_says = _first_line(err).rstrip(".") or type(err).__name__
        if isinstance(err, KeyError):  # its text is the key alone
            torch_says = f"KeyError: there is no key {torch_says}"
        why = hint(err) if callable(hint) else hint
        raise AssertionError(f"{name} stopped with an error ({torch_says}){_where_in_your_code(err)}. {why}") from err
    for i, before in given.items():
        x = parameter_name(fn, i)
        if _same(args[i], before):
            continue
        if isinstance(before, torch.Tensor):
            raise AssertionError(
                f"{name} changed its input {x} in place: the tensor it was given now holds other numbers, so in the "
                f"notebook the chapter's own {x} would change too. Make a new tensor instead: write {x} = {x} + ... "
                f"(or -, *, /), not {x} += ... (or -=, *=, /=), no assignment into it ({x}[...] = ...), and no "
                f"method ending in _ such as .add_() (.masked_fill without the _ makes a new tensor)")
        instead = (f"build a new dict rather than .pop(), del or setting a key: {{k: v for k, v in {x}.items() "
                   "if ...}" if isinstance(before, dict) else f"sorted({x}, ...) rather than {x}.sort(...), and a "
                   "new list rather than .append(), .pop() or setting an entry")
        raise AssertionError(
            f"{name} changed its input {x} in place: the {type(before).__name__} it was given is not the same "
            f"afterwards, so in the notebook the chapter's own {x} would change too. Leave it as it is: {instead}")
    return True, got


def _same(a: Any, b: Any) -> bool:
    """Whether a learner's input `a` still equals `b`, its copy from before the call (tensors, lists, dicts)."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
                and a.dtype == b.dtype and torch.equal(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[key], b[key]) for key in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    try:
        return a is b or bool(a == b)
    except Exception:  # a value that cannot say whether it is equal
        return False


def off_by(got: int, want: int) -> str:
    """How far a count is from the right one, without telling the right one: '512 short' or '7 too many'."""
    return f"{want - got:,} short" if got < want else f"{got - want:,} too many"


def expect_same_for_any_heads(name: str, count: Callable[[int, int], int], width: int, heads: int, want: int,
                              what: str) -> None:
    """A count that changes with the head count is told so, with the other head counts' totals (the one that is
    right marked): the heads only cut the width into slices. `what` names the parts to count once each."""
    got = count(width, heads)
    others = {h: count(width, h) for h in (1, 2, 4) if h != heads and width % h == 0}
    expect(all(other == got for other in others.values()),
           f"{name}({width}, {heads}) returned {got:,} ({off_by(got, want)}), and other head counts give other "
           "totals (" + ", ".join(f"heads={h}: {other:,}" + (" is right" if other == want else "")
                                  for h, other in others.items()) + "). The heads only cut the width into slices: "
           f"count {what} once each, {width} wide, whatever the number of heads.")


def arithmetic_only(name: str, count: Callable[..., Any]) -> Callable[..., Any]:
    """`count`, made to fail with an explanation when it builds a layer (any torch.nn.Module) to count its
    parameters: the counting exercises ask for the arithmetic, which is what shows where each number comes from."""
    @functools.wraps(count)
    def counted(*args: Any) -> Any:
        def refuse(module: torch.nn.Module, *_: Any, **__: Any) -> None:
            raise AssertionError(
                f"{name} builds a layer ({type(module).__name__}) and counts its parameters, but the exercise asks "
                "for arithmetic alone: add up the sizes of the matrices and biases from width and heads, with no "
                "model built")

        built = torch.nn.Module.__init__
        torch.nn.Module.__init__ = refuse  # type: ignore[method-assign]
        try:
            return count(*args)
        finally:
            torch.nn.Module.__init__ = built  # type: ignore[method-assign]
    return counted


def _code_below_todo(fn: Callable[..., Any]) -> bool:
    """Whether the learner wrote code under the stub's todo() line instead of in its place."""
    try:
        [function] = ast.parse(textwrap.dedent(inspect.getsource(fn))).body
    except (OSError, TypeError, SyntaxError, ValueError):  # no source to read (a lambda inside a call, say)
        return False
    todos = [i for i, line in enumerate(getattr(function, "body", [])) if isinstance(line, ast.Expr)
             and isinstance(line.value, ast.Call) and getattr(line.value.func, "id", "") == "todo"]
    return bool(todos) and todos[0] < len(function.body) - 1


def _first_line(err: BaseException) -> str:
    """The first line of an error's message, at most 300 characters: what a message quotes of it."""
    text = str(err).strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= 300 else line[:300] + "..."


def parameter_name(fn: Callable[..., Any], i: int) -> str:
    """The name of fn's parameter number i, as the learner wrote it ('x'), or 'x' where it has none."""
    try:
        return list(inspect.signature(fn).parameters)[i]
    except (TypeError, ValueError, IndexError):
        return "x"


def type_of(value: Any) -> str:
    """What a learner's function gave, for a message: its type's name, or a reminder when it gave nothing."""
    return "nothing (None): is its return missing?" if value is None else type(value).__name__


def expect_whole(name: str, got: Any) -> None:
    """A count must be an int; one written as a decimal (a / in the sum) is told so, with the way to fix it."""
    if isinstance(got, float) and got.is_integer():
        raise AssertionError(f"{name} returned {got:,}, a count written as a decimal (a / makes one): use // to "
                             "divide, or int(...) around the result")
    expect(isinstance(got, int) and not isinstance(got, bool),
           f"{name} should return a whole number (int), got {type_of(got)}")


def expect(condition: bool, message: str) -> None:
    """Assert with a plain-words explanation of what went wrong."""
    if not condition:
        raise AssertionError(message)


def expect_one_tensor(name: str, got: Any) -> torch.Tensor:
    """Check that got is a tensor, and return it; a list or tuple (a loop that collected its pieces) is told how
    to make one."""
    if isinstance(got, (list, tuple)) and got:
        kinds = {"tensors" if isinstance(piece, torch.Tensor) else "lists" if isinstance(piece, list) else "numbers"
                 for piece in got}
        pieces = kinds.pop() if len(kinds) == 1 else "values"
        numbers = pieces == "tensors" and all(piece.dim() == 0 for piece in got)  # one number each: stacked, done
        how = (f"torch.stack(...) makes them one tensor of shape [{len(got)}]" if numbers else
               "torch.stack(...) joins tensors into one (and if they are pieces still to be added up, add them: "
               ".sum(dim=0))" if pieces == "tensors" else
               "work on the tensors themselves, with no .tolist(), .item() or float(...), so the result stays a "
               "tensor")
        raise AssertionError(f"{name} should return a torch tensor, got a {type(got).__name__} of {len(got)} "
                             f"{'single-number tensors' if numbers else pieces}: {how}")
    expect(isinstance(got, torch.Tensor), f"{name} should return a torch tensor, got {type_of(got)}")
    return got


def expect_tensor(name: str, got: Any, shape: tuple[int, ...]) -> torch.Tensor:
    """Check that got is a float tensor of the given shape, and return it."""
    got = expect_one_tensor(name, got)
    expect(got.is_floating_point(), f"{name} should return floating-point numbers, got dtype {got.dtype}")
    expect(not (got.dim() == 0 and shape), f"{name} returned a single number (shape []) where the check expects "
                                           f"shape {list(shape)}: did it add up everything, not along one dimension? "
                                           "Give .sum the dimension to add along, as in .sum(dim=-1).")
    swapped = len(shape) == 2 and tuple(got.shape) == tuple(shape)[::-1]  # e.g. v.T @ att for att @ v
    expect(tuple(got.shape) == tuple(shape), f"{name} returned shape {list(got.shape)}, expected {list(shape)}" + (
        ": its rows and columns are swapped, a matrix product the wrong way round or a .T too many" if swapped else ""))
    expect(bool(torch.isfinite(got).all()), f"{name} returned NaN or infinite values")
    return got


def expect_close(name: str, got: torch.Tensor, want: torch.Tensor, what: str, atol: float = 1e-5,
                 example: str = "") -> None:
    """Compare to the reference; on a mismatch, show where and by how much (and the `example`'s inputs, if given,
    so that a learner can run it)."""
    diff = (got - want).abs()
    if float(diff.max()) > atol:
        where = tuple(int(i) for i in torch.nonzero(diff == diff.max())[0])
        raise AssertionError(
            f"{name}: {what} differs from the reference at index {list(where)} of the check's example{example}: "
            f"got {float(got[where]):.4f}, expected {float(want[where]):.4f}"
        )


def softmax_went_down_columns(name: str, weights: torch.Tensor, by_hand: bool = False) -> None:
    """Fail with an explanation when a grid of weights adds up to 1 down each column instead of along each row
    (`by_hand`: the learner wrote the softmax, so its max and total need keepdim too)."""
    rows_fine = bool(((weights.sum(dim=-1) - 1).abs() < 1e-4).all())
    columns_sum_to_one = bool(((weights.sum(dim=-2) - 1).abs() < 1e-4).all())
    expect(rows_fine or not columns_sum_to_one,
           f"{name}: each COLUMN of the weights adds up to 1, not each row: the softmax ran over dim=0, down "
           "each column. Each row is one word's spotlight, so work along the last dimension: dim=-1"
           + (", with keepdim=True for the max and the total." if by_hand else "."))


def passed(name: str) -> bool:
    """Print the confirmation and return True (what every check returns for a right answer)."""
    print(f"{name}: correct. Well done.")
    return True


class Outcome(NamedTuple):
    """What the latest check of one exercise found: whether it passed, and why not in plain words."""

    passed: bool
    feedback: str


OUTCOMES: dict[str, Outcome] = {}
"""Exercise name -> the outcome of its latest check through `yours_or_reference` in this kernel."""

_LIBRARIES = (str(Path(__file__).resolve().parents[1]), str(Path(torch.__file__).parent),
              *{sysconfig.get_path(part) for part in ("purelib", "platlib", "stdlib")})
"""Where code that is not the learner's lives: helpers, torch (wherever it is installed, a user's site too), the
other installed packages and Python's own."""


def _where_in_your_code(err: BaseException) -> str:
    """' (at: <line>)' for the last line of the learner's own code in err's traceback, or ''."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if not f.filename.startswith(_LIBRARIES) and f.line]
    return f" (at: {frames[-1].line})" if frames else ""


IMPORTS = {"math": "import math", "sqrt": "from math import sqrt", "np": "import numpy as np", "numpy": "import numpy"}
"""Modules (and math's sqrt) a learner's cell may use that the chapter did not import, and the line for each."""


def import_hint(err: BaseException) -> str:
    """'. Add `import math` ...' when the learner's code used a module the chapter does not import (or chapter 1's
    softmax), else ''."""
    if isinstance(err, NameError) and err.name == "softmax":  # the exercise of chapter 1, not of this notebook
        return ". The softmax you wrote in chapter 1 is not in this notebook: PyTorch's own is torch.softmax(x, dim=-1)"
    if not isinstance(err, NameError) or err.name not in IMPORTS:
        return ""
    square_root = (" (or, for a square root, write d ** 0.5, which needs no import)"
                   if err.name in ("math", "sqrt") else "")
    return (f". Add the line {IMPORTS[err.name]} at the top of your cell, then run your cell and this check "
            f"again{square_root}")


def type_error_hint(err: BaseException) -> str:
    """'. Say which dimension ...' when PyTorch asked for the `dim` a learner's call left out (softmax), or
    '. A number was given as text ...' when it got a string where a number goes ("-inf"), else ''."""
    if isinstance(err, TypeError) and re.search(r"got \([^)]*\bstr\b", str(err)):
        return ". A number was given as text, in quotes: minus infinity is float('-inf'), not the string '-inf'"
    if not (isinstance(err, TypeError) and re.search(r"""missing .*["']dim["']""", str(err))):
        return ""
    return (". Say which dimension it works along: dim=-1 is the last one, along each row, as in "
            "torch.softmax(x, dim=-1)")


def _in_the_check(err: BaseException, yours: Any) -> bool:
    """Whether `err` was raised by a check's own code after the learner's function `yours` (their own Python code,
    whose every error passes through a line of it) had returned."""
    frames = traceback.extract_tb(err.__traceback__)
    own = inspect.isfunction(yours) and not yours.__code__.co_filename.startswith(_LIBRARIES)
    return (own and isinstance(err, Exception) and not _where_in_your_code(err) and bool(frames)
            and Path(frames[-1].filename).resolve().parent == Path(__file__).resolve().parent)


def solution_in_use(name: str) -> str:
    """What the instructor edition's solution cell prints when its answer passes: checked, and used from here on."""
    return f"{name}: this solution passes its check; the cells below now use it."


def yours_or_reference(check: Callable[..., bool], yours: Any, *args: Any, solution: bool = False) -> Any:
    """Run `check` on the learner's function `yours` (with the check's extra `args`); return `yours` when it
    passes, else the finished version from helpers, announced in one line, so that the cells below still run.

    A wrong answer's explanation is printed instead of raised, and the outcome is kept in OUTCOMES.
    solution=True marks the instructor edition's solution cell: a passing answer is then announced as the solution
    now in use (`solution_in_use`), not with the check's "correct. Well done." meant for a learner's own work.
    """
    name = getattr(check, "__name__", "").removeprefix("check_")
    if name not in SOLUTIONS:
        raise ValueError(f"yours_or_reference needs an exercise's check first, like check_softmax; got {check!r}")
    reference = SOLUTIONS[name]
    if yours is reference:
        print(say(f"{name} is already the reference from helpers: your own definition above has not run since. "
                  "Run its cell (if it shows an error, fix that first), then this cell."))
        return reference
    said = io.StringIO()  # what the check prints; a solution cell shows it only when the solution fails
    try:
        if unrun(name):  # checked, the definition of an earlier run would pass for the one on show
            raise AssertionError(f"{name}: your cell with def {name} stopped with an error before it could run, so "
                                 f"the {name} defined is one from an earlier run. Fix the error, run that cell, then "
                                 "this one")
        with redirect_stdout(said) if solution else nullcontext():
            passed, problem = check(yours, *args), ""
    except AssertionError as err:
        passed, problem = False, str(err)
    except (Exception, KeyboardInterrupt) as err:  # the learner's code crashed, or was stopped
        passed, problem = False, f"{name}: your code stopped with {type(err).__name__}: {_first_line(err)}" + (
            _where_in_your_code(err)) + import_hint(err) + type_error_hint(err)
        if _in_the_check(err, yours):  # the check itself could not handle what the function gave
            problem = (f"{name}: the check could not use what your function returned (it raised {type(err).__name__} "
                       "while reading it). Return the kind of value the exercise asks for: a plain Python number or "
                       "string where it asks for one, not a NumPy array or a huge whole number")
    if passed:
        OUTCOMES[name] = Outcome(True, f"{name}: correct" + (" (the chapter's own solution)" if solution else ""))
        if solution:
            print(say(solution_in_use(name)))
        return yours
    print(said.getvalue(), end="")
    OUTCOMES[name] = Outcome(False, problem or f"{name}: not attempted yet (the stub still calls todo())")
    if problem:
        print(say(f"Not right yet. {problem}"))
    if problem or not static_build():  # a page or a slide has said which function goes on
        print(f"Using the reference {name} from helpers, since yours is not {'right' if problem else 'finished'} yet.")
    return reference


def whose(fn: Any) -> str:
    """"your" for the learner's own function, "the reference" for the solution `yours_or_reference` handed on: a
    line printed after a check never credits the learner with the reference's result."""
    return "the reference" if any(fn is reference for reference in SOLUTIONS.values()) else "your"


SOLUTIONS_OFF = "SPOTLIGHTS_SOLUTIONS"
"""Set to "off" (a graded class's hub does) and `solution()` shows no solution."""
PRINTED = "(printed, not run: copy it into your cell to use it)"
"""The end of the first line `solution` prints: a grader flags a cell that still holds it."""


def solution(exercise: str | Callable[..., Any] = "") -> None:
    """Print the solution to an exercise (by name, "softmax", or its function or check) for the learner to read;
    without one, the exercises' names.

    It is printed, never run: the chapter goes on with whatever the learner's cell defines.
    """
    name = exercise if isinstance(exercise, str) else getattr(exercise, "__name__", "")
    name = name.removeprefix("check_")
    if name not in SOLUTIONS:
        close = difflib.get_close_matches(name, SOLUTIONS, n=1)
        start = f"There is no exercise called {name!r}." if name else "Name the exercise, solution(\"softmax\")."
        print(say(start + (f" Did you mean {close[0]!r}?" if close else "") + " The exercises, by chapter:"))
        for n, fns in BY_CHAPTER.items():
            print(f"  chapter {n}: " + ", ".join(f'"{fn.__name__}"' for fn in fns))
        return
    if os.environ.get(SOLUTIONS_OFF, "").lower() == "off":
        print(say(f"Solutions are switched off here (a graded class): ask your instructor about {name}"))
        return
    print(f"# The solution to {name} {PRINTED}")
    print(inspect.getsource(SOLUTIONS[name]).rstrip())
