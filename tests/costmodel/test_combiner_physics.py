"""Combiner physics (issue 20 item 3, issue 16 item 4): distinct keys split across partitions,
the combined width as a function of the merge factor, reduce output applied once."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.costmodel import (
    ClusterSpec,
    ConfigBatch,
    DataflowStats,
    HadoopConfig,
    JobProfile,
    predict_job,
)
from mrtune.costmodel.combiner import (
    combined_pair_width,
    combined_records,
    fit_heaps_beta,
    list_growth_per_record,
    zipf_distinct,
)

CLUSTER = ClusterSpec(num_nodes=5)
IFILE_SEGMENT = 6.0  # EOF (2) + CRC (4) per partition segment


def _stats(law: str, growth: float) -> DataflowStats:
    """A WordCount-like map output (12-byte records, 1 per input word) under one key law.
    ``growth`` > 0 makes the combiner list-building (4-byte values appended)."""
    common = dict(
        input_pair_width=80.0,
        map_pairs_sel=6.0,
        map_size_sel=6.0 * 12.0 / 80.0,
        combine_pairs_sel=0.04,
        reduce_pairs_sel=0.4,
        reduce_pairs_per_group=2.5,
        reduce_size_sel=0.3,
    )
    m_c = 1 / 0.04
    w_c = 12.0 + growth * (m_c - 1)
    common["combine_size_sel"] = min(0.04 * w_c / 12.0, 1.5)
    common["combine_profiled_merge_factor"] = m_c
    common["combine_width_growth"] = growth
    if law == "zipf":
        return DataflowStats(**common, key_vocabulary=100_000, key_zipf_exponent=1.1)
    if law == "heaps":
        return DataflowStats(**common, combine_profiled_input_records=2e6, combiner_heaps_beta=0.3)
    return DataflowStats(**common, combine_profiled_input_records=2e6, max_distinct_keys=3e5)


def _profile(law: str, growth: float, size: float) -> JobProfile:
    return JobProfile(
        input_bytes=size,
        input_files=1,
        has_combiner=True,
        combine_class="C",
        stats=_stats(law, growth),
    )


def _config(mb: int, r: int, comb: bool, codec: str, mem: float) -> HadoopConfig:
    return HadoopConfig.from_properties(
        {
            "mapreduce.task.io.sort.mb": mb,
            "mapreduce.job.reduces": r,
            "mapreduce.map.java.opts": "-Xmx2g",
            "mapreduce.reduce.java.opts": "-Xmx2g",
            "mapreduce.job.combine.class": "C" if comb else "",
            "mapreduce.map.output.compress": codec != "none",
            "mapreduce.map.output.compress.codec": "default" if codec == "none" else codec,
            "mapreduce.reduce.shuffle.input.buffer.percent": mem,
        }
    )


def _run(profile: JobProfile, configs: list[HadoopConfig]):  # noqa: ANN202
    return predict_job(profile, ConfigBatch.from_configs(configs), CLUSTER)


REDUCERS = [1, 3, 16, 100, 400]


@settings(max_examples=40, deadline=None)
@given(
    law=st.sampled_from(["zipf", "heaps", "bounded"]),
    growth=st.sampled_from([0.0, 4.0]),
    size=st.floats(5e7, 3e10),
    mb=st.integers(5, 800),
    comb=st.booleans(),
    codec=st.sampled_from(["none", "snappy", "lz4", "default", "zstd"]),
    mem=st.floats(0.05, 0.9),
)
def test_outputs_constant_in_the_number_of_reducers(
    law: str, growth: float, size: float, mb: int, comb: bool, codec: str, mem: float
) -> None:
    """Each key lands in one partition: the job's groups, output records and bytes, and the
    maps' combined output (records, uncompressed bytes net of per-segment framing) do not
    depend on how many reducers the records are split across."""
    p = _profile(law, growth, size)
    pred = _run(p, [_config(mb, r, comb, codec, mem) for r in REDUCERS])
    c = pred.counters
    for name in ("REDUCE_INPUT_GROUPS", "REDUCE_OUTPUT_RECORDS", "HDFS_BYTES_WRITTEN"):
        v = c[name]
        assert np.allclose(v, v[0], rtol=1e-9), (name, v)
    mf = pred.map_full
    assert np.allclose(mf.final_records, mf.final_records[0], rtol=1e-9)
    R = np.array(REDUCERS, dtype=np.float64)
    net = mf.final_uncompressed_bytes - 2.0 * R  # one EOF marker per partition segment
    assert np.allclose(net, net[0], rtol=1e-9), net
    # distinct keys never exceed the records that carry them
    assert np.all(c["REDUCE_INPUT_GROUPS"] <= c["REDUCE_INPUT_RECORDS"] * (1 + 1e-9))


@settings(max_examples=40, deadline=None)
@given(
    law=st.sampled_from(["zipf", "heaps", "bounded"]),
    growth=st.sampled_from([0.0, 4.0]),
    size=st.floats(5e7, 3e10),
    mb=st.integers(5, 800),
    r=st.integers(1, 200),
    comb=st.booleans(),
    codec=st.sampled_from(["none", "snappy", "default"]),
    mem=st.floats(0.05, 0.9),
)
def test_bytes_conserved_end_to_end(
    law: str, growth: float, size: float, mb: int, r: int, comb: bool, codec: str, mem: float
) -> None:
    """What the maps materialize is what the reducers fetch; uncompressed, it is the final
    records' IFile bytes; without a combiner the reducers get every map output record."""
    p = _profile(law, growth, size)
    pred = _run(p, [_config(mb, r, comb, codec, mem)])
    c = pred.counters
    assert c["REDUCE_SHUFFLE_BYTES"][0] == pytest.approx(
        c["MAP_OUTPUT_MATERIALIZED_BYTES"][0], rel=1e-9
    )
    mf = pred.map_full
    w = mf.final_pair_width[0]
    framing = mf.final_records[0] * (w + p.stats.ifile_record_overhead) + 2.0 * r
    assert mf.final_uncompressed_bytes[0] == pytest.approx(framing, rel=1e-9)
    if codec == "none":
        assert mf.materialized_bytes[0] == pytest.approx(framing + 4.0 * r, rel=1e-9)
    if not comb:
        assert c["REDUCE_INPUT_RECORDS"][0] == pytest.approx(c["MAP_OUTPUT_RECORDS"][0])
        assert w == pytest.approx(p.stats.map_output_pair_width)


def test_distinct_keys_split_across_partitions() -> None:
    """Issue 20: the law applied per partition gave R·D(n/R); one partition of n raw records
    holds D(n·R)/R distinct keys, which sum over R partitions to D(n·R)."""
    stats = DataflowStats(key_vocabulary=100_000, key_zipf_exponent=1.1)
    n = 8_103_540.0
    for r in (1.0, 4.0, 100.0):
        part = combined_records(np.array([n / r]), np.array([n / r]), stats, r)[0]
        assert part * r == pytest.approx(zipf_distinct(n, 1e5, 1.1), rel=1e-9)
    heaps = DataflowStats(combine_profiled_input_records=1e6, combine_pairs_sel=0.1)
    whole = combined_records(np.array([4e6]), np.array([4e6]), heaps)[0]
    split = combined_records(np.array([4e5]), np.array([4e5]), heaps, 10.0)[0]
    assert split * 10 == pytest.approx(whole)
    bounded = DataflowStats(max_distinct_keys=1000.0)
    assert combined_records(np.array([1e6]), np.array([1e6]), bounded, 8.0)[0] == 125.0


def test_wordcount_output_does_not_grow_with_reducers() -> None:
    """Issue 20's WordCount symptom: output 154 MiB at 1 reducer, 754 MiB at 100, reduce
    input records 23.5 M → 115 M. The output is the same at any R, and the reduce input
    never grows with R (a reducer's in-memory merges combine more maps' smaller segments at
    once when R is larger, so it can only shrink)."""
    p = _profile("zipf", 0.0, 2e10)
    pred = _run(p, [_config(100, r, True, "none", 0.7) for r in (1, 100)])
    c = pred.counters
    assert c["HDFS_BYTES_WRITTEN"][1] == pytest.approx(c["HDFS_BYTES_WRITTEN"][0], rel=1e-9)
    assert c["REDUCE_INPUT_RECORDS"][1] <= c["REDUCE_INPUT_RECORDS"][0] * (1 + 1e-9)
    assert c["REDUCE_INPUT_RECORDS"][1] >= c["REDUCE_INPUT_GROUPS"][1]


def test_list_building_width_grows_with_the_merge_factor() -> None:
    """Issue 20: a combiner that builds lists cuts records ~24× but bytes ~3.6×. The width is
    affine in the merge factor, so a smaller spill (fewer records merged per key) writes
    narrower records, and the same records merged further write wider ones."""
    stats = _stats("zipf", 4.0)
    w = combined_pair_width(np.array([1e6, 1e6, 1e6]), np.array([1e6, 1e5, 4e4]), 12.0, stats)
    assert w[0] == pytest.approx(12.0)  # nothing merged: the raw width
    assert w[1] == pytest.approx(12.0 + 4.0 * 9)
    assert w[2] == pytest.approx(12.0 + 4.0 * 24)
    summing = _stats("zipf", 0.0)
    ws = combined_pair_width(np.array([1e6, 1e6]), np.array([1e6, 4e4]), 12.0, summing)
    assert ws == pytest.approx([12.0, 12.0])
    # the fit: WordCount's drift is no list growth; postings' 4-byte ints are
    assert list_growth_per_record(12.281, 12.552, 25.74) is None
    assert list_growth_per_record(13.28, 99.9, 22.58) == pytest.approx(4.01, abs=0.01)


def test_map_bytes_follow_the_merge_factor_for_a_list_combiner() -> None:
    """More spills per map → fewer records merged per spill → more, narrower records: the
    map's materialized bytes (no merge-level combine) lie between the raw bytes and the
    one-spill bytes, instead of the calibration width × more records (−37.5% in issue 20)."""
    p = _profile("zipf", 4.0, 2e8)
    cfg = [_config(mb, 1, True, "none", 0.7) for mb in (400, 20)]
    cfg[1] = cfg[1].model_copy(update={"combine_min_spills": 10_000})
    pred = _run(p, cfg)
    mf = pred.map_full
    raw_u = mf.output_records * (12.0 + 2.0)
    assert mf.spills[0] == 1 and mf.spills[1] > 3
    assert mf.final_records[1] > mf.final_records[0]
    # record bytes: Σ (a + g·m_k) over output records = a·c + g·n, a = 12 − 4
    for i in range(2):
        want = mf.final_records[i] * (8.0 + 2.0) + 4.0 * mf.output_records[i] + 2.0
        assert mf.final_uncompressed_bytes[i] == pytest.approx(want, rel=1e-9)
    assert mf.final_uncompressed_bytes[1] < raw_u[1]


def test_reduce_output_at_the_profiled_configuration() -> None:
    """Issue 20: reduce output was 6.6× the measured value for the calibration run's own
    configuration (the combined-width factor applied to an already combined width). At the
    profiled point the model gives the profile's own output: groups × records per group,
    and REDUCE_OUTPUT_RECORDS × the output record width."""
    stats = _stats("zipf", 4.0)
    p = _profile("zipf", 4.0, 5e8)
    pred = _run(p, [_config(100, 2, True, "none", 0.7)])
    c = pred.counters
    groups = c["REDUCE_INPUT_GROUPS"][0]
    raw = c["MAP_OUTPUT_RECORDS"][0]
    assert groups == pytest.approx(zipf_distinct(raw, 1e5, 1.1), rel=1e-6)
    assert c["REDUCE_OUTPUT_RECORDS"][0] == pytest.approx(groups * 0.4 * 2.5)
    w_c = stats.map_output_pair_width * stats.combine_size_sel / stats.combine_pairs_sel
    out_w = stats.reduce_size_sel * w_c / stats.reduce_pairs_sel
    assert c["HDFS_BYTES_WRITTEN"][0] == pytest.approx(c["REDUCE_OUTPUT_RECORDS"][0] * out_w)
    off = _run(p, [_config(100, 2, False, "none", 0.7)]).counters
    assert off["HDFS_BYTES_WRITTEN"][0] == pytest.approx(c["HDFS_BYTES_WRITTEN"][0])


def test_heaps_exponent_through_the_distinct_key_evidence() -> None:
    beta, worst = fit_heaps_beta(1e6, 1e5, [(8e6, 1e5 * 8**0.4)])
    assert beta == pytest.approx(0.4) and worst < 1e-9
    assert fit_heaps_beta(1e6, 1e5, [(1.01e6, 1e5)]) is None
