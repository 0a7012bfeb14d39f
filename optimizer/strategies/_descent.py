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

With ``region`` (the batch tuner's default, :func:`mrtune.optimizer.batch.tune_jobs`) the
moves stay inside ``optimize``'s trust region (:func:`region_grids`): every size or count within
×1/FAR–×FAR of the job's current value, the region's ends on the grid. The knobs' bounds are
not cut (every job of a stacked chunk is checked and repaired under the same knobs), only the
values the descent proposes.

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


def region_grids(
    space: SearchSpace, grids: list[np.ndarray], current: np.ndarray
) -> list[np.ndarray]:
    """``grids`` (:func:`job_grids`) with each log-scale knob's values within ×1/FAR–×FAR of its
    current one (:data:`mrtune.optimizer.trust.FAR`, the far-move rule), the region's ends
    added (integers rounded inwards) so the largest trusted step is on the grid, and cut to
    the grid's own range (the knob's bounds, the sort buffer's heap cap). A knob whose grid lies
    wholly outside keeps its current value only (:func:`~mrtune.optimizer.trust.trust_region`
    does the same to a space's bounds)."""
    from mrtune.optimizer.trust import far_span

    out = []
    for j, (k, g) in enumerate(zip(space.knobs, grids, strict=True)):
        a = float(current[j])
        if not k.log or not a > 0:
            out.append(g)
            continue
        lo, hi = far_span(a, k.kind)  # grid ends of an int knob are integers: cut after
        lo, hi = max(lo, float(g.min())), min(hi, float(g.max()))
        if lo > hi:
            out.append(np.array([a]))
            continue
        inside = g[(g >= lo) & (g <= hi)]
        out.append(np.union1d(inside, [lo, hi, a]))
    return out


def _with_value(grid: np.ndarray, value: float, kind: str) -> np.ndarray:
    """``np.union1d(grid, [value])`` for a numeric knob's grid (sorted and unique, as
    :meth:`SearchSpace.grid` returns it) without its sort: one insertion."""
    if kind not in {"int", "float"} or not np.isfinite(value):
        return np.union1d(grid, [value])
    i = int(np.searchsorted(grid, value))
    if i < len(grid) and grid[i] == value:
        return grid if grid.dtype == np.float64 else grid.astype(np.float64)
    return np.insert(grid.astype(np.float64, copy=False), i, value)


def _product(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """``[m.ravel() for m in np.meshgrid(*arrays, indexing="ij")]`` without meshgrid's
    broadcasting machinery (the same values in the same order)."""
    shape = tuple(len(a) for a in arrays)
    out = []
    for i, a in enumerate(arrays):
        m = np.empty(shape, dtype=a.dtype)
        m[...] = a.reshape((1,) * i + (len(a),) + (1,) * (len(shape) - i - 1))
        out.append(m.reshape(-1))
    return out


@dataclass(frozen=True)
class _MoveGrid:
    """A job's grids, laid out once for :func:`_moves`: every knob's values end to end (with
    the knob each belongs to) and the grid products of all planes end to end (with the two
    knobs each row moves)."""

    values: np.ndarray
    knob: np.ndarray
    plane_a: np.ndarray
    plane_b: np.ndarray
    plane_va: np.ndarray
    plane_vb: np.ndarray

    @classmethod
    def of(cls, grids: list[np.ndarray], names: list[str]) -> _MoveGrid:
        ja_, jb_, va_, vb_ = [], [], [], []
        for a, b in PLANES:
            if a in names and b in names:
                ja, jb = names.index(a), names.index(b)
                va, vb = _product([grids[ja], grids[jb]])
                ja_.append(np.full(len(va), ja))
                jb_.append(np.full(len(va), jb))
                va_.append(va)
                vb_.append(vb)
        cat = [np.concatenate(p) if p else np.empty(0) for p in (ja_, jb_, va_, vb_)]
        pa, pb = cat[0].astype(np.int64), cat[1].astype(np.int64)
        if not grids:
            return cls(np.empty(0), np.empty(0, dtype=np.int64), pa, pb, cat[2], cat[3])
        knob = np.repeat(np.arange(len(grids)), [len(g) for g in grids])
        return cls(np.concatenate(grids), knob, pa, pb, cat[2], cat[3])


def _moves(x: np.ndarray, grid: _MoveGrid) -> tuple[np.ndarray, np.ndarray]:
    """Every single-knob move from ``x`` (each knob over its grid, in grid order) and the
    joint moves of :data:`PLANES` (plane by plane, each in grid-product order); rows and the
    knob index each row moves (-1 for a joint move)."""
    move = grid.values != x[grid.knob]
    single = grid.knob[move]
    keep = (grid.plane_va != x[grid.plane_a]) & (grid.plane_vb != x[grid.plane_b])
    n1, n2 = len(single), int(keep.sum())
    rows = np.repeat(x[None, :], n1 + n2, axis=0)
    rows[np.arange(n1), single] = grid.values[move]
    at = np.arange(n1, n1 + n2)
    rows[at, grid.plane_a[keep]] = grid.plane_va[keep]
    rows[at, grid.plane_b[keep]] = grid.plane_vb[keep]
    which = np.concatenate([single, np.full(n2, -1, dtype=single.dtype)])
    return rows, which


def _block(
    x: np.ndarray, grids: list[np.ndarray], names: list[str], block: tuple[str, ...]
) -> np.ndarray:
    """Every configuration that differs from ``x`` only in ``block`` (its full grid product)."""
    idx = [names.index(n) for n in block if n in names]
    if len(idx) < 2:
        return np.empty((0, len(x)))
    mesh = _product([grids[j] for j in idx])
    rows = np.repeat(x[None, :], len(mesh[0]), axis=0)
    for j, m in zip(idx, mesh, strict=True):
        rows[:, j] = m
    return rows


def combined_move(
    cand: np.ndarray, which: np.ndarray, c: np.ndarray, i: int, cx: float
) -> np.ndarray:
    """Row ``i`` with every other knob at its best improving single-move value.

    For each knob ``j`` with single moves (rows where ``which == j``) its best row is
    ``argmin(where(which == j, c, inf))`` (the first minimum; row 0 when all of them are
    infinite, as argmin of an all-``inf`` array), taken when it improves on ``cx`` and ``j``
    is not the knob row ``i`` moved. Vectorised over the knobs: :func:`_moves` lays the
    single moves out first, knob by knob in ascending order."""
    combined = cand[i].copy()
    single = np.nonzero(which >= 0)[0]
    if not len(single):
        return combined
    n1 = int(single[-1]) + 1
    w = which[:n1]
    if len(single) != n1 or (n1 > 1 and bool((np.diff(w) < 0).any())):
        for j in np.unique(which[which >= 0]):  # not laid out by knob: the plain loop
            k = int(np.argmin(np.where(which == j, c, np.inf)))
            if c[k] < cx * (1.0 - 1e-9) and j != which[i]:
                combined[j] = cand[k, j]
        return combined
    cs = c[:n1]
    starts = np.flatnonzero(np.r_[True, w[1:] != w[:-1]])
    knobs = w[starts]
    low = np.minimum.reduceat(cs, starts)
    group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, n1]))
    nan_first = np.isnan(cs)
    hit = (cs == low[group]) | nan_first
    first = np.minimum.reduceat(np.where(hit, np.arange(n1), n1), starts)
    k = np.where(np.isposinf(low), 0, first)  # argmin of an all-inf selection is row 0
    take = (c[k] < cx * (1.0 - 1e-9)) & (knobs != which[i])
    combined[knobs[take]] = cand[k[take], knobs[take]]
    return combined


def current_vector(space: SearchSpace) -> np.ndarray:
    """The base configuration's encoded knob values (repaired, as every search starts; the
    batch tuner repairs a chunk's jobs at once and leaves each job's on its space)."""
    hit = space.__dict__.get("_current_vector")
    if hit is not None and hit[0] is space.base:
        return hit[1].copy()
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


def descent_steps(space: SearchSpace, max_rounds: int, region: bool = False) -> Steps:
    """The descent (module docstring) as a generator of the rows to cost; ``region``: its
    moves within the trust region (:func:`region_grids`). The :class:`Descent`'s ``grids`` are
    the job's whole grids either way (their ends are the job's limits)."""
    names = space.names
    x0 = current_vector(space)
    full = job_grids(space, x0)
    grids = region_grids(space, full, x0) if region else full
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
        combined = combined_move(cand, which, c, i, cx)
        x, cx, tx, gx = cand[i].copy(), float(c[i]), float(tj[i]), float(gj[i])
        history.append(cx)
    return Descent(
        x0=x0,
        at0=(float(c0[0]), float(t0[0]), float(g0[0])),
        x=x,
        at=(cx, tx, gx),
        grids=full,
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

    def steps(self, space: SearchSpace, *, n_trials: int, region: bool = False) -> Steps:
        """The descent as a generator: yields rows to cost, is sent ``(cost, job_ms, gb_s)``,
        returns the :class:`Descent`; ``region``: moves within the trust region."""
        return descent_steps(space, n_trials, region)

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
