"""Partitions of unequal size: the hot partition and the others (:class:`PartitionSkew`).

The job model's reduce task fetches one segment per map of the mean partition's size
(reference §4.1's uniform partitioning). A profile with a hot share ``h`` has the reduce side
priced twice: one reduce holds ``1 + h(R − 1)`` mean partitions and each of the other
``R − 1`` holds ``1 − h``, which add up to ``R``, so every job total (shuffled bytes, reduce
input and output) is unchanged by the split while each reduce's fetch decisions (memory or
disk against the single-shuffle limit), merges and time follow its own partition. The keys
are spread evenly (a hot key is one key of many): each partition keeps the mean partition's
distinct keys, so the job's groups and combined records stay constant in ``R``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.stacked import StackedProfiles

F64 = NDArray[np.float64]
#: The largest partition over the mean from which a run's partitions count as skewed (a
#: hash partition of many keys varies by a few percent; a hot key shows as a multiple).
SKEW_RATIO = 1.5


def hot_share(profile: JobProfile | StackedProfiles) -> F64 | float | None:
    """``h`` of the profile (an array for stacked jobs, 0 on rows without skew), or ``None``
    when no row has a hot partition (the model then prices one reduce, as before)."""
    if isinstance(profile, StackedProfiles):
        h = profile.hot_share
        return h if bool((h > 0).any()) else None
    skew = profile.partition_skew
    return None if skew is None or skew.hot_share <= 0 else float(skew.hot_share)


def partition_factors(h: F64 | float, reducers: F64) -> tuple[F64, F64]:
    """``(hot, other)``: the hot reduce's and each other reduce's partition over the mean
    partition, at ``reducers`` (``max(R, 1)``; with one reduce the hot one is the mean)."""
    hot = 1.0 + h * (reducers - 1.0)
    other = np.broadcast_to(1.0 - np.asarray(h, dtype=np.float64), np.shape(hot))
    return hot, np.asarray(other, dtype=np.float64)


def hot_share_of(largest_share: float, reducers: int) -> float:
    """``h`` from the largest reduce's share ``s`` of ``R0`` reduces: ``(s·R0 − 1)/(R0 − 1)``,
    within [0, 1)."""
    if reducers < 2:
        return 0.0
    h = (largest_share * reducers - 1.0) / (reducers - 1.0)
    return float(min(max(h, 0.0), 1.0 - 1e-9))
