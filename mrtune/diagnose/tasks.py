"""Task granularity and map-side efficiency: mapper speed, spill ratio, mapper and reducer time
(too many or too few tasks) and small splits or files.

Dr. Elephant's defaults (``HeuristicConf.xml``, ``MapperSpeedHeuristic``,
``MapperSpillHeuristic``, ``MapperTimeHeuristic``, ``ReducerTimeHeuristic``):

* mapper speed: median of bytes read / runtime, ``disk_speed_severity`` 1/2, 1/4, 1/8, 1/32 of
  a 100 MiB/s disk (``HDFSContext.DISK_READ_SPEED``), descending, damped by the median runtime
  (``runtime_severity_in_min`` 5, 10, 15, 30);
* spill: all maps' ``SPILLED_RECORDS / MAP_OUTPUT_RECORDS``, ``spill_severity`` 2.01, 2.2, 2.5,
  3.0 (1.0 means every record was written once: a single spill, no merge pass), damped by the
  number of maps (``num_tasks_severity`` 50, 100, 500, 1000);
* mapper/reducer time: mean runtime; short tasks ``short_runtime_severity_in_min`` 10, 4, 2, 1
  (descending) damped by the task count (50, 101, 500, 1000) — many short tasks pay the
  container start-up again and again; long tasks ``long_runtime_severity_in_min`` 15, 30, 60,
  120 (not damped) — too few tasks to spread the work.

Small splits or files is mrtune's: the median map input as a fraction of the HDFS block
(1/2, 1/4, 1/8, 1/16, descending), damped by the map count like short maps.
"""

from __future__ import annotations

from mrtune.diagnose._core import (
    MB,
    MINUTE_MS,
    Finding,
    JobView,
    Severity,
    ascending,
    descending,
    lims,
    mean,
    median,
    not_computable,
    plural,
)
from mrtune.diagnose.skew import map_input_bytes
from mrtune.optimizer.units import format_bytes, format_ms

SPEED_LIMITS = (1 / 2, 1 / 4, 1 / 8, 1 / 32)
DISK_READ_SPEED = 100.0 * MB
SPEED_RUNTIME_MIN = (5.0, 10.0, 15.0, 30.0)
SPILL_LIMITS = (2.01, 2.2, 2.5, 3.0)
SPILL_TASKS = (50.0, 100.0, 500.0, 1000.0)
SHORT_MIN = (10.0, 4.0, 2.0, 1.0)
LONG_MIN = (15.0, 30.0, 60.0, 120.0)
TIME_TASKS = (50.0, 101.0, 500.0, 1000.0)
SMALL_SPLIT = (1 / 2, 1 / 4, 1 / 8, 1 / 16)
SPLIT_KNOB = "mapreduce.input.fileinputformat.split.maxsize"
SPILL_KNOBS = (
    "mapreduce.task.io.sort.mb",
    "mapreduce.map.sort.spill.percent",
    "mapreduce.task.io.sort.factor",
)


def _bytes_read(t) -> float:  # noqa: ANN001 - a TaskTiming
    return map_input_bytes(t) or 0.0


def _has_bytes(t) -> bool:  # noqa: ANN001
    return map_input_bytes(t) is not None


def _runtime(t) -> float:  # noqa: ANN001
    return float(t.finish_ms - t.start_ms)


def mapper_speed(job: JobView) -> Finding:
    """Median bytes per second of the maps against a disk's read speed."""
    key, name = "map_speed", "Mapper speed"
    tasks = [t for t in job.side("map") if _runtime(t) > 0 and _has_bytes(t)]
    if not tasks:
        return not_computable(key, name, "map", "no map task with HDFS_BYTES_READ and a runtime")
    speeds = [_bytes_read(t) * 1000.0 / _runtime(t) for t in tasks]
    med_speed, med_run = median(speeds), median([_runtime(t) for t in tasks])
    speed_lim = tuple(f * DISK_READ_SPEED for f in SPEED_LIMITS)
    run_lim = tuple(m * MINUTE_MS for m in SPEED_RUNTIME_MIN)
    sev = min(descending(med_speed, speed_lim), ascending(med_run, run_lim))  # type: ignore[arg-type]
    return Finding(
        key,
        name,
        "map",
        sev,
        f"maps read {format_bytes(med_speed)}/s (median), "
        f"{med_speed / DISK_READ_SPEED:.1%} of a 100 MiB/s disk",
        evidence={
            "tasks": plural(len(tasks), "task"),
            "median input": format_bytes(median([_bytes_read(t) for t in tasks])),
            "median runtime": format_ms(med_run),
            "median speed": f"{format_bytes(med_speed)}/s",
        },
        thresholds=f"speed {lims(SPEED_LIMITS, '×100 MiB/s')} (descending); runtime "
        f"{lims(SPEED_RUNTIME_MIN, ' min')}",
        fix_knobs=(SPLIT_KNOB,),
    )


def mapper_spill(job: JobView) -> Finding:
    """Records spilled per map output record (1.0 = one spill, no extra merge)."""
    key, name = "map_spill", "Mapper spill"
    tasks = [t for t in job.side("map") if "SPILLED_RECORDS" in t.counters]
    out = sum(t.counters.get("MAP_OUTPUT_RECORDS", 0.0) for t in tasks)
    if not tasks or "MAP_OUTPUT_RECORDS" not in tasks[0].counters:
        return not_computable(
            key, name, "map", "no map task with SPILLED_RECORDS and MAP_OUTPUT_RECORDS"
        )
    spilled = sum(t.counters["SPILLED_RECORDS"] for t in tasks)
    ratio = spilled / out if spilled > 0 and out > 0 else 0.0
    sev = min(ascending(ratio, SPILL_LIMITS), ascending(len(job.side("map")), SPILL_TASKS))
    n = len(tasks)
    return Finding(
        key,
        name,
        "map",
        sev,
        f"each map output record was written {ratio:.2f} times to local disk",
        evidence={
            "tasks": plural(n, "task"),
            "spilled records per map": f"{spilled / n:,.0f} records",
            "output records per map": f"{out / n:,.0f} records",
            "spilled / output": f"{ratio:.3f}",
        },
        thresholds=f"spilled/output {lims(SPILL_LIMITS)}; maps {lims(SPILL_TASKS)}",
        fix_knobs=SPILL_KNOBS,
    )


def task_time(job: JobView, kind: str) -> Finding:
    """Mean runtime: many short tasks (too many) or long ones (too few)."""
    key = f"{kind}_time"
    name = "Mapper time" if kind == "map" else "Reducer time"
    tasks = job.side(kind)
    if not tasks:
        return not_computable(key, name, kind, f"no successful {kind} task")
    runs = [_runtime(t) for t in tasks]
    avg = mean(runs)
    short = min(
        descending(avg, tuple(m * MINUTE_MS for m in SHORT_MIN)),  # type: ignore[arg-type]
        ascending(len(tasks), TIME_TASKS),
    )
    long = ascending(avg, tuple(m * MINUTE_MS for m in LONG_MIN))  # type: ignore[arg-type]
    sev = max(short, long)
    if long > Severity.NONE and long >= short:
        summary = f"{kind}s run {format_ms(avg)} on average: too few, too long tasks"
    elif short > Severity.NONE:
        summary = (
            f"{plural(len(tasks), kind)} of {format_ms(avg)} on average: too many, too short tasks"
        )
    else:
        summary = f"{plural(len(tasks), kind)} of {format_ms(avg)} on average"
    knob = SPLIT_KNOB if kind == "map" else "mapreduce.job.reduces"
    return Finding(
        key,
        name,
        kind,
        Severity(sev),
        summary,
        evidence={
            "tasks": plural(len(tasks), "task"),
            "mean runtime": format_ms(avg),
            "min runtime": format_ms(min(runs)),
            "max runtime": format_ms(max(runs)),
            **(
                {"mean input": format_bytes(mean([_bytes_read(t) for t in tasks]))}
                if kind == "map"
                else {}
            ),
        },
        thresholds=f"short {lims(SHORT_MIN, ' min')} (descending) with tasks "
        f"{lims(TIME_TASKS)}; long {lims(LONG_MIN, ' min')}",
        fix_knobs=(knob,),
    )


def small_splits(job: JobView) -> Finding:
    """Median map input against the HDFS block: splits (or files) much smaller than a block."""
    key, name = "small_splits", "Small splits or files"
    tasks = [t for t in job.side("map") if _has_bytes(t)]
    if not tasks:
        return not_computable(key, name, "map", "no map task with HDFS_BYTES_READ")
    block, where = job.block_size
    med = median([_bytes_read(t) for t in tasks])
    frac = med / block
    sev = min(
        descending(frac, SMALL_SPLIT),
        ascending(len(job.side("map")), TIME_TASKS),
    )
    files = job.profile.input_files if job.profile is not None else None
    many_files = files is not None and files >= len(tasks) > 1 and frac < SMALL_SPLIT[0]
    evidence = {
        "maps": plural(len(job.side("map")), "map"),
        "median map input": format_bytes(med),
        "HDFS block": f"{format_bytes(block)} ({where})",
        "median / block": f"{frac:.1%}",
    }
    if files is not None:
        assert job.profile is not None
        how = job.profile.provenance_of("input_files").split(": ", 1)[-1]
        evidence["input files"] = f"{files:,} files ({how})"
    why = "one split per small file: combine them (CombineFileInputFormat)" if many_files else ""
    return Finding(
        key,
        name,
        "map",
        sev,
        f"the median map reads {frac:.1%} of a block" + (f"; {why}" if why else ""),
        evidence=evidence,
        thresholds=f"median/block {lims(SMALL_SPLIT)} (descending); maps {lims(TIME_TASKS)}",
        source="mrtune thresholds (block fractions as Dr. Elephant's files_severity)",
        fix_knobs=(SPLIT_KNOB,),
    )
