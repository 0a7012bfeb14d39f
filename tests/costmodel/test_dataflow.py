"""Exact dataflow: spills, spilled records, materialized bytes (reference §2, §8.1; real runs)."""

from __future__ import annotations

import numpy as np
import pytest

from mrtune.costmodel import (
    ClusterSpec,
    ConfigBatch,
    DataflowStats,
    HadoopConfig,
    JobProfile,
    predict_job,
)
from mrtune.costmodel.map_task import map_task, records_per_spill


def one(cfg: HadoopConfig) -> ConfigBatch:
    return ConfigBatch.from_configs([cfg])


def test_two_million_100_byte_records_defaults() -> None:
    """Reference §8.1 / §2.3: 3 spills in Hadoop 2/3 mode, 8 in Hadoop 1 mode."""
    p = JobProfile(input_bytes=200e6, stats=DataflowStats(input_pair_width=100))
    h3 = map_task(p, one(HadoopConfig()), np.array([200e6]))
    h1 = map_task(
        p,
        one(HadoopConfig(hadoop_version=1, **{"mapred.child.java.opts": "-Xmx1g"})),
        np.array([200e6]),
    )
    assert h3.output_records[0] == 2_000_000
    assert h3.spills[0] == 3 and h1.spills[0] == 8
    per = records_per_spill(one(HadoopConfig()), 100.0)[0]
    assert per == 723_156  # ceil((83,886,080 - 16) / 116)
    assert h3.records_in_last_spill[0] == 2_000_000 - 2 * per


def one_sort_map(sort_mb: int, factor: int):  # noqa: ANN201
    """One map of the sort job: 335,544 records of 100 bytes, 2 GB heap."""
    p = JobProfile(input_bytes=33_554_400, stats=DataflowStats(input_pair_width=100))
    cfg = HadoopConfig.from_properties(
        {
            "mapreduce.task.io.sort.mb": sort_mb,
            "mapreduce.task.io.sort.factor": factor,
            "mapreduce.map.java.opts": "-Xmx2g",
        }
    )
    return map_task(p, one(cfg), np.array([33_554_400.0]))


# Observed on real Hadoop 3.5.0 (shared/spec/real-hadoop.md): 8 maps x 335,544 records of
# 100 bytes; spills per map for io.sort.mb, and map SPILLED_RECORDS / N with sort factor 10.
@pytest.mark.parametrize(
    ("sort_mb", "spill", "spills"),
    [
        (100, 0.8, 1),
        (50, 0.8, 1),
        (20, 0.8, 3),
        (10, 0.8, 5),
        (5, 0.8, 10),
        (3, 0.8, 16),
        (2, 0.8, 24),
        (1, 0.8, 47),
        (20, 0.5, 4),
        (20, 0.99, 2),
    ],
)
def test_spills_match_real_hadoop(sort_mb: int, spill: float, spills: int) -> None:
    p = JobProfile(
        input_bytes=8 * 33_554_400, input_files=8, stats=DataflowStats(input_pair_width=100)
    )
    cfg = HadoopConfig.from_properties(
        {
            "mapreduce.task.io.sort.mb": sort_mb,
            "mapreduce.map.sort.spill.percent": spill,
            "mapreduce.map.java.opts": "-Xmx2g",
        }
    )
    pred = predict_job(p, one(cfg), ClusterSpec.local())
    assert pred.num_maps[0] == 8
    assert pred.map_full.output_records[0] == 335_544
    assert pred.counters["MAP_SPILLS"][0] == 8 * spills


@pytest.mark.parametrize(
    ("sort_mb", "factor", "ratio"),
    [(3, 10, 2.418), (2, 10, 2.655), (1, 10, 2.892), (2, 4, 3.440), (10, 10, 2.0), (100, 10, 1.0)],
)
def test_map_spilled_records_match_real_hadoop(sort_mb: int, factor: int, ratio: float) -> None:
    m = one_sort_map(sort_mb, factor)
    assert round(m.spilled_records[0] / 335_544, 3) == ratio


@pytest.mark.parametrize(
    ("sort_mb", "factor", "spilled"),
    # Hadoop 3.5.0 map SPILLED_RECORDS for 335,544 records of 100 bytes (the harness's
    # simulation of MapOutputBuffer and Merger, which reproduces all 714 recorded attempts).
    [
        (1, 2, 2225864),
        (1, 10, 970472),
        (2, 4, 1154157),
        (3, 10, 811377),
        (5, 2, 1460772),
        (10, 4, 789684),
        (20, 2, 862000),
    ],
)
def test_map_spilled_records_exact(sort_mb: int, factor: int, spilled: int) -> None:
    m = one_sort_map(sort_mb, factor)
    assert m.spilled_records[0] == spilled


def test_quasi_monte_carlo_dataflow() -> None:
    """The pi job of shared/data/jhist: 1 input record, 2 output records of 9 bytes.

    MAP_OUTPUT_MATERIALIZED_BYTES = REDUCE_SHUFFLE_BYTES = 2 x (9 + 2) + 2 + 4 = 28 and
    SPILLED_RECORDS = 4 (2 spilled by the map, 2 read back after the final merge evicts the
    in-memory segments to disk because reduce.input.buffer.percent = 0).
    """
    p = JobProfile(
        input_bytes=100.0,
        stats=DataflowStats(input_pair_width=100.0, map_pairs_sel=2.0, map_size_sel=0.18),
    )
    pred = predict_job(p, one(HadoopConfig()), ClusterSpec())
    c = pred.counters
    assert c["MAP_OUTPUT_RECORDS"][0] == 2
    assert c["MAP_OUTPUT_BYTES"][0] == pytest.approx(18)
    assert c["MAP_OUTPUT_MATERIALIZED_BYTES"][0] == pytest.approx(28)
    assert c["REDUCE_SHUFFLE_BYTES"][0] == pytest.approx(28)
    assert c["SPILLED_RECORDS"][0] == pytest.approx(4)
    assert pred.reduce.evicted_merged_to_disk[0] == 1


def test_reduce_input_buffer_keeps_segments_in_memory() -> None:
    """real-hadoop.md: reduce.input.buffer.percent 0.80 removes the final-merge spill."""
    p = JobProfile(
        input_bytes=8 * 33_554_400, input_files=8, stats=DataflowStats(input_pair_width=100)
    )
    base = {"mapreduce.map.java.opts": "-Xmx2g", "mapreduce.reduce.java.opts": "-Xmx2g"}
    d = predict_job(p, one(HadoopConfig.from_properties(base)), ClusterSpec.local())
    k = predict_job(
        p,
        one(HadoopConfig.from_properties({**base, "mapreduce.reduce.input.buffer.percent": 0.8})),
        ClusterSpec.local(),
    )
    n = 8 * 335_544
    assert d.counters["REDUCE_SPILLED_RECORDS"][0] == n
    assert k.counters["REDUCE_SPILLED_RECORDS"][0] == 0
    assert d.reduce.fetches_to_memory[0] == 8 and d.reduce.fetches_to_disk[0] == 0
    assert k.job_ms[0] < d.job_ms[0]


def test_large_segments_go_to_disk_and_merge() -> None:
    """A segment above the single-shuffle limit is fetched to disk (MergeManagerImpl)."""
    p = JobProfile(
        input_bytes=40 * 256 * 2**20, input_files=40, stats=DataflowStats(input_pair_width=100)
    )
    cfg = HadoopConfig.from_properties(
        {"mapreduce.input.fileinputformat.split.minsize": 256 * 2**20}
    )
    pred = predict_job(p, one(cfg), ClusterSpec(num_nodes=4))
    r = pred.reduce
    assert r.fetches_to_disk[0] == 40 and r.fetches_to_memory[0] == 0
    assert r.shuffle_disk_merges[0] >= 1  # 40 files >= 2F - 1 = 19
    assert pred.counters["REDUCE_SPILLED_RECORDS"][0] > pred.counters["REDUCE_INPUT_RECORDS"][0]


def test_combiner_in_merge_only_with_enough_spills() -> None:
    stats = DataflowStats(
        combine_pairs_sel=0.1, combine_size_sel=0.1, combine_profiled_input_records=1e5
    )
    p = JobProfile(input_bytes=256 * 2**20, has_combiner=True, combine_class="C", stats=stats)
    cfg = HadoopConfig.from_properties(
        {"mapreduce.job.combine.class": "C", "mapreduce.task.io.sort.mb": 50}
    )
    m = map_task(p, one(cfg), np.array([256.0 * 2**20]))
    assert m.spills[0] >= 3
    assert m.combine_input_records[0] > m.output_records[0]  # the merge combined again
    m2 = map_task(
        p,
        one(cfg.with_changes({"mapreduce.map.combine.minspills": 100})),
        np.array([256.0 * 2**20]),
    )
    assert m2.combine_input_records[0] == m2.output_records[0]
    assert m2.final_records[0] > m.final_records[0]


def test_map_only_job_writes_to_hdfs_and_has_no_reduce_cost() -> None:
    p = JobProfile(input_bytes=1e9, map_only=True)
    pred = predict_job(p, one(HadoopConfig()), ClusterSpec())
    assert pred.counters["SPILLED_RECORDS"][0] == 0
    assert pred.counters["REDUCE_SHUFFLE_BYTES"][0] == 0
    assert pred.counters["HDFS_BYTES_WRITTEN"][0] == pytest.approx(
        pred.counters["MAP_OUTPUT_BYTES"][0]
    )
    assert pred.reduce_task_ms[0] == 0
    assert pred.map_full.phase_ms["write"][0] > 0


def test_a_share_of_the_records_is_whole_records() -> None:
    """floor(n·p) where the mapper emits a share (``map_output_floor``): the selectivity job
    emits the first floor(n·p/100) records of its split (134,217 of 167,772 at 80%, 134,218
    of 167,773), and an integral share stays exact."""
    for sel, n, want in (
        (0.8, 167_772, 134_217),
        (0.8, 167_773, 134_218),
        (12.0, 337_507, 4_050_084),
    ):
        p = JobProfile(
            input_bytes=1e9,
            map_output_floor=True,
            stats=DataflowStats(input_pair_width=100, map_pairs_sel=sel),
        )
        m = map_task(p, one(HadoopConfig()), np.array([n * 100.0]), input_records=np.array([n]))
        assert float(m.output_records[0]) == want


def test_a_tokenising_mapper_keeps_the_expectation() -> None:
    """Without a share, a map's output is n·p unrounded: AggregateWordCount's 10.0 words a
    line over 4 MiB splits had lost up to one record a map to the floor (2,646,240 map
    outputs against Hadoop's 2,646,242), and a map given a mean of 20,731.4 lines emits
    248,776.8 words, not 248,776."""
    for sel, n, want in ((10.0002, 41_000, 410_008.2), (12.0, 20_731.4, 248_776.8)):
        p = JobProfile(
            input_bytes=1e9, stats=DataflowStats(input_pair_width=100, map_pairs_sel=sel)
        )
        m = map_task(p, one(HadoopConfig()), np.array([n * 100.0]), input_records=np.array([n]))
        assert float(m.output_records[0]) == pytest.approx(want, abs=1e-6)


def test_full_splits_take_the_profiled_split_width() -> None:
    """``split_pair_width``: full splits hold rint(split / it) records, the tail the rest of
    the file, so the total stays the file's."""
    st = DataflowStats(input_pair_width=99.41948, split_pair_width=33554432 / 337507)
    p = JobProfile(input_bytes=37748682.0, stats=st)
    cfg = HadoopConfig(**{"mapreduce.input.fileinputformat.split.maxsize": 33554432})
    pred = predict_job(p, one(cfg), ClusterSpec.local())
    assert float(pred.map_full.input_records[0]) == 337507
    # the file's records are the input's over its files, unrounded (the profile's width is
    # the run's mean, so a real run's bytes / width is its whole count)
    assert float(pred.counters["MAP_INPUT_RECORDS"][0]) == pytest.approx(37748682.0 / 99.41948)
