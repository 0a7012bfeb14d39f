"""Exhaustive search: the vectorised model over the knobs' grids (DESIGN decision 6).

Where the model makes settings independent, the grid is reduced *exactly* (no configuration
that could be optimal is dropped):

* **Job output codec** (``mapreduce.output.fileoutputformat.compress.codec``). The model reads
  it in one place only, the Write phase (reduce task, or map task of a map-only job), whose
  time is ``output bytes × (ratio × hdfs_write + compress ns/byte)``; output bytes do not
  depend on the codec, and the job time and container GB-seconds are non-decreasing in the
  Write time (it adds to the task time and, through it, to every later stage:
  :func:`mrtune.costmodel.predict_job`). So the codec with the smallest per-byte coefficient is
  optimal for *every* other setting; it is found by evaluating the base configuration with
  each codec.
* **Combiner spill threshold** (``mapreduce.map.combine.minspills``). The model reads it only
  as the test ``spills >= minspills`` in the map merge (Hadoop ``MapTask.mergeParts``), and not
  at all when the combiner is off. For any number of spills the test has the same outcome for
  some grid value as for the smallest or for the largest grid value, so with the combiner on
  only those two are enumerated, with it off only the current value.

Where independence does **not** hold, the grid is not split: the map task reads the number of
reducers (partitions: sort comparisons ``n·log2(n/R)``, IFile markers, index bytes) and the
map codec and sort factor are read by both sides; the reduce side depends on the map side
through the per-reducer segment (records, raw records, pair width), the number of maps, and the
map task time (slow-start overlap, waves). Only the reduce-side buffer knobs
(``shuffle.input.buffer.percent``, ``shuffle.merge.percent``, ``shuffle.memory.limit.percent``,
``reduce.input.buffer.percent``) act purely inside the reduce task, and the job's cost is
non-decreasing in that task's shuffle time and in its post-shuffle time; that gives Pareto
fronts, not a separable optimum, so it is not used to cut the grid.

After the exact reductions the strategy enumerates the **full product** in chunks when it has
at most ``max_product`` configurations: the answer is then the true optimum on the grid.
Above that (the full registry on a job with a reduce phase has ~10^11 grid points, beyond any
vectorised enumeration) it runs **block-coordinate descent on the grid** from the best points
of a random screening: the map-internal block (sort buffer, spill percent, combiner, map
codec, split size), the reduce-internal block (the four buffer percents with the reducer
count) and the coupling block (split size, reducers, map codec, combiner, sort factor,
slow-start), each enumerated in full given the rest, then every pair of knobs, until nothing
improves. The result is optimal for every block and every pair of knobs, but not certified
globally; ``notes`` says which mode ran.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mrtune.optimizer.strategies._base import (
    BaseStrategy,
    Row,
    SearchOutcome,
    Values,
    as_values,
    concat,
    current_row,
    grid_of,
    row_of,
    snap_to_grid,
    take,
)
from mrtune.optimizer.strategies._grid_tools import (
    CHUNK,
    block_descent,
    distinct_best,
    evaluate_feasible,
    iter_product,
    pair_blocks,
    product_size,
    random_grid_points,
)
from mrtune.search_spaces.knobs import Role, knob_with_role

if TYPE_CHECKING:
    from mrtune.optimizer.objective import Objective
    from mrtune.search_spaces import SearchSpace


def _role_name(role: Role) -> str:
    knob = knob_with_role(role)
    assert knob is not None, role
    return knob.name


#: The knobs whose grids are reduced exactly (found by their role in the registry).
OUT_CODEC = _role_name(Role.output_codec)
COMBINER = _role_name(Role.combiner)
MIN_SPILLS = _role_name(Role.combine_threshold)

#: Knobs read only inside the map task (other than through partitions / codec / sort factor).
MAP_BLOCK = (
    "mapreduce.task.io.sort.mb",
    "mapreduce.map.sort.spill.percent",
    "io.sort.record.percent",
    MIN_SPILLS,
    COMBINER,
    "mapreduce.map.output.compress.codec",
    "mapreduce.input.fileinputformat.split.maxsize",
)
#: Knobs read only inside the reduce task, with the reducer count that sizes its segments.
REDUCE_BLOCK = (
    "mapreduce.reduce.shuffle.input.buffer.percent",
    "mapreduce.reduce.shuffle.merge.percent",
    "mapreduce.reduce.shuffle.memory.limit.percent",
    "mapreduce.reduce.input.buffer.percent",
    "mapreduce.reduce.shuffle.parallelcopies",
    "mapreduce.job.reduces",
)
#: Knobs that couple the two sides and the job-level schedule.
CORE_BLOCK = (
    "mapreduce.input.fileinputformat.split.maxsize",
    "mapreduce.job.reduces",
    "mapreduce.map.output.compress.codec",
    COMBINER,
    "mapreduce.task.io.sort.factor",
    "mapreduce.job.reduce.slowstart.completedmaps",
    "mapreduce.map.memory.mb",
    "mapreduce.reduce.memory.mb",
)
#: Default largest block product enumerated at once in block mode.
BLOCK_LIMIT = 400_000


class ExhaustiveStrategy(BaseStrategy):
    """The optimum on the knobs' grids by full enumeration, or block descent when too large.

    Args:
        max_product: largest number of grid configurations (after the exact reductions) that
            is enumerated in full; above it, block-coordinate descent runs (see the module
            docstring).
        n_screen: random grid points screened for the starts of block descent.
        n_starts: distinct starts of block descent.
        chunk: configurations per call of the cost model.
        block_limit: largest block product enumerated at once in block mode (knobs are
            dropped from the end of a larger block; the pair sweep still covers them).
    """

    name = "exhaustive"
    default_trials = 1

    def __init__(
        self,
        *,
        max_product: int = 3_000_000,
        n_screen: int = 50_000,
        n_starts: int = 4,
        chunk: int = CHUNK,
        block_limit: int = BLOCK_LIMIT,
    ) -> None:
        if max_product < 0 or n_screen < 1 or n_starts < 1 or chunk < 1:
            raise ValueError(
                f"invalid settings: {max_product=}, {n_screen=}, {n_starts=}, {chunk=}"
            )
        self.max_product = max_product
        self.n_screen = n_screen
        self.n_starts = n_starts
        self.chunk = chunk
        self.block_limit = block_limit

    # ------------------------------------------------------------------ reductions
    def reduced_grids(
        self, space: SearchSpace, objective: Objective
    ) -> tuple[list[dict[str, np.ndarray]], list[str]]:
        """The exactly reduced grid as a union of products, and what was reduced."""
        grids = grid_of(space)
        cur = current_row(space)
        notes: list[str] = []
        if OUT_CODEC in grids and len(grids[OUT_CODEC]) > 1:
            codes = grids[OUT_CODEC]
            probe = {n: np.full(len(codes), cur[n]) for n in space.names}
            probe[OUT_CODEC] = codes
            cost, _ = evaluate_feasible(space, objective, probe)
            ties = codes[cost <= cost.min()]
            best = cur[OUT_CODEC] if cur[OUT_CODEC] in ties else float(ties[0])
            grids[OUT_CODEC] = np.array([best])
            notes.append("output codec fixed to its cheapest per-byte cost (exact)")
        subgrids = [grids]
        if MIN_SPILLS in grids:
            ms = grids[MIN_SPILLS]
            two = np.unique([ms.min(), ms.max()])
            if COMBINER in grids:
                off = dict(
                    grids, **{COMBINER: np.array([0.0]), MIN_SPILLS: np.array([cur[MIN_SPILLS]])}
                )
                on = dict(grids, **{COMBINER: np.array([1.0]), MIN_SPILLS: two})
                subgrids = [off, on]
            elif cur.get(COMBINER, 1.0) > 0.5:
                subgrids = [dict(grids, **{MIN_SPILLS: two})]
            else:
                subgrids = [dict(grids, **{MIN_SPILLS: np.array([cur[MIN_SPILLS]])})]
            notes.append("combine.minspills reduced to its two outcome classes (exact)")
        return subgrids, notes

    # ------------------------------------------------------------------ search
    def _search(
        self,
        space: SearchSpace,
        objective: Objective,
        *,
        n_trials: int,
        seed: int | None,
    ) -> SearchOutcome:
        subgrids, notes = self.reduced_grids(space, objective)
        total = sum(product_size(g) for g in subgrids)
        history: list[float] = []
        if total <= self.max_product:
            best_row, best_cost, feasible = self._enumerate(space, objective, subgrids, history)
            notes.append(
                f"exact: full product of {total} grid configurations ({feasible} feasible)"
            )
        else:
            best_row, best_cost = self._block_mode(space, objective, subgrids, seed, history)
            notes.append(
                f"block-coordinate descent on the grid ({total:.3g} grid configurations exceed "
                f"max_product={self.max_product}): optimal for every block and every pair of "
                "knobs, not certified globally"
            )
        best_row, best_cost = self._prefer_current(space, objective, best_row, best_cost)
        history.append(best_cost)
        return SearchOutcome(best_values=best_row, history=history, notes="; ".join(notes))

    def _enumerate(
        self,
        space: SearchSpace,
        objective: Objective,
        subgrids: list[dict[str, np.ndarray]],
        history: list[float],
    ) -> tuple[Row, float, int]:
        best_cost = np.inf
        best_row: Row = current_row(space)
        feasible = 0
        for grids in subgrids:
            for chunk in iter_product(grids, self.chunk):
                cost, ok = evaluate_feasible(space, objective, chunk)
                feasible += int(ok.sum())
                i = int(np.argmin(cost))
                if cost[i] < best_cost:
                    best_cost = float(cost[i])
                    best_row = row_of(chunk, i)
                history.append(best_cost)
        return best_row, best_cost, feasible

    def _block_mode(
        self,
        space: SearchSpace,
        objective: Objective,
        subgrids: list[dict[str, np.ndarray]],
        seed: int | None,
        history: list[float],
    ) -> tuple[Row, float]:
        rng = np.random.default_rng(seed)
        # One grid covering every subgrid (union of each knob's values); infeasible or
        # redundant combinations cost a little, never correctness.
        grids = {n: np.unique(np.concatenate([g[n] for g in subgrids])) for n in subgrids[0]}
        sizes = np.array([product_size(g) for g in subgrids], dtype=np.float64)
        counts = np.maximum(1, np.round(self.n_screen * sizes / sizes.sum())).astype(int)
        screen = concat(
            [random_grid_points(g, int(c), rng) for g, c in zip(subgrids, counts, strict=True)]
            + [as_values([snap_to_grid(space, current_row(space))])]
        )
        screen = {n: screen[n] for n in grids}
        cost, _ = evaluate_feasible(space, objective, screen)
        idx = distinct_best(screen, cost, self.n_starts)
        starts, start_cost = take(screen, idx), cost[idx]
        history.append(float(start_cost.min()))
        names = list(grids)
        blocks = [
            self._fit_block([n for n in block if n in grids and len(grids[n]) > 1], grids)
            for block in (MAP_BLOCK, REDUCE_BLOCK, CORE_BLOCK)
        ]
        blocks = [b for b in blocks if b]
        single = [[n] for n in names if len(grids[n]) > 1]
        pairs = pair_blocks([n for n in names if len(grids[n]) > 1])
        pts, pcost = starts, start_cost
        for _ in range(10):
            before = pcost.copy()
            pts, pcost = block_descent(
                space, objective, pts, pcost, grids, blocks + single, history=history
            )
            pts, pcost = block_descent(
                space, objective, pts, pcost, grids, pairs, max_cycles=1, history=history
            )
            if np.all(pcost >= before * (1.0 - 1e-12)):
                break
        i = int(np.argmin(pcost))
        return row_of(pts, i), float(pcost[i])

    def _fit_block(self, block: list[str], grids: dict[str, np.ndarray]) -> list[str]:
        while block and product_size({n: grids[n] for n in block}) > self.block_limit:
            block = block[:-1]
        return block

    @staticmethod
    def _prefer_current(
        space: SearchSpace, objective: Objective, row: Row, cost: float
    ) -> tuple[Row, float]:
        """Put knobs back to their current value wherever that costs nothing (ties)."""
        cur = current_row(space)
        row = dict(row)
        for name in space.names:
            if row[name] == cur[name]:
                continue
            trial = dict(row, **{name: cur[name]})
            values: Values = as_values([trial])
            c, ok = evaluate_feasible(space, objective, values)
            if ok[0] and c[0] <= cost:
                row, cost = trial, float(c[0])
        return row, cost
