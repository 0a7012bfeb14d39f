"""Workflows of MapReduce jobs (the workflow seed, Zhang/Verma/Cherkasova, §3.3).

A workflow is a DAG of jobs, run by stages as Pig does (:func:`pig_stages`). Each job's map and
reduce stage durations come from task waves or the ARIA makespan bounds (:class:`JobTasks`);
a stage's completion time follows the basic model (sum of job times, eq. 3.17) or the refined
model with the map/reduce overlap of concurrent jobs (eqs. 3.19–3.23); the workflow time is the
sum over stages (eq. 3.18). :func:`best_order` picks the order of a stage's jobs that minimises
the refined time, and :func:`linear_extrapolation` is the seed's baseline.
"""

from __future__ import annotations

from mrtune.costmodel.workflow._bounds import (
    StageBounds,
    bounds_from_durations,
    makespan_bounds,
    wave_time,
)
from mrtune.costmodel.workflow._dag import pig_stages
from mrtune.costmodel.workflow._extrapolation import LinearFit, fit_linear, linear_extrapolation
from mrtune.costmodel.workflow._jobs import ESTIMATES, JobTasks, stage_durations_batch
from mrtune.costmodel.workflow._model import (
    StageSchedule,
    basic_schedule,
    basic_stage_ms,
    refined_schedule,
    refined_stage_ms,
)
from mrtune.costmodel.workflow._order import (
    EXHAUSTIVE_LIMIT,
    OrderChoice,
    best_order,
    exhaustive_order,
    johnson_order,
    johnson_stage_ms,
)
from mrtune.costmodel.workflow._predict import TaskArrays, observed_spread, predict_tasks
from mrtune.costmodel.workflow._workflow import (
    ORDER_POLICIES,
    JobTimeline,
    StageResult,
    WorkflowEstimate,
    estimate_workflow,
)

__all__ = [
    "ESTIMATES",
    "EXHAUSTIVE_LIMIT",
    "ORDER_POLICIES",
    "JobTasks",
    "JobTimeline",
    "LinearFit",
    "OrderChoice",
    "StageBounds",
    "StageResult",
    "StageSchedule",
    "TaskArrays",
    "WorkflowEstimate",
    "basic_schedule",
    "best_order",
    "basic_stage_ms",
    "bounds_from_durations",
    "estimate_workflow",
    "exhaustive_order",
    "fit_linear",
    "johnson_order",
    "johnson_stage_ms",
    "linear_extrapolation",
    "makespan_bounds",
    "observed_spread",
    "pig_stages",
    "predict_tasks",
    "refined_schedule",
    "refined_stage_ms",
    "stage_durations_batch",
    "wave_time",
]
