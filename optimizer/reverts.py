"""Reverting recommended changes, as Hadoop would accept the result.

Reverting one change of a recommendation (to prune it, to explain it, to weigh its
confidence) can build a configuration Hadoop refuses: a container reverted under a sort
buffer that only fit the larger one. Every revert therefore goes through the search space's
repair (``search_spaces.constraints``), so each candidate is exactly the configuration that is
scored, and the one that would be written.
"""

from __future__ import annotations

import numpy as np

from mrtune.optimizer.strategies._base import as_values, row_of
from mrtune.search_spaces import SearchSpace

Row = dict[str, float]


def repaired(space: SearchSpace, rows: list[Row]) -> list[Row]:
    """``rows`` through the space's repair, in one vectorised call."""
    fixed = space.repair(as_values(rows))
    return [row_of(fixed, j) for j in range(len(rows))]


def reverts(
    space: SearchSpace, row: Row, current: Row, changed: list[str]
) -> tuple[list[str], list[Row]]:
    """``row`` with each changed knob back at its current value, repaired. Reverts the
    repair undoes (no fewer changes than ``row``) are left out, so a greedy loop always
    ends; the names say which change each remaining row reverts."""
    if not changed:
        return [], []
    rows = repaired(space, [{**row, k: current[k]} for k in changed])
    names, out = [], []
    for k, r in zip(changed, rows, strict=True):
        if sum(not np.isclose(r[n], current[n]) for n in r) < len(changed):
            names.append(k)
            out.append(r)
    return names, out
