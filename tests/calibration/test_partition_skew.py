"""Partitions of unequal size: found where the profile is made, priced apart by the model.

The fixtures are real local runs of the examples' SecondarySort (hadoop-mapreduce-examples
3.4.2) over 22 MB of "int int" lines with 70% of them on first = 0: its FirstPartitioner sent
27.1 MB to one of 4 reduces and 2.6 MB to each other. The model had given every reduce the mean
partition: it fetched every segment to memory where, with a 1% shuffle buffer, Hadoop sent the
big reduce's three 9 MB segments to disk. The held-out runs (2, 4 and 8 reduces with that
buffer, and 16 reduces at the default) were not fitted: the profile is the 4-reduce default's.
"""

from __future__ import annotations

import pytest

from mrtune.calibration._fidelity_figures import measured_figures, predicted_figures
from mrtune.calibration.run_profile import profile_from_run
from mrtune.calibration.run_record import run_config
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.job import predict_job
from mrtune.costmodel.partitions import hot_share_of, partition_factors
from mrtune.costmodel.profile import JobProfile, TaskTiming
from mrtune.optimizer.whatif_checks import skewed_partitions_note
from mrtune.profiling.partition_skew import partition_skew
from mrtune.readers.run_records import RunRecord
from tests.calibration.run_fixtures import by_label, records

#: What the reduces' fetches and merges decide: every one exact on the held-out runs.
REDUCE_FIGURES = (
    "fetches_to_memory",
    "fetches_to_disk",
    "in_memory_merges",
    "REDUCE_SPILLED_RECORDS",
    "REDUCE_INPUT_RECORDS",
    "REDUCE_SHUFFLE_BYTES",
)


def _reduce(i: int, shuffle: float) -> TaskTiming:
    return TaskTiming(
        attempt_id=f"r{i}",
        kind="reduce",
        start_ms=0,
        finish_ms=1,
        counters={"REDUCE_SHUFFLE_BYTES": shuffle},
    )


@pytest.fixture(scope="module")
def profile() -> JobProfile:
    (rec,) = records("examples-secondarysort-skewed.jsonl.gz")
    return profile_from_run(rec)


@pytest.fixture(scope="module")
def held_out() -> dict[str, RunRecord]:
    return by_label("examples-secondarysort-skewed-heldout.jsonl.gz")


def _largest_share(rec: RunRecord) -> float:
    sizes = [
        r.counters["org.apache.hadoop.mapreduce.TaskCounter"]["REDUCE_SHUFFLE_BYTES"]
        for r in rec.reduce_attempts
    ]
    return max(sizes) / sum(sizes)


def test_a_skewed_run_is_profiled_as_a_hot_share_and_said(profile: JobProfile) -> None:
    skew = profile.partition_skew
    assert skew is not None and skew.reducers == 4
    assert skew.hot_share == pytest.approx(0.70, abs=0.005)  # 70% of the records on one key
    lines = [w for w in profile.warnings if w.startswith("partitions are skewed")]
    assert len(lines) == 1 and "3.1x the mean" in lines[0] and "27,121,994" in lines[0]
    key = "mapreduce.reduce.shuffle.input.buffer.percent"
    assert skewed_partitions_note(profile, {key: "0.01"}) == lines[0]
    assert skewed_partitions_note(profile, {"mapreduce.task.io.sort.mb": "50"}) is None


def test_the_hot_share_law_holds_at_reducer_counts_not_fitted(
    profile: JobProfile, held_out: dict[str, RunRecord]
) -> None:
    # the largest reduce holds h + (1 - h)/R: 0.850, 0.775, 0.737, 0.719 measured at 2-16
    h = profile.partition_skew.hot_share
    for rec in held_out.values():
        R = rec.num_reduces
        assert _largest_share(rec) == pytest.approx(h + (1 - h) / R, rel=2e-3), rec.label


def test_each_reduce_fetches_and_merges_as_hadoop_did(
    profile: JobProfile, held_out: dict[str, RunRecord]
) -> None:
    for label, rec in held_out.items():
        pred = predict_job(
            profile, ConfigBatch.from_configs([run_config(rec)]), ClusterSpec.local()
        )
        got, real = predicted_figures(pred), measured_figures(rec)
        for name in REDUCE_FIGURES:
            assert got[name] == pytest.approx(real[name], rel=1e-6), (label, name)
    # the 1% buffer's runs: the hot reduce's segments go to disk, the others' to memory
    assert measured_figures(held_out["ssk-r8-shuf001"])["fetches_to_disk"] == 3


def test_the_split_keeps_every_job_total_and_groups_constant_in_r(profile: JobProfile) -> None:
    even = profile.model_copy(update={"partition_skew": None})
    cfg = run_config(records("examples-secondarysort-skewed.jsonl.gz")[0])
    batch = ConfigBatch.from_configs([cfg.with_changes({"num_reducers": r}) for r in (1, 3, 9)])
    hot, flat = (predict_job(p, batch, ClusterSpec.local()) for p in (profile, even))
    for name in (
        "REDUCE_SHUFFLE_BYTES",
        "REDUCE_INPUT_RECORDS",
        "REDUCE_INPUT_GROUPS",
        "REDUCE_OUTPUT_RECORDS",
        "HDFS_BYTES_WRITTEN",
    ):
        assert hot.counters[name] == pytest.approx(flat.counters[name], rel=1e-9), name
    assert (hot.largest_reduce_ms >= hot.reduce_task_ms).all()
    assert (hot.job_ms >= flat.job_ms - 1e-6).all()


def test_partition_factors_add_up_to_r() -> None:
    import numpy as np

    R = np.array([1.0, 2.0, 4.0, 64.0])
    hot, other = partition_factors(0.7, R)
    assert hot + (R - 1) * other == pytest.approx(R)
    assert hot[0] == 1.0  # one reduce holds the whole output
    assert hot_share_of(0.775, 4) == pytest.approx(0.7)
    assert hot_share_of(0.2, 4) == 0.0  # below the mean: no hot share


def test_equal_partitions_say_nothing() -> None:
    assert partition_skew([_reduce(i, 1e6 * (1 + 0.1 * i)) for i in range(4)]) == (None, None)
    assert partition_skew([_reduce(0, 5e6)]) == (None, None)  # one reduce: nothing to compare
    skew, line = partition_skew([_reduce(0, 1e6), _reduce(1, 1e6), _reduce(2, 5e6)])
    assert skew is not None and line is not None
    assert skew.hot_share == pytest.approx((5 / 7 * 3 - 1) / 2)


def test_on_a_cluster_the_hot_reduce_ends_the_job(profile: JobProfile) -> None:
    # on 4 nodes the reduces run at once: the job waits for the hot one, in the analytic model
    # and in the task-by-task replay (reduce 0 there); more reducers barely shorten it
    from mrtune.costmodel.scheduler import simulate_schedule

    even = profile.model_copy(update={"partition_skew": None})
    cluster = ClusterSpec(num_nodes=4, node_memory_mb=8192, node_vcores=8)
    cfg = run_config(records("examples-secondarysort-skewed.jsonl.gz")[0])
    for R in (4, 16):
        c = cfg.with_changes({"num_reducers": R})
        hot, flat = (
            predict_job(p, ConfigBatch.from_configs([c]), cluster) for p in (profile, even)
        )
        assert float(hot.job_ms[0]) > float(flat.job_ms[0]) + 1000.0
        sched = simulate_schedule(profile, c, cluster)
        reds = [t for t in sched.tasks if t.kind == "reduce"]
        assert max(reds, key=lambda t: t.end_ms - t.start_ms).index == 0
        replay = sched.job_ms + profile.costs.job_overhead_ms
        assert replay == pytest.approx(float(hot.job_ms[0]), rel=0.05)
