"""Vectorised helpers over the knobs' grids: random grid points, chunked products, block descent.

The exhaustive strategy (:func:`block_descent`, one model call per block) and the default
warm-started TPE (:func:`jacobi_descent`, one model call per cycle for all blocks) share these. Every evaluation goes
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


def raise_no_feasible(space: SearchSpace) -> None:
    """One line when no configuration the search may offer can run: not the current one (its
    container is above what the cluster grants) nor any grid point (the smallest container
    the search offers is larger still), e.g. ``yarn.scheduler.maximum-allocation-mb`` 256."""
    from mrtune.errors import InputError

    limit = space.cluster.container_limit_mb()
    raise InputError(
        "no configuration the search can offer runs on this cluster: containers up to "
        f"{limit} MB ({space.cluster.container_limit_reason()}), and neither the job's own "
        "containers nor any the search may offer fit",
        field="--cluster",
        allowed="a cluster that grants the job's containers, --allow-memory (if containers "
        "of 512 MB or more fit), or the job's memory settings replayed at a size it grants "
        "(--conf)",
    )


def ensure_runnable(space: SearchSpace) -> None:
    """Refuse, before any search, a cluster on which the job's containers cannot run and the
    search could not offer one that does (:func:`raise_no_feasible`)."""
    cl, b = space.cluster, space.base
    if cl.local_mode or b.hadoop_version == 1:
        return
    limit = cl.container_limit_mb()
    if max(b.map_container_mb, b.reduce_container_mb) <= limit:
        return
    lows = [float(k.low) for k in space.knobs if k.container_memory and k.low is not None]
    if not lows or min(lows) > limit:
        raise_no_feasible(space)


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


def jacobi_descent(
    space: SearchSpace,
    objective: Objective,
    starts: Values,
    start_costs: np.ndarray,
    blocks: Sequence[Mapping[str, np.ndarray]],
    *,
    max_cycles: int = 30,
) -> tuple[Values, np.ndarray, int]:
    """Block-coordinate descent with **one model call per cycle** (Jacobi-style).

    :func:`block_descent` sweeps the blocks one after another (Gauss-Seidel), one call of the
    model per block; the fixed cost of a call (~0.4-1.5 ms) then dominates for the small
    blocks of a polish. Here every start's candidates for *every* block (each block's grid
    product, the other knobs at the start's values) go through the model in a single call;
    each start then takes its best move. So that several blocks can move per cycle, the next
    call also scores the *combined* move: the best improving move of every block, applied
    together in order of gain (a block sharing a knob with an applied one is skipped). Cycles
    stop when no start improves. A block is ``{knob: its values}``; its moves are the product
    of those values. Returns the final points, their costs and the cycles run.
    """
    cur = {n: np.asarray(v, dtype=np.float64).copy() for n, v in starts.items()}
    cost = np.asarray(start_costs, dtype=np.float64).copy()
    combos = [next(iter_product(b, chunk=product_size(b))) for b in blocks]
    sizes = np.array([len(next(iter(c.values()))) for c in combos], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    m = int(offsets[-1])
    if m == 0 or not len(cost):  # nothing to move (every knob has a single value)
        return cur, cost, 0
    # Only the starts that moved in the last cycle are scored again: a start that did not
    # move would see the very same candidates, so it has converged.
    active = np.arange(len(cost))
    combined: Values | None = None
    cycles = 0
    for cycles in range(1, max_cycles + 1):  # noqa: B007
        s = len(active)
        width = m + (1 if combined is not None else 0)
        cand = {n: np.repeat(v[active], width).reshape(s, width) for n, v in cur.items()}
        for b, block in enumerate(blocks):
            lo, hi = offsets[b], offsets[b + 1]
            for n in block:
                cand[n][:, lo:hi] = combos[b][n]
        if combined is not None:
            for n in cur:
                cand[n][:, m] = combined[n]
        c, _ = evaluate_feasible(space, objective, {n: v.ravel() for n, v in cand.items()})
        c = c.reshape(s, width)
        j = np.argmin(c, axis=1)
        best = c[np.arange(s), j]
        better = best < cost[active] * (1.0 - 1e-12)
        if not better.any():
            break
        old = {n: v[active] for n, v in cur.items()}
        old_cost = cost[active]
        new = {n: np.where(better, cand[n][np.arange(s), j], old[n]) for n in cur}
        for n in cur:
            cur[n][active] = new[n]
        cost[active] = np.where(better, best, old_cost)
        keep = np.nonzero(better)[0]
        combined = _combined_move(
            {n: v[keep] for n, v in new.items()},
            {n: v[keep] for n, v in old.items()},
            old_cost[keep],
            c[keep, :m],
            offsets,
            combos,
            blocks,
        )
        active = active[keep]
    return cur, cost, cycles


def _combined_move(
    cur: Values,
    old: Values,
    old_cost: np.ndarray,
    c: np.ndarray,
    offsets: np.ndarray,
    combos: Sequence[Values],
    blocks: Sequence[Mapping[str, np.ndarray]],
) -> Values:
    """Per start: its new point plus every other block's best move from the old point that
    gained (best gain first, blocks sharing a knob with an applied one skipped)."""
    s = len(old_cost)
    nb = len(blocks)
    block_best = np.full((s, nb), np.inf)
    block_arg = np.zeros((s, nb), dtype=np.int64)
    for b in range(nb):
        seg = c[:, offsets[b] : offsets[b + 1]]
        block_arg[:, b] = np.argmin(seg, axis=1)
        block_best[:, b] = seg[np.arange(s), block_arg[:, b]]
    out = {n: v.copy() for n, v in cur.items()}
    order = np.argsort(block_best, axis=1, kind="stable")
    for i in range(s):
        moved = {n for n in cur if cur[n][i] != old[n][i]}
        for b in order[i]:
            if not block_best[i, b] < old_cost[i] * (1.0 - 1e-12):
                break
            block = blocks[b]
            if moved.intersection(block):
                continue
            for n in block:
                out[n][i] = combos[b][n][block_arg[i, b]]
            moved.update(block)
    return out


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
