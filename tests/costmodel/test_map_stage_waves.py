"""The map stage counts the waves done at slow-start; it does not divide them back out.

``map_stage_times`` had taken the maps done before the reducers launched as
``floor(reduce_start / t_map_avg) · slots`` with ``reduce_start = k · t_map_avg``. In floating
point ``(k·t)/t`` is below ``k`` for about one map time in twelve at k = 3, so a fraction of a
record in a tail map moved whole waves: 8 of the pinned model's 3,072 configurations had map
stages a third off (``fixtures/model_reference.npz``, re-pinned with the fix).
"""

from __future__ import annotations

import numpy as np
import pytest

from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig
from mrtune.costmodel._job_stages import JobShape, TaskTimes, map_stage_times

#: a map time at which float64 gives floor((3·t)/t) = 2
FLIPPING_T = 12711.115168446613


def _stage(t: float) -> float:
    cfg = HadoopConfig(
        **{
            "mapreduce.job.reduce.slowstart.completedmaps": 0.25,
            "mapreduce.map.memory.mb": 1024,
            "mapreduce.reduce.memory.mb": 1024,
        }
    )
    one = np.ones(1)
    shape = JobShape(
        batch=ConfigBatch.from_configs([cfg]),
        cluster=ClusterSpec(),
        groups=(),
        n_maps=100.0 * one,
        R=4.0 * one,
        Rn=4.0 * one,
        has_red=np.array([True]),
        all_red=True,
        startup=0.0,
        map_slots=10.0 * one,
        red_slots=10.0 * one,
    )
    times = TaskTimes(
        s_map=1.0,
        s_red=1.0,
        r_task=one,
        m_times=[t * one],
        map_work=100.0 * t * one,
        longest=t * one,
        t_map_avg=t * one,
        t_red=one,
    )
    return float(map_stage_times(shape, times)[2][0])


def test_the_reducers_take_containers_after_whole_waves() -> None:
    """100 maps on 10 slots, slow-start at 25 maps: three waves done when 4 reducers launch
    and take 4 slots, then ceil(70 / 6) = 12 waves on the 6 left: 15 map times."""
    assert np.floor((3 * FLIPPING_T) / FLIPPING_T) == 2  # the float quotient the model had
    for t in (FLIPPING_T, 10_000.0, FLIPPING_T * (1 + 1e-12)):
        assert _stage(t) == pytest.approx(15 * t, rel=1e-12)
