"""The heuristics on hand-built jobs: each threshold level of Dr. Elephant's defaults, and the
damping that keeps a bad ratio on a tiny job from being reported as severe."""

from __future__ import annotations

import pytest

from mrtune.costmodel.profile import TaskTiming
from mrtune.diagnose import Severity, run_heuristics
from mrtune.diagnose._core import JobView, ascending, descending, two_groups
from mrtune.diagnose.reduce_side import job_state, shuffle_sort, slow_start
from mrtune.diagnose.resources import gc, memory
from mrtune.diagnose.skew import data_skew, time_skew
from mrtune.diagnose.tasks import mapper_speed, mapper_spill, small_splits, task_time

MIN = 60_000
MB = 1024 * 1024


def _task(i: int, kind: str, start: int, dur: int, **counters: float) -> TaskTiming:
    return TaskTiming(
        attempt_id=f"attempt_1_0001_{kind[0]}_{i:06d}_0",
        kind=kind,  # type: ignore[arg-type]
        start_ms=start,
        finish_ms=start + dur,
        counters=counters,
    )


def _job(tasks: list[TaskTiming], **props: str) -> JobView:
    return JobView(
        source="test", job_id="job_1_0001", status="SUCCEEDED", tasks=tasks, properties=props
    )


def test_severity_levels_follow_dr_elephant() -> None:
    lim = (2.0, 4.0, 8.0, 16.0)
    assert [ascending(v, lim) for v in (1.9, 2, 4, 7.9, 8, 16, 99)] == [
        Severity.NONE, Severity.LOW, Severity.MODERATE, Severity.MODERATE,
        Severity.SEVERE, Severity.CRITICAL, Severity.CRITICAL,
    ]  # fmt: skip
    dlim = (0.6, 0.5, 0.4, 0.3)
    assert [descending(v, dlim) for v in (0.7, 0.6, 0.45, 0.35, 0.3, 0.0)] == [
        Severity.NONE, Severity.LOW, Severity.MODERATE, Severity.SEVERE,
        Severity.CRITICAL, Severity.CRITICAL,
    ]  # fmt: skip


def test_two_groups_splits_at_the_gap() -> None:
    low, high = two_groups([1, 1, 2, 1, 50, 52])
    assert sorted(low) == [1, 1, 1, 2] and sorted(high) == [50, 52]
    assert two_groups([5, 5, 5]) == ([], [5, 5, 5])


def test_map_data_skew_severe_needs_many_tasks_and_big_inputs() -> None:
    # 100 small maps of 64 MiB, 10 of 640 MiB: deviation 9 → severe; 100 tasks in group A → severe
    tasks = [_task(i, "map", 0, MIN, HDFS_BYTES_READ=64 * MB) for i in range(100)]
    tasks += [_task(100 + i, "map", 0, MIN, HDFS_BYTES_READ=640 * MB) for i in range(10)]
    f = data_skew(_job(tasks), "map")
    assert f.severity == Severity.SEVERE
    assert f.evidence["group B (high)"].startswith("10 tasks @ 640.0 MiB")
    # the same skew over 5 tasks is not worth reporting (num_tasks_severity 10, 50, 100, 200)
    few = [_task(i, "map", 0, MIN, HDFS_BYTES_READ=64 * MB) for i in range(4)]
    few.append(_task(9, "map", 0, MIN, HDFS_BYTES_READ=640 * MB))
    assert data_skew(_job(few), "map").severity == Severity.NONE


def test_time_skew_uses_seconds_and_the_straggler_bound() -> None:
    tasks = [_task(i, "reduce", 0, 10_000) for i in range(60)] + [_task(99, "reduce", 0, 100_000)]
    f = time_skew(_job(tasks), "reduce")
    assert f.severity == Severity.MODERATE  # deviation 9 → severe, 60 tasks in A → moderate
    bound = 100_000 - (60 * 10_000 + 100_000) / 61
    assert f.observed_bound_ms == pytest.approx(bound)


def test_gc_ratio_damped_by_runtime() -> None:
    long = [
        _task(i, "map", 0, 20 * MIN, GC_TIME_MILLIS=50_000, CPU_MILLISECONDS=1_000_000)
        for i in range(3)
    ]
    assert gc(_job(long), "map").severity == Severity.CRITICAL  # 5% GC, 20-min tasks
    short = [
        _task(i, "map", 0, 2 * MIN, GC_TIME_MILLIS=50_000, CPU_MILLISECONDS=1_000_000)
        for i in range(3)
    ]
    assert gc(_job(short), "map").severity == Severity.NONE  # < 5 min: not worth it


def test_memory_headroom_and_fix() -> None:
    tasks = [_task(i, "reduce", 0, MIN, PHYSICAL_MEMORY_BYTES=1024 * MB) for i in range(4)]
    f = memory(_job(tasks, **{"mapreduce.reduce.memory.mb": "8192"}), "reduce")
    assert f.severity == Severity.CRITICAL  # 12.5% used, container 4× the 2 GB default
    assert f.fix_settings == {"mapreduce.reduce.memory.mb": "1536"}  # 1 GiB × 1.25 → 1536 MB
    near_default = memory(_job(tasks, **{"mapreduce.reduce.memory.mb": "2048"}), "reduce")
    assert near_default.severity == Severity.NONE  # container below 1.1 × 2048 MB


def test_spill_ratio_levels() -> None:
    def job(ratio: float, n: int) -> JobView:
        return _job([
            _task(i, "map", 0, MIN, SPILLED_RECORDS=ratio * 1000, MAP_OUTPUT_RECORDS=1000) for i in range(n)
        ])  # fmt: skip

    assert mapper_spill(job(1.0, 600)).severity == Severity.NONE
    assert mapper_spill(job(2.3, 600)).severity == Severity.MODERATE
    assert mapper_spill(job(3.5, 600)).severity == Severity.SEVERE  # 600 maps cap it at severe
    assert mapper_spill(job(3.5, 20)).severity == Severity.NONE


def test_mapper_time_too_many_short_and_too_few_long() -> None:
    short = [_task(i, "map", 0, 30_000) for i in range(600)]
    f = task_time(_job(short), "map")
    assert f.severity == Severity.SEVERE and "too many" in f.summary
    long = [_task(i, "map", 0, 70 * MIN) for i in range(3)]
    f = task_time(_job(long), "map")
    assert f.severity == Severity.SEVERE and "too few" in f.summary


def test_speed_and_small_splits() -> None:
    slow = [_task(i, "map", 0, 40 * MIN, HDFS_BYTES_READ=128 * MB) for i in range(3)]
    assert mapper_speed(_job(slow)).severity == Severity.CRITICAL  # 53 KiB/s, 40-min maps
    small = [_task(i, "map", 0, MIN, HDFS_BYTES_READ=4 * MB) for i in range(600)]
    assert small_splits(_job(small)).severity == Severity.SEVERE  # 1/32 of a block, 600 maps


def test_shuffle_sort_and_slow_start() -> None:
    red = _task(0, "reduce", 0, 40 * MIN)
    red.phases_ms = {"shuffle": 30 * MIN, "merge": MIN, "reduce": 9 * MIN}
    maps = [_task(i, "map", 0, 30 * MIN) for i in range(2)]
    f = shuffle_sort(_job([*maps, red]))
    assert f.severity == Severity.SEVERE  # shuffle·2/code = 6.7 ≥ 4 → severe; 30 min → critical
    s = slow_start(_job([*maps, red]))
    assert s.evidence["wait / reduce container time"] == "75.0%"
    assert s.severity == Severity.SEVERE


def test_job_state_levels_and_not_computable() -> None:
    failed = JobView(
        source="t", job_id="j", status="FAILED", failed_attempts=4, diagnostics="boom"
    )
    f = job_state(failed)
    assert f.severity == Severity.CRITICAL and f.evidence["diagnostics"] == "boom"
    findings = run_heuristics(failed)
    assert all(not x.computable for x in findings[1:])
    assert all(x.summary.startswith("not computed:") for x in findings[1:])
