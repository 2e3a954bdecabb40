"""Which earlier cells of a notebook some cells need: for every name they use, the latest earlier cell binding it.

For the lesson plans and the grader, on helpers.needs' static reading of a cell (`names`). It cannot see a change
made by a method call (`rows.append(...)`) or names made with exec or globals(): a miss shows as a NameError where
they run it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from helpers.needs import names


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
