"""YARN fixed costs measured from a history's timeline (issue 21): the CPU contention of the
containers that run at once (ClusterSpec.cpu_stretch; the calibration's attempts without it,
fixed_costs.without_contention) and the reduces' ramp-up delay (fixed_costs.reduce_ramp_ms)."""

from __future__ import annotations

import numpy as np
import pytest

from mrtune.calibration.fixed_costs import (
    REDUCE_COMMIT_POLL_MS,
    attempt_stretch,
    container_cores,
    reduce_fixed_from_history,
    reduce_ramp_ms,
    without_contention,
)
from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile, predict_job
from mrtune.costmodel.profile import CostFactors, DataflowStats
from mrtune.harness.yarn_check import cluster_spec
from mrtune.harness.yarn_run import MiniCluster
from mrtune.readers.history import AttemptRecord, JobHistory

MB = float(2**20)


def _profile(overhead_ms: float = 3000.0) -> JobProfile:
    return JobProfile(
        input_bytes=24 * MB,
        stats=DataflowStats(input_pair_width=100.0, map_size_sel=1.0, map_pairs_sel=1.0),
        costs=CostFactors(task_overhead_ms=overhead_ms),
    )


def _batch(**props: object) -> ConfigBatch:
    base = {"mapreduce.input.fileinputformat.split.maxsize": 4 * 2**20}
    return ConfigBatch.from_configs([HadoopConfig.from_properties({**base, **props})])


def _cluster(**kw: object) -> ClusterSpec:
    args = dict(num_nodes=2, node_memory_mb=1024, node_vcores=4, min_allocation_mb=128)
    return ClusterSpec(**{**args, "am_memory_mb": 512, **kw})


def test_stretch_is_one_without_cores_and_containers_over_cores_with_them() -> None:
    assert _cluster().cpu_stretch(6.0) == 1.0
    assert ClusterSpec.local().cpu_stretch(6.0) == 1.0
    shared = _cluster(node_cores=1.0)
    assert np.allclose(shared.cpu_stretch(np.array([1.0, 2.0, 3.0, 6.0])), [1, 1, 1.5, 3])
    # a mini-cluster's NodeManagers share the host's cores
    spec = cluster_spec(MiniCluster(host_cores=2, nodemanagers=2))
    assert spec.node_cores == 1.0 and spec.num_nodes == 2


def test_contention_stretches_a_full_wave_and_bigger_containers_run_fewer_at_once() -> None:
    prof = _profile()
    small = dict(
        **{"mapreduce.map.memory.mb": 256, "mapreduce.reduce.memory.mb": 256},
        **{"mapreduce.map.java.opts": "-Xmx180m", "mapreduce.reduce.java.opts": "-Xmx180m"},
    )
    big = {**small, "mapreduce.map.memory.mb": 512, "mapreduce.map.java.opts": "-Xmx360m"}
    free = predict_job(prof, _batch(**small), _cluster())
    shared = predict_job(prof, _batch(**small), _cluster(node_cores=1.0))
    assert int(shared.num_maps[0]) == 6 and int(shared.map_slots[0]) == 6
    assert float(shared.map_stretch[0]) == pytest.approx(3.0)
    assert float(shared.map_stage_ms[0]) == pytest.approx(3.0 * float(free.map_stage_ms[0]))
    wide = predict_job(prof, _batch(**big), _cluster(node_cores=1.0))
    assert int(wide.map_slots[0]) == 3 and int(wide.map_waves[0]) == 2
    # 3 maps at once on 2 cores: each map is 2x faster than in the 6-map wave
    assert float(wide.map_stretch[0]) == pytest.approx(1.5)
    # the first wave of 3 ends in half the 6-map wave's time
    assert float(wide.reduce_start_ms[0]) == pytest.approx(0.5 * float(shared.reduce_start_ms[0]))


def test_reduce_fixed_time_comes_before_its_shuffle_and_the_ramp_delays_it() -> None:
    prof = _profile(overhead_ms=3000.0)
    base = predict_job(prof, _batch(), _cluster())
    fixed = float(base.reduce.fixed_ms)
    assert fixed >= 3000.0
    start, end = float(base.reduce_start_ms[0]), float(base.shuffle_end_ms[0])
    assert end - start >= fixed + float(base.reduce.phase_ms["shuffle"][0]) - 1e-6
    ramp = predict_job(prof, _batch(), _cluster(reduce_ramp_ms=2500.0))
    assert float(ramp.reduce_start_ms[0]) == pytest.approx(start + 2500.0)
    # with slow-start, the delay hides behind the maps; after the last map it is paid in full
    assert float(ramp.job_ms[0]) == pytest.approx(float(base.job_ms[0]))
    late = _batch(**{"mapreduce.job.reduce.slowstart.completedmaps": 1.0})
    t0 = float(predict_job(prof, late, _cluster()).job_ms[0])
    t1 = float(predict_job(prof, late, _cluster(reduce_ramp_ms=2500.0)).job_ms[0])
    assert t1 == pytest.approx(t0 + 2500.0)
    local = ClusterSpec.local()
    assert local.reduce_ramp_ms == 0.0


def _a(kind: str, i: int, start: int, finish: int, **kw: int) -> AttemptRecord:
    k = "m" if kind == "MAP" else "r"
    return AttemptRecord(f"attempt_1_0001_{k}_{i:06d}_0", f"t_{k}_{i}", kind, start, finish, **kw)


def _history(attempts: list[AttemptRecord]) -> JobHistory:
    h = JobHistory(source="x", source_format="jhist", total_maps=4, total_reduces=1)
    h.attempts = attempts
    return h


def test_attempt_stretch_is_the_time_average_of_running_over_cores() -> None:
    # four maps 0..1000 on 2 cores (stretch 2), then one map alone 1000..2000 (stretch 1)
    maps = [_a("MAP", i, 0, 1000, map_finish_ms=800) for i in range(4)]
    late = _a("MAP", 4, 500, 1500)
    h = _history([*maps, late])
    s = attempt_stretch(h, cores=2.0)
    # 0..500: 4 running -> 2; 500..1000: 5 -> 2.5; the late one: 500..1000 at 2.5, then 1
    assert s[maps[0].attempt_id] == pytest.approx((500 * 2.0 + 500 * 2.5) / 1000)
    assert s[late.attempt_id] == pytest.approx((500 * 2.5 + 500 * 1.0) / 1000)
    free = without_contention(h, cores=2.0)
    a0 = free.attempts[0]
    assert a0.start_ms == 0 and a0.finish_ms == round(1000 / 2.25)
    assert a0.map_finish_ms == round(800 / 2.25)
    assert h.attempts[0].finish_ms == 1000  # the input history is left as it was


def test_reduce_ramp_is_measured_from_the_first_instant_a_container_is_free() -> None:
    maps = [_a("MAP", 0, 0, 10_000), _a("MAP", 1, 0, 11_000), _a("MAP", 2, 0, 12_000)]
    red = _a("REDUCE", 0, 12_900, 20_000, shuffle_finish_ms=16_000, sort_finish_ms=17_000)
    h = _history([*maps, red])
    # slow-start 0.05 of 3 maps: after the first map (10 s), whose end frees its container
    assert reduce_ramp_ms(h, 0.05) == 2900.0
    # slow-start 1.0: requested once the last map is done
    assert reduce_ramp_ms(h, 1.0) == 900.0
    assert reduce_ramp_ms(_history(maps), 0.05) is None


def test_container_cores_from_the_map_and_reduce_container_starts() -> None:
    # four maps at once, then a reduce alone, on 2 cores
    maps = [_a("MAP", i, 0, 10_000) for i in range(4)]
    red = _a("REDUCE", 0, 11_000, 15_000)
    h = _history([*maps, red])
    # the maps' container start took 4x the reduce's: s(4) = 4 → a container keeps 2 busy
    starts = {
        "map_jvm_ms": 2000,
        "map_init_ms": 6000,
        "reduce_jvm_ms": 500,
        "reduce_init_ms": 1500,
    }
    assert container_cores(h, starts, cores=2.0) == pytest.approx(2.0)
    # 2x: s(4) = 2 → one core each (the linear term)
    half = {**starts, "map_jvm_ms": 1000, "map_init_ms": 3000}
    assert container_cores(h, half, cores=2.0) == pytest.approx(1.0)
    assert container_cores(h, {}, cores=2.0) is None  # a user's history: no container logs
    # the busier container stretches the calibration's attempts more
    assert attempt_stretch(h, 2.0, 2.0)[maps[0].attempt_id] == pytest.approx(4.0)
    assert _cluster(node_cores=1.0, container_cores=2.0).cpu_stretch(4.0) == pytest.approx(4.0)
    assert _cluster(node_cores=1.0, container_cores=2.0).cpu_stretch(1.0) == pytest.approx(1.0)


def test_reduce_fixed_time_adds_once_per_reduce_wave_unstretched() -> None:
    """ClusterSpec.reduce_fixed_ms: wall time after the merge (HDFS create/close, the task
    commit), the same for any input and any contention; 0 leaves the model as it was."""
    prof = _profile()
    small = {"mapreduce.reduce.memory.mb": 256, "mapreduce.reduce.java.opts": "-Xmx180m"}
    for cores in (None, 1.0):
        base = predict_job(prof, _batch(**small), _cluster(node_cores=cores))
        zero = predict_job(prof, _batch(**small), _cluster(node_cores=cores, reduce_fixed_ms=0.0))
        assert float(zero.job_ms[0]) == float(base.job_ms[0])
        term = predict_job(prof, _batch(**small), _cluster(node_cores=cores, reduce_fixed_ms=900))
        assert float(term.job_ms[0]) == pytest.approx(float(base.job_ms[0]) + 900.0)
        assert float(term.reduce_task_ms[0]) == pytest.approx(float(base.reduce_task_ms[0]))
        # two reduce waves (8 reduces on 6 reduce containers after the AM) pay it twice
        many = {**small, "mapreduce.job.reduces": 8}
        b8 = predict_job(prof, _batch(**many), _cluster(node_cores=cores))
        t8 = predict_job(prof, _batch(**many), _cluster(node_cores=cores, reduce_fixed_ms=900))
        waves = int(b8.reduce_waves[0])
        assert waves == 2
        assert float(t8.job_ms[0]) == pytest.approx(float(b8.job_ms[0]) + 900.0 * waves)
    local = ClusterSpec.local().model_copy(update={"reduce_fixed_ms": 900.0})
    assert float(predict_job(prof, _batch(), local).job_ms[0]) == pytest.approx(
        float(predict_job(prof, _batch(), ClusterSpec.local()).job_ms[0])
    )
    with pytest.raises(ValueError):
        _cluster(reduce_fixed_ms=float("inf"))


def test_without_reduce_fixed_trims_the_reduce_phase_only() -> None:
    from mrtune.calibration.fixed_costs import without_reduce_fixed

    maps = [_a("MAP", i, 0, 1000, map_finish_ms=800) for i in range(2)]
    red = _a("REDUCE", 0, 100, 5000, shuffle_finish_ms=2000, sort_finish_ms=3000)
    short = _a("REDUCE", 1, 100, 3400, shuffle_finish_ms=2000, sort_finish_ms=3000)
    h = _history([*maps, red, short])
    out = without_reduce_fixed(h, 900.0)
    by_id = {a.attempt_id: a for a in out.attempts}
    assert [by_id[m.attempt_id] for m in maps] == maps
    r = by_id[red.attempt_id]
    assert (r.finish_ms, r.sort_finish_ms, r.shuffle_finish_ms) == (4100, 3000, 2000)
    # at most the phase: a 400 ms reduce phase keeps no per-record time
    assert by_id[short.attempt_id].finish_ms == 3000
    assert without_reduce_fixed(h, 0.0) is h


def _reduce(i: int, records: float, phase_ms: int, start: int = 0) -> AttemptRecord:
    return AttemptRecord(
        f"attempt_1_0001_r_{i:06d}_0",
        f"t_r_{i}",
        "REDUCE",
        start,
        start + 1000 + phase_ms,
        shuffle_finish_ms=start + 800,
        sort_finish_ms=start + 1000,
        counters={"REDUCE_INPUT_RECORDS": records},
    )


def test_reduce_fixed_is_the_intercept_when_the_reduces_records_spread() -> None:
    """Reduces of 1 k, 2 k and 4 k records at 600 ms + 0.5 ms a record, one after another
    (no contention): the intercept is measured."""
    reds = [
        _reduce(i, n, int(600 + 0.5 * n), start=10_000 * i) for i, n in enumerate([1e3, 2e3, 4e3])
    ]
    value, how = reduce_fixed_from_history(_history(reds), cores=4.0)
    assert value == pytest.approx(600.0, abs=1.0)
    assert how.startswith("measured: intercept of 3 reduces")


def test_reduce_fixed_falls_back_to_the_commit_poll_prior_capped_by_the_phase() -> None:
    # one reduce: the prior, one canCommit poll
    value, how = reduce_fixed_from_history(_history([_reduce(0, 5e3, 1800)]), cores=4.0)
    assert value == REDUCE_COMMIT_POLL_MS and how.startswith("prior: Task.commit")
    # equal partitions: no intercept to read; a phase shorter than the poll caps it
    same = [_reduce(i, 5e3 + i, 700 + 50 * i, start=10_000 * i) for i in range(4)]
    value, how = reduce_fixed_from_history(_history(same), cores=4.0)
    assert value == 700.0 and "capped at the shortest reduce phase 700 ms" in how
    assert "4 reduce(s)" in how
    # a map-only history: no term
    assert reduce_fixed_from_history(_history([_a("MAP", 0, 0, 500)]), cores=4.0)[0] == 0.0
