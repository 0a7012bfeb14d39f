"""What-if and tuning for a workflow of jobs: per-job settings chosen for the workflow makespan.

:func:`evaluate_workflow` (in :mod:`mrtune.optimizer.workflow_eval`, re-exported here) predicts
every job of a :class:`~mrtune.readers.workflow_file.WorkflowSpec` with the cost model (one
vectorised call per job), turns the task times into map and reduce stage durations (waves, the
seed's bounds, or the job model's own split) and runs the workflow models of
:mod:`mrtune.costmodel.workflow`.

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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.workflow import (
    johnson_stage_ms,
    refined_stage_ms,
)
from mrtune.optimizer.workflow_candidates import (
    DEFAULT_JOB_STRATEGY,
    TUNED_PROPERTIES,
    candidate_configs,
    pareto_front,
    strategy_candidate,
)
from mrtune.optimizer.workflow_eval import (
    ExtrapolationResult,
    JobEvaluation,
    WorkflowEvaluation,
    _capacities,
    evaluate_workflow,
    extrapolation_baseline,
    job_config,
    job_task_arrays,
)
from mrtune.optimizer.workflow_trust import (
    config_diff,
    far_note,
    region_mask,
    withhold_misses,
)
from mrtune.readers.workflow_file import WorkflowJob, WorkflowSpec
from mrtune.search_spaces import SearchSpace

#: Up to this many combinations a stage is tuned exhaustively (vectorised, in chunks).
EXHAUSTIVE_COMBINATIONS = 200_000
_CHUNK = 20_000


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
    #: Per job, what ``optimize``'s trust rules kept from it (:mod:`.workflow_trust`): a far
    #: optimum left out of its candidates, a change withheld for its failed calibration.
    trust_notes: dict[str, list[str]] = field(default_factory=dict)


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
    candidates (``None``: the workflow grid only). Steps: each job's candidates and their
    Pareto front (:func:`_job_choice`), each stage's flow-shop search over those fronts
    (:func:`_tune_stage_of`), then the workflow evaluated at the current, the each-job-alone
    and the tuned configurations.
    """
    estimate = estimate or spec.estimate
    order = order or spec.order
    _, red_cap = _capacities(spec)
    choices: dict[str, JobChoice] = {}
    notes: dict[str, str] = {}
    trust: dict[str, list[str]] = {}
    for job in spec.jobs:
        choices[job.name] = _job_choice(spec, job, red_cap, strategy, estimate, notes, trust)
    methods = []
    for stage in spec.stages:
        for _ in range(len(stage) + 1):  # a withheld job is held at its current setting
            method = _tune_stage_of(stage, choices, order, exhaustive_limit)
            if not withhold_misses(spec, stage, choices, trust):
                break
        methods.append(method)
    current = evaluate_workflow(spec, estimate=estimate, order=order)
    alone = evaluate_workflow(
        spec, estimate=estimate, order=order, properties=_props_for(choices, "alone")
    )
    tuned = evaluate_workflow(
        spec, estimate=estimate, order=order, properties=_props_for(choices, "workflow")
    )
    return WorkflowTuning(
        current=current,
        alone=alone,
        tuned=tuned,
        changes=_changes_for(choices, "workflow"),
        alone_changes=_changes_for(choices, "alone"),
        candidates={n: len(c.map_ms) for n, c in choices.items()},
        pareto_sizes={n: len(c.pareto) for n, c in choices.items()},
        stage_methods=methods,
        job_search_notes=notes,
        trust_notes=trust,
    )


def _job_choice(
    spec: WorkflowSpec,
    job: WorkflowJob,
    red_cap: int | None,
    strategy: str | None,
    estimate: str,
    notes: dict[str, str],
    trust: dict[str, list[str]],
) -> JobChoice:
    """One job's candidates: its current configuration, then (when tuned) the workflow grid
    and the registry strategy's own optimum, outside and inside the trust region (its note
    goes into ``notes``); a job given by its tasks has none. Only the candidates inside the
    trust region may be picked (:func:`~.workflow_trust.region_mask`; a far optimum's note
    goes into ``trust``). The front is cut on ``(T^M, T^R)``; both picks start at the job's
    own best."""
    allowed = None
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
            space = SearchSpace.for_job(job.profile, base, spec.cluster)  # optimize's limits
            grid = candidate_configs(
                base, reduce_capacity=cap, map_only=job.profile.map_only, space=space
            )
            found: list[HadoopConfig] = []
            if strategy is not None:
                for region in (False, True):
                    more, notes[job.name] = strategy_candidate(
                        job.profile, base, spec.cluster, strategy, region=region
                    )
                    found += more
            configs = [base, *grid, *found]
            allowed = region_mask(space, configs)
        arrays = job_task_arrays(spec, job.name, configs)
    m, r = arrays.stage_durations(estimate)
    if allowed is None:
        allowed = np.ones(m.shape, dtype=bool)
    best = int(np.lexsort((r, m + r))[0])
    ok = np.flatnonzero(allowed)
    alone = int(ok[np.lexsort((r[ok], (m + r)[ok]))[0]])
    if best != alone:
        trust.setdefault(job.name, []).append(far_note(space, configs[best]))
    front = ok[pareto_front(m[ok], r[ok], (m + r)[ok])]
    return JobChoice(
        name=job.name,
        tunable=tunable,
        configs=configs,
        map_ms=m,
        reduce_ms=r,
        pareto=front,
        alone=alone,
        workflow=alone,
    )


def _tune_stage_of(
    stage: Sequence[str], choices: dict[str, JobChoice], order: str, exhaustive_limit: int
) -> str:
    """Tune one stage over its jobs' fronts (:func:`tune_stage`), starting from each job's
    own best; records each job's workflow pick in ``choices`` and returns the method used."""
    stage_choices = [choices[n] for n in stage]
    front_picks, _, method = tune_stage(
        [c.map_ms[c.pareto] for c in stage_choices],
        [c.reduce_ms[c.pareto] for c in stage_choices],
        order=order,
        start=[_position(c.pareto, c.alone) for c in stage_choices],
        exhaustive_limit=exhaustive_limit,
    )
    for c, p in zip(stage_choices, front_picks, strict=True):
        choices[c.name] = replace(c, workflow=int(c.pareto[p]))
    return method


def _props_for(choices: dict[str, JobChoice], pick: str) -> dict[str, dict[str, str]]:
    """Each tunable job's properties at its ``pick`` (``"alone"`` or ``"workflow"``)."""
    out: dict[str, dict[str, str]] = {}
    for name, c in choices.items():
        if c.configs:
            out[name] = c.configs[getattr(c, pick)].to_properties()
    return out


def _changes_for(
    choices: dict[str, JobChoice], pick: str
) -> dict[str, dict[str, tuple[str | None, str]]]:
    """Each tunable job's changed properties at its ``pick``, against its current ones."""
    return {
        name: config_diff(c.configs[0], c.configs[getattr(c, pick)])
        for name, c in choices.items()
        if c.configs
    }


__all__ = [
    "DEFAULT_JOB_STRATEGY",
    "EXHAUSTIVE_COMBINATIONS",
    "ExtrapolationResult",
    "JobEvaluation",
    "TUNED_PROPERTIES",
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
