"""Completion time of one stage of concurrent jobs: the basic and the refined model.

Inputs are the durations of each job's map stage ``T^M`` and reduce stage ``T^R`` (ms), with
the jobs on the **last** axis in execution order; leading axes are a batch (e.g. one row per
candidate configuration), so a whole batch is evaluated in one numpy pass.

* **Basic** (seed eq. 3.17): the jobs' completion times add up, as if they ran one after the
  other: ``T_S = Σ_i (T^M_i + T^R_i)``.
* **Refined** (seed eqs. 3.19–3.23): job ``i``'s maps start when job ``i − 1``'s maps end
  (3.22); its reduces start at ``max(end of its own maps, end of job i − 1's reduces)`` (3.23);
  ``T_S = timeEnd^R_last − timeStart^M_first`` (3.19). This is the makespan of a two-machine
  permutation flow shop (maps on machine 1, reduces on machine 2), which is why Johnson's rule
  gives the best order (:mod:`mrtune.costmodel.workflow._order`).

By induction ``timeEnd^R_i ≤ Σ_{j ≤ i} (T^M_j + T^R_j)``, so the refined time is never above the
basic one, and the two agree for a single job.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


def _as_pair(map_ms: ArrayLike, reduce_ms: ArrayLike) -> tuple[FloatArray, FloatArray]:
    m = np.asarray(map_ms, dtype=np.float64)
    r = np.asarray(reduce_ms, dtype=np.float64)
    m, r = np.broadcast_arrays(m, r)
    if m.ndim == 0:
        raise ValueError("map_ms and reduce_ms need a job axis (the last axis)")
    if np.any(m < 0) or np.any(r < 0):
        raise ValueError("stage durations must be >= 0")
    return m, r


@dataclass(frozen=True)
class StageSchedule:
    """Start and end of every job's map and reduce stage, relative to the stage start (ms).

    Each field is an ndarray of shape ``(..., n_jobs)``, jobs in execution order.
    """

    map_start: FloatArray
    map_end: FloatArray
    reduce_start: FloatArray
    reduce_end: FloatArray

    @property
    def stage_ms(self) -> FloatArray:
        """Eq. 3.19: last reduce end − first map start, shape ``(...)``."""
        return self.reduce_end[..., -1] - self.map_start[..., 0]


def basic_schedule(map_ms: ArrayLike, reduce_ms: ArrayLike) -> StageSchedule:
    """Jobs one after the other (eq. 3.17): job ``i`` starts when job ``i − 1`` has finished."""
    m, r = _as_pair(map_ms, reduce_ms)
    job_end = np.cumsum(m + r, axis=-1)
    job_start = np.zeros_like(m)
    job_start[..., 1:] = job_end[..., :-1]
    return StageSchedule(
        map_start=job_start, map_end=job_start + m, reduce_start=job_start + m, reduce_end=job_end
    )


def refined_schedule(map_ms: ArrayLike, reduce_ms: ArrayLike) -> StageSchedule:
    """Eqs. 3.20–3.23: maps back to back, each job's reduces after its maps and the previous
    job's reduces."""
    m, r = _as_pair(map_ms, reduce_ms)
    map_end = np.cumsum(m, axis=-1)  # eq. 3.20
    map_start = np.zeros_like(m)
    map_start[..., 1:] = map_end[..., :-1]  # eq. 3.22
    reduce_start = np.empty_like(m)
    reduce_end = np.empty_like(m)
    previous_end = np.zeros(m.shape[:-1])
    for i in range(m.shape[-1]):  # jobs in a stage: a handful; the batch axes stay vectorised
        reduce_start[..., i] = np.maximum(map_end[..., i], previous_end)  # eq. 3.23
        reduce_end[..., i] = reduce_start[..., i] + r[..., i]  # eq. 3.21
        previous_end = reduce_end[..., i]
    return StageSchedule(map_start, map_end, reduce_start, reduce_end)


def basic_stage_ms(map_ms: ArrayLike, reduce_ms: ArrayLike) -> FloatArray:
    """Eq. 3.17 for one stage: ``Σ_i (T^M_i + T^R_i)``, shape ``(...)``."""
    m, r = _as_pair(map_ms, reduce_ms)
    return np.sum(m + r, axis=-1)


def refined_stage_ms(map_ms: ArrayLike, reduce_ms: ArrayLike) -> FloatArray:
    """Eq. 3.19 with eqs. 3.20–3.23, shape ``(...)``."""
    return refined_schedule(map_ms, reduce_ms).stage_ms
