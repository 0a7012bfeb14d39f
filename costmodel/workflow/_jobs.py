"""One job's map-stage and reduce-stage durations from its task counts and task times.

The workflow models only need ``T^M`` and ``T^R`` per job (seed §3.3: "we can compute for any
MapReduce job J_i the duration of its map and reduce stages ... using the platform model and
bounds based estimates"). This module turns the cost model's per-task numbers (or measured
ones) into those two durations, in four ways:

``waves``
    ``ceil(n / k) · t``, the cost model's own wave estimate (reference §6.1).
``lower`` / ``upper`` / ``average``
    The ARIA makespan bounds of :mod:`mrtune.costmodel.workflow._bounds` and their mean, the seed's
    choice (footnote 7).
``model``
    The job model's own split (:func:`mrtune.costmodel.job.predict_job`): ``T^M`` its map stage,
    ``T^R`` the rest of the job (reduce waves after the part of the first wave's shuffle that
    overlaps the maps), so the basic model adds up exactly the predicted job times. It runs on
    the cost model's cluster (its own slot/container count), not on a workflow capacity given
    separately. Jobs that do not come from the cost model fall back to ``waves``.

With one task time per job (the analytical model predicts the same time for every task) the
longest task equals the mean unless a measured spread (``max / mean``) is supplied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from mrtune.costmodel.workflow._bounds import StageBounds, makespan_bounds, wave_time

Estimate = Literal["waves", "lower", "upper", "average", "model"]
ESTIMATES: tuple[str, ...] = ("waves", "lower", "upper", "average", "model")


@dataclass(frozen=True)
class JobTasks:
    """A job as the workflow model sees it: tasks, per-task times (ms) and the capacity.

    ``map_slots`` / ``reduce_slots`` are the map and reduce slots (Hadoop 1) or containers
    (YARN) the workflow's jobs share; within a stage each job gets all of them while it runs
    (eq. 3.22: the next job's maps start when the previous job's maps release the slots).
    """

    name: str
    n_maps: int
    n_reduces: int
    map_task_ms: float
    reduce_task_ms: float
    map_slots: int
    reduce_slots: int
    map_max_ms: float | None = None
    reduce_max_ms: float | None = None
    model_map_stage_ms: float | None = None
    model_reduce_stage_ms: float | None = None

    def __post_init__(self) -> None:
        if self.n_maps < 1:
            raise ValueError(f"job {self.name!r}: a job needs at least one map task")
        if self.n_reduces < 0:
            raise ValueError(f"job {self.name!r}: n_reduces must be >= 0")
        if self.map_slots < 1 or self.reduce_slots < 1:
            raise ValueError(f"job {self.name!r}: map and reduce capacity must be >= 1")
        if self.map_task_ms < 0 or self.reduce_task_ms < 0:
            raise ValueError(f"job {self.name!r}: task times must be >= 0")

    @property
    def map_bounds(self) -> StageBounds:
        longest = self.map_task_ms if self.map_max_ms is None else self.map_max_ms
        return makespan_bounds(self.n_maps, self.map_task_ms, longest, self.map_slots)

    @property
    def reduce_bounds(self) -> StageBounds:
        longest = self.reduce_task_ms if self.reduce_max_ms is None else self.reduce_max_ms
        return makespan_bounds(self.n_reduces, self.reduce_task_ms, longest, self.reduce_slots)

    @property
    def map_waves_ms(self) -> float:
        return float(wave_time(self.n_maps, self.map_task_ms, self.map_slots))

    @property
    def reduce_waves_ms(self) -> float:
        return float(wave_time(self.n_reduces, self.reduce_task_ms, self.reduce_slots))

    def stage_durations(self, estimate: str = "average") -> tuple[float, float]:
        """``(T^M, T^R)`` in ms under ``estimate`` (one of :data:`ESTIMATES`)."""
        if estimate == "model" and self.model_map_stage_ms is not None:
            return self.model_map_stage_ms, self.model_reduce_stage_ms or 0.0
        if estimate in ("waves", "model"):
            return self.map_waves_ms, self.reduce_waves_ms
        if estimate not in ESTIMATES:
            raise ValueError(f"unknown estimate {estimate!r}; allowed: {', '.join(ESTIMATES)}")
        return (
            float(self.map_bounds.estimate(estimate)),
            float(self.reduce_bounds.estimate(estimate)),
        )


def stage_durations_batch(
    n_maps: np.ndarray,
    n_reduces: np.ndarray,
    map_task_ms: np.ndarray,
    reduce_task_ms: np.ndarray,
    map_slots: np.ndarray | int,
    reduce_slots: np.ndarray | int,
    estimate: str = "average",
    *,
    map_spread: float = 1.0,
    reduce_spread: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :meth:`JobTasks.stage_durations` for a batch of configurations of one job.

    ``*_spread`` is the ratio longest / mean task time (1.0 when all tasks are equal). The
    ``model`` estimate needs the job model's split and is computed by the caller.
    """
    if estimate == "waves":
        return (
            wave_time(n_maps, map_task_ms, map_slots),
            wave_time(n_reduces, reduce_task_ms, reduce_slots),
        )
    if estimate not in ESTIMATES or estimate == "model":
        allowed = ", ".join(e for e in ESTIMATES if e != "model")
        raise ValueError(f"unknown estimate {estimate!r}; allowed here: {allowed}")
    mt = np.asarray(map_task_ms, dtype=np.float64)
    rt = np.asarray(reduce_task_ms, dtype=np.float64)
    mb = makespan_bounds(n_maps, mt, mt * map_spread, map_slots)
    rb = makespan_bounds(n_reduces, rt, rt * reduce_spread, reduce_slots)
    return mb.estimate(estimate), rb.estimate(estimate)
