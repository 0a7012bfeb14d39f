"""Duration of one job's map (or reduce) stage: task waves and the makespan bounds.

Two estimates of how long ``n`` tasks take on ``k`` slots (or containers):

* **Waves** (reference §6.1, the Starfish analytical estimate): ``ceil(n / k)`` waves of the
  model's task time. Exact when every task takes the same time.
* **Bounds** (seed §3.2.2, the ARIA "makespan theorem" for greedy assignment of tasks to the
  first free slot): with mean task time ``avg`` and longest task ``max``,
  ``lower = n·avg/k`` and ``upper = (n − 1)·avg/k + max``. The seed's estimates use their
  average (footnote 7: "the average of the lower and upper bounds").

One deviation, on by default (``floor_at_longest``): the lower bound is raised to the longest
task, ``max(n·avg/k, max)``, since no stage ends before its longest task. It changes nothing
when ``n·avg/k ≥ max`` (the many-waves case the seed evaluates) but keeps a stage of fewer
tasks than slots from being estimated at a fraction of one task (with one reducer on 64 slots
the plain average would be about half the task time).

Every function is vectorised: arguments broadcast against each other and results are
``ndarray`` of the broadcast shape, so a whole batch of configurations is one call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class StageBounds:
    """Lower and upper bound of a stage's makespan (ms), ndarray of the broadcast shape."""

    lower: FloatArray
    upper: FloatArray

    @property
    def average(self) -> FloatArray:
        """The seed's point estimate ``(lower + upper) / 2`` (footnote 7)."""
        return (self.lower + self.upper) / 2.0

    def estimate(self, which: str) -> FloatArray:
        """``"lower"``, ``"upper"`` or ``"average"``."""
        if which == "lower":
            return self.lower
        if which == "upper":
            return self.upper
        if which == "average":
            return self.average
        raise ValueError(f"unknown bound {which!r}; allowed: lower, upper, average")


def makespan_bounds(
    n_tasks: ArrayLike,
    avg_ms: ArrayLike,
    max_ms: ArrayLike,
    slots: ArrayLike,
    *,
    floor_at_longest: bool = True,
) -> StageBounds:
    """ARIA bounds for ``n_tasks`` tasks of mean ``avg_ms`` and longest ``max_ms`` on ``slots``.

    Parameters
    ----------
    n_tasks, avg_ms, max_ms, slots
        Array-likes that broadcast together. ``n_tasks == 0`` (a map-only job's reduce stage)
        gives a zero-length stage.
    floor_at_longest
        Raise the lower bound to ``max`` (see the module docstring); ``False`` gives the seed's
        formulas exactly.

    Returns
    -------
    StageBounds
        ``lower = n·avg/k`` (or ``max(n·avg/k, max)``) and ``upper = (n − 1)·avg/k + max``.
    """
    n = np.asarray(n_tasks, dtype=np.float64)
    avg = np.asarray(avg_ms, dtype=np.float64)
    mx = np.asarray(max_ms, dtype=np.float64)
    k = np.asarray(slots, dtype=np.float64)
    if np.any(n < 0) or np.any(avg < 0) or np.any(k < 1):
        raise ValueError("need n_tasks >= 0, avg_ms >= 0 and slots >= 1")
    if np.any(mx < avg):
        raise ValueError("the longest task (max_ms) cannot be shorter than the mean (avg_ms)")
    lower = n * avg / k
    if floor_at_longest:
        lower = np.where(n > 0, np.maximum(lower, mx), 0.0)
    upper = np.where(n > 0, (n - 1.0) * avg / k + mx, 0.0)
    lower, upper = np.broadcast_arrays(lower, upper)
    return StageBounds(lower=np.array(lower), upper=np.array(upper))


def bounds_from_durations(
    durations_ms: ArrayLike, slots: int, *, floor_at_longest: bool = True
) -> StageBounds:
    """:func:`makespan_bounds` from observed task durations (a 1-D array, one per task)."""
    d = np.asarray(durations_ms, dtype=np.float64)
    if d.ndim != 1:
        raise ValueError("durations_ms must be one-dimensional (one entry per task)")
    if d.size == 0:
        return makespan_bounds(0, 0.0, 0.0, slots, floor_at_longest=floor_at_longest)
    longest = d.max()
    # the float mean of equal values can exceed them by one ulp
    mean = min(d.mean(), longest)
    return makespan_bounds(d.size, mean, longest, slots, floor_at_longest=floor_at_longest)


def wave_time(n_tasks: ArrayLike, task_ms: ArrayLike, slots: ArrayLike) -> FloatArray:
    """``ceil(n / k) · task_ms``: the stage time of equal tasks in waves (reference §6.1)."""
    n = np.asarray(n_tasks, dtype=np.float64)
    k = np.asarray(slots, dtype=np.float64)
    if np.any(n < 0) or np.any(k < 1):
        raise ValueError("need n_tasks >= 0 and slots >= 1")
    return np.ceil(n / k) * np.asarray(task_ms, dtype=np.float64)
