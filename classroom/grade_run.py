"""The grader's fresh process for one submission: the course's chapter with the learner's exercise code in it.

    python -m classroom.grade_run PLAN.json > RESULTS.jsonl   (started by classroom/grade.py, one per submission)

The plan's steps run in order in one namespace; one JSON line per exercise goes to the process's stdout, kept on
a descriptor the learner's code is not told of (what it prints goes nowhere), then a last line, {"done": true}.
Its memory (address space) is held to the plan's `memory_mb`, so one notebook cannot take the machine's. What it
flags at run time, and why: docs/instructor.md, "Grading a class".
"""

from __future__ import annotations

import contextlib
import functools
import json
import linecache
import os
import pkgutil
import resource
import signal
import sys
import traceback
import types
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

LEARNER = "<your exercise cell>"  # the file name the learner's code is compiled under: how it is known as theirs
TIMED_OUT = 124  # the exit code when the learner's code caught the time limit and ran on
TOO_LONG = "did not finish within {:g} s, the time limit: look for a loop that never ends or a long wait"  # .format(s)
TYPING = ("input() waits for typing, which a grading run cannot give: put the value in the code; your instructor will "
          "read it")
MEMORY = "it asked for more memory than a grading process may have"  # its limit: --memory, classroom/grade.py
COPIES = {  # helpers' own functions that compute an exercise's answer, guarded in its check like the solutions
    "weighted_average": "helpers.attention:spotlight", "softmax": "helpers.attention:spotlight",
    "masked_weights": "helpers.attention:spotlight",
    "one_head": "helpers.attention:spotlight helpers.attention:AttentionHead.forward",
    "split_heads": "helpers.attention:split_heads", "merge_heads": "helpers.attention:merge_heads",
    "count_attention_parameters": "helpers.model:attention_layer_size helpers.model:count_parameters",
    "clear_winner": "helpers.compare:seed_margin", "count_block_parameters": "helpers.model:count_parameters",
    "feed_forward": "helpers.block:FeedForward.forward", "block_step": "helpers.block:TransformerBlock.forward",
}


class TimeLimit(BaseException):
    """Raised in the learner's code when a step runs over its time (a BaseException: the checks do not catch it)."""


def _alarm(signum: int, frame: object) -> None:
    """The first alarm of a step stops it; the next, a second later, if the learner's code caught the first and ran
    on, ends the process (the grader grades the other exercises in a fresh one)."""
    signal.signal(signal.SIGALRM, lambda *_: os._exit(TIMED_OUT))
    raise TimeLimit


def fingerprint() -> dict[str, int]:
    """The identity of every function, class, module and table in helpers and the parts of torch the checks use."""
    import math

    import torch
    import torch._compile
    import torch.nn.functional

    spaces = {name: vars(module) for name, module in list(sys.modules.items()) if name.split(".")[0] == "helpers"}
    spaces |= {"torch": vars(torch), "torch.Tensor": vars(torch.Tensor), "F": vars(torch.nn.functional),
               "math": vars(math)}
    found = {}
    for space, members in spaces.items():
        for name, value in list(members.items()):
            if isinstance(value, types.FunctionType) and value.__code__.co_filename == torch._compile.__file__:
                value = getattr(value, "__wrapped__", value)  # torch's own rewrap: manual_seed's, at a first optimizer
            if callable(value) or isinstance(value, (dict, types.ModuleType)):
                found[f"{space}.{name}"] = id(value)
                found |= {f"{space}.{name}.__code__": id(value.__code__)} if hasattr(value, "__code__") else {}
            if isinstance(value, dict) and space.startswith("helpers"):  # SOLUTIONS and the like, entry by entry
                found |= {f"{space}.{name}[{key!r}]": id(v) for key, v in list(value.items()) if callable(v)}
    return found


def changed(before: dict[str, int]) -> list[str]:
    """What of `before` is now another object (new names are not a change: imports add them; a function's code
    is named only when the function itself is not)."""
    now = fingerprint()
    moved = {name for name, ident in before.items() if now.get(name, ident) != ident}
    return sorted(name for name in moved if name.removesuffix(".__code__") not in moved - {name})


def _unwrapped(fn: object) -> list[object]:
    """fn and what it wraps: functools.partial's func, a bound method's function, @functools.wraps' __wrapped__."""
    seen = []
    while fn is not None and len(seen) < 20:
        seen.append(fn)
        if isinstance(fn, functools.partial):
            fn = fn.func
        else:
            fn = getattr(fn, "__func__", None) or (vars(fn).get("__wrapped__") if hasattr(fn, "__dict__") else None)
    return seen


def _checks_code() -> dict[types.CodeType, str]:
    """The code of every function of the checks' chapter modules imported so far (their own copies of answers),
    written there: a decorated one's wrapper (contextlib's, which every @contextmanager shares, torch's printing
    too) is not theirs."""
    return {fn.__code__: f"{name}.{fn.__name__}" for name, module in list(sys.modules.items())
            if name.startswith("helpers.checks.ch") for fn in list(vars(module).values())
            if isinstance(fn, types.FunctionType) and fn.__code__.co_filename == module.__file__}


class Watch:
    """A profiler that notes each call from the learner's code (the nearest caller that is not torch's or Python's
    own code) into a solution, a check, yours_or_reference or helpers' own copy of the exercise's answer."""

    def __init__(self, guarded: dict[types.CodeType, str], helpers: str) -> None:
        self.guarded, self.helpers, self.calls = guarded, helpers, set()

    def __call__(self, frame: types.FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code in self.guarded:
            caller = frame.f_back
            while caller is not None and not caller.f_code.co_filename.startswith(("<", self.helpers)):
                caller = caller.f_back  # past nn.Module.__call__ and the like
            if caller is not None and caller.f_code.co_filename == LEARNER:
                self.calls.add(self.guarded[frame.f_code])


def run(source: str, label: str, namespace: dict, timeout: float, watch: Watch | None = None) -> BaseException | None:
    """Run one step's code in the chapter's namespace, its printout discarded; the exception it stopped with.
    A timeout of 0 means none (the course's own cells)."""
    linecache.cache[label] = (len(source), None, source.splitlines(True), label)  # tracebacks quote the code
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout, 1)  # then every second: see _alarm
    sys.setprofile(watch)
    try:
        with open(os.devnull, "w") as sink, redirect_stdout(sink), redirect_stderr(sink):
            exec(compile(source, label, "exec"), namespace)
        err = None
    except BaseException as caught:  # the learner's code may raise anything; the time limit is a BaseException
        err = caught
    off = sys.getprofile() is not watch  # the learner's code switched the watch off (or a time limit raised in it)
    sys.setprofile(None)
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)
    if watch is not None and off and not isinstance(err, TimeLimit):
        watch.calls.add("sys.setprofile, which switched off the grader's watch")
    return err


def _said(err: BaseException) -> str:
    """An error as feedback names it, with the learner's line that raised it; input() gets its reason, since its
    EOFError does not say."""
    if _ran_out(f"{type(err).__name__}: {err}"):
        said = f"an out-of-memory error: {MEMORY}"
    else:
        said = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__  # a bare assert says nothing
    return said + _at(err) + (f" ({TYPING})" if isinstance(err, EOFError) else "")


def _ran_out(said: str) -> bool:
    """Whether an error, as its name and text read, is memory running out (torch's are a C++ allocator's words)."""
    return "MemoryError" in said or "can't allocate memory" in said


def _at(err: BaseException) -> str:
    """' (at: <line>)': the learner's line that raised `err`, or was running when the time limit stopped it."""
    lines = [frame.line for frame in traceback.extract_tb(err.__traceback__) if frame.filename == LEARNER]
    lines += [err.text.strip()] if isinstance(err, SyntaxError) and err.filename == LEARNER and err.text else []
    return f" (at: {lines[-1]})" if lines and lines[-1] else ""


def grade(steps: list[dict], timeout: float, emit: Callable[[dict], None]) -> None:
    """Run the plan's steps; emit one result per check step, or an error line if a course cell fails."""
    import helpers.checks
    from helpers.checks.solutions import SOLUTIONS
    from helpers.needs import names

    outcomes = helpers.checks.OUTCOMES  # held before any learner code runs
    solutions = {fn.__code__: name for name, fn in SOLUTIONS.items()}
    copies = {name: {pkgutil.resolve_name(entry).__code__: entry.replace(":", ".") for entry in entries.split()}
              for name, entries in COPIES.items()}  # every entry, whatever the chapter: a wrong one shows at once
    home = str(Path(helpers.__file__).parent)
    handed: set[str] = set()  # exercises whose solution the chapter handed on, since the learner's did not pass
    namespace: dict = {"__name__": "__main__"}
    course: dict[str, object] = {}  # every name as the course's own cells left it
    before, flags, stopped, aside = {}, {}, {}, {}
    for step in steps:
        name, kind, source = step.get("name"), step["kind"], step["source"]
        if kind == "course":
            err = run(source, f"<the chapter's {step['label']}>", namespace, 0)
            if err is not None:
                emit({"error": f"the chapter's {step['label']} stopped with {_said(err)}"[:300]})
                return
            course |= {k: namespace[k] for k in names(source).bound if k in namespace}
            continue
        guarded = {v.__code__: f"{k}()" for k, v in course.items() if isinstance(v, types.FunctionType)
                   and (k.startswith("check_") or k == "yours_or_reference")} | _checks_code()
        own = {code: f"the solution {n}" for code, n in solutions.items() if n not in handed} | guarded
        if kind == "exercise":
            before[name], had = fingerprint(), namespace.get(name)
            watch = Watch(own, home)
            stopped[name] = run(source, LEARNER, namespace, timeout, watch)
            flags[name] = {f"it called {call}" for call in watch.calls}
            err = stopped[name]
            if err is not None and namespace.get(name) is not had:
                stopped[name] = None  # a scratch line after the definition stopped the cell: the check runs anyway
                then = TOO_LONG.format(timeout) if isinstance(err, TimeLimit) else f"stopped with {_said(err)}"
                aside[name] = f" (After defining {name}, your exercise cell {then}.)"  # a time limit: as interrupted
            continue
        # the names the check cell uses (the check, its extra arguments) as the chapter's own cells left them
        namespace.update({k: course[k] for k in names(source).used if k in course and k != name})
        watch = Watch(own | copies.get(name, {}), home)
        labels = {code: "the course's solution" for code in solutions} | guarded | copies.get(name, {})
        mine = [labels[f.__code__] for f in _unwrapped(namespace.get(name)) if getattr(f, "__code__", None) in labels]
        flags[name] |= {f"{name} is {mine[0]}, not the student's own code"} if mine else set()
        outcomes.pop(name, None)
        err = stopped[name] or run(source, f"<the check of {name}>", namespace, timeout, watch)
        tampered = changed(before[name])
        flags[name] |= {f"it called {call}" for call in watch.calls} | {f"it changed {what}" for what in tampered}
        outcome, memory = outcomes.get(name), False
        if isinstance(err, TimeLimit):
            said = f"{name}: {TOO_LONG.format(timeout)}{_at(err)}"  # the line the time limit stopped
            result = {"passed": False, "feedback": said + aside.get(name, "")}
        elif err is not None:
            where = "your exercise cell" if stopped[name] is not None else "its check"
            syntax = isinstance(err, SyntaxError)  # the exercise's own cell could not run at all
            graded_here = ". Only the exercise's own cell is graded, not a copy in another cell." if syntax else ""
            result = {"passed": False, "feedback": f"{name}: {where} stopped with {_said(err)}{graded_here}"}
        elif outcome is None:  # the check stepped aside for the course's own code (flagged above), or was stopped
            if not mine:
                flags[name].add("its check recorded no outcome")
            said = ("it is the course's own code, so there is nothing of the student's to grade" if mine else
                    "its check gave no verdict (the exercise's code may have stopped it): grade it by hand")
            result = {"passed": False, "feedback": f"{name}: {said}"}
        elif memory := _ran_out(outcome.feedback):
            # caught by the check, the memory stays taken: the exercises after it are graded in a fresh process
            at = outcome.feedback.partition(" (at: ")[2]  # the learner's line, as the check quoted it
            result = {"passed": False, "feedback": f"{name}: your code stopped with an out-of-memory error: {MEMORY}"
                                                   + (f" (at: {at}" if at else "")}
        else:
            typing = f" ({TYPING})" * ("EOFError" in outcome.feedback)  # input() called by the check, in their function
            result = {"passed": bool(outcome.passed), "feedback": outcome.feedback + typing + aside.get(name, "")}
        if err is not None or flags[name] or not result["passed"]:
            namespace[name] = SOLUTIONS[name]  # as yours_or_reference does: the rest of the chapter still runs
            handed.add(name)
        emit({"exercise": name, **result, "flags": sorted(flags[name])})
        if tampered or memory:  # the checks can no longer be trusted in this process, or have too little memory
            return


def main() -> None:
    plan = json.loads(Path(sys.argv[1]).read_text())
    memory = plan["memory_mb"] * 2**20
    with contextlib.suppress(ValueError, OSError):  # Linux enforces it; macOS may refuse or ignore it
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    del sys.argv[1:]  # the learner's code is told nothing of the grader's files
    import classroom.dependencies  # noqa: F401
    import helpers.checks  # noqa: F401 - imported from the checkout before the learner's folder becomes the cwd

    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)  # the results, line by line as they come
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # what is printed to the process's stdout goes nowhere
    os.chdir(plan["folder"])
    with out:
        grade(plan["steps"], plan["timeout"], lambda line: out.write(json.dumps(line) + "\n"))
        out.write(json.dumps({"done": True}) + "\n")


if __name__ == "__main__":
    main()
