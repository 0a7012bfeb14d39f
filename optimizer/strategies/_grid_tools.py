"""Vectorised helpers over the knobs' grids: random grid points, chunked products, block descent.

The exhaustive strategy and the default (warm-started TPE) share these. Every evaluation goes
through the :class:`~mrtune.optimizer.objective.Objective` in large arrays (DESIGN decision 5);
infeasible grid combinations are filtered with :meth:`SearchSpace.feasible` *before* they are
evaluated, so nothing here relies on the repair moving a point off the grid.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from mrtune.optimizer.strategies._base import Values, take

if TYPE_CHECKING:
    from mrtune.optimizer.objective import Objective
    from mrtune.search_spaces import SearchSpace

#: Configurations per call of the cost model (memory stays ~100 MB per chunk).
CHUNK = 200_000


def product_size(grids: Mapping[str, np.ndarray]) -> int:
    return int(np.prod([len(g) for g in grids.values()], dtype=object))


def iter_product(grids: Mapping[str, np.ndarray], chunk: int = CHUNK) -> Iterator[Values]:
    """The full Cartesian product of ``grids`` in chunks (mixed-radix counting, no Python loop
    per configuration)."""
    names = list(grids)
    sizes = [len(grids[n]) for n in names]
    total = product_size(grids)
    for lo in range(0, total, chunk):
        idx = np.arange(lo, min(lo + chunk, total), dtype=np.int64)
        digits = np.unravel_index(idx, sizes)
        yield {n: grids[n][d] for n, d in zip(names, digits, strict=True)}


def random_grid_points(
    grids: Mapping[str, np.ndarray], n: int, rng: np.random.Generator
) -> Values:
    """``n`` configurations with every knob drawn uniformly from its grid."""
    return {name: g[rng.integers(0, len(g), size=n)] for name, g in grids.items()}


def evaluate_feasible(
    space: SearchSpace, objective: Objective, values: Values
) -> tuple[np.ndarray, np.ndarray]:
    """Costs of ``values`` (``inf`` where infeasible, those are not evaluated) and the mask."""
    ok = space.feasible(values)
    cost = np.full(len(ok), np.inf)
    if ok.any():
        cost[ok] = objective(take(values, ok))
    return cost, ok


def block_descent(
    space: SearchSpace,
    objective: Objective,
    starts: Values,
    start_costs: np.ndarray,
    grids: Mapping[str, np.ndarray],
    blocks: Sequence[Sequence[str]],
    *,
    max_cycles: int = 20,
    history: list[float] | None = None,
) -> tuple[Values, np.ndarray]:
    """Block-coordinate descent on the grid from several starts at once.

    For each block of knobs, every start is replaced by the best configuration that differs
    from it only in that block (the block's full grid product, all starts in one call of the
    model). Cycles over the blocks until a whole cycle improves no start. Returns the final
    points and their costs.
    """
    cur = {n: np.asarray(v, dtype=np.float64).copy() for n, v in starts.items()}
    cost = np.asarray(start_costs, dtype=np.float64).copy()
    s = len(cost)
    for _ in range(max_cycles):
        improved = False
        for block in blocks:
            sub = {n: grids[n] for n in block}
            size = product_size(sub)
            combos = next(iter_product(sub, chunk=size))
            cand = {n: np.repeat(cur[n], size) for n in cur}
            for n in block:
                cand[n] = np.tile(combos[n], s)
            c, _ = evaluate_feasible(space, objective, cand)
            c = c.reshape(s, size)
            j = np.argmin(c, axis=1)
            best = c[np.arange(s), j]
            better = best < cost * (1.0 - 1e-12)
            if better.any():
                improved = True
                rows = np.nonzero(better)[0]
                for n in block:
                    cur[n][rows] = combos[n][j[rows]]
                cost[rows] = best[rows]
            if history is not None:
                history.append(float(cost.min()))
        if not improved:
            break
    return cur, cost


def pair_blocks(names: Sequence[str]) -> list[list[str]]:
    """Every pair of knobs, as blocks (a 2-opt neighbourhood)."""
    return [list(p) for p in itertools.combinations(names, 2)]


def distinct_best(values: Values, costs: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` lowest-cost distinct configurations."""
    order = np.argsort(costs, kind="stable")
    seen: set[tuple[float, ...]] = set()
    out: list[int] = []
    names = list(values)
    for i in order:
        if not np.isfinite(costs[i]):
            break
        key = tuple(float(values[n][i]) for n in names)
        if key in seen:
            continue
        seen.add(key)
        out.append(int(i))
        if len(out) == k:
            break
    return np.array(out, dtype=np.int64)
