"""The search's lean path gives exactly the full model's numbers (issue 18).

:func:`evaluate` (``counters=False``; the full-split and tail-split map tasks as one call over
twice the rows, :mod:`mrtune.costmodel._map_pair`; chunks) against :func:`predict_job` with
its counters (one map call per task): the same job time and GB·s, bit for bit, on random
profiles, configurations mixed in one batch (so the branch flags of one row meet the others'),
and clusters.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.costmodel import (
    ClusterSpec,
    ConfigBatch,
    HadoopConfig,
    JobProfile,
    evaluate,
    predict_job,
)
from mrtune.costmodel.stacked import StackedProfiles
from tests.costmodel.test_properties import configs, profiles

clusters = st.sampled_from(
    [
        ClusterSpec(num_nodes=5),
        ClusterSpec(num_nodes=40, replication=2, block_size_mb=64),  # remote reads
        ClusterSpec(num_nodes=8, spill_overlap=False, node_cores=8),
        ClusterSpec.local(maps=2),
    ]
)
variants = st.fixed_dictionaries(
    {
        "input_compressed": st.booleans(),
        "map_only": st.booleans(),
        "input_files": st.integers(1, 30),
    }
)
split = st.sampled_from(["", str(32 * 2**20), str(300 * 2**20)])


def _configs(cs: list[HadoopConfig], splits: list[str], h1: list[bool]) -> list[HadoopConfig]:
    out = []
    for c, s, one in zip(cs, splits, h1, strict=False):
        if s:
            c = c.with_changes({"mapreduce.input.fileinputformat.split.maxsize": s})
        if one:
            c = c.model_copy(update={"hadoop_version": 1})
        out.append(c)
    return out


@settings(max_examples=150, deadline=None)
@given(
    p=profiles,
    v=variants,
    cs=st.lists(configs, min_size=1, max_size=6),
    splits=st.lists(split, min_size=6, max_size=6),
    h1=st.lists(st.booleans(), min_size=6, max_size=6),
    cluster=clusters,
)
def test_lean_evaluate_equals_the_full_model(
    p: JobProfile,
    v: dict,
    cs: list[HadoopConfig],
    splits: list[str],
    h1: list[bool],
    cluster: ClusterSpec,
) -> None:
    upd = dict(v)
    if upd["input_compressed"]:
        upd["stats"] = p.stats.model_copy(update={"input_compress_ratio": 0.4})
    p = p.model_copy(update=upd)
    batch = ConfigBatch.from_configs(_configs(cs, splits, h1))
    full = predict_job(p, batch, cluster)
    job, gbs = evaluate(p, batch, cluster)
    assert np.array_equal(job, full.job_ms)
    assert np.array_equal(gbs, full.container_gb_s)
    lean = predict_job(p, batch, cluster, counters=False)
    for task in ("map_full", "map_tail"):
        a, b = getattr(lean, task), getattr(full, task)
        assert np.array_equal(a.task_ms, b.task_ms)
        assert np.array_equal(a.final_records, b.final_records)
        assert np.array_equal(a.final_pair_width, b.final_pair_width)
        for phase, ms in b.phase_ms.items():
            assert np.array_equal(a.phase_ms[phase], ms)


def test_evaluate_in_chunks_equals_one_call() -> None:
    """Chunks of the lean path (here 7 rows) give the numbers of one call over all rows."""
    p = JobProfile(input_bytes=3e10, input_files=7)
    rng = np.random.default_rng(3)
    base = HadoopConfig()
    batch = ConfigBatch.from_base(
        base,
        40,
        io_sort_mb=rng.integers(20, 800, 40).astype(float),
        num_reducers=rng.integers(0, 50, 40),
        split_size=rng.choice([32.0, 128.0, 300.0], 40) * 2**20,
    )
    cluster = ClusterSpec(num_nodes=12)
    job, gbs = evaluate(p, batch, cluster, chunk=7)
    full = predict_job(p, batch, cluster)
    assert np.array_equal(job, full.job_ms) and np.array_equal(gbs, full.container_gb_s)


@settings(max_examples=40, deadline=None)
@given(
    ps=st.lists(profiles, min_size=2, max_size=4),
    cs=st.lists(configs, min_size=2, max_size=8),
    heaps=st.lists(st.booleans(), min_size=4, max_size=4),
    cluster=clusters,
)
def test_lean_stacked_jobs_equal_the_full_model(
    ps: list[JobProfile], cs: list[HadoopConfig], heaps: list[bool], cluster: ClusterSpec
) -> None:
    """Stacked jobs (each row its own profile and combiner key law) give the full model's
    numbers on the lean path."""
    ps = [
        p.model_copy(
            update={"stats": p.stats.model_copy(update={"combine_profiled_input_records": 4e5})}
        )
        if h and p.has_combiner
        else p
        for p, h in zip(ps, heaps, strict=False)
    ]
    job_of = np.arange(len(cs)) % len(ps)
    stacked = StackedProfiles.of(ps, job_of)
    batch = ConfigBatch.from_configs(cs)
    full = predict_job(stacked, batch, cluster)
    job, gbs = evaluate(stacked, batch, cluster)
    assert np.array_equal(job, full.job_ms)
    assert np.array_equal(gbs, full.container_gb_s)


def test_lean_stacked_key_laws_follow_their_rows() -> None:
    """Three jobs, three combiner key laws (Heaps through a profiled spill, the constant
    selectivity, none): each row keeps its own law on the lean path."""
    from mrtune.costmodel import DataflowStats

    def job(n0: float | None, comb: bool, sel: float) -> JobProfile:
        stats = DataflowStats(
            input_pair_width=60,
            map_pairs_sel=6.0,
            combine_pairs_sel=sel if comb else 1.0,
            combine_size_sel=sel if comb else 1.0,
            combine_profiled_input_records=n0,
        )
        return JobProfile(
            input_bytes=2e10,
            input_files=5,
            has_combiner=comb,
            combine_class="C" if comb else None,
            stats=stats,
        )

    ps = [job(3e5, True, 0.2), job(None, True, 0.5), job(None, False, 1.0)]
    base = HadoopConfig(combine_class="C")
    batch = ConfigBatch.from_base(base, 9, io_sort_mb=np.linspace(20, 900, 9))
    stacked = StackedProfiles.of(ps, np.array([0, 1, 2, 2, 1, 0, 0, 1, 2]))
    cluster = ClusterSpec(num_nodes=10)
    full = predict_job(stacked, batch, cluster)
    job_ms, gbs = evaluate(stacked, batch, cluster)
    assert np.array_equal(job_ms, full.job_ms)
    assert np.array_equal(gbs, full.container_gb_s)


def test_lean_path_above_the_pair_limit_equals_the_full_model(monkeypatch) -> None:  # noqa: ANN001
    """Above PAIR_MAX_ROWS the lean path calls the map model once per task: same numbers."""
    import importlib

    groups_module = importlib.import_module("mrtune.costmodel.map_groups")
    monkeypatch.setattr(groups_module, "PAIR_MAX_ROWS", 3)
    p = JobProfile(input_bytes=3e10, input_files=7, map_only=False)
    rng = np.random.default_rng(5)
    batch = ConfigBatch.from_base(
        HadoopConfig(), 20, io_sort_mb=rng.integers(20, 800, 20).astype(float)
    )
    cluster = ClusterSpec(num_nodes=12)
    job, gbs = evaluate(p, batch, cluster, chunk=7)
    full = predict_job(p, batch, cluster)
    assert np.array_equal(job, full.job_ms) and np.array_equal(gbs, full.container_gb_s)
