"""Lean coordinate descent on the knobs' grids: the strategy for many tiny searches.

A catalog of 24,442 jobs on two cores leaves a few ms of CPU per job, so this strategy
(registered as ``"descent"``) spends a handful of vectorised calls of the cost model per job
(DESIGN decision 5):

* From the job's current configuration, every *single-knob move* (each knob over its whole
  grid, :meth:`SearchSpace.grid`, plus its current value) and the joint grids of the coupled
  pairs of :data:`PLANES` (reducers × split size, reducers × slow-start, split size × sort
  buffer, reduce buffer percents) are evaluated in **one** call; the best move is taken.
* Once no such move gains, the blocks of :data:`POLISH_BLOCKS` (the three reduce buffer
  percents, sort buffer × spill threshold, split size × slow-start) are searched once, each
  over its grid product, all in one call, and the descent resumes if that gained. The next
  call also evaluates the *combined* move (every knob at its best single-move value), so
  several knobs can move per round. Rounds stop when no move gains (at most ``n_trials``).

Every configuration evaluated is on the grid and passes :meth:`SearchSpace.feasible`
(infeasible ones are never evaluated), so the result is one Hadoop accepts.

Besides :meth:`~BaseStrategy.optimize`, the strategy runs as a generator
(:meth:`DescentStrategy.steps`, :attr:`BaseStrategy.stepwise`): it yields each matrix of knob
values to cost and is sent back the costs, so that the batch tuner
(:func:`mrtune.optimizer.batch.tune_jobs`) runs many jobs' descents in lockstep with one
stacked model call per round, and each job gets exactly the result it gets alone.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from mrtune.optimizer.strategies._base import BaseStrategy, SearchOutcome

if TYPE_CHECKING:
    from mrtune.optimizer.objective import Objective
    from mrtune.search_spaces import SearchSpace

REDUCES = "mapreduce.job.reduces"
SPLIT = "mapreduce.input.fileinputformat.split.maxsize"
SORT_MB = "mapreduce.task.io.sort.mb"
SLOWSTART = "mapreduce.job.reduce.slowstart.completedmaps"
#: The reduce-side buffer knobs, searched as one block (their full grid product, one call)
#: once the descent has converged: together they decide whether map outputs stay in memory
#: from shuffle to reduce, which no single or pairwise move may reach.
REDUCE_BUFFERS = (
    "mapreduce.reduce.shuffle.input.buffer.percent",
    "mapreduce.reduce.shuffle.merge.percent",
    "mapreduce.reduce.input.buffer.percent",
)
#: Blocks searched once (all in one call) when single moves and planes stop gaining: the reduce
#: buffers, the sort buffer with its spill threshold (together they set the spills, reference
#: §3), and the split size with the slow-start point (map waves against reducer overlap).
POLISH_BLOCKS: tuple[tuple[str, ...], ...] = (
    REDUCE_BUFFERS,
    (SORT_MB, "mapreduce.map.sort.spill.percent"),
    (SPLIT, SLOWSTART),
)
#: Pairs of knobs moved jointly (their full grid product) in every round, because one alone
#: cannot reach the pair's optimum: the reducer count and split size set the task counts and so
#: the waves (reference §6.1); reducers launched at slow-start hold containers the maps can no
#: longer use, so their number and start point trade off together; a larger split only pays
#: with a sort buffer that holds its map output in few spills (reference §3); the reduce-side
#: buffer percents decide together what stays in memory between shuffle and reduce
#: (``MergeManagerImpl``: a larger reduce input buffer only pays once the in-memory merge
#: threshold lets the segments stay, reference §7).
PLANES: tuple[tuple[str, str], ...] = (
    (REDUCES, SPLIT),
    (REDUCES, SLOWSTART),
    (SPLIT, SORT_MB),
    ("mapreduce.reduce.shuffle.merge.percent", "mapreduce.reduce.input.buffer.percent"),
    ("mapreduce.reduce.shuffle.input.buffer.percent", "mapreduce.reduce.input.buffer.percent"),
)


def job_grids(space: SearchSpace, current: np.ndarray) -> list[np.ndarray]:
    """Each knob's grid for this job (:meth:`SearchSpace.grid`: the registry's grid plus
    job-aware values such as split sizes that make whole waves) plus its current value (so "no
    change" is always on the grid).

    ``io.sort.mb`` values above the heap cap are dropped (they are infeasible for this job's
    heap whatever the other knobs are, :mod:`mrtune.search_spaces.constraints`).
    """
    grids = [
        _with_value(space.grid(k), float(current[j]), k.kind) for j, k in enumerate(space.knobs)
    ]
    if SORT_MB in space.names:
        j = space.names.index(SORT_MB)
        probe = np.repeat(current[None, :], len(grids[j]), axis=0)
        probe[:, j] = grids[j]
        ok = space.feasible({n: probe[:, i] for i, n in enumerate(space.names)})
        grids[j] = grids[j][ok] if ok.any() else current[j : j + 1]
    return grids


def _with_value(grid: np.ndarray, value: float, kind: str) -> np.ndarray:
    """``np.union1d(grid, [value])`` for a numeric knob's grid (sorted and unique, as
    :meth:`SearchSpace.grid` returns it) without its sort: one insertion."""
    if kind not in {"int", "float"} or not np.isfinite(value):
        return np.union1d(grid, [value])
    i = int(np.searchsorted(grid, value))
    if i < len(grid) and grid[i] == value:
        return grid.astype(np.float64)
    return np.insert(grid.astype(np.float64), i, value)


@dataclass(frozen=True)
class _MoveGrid:
    """A job's grids, laid out once for :func:`_moves`: every knob's values end to end (with
    the knob each belongs to) and each plane's grid product."""

    values: np.ndarray
    knob: np.ndarray
    planes: tuple[tuple[int, int, np.ndarray, np.ndarray], ...]

    @classmethod
    def of(cls, grids: list[np.ndarray], names: list[str]) -> _MoveGrid:
        planes = []
        for a, b in PLANES:
            if a in names and b in names:
                ja, jb = names.index(a), names.index(b)
                va, vb = np.meshgrid(grids[ja], grids[jb], indexing="ij")
                planes.append((ja, jb, va.ravel(), vb.ravel()))
        if not grids:
            return cls(np.empty(0), np.empty(0, dtype=np.int64), tuple(planes))
        knob = np.repeat(np.arange(len(grids)), [len(g) for g in grids])
        return cls(np.concatenate(grids), knob, tuple(planes))


def _moves(x: np.ndarray, grid: _MoveGrid) -> tuple[np.ndarray, np.ndarray]:
    """Every single-knob move from ``x`` (each knob over its grid, in grid order) and the
    joint moves of :data:`PLANES`; rows and the knob index each row moves (-1 for a joint
    move)."""
    move = grid.values != x[grid.knob]
    which = [grid.knob[move]]
    rows = np.repeat(x[None, :], len(which[0]), axis=0)
    rows[np.arange(len(which[0])), which[0]] = grid.values[move]
    parts = [rows]
    for ja, jb, va, vb in grid.planes:
        keep = (va != x[ja]) & (vb != x[jb])
        rows = np.repeat(x[None, :], int(keep.sum()), axis=0)
        rows[:, ja] = va[keep]
        rows[:, jb] = vb[keep]
        parts.append(rows)
        which.append(np.full(len(rows), -1))
    return np.concatenate(parts), np.concatenate(which)


def _block(
    x: np.ndarray, grids: list[np.ndarray], names: list[str], block: tuple[str, ...]
) -> np.ndarray:
    """Every configuration that differs from ``x`` only in ``block`` (its full grid product)."""
    idx = [names.index(n) for n in block if n in names]
    if len(idx) < 2:
        return np.empty((0, len(x)))
    mesh = np.meshgrid(*[grids[j] for j in idx], indexing="ij")
    rows = np.repeat(x[None, :], mesh[0].size, axis=0)
    for j, m in zip(idx, mesh, strict=True):
        rows[:, j] = m.ravel()
    return rows


def current_vector(space: SearchSpace) -> np.ndarray:
    """The base configuration's encoded knob values (repaired, as every search starts)."""
    cur = space.current_values()
    vals = {k.name: np.array([k.encode(cur[k.name])]) for k in space.knobs}
    if not vals:
        return np.empty(0)
    rep = space.repair(vals)
    return np.array([float(rep[n][0]) for n in space.names])


#: What a step asks for: the knob-value rows to cost (columns in ``space.names`` order); it
#: is sent back their ``(cost, job_ms, gb_s)``, ``inf`` for rows Hadoop would refuse.
Costs = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass
class Descent:
    """Where a descent started and ended: the current configuration ``x0`` and the best point
    ``x`` (encoded values in ``space.names`` order) with their ``(cost, job_ms, gb_s)``."""

    x0: np.ndarray
    at0: tuple[float, float, float]
    x: np.ndarray
    at: tuple[float, float, float]
    grids: list[np.ndarray]
    rounds: int = 0
    history: list[float] = field(default_factory=list)


Steps = Generator[np.ndarray, Costs, Descent]


def descent_steps(space: SearchSpace, max_rounds: int) -> Steps:
    """The descent (module docstring) as a generator of the rows to cost."""
    names = space.names
    x0 = current_vector(space)
    grids = job_grids(space, x0)
    move_grid = _MoveGrid.of(grids, names)
    c0, t0, g0 = yield x0[None, :]
    if not np.isfinite(c0[0]):
        raise ValueError("the job's current configuration is infeasible for the cost model")
    x, cx, tx, gx = x0.copy(), float(c0[0]), float(t0[0]), float(g0[0])
    history = [cx]
    combined: np.ndarray | None = None
    rounds = 0
    polished = False
    for rounds in range(1, max_rounds + 1):  # noqa: B007
        cand, which = _moves(x, move_grid)
        if combined is not None and not np.array_equal(combined, x):
            cand = np.concatenate([cand, combined[None, :]])
            which = np.concatenate([which, [-2]])
        if not len(cand):
            break
        c, tj, gj = yield cand
        i = int(np.argmin(c))
        if not c[i] < cx * (1.0 - 1e-9):
            if polished:
                break
            # Converged for single moves and planes: try the polish blocks once.
            polished = True
            blocks = [_block(x, grids, names, b) for b in POLISH_BLOCKS]
            cand = np.concatenate(blocks) if blocks else np.empty((0, len(x)))
            if not len(cand):
                break
            c, tj, gj = yield cand
            i = int(np.argmin(c))
            if not c[i] < cx * (1.0 - 1e-9):
                break
            x, cx, tx, gx = cand[i].copy(), float(c[i]), float(tj[i]), float(gj[i])
            history.append(cx)
            combined = None
            continue
        # The combined move: every knob at its best improving single-move value.
        combined = cand[i].copy()
        for j in range(len(names)):
            sel = which == j
            if sel.any():
                k = int(np.argmin(np.where(sel, c, np.inf)))
                if c[k] < cx * (1.0 - 1e-9) and j != which[i]:
                    combined[j] = cand[k, j]
        x, cx, tx, gx = cand[i].copy(), float(c[i]), float(tj[i]), float(gj[i])
        history.append(cx)
    return Descent(
        x0=x0,
        at0=(float(c0[0]), float(t0[0]), float(g0[0])),
        x=x,
        at=(cx, tx, gx),
        grids=grids,
        rounds=rounds,
        history=history,
    )


class DescentStrategy(BaseStrategy):
    """Lean vectorised coordinate descent from the current configuration (module docstring).

    ``n_trials`` is the most descent rounds; ``seed`` is unused (the descent is deterministic).
    Suited to many small searches (a batch catalog): ~6 model calls per job, each of a few
    hundred configurations, and it runs in lockstep with other jobs' descents
    (:meth:`steps`).
    """

    name = "descent"
    default_trials = 12
    stepwise = True

    def steps(self, space: SearchSpace, *, n_trials: int) -> Steps:
        """The descent as a generator: yields rows to cost, is sent ``(cost, job_ms, gb_s)``,
        returns the :class:`Descent`."""
        return descent_steps(space, n_trials)

    def _search(
        self, space: SearchSpace, objective: Objective, *, n_trials: int, seed: int | None
    ) -> SearchOutcome:
        steps = self.steps(space, n_trials=n_trials)
        resources = str(objective.kind) == "resources"
        try:
            x = next(steps)
            while True:
                vals = {n: x[:, j] for j, n in enumerate(space.names)}
                ok = space.feasible(vals)
                job = np.full(len(x), np.inf)
                gbs = np.full(len(x), np.inf)
                if ok.any():
                    job[ok], gbs[ok] = objective.both({n: v[ok] for n, v in vals.items()})
                x = steps.send(((gbs if resources else job), job, gbs))
        except StopIteration as done:
            d: Descent = done.value
        best = {n: float(d.x[j]) for j, n in enumerate(space.names)}
        notes = (
            f"coordinate descent on the grids from the current configuration, {d.rounds} rounds"
        )
        return SearchOutcome(best_values=best, history=d.history, notes=notes)
