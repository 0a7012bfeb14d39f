"""Model invariants with hypothesis (issue: more input never lowers cost, …)."""

from __future__ import annotations

import numpy as np
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
from mrtune.costmodel.scheduler import simulate_schedule

profiles = st.builds(
    lambda size, files, width, psel, ssel, comb: JobProfile(
        input_bytes=size,
        input_files=files,
        has_combiner=comb,
        combine_class="C" if comb else None,
        stats=DataflowStats(
            input_pair_width=width,
            map_pairs_sel=psel,
            map_size_sel=ssel,
            combine_pairs_sel=0.3 if comb else 1.0,
            combine_size_sel=0.3 if comb else 1.0,
        ),
    ),
    size=st.floats(1e6, 5e10),
    files=st.integers(1, 50),
    width=st.floats(10, 2000),
    psel=st.floats(0.05, 5),
    ssel=st.floats(0.05, 5),
    comb=st.booleans(),
)
configs = st.builds(
    lambda mb, sp, f, r, comb, codec: HadoopConfig.from_properties(
        {
            "mapreduce.task.io.sort.mb": mb,
            "mapreduce.map.sort.spill.percent": sp,
            "mapreduce.task.io.sort.factor": f,
            "mapreduce.job.reduces": r,
            "mapreduce.map.java.opts": "-Xmx2g",
            "mapreduce.reduce.java.opts": "-Xmx2g",
            "mapreduce.job.combine.class": "C" if comb else "",
            "mapreduce.map.output.compress": codec != "none",
            "mapreduce.map.output.compress.codec": "default" if codec == "none" else codec,
        }
    ),
    mb=st.integers(1, 1500),
    sp=st.floats(0.3, 1.0),
    f=st.integers(2, 100),
    r=st.integers(1, 64),
    comb=st.booleans(),
    codec=st.sampled_from(["none", "snappy", "lz4", "default"]),
)
CLUSTER = ClusterSpec(num_nodes=5)


def run(p: JobProfile, c: HadoopConfig):  # noqa: ANN201
    return predict_job(p, ConfigBatch.from_configs([c]), CLUSTER)


@settings(max_examples=80, deadline=None)
@given(p=profiles, c=configs, factor=st.floats(1.01, 20))
def test_more_input_never_lowers_cost(p: JobProfile, c: HadoopConfig, factor: float) -> None:
    small = run(p, c)
    big = run(p.model_copy(update={"input_bytes": p.input_bytes * factor}), c)
    assert big.total_task_ms[0] >= small.total_task_ms[0] * (1 - 1e-9)
    assert big.counters["MAP_OUTPUT_RECORDS"][0] >= small.counters["MAP_OUTPUT_RECORDS"][0]


@settings(max_examples=80, deadline=None)
@given(p=profiles, c=configs, extra=st.integers(1, 500))
def test_larger_sort_buffer_never_more_spills(p: JobProfile, c: HadoopConfig, extra: int) -> None:
    mb = min(c.io_sort_mb + extra, 1600)
    bigger = c.with_changes({"mapreduce.task.io.sort.mb": mb})
    assert run(p, bigger).counters["MAP_SPILLS"][0] <= run(p, c).counters["MAP_SPILLS"][0]


@settings(max_examples=80, deadline=None)
@given(p=profiles, c=configs)
def test_records_are_conserved_map_to_reduce(p: JobProfile, c: HadoopConfig) -> None:
    k = run(p, c).counters
    # map output records leave the map as (output - combine input + combine output)
    expected = (
        k["MAP_OUTPUT_RECORDS"][0] - k["COMBINE_INPUT_RECORDS"][0] + k["COMBINE_OUTPUT_RECORDS"][0]
    )
    assert np.isclose(k["REDUCE_INPUT_RECORDS"][0], expected, rtol=1e-9)
    if not (p.has_combiner and c.use_combiner):
        assert np.isclose(k["REDUCE_INPUT_RECORDS"][0], k["MAP_OUTPUT_RECORDS"][0], rtol=1e-9)
        assert k["COMBINE_INPUT_RECORDS"][0] == 0


@settings(max_examples=40, deadline=None)
@given(p=profiles, c=configs)
def test_map_only_jobs_have_no_reduce_side_cost(p: JobProfile, c: HadoopConfig) -> None:
    pred = run(p.model_copy(update={"map_only": True}), c)
    assert pred.reduce_task_ms[0] == 0
    assert pred.counters["REDUCE_SHUFFLE_BYTES"][0] == 0
    assert pred.counters["SPILLED_RECORDS"][0] == 0
    assert all(v[0] == 0 for v in pred.reduce_phase_ms.values())


@settings(max_examples=30, deadline=None)
@given(p=profiles, cs=st.lists(configs, min_size=2, max_size=6))
def test_vectorised_equals_scalar(p: JobProfile, cs: list[HadoopConfig]) -> None:
    batch = predict_job(p, ConfigBatch.from_configs(cs), CLUSTER)
    for i, c in enumerate(cs):
        single = run(p, c)
        assert np.isclose(batch.job_ms[i], single.job_ms[0], rtol=1e-12)
        for key, arr in single.counters.items():
            assert np.isclose(batch.counters[key][i], arr[0], rtol=1e-12), key


@settings(max_examples=25, deadline=None)
@given(p=profiles, c=configs)
def test_local_mode_simulation_equals_analytic(p: JobProfile, c: HadoopConfig) -> None:
    local = ClusterSpec.local()
    sim = simulate_schedule(p, c, local)
    ana = predict_job(p, ConfigBatch.from_configs([c]), local)
    assert np.isclose(sim.job_ms, ana.job_ms[0], rtol=1e-9)
    assert len(sim.spans("map")) == ana.num_maps[0]
