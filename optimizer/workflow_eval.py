"""What-if for a workflow of jobs: :func:`evaluate_workflow` predicts every job of a
:class:`~mrtune.readers.workflow_file.WorkflowSpec` with the cost model (one vectorised call
per job), turns the task times into map and reduce stage durations (waves, the seed's bounds,
or the job model's own split) and runs the workflow models of :mod:`mrtune.costmodel.workflow`;
:func:`extrapolation_baseline` is the seed's linear-extrapolation baseline (§3.3).

Split from :mod:`mrtune.optimizer.workflow_tuning` by what it holds: evaluating one
configuration per job. The tuner, which searches those configurations, imports it (and
re-exports its names, so ``workflow_tuning`` stays the one entry point).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from pydantic import ValidationError

from mrtune.costmodel.config import HadoopConfig, config_error_line
from mrtune.costmodel.workflow import (
    JobTasks,
    TaskArrays,
    WorkflowEstimate,
    estimate_workflow,
    fit_linear,
    predict_tasks,
)
from mrtune.errors import InputError
from mrtune.readers.workflow_file import TaskSpec, WorkflowSpec, scaled_tasks


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
        raise InputError(
            config_error_line(exc), path=spec.source, field=f"jobs.{name}.config"
        ) from None
    except ValueError as exc:
        raise InputError(str(exc), path=spec.source, field=f"jobs.{name}.config") from None


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
        profile = profile.with_input_bytes(profile.input_bytes * scale)
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
