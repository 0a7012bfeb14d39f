"""Fixed-width records per split, as Hadoop's record readers hand them out (issue 20).

A split owns the records whose first byte lies in it (``RecordInputFormat.recordsIn``; the
same count as ``LineRecordReader`` over fixed-width lines), so the first split of ``S`` bytes
holds ``ceil(S/w)`` records and later ones ``floor(S/w)`` or one more. With
``stats.input_record_bytes`` the job model gives every map exactly that, and so the
selectivity job's ``floor(n·p)`` emitted records add up as Hadoop's do.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mrtune.costmodel import (
    ClusterSpec,
    ConfigBatch,
    HadoopConfig,
    JobProfile,
    evaluate,
    predict_job,
)
from mrtune.costmodel.map_groups import SPLIT_SLOP, fixed_width_records
from mrtune.costmodel.profile import DataflowStats
from mrtune.costmodel.stacked import StackedProfiles

MB = 2**20
W = 100


def hadoop_split_records(file_recs: int, split: int, w: int = W) -> list[int]:
    """Records per split as ``FileInputFormat.getSplits`` cuts the file (``SPLIT_SLOP``)
    and ``RecordInputFormat.recordsIn`` counts them."""
    size = file_recs * w
    starts, left = [], size
    while left / split > SPLIT_SLOP:
        starts.append(size - left)
        left -= split
    starts.append(size - left)
    ends = [*starts[1:], size]
    return [min(-(-e // w), file_recs) - -(-s // w) for s, e in zip(starts, ends, strict=True)]


def _profile(file_mib: int, pct: float = 1.0, fixed: bool = True) -> JobProfile:
    recs = file_mib * MB // W
    return JobProfile(
        input_bytes=float(recs * W),
        map_output_floor=True,  # the selectivity job's mapper: the first floor(n·p) records
        stats=DataflowStats(
            input_pair_width=float(W),
            input_record_bytes=float(W) if fixed else None,
            map_size_sel=pct,
            map_pairs_sel=pct,
        ),
    )


def _batch(split_mib: int, **more: object) -> ConfigBatch:
    props = {"mapreduce.input.fileinputformat.split.maxsize": split_mib * MB, **more}
    return ConfigBatch.from_configs([HadoopConfig.from_properties(props)])


LOCAL = ClusterSpec.local(maps=1)


def test_first_split_holds_the_ceiling() -> None:
    """32 MiB splits of 100-byte records: 335,545 records in the first, 335,544 after."""
    hi, n_hi, lo = fixed_width_records(
        np.array([671088.0]), np.array([1.0]), np.array([32.0 * MB]), W
    )
    assert (hi[0], n_hi[0], lo[0]) == (335545, 1, 335544)
    assert hadoop_split_records(671088, 32 * MB) == [335545, 335543]


@pytest.mark.parametrize("file_mib", [32, 64, 96, 128])
@pytest.mark.parametrize("split_mib", [16, 32])
def test_every_map_reads_what_hadoop_gives_it(file_mib: int, split_mib: int) -> None:
    """The model's maps (as a multiset) are Hadoop's, and every selectivity's emitted
    records, floor(n·p) per map, add up to Hadoop's: the generic benchmark's grid."""
    recs = file_mib * MB // W
    want = hadoop_split_records(recs, split_mib * MB)
    pred = predict_job(_profile(file_mib), _batch(split_mib), LOCAL)
    got = [
        float(g.result.input_records[0]) for g in pred.map_groups for _ in range(int(g.count[0]))
    ]
    assert sorted(got) == sorted(want)
    for pct in range(10, 101, 10):
        p = (
            pred
            if pct == 100
            else predict_job(_profile(file_mib, pct / 100), _batch(split_mib), LOCAL)
        )
        hadoop = sum(math.floor(n * pct / 100 + 1e-9) for n in want)
        assert p.counters["MAP_OUTPUT_RECORDS"][0] == hadoop, pct
        assert p.counters["MAP_INPUT_RECORDS"][0] == recs


def test_varying_width_keeps_rint_per_split() -> None:
    """Without input_record_bytes (text lines), full splits keep rint(S / width): the
    128 MiB file's first 16 MiB split then reads 167,772, one record short of Hadoop's."""
    pred = predict_job(_profile(128, fixed=False), _batch(16), LOCAL)
    assert len(pred.map_groups) == 2
    assert pred.map_full.input_records[0] == 167772


def test_lean_path_and_stacked_jobs_give_the_same_numbers() -> None:
    """The search's lean path (three tasks in one call) and stacked jobs (a fixed-width job
    beside a varying-width one) give the full model's job times bit for bit."""
    cl = ClusterSpec(num_nodes=3)
    configs = [
        HadoopConfig.from_properties(
            {
                "mapreduce.input.fileinputformat.split.maxsize": s * MB,
                "mapreduce.task.io.sort.mb": m,
            }
        )
        for s in (16, 32, 48)
        for m in (20, 100)
    ]
    batch = ConfigBatch.from_configs(configs)
    fixed, varying = _profile(128, 0.4), _profile(128, 0.4, fixed=False)
    for p in (fixed, varying):
        full = predict_job(p, batch, cl)
        job, gbs = evaluate(p, batch, cl)
        assert np.array_equal(job, full.job_ms) and np.array_equal(gbs, full.container_gb_s)
    both = ConfigBatch.from_configs(configs + configs)
    stacked = StackedProfiles.of([fixed, varying], np.repeat([0, 1], len(configs)))
    got = predict_job(stacked, both, cl)
    alone = np.concatenate([predict_job(p, batch, cl).job_ms for p in (fixed, varying)])
    assert np.array_equal(got.job_ms, alone)
    alone_out = np.concatenate(
        [predict_job(p, batch, cl).counters["MAP_OUTPUT_RECORDS"] for p in (fixed, varying)]
    )
    assert np.array_equal(got.counters["MAP_OUTPUT_RECORDS"], alone_out)
