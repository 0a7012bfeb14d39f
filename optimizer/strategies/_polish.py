"""Vectorised screening and polish: the warm start of the default strategy.

Random points of the knobs' grids go through the cost model in one call; the best few are then
improved by coordinate descent over single knobs and coupled blocks, Jacobi-style (every start's
moves of every block in one model call per cycle, :func:`jacobi_descent`), first on the
registry grids, then on finer grids over each knob's whole range, then on narrowing local
grids (:func:`zoom`). The resulting configurations are enqueued as the
first trials of the TPE study (:class:`~mrtune.optimizer.strategies.TPEStrategy`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

from mrtune.optimizer.strategies._base import (
    current_row,
    grid_of,
    row_of,
    snap_to_grid,
    take,
)
from mrtune.optimizer.strategies._grid_tools import (
    distinct_best,
    evaluate_feasible,
    jacobi_descent,
    raise_no_feasible,
    random_grid_points,
)
from mrtune.search_spaces.knobs import Role

if TYPE_CHECKING:
    from mrtune.optimizer.objective import Objective
    from mrtune.search_spaces import SearchSpace


def knob_distributions(space: SearchSpace) -> dict[str, BaseDistribution]:
    """One Optuna distribution per knob over its search range, in the knob's own values.

    Codec knobs are categorical over codec names (``none``, ``snappy`` …) and the combiner
    switch over ``False``/``True``, so a stored study shows settings, not integer codes
    (:meth:`Knob.decode` / :meth:`Knob.encode` convert). The sort buffer is capped at its share
    of the map heap when the map container is fixed, so that the sampler does not waste trials
    on values the repair would all move to the cap.
    """
    dists: dict[str, BaseDistribution] = {}
    cap = space.sort_buffer_cap_mb()
    for k in space.knobs:
        if k.kind == "bool":
            dists[k.name] = CategoricalDistribution((False, True))
        elif k.kind == "categorical":
            dists[k.name] = CategoricalDistribution(k.choices)
        elif k.kind == "int":
            high = int(k.high)  # type: ignore[arg-type]
            if cap is not None and k.role == Role.sort_buffer:
                high = max(int(k.low), min(high, int(cap)))  # type: ignore[arg-type]
            dists[k.name] = IntDistribution(int(k.low), high, log=k.log)  # type: ignore[arg-type]
        else:
            lo, hi = float(k.low), float(k.high)  # type: ignore[arg-type]
            dists[k.name] = FloatDistribution(lo, hi, log=k.log and lo > 0)
    return dists


#: Pairs of knobs the model couples strongly (searched jointly by the grid polish).
COUPLED_PAIRS = (
    ("mapreduce.task.io.sort.mb", "mapreduce.map.sort.spill.percent"),
    ("mapreduce.task.io.sort.mb", "mapreduce.input.fileinputformat.split.maxsize"),
    ("mapreduce.input.fileinputformat.split.maxsize", "mapreduce.job.reduces"),
    ("mapreduce.job.reduces", "mapreduce.reduce.shuffle.input.buffer.percent"),
    ("mapreduce.reduce.shuffle.merge.percent", "mapreduce.reduce.shuffle.memory.limit.percent"),
    ("mapreduce.reduce.shuffle.input.buffer.percent", "mapreduce.reduce.input.buffer.percent"),
    ("mapreduce.job.combine.class", "mapreduce.map.combine.minspills"),
    ("mapreduce.map.output.compress.codec", "mapreduce.job.reduces"),
    ("mapreduce.task.io.sort.factor", "mapreduce.job.reduces"),
)
#: The reduce-side buffers, searched jointly on the registry grids: together they decide
#: whether map outputs stay in memory from shuffle to reduce (``MergeManagerImpl``: a larger
#: reduce input buffer only pays once the merge threshold and the single-shuffle limit let
#: the segments stay), which no single or pairwise move reaches.
REDUCE_BUFFERS = (
    "mapreduce.reduce.shuffle.input.buffer.percent",
    "mapreduce.reduce.shuffle.merge.percent",
    "mapreduce.reduce.shuffle.memory.limit.percent",
    "mapreduce.reduce.input.buffer.percent",
)


def fine_grids(
    space: SearchSpace, points: int, int_points: int | None = None
) -> dict[str, np.ndarray]:
    """Each knob's grid refined to ``points`` values over its whole range (``int_points`` for
    integer knobs, default ``points``; log scale where declared), plus its registry grid;
    categoricals and booleans keep all their values."""
    dists = knob_distributions(space)
    coarse = grid_of(space)
    out: dict[str, np.ndarray] = {}
    for k in space.knobs:
        d = dists[k.name]
        if isinstance(d, (IntDistribution, FloatDistribution)):
            lo, hi = float(d.low), float(d.high)
            m = int_points if int_points and isinstance(d, IntDistribution) else points
            if d.log and lo > 0:
                g = np.exp(np.linspace(np.log(lo), np.log(hi), m))
            else:
                g = np.linspace(lo, hi, m)
            if isinstance(d, IntDistribution):
                g = np.round(g)
            out[k.name] = np.unique(np.concatenate([g, coarse[k.name]]))
        else:
            out[k.name] = coarse[k.name]
    return out


def screen_and_polish(
    space: SearchSpace,
    objective: Objective,
    *,
    n_screen: int,
    n_keep: int,
    seed: int | None,
    n_fine: int = 8,
    n_finest: int = 4,
    fine_points: int = 64,
    int_points: int = 512,
    pair_points: int = 16,
) -> tuple[list[dict[str, float]], int]:
    """Random grid screening, then coordinate descent from the best points.

    Every descent is Jacobi-style (:func:`jacobi_descent`: all blocks' moves of all starts in
    one model call per cycle, ~25 calls in all instead of ~400 for one block per call), in
    stages of growing cost on fewer starts:

    1. single knobs on the registry grids from the ``n_keep`` best distinct screening points;
    2. single knobs, the coupled pairs (:data:`COUPLED_PAIRS`) and the reduce buffers
       (:data:`REDUCE_BUFFERS`) on the registry grids from the ``n_fine`` best;
    3. single knobs and pairs on finer grids over each knob's whole range (``fine_points``
       values per float knob, ``int_points`` per integer knob, the pairs at ``pair_points`` ×
       ``pair_points``) from the ``n_finest`` best, since the cost model often rewards values
       between grid points (the sort buffer that just holds one spill, the split size or
       reducer count that fills the last wave);
    4. :func:`zoom` around the best point.

    Returns the polished points, best first, and the evaluations spent.
    """
    before = objective.evaluations
    rng = np.random.default_rng(seed)
    grids = grid_of(space)
    pts = random_grid_points(grids, n_screen, rng)
    cur = snap_to_grid(space, current_row(space))
    pts = {n: np.append(pts[n], cur[n]) for n in grids}
    cost, _ = evaluate_feasible(space, objective, pts)
    if not np.isfinite(cost).any():
        raise_no_feasible(space)
    idx = distinct_best(pts, cost, n_keep)
    pts, cost = take(pts, idx), cost[idx]
    fine = fine_grids(space, fine_points, int_points)
    stages = (
        (n_keep, _blocks(space, grids, grids, 0, ())),
        (n_fine, _blocks(space, grids, grids, 4096, (*COUPLED_PAIRS, REDUCE_BUFFERS))),
        (n_finest, _blocks(space, fine, fine_grids(space, pair_points), 4096)),
    )
    for n_starts, blocks in stages:
        order = distinct_best(pts, cost, len(cost))  # lowest cost first, duplicates dropped
        pts, cost = take(pts, order), cost[order]
        head, head_cost, _ = jacobi_descent(
            space, objective, take(pts, slice(0, n_starts)), cost[:n_starts], blocks
        )
        for n in pts:
            pts[n][:n_starts] = head[n]
        cost[:n_starts] = head_cost
    first = int(np.argmin(cost))
    rows = [zoom(space, objective, row_of(pts, first), float(cost[first]), fine_points)]
    rows += [row_of(pts, int(i)) for i in np.argsort(cost, kind="stable") if i != first]
    return rows, objective.evaluations - before


def _blocks(
    space: SearchSpace,
    single: Mapping[str, np.ndarray],
    joint: Mapping[str, np.ndarray],
    max_joint: int,
    coupled: Sequence[tuple[str, ...]] = COUPLED_PAIRS,
) -> list[dict[str, np.ndarray]]:
    """Blocks for :func:`jacobi_descent`: every knob with more than one value in ``single``,
    and each block of ``coupled`` over ``joint`` (up to ``max_joint`` combinations)."""
    blocks = [{n: single[n]} for n in space.names if n in single and len(single[n]) > 1]
    for names in coupled:
        if all(n in joint and len(joint[n]) > 1 for n in names):
            if math.prod(len(joint[n]) for n in names) <= max_joint:
                blocks.append({n: joint[n] for n in names})
    return blocks


def zoom(
    space: SearchSpace,
    objective: Objective,
    row: dict[str, float],
    cost: float,
    fine_points: int,
    *,
    rounds: int = 4,
    points: int = 33,
) -> dict[str, float]:
    """Refine the numeric knobs of ``row`` on ever narrower local grids around it.

    Round ``r`` sweeps each numeric knob (and each coupled pair, 9 × 9) over ``points`` values
    within ``±2 · 4^-r`` steps of the fine grid around the current value (log scale where
    declared), so that a value between two fine-grid points is found to ~0.1% of its range.
    Each round is one :func:`jacobi_descent` (one model call per cycle).
    """
    dists = knob_distributions(space)
    numeric = {
        n: d for n, d in dists.items() if isinstance(d, (IntDistribution, FloatDistribution))
    }
    step = 1.0 / max(fine_points - 1, 1)
    best = {n: np.array([v]) for n, v in row.items()}
    best_cost = np.array([cost])
    for r in range(rounds):
        half = 2.0 * step * 4.0**-r
        local = {n: np.array([row[n]]) for n in space.names}
        local_pair = dict(local)
        for n, d in numeric.items():
            local[n] = _local_grid(d, row[n], half, points)
            local_pair[n] = _local_grid(d, row[n], half, 9)
        best, best_cost, _ = jacobi_descent(
            space, objective, best, best_cost, _blocks(space, local, local_pair, 81)
        )
        row = row_of(best, 0)
    return row


def _local_grid(dist: BaseDistribution, value: float, half: float, points: int) -> np.ndarray:
    """``points`` values within ``half`` (a share of the range) of ``value``."""
    assert isinstance(dist, (IntDistribution, FloatDistribution))
    lo, hi = float(dist.low), float(dist.high)
    if dist.log and lo > 0:
        t0, tlo, thi = math.log(max(value, lo)), math.log(lo), math.log(hi)
        t = np.clip(t0 + np.linspace(-half, half, points) * (thi - tlo), tlo, thi)
        g = np.exp(t)
    else:
        g = np.clip(value + np.linspace(-half, half, points) * (hi - lo), lo, hi)
    if isinstance(dist, IntDistribution):
        g = np.round(g)
    return np.unique(np.append(np.clip(g, lo, hi), value))
