"""The grader (classroom/grade.py): fakes score zero and are flagged, every submission gets a row, right and wrong
answers get the marks and explanations their checks give. One class folder is graded once, by the command.
"""

from __future__ import annotations

import copy
import csv
import json
import signal
from pathlib import Path

import nbformat
import pytest

from classroom.grade import Graded, Score, grade, gradescope, main, submissions, write_feedback
from classroom.grade_run import grade as run_steps
from classroom.submission import chapter_in_name, course, flags
from helpers.checks import PRINTED
from tools.chapters import chapter_paths
from tools.editions import EXERCISE, build, tags

WRONG = {
    "softmax": "def softmax(scores):\n    e = scores.exp()\n    return e / e.sum(dim=0, keepdim=True)\n",
    "scaled_scores": "def scaled_scores(q, k):\n    return q @ k.T\n",
    "masked_weights": ("def masked_weights(scores):\n    hidden = causal_mask(scores.shape[-1])\n"
                       "    return torch.softmax(scores.masked_fill(hidden, float('-inf')), dim=-1)\n"),
}
"""Typical mistakes: softmax down the columns, no 1/sqrt(d), the mask the wrong way round."""
EXPLAINED = {"softmax": "dim=-1", "scaled_scores": "sqrt", "masked_weights": "wrong way round"}
"""What each one's feedback names: the fix its check's explanation gives."""
FAKES = {
    "redefined": (2, "def check_softmax(fn):\n    return True\n\n\ndef check_weighted_average(fn):\n    return True"),
    "outcomes": (-1, "from helpers.checks import OUTCOMES, Outcome\n\nfor name in ('softmax', 'weighted_average'):\n"
                     "    OUTCOMES[name] = Outcome(True, name + ': correct')"),
}
"""Issue 32's fakes with the stubs left empty: checks redefined, or the outcomes edited in a last cell."""
SOFTMAX = "def softmax(scores):\n    e = shifted(scores).exp()\n    return e / e.sum(dim=-1, keepdim=True)\n"
ABOVE = ("import math as m\ntorch.backends.cudnn.deterministic = True\n\n\ndef shifted(s):\n"
         "    return s - s.max(-1, True)[0]")
HONEST = {  # a helper and an import in a cell above (ABOVE), a setting, magics, tensors printed, a line that raises
    "weighted_average": "def weighted_average(w, v):\n    return (w[:, None]*v).sum(0)\nif m:\n    print(torch.eye(2))",
    "softmax": f"%%time\n{SOFTMAX}\n\n!pip list\ntry_it = softmax(torch.ones(3))[7]"}


def _answered(nb: nbformat.NotebookNode, answers: dict[str, str]) -> nbformat.NotebookNode:
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        for name, code in answers.items():
            if EXERCISE in tags(cell) and f"def {name}(" in cell.source:
                cell.source = code
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """The class folder graded with --workers 2: {student: {"summary": row, "exercises": {name: row}}}."""
    root = tmp_path_factory.mktemp("grading")
    one, two = chapter_paths("01")[0], chapter_paths("02")[0]
    learner = {p.name[:2]: nbformat.read(p, as_version=4) for p in build("learner", root / "learner", [one, two])}
    moved = _answered(learner["01"], {"softmax": WRONG["softmax"], "weighted_average": "# moved below"})
    moved.cells.append(nbformat.v4.new_code_cell("def weighted_average(weights, values):\n    return weights @ values"))
    right = ("def one_head(x, query, key, value):\n    q, k, v = query(x), key(x), value(x)\n"
             "    att = masked_weights(scaled_scores(q, k))\n    return att @ v, att")
    wrapped = {"softmax": "import helpers.checks.solutions as s\n\ndef softmax(scores):\n    return s.softmax(scores)",
               "weighted_average": "from helpers.checks.solutions import weighted_average"}
    notebooks = {  # nested folders too: class/<student>/<chapter>.ipynb
        f"teacher/{one.name}": nbformat.read(build("instructor", root / "instructor", [one])[0], as_version=4),
        f"untouched/{one.name}": learner["01"], "half_01.ipynb": moved,
        "wrapped_01.ipynb": _answered(learner["01"], wrapped),
        "mistakes_02.ipynb": _answered(learner["02"], {"one_head": right, "scaled_scores": WRONG["scaled_scores"],
                                                       "masked_weights": WRONG["masked_weights"]}),
        "shadow_02.ipynb": _answered(learner["02"], {"masked_weights": WRONG["masked_weights"]}),  # own mask: right
        "shadow_wrong_02.ipynb": _answered(learner["02"], {"masked_weights": WRONG["masked_weights"]}),  # and wrong
        "swapped_01.ipynb": learner["02"],  # chapter 2's notebook, under chapter 1's name
        "Zoe\u0308_01.ipynb": _answered(learner["01"], HONEST),  # its name as a Mac's zip spells it (NFD)
        "untouched/again.IPYNB": learner["01"],  # a second notebook from one student
        "deleted_01.ipynb": copy.deepcopy(learner["01"]),  # its softmax exercise cell deleted below
        f"ada/{one.name}": learner["01"], f"ada/{two.name}": learner["02"],  # two chapters: not two submissions
    }
    notebooks["Zoe\u0308_01.ipynb"].cells.insert(13, nbformat.v4.new_code_cell(ABOVE))
    notebooks["deleted_01.ipynb"].cells = [c if "yours_or_reference(check_weighted" not in c.source else  # and a fake
                                           nbformat.v4.new_code_cell("print('All checks passed!')")
                                           for c in learner["01"].cells if "def softmax(" not in c.source]
    stub = next(i for i, cell in enumerate(learner["02"].cells) if "def masked_weights(" in cell.source)
    for name, diagonal in (("shadow_02.ipynb", 1), ("shadow_wrong_02.ipynb", 0)):  # PyTorch's way: True = hidden
        notebooks[name].cells.insert(stub, nbformat.v4.new_code_cell(
            f"def causal_mask(n):\n    return torch.ones(n, n, dtype=torch.bool).triu({diagonal})"))
    for name, (where, code) in FAKES.items():
        notebooks[f"{name}_01.ipynb"] = fake = copy.deepcopy(learner["01"])
        fake.cells.insert(where if where >= 0 else len(fake.cells), nbformat.v4.new_code_cell(code))
    for name, nb in notebooks.items():
        (root / "class" / name).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, root / "class" / name)
    for name, text in {"class/truncated_01.ipynb": one.read_text()[:2000], "class/empty_01.ipynb": "",
                       "roster.csv": "file or folder,student id\nteacher,T-1\nhalf_01.ipynb,S-2\nabsent,S-9\n"
                                     "Zo\u00eb_01.ipynb,S-3\n", "points.csv": "softmax,2\n"}.items():  # no header
        (root / name).write_text(text)
    assert main([str(root / "class"), "--out", str(root / "out"), "--workers", "2", "--timeout", "60",
                 "--roster", str(root / "roster.csv"), "--points", str(root / "points.csv")]) == 0
    summary = csv.DictReader((root / "out" / "summary.csv").open(encoding="utf-8-sig"))
    rows = {row["student"]: {"summary": row, "exercises": {}} for row in summary}
    for row in csv.DictReader((root / "out" / "grades.csv").open(encoding="utf-8-sig")):
        rows[row["student"]]["exercises"][row["exercise"]] = row
    for student, row in rows.items():  # the file each student may be handed
        sent = root / "out" / "feedback" / f"{student}.txt"
        row["handed back"] = sent.read_text(encoding="utf-8") if sent.exists() else ""
    return rows


@pytest.mark.parametrize(("student", "points", "statuses"), [("S-3", "3", {"passed"}),  # HONEST, by NFC name
                                                              ("untouched", "0", {"not attempted"})])
def test_honest_work_gets_full_marks_by_the_points_table_and_untouched_work_zero(graded: dict, student: str,
                                                                                 points: str, statuses: set) -> None:
    summary = graded[student]["summary"]
    assert summary["status"] == "graded" and summary["points"] == points and summary["max_points"] == "3", summary
    assert {row["status"] for row in graded[student]["exercises"].values()} == statuses
    assert ("2 not attempted" in summary["note"]) == (statuses == {"not attempted"}), "untried, told from wrong"
    handed = graded[student]["handed back"]
    assert f"{points} of 3 points" in handed and ("softmax: 2 of 2" in handed) != ("as the stub" in handed), handed


def test_a_deleted_exercise_cell_is_named_as_missing_and_a_replaced_check_cell_is_noted(graded: dict) -> None:
    row = graded["deleted_01"]["exercises"]["softmax"]
    assert row["status"] == "not attempted" and "no cell" in row["feedback"] and "todo()" not in row["feedback"], row
    assert "check cell of weighted_average was changed" in graded["deleted_01"]["summary"]["to_look_at"], "its fake"
    assert "check cell" not in graded["untouched"]["summary"]["note"] and not graded["S-2"]["summary"]["to_look_at"]


@pytest.mark.parametrize("student", ["S-2", "mistakes_02"])
def test_typical_wrong_answers_get_partial_marks_with_their_explanation(graded: dict, student: str) -> None:
    """A moved definition (S-2's weighted_average, in a cell of its own at the end) is found and scored."""
    rows = graded[student]["exercises"]
    assert 0 < float(graded[student]["summary"]["points"]) < float(graded[student]["summary"]["max_points"])
    assert f"{sum(name in WRONG for name in rows)} failed" in graded[student]["summary"]["note"]
    for name, row in rows.items():
        if name in WRONG:
            assert row["status"] == "failed" and EXPLAINED[name] in row["feedback"], row
        else:
            assert row["status"] == "passed", row


def test_a_learners_own_version_of_a_course_function_is_the_one_graded(graded: dict) -> None:
    """shadow_02 redefines causal_mask (True = hidden) above its masked_weights, which is right with it; in
    shadow_wrong_02 the mask hides each word from itself too, and the feedback points to it."""
    assert graded["shadow_02"]["exercises"]["masked_weights"]["status"] == "passed", graded["shadow_02"]
    wrong = graded["shadow_wrong_02"]["exercises"]["masked_weights"]
    assert wrong["status"] == "failed" and "your own causal_mask, in cell" in wrong["feedback"], wrong


@pytest.mark.parametrize(("fake", "exercise", "says"), [
    ("redefined_01", "softmax", "redefines check_softmax"), ("outcomes_01", "softmax", "uses the checks' own OUTCOMES"),
    ("wrapped_01", "softmax", "as s'): imports the course's solutions; it called the solution"),  # its cell named once
    ("wrapped_01", "weighted_average", "is the course's solution"),
    ("T-1", "softmax", "it is the instructor edition")])  # the roster's "teacher": handed in, it is flagged
def test_the_fakes_and_the_instructor_edition_score_zero_flagged_saying_why(graded: dict, fake: str, exercise: str,
                                                               says: str) -> None:
    summary, rows = graded[fake]["summary"], graded[fake]["exercises"]
    assert summary["points"] == "0" and summary["status"] == "flagged" and "alone would" in summary["note"], summary
    assert {row["status"] for row in rows.values()} == {"flagged"} and says in rows[exercise]["feedback"], rows
    assert summary["to_look_at"].startswith("flagged: ") and says in summary["to_look_at"], summary  # why, at a glance
    feedback = rows[exercise]["feedback"]  # what its check said follows the flags, the exercise named once
    assert "Its check alone said: " in feedback and f"said: {exercise}" not in feedback, feedback
    handed = graded[fake]["handed back"]
    assert "held for your instructor's review" in handed and says not in handed, handed


@pytest.mark.parametrize(("student", "status", "says"), [
    ("truncated_01", "corrupt", ""), ("empty_01", "empty", ""), ("swapped_01", "wrong chapter", ""),
    ("S-9", "missing", "the roster's absent"),
    ("untouched", "graded", "one of 2 submissions from untouched for chapter 01")])
def test_every_submission_and_every_roster_entry_gets_a_row_with_a_reason(graded: dict, student: str,
                                                                          status: str, says: str) -> None:
    summary = graded[student]["summary"]
    assert summary["status"] == status and summary["points"] == "0" and says in summary["note"] and summary["note"]
    assert summary["to_look_at"].startswith(f"{status}: {summary['note']}") or status == "graded", summary
    assert bool(graded[student]["handed back"]) == (status != "missing"), "a file for every student who handed in"
    if status not in ("graded", "missing"):  # not graded: the reason once, not again under every exercise
        assert graded[student]["handed back"].count(summary["note"].split(";")[0]) == 1, graded[student]
    assert "submissions" not in graded["ada"]["summary"]["note"], "one notebook for each of two chapters"
    assert ("which one counts" in graded[student]["handed back"]) == ("submissions" in says), "two: told who decides"


@pytest.mark.parametrize(("upload", "says"), [
    ({"a.ipynb": "", "b.ipynb": ""}, "upload exactly one"), ({}, "no notebook"), ({"x_01.ipynb": "{"}, "corrupt"),
    ({"x_01.ipynb": ""}, "empty"), ({"x.ipynb": chapter_paths("02")[0].read_text()}, "wrong chapter")])
def test_gradescope_mode_always_writes_results_json(tmp_path: Path, upload: dict, says: str) -> None:
    (tmp_path / "submission").mkdir()
    for name, text in upload.items():
        (tmp_path / "submission" / name).write_text(text)
    assert main([str(tmp_path / "submission"), "--chapter", "01", "--gradescope", str(tmp_path / "results.json")]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["score"] == 0 and says in results["output"] and f"{says}: {says}" not in results["output"], results
    assert all(test["score"] == 0 for test in results.get("tests", []))


def test_on_gradescope_a_flagged_exercise_is_held_for_review_and_its_flags_are_the_instructors() -> None:
    why = "softmax: not scored, flagged for review: cell 3: imports solutions. Its check alone said: correct"
    scores = [Score("softmax", 0, 1, "flagged", why), Score("weighted_average", 1, 1, "passed", "correct")]
    results = gradescope(Graded("x.ipynb", "x", "01", "flagged", "flagged for review: cell 3: imports it", scores))
    shown = [test for test in results["tests"] if test.get("visibility") != "hidden"]
    assert "imports" not in json.dumps(shown) + results["output"] and "review" in shown[0]["output"], results
    assert [test["output"] for test in results["tests"] if test.get("visibility") == "hidden"] == [why]


def _steps(code: str) -> list[dict]:
    """A tiny plan: the checks' import, the learner's softmax, the chapter's check line."""
    return [{"kind": "course", "label": "cell 1", "source": "from helpers.checks import yours_or_reference\n"
             "from helpers.checks.ch01 import check_softmax"},
            {"kind": "exercise", "name": "softmax", "source": code},
            {"kind": "check", "name": "softmax", "source": "softmax = yours_or_reference(check_softmax, softmax)"}]


@pytest.mark.parametrize(("code", "says"), [
    ("def softmax(scores):\n    while True:\n        pass",
     '"passed": false, "feedback": "softmax: did not finish within 5 s, the time limit: look for a loop that never '
     'ends or a long wait (at: while True:)'),  # an endless loop, and the line it was on
    ("import functools\nfrom helpers.checks import solutions as s\nsoftmax = functools.partial(s.softmax)",
     "the course's solution"),
    ("from helpers.checks.ch01 import _reference_softmax as softmax", "helpers.checks.ch01._reference_softmax"),
    ("from helpers.checks.solutions import softmax", "nothing of the student's to grade"),  # one reason
    ("import torch\nfrom helpers.attention import spotlight\n\ndef softmax(s):\n"
     "    return spotlight(s[None], torch.eye(len(s)))[1][0]", "helpers.attention.spotlight"),
    ("import sys\nfrom helpers.checks import solutions as s\n\ndef softmax(x):\n    sys.setprofile(None)\n"
     "    return s.softmax(x)", "switched off"),
    ("import torch\n\ndef softmax(s):\n    return s.exp() / s.exp().sum()\n\nx = softmax(torch.ones(2))[5]",
     "After defining softmax, your exercise cell stopped with IndexError"),  # its check still runs
    ("import torch\n\ndef softmax(s):\n    return s.exp() / s.exp().sum(-1, keepdim=True)\n\nwhile True:\n    pass",
     "After defining softmax, your exercise cell did not finish within 5 s"),  # a test loop that never ends
])
def test_an_endless_loop_is_stopped_and_a_solution_or_helpers_copy_flagged_at_run_time(code: str, says: str) -> None:
    lines = []
    run_steps(_steps(code), 5, lines.append)
    assert says in json.dumps(lines[0]), lines
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0), "the time limit's alarm is left on"


@pytest.mark.parametrize(("code", "statuses", "says"), [
    ("def weighted_average(w, v):\n    while True:\n        try:\n            while True:\n                pass\n"
     "        except BaseException:\n            pass", ["time limit", "passed"], "the time limit"),
    ("import os\n\ndef weighted_average(w, v):\n    os.kill(os.getpid(), 9)", ["error", "passed"], "was killed"),
    ("import os\n\ndef weighted_average(w, v):\n    pass\n\nfor fd in os.listdir('/proc/self/fd'):\n"
     "    if os.path.realpath(f'/proc/self/fd/{fd}').endswith('.jsonl'):\n        os.write(int(fd), b'{\"exercise\": "
     "\"softmax\", \"passed\": true, \"feedback\": \"\", \"flags\": []}\\n')", ["error", "error"], "not the grader's"),
    (f"def weighted_average(w, v):\n    raise ValueError('?') from ValueError('{'?' * 3000}')", ["failed", "passed"],
     "cut here"),  # the learner's line, quoted whole
    ("torch.allclose = lambda *a, **k: True\n\ndef weighted_average(w, v):\n    return w @ v", ["flagged", "passed"],
     "graded in a fresh process"),  # the checks changed: the next exercise is still graded, without that code
    ("def weighted_average(w, v):\n    return w @ v\n\nn = int(input('How many? '))", ["passed", "passed"],
     "input() waits for typing"),
    ("def weighted_average(w, v):\n    return w @ v if input() else v", ["stopped", "passed"],  # input() inside it
     "input() stopped weighted_average: to be read by hand"),
    ("n = int(input('How many? '))\n\ndef weighted_average(w, v):\n    return w @ v", ["stopped", "passed"],
     "input() stopped weighted_average: to be read by hand"),  # a right answer behind it: the summary says so
    ("big = torch.empty(2 * 10**9)\n\ndef weighted_average(w, v):\n    return w @ v", ["stopped", "passed"],  # 8 GB
     "running out of memory stopped weighted_average: to be read by hand"),  # over the limit: refused at once
    ("def weighted_average(w, v):\n    raise MemoryError", ["stopped", "passed"],  # caught by its check: said too
     "running out of memory stopped weighted_average: to be read by hand"),
    ("def weighted_average(w, v):\n    todo()\n    return w @ v", ["stopped", "passed"],  # right, but never run
     "1 stopped (weighted_average); a todo() line above the code stopped weighted_average: to be read by hand"),
    ("def weighted_average(w, v):\n    return w @ v\n\nopt = torch.optim.SGD([torch.ones(1, requires_grad=True)])",
     ["passed", "passed"], "weighted_average: correct"),  # torch rewraps manual_seed at a first optimizer: not a flag
    ("from einops import rearrange\n\ndef weighted_average(w, v):\n    return w @ v", ["stopped", "passed"],
     "einops, not installed where this grades, stopped weighted_average: to be read by hand"),
    ("from helpers.attenton import causal_mask\n\ndef weighted_average(w, v):\n    return w @ v",
     ["failed", "passed"], "No module named 'helpers.attenton'"),  # a typo: the learner's kernel failed too
    ("def weighted_average(w, v):\n    return w @ shifted(v)", ["failed", "passed"], "in a cell above it"),  # below
    ("def weighted_average(w, v):\n    return w @ sqrt(v)", ["failed", "passed"], "from math import sqrt"),  # nowhere
    ("def weighted_average(w, v):\n    return w @ mine(v)", ["failed", "passed"], "defines mine: was the cell that"),
    ("def weighted_average(w, v):\n    return w @ v\n\nassert 1 == 2", ["passed", "passed"],
     "AssertionError (at: assert 1 == 2)"),  # a bare assert after the definition: the line says what stopped
    ("def weighted_average(w, v)\n    return w @ v", ["failed", "passed"], "(w, v)). Only the exercise's own cell"),
])
def test_a_process_stopped_or_forged_says_so_and_the_rest_is_graded(tmp_path: Path, code: str, statuses: list,
                                                                   says: str) -> None:
    """Code that catches the time limit, exits, or forges a result line; a feedback too long for a spreadsheet."""
    softmax = SOFTMAX.replace("shifted(scores)", "(scores - scores.max(-1, True)[0])")
    nb = _answered(course("01")[0], {"weighted_average": code, "softmax": softmax})
    nb.cells.append(nbformat.v4.new_code_cell("def shifted(v):\n    return v"))  # run last, in Jupyter: too late
    nbformat.write(nb, tmp_path / "01.ipynb")
    graded = grade(tmp_path / "01.ipynb", "x", timeout=2)
    assert [s.status for s in graded.scores] == statuses and says in graded.note + str(graded.scores), graded
    assert ("in a cell above it" in str(graded.scores)) == ("shifted" in code), "only for a name made further down"
    assert all(len(s.feedback) < 2100 for s in graded.scores)
    shown = gradescope(graded)
    sent = (write_feedback([graded], tmp_path) / "x.txt").read_text()  # "so far": held, or to be read by hand
    assert "by hand" not in shown["output"] + sent and "cell again;" not in sent, "the instructor's to-do, not theirs"
    hidden = " ".join(test["output"] for test in shown["tests"] if test.get("visibility") == "hidden")
    assert ("by hand" in graded.note) == ("by hand" in hidden) == says.endswith("by hand"), "but the instructor's"
    assert bool(graded.look) == (statuses[0] not in ("failed", "passed") or says.endswith("by hand")), graded.look
    assert ("so far" in sent) == (statuses[0] in ("flagged", "time limit") or says.endswith("by hand")), sent


@pytest.mark.parametrize(("code", "flag"), [
    ("torch.softmax = lambda s, dim: s", "monkeypatching"),
    ("def softmax(s):\n    return check_softmax.__globals__['SOLUTIONS']['softmax'](s)", "__globals__"),
    ("exec('def softmax(s): return s')", "exec()"),
    ("import importlib\nsoftmax = importlib.import_module('helpers.checks.solutions').softmax", "importlib"),
    ("def yours_or_reference(check, fn):\n    return fn", "redefines yours_or_reference"),
    ("from helpers.checks.ch04 import _split as split_heads", "private name"),
    ("import helpers.checks as c\nS = getattr(c, 'SOLU' + 'TIONS')", "getattr()"),
    ("from helpers.checks import solutions", "solutions"), ("import sys\nsys.setprofile(None)", "setprofile"),
    ("from helpers.checks import BY_CHAPTER\nsoftmax = BY_CHAPTER[1][1]", "uses the checks' own BY_CHAPTER"),
    ("import signal\nsignal.setitimer(signal.ITIMER_REAL, 0)", "imports signal"),
    ("%run other.py\ntorch.equal = lambda a, b: True", "monkeypatching"),  # a magic hides nothing
    (f"# The solution to softmax {PRINTED}\ndef softmax(s):\n    return s.softmax(-1)", "solution() printed"),
])
def test_the_static_look_flags_reaching_into_the_machinery(code: str, flag: str) -> None:
    assert any(flag in found for found in flags(code, exercise=True)), flags(code, exercise=True)


def test_honest_code_is_not_flagged() -> None:
    for code in (*WRONG.values(), "import math\n\ndef f(x):\n    return math.exp(x)\n\n\nprint(f(1))",  # ABOVE, HONEST:
                 "softmax = yours_or_reference(check_softmax, softmax)", "torch.set_printoptions(3)"):  # graded: S-3
        assert flags(code, exercise=True) == [] and flags(code, exercise=False) == []


@pytest.mark.parametrize(("option", "name", "text", "says"), [
    ("", "absent_01.ipynb", None, "absent_01.ipynb"),  # a path that does not exist
    ("--roster", "roster.csv", "file or folder,student id\nalice,A-1,Liddell\n", "'alice,A-1,Liddell' has 3"),
    ("--roster", "roster.csv", "file,id\nzoë,Z-1\n", "save it again as 'CSV UTF-8'"),  # written below in Latin-1
    ("--roster", "roster.csv", "alice,A-1\nbob,B-2\n", "'alice,A-1', names a notebook handed in"),  # no header
    ("--points", "points.toml", "softmx = 2\n", "no exercise called softmx (did you mean softmax?)"),
    ("--points", "points.csv", "exercise,points\nsoftmax,two\n", "points must be numbers"),
])
def test_a_bad_roster_or_points_file_is_refused_saying_why(tmp_path: Path, capsys, option: str, name: str,
                                                           text: str, says: str) -> None:
    if text is not None:
        (tmp_path / name).write_text(text, encoding="latin-1")
    (tmp_path / "alice.ipynb").touch()
    with pytest.raises(SystemExit):
        main([str(tmp_path), *filter(None, [option]), str(tmp_path / name)])
    assert says in capsys.readouterr().err


def test_a_notebook_saved_under_its_chapters_name_belongs_to_the_folder_that_holds_it(tmp_path: Path) -> None:
    """Students' folders named one by one (grade collected/*), or one notebook: the folder names the student."""
    for name in ("alice/01_one_spotlight.ipynb", "bob/01_one_spotlight-Copy1.ipynb", "class/carol.ipynb",
                 "class/__MACOSX/._carol.ipynb", "alice/._01_one_spotlight.ipynb"):  # a Mac's zip: not notebooks
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("{}")
    named = [tmp_path / "alice", tmp_path / "bob" / "01_one_spotlight-Copy1.ipynb", tmp_path / "class"]
    assert [student for student, _, _ in submissions(named)] == ["alice", "bob", "carol"]


@pytest.mark.parametrize(("name", "chapter"), [("alice-01.ipynb", "01"), ("jdoe_02_queries_keys_values.ipynb", "02"),
                                               ("jdoe_2026-03-14-21-15-44_homework.ipynb", None)])
def test_a_file_name_says_its_chapter_but_a_date_in_it_does_not(name: str, chapter: str | None) -> None:
    assert chapter_in_name(Path(name)) == chapter


def test_with_chapter_a_whole_course_collected_is_graded_for_that_chapter_alone(tmp_path: Path, capsys,
                                                                                 monkeypatch) -> None:
    monkeypatch.setattr("classroom.grade.QUIET_S", 0.5)  # and it says it is at work while nothing is done
    for student, path in (("ada", chapter_paths("01")[0]), ("ada", chapter_paths("02")[0]),
                          ("elif", chapter_paths("02")[0])):  # elif handed in chapter 2's alone
        (tmp_path / "class" / student).mkdir(parents=True, exist_ok=True)
        (tmp_path / "class" / student / path.name).write_text(path.read_text())
    (tmp_path / "class" / "ada" / "homework (Ada).ipynb").write_text(chapter_paths("02")[0].read_text())  # renamed
    (tmp_path / "roster.csv").write_text("folder,id\nada,ada\nelif,elif\n")
    (tmp_path / "points.csv").write_text("softmax,2\nmasked_weights,3\n")  # one file for the course's chapters
    assert main([str(tmp_path / "class"), "--chapter", "01", "--out", str(tmp_path / "out"),
                 "--roster", str(tmp_path / "roster.csv"), "--points", str(tmp_path / "points.csv")]) == 0
    said = capsys.readouterr().out  # at the start, and again in the last line
    assert "left out 3 notebooks of other chapters than 01" in said and "points: weighted_average 1, softmax 2)" in said
    assert said.rstrip().endswith("; 3 left out (another chapter)") and "1 notebook in" in said
    assert "to look at:\n  elif (missing: no chapter 01 notebook; left out elif/02_queries_keys_values.ipynb" in said
    assert "Hand in 01_one_spotlight.ipynb" in (tmp_path / "out" / "feedback" / "elif.txt").read_text(), "told"
    assert "still grading, 1 to go" in said and "at work on ada/01_one_spotlight.ipynb" in said
    ada, elif_ = csv.DictReader((tmp_path / "out" / "summary.csv").open(encoding="utf-8-sig"))
    assert ada["student"] == "ada" and ada["chapter"] == "01" and "submissions" not in ada["note"]
    assert ada["max_points"] == "3", "softmax's 2 points and weighted_average's 1; chapter 2's line unused"
    assert elif_["status"] == "missing" and "left out elif/02_queries_keys_values.ipynb" in elif_["to_look_at"], elif_
