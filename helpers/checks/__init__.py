"""Exercise checks: each one runs a learner's function, asserts, and explains what is wrong in plain words.

A stub that still raises NotImplementedError is reported as not attempted (so "Run All" keeps going);
a wrong answer raises AssertionError with the reason; a right one prints a short confirmation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch


def todo() -> None:
    """Placeholder for a learner's stub: raises NotImplementedError, which the checks recognise."""
    raise NotImplementedError("this exercise is not filled in yet")


def attempt(name: str, fn: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
    """Call the learner's fn; (False, None) with a note when it is still a stub, else (True, result)."""
    if not callable(fn):
        raise AssertionError(f"{name}: expected a function, got {type(fn).__name__}")
    try:
        return True, fn(*args)
    except NotImplementedError:
        print(f"{name}: not attempted yet. Fill in the stub above, or open the solution below.")
        return False, None


def expect(condition: bool, message: str) -> None:
    """Assert with a plain-words explanation of what went wrong."""
    if not condition:
        raise AssertionError(message)


def expect_tensor(name: str, got: Any, shape: tuple[int, ...]) -> torch.Tensor:
    """Check that got is a float tensor of the given shape, and return it."""
    expect(isinstance(got, torch.Tensor), f"{name} should return a torch tensor, got {type(got).__name__}")
    expect(got.is_floating_point(), f"{name} should return floating-point numbers, got dtype {got.dtype}")
    expect(tuple(got.shape) == tuple(shape),
           f"{name} returned shape {list(got.shape)}, expected {list(shape)}")
    expect(bool(torch.isfinite(got).all()), f"{name} returned NaN or infinite values")
    return got


def expect_close(name: str, got: torch.Tensor, want: torch.Tensor, what: str, atol: float = 1e-5) -> None:
    """Compare to the reference; on a mismatch, show where and by how much."""
    diff = (got - want).abs()
    if float(diff.max()) > atol:
        where = tuple(int(i) for i in torch.nonzero(diff == diff.max())[0])
        raise AssertionError(
            f"{name}: {what} differs from the reference at index {list(where)}: "
            f"got {float(got[where]):.4f}, expected {float(want[where]):.4f}"
        )


def passed(name: str) -> bool:
    print(f"{name}: correct. Well done.")
    return True
