"""Data skew and time skew of map and reduce tasks (Dr. Elephant's ``GenericSkewHeuristic``,
used by ``MapperSkewHeuristic`` and ``ReducerSkewHeuristic``).

The tasks are split into a low and a high group by two-means; the deviation is
``(mean_high − mean_low) / mean_low``. Dr. Elephant's defaults (``HeuristicConf.xml``):
``deviation_severity`` 2, 4, 8, 16; ``num_tasks_severity`` 10, 50, 100, 200 (the number of
tasks in the low group: skew among a handful of tasks does not matter); for data skew also
``files_severity`` 1/8, 1/4, 1/2, 1 of the HDFS block size (the high group's mean must be a
significant amount of data). Data is ``HDFS_BYTES_READ`` for maps (Dr. Elephant adds the S3
byte counters) and ``REDUCE_SHUFFLE_BYTES`` for reduces; time is the attempt's runtime, in
whole seconds as Dr. Elephant compares them.

Price: a skewed key distribution is fixed in code (partitioner, salting), not by a setting (the
cost model keeps a hot partition whole at any number of reducers, ``costmodel/partitions.py``,
and assumes equal maps), so the saving is the *observed* bound: if the side's work
were spread evenly, its slowest task would end no later than the mean task
(``max − mean`` of the runtimes; the side's critical path in one wave).
"""

from __future__ import annotations

from mrtune.diagnose._core import (
    Finding,
    JobView,
    ascending,
    lims,
    mean,
    not_computable,
    plural,
    two_groups,
)
from mrtune.optimizer.units import format_bytes, format_ms

DEVIATION_LIMITS = (2.0, 4.0, 8.0, 16.0)
NUM_TASKS_LIMITS = (10.0, 50.0, 100.0, 200.0)
FILES_LIMITS = (1 / 8, 1 / 4, 1 / 2, 1.0)

MAP_BYTES = ("HDFS_BYTES_READ", "S3_BYTES_READ", "S3A_BYTES_READ", "S3N_BYTES_READ")
REDUCE_BYTES = ("REDUCE_SHUFFLE_BYTES",)
_SIDE = {"map": "Mapper", "reduce": "Reducer"}


def map_input_bytes(t) -> float | None:  # noqa: ANN001 - a TaskTiming
    """Bytes a map read: HDFS (+ S3) as Dr. Elephant counts them, else FileInputFormat's
    ``BYTES_READ`` (local or other file systems: the project's local-mode runs); ``None``
    when the attempt has neither counter."""
    dfs = sum(t.counters.get(c, 0.0) for c in MAP_BYTES)
    if dfs > 0:
        return dfs
    fif = t.counters.get("INPUT_FORMAT_BYTES_READ")
    if fif is not None and fif > 0:
        return float(fif)
    return 0.0 if any(c in t.counters for c in MAP_BYTES) else None


def task_bytes(t, kind: str) -> float | None:  # noqa: ANN001
    if kind == "map":
        return map_input_bytes(t)
    return t.counters.get("REDUCE_SHUFFLE_BYTES")


def _deviation(low: list[float], high: list[float]) -> float:
    if not low or not high:
        return 0.0
    lo = max(mean(low), 1.0)
    return (mean(high) - mean(low)) / lo


def _straggler_bound(job: JobView, kind: str) -> float:
    runtimes = [float(t.finish_ms - t.start_ms) for t in job.side(kind)]
    return max(runtimes) - mean(runtimes) if runtimes else 0.0


def data_skew(job: JobView, kind: str) -> Finding:
    """Unequal input per task: ``(mean_high − mean_low)/mean_low`` of bytes read (or shuffled)."""
    key, name = f"{kind}_data_skew", f"{_SIDE[kind]} data skew"
    counters = MAP_BYTES if kind == "map" else REDUCE_BYTES
    tasks = [t for t in job.side(kind) if task_bytes(t, kind) is not None]
    if len(tasks) < 2:
        why = f"{len(tasks)} {kind} task(s) with {counters[0]}; skew needs two or more"
        return not_computable(key, name, kind, why)
    values = [float(task_bytes(t, kind) or 0.0) for t in tasks]
    low, high = two_groups(values)
    dev = _deviation(low, high)
    block, block_src = job.block_size
    files_lim = tuple(f * block for f in FILES_LIMITS)
    sev = min(
        ascending(dev, DEVIATION_LIMITS),
        ascending(mean(high), files_lim),  # type: ignore[arg-type]
        ascending(len(low), NUM_TASKS_LIMITS),
    )
    biggest = max(zip(values, (t.attempt_id for t in tasks), strict=True))
    bound = _straggler_bound(job, kind)
    return Finding(
        key,
        name,
        kind,
        sev,
        f"{len(high)} of {len(tasks)} {kind}s read {dev:.2f}× more than the rest"
        if low and dev >= 0.05
        else f"all {len(tasks)} {kind}s read about the same amount (within 5%)",
        evidence={
            "tasks": plural(len(tasks), "task"),
            "group A (low)": f"{len(low)} tasks @ {format_bytes(mean(low))} avg",
            "group B (high)": f"{len(high)} tasks @ {format_bytes(mean(high))} avg",
            "deviation (B−A)/A": f"{dev:.2f}×",
            "largest task": f"{biggest[1]} ({format_bytes(biggest[0])})",
            "HDFS block": f"{format_bytes(block)} ({block_src})",
            "straggler bound": f"{format_ms(bound)} (slowest − mean runtime)",
        },
        thresholds=f"deviation {lims(DEVIATION_LIMITS, '×')}; group A tasks "
        f"{lims(NUM_TASKS_LIMITS)}; group B mean ≥ {lims(FILES_LIMITS)} of a block",
        fix_knobs=("mapreduce.input.fileinputformat.split.maxsize",) if kind == "map" else (),
        observed_bound_ms=bound,
    )


def time_skew(job: JobView, kind: str) -> Finding:
    """Unequal runtimes: the same two-group deviation on attempt runtimes (seconds)."""
    key, name = f"{kind}_time_skew", f"{_SIDE[kind]} time skew"
    tasks = job.side(kind)
    if len(tasks) < 2:
        return not_computable(key, name, kind, f"{len(tasks)} {kind} task(s); needs two or more")
    secs = [float((t.finish_ms - t.start_ms) // 1000) for t in tasks]
    low, high = two_groups(secs)
    dev = _deviation(low, high)
    sev = min(ascending(dev, DEVIATION_LIMITS), ascending(len(low), NUM_TASKS_LIMITS))
    slowest = max(tasks, key=lambda t: t.finish_ms - t.start_ms)
    bound = _straggler_bound(job, kind)
    return Finding(
        key,
        name,
        kind,
        sev,
        f"{len(high)} of {len(tasks)} {kind}s ran {dev:.2f}× longer than the rest"
        if low and dev >= 0.05
        else f"all {len(tasks)} {kind}s ran about as long (within 5%, to the second)",
        evidence={
            "tasks": plural(len(tasks), "task"),
            "group A (fast)": f"{len(low)} tasks @ {mean(low):,.0f} s avg",
            "group B (slow)": f"{len(high)} tasks @ {mean(high):,.0f} s avg",
            "deviation (B−A)/A": f"{dev:.2f}×",
            "slowest task": f"{slowest.attempt_id} "
            f"({format_ms(slowest.finish_ms - slowest.start_ms)})",
            "straggler bound": f"{format_ms(bound)} (slowest − mean runtime)",
        },
        thresholds=f"deviation {lims(DEVIATION_LIMITS, '×')}; group A tasks "
        f"{lims(NUM_TASKS_LIMITS)}",
        observed_bound_ms=bound,
    )
