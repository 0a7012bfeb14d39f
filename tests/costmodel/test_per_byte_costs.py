"""Per-byte CPU terms of the task models (issue 20 item 4): ``serde_byte_cpu`` in collect,
``combine_byte_cpu`` wherever the combiner runs. At 0 (every profile without evidence) the
model is unchanged; set, each adds exactly bytes × factor to the phase Hadoop spends it in.
"""

from __future__ import annotations

import numpy as np
import pytest

from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile, predict_job
from mrtune.costmodel.profile import PER_BYTE_FACTORS, CostFactors, DataflowStats

MB = 2**20


def _profile(costs: CostFactors, *, combiner: bool = False, size_sel: float = 1.0) -> JobProfile:
    return JobProfile(
        input_bytes=256 * MB,
        has_combiner=combiner,
        stats=DataflowStats(
            input_pair_width=100.0,
            map_size_sel=size_sel,
            map_pairs_sel=1.0,
            combine_pairs_sel=0.4 if combiner else 1.0,
            combine_size_sel=0.5 if combiner else 1.0,
            combine_profiled_input_records=1e5 if combiner else None,
        ),
        costs=costs,
    )


def _batch(**props: object) -> ConfigBatch:
    return ConfigBatch.from_configs([HadoopConfig.from_properties(props)])


SERIAL = ClusterSpec(num_nodes=1, spill_overlap=False)


def test_per_byte_factors_default_to_zero() -> None:
    """A profile without per-byte evidence prices CPU per record only, as before."""
    c = CostFactors()
    assert all(getattr(c, f) == 0.0 for f in PER_BYTE_FACTORS)


@pytest.mark.parametrize("combiner", [False, True])
def test_zero_per_byte_terms_change_nothing(combiner: bool) -> None:
    """Set explicitly to 0, the terms leave every phase bit for bit as it was."""
    base = _profile(CostFactors(), combiner=combiner)
    zero = _profile(CostFactors(serde_byte_cpu=0.0, combine_byte_cpu=0.0), combiner=combiner)
    b = _batch(**{"mapreduce.task.io.sort.mb": 10, "mapreduce.job.reduces": 2})
    p0, p1 = predict_job(base, b, SERIAL), predict_job(zero, b, SERIAL)
    assert np.array_equal(p0.job_ms, p1.job_ms)
    for k, v in p0.map_full.phase_ms.items():
        assert np.array_equal(v, p1.map_full.phase_ms[k])


def test_serde_bytes_priced_in_collect() -> None:
    """serde_byte_cpu × MAP_OUTPUT_BYTES of the task, all in collect (serial phases)."""
    b = _batch(**{"mapreduce.task.io.sort.mb": 10})
    p0 = predict_job(_profile(CostFactors()), b, SERIAL)
    p1 = predict_job(_profile(CostFactors(serde_byte_cpu=2.0)), b, SERIAL)
    m0, m1 = p0.map_full, p1.map_full
    added = 2.0 * float(m0.output_bytes[0]) / 1e6
    assert m1.phase_ms["collect"][0] - m0.phase_ms["collect"][0] == pytest.approx(added)
    for k in ("read", "map", "spill", "merge"):
        assert m1.phase_ms[k][0] == m0.phase_ms[k][0]


def test_wider_records_cost_more_per_record_with_per_byte_serde() -> None:
    """The same records emitted at four times the width: priced per record only, collect
    costs the same; with a per-byte share it costs more, by exactly the extra bytes."""
    b = _batch()
    for costs, per_byte in ((CostFactors(), False), (CostFactors(serde_byte_cpu=1.5), True)):
        pn = predict_job(_profile(costs, size_sel=0.5), b, SERIAL).map_full
        pw = predict_job(_profile(costs, size_sel=2.0), b, SERIAL).map_full
        assert pn.output_records[0] == pw.output_records[0]
        extra = 1.5 * float(pw.output_bytes[0] - pn.output_bytes[0]) / 1e6 if per_byte else 0.0
        diff = pw.phase_ms["collect"][0] - pn.phase_ms["collect"][0]
        assert diff == pytest.approx(extra, abs=1e-9)


def test_combine_bytes_priced_where_the_combiner_runs() -> None:
    """combine_byte_cpu: the spills' combiner over the raw map output bytes, the merge's over
    the spilled records' key and value bytes, and the reduce's in-memory merges when the
    combiner is the old API's (the only one Hadoop 2/3's reduce runs)."""
    b = _batch(
        **{
            "mapreduce.job.combine.class": "Combiner",
            "mapreduce.task.io.sort.mb": 2,
            "mapreduce.map.combine.minspills": 3,
            "mapreduce.input.fileinputformat.split.maxsize": 16 * MB,
            "mapreduce.reduce.shuffle.memory.limit.percent": 0.05,
            "mapreduce.reduce.shuffle.merge.percent": 0.1,
        }
    )
    old_api = {"old_api_combiner": True}
    p0 = predict_job(_profile(CostFactors(), combiner=True).model_copy(update=old_api), b, SERIAL)
    p1 = predict_job(
        _profile(CostFactors(combine_byte_cpu=3.0), combiner=True).model_copy(update=old_api),
        b,
        SERIAL,
    )
    m0, m1 = p0.map_full, p1.map_full
    assert m0.spills[0] >= 3 and m0.combine_input_records[0] > m0.output_records[0]
    # spills: every raw byte once
    spill_added = 3.0 * float(m0.output_bytes[0]) / 1e6
    assert m1.phase_ms["spill"][0] - m0.phase_ms["spill"][0] == pytest.approx(spill_added)
    # merge: the spilled (combined) records' bytes
    assert m1.phase_ms["merge"][0] > m0.phase_ms["merge"][0]
    assert m1.phase_ms["collect"][0] == m0.phase_ms["collect"][0]
    r0, r1 = p0.reduce, p1.reduce
    assert r0.inmem_merges[0] > 0
    assert r1.phase_ms["shuffle"][0] > r0.phase_ms["shuffle"][0]
    # a new-API combiner: the reduce's merges do not run it, and the factor prices none there
    n0 = predict_job(_profile(CostFactors(), combiner=True), b, SERIAL).reduce
    n1 = predict_job(_profile(CostFactors(combine_byte_cpu=3.0), combiner=True), b, SERIAL).reduce
    assert n0.inmem_merges[0] > 0
    assert n1.phase_ms["shuffle"][0] == n0.phase_ms["shuffle"][0]
    # without a combiner the factor prices nothing
    q0 = predict_job(_profile(CostFactors()), b, SERIAL)
    q1 = predict_job(_profile(CostFactors(combine_byte_cpu=3.0)), b, SERIAL)
    assert np.array_equal(q0.job_ms, q1.job_ms)
