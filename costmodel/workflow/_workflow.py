"""A whole workflow: stages in sequence (eq. 3.18), each under the basic and the refined model.

Pig submits the next stage only when the previous one has completed, so the workflow time is
the sum of its stage times (eq. 3.18) under either model; the models differ inside a stage of
concurrent jobs (:mod:`mrtune.costmodel.workflow._model`). The result carries absolute start and end
times of every job's map and reduce stage, for the per-job table and the Gantt timeline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mrtune.costmodel.workflow._model import StageSchedule, basic_schedule, refined_schedule
from mrtune.costmodel.workflow._order import EXHAUSTIVE_LIMIT, OrderChoice, best_order

ORDER_POLICIES: tuple[str, ...] = ("given", "best")


@dataclass(frozen=True)
class JobTimeline:
    """When one job's map and reduce stages run, in ms from the workflow start."""

    name: str
    map_start: float
    map_end: float
    reduce_start: float
    reduce_end: float


@dataclass(frozen=True)
class StageResult:
    """One stage under both models.

    ``order`` is the execution order the timelines use (the given one, or the best one when the
    policy is ``"best"``); ``best`` is the optimal order in any case, so the output can show
    what reordering would save.
    """

    index: int
    jobs: tuple[str, ...]
    order: tuple[str, ...]
    best: OrderChoice
    best_jobs: tuple[str, ...]
    basic_ms: float
    refined_ms: float
    given_refined_ms: float
    basic_timeline: tuple[JobTimeline, ...]
    refined_timeline: tuple[JobTimeline, ...]


@dataclass(frozen=True)
class WorkflowEstimate:
    """Per-stage results and the totals of eq. 3.18 under both models (ms)."""

    stages: tuple[StageResult, ...]
    order_policy: str

    @property
    def basic_ms(self) -> float:
        return float(sum(s.basic_ms for s in self.stages))

    @property
    def refined_ms(self) -> float:
        return float(sum(s.refined_ms for s in self.stages))


def _timeline(
    names: Sequence[str], sched: StageSchedule, offset: float
) -> tuple[JobTimeline, ...]:
    return tuple(
        JobTimeline(
            name=name,
            map_start=offset + float(sched.map_start[i]),
            map_end=offset + float(sched.map_end[i]),
            reduce_start=offset + float(sched.reduce_start[i]),
            reduce_end=offset + float(sched.reduce_end[i]),
        )
        for i, name in enumerate(names)
    )


def estimate_workflow(
    stages: Sequence[Sequence[str]],
    durations: Mapping[str, tuple[float, float]],
    *,
    order: str = "given",
    exhaustive_limit: int = EXHAUSTIVE_LIMIT,
) -> WorkflowEstimate:
    """Basic and refined completion time of a staged workflow.

    Parameters
    ----------
    stages
        Job names per stage, in the given (submission) order (:func:`pig_stages`).
    durations
        ``{job: (T^M, T^R)}`` in ms.
    order
        ``"given"`` runs each stage in the listed order; ``"best"`` in the order minimising the
        refined stage time (:func:`best_order`).
    """
    if order not in ORDER_POLICIES:
        raise ValueError(f"unknown order policy {order!r}; allowed: {', '.join(ORDER_POLICIES)}")
    results: list[StageResult] = []
    basic_clock = 0.0
    refined_clock = 0.0
    for index, jobs in enumerate(stages):
        jobs = tuple(jobs)
        missing = [j for j in jobs if j not in durations]
        if missing:
            raise ValueError(f"no stage durations for job(s) {', '.join(missing)}")
        m = np.array([durations[j][0] for j in jobs], dtype=np.float64)
        r = np.array([durations[j][1] for j in jobs], dtype=np.float64)
        choice = best_order(m, r, exhaustive_limit=exhaustive_limit)
        given_refined = refined_schedule(m, r)
        idx = list(choice.order) if order == "best" else list(range(len(jobs)))
        names = tuple(jobs[i] for i in idx)
        refined = given_refined if order == "given" else refined_schedule(m[idx], r[idx])
        basic = basic_schedule(m[idx], r[idx])
        result = StageResult(
            index=index,
            jobs=jobs,
            order=names,
            best=choice,
            best_jobs=tuple(jobs[i] for i in choice.order),
            basic_ms=float(basic.stage_ms),
            refined_ms=float(refined.stage_ms),
            given_refined_ms=float(given_refined.stage_ms),
            basic_timeline=_timeline(names, basic, basic_clock),
            refined_timeline=_timeline(names, refined, refined_clock),
        )
        basic_clock += result.basic_ms
        refined_clock += result.refined_ms
        results.append(result)
    return WorkflowEstimate(stages=tuple(results), order_policy=order)
