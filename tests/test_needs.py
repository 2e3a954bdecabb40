"""helpers.needs: a cell run too early says which cell to run first."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from helpers.needs import explain_missing


@pytest.fixture
def shell() -> InteractiveShell:
    sh = InteractiveShell.instance()
    yield sh
    sh.set_custom_exc((), None)
    InteractiveShell.clear_instance()


def test_explain_missing_adds_the_cell_to_a_notebook_name_error(shell: InteractiveShell, capsys) -> None:
    explain_missing({"model": "'Load the trained model' (section 2)"})
    result = shell.run_cell("model.eval()")
    assert isinstance(result.error_in_exec, NameError)
    said = str(result.error_in_exec)
    assert "needs `model`, made by the cell 'Load the trained model' (section 2)" in " ".join(said.split())
    assert max(len(line) for line in f"NameError: {said}".splitlines()) <= 100, "wrapped for a projector"
    shown = capsys.readouterr().out
    assert "needs `model`" in shown and "Traceback" not in shown and "model.eval()" not in shown, shown
    other = shell.run_cell("not_in_the_map")
    assert isinstance(other.error_in_exec, NameError) and "made by the cell" not in str(other.error_in_exec)
    explain_missing({"softmax": "that starts with `def softmax` (exercise 2)"})
    said = " ".join(str(shell.run_cell("softmax(1)").error_in_exec).split())
    assert "`def softmax` (exercise 2) and the check cell under it: run those two cells first" in said, said
    shell.run_cell("model = 1")
    assert shell.run_cell("model + 1").result == 2


def test_explain_missing_checks_its_map() -> None:
    with pytest.raises(ValueError, match=r"dict of \{variable name: the cell"):
        explain_missing({"model": 3})
