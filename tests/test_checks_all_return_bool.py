"""Every chapter's exercise checks promise the same kind of answer: True when right, False when not attempted."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import helpers.checks
from helpers.checks import passed, todo

CHECKS = [
    (module.name, name, fn)
    for module in pkgutil.iter_modules(helpers.checks.__path__)
    for name, fn in inspect.getmembers(importlib.import_module(f"helpers.checks.{module.name}"), inspect.isfunction)
    if name.startswith("check_") and fn.__module__ == f"helpers.checks.{module.name}"
]


SELF_CONTAINED = [
    c for c in CHECKS if all(p.default is not p.empty for p in list(inspect.signature(c[2]).parameters.values())[1:])
]
"""Checks that need nothing but the learner's function (the others take a model or data, tested per chapter)."""


def test_every_chapter_has_checks() -> None:
    assert {chapter for chapter, _, _ in CHECKS} == {f"ch0{n}" for n in range(1, 8)}


@pytest.mark.parametrize(("chapter", "name", "check"), CHECKS, ids=[f"{c}.{n}" for c, n, _ in CHECKS])
def test_check_is_declared_to_return_bool(chapter: str, name: str, check) -> None:
    assert inspect.signature(check).return_annotation in (bool, "bool"), f"{chapter}.{name} should return bool"


@pytest.mark.parametrize(("chapter", "name", "check"), SELF_CONTAINED, ids=[f"{c}.{n}" for c, n, _ in SELF_CONTAINED])
def test_a_stub_gives_false(chapter: str, name: str, check, capsys: pytest.CaptureFixture[str]) -> None:
    def stub(*args):
        todo()

    assert check(stub) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_passed_prints_and_returns_true(capsys: pytest.CaptureFixture[str]) -> None:
    assert passed("demo") is True
    assert "demo: correct" in capsys.readouterr().out
