"""A catalog in one pass (issue 18): many jobs' configurations stacked into one model call
give, row by row, exactly what each job's own call gives."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.costmodel import (
    ClusterSpec,
    ConfigBatch,
    CostFactors,
    DataflowStats,
    HadoopConfig,
    JobProfile,
    evaluate,
    predict_job,
)
from mrtune.costmodel.stacked import StackedProfiles
from tests.costmodel.test_model_pinned import _case, _cases
from tests.costmodel.test_properties import configs

OUTPUTS = ("job_ms", "container_gb_s", "total_task_ms", "map_stage_ms", "num_maps")


def _stack(profiles: list[JobProfile], batches: list[ConfigBatch]) -> tuple:
    job = np.repeat(np.arange(len(profiles)), [len(b) for b in batches])
    return StackedProfiles.of(profiles, job), ConfigBatch.concat(batches)


def _assert_same(
    profiles: list[JobProfile], batches: list[ConfigBatch], cluster: ClusterSpec
) -> None:
    stacked, batch = _stack(profiles, batches)
    together = predict_job(stacked, batch, cluster)
    alone = [predict_job(p, b, cluster) for p, b in zip(profiles, batches, strict=True)]
    for name in OUTPUTS:
        expect = np.concatenate([getattr(a, name) for a in alone])
        np.testing.assert_array_equal(getattr(together, name), expect, err_msg=name)
    for key in alone[0].counters:
        expect = np.concatenate([a.counters[key] for a in alone])
        np.testing.assert_array_equal(together.counters[key], expect, err_msg=key)
    for kind in ("map_phase_ms", "reduce_phase_ms"):
        for phase in getattr(alone[0], kind):
            expect = np.concatenate([getattr(a, kind)[phase] for a in alone])
            np.testing.assert_array_equal(getattr(together, kind)[phase], expect)
    # the search's path: chunked, objectives only
    job, gbs = evaluate(stacked, batch, cluster, chunk=97)
    each = [evaluate(p, b, cluster) for p, b in zip(profiles, batches, strict=True)]
    np.testing.assert_array_equal(job, np.concatenate([e[0] for e in each]))
    np.testing.assert_array_equal(gbs, np.concatenate([e[1] for e in each]))


def test_the_pinned_profiles_stacked_equal_each_alone() -> None:
    """All sixteen profiles of the pinned fixture (Hadoop 1, map-only, compressed
    non-splittable input, combiners) in one call, on a YARN, a Hadoop 1 and a local cluster."""
    cases = [_case(i) for i in range(len(_cases()))]
    profiles = [c[0] for c in cases]
    batches = [c[2] for c in cases]
    for i in (0, 12, 15):
        _assert_same(profiles, batches, cases[i][1])


laws = st.sampled_from(["constant", "heaps", "heaps-beta", "zipf", "zipf-2", "bounded"])
profiles = st.builds(
    lambda size, files, width, psel, ssel, comb, law, comp, split, mo, costs: JobProfile(
        input_bytes=size,
        input_files=files,
        has_combiner=comb,
        input_compressed=comp,
        input_splittable=split,
        map_only=mo,
        stats=DataflowStats(
            input_pair_width=width,
            map_pairs_sel=psel,
            map_size_sel=ssel,
            combine_pairs_sel=0.3,
            combine_size_sel=0.35,
            input_compress_ratio=0.4 if comp else 1.0,
            combine_profiled_input_records=None if law in ("constant", "zipf") else 4e5,
            combiner_heaps_beta=0.5 if law == "heaps-beta" else 0.35,
            key_vocabulary={"zipf": 1e5, "zipf-2": 3e6}.get(law),
            key_zipf_exponent={"zipf": 1.1, "zipf-2": 0.9}.get(law),
            max_distinct_keys=2e5 if law == "bounded" else None,
        ),
        costs=CostFactors(
            sort_cache_slowdown=costs[0],
            spill_file_ns=costs[1],
            segment_seek_ns=costs[2],
            fetch_ns=costs[2],
            reduce_includes_final_merge=costs[3],
            spill_contention=costs[4],
        ),
    ),
    size=st.floats(1e6, 5e11),
    files=st.integers(1, 50),
    width=st.floats(10, 2000),
    psel=st.floats(0.05, 5),
    ssel=st.floats(0.05, 5),
    comb=st.booleans(),
    law=laws,
    comp=st.booleans(),
    split=st.booleans(),
    mo=st.booleans(),
    costs=st.tuples(
        st.sampled_from([0.0, 0.3]),
        st.sampled_from([0.0, 5e5]),
        st.sampled_from([0.0, 2e6]),
        st.booleans(),
        st.sampled_from([0.0, 1.2]),
    ),
)


@settings(max_examples=40, deadline=None)
@given(
    ps=st.lists(profiles, min_size=1, max_size=5),
    cs=st.lists(st.lists(configs, min_size=1, max_size=4), min_size=5, max_size=5),
    overlap=st.booleans(),
)
def test_stacked_random_catalog_equals_each_job_alone(
    ps: list[JobProfile], cs: list[list[HadoopConfig]], overlap: bool
) -> None:
    cluster = ClusterSpec(num_nodes=7, spill_overlap=overlap, heartbeat_ms=300.0)
    batches = [ConfigBatch.from_configs(cs[i]) for i in range(len(ps))]
    _assert_same(ps, batches, cluster)
