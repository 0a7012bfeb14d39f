"""Repair and feasibility of knob values: the constraint checks every search shares.

:meth:`SearchSpace.repair <mrtune.search_spaces.space.SearchSpace.repair>` and
:meth:`~mrtune.search_spaces.space.SearchSpace.feasible` are these functions under one job's
context; the batch (:mod:`mrtune.optimizer.batch._stack`) calls them with per-row context
arrays, so many jobs' rows are checked in one pass with the values each job's own check gives.
Kept apart from the space (which selects knobs and builds grids) because they hold only the
elementwise rules of :mod:`mrtune.search_spaces.constraints`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mrtune.search_spaces.constraints import CONSTRAINTS, clip_valid, within_valid
from mrtune.search_spaces.knobs import Knob

Values = dict[str, np.ndarray]
Context = Mapping[str, "float | np.ndarray"]


def repair_values(knobs: list[Knob], values: Values, ctx: Context) -> Values:
    """:meth:`SearchSpace.repair` for ``knobs`` under ``ctx`` (:meth:`SearchSpace.context`).

    ``ctx`` entries may be arrays aligned with the values (one job's context per row), so
    many jobs with the same knobs are repaired in one pass: every operation is elementwise,
    so each row gets exactly the values its own job's repair gives. ``hadoop1`` must stay a
    scalar (it selects a rule), as must the heap flags when a container size is searched.
    """
    v = {k: np.asarray(values[k], dtype=np.float64).copy() for k in values}
    for k in knobs:
        if k.name in v and k.kind in {"int", "float"}:
            v[k.name] = clip_valid(k, v[k.name])
            if k.kind == "int":
                v[k.name] = np.round(v[k.name])
    for c in CONSTRAINTS:
        v = c.repair(v, ctx)  # type: ignore[arg-type]
    for k in knobs:
        if k.name in v and k.kind == "int":
            v[k.name] = np.floor(v[k.name])
    return v


def feasible_values(knobs: list[Knob], values: Values, ctx: Context) -> np.ndarray:
    """:meth:`SearchSpace.feasible` for ``knobs`` under ``ctx`` (scalars or per-row arrays,
    as in :func:`repair_values`)."""
    v = {k: np.asarray(values[k], dtype=np.float64) for k in values}
    ok = np.ones(len(next(iter(v.values()))), dtype=bool)
    for k in knobs:
        if k.name in v and k.kind in {"int", "float"}:
            ok &= within_valid(k, v[k.name])
    for c in CONSTRAINTS:
        ok &= c.check(v, ctx)  # type: ignore[arg-type]
    return ok
