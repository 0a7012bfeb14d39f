"""Constraints between settings, as vectorised checks (DESIGN decision 9).

Each :class:`Constraint` evaluates a boolean mask over arrays of knob values (feasible = True)
and can *repair* values into the feasible region, so that every strategy, including the ones that
sample a unit cube, only ever proposes configurations Hadoop will accept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Values = dict[str, np.ndarray]

#: Share of the map heap the sort buffer may take: Hadoop itself only requires io.sort.mb to fit
#: in the heap (``MapOutputBuffer`` fails otherwise), but the map function needs room too.
SORT_BUFFER_HEAP_SHARE = 0.8
#: Smallest gap kept between the single-shuffle limit and the merge percent when repairing.
SHUFFLE_PERCENT_GAP = 0.01


@dataclass(frozen=True)
class Constraint:
    """A named rule with a vectorised check and a vectorised repair."""

    name: str
    description: str
    check: Callable[[Values, dict[str, float]], np.ndarray]
    repair: Callable[[Values, dict[str, float]], Values]


def _map_heap_mb(v: Values, ctx: dict[str, float]) -> np.ndarray:
    if "mapreduce.map.memory.mb" in v and not ctx.get("explicit_map_xmx"):
        return np.ceil(v["mapreduce.map.memory.mb"] * ctx["heap_ratio"])
    return np.full_like(next(iter(v.values())), ctx["map_heap_mb"], dtype=np.float64)


def _sort_check(v: Values, ctx: dict[str, float]) -> np.ndarray:
    if "mapreduce.task.io.sort.mb" not in v:
        return np.ones_like(next(iter(v.values())), dtype=bool)
    return v["mapreduce.task.io.sort.mb"] <= np.floor(
        SORT_BUFFER_HEAP_SHARE * _map_heap_mb(v, ctx)
    )


def _sort_repair(v: Values, ctx: dict[str, float]) -> Values:
    if "mapreduce.task.io.sort.mb" in v:
        cap = np.maximum(np.floor(SORT_BUFFER_HEAP_SHARE * _map_heap_mb(v, ctx)), 1.0)
        v["mapreduce.task.io.sort.mb"] = np.minimum(v["mapreduce.task.io.sort.mb"], cap)
    return v


def _limit_of(v: Values, ctx: dict[str, float], key: str, default_key: str) -> np.ndarray:
    if key in v:
        return v[key]
    return np.full_like(next(iter(v.values())), ctx[default_key], dtype=np.float64)


def _shuffle_check(v: Values, ctx: dict[str, float]) -> np.ndarray:
    lim = _limit_of(v, ctx, "mapreduce.reduce.shuffle.memory.limit.percent", "shuffle_limit")
    mer = _limit_of(v, ctx, "mapreduce.reduce.shuffle.merge.percent", "shuffle_merge")
    return (lim < mer) | (ctx.get("hadoop1", 0.0) > 0)


def _shuffle_repair(v: Values, ctx: dict[str, float]) -> Values:
    if ctx.get("hadoop1", 0.0) > 0:
        return v
    key_l = "mapreduce.reduce.shuffle.memory.limit.percent"
    key_m = "mapreduce.reduce.shuffle.merge.percent"
    mer = _limit_of(v, ctx, key_m, "shuffle_merge")
    if key_l in v:
        v[key_l] = np.minimum(v[key_l], mer - SHUFFLE_PERCENT_GAP)
    elif key_m in v:
        v[key_m] = np.maximum(v[key_m], ctx["shuffle_limit"] + SHUFFLE_PERCENT_GAP)
    return v


def _container_check(v: Values, ctx: dict[str, float]) -> np.ndarray:
    ok = np.ones_like(next(iter(v.values())), dtype=bool)
    for key in ("mapreduce.map.memory.mb", "mapreduce.reduce.memory.mb"):
        if key in v:
            ok &= v[key] <= ctx["node_memory_mb"]
    return ok


def _container_repair(v: Values, ctx: dict[str, float]) -> Values:
    for key in ("mapreduce.map.memory.mb", "mapreduce.reduce.memory.mb"):
        if key in v:
            v[key] = np.minimum(v[key], ctx["node_memory_mb"])
    return v


CONSTRAINTS: tuple[Constraint, ...] = (
    Constraint(
        "sort-buffer-fits-heap",
        f"mapreduce.task.io.sort.mb <= 2047 and <= {SORT_BUFFER_HEAP_SHARE:.0%} of the map heap",
        _sort_check,
        _sort_repair,
    ),
    Constraint(
        "single-shuffle-below-merge",
        "mapreduce.reduce.shuffle.memory.limit.percent < mapreduce.reduce.shuffle.merge.percent "
        "(MergeManagerImpl refuses maxSingleShuffleLimit >= mergeThreshold)",
        _shuffle_check,
        _shuffle_repair,
    ),
    Constraint(
        "container-fits-node",
        "container memory <= yarn.nodemanager.resource.memory-mb",
        _container_check,
        _container_repair,
    ),
)
