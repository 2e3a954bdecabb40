"""helpers.needs: a cell run too early says which cell to run first."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import types

import nbformat
import pytest
from IPython.core.interactiveshell import InteractiveShell

import helpers.checks
from helpers.needs import MENUS, advice, explain_missing, names
from tools.chapters import NOTEBOOKS

CHAPTERS = [m.name for m in pkgutil.iter_modules(helpers.checks.__path__) if m.name.startswith("ch")]


@pytest.fixture
def shell() -> InteractiveShell:
    sh = InteractiveShell.instance()
    yield sh
    sh.set_custom_exc((), None)
    InteractiveShell.clear_instance()


def test_explain_missing_adds_the_cell_to_a_notebook_name_error(shell: InteractiveShell, capsys, monkeypatch) -> None:
    for key in ("VSCODE_PID", "VSCODE_CWD"):  # a terminal inside VS Code: its menu alone (the next test)
        monkeypatch.delenv(key, raising=False)
    explain_missing({"model": "'Load the trained model' (section 2)"})
    result = shell.run_cell("model.eval()")
    assert isinstance(result.error_in_exec, NameError)
    said = str(result.error_in_exec)
    assert "needs 'model', made by the cell 'Load the trained model' (section 2)" in " ".join(said.split())
    assert max(len(line) for line in f"NameError: {said}".splitlines()) <= 100, "wrapped for a projector"
    assert all(f"in {front_end}" in " ".join(said.split()) for front_end, _ in MENUS), "each front end's menu"
    out, shown = capsys.readouterr()
    assert "needs 'model'" in shown and "Traceback" not in out + shown and "model.eval()" not in shown, shown
    assert "An exception has occurred" not in out + shown, "the advice alone, no IPython jargon above it"
    other = shell.run_cell("not_in_the_map")
    assert isinstance(other.error_in_exec, NameError) and "made by the cell" not in str(other.error_in_exec)
    capsys.readouterr()
    assert isinstance(shell.run_cell("MY_TEXT = my_story.txt", store_history=True).error_in_exec, NameError)
    out, shown = capsys.readouterr()
    assert 'put it in quotes, "my_story.txt"' in shown and "Traceback" not in out + shown, shown
    shell.run_cell("from helpers.checkpoints import load_model\nload_model('../nope')")
    out, shown = capsys.readouterr()
    assert shown.startswith("CheckpointError: unknown checkpoint '../nope'") and "Traceback" not in out + shown, shown
    assert max(map(len, shown.splitlines())) <= 100, "wrapped, not cut mid-word by the notebook's box"
    explain_missing({"softmax": "that starts with `def softmax` (exercise 2)", "scores": "'scores = ...'"})
    said = " ".join(str(shell.run_cell("softmax(1)").error_in_exec).split())
    assert "'def softmax' (exercise 2) and the check cell under it: run those two cells first" in said, said
    said = " ".join(str(shell.run_cell("softmax = print(softmax)", store_history=True).error_in_exec).split())
    assert "'def softmax' (exercise 2): run that cell first" in said, said  # a check cell makes the name too
    said = " ".join(str(shell.run_cell("softmax(scores)", store_history=True).error_in_exec).split())  # both named
    assert "needs 'softmax', 'scores', made by cells above it" in said and "'scores': the cell 'scores" in said, said
    explain_missing({"grammar": "'twins = ...' (section 5)", "twins": "'twins = ...' (section 5)"})
    said = " ".join(str(shell.run_cell("twins, grammar, scores", store_history=True).error_in_exec).split())
    assert "('twins', 'grammar': the cell 'twins = ...' (section 5); 'scores': the cell" in said, "one cell named once"
    explain_missing({"ablation": "'ablation = ...' (section 3)", "baseline": "'baseline = ...' (section 2)"})
    looped = "for h in (0, 1):\n    ablation = baseline + h\n    print(ablation)"  # read after made, in a loop
    said = " ".join(str(shell.run_cell(looped, store_history=True).error_in_exec).split())
    assert "needs 'baseline', made by the cell 'baseline" in said and "ablation" not in said, "not the cell itself"
    explain_missing({"run": "'run = train(...)' (section 5)", "losses": "'losses = ...' (section 1)"})
    said = " ".join(str(shell.run_cell("print(run.losses, 'the losses')", store_history=True).error_in_exec).split())
    assert "needs 'run', made by" in said and "'losses'" not in said, "an attribute or a string is not a name read"
    shell.run_cell("from helpers.checks import todo\ndef softmax(scores):\n    todo()")
    capsys.readouterr()
    assert isinstance(shell.run_cell("softmax(1)").error_in_exec, NotImplementedError)
    out, shown = capsys.readouterr()
    assert shown.startswith("softmax is not filled in yet.") and "Traceback" not in out + shown, shown
    assert "run the check cell under it" in " ".join(shown.split()) and max(map(len, shown.splitlines())) <= 100
    shell.run_cell("model = 1")
    assert shell.run_cell("model + 1").result == 2
    shell.run_cell("from helpers.checks import yours_or_reference as mark\nfrom helpers.checks.ch01 import *")
    for cell, stale in (("def softmax(s):\n    return s", False), ("def softmax(s)\n  return", True), ("1", True),
                        ("def softmax(s):\n    1 / 0", False)):  # a wrong answer, a syntax error, another cell, a fix
        shell.run_cell(cell)
        shell.run_cell("mark(check_softmax, softmax)")
        assert ("stopped with an error before it could run" in " ".join(capsys.readouterr().out.split())) is stale

@pytest.mark.parametrize("front_end", ["Colab", "VS Code"])
def test_a_front_end_the_kernel_recognises_gets_its_own_menu_alone(front_end: str, monkeypatch) -> None:
    if front_end == "Colab":
        monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    else:
        monkeypatch.setenv("VSCODE_PID", "1")
    said = " ".join(advice({"model": "'Load the trained model' (section 2)"}).split()).replace(chr(0xA0), " ")
    assert f"{dict(MENUS)[front_end]} in {front_end}" in said, said
    assert not any(f"in {other}" in said for other, _ in MENUS if other != front_end), said


def test_explain_missing_checks_its_map() -> None:
    with pytest.raises(ValueError, match=r"dict of \{variable name: the cell"):
        explain_missing({"model": 3})


@pytest.mark.parametrize("module", CHAPTERS)
def test_each_chapters_advice_names_only_what_its_cells_make(module: str) -> None:
    """A chapter's MADE_IN (its set-up cell hands it to explain_missing) names no variable its cells no longer make."""
    made_in = importlib.import_module(f"helpers.checks.{module}").MADE_IN
    [path] = NOTEBOOKS.glob(f"{module.removeprefix('ch')}_*.ipynb")
    cells = [cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"]
    made = set().union(*(names(source).bound for source in cells))
    assert made_in and set(made_in) <= made, f"{path.name} makes none of {sorted(set(made_in) - made)}"
