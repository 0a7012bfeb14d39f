"""Lean per-job tuning for catalogs: a registry strategy per job, then vectorised pruning.

``recommend(..., strategy="exhaustive")`` certifies the optimum of one job but costs seconds;
a catalog of 24,442 jobs on two cores leaves about 12 ms of CPU per job. The search is a
strategy of the registry (:func:`~mrtune.optimizer.strategies.get_strategy`), by default
``"descent"`` (:class:`~mrtune.optimizer.strategies.DescentStrategy`: coordinate descent on
the knobs' grids, a handful of vectorised model calls per job, DESIGN decision 5). A
*stepwise* strategy runs as a generator, so :func:`tune_jobs` runs many jobs' searches in
lockstep, one stacked model call per round; any other strategy runs job by job through its
``optimize``. The search stays in ``optimize``'s trust region by default (every size or count
within ×1/4–×4 of the job's value, :mod:`mrtune.optimizer.trust`): a per-job file carries no
interval, so it holds only moves the far-move rule trusts, the largest of them taken
(``region=False``, ``mrtune batch --include-low-confidence``, searches the whole space). Then:

1. **Pruning** (what :func:`mrtune.optimizer.recommend.recommend` does greedily, vectorised here):
   the marginal gain of each change is measured by reverting it alone at the tuned point (one
   call for all changes); the changes gaining less than ``min_gain`` are reverted cheapest
   first as long as each revert costs less than ``min_gain`` (all prefixes of that order in one
   call), and this repeats until nothing is reverted. If what remains gains less than
   ``min_gain`` over the current configuration, the job keeps its current configuration.
2. The final revert evaluation gives each remaining change's marginal gain, which the batch
   summary aggregates into "the settings that matter most".

Every configuration the descent evaluates is on the grid and passes
:meth:`SearchSpace.feasible` (infeasible ones are never evaluated), so the result is one
Hadoop accepts. The quality against the exhaustive strategy is measured by
``benchmarks/bench_batch.py --quality``.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, field, fields

import numpy as np

from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile, evaluate
from mrtune.costmodel.batch import written_split_minsize
from mrtune.optimizer.batch._stack import chunk_table, stacked_round, stash_current_vectors
from mrtune.optimizer.objective import Objective, ObjectiveKind
from mrtune.optimizer.strategies import BaseStrategy, get_strategy
from mrtune.optimizer.strategies._descent import (
    REDUCES,
    SORT_MB,
    SPLIT,
    Costs,
    Descent,
    current_vector,
    job_grids,
)
from mrtune.search_spaces import SearchSpace

#: Knobs whose best value is a property of the job, not of the cluster: the reducer count and
#: split size (task counts) and the job's own combiner class. The cluster-wide configuration
#: never sets them.
PER_JOB_KNOBS = frozenset({REDUCES, SPLIT, "mapreduce.job.combine.class"})
MIN_GAIN = 0.01


@dataclass
class JobTuning:
    """The tuned configuration of one job and its predicted effect."""

    knobs: list[str]
    current: dict[str, float]
    best: dict[str, float]
    current_ms: float
    current_gb_s: float
    best_ms: float
    best_gb_s: float
    marginal_gain: dict[str, float] = field(default_factory=dict)
    evaluations: int = 0
    rounds: int = 0
    limits: dict[str, float] = field(default_factory=dict)
    #: each codec knob's offered codes for this job (its cluster's capabilities), which bound
    #: the cluster-wide file too
    choices: dict[str, list[float]] = field(default_factory=dict)

    @property
    def changed(self) -> list[str]:
        return [k for k in self.knobs if self.best[k] != self.current[k]]


_DTYPES = {f.name: ConfigBatch._dtype(f.name) for f in fields(ConfigBatch)}
_MEMORY_COLUMNS = {"map_container_mb", "reduce_container_mb"}


class BatchBuilder:
    """:meth:`SearchSpace.to_batch` (``repair=False``) without its per-call overhead.

    ``to_batch`` rebuilds the base configuration's row and re-derives each column's dtype on
    every call, which costs as much as the model itself for the small batches of a lean
    search. This builder derives the base row once per job and broadcasts it (read-only views;
    the model never writes into its inputs); the knob columns are cast as ``to_batch`` casts
    them. Spaces that search container memory (whose heap follows the container) go through
    ``to_batch`` itself.
    """

    def __init__(self, space: SearchSpace) -> None:
        self.space = space
        self.columns = {k.name: k.column for k in space.knobs}
        self.slow = bool(_MEMORY_COLUMNS & set(self.columns.values()))
        row = ConfigBatch.from_base(space.base, 1)
        self.row = {}
        for name in _DTYPES:
            col = getattr(row, name).copy()
            col.setflags(write=False)
            self.row[name] = col

    def __call__(self, values: dict[str, np.ndarray]) -> ConfigBatch:
        if self.slow:
            return self.space.to_batch(values, repair=False)
        n = len(next(iter(values.values()))) if values else 1
        # Zero-stride read-only views of the base row (np.broadcast_to, minus its overhead).
        cols = {name: np.ndarray((n,), v.dtype, v, 0, (0,)) for name, v in self.row.items()}
        for knob, arr in values.items():
            col = self.columns[knob]
            cols[col] = np.asarray(arr, dtype=_DTYPES[col])
        if any(self.columns[k] == "split_size" for k in values):  # minsize above the block
            row = self.row
            cols["split_minsize"] = written_split_minsize(
                cols["split_size"], row["split_size"], row["split_minsize"], row["block_size"]
            )
        return ConfigBatch(**cols)


class _Evaluator:
    """Costs of knob-value matrices for one job (rows = configurations, columns = knobs).

    :meth:`prepare` splits a call in two, so that many jobs' calls can share one model call
    (:func:`tune_jobs`): it returns the feasible rows' batch, and :meth:`finish` turns that
    batch's objectives into the ``(cost, job_ms, gb_s)`` of every row.
    """

    def __init__(self, space: SearchSpace, objective: str) -> None:
        self.space = space
        self.names = space.names
        self.resources = objective == "resources"
        self.evaluations = 0
        self._build: BatchBuilder | None = None

    @property
    def build(self) -> BatchBuilder:
        """The job's own batch builder, made on first use (stacked rounds build the chunk's
        batches from :class:`ChunkJobs` instead)."""
        if self._build is None:
            self._build = BatchBuilder(self.space)
        return self._build

    def prepare(self, x: np.ndarray) -> tuple[np.ndarray, ConfigBatch | None]:
        """The rows Hadoop would accept and their batch (``None`` if there are none)."""
        vals = {n: x[:, j] for j, n in enumerate(self.names)}
        ok = self.space.feasible(vals) if self.names else np.ones(len(x), dtype=bool)
        if not ok.any():
            return ok, None
        return ok, self.build({n: v[ok] for n, v in vals.items()})

    def finish(
        self, ok: np.ndarray, job_ok: np.ndarray | None, gbs_ok: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(cost, job_ms, gb_s)`` per row; ``inf`` for rows Hadoop would refuse."""
        job = np.full(len(ok), np.inf)
        gbs = np.full(len(ok), np.inf)
        if job_ok is not None:
            job[ok], gbs[ok] = job_ok, gbs_ok
            self.evaluations += int(ok.sum())
        return (gbs if self.resources else job), job, gbs

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(cost, job_ms, gb_s)`` per row, from one model call for this job alone."""
        ok, batch = self.prepare(x)
        if batch is None:
            return self.finish(ok, None, None)
        job, gbs = evaluate(self.space.profile, batch, self.space.cluster)
        return self.finish(ok, job, gbs)


Steps = Generator[np.ndarray, Costs, JobTuning]
#: The registry strategy the batch tuner runs per job.
DEFAULT_BATCH_STRATEGY = "descent"


def tune_job(
    profile: JobProfile,
    base: HadoopConfig,
    cluster: ClusterSpec,
    *,
    objective: str = "time",
    min_gain: float = MIN_GAIN,
    max_rounds: int | None = None,
    strategy: str = DEFAULT_BATCH_STRATEGY,
    region: bool = True,
) -> JobTuning:
    """Tune one job (module docstring): the registry ``strategy`` (with ``max_rounds`` as its
    ``n_trials``; default its own budget), vectorised pruning, marginal gains. ``region``:
    every size or count moves within ``optimize``'s trust region (×1/4–×4 of the job's value,
    :mod:`mrtune.optimizer.trust`): a per-job file has no interval to show, so it holds only
    moves the far-move rule trusts (``mrtune batch --include-low-confidence``: ``False``)."""
    strat = get_strategy(strategy)
    space = SearchSpace.for_job(profile, base, cluster)
    ev = _Evaluator(space, objective)
    budget = max_rounds or strat.default_trials
    steps = _tune_steps(space, ev, strat, min_gain, budget, region)
    try:
        x = next(steps)
        while True:
            x = steps.send(ev(x))
    except StopIteration as done:
        return done.value


def tune_jobs(
    jobs: Sequence[tuple[JobProfile, HadoopConfig]],
    cluster: ClusterSpec,
    *,
    objective: str = "time",
    min_gain: float = MIN_GAIN,
    max_rounds: int | None = None,
    strategy: str = DEFAULT_BATCH_STRATEGY,
    spaces: Sequence[SearchSpace | Exception] | None = None,
    region: bool = True,
) -> list[JobTuning | Exception]:
    """:func:`tune_job` for many jobs at once: the same steps for every job, each round's
    candidates of all the jobs still descending costed in **one** stacked model call
    (:class:`~mrtune.costmodel.stacked.StackedProfiles`), so numpy's fixed cost per call is
    paid per round, not per job and round. Each job's result is the one :func:`tune_job`
    gives (the model's rows do not depend on what they are stacked with); a job whose
    tuning raises gets its exception in its place. A strategy that is not stepwise searches
    each job through its own ``optimize`` as the job starts; the pruning rounds are still
    stacked. ``spaces`` are the jobs' :meth:`SearchSpace.for_job` (or the exception it raised)
    when the caller built them already; ``region`` as in :func:`tune_job`.
    """
    strat = get_strategy(strategy)
    budget = max_rounds or strat.default_trials
    out: list[JobTuning | Exception] = [ValueError("not tuned")] * len(jobs)
    active: dict[int, tuple[_Evaluator, Steps, np.ndarray]] = {}
    evaluators: dict[int, _Evaluator] = {}
    for i, (profile, base) in enumerate(jobs):
        try:
            space = spaces[i] if spaces is not None else None
            if isinstance(space, Exception):
                raise space
            if space is None:
                space = SearchSpace.for_job(profile, base, cluster)
            evaluators[i] = _Evaluator(space, objective)
        except Exception as exc:  # noqa: BLE001 - this job's failure, the others go on
            out[i] = exc
    table = chunk_table(evaluators)
    if table is not None:
        stash_current_vectors(table[0])
    for i, ev in evaluators.items():
        try:
            steps = _tune_steps(ev.space, ev, strat, min_gain, budget, region)
            active[i] = (ev, steps, next(steps))
        except StopIteration as done:
            out[i] = done.value
        except Exception as exc:  # noqa: BLE001
            out[i] = exc
    while active:
        answers = stacked_round(active, cluster, table)
        for i, costs in answers.items():
            ev, steps, _ = active[i]
            try:
                if isinstance(costs, Exception):
                    raise costs
                active[i] = (ev, steps, steps.send(costs))
            except StopIteration as done:
                out[i] = done.value
                del active[i]
            except Exception as exc:  # noqa: BLE001
                out[i] = exc
                del active[i]
    return out


def _tune_steps(
    space: SearchSpace,
    ev: _Evaluator,
    strat: BaseStrategy,
    min_gain: float,
    budget: int,
    region: bool = True,
) -> Steps:
    """The tuner (module docstring) as a generator: it yields each matrix of knob values to
    cost and is sent back its costs, so that one job alone (:func:`tune_job`) or many in
    lockstep (:func:`tune_jobs`) run the very same steps."""
    if strat.stepwise:
        found = yield from strat.steps(space, n_trials=budget, region=region)  # type: ignore[attr-defined]
    else:
        found = yield from _search_alone(space, ev, strat, budget, region)
    names = space.names
    x0, x = found.x0, found.x
    x, gains, tx, gx = yield from _prune(names, x0, found.at0, x, found.at, min_gain)
    grids = found.grids
    return JobTuning(
        knobs=names,
        current={n: float(x0[j]) for j, n in enumerate(names)},
        best={n: float(x[j]) for j, n in enumerate(names)},
        current_ms=found.at0[1],
        current_gb_s=found.at0[2],
        best_ms=tx,
        best_gb_s=gx,
        marginal_gain=gains,
        evaluations=ev.evaluations,
        limits=({SORT_MB: float(grids[names.index(SORT_MB)].max())} if SORT_MB in names else {}),
        rounds=found.rounds,
        choices={k.name: [float(c) for c in k.grid_values()] for k in space.knobs if k.choices},
    )


def _search_alone(
    space: SearchSpace, ev: _Evaluator, strat: BaseStrategy, budget: int, region: bool
) -> Generator[np.ndarray, Costs, Descent]:
    """A strategy that is not stepwise: its ``optimize`` on this job alone (seed 0; with
    ``region``, in the trust region's space), then the current and the found configuration
    costed as one step."""
    kind = ObjectiveKind.resources if ev.resources else ObjectiveKind.time
    searched = space
    if region:
        from mrtune.optimizer.choose import space_current
        from mrtune.optimizer.trust import trust_region

        searched = trust_region(space, space_current(space))
    result = strat.optimize(searched, Objective(searched, kind), n_trials=budget, seed=0)
    ev.evaluations += result.n_evaluations
    x0 = current_vector(space)
    x = np.array([result.best_values[n] for n in space.names], dtype=np.float64)
    c, t, g = yield np.stack([x0, x])
    if not np.isfinite(c[0]):
        raise ValueError("the job's current configuration is infeasible for the cost model")
    at0 = (float(c[0]), float(t[0]), float(g[0]))
    at = (float(c[1]), float(t[1]), float(g[1]))
    if not at[0] < at0[0]:
        x, at = x0.copy(), at0
    return Descent(x0=x0, at0=at0, x=x, at=at, grids=job_grids(space, x0), rounds=1)


def _prune(
    names: list[str],
    x0: np.ndarray,
    at0: tuple[float, float, float],
    x: np.ndarray,
    at: tuple[float, float, float],
    min_gain: float,
) -> Generator[np.ndarray, Costs, tuple[np.ndarray, dict[str, float], float, float]]:
    """Revert changes gaining < ``min_gain`` (module docstring, step 2).

    ``at0``/``at`` are (cost, job ms, GB·s) of ``x0``/``x``. Returns the pruned point, the
    marginal gain of each remaining change, and the point's job ms and GB·s.
    """
    cx, tx, gx = at
    while True:
        changed = np.nonzero(x != x0)[0]
        if not len(changed):
            return x, {}, tx, gx
        rev = np.repeat(x[None, :], len(changed), axis=0)
        rev[np.arange(len(changed)), changed] = x0[changed]
        c, tj, gj = yield rev
        gain = (c - cx) / max(cx, 1e-12)
        small = np.argsort(gain, kind="stable")
        small = small[gain[small] < min_gain]
        if not len(small):
            break
        if len(small) == 1:
            j = int(small[0])
            x, cx, tx, gx = rev[j].copy(), float(c[j]), float(tj[j]), float(gj[j])
            continue
        # Revert the cheapest changes one after another (all prefixes in one call); keep the
        # longest prefix in which every single revert costs less than min_gain.
        steps = np.repeat(x[None, :], len(small), axis=0)
        for m in range(len(small)):
            steps[m:, changed[small[m]]] = x0[changed[small[m]]]
        cs, ts, gs = yield steps
        prev = np.concatenate([[cx], cs[:-1]])
        ok = (cs - prev) < min_gain * np.maximum(prev, 1e-12)
        take = int(np.argmin(ok)) if not ok.all() else len(ok)
        take = max(take, 1)  # the first revert is below min_gain by construction
        j = take - 1
        x, cx, tx, gx = steps[j].copy(), float(cs[j]), float(ts[j]), float(gs[j])
    if cx > at0[0] * (1.0 - min_gain):
        return x0.copy(), {}, at0[1], at0[2]
    return x, {names[j]: float(g) for j, g in zip(changed, gain, strict=True)}, tx, gx
