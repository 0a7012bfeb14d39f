"""A hot partition (``costmodel/partitions.py``) moves work between reduces, never in or out.

Drawn jobs and configurations (``test_properties``'s) with a drawn hot share: the map side and
every job total that cannot depend on how the keys fall (shuffled bytes; without a combiner,
which merges in memory per reduce, the reduce's input and output) equal the equal-partition
model's; records are conserved map to reduce; the largest reduce is never shorter than the
others; and a catalog's stacked rows give each job's own answer.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.costmodel import ConfigBatch, HadoopConfig, JobProfile, predict_job
from mrtune.costmodel.job import evaluate
from mrtune.costmodel.profile import PartitionSkew
from mrtune.costmodel.stacked import StackedProfiles
from tests.costmodel.test_properties import CLUSTER, configs, profiles

shares = st.floats(0.01, 0.95)


def _skewed(p: JobProfile, h: float) -> JobProfile:
    skew = PartitionSkew(hot_share=h, largest_share=h + (1 - h) / 4, reducers=4, counter="x")
    return p.model_copy(update={"partition_skew": skew})


@settings(max_examples=80, deadline=None)
@given(p=profiles, c=configs, h=shares)
def test_a_hot_partition_keeps_the_job_totals(p: JobProfile, c: HadoopConfig, h: float) -> None:
    batch = ConfigBatch.from_configs([c])
    hot, flat = (predict_job(q, batch, CLUSTER) for q in (_skewed(p, h), p))
    same = ["MAP_OUTPUT_RECORDS", "MAP_SPILLED_RECORDS", "REDUCE_SHUFFLE_BYTES", "SHUFFLED_MAPS"]
    if not (p.has_combiner and c.use_combiner):
        same += ["REDUCE_INPUT_RECORDS", "REDUCE_OUTPUT_RECORDS", "HDFS_BYTES_WRITTEN"]
    for name in same:
        assert np.isclose(hot.counters[name][0], flat.counters[name][0], rtol=1e-9), name
    k = hot.counters
    expected = (
        k["MAP_OUTPUT_RECORDS"][0] - k["COMBINE_INPUT_RECORDS"][0] + k["COMBINE_OUTPUT_RECORDS"][0]
    )
    assert np.isclose(k["REDUCE_INPUT_RECORDS"][0], expected, rtol=1e-9)
    assert hot.largest_reduce_ms[0] >= hot.reduce_task_ms[0]
    assert np.isfinite(hot.job_ms).all() and (hot.job_ms > 0).all()


@settings(max_examples=30, deadline=None)
@given(p=profiles, q=profiles, cs=st.lists(configs, min_size=2, max_size=4), h=shares)
def test_stacked_rows_give_each_jobs_own_answer(
    p: JobProfile, q: JobProfile, cs: list[HadoopConfig], h: float
) -> None:
    jobs = [_skewed(p, h), q]
    batch = ConfigBatch.from_configs(cs + cs)
    rows = np.repeat(np.arange(2), len(cs))
    job_ms, gbs = evaluate(StackedProfiles.of(jobs, rows), batch, CLUSTER)
    for j, prof in enumerate(jobs):
        alone, alone_gbs = evaluate(prof, ConfigBatch.from_configs(cs), CLUSTER)
        part = slice(j * len(cs), (j + 1) * len(cs))
        np.testing.assert_allclose(job_ms[part], alone, rtol=1e-9)
        np.testing.assert_allclose(gbs[part], alone_gbs, rtol=1e-9)
