"""helpers.needs: a cell run too early says which cell to run first."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from helpers.needs import RunCellFirstError, explain_missing, need


def test_need_passes_when_the_names_exist() -> None:
    scores, weights = 1, 2  # noqa: F841 - need() looks them up in this frame
    need("scores", "weights", cell="'Scores' (section 1)")


def test_need_names_the_missing_variable_and_the_cell_to_run() -> None:
    scores = 1  # noqa: F841
    with pytest.raises(RunCellFirstError, match=r"needs `weights`, made by the cell 'Softmax' \(section 2\): run"):
        need("scores", "weights", cell="'Softmax' (section 2)")


def test_the_error_is_a_name_error_with_the_name() -> None:
    with pytest.raises(NameError) as info:
        need("model", cell="'Load the model'")
    assert info.value.name == "model"


@pytest.mark.parametrize(("names", "cell"), [((), "x"), (("not a name",), "x"), ((3,), "x"), (("a",), "")])
def test_need_rejects_its_own_bad_arguments(names: tuple, cell: str) -> None:
    with pytest.raises(ValueError, match=r"need\(\) takes"):
        need(*names, cell=cell)


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
    assert "needs `model`, made by the cell 'Load the trained model' (section 2)" in str(result.error_in_exec)
    other = shell.run_cell("not_in_the_map")
    assert isinstance(other.error_in_exec, NameError) and "made by the cell" not in str(other.error_in_exec)
    shell.run_cell("model = 1")
    assert shell.run_cell("model + 1").result == 2


def test_explain_missing_checks_its_map() -> None:
    with pytest.raises(ValueError, match=r"dict of \{variable name: the cell"):
        explain_missing({"model": 3})
