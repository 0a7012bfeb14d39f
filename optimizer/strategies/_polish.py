"""Vectorised screening and polish: the warm start of the default strategy.

Random points of the knobs' grids go through the cost model in one call; the best few are then
improved by coordinate descent over single knobs and coupled pairs (every start in one model
call per block), first on the registry grids, then on finer grids over each knob's whole range,
then on narrowing local grids (:func:`zoom`). The resulting configurations are enqueued as the
first trials of the TPE study (:class:`~mrtune.optimizer.strategies.TPEStrategy`).
"""

from __future__ import annotations

import math
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
    block_descent,
    distinct_best,
    evaluate_feasible,
    product_size,
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
    fine_points: int = 64,
    int_points: int = 512,
    pair_points: int = 16,
) -> tuple[list[dict[str, float]], int]:
    """Random grid screening, then coordinate descent from the best ``n_keep`` points.

    The descent runs on the registry grids first (single knobs, then the coupled pairs), then
    on finer grids over each knob's whole range (``fine_points`` values per float knob,
    ``int_points`` per integer knob, the coupled pairs at ``pair_points`` × ``pair_points``),
    since the cost model often rewards values between grid points (the sort buffer that just
    holds one spill, the split size or reducer count that fills the last wave), and last
    :func:`zoom` around the best point.
    """
    before = objective.evaluations
    rng = np.random.default_rng(seed)
    grids = grid_of(space)
    pts = random_grid_points(grids, n_screen, rng)
    cur = snap_to_grid(space, current_row(space))
    pts = {n: np.append(pts[n], cur[n]) for n in grids}
    cost, _ = evaluate_feasible(space, objective, pts)
    idx = distinct_best(pts, cost, n_keep)
    best, best_cost = take(pts, idx), cost[idx]
    fine = fine_grids(space, fine_points, int_points)
    fine_pair = fine_grids(space, pair_points)
    for g, gp in ((grids, grids), (fine, fine_pair)):
        names = [n for n in space.names if len(g[n]) > 1]
        pairs = [
            list(p)
            for p in COUPLED_PAIRS
            if p[0] in names and p[1] in names and product_size({n: gp[n] for n in p}) <= 4096
        ]
        singles = [[n] for n in names]
        best, best_cost = block_descent(space, objective, best, best_cost, g, singles)
        for _ in range(4):
            before_cost = best_cost.copy()
            best, best_cost = block_descent(
                space, objective, best, best_cost, gp, pairs, max_cycles=1
            )
            best, best_cost = block_descent(space, objective, best, best_cost, g, singles)
            if np.all(best_cost >= before_cost * (1.0 - 1e-12)):
                break
    order = np.argsort(best_cost, kind="stable")
    rows = [row_of(best, int(i)) for i in order]
    rows[0] = zoom(space, objective, rows[0], float(best_cost[order[0]]), fine_points)
    return rows, objective.evaluations - before


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
        singles = [[n] for n in numeric if len(local[n]) > 1]
        pairs = [list(p) for p in COUPLED_PAIRS if p[0] in numeric and p[1] in numeric]
        best, best_cost = block_descent(
            space, objective, best, best_cost, local_pair, pairs, max_cycles=1
        )
        best, best_cost = block_descent(space, objective, best, best_cost, local, singles)
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
