"""What-if and tuning for a workflow of jobs: per-job settings chosen for the workflow makespan.

:func:`evaluate_workflow` predicts every job of a :class:`~mrtune.readers.workflow_file.WorkflowSpec`
with the cost model (one vectorised call per job), turns the task times into map and reduce
stage durations (waves, the seed's bounds, or the job model's own split) and runs the workflow
models of :mod:`mrtune.costmodel.workflow`.

:func:`tune_workflow` picks one configuration per job to minimise the *workflow's* refined
completion time, not each job's own time. Under the workflow model a job matters only through
its pair ``(T^M, T^R)``, so each job's candidates are first cut to their Pareto front on that
pair; stages are independent (eq. 3.18 adds them), so each stage is optimised on its own; inside
a stage the makespan is a two-machine flow shop (maps, then reduces), which couples the jobs:
a job that is not on the critical path can keep a cheaper setting, and a long reduce stage is
worth shortening only if the next job's maps do not already hide it. Small stages are searched
exhaustively over the product of the Pareto fronts; large ones by coordinate descent started
from every job's individually best setting. The result is compared with tuning each job alone.

Each job's candidates are the workflow grid (:func:`candidate_configs`, which spans the
``(T^M, T^R)`` trade-offs) plus the optimum of the job alone found by a strategy of the
registry (:func:`~mrtune.optimizer.strategies.get_strategy`, the same contract as
``mrtune optimize``; ``"exhaustive"`` by default: exact on the knobs' grids of the workflow
settings, a few tenths of a second per job), so the workflow tuner never searches a job's
settings by a route of its own.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from pydantic import ValidationError

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import MB, HadoopConfig
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.workflow import (
    JobTasks,
    TaskArrays,
    WorkflowEstimate,
    estimate_workflow,
    fit_linear,
    johnson_stage_ms,
    predict_tasks,
    refined_stage_ms,
)
from mrtune.errors import InputError
from mrtune.optimizer.objective import Objective, ObjectiveKind
from mrtune.optimizer.strategies import get_strategy
from mrtune.readers.workflow_file import TaskSpec, WorkflowSpec, scaled_tasks
from mrtune.search_spaces import SearchSpace, find_knob

#: Up to this many combinations a stage is tuned exhaustively (vectorised, in chunks).
EXHAUSTIVE_COMBINATIONS = 200_000
_CHUNK = 20_000


# ----------------------------------------------------------------------------- evaluation
@dataclass(frozen=True)
class JobEvaluation:
    """One job of the workflow: its tasks, its stage durations and where they came from."""

    name: str
    stage: int
    tasks: JobTasks
    map_ms: float
    reduce_ms: float
    source: str  # "cost model" or "tasks"
    properties: dict[str, str] = field(default_factory=dict)  # the effective configuration


@dataclass(frozen=True)
class WorkflowEvaluation:
    """The workflow models' answer for one configuration per job."""

    spec: WorkflowSpec
    estimate: str
    jobs: dict[str, JobEvaluation]
    result: WorkflowEstimate
    map_capacity: int | None
    reduce_capacity: int | None


def job_config(
    spec: WorkflowSpec, name: str, extra: Mapping[str, str] | None = None
) -> HadoopConfig:
    """The job's :class:`HadoopConfig` (profiled < file defaults < job config < ``extra``)."""
    props = spec.job_properties(name)
    if extra:
        props.update(extra)
    try:
        return HadoopConfig.from_properties(
            props, hadoop_version=spec.hadoop_version, source=f"job {name}"
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'config'}: {e['msg']}" for e in exc.errors()
        )
        raise InputError(problems, field=f"jobs.{name}.config") from None
    except ValueError as exc:
        raise InputError(str(exc), field=f"jobs.{name}.config") from None


def _tasks_arrays(tasks: TaskSpec, map_capacity: int, reduce_capacity: int) -> TaskArrays:
    def one(v: float, dtype: type = np.float64) -> np.ndarray:
        return np.array([v], dtype=dtype)

    return TaskArrays(
        n_maps=one(tasks.maps, np.int64),
        n_reduces=one(tasks.reduces, np.int64),
        map_task_ms=one(tasks.map_task_ms),
        reduce_task_ms=one(tasks.reduce_task_ms),
        map_slots=one(map_capacity, np.int64),
        reduce_slots=one(reduce_capacity, np.int64),
        map_spread=1.0
        if tasks.map_max_ms is None or tasks.map_task_ms == 0
        else tasks.map_max_ms / tasks.map_task_ms,
        reduce_spread=1.0
        if tasks.reduce_max_ms is None or tasks.reduce_task_ms == 0
        else tasks.reduce_max_ms / tasks.reduce_task_ms,
    )


def _capacities(spec: WorkflowSpec) -> tuple[int | None, int | None]:
    if spec.capacity is None:
        return None, None
    return spec.capacity.map_capacity, spec.capacity.reduce_capacity


def job_task_arrays(
    spec: WorkflowSpec,
    name: str,
    configs: Sequence[HadoopConfig] | None = None,
    *,
    scale: float = 1.0,
) -> TaskArrays:
    """Task counts and times of job ``name`` under ``configs`` (default: its own config)."""
    job = spec.job(name)
    map_cap, red_cap = _capacities(spec)
    if job.tasks is not None:
        assert map_cap is not None and red_cap is not None  # the spec validator ensures it
        tasks = job.tasks if scale == 1.0 else scaled_tasks(job.tasks, scale)
        return _tasks_arrays(tasks, map_cap, red_cap)
    assert job.profile is not None
    profile = job.profile
    if scale != 1.0:
        profile = profile.model_copy(update={"input_bytes": profile.input_bytes * scale})
    if configs is None:
        configs = [job_config(spec, name)]
    return predict_tasks(
        profile, configs, spec.cluster, map_capacity=map_cap, reduce_capacity=red_cap
    )


def evaluate_workflow(
    spec: WorkflowSpec,
    *,
    estimate: str | None = None,
    order: str | None = None,
    properties: Mapping[str, Mapping[str, str]] | None = None,
    scale: float = 1.0,
) -> WorkflowEvaluation:
    """Predict every job and run the basic and refined workflow models.

    ``properties`` adds per-job property changes (e.g. a tuning result); ``scale`` multiplies
    every job's input (for the extrapolation baseline).
    """
    estimate = estimate or spec.estimate
    order = order or spec.order
    stage_of = {job: i for i, jobs in enumerate(spec.stages) for job in jobs}
    jobs: dict[str, JobEvaluation] = {}
    for job in spec.jobs:
        extra = dict((properties or {}).get(job.name, {}))
        if job.tasks is not None:
            arrays = job_task_arrays(spec, job.name, scale=scale)
            props: dict[str, str] = {}
            source = "tasks"
        else:
            cfg = job_config(spec, job.name, extra)
            arrays = job_task_arrays(spec, job.name, [cfg], scale=scale)
            props = cfg.to_properties()
            source = "cost model"
        m, r = arrays.stage_durations(estimate)
        jobs[job.name] = JobEvaluation(
            name=job.name,
            stage=stage_of[job.name],
            tasks=arrays.job(0, job.name),
            map_ms=float(m[0]),
            reduce_ms=float(r[0]),
            source=source,
            properties=props,
        )
    result = estimate_workflow(
        spec.stages, {n: (j.map_ms, j.reduce_ms) for n, j in jobs.items()}, order=order
    )
    map_cap, red_cap = _capacities(spec)
    return WorkflowEvaluation(spec, estimate, jobs, result, map_cap, red_cap)


# ----------------------------------------------------------------------------- baseline
@dataclass(frozen=True)
class ExtrapolationResult:
    """The seed's linear-extrapolation baseline next to the workflow model at the target size."""

    scales: list[float]
    fitted_ms: list[float]
    fitted_on: str  # "measured" or "model (refined)"
    target_scale: float
    extrapolated_ms: float
    model_basic_ms: float
    model_refined_ms: float
    measured_target_ms: float | None
    slope_ms_per_scale: float
    intercept_ms: float

    def error(self, predicted: float) -> float | None:
        """Relative error against the measured target time, when there is one."""
        if self.measured_target_ms is None:
            return None
        return (predicted - self.measured_target_ms) / self.measured_target_ms


def extrapolation_baseline(
    spec: WorkflowSpec, *, estimate: str | None = None, order: str | None = None
) -> ExtrapolationResult | None:
    """Fit a line on the smaller inputs of ``spec.baseline`` and predict the target size.

    Seed §3.3 ("Compare with prediction based on linear extrapolation"). Without measured times
    the line goes through the refined model's own predictions at the smaller scales.
    """
    base = spec.baseline
    if base is None:
        return None
    if base.measured_ms is not None:
        fitted = list(base.measured_ms)
        fitted_on = "measured"
    else:
        fitted = [
            evaluate_workflow(spec, estimate=estimate, order=order, scale=s).result.refined_ms
            for s in base.scales
        ]
        fitted_on = "model (refined)"
    line = fit_linear(base.scales, fitted)
    target = evaluate_workflow(spec, estimate=estimate, order=order, scale=base.target_scale)
    return ExtrapolationResult(
        scales=list(base.scales),
        fitted_ms=fitted,
        fitted_on=fitted_on,
        target_scale=base.target_scale,
        extrapolated_ms=float(line.predict(base.target_scale)),
        model_basic_ms=target.result.basic_ms,
        model_refined_ms=target.result.refined_ms,
        measured_target_ms=base.measured_target_ms,
        slope_ms_per_scale=line.slope,
        intercept_ms=line.intercept,
    )


# ----------------------------------------------------------------------------- candidates
#: The settings the workflow tuner varies (Hadoop 2/3 names); values depend on the job.
TUNED_PROPERTIES: tuple[str, ...] = (
    "mapreduce.job.reduces",
    "mapreduce.task.io.sort.mb",
    "mapreduce.task.io.sort.factor",
    "mapreduce.input.fileinputformat.split.minsize",
    "mapreduce.input.fileinputformat.split.maxsize",
    "mapreduce.map.output.compress",
    "mapreduce.map.output.compress.codec",
)


def candidate_configs(
    base: HadoopConfig, *, reduce_capacity: int, map_only: bool
) -> list[HadoopConfig]:
    """A grid of the settings that move a job's map and reduce stage durations.

    Reducers are tried in fractions and multiples of the reduce capacity (whole waves matter,
    reference §6.1); split size around the block size (fewer, longer map tasks or more, shorter
    ones); the sort buffer and merge factor (spills and merge passes, reference §2.3-2.4); and
    map-output compression (shuffle bytes vs CPU). Combinations Hadoop would reject (a sort
    buffer not below the heap) are dropped by :class:`HadoopConfig`'s own validation.
    """
    k = max(1, reduce_capacity)
    reducers = sorted(
        {
            max(1, v)
            for v in (base.num_reducers, 1, math.ceil(k / 4), math.ceil(k / 2), k, 2 * k, 3 * k)
        }
    )
    if map_only:
        reducers = [0]
    heap_mb = base.map_heap_bytes // MB
    sort_mb = sorted({base.io_sort_mb, *(v for v in (100, 200, 400, 800) if v < heap_mb)})
    block_mb = base.dfs_blocksize // MB
    splits_mb = sorted(
        {base.split_size // MB, block_mb // 2, block_mb, block_mb * 2, block_mb * 4}
    )
    compress = [(False, base.map_output_codec), (True, "snappy")]
    factors = sorted({base.io_sort_factor, 10, 50, 100})
    out: list[HadoopConfig] = []
    for r, mb, split, (comp, codec), factor in itertools.product(
        reducers, sort_mb, splits_mb, compress, factors
    ):
        split_bytes = max(1, split) * MB
        changes: dict[str, object] = {
            "mapreduce.job.reduces": r,
            "mapreduce.task.io.sort.mb": mb,
            "mapreduce.task.io.sort.factor": factor,
            "mapreduce.map.output.compress": comp,
            "mapreduce.map.output.compress.codec": codec,
            # FileInputFormat: splitSize = max(minSize, min(maxSize, blockSize))
            "mapreduce.input.fileinputformat.split.minsize": split_bytes
            if split_bytes > base.dfs_blocksize
            else 0,
            "mapreduce.input.fileinputformat.split.maxsize": split_bytes
            if split_bytes < base.dfs_blocksize
            else 2**63 - 1,
        }
        try:
            out.append(base.with_changes(changes))
        except (ValidationError, ValueError):
            continue
    return out


#: The strategy that finds each job's own optimum over the workflow settings.
DEFAULT_JOB_STRATEGY = "exhaustive"


def strategy_candidate(
    profile: JobProfile, base: HadoopConfig, cluster: ClusterSpec, strategy: str
) -> tuple[list[HadoopConfig], str]:
    """The job's own optimum over :data:`TUNED_PROPERTIES`, found by registry ``strategy``.

    Returns ``([config], note)``, or ``([], note)`` when none of the settings applies to the
    job (a map-only job with a fixed split, say).
    """
    names = list(dict.fromkeys(find_knob(p).name for p in TUNED_PROPERTIES))
    space = SearchSpace.for_job(profile, base, cluster, only=names)
    if not space.knobs:
        return [], f"{strategy}: no workflow setting applies"
    strat = get_strategy(strategy)
    result = strat.optimize(
        space, Objective(space, ObjectiveKind.time), n_trials=strat.default_trials, seed=0
    )
    try:
        return [space.values_to_config(result.best_values)], f"{strategy}: {result.notes}"
    except (ValidationError, ValueError) as exc:  # a combination HadoopConfig refuses
        return [], f"{strategy}: optimum not valid as a configuration ({exc})"


def pareto_front(map_ms: np.ndarray, reduce_ms: np.ndarray, job_ms: np.ndarray) -> np.ndarray:
    """Indices of candidates not dominated on ``(T^M, T^R)``; ties broken by own job time.

    A dominated candidate (another is no longer in both stages) can never improve a flow-shop
    makespan, so dropping it loses nothing.
    """
    order = np.lexsort((job_ms, reduce_ms, map_ms))
    keep: list[int] = []
    best_r = np.inf
    for i in order:
        if reduce_ms[i] < best_r:
            keep.append(int(i))
            best_r = reduce_ms[i]
    return np.array(keep, dtype=np.intp)


# ----------------------------------------------------------------------------- tuning
@dataclass(frozen=True)
class JobChoice:
    """One job's candidates (index 0 = its current configuration) and the tuner's picks."""

    name: str
    tunable: bool
    configs: list[HadoopConfig]
    map_ms: np.ndarray
    reduce_ms: np.ndarray
    pareto: np.ndarray
    alone: int
    workflow: int


@dataclass(frozen=True)
class WorkflowTuning:
    """Configurations for the workflow makespan, against the current ones and each-job-alone."""

    current: WorkflowEvaluation
    alone: WorkflowEvaluation
    tuned: WorkflowEvaluation
    changes: dict[str, dict[str, tuple[str | None, str]]]
    alone_changes: dict[str, dict[str, tuple[str | None, str]]]
    candidates: dict[str, int]
    pareto_sizes: dict[str, int]
    stage_methods: list[str]
    #: Per tuned job, how the registry strategy found its own optimum.
    job_search_notes: dict[str, str] = field(default_factory=dict)


#: Weight of the sum of job times (the basic model's time, a proxy for the resources used) next
#: to the refined makespan: one second of workflow time is worth 100 s of summed job time, so a
#: job off the critical path keeps its cheapest setting instead of a marginally "faster" one.
RESOURCE_WEIGHT = 0.01


def _stage_objective(
    m: np.ndarray, r: np.ndarray, order: str, weight: float
) -> tuple[np.ndarray, np.ndarray]:
    """(score, refined stage time) for arrays of shape (n_combos, n_jobs)."""
    refined = johnson_stage_ms(m, r) if order == "best" else refined_stage_ms(m, r)
    return refined + weight * np.sum(m + r, axis=-1), refined


def tune_stage(
    map_ms: Sequence[np.ndarray],
    reduce_ms: Sequence[np.ndarray],
    *,
    order: str = "given",
    start: Sequence[int] | None = None,
    exhaustive_limit: int = EXHAUSTIVE_COMBINATIONS,
    resource_weight: float = RESOURCE_WEIGHT,
) -> tuple[list[int], float, str]:
    """One candidate per job minimising a stage's refined time (+ ``resource_weight`` × the sum
    of its job times, :data:`RESOURCE_WEIGHT`).

    Parameters
    ----------
    map_ms, reduce_ms
        Per job (in the stage's given order), the candidates' ``T^M`` and ``T^R``: 1-D arrays.
    order
        ``"given"``: the jobs run in the listed order; ``"best"``: in Johnson's order, which
        is optimal for every combination (:mod:`mrtune.costmodel.workflow._order`).
    start
        Coordinate descent's starting candidates (default: each job's shortest ``T^M + T^R``).

    Returns
    -------
    (picks, refined_ms, method)
        The chosen candidate index per job, the stage's refined time, and how it was found.
    """
    n_jobs = len(map_ms)
    ms = [np.asarray(m, dtype=np.float64) for m in map_ms]
    rs = [np.asarray(r, dtype=np.float64) for r in reduce_ms]
    sizes = [m.size for m in ms]
    total = math.prod(sizes)

    def evaluate(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m = np.stack([ms[j][idx[:, j]] for j in range(n_jobs)], axis=-1)
        r = np.stack([rs[j][idx[:, j]] for j in range(n_jobs)], axis=-1)
        return _stage_objective(m, r, order, resource_weight)

    best: tuple[float, float] | None = None
    if total <= exhaustive_limit:
        best_idx = np.zeros(n_jobs, dtype=np.intp)
        grid = itertools.product(*(range(s) for s in sizes))
        while (chunk := np.array(list(itertools.islice(grid, _CHUNK)), dtype=np.intp)).size:
            score, refined = evaluate(chunk)
            i = int(np.argmin(score))
            if best is None or score[i] < best[0]:
                best, best_idx = (float(score[i]), float(refined[i])), chunk[i].copy()
        assert best is not None
        method = f"exhaustive over {total} combinations of Pareto-optimal settings"
        return [int(x) for x in best_idx], best[1], method
    # coordinate descent: re-pick one job at a time with the others fixed, until nothing moves
    if start is None:
        start = [int(np.argmin(m + r)) for m, r in zip(ms, rs, strict=True)]
    current = np.array(start, dtype=np.intp)
    score, refined = evaluate(current[None, :])
    best = (float(score[0]), float(refined[0]))
    rounds = 0
    while rounds < 50:
        rounds += 1
        improved = False
        for j in range(n_jobs):
            trial = np.tile(current, (sizes[j], 1))
            trial[:, j] = np.arange(sizes[j])
            score, refined = evaluate(trial)
            i = int(np.argmin(score))
            if score[i] < best[0] - 1e-9 * max(1.0, abs(best[0])):
                current[j], best, improved = i, (float(score[i]), float(refined[i])), True
        if not improved:
            break
    method = f"coordinate descent ({rounds} rounds) over {total} combinations"
    return [int(x) for x in current], best[1], method


def _position(front: np.ndarray, index: int) -> int:
    hits = np.flatnonzero(front == index)
    return int(hits[0]) if hits.size else 0


def _diff(before: HadoopConfig, after: HadoopConfig) -> dict[str, tuple[str | None, str]]:
    old = before.to_properties()
    new = after.to_properties()
    return {k: (old.get(k), v) for k, v in new.items() if old.get(k) != v}


def tune_workflow(
    spec: WorkflowSpec,
    *,
    estimate: str | None = None,
    order: str | None = None,
    exhaustive_limit: int = EXHAUSTIVE_COMBINATIONS,
    strategy: str | None = DEFAULT_JOB_STRATEGY,
) -> WorkflowTuning:
    """Choose each job's configuration to minimise the workflow's refined completion time.

    ``strategy`` names the registry strategy that adds each job's own optimum to its
    candidates (``None``: the workflow grid only).
    """
    estimate = estimate or spec.estimate
    order = order or spec.order
    _, red_cap = _capacities(spec)
    choices: dict[str, JobChoice] = {}
    notes: dict[str, str] = {}
    for job in spec.jobs:
        if job.tasks is not None:
            arrays = job_task_arrays(spec, job.name)
            configs: list[HadoopConfig] = []
            tunable = False
        else:
            assert job.profile is not None
            base = job_config(spec, job.name)
            tunable = job.tune
            configs = [base]
            if tunable:
                cap = red_cap
                if cap is None:  # the cost model's own capacity for the base configuration
                    cap = int(job_task_arrays(spec, job.name, [base]).reduce_slots[0])
                grid = candidate_configs(base, reduce_capacity=cap, map_only=job.profile.map_only)
                found: list[HadoopConfig] = []
                if strategy is not None:
                    found, notes[job.name] = strategy_candidate(
                        job.profile, base, spec.cluster, strategy
                    )
                configs = [base, *grid, *found]
            arrays = job_task_arrays(spec, job.name, configs)
        m, r = arrays.stage_durations(estimate)
        alone = int(np.lexsort((r, m + r))[0])
        front = pareto_front(m, r, m + r)
        choices[job.name] = JobChoice(
            name=job.name,
            tunable=tunable,
            configs=configs,
            map_ms=m,
            reduce_ms=r,
            pareto=front,
            alone=alone,
            workflow=alone,
        )
    methods = []
    for stage in spec.stages:
        stage_choices = [choices[n] for n in stage]
        front_picks, _, method = tune_stage(
            [c.map_ms[c.pareto] for c in stage_choices],
            [c.reduce_ms[c.pareto] for c in stage_choices],
            order=order,
            start=[_position(c.pareto, c.alone) for c in stage_choices],
            exhaustive_limit=exhaustive_limit,
        )
        methods.append(method)
        for c, p in zip(stage_choices, front_picks, strict=True):
            choices[c.name] = replace(c, workflow=int(c.pareto[p]))

    def props_for(pick: str) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for name, c in choices.items():
            if c.configs:
                out[name] = c.configs[getattr(c, pick)].to_properties()
        return out

    def changes_for(pick: str) -> dict[str, dict[str, tuple[str | None, str]]]:
        return {
            name: _diff(c.configs[0], c.configs[getattr(c, pick)])
            for name, c in choices.items()
            if c.configs
        }

    current = evaluate_workflow(spec, estimate=estimate, order=order)
    alone = evaluate_workflow(spec, estimate=estimate, order=order, properties=props_for("alone"))
    tuned = evaluate_workflow(
        spec, estimate=estimate, order=order, properties=props_for("workflow")
    )
    return WorkflowTuning(
        current=current,
        alone=alone,
        tuned=tuned,
        changes=changes_for("workflow"),
        alone_changes=changes_for("alone"),
        candidates={n: len(c.map_ms) for n, c in choices.items()},
        pareto_sizes={n: len(c.pareto) for n, c in choices.items()},
        stage_methods=methods,
        job_search_notes=notes,
    )


__all__ = [
    "DEFAULT_JOB_STRATEGY",
    "EXHAUSTIVE_COMBINATIONS",
    "ExtrapolationResult",
    "JobEvaluation",
    "WorkflowEvaluation",
    "WorkflowTuning",
    "candidate_configs",
    "evaluate_workflow",
    "extrapolation_baseline",
    "job_config",
    "job_task_arrays",
    "pareto_front",
    "strategy_candidate",
    "tune_stage",
    "tune_workflow",
]
