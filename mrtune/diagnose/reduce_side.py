"""Shuffle and sort against reduce time (Dr. Elephant's ``ShuffleSortHeuristic``), reduce
slow-start (mrtune's), and the job's own state (Dr. Elephant's ``ExceptionHeuristic`` reports
failed jobs; the levels here are mrtune's).

Shuffle & sort: per reduce, shuffle = start → shuffleFinishTime, sort = shuffleFinishTime →
sortFinishTime, code = sortFinishTime → finish (``MapReduceTaskData``). For the mean shuffle
and the mean sort each, severity = min(ascending(t·2/code, 1, 2, 4, 8), ascending(t, 1, 5, 10,
30 min)); the finding is the worse of the two.

Slow-start: reduces that start before the last map ends hold a container while they wait for
map output (``mapreduce.job.reduce.slowstart.completedmaps``, ``ShuffleSchedulerImpl``). The
share of reduce container time spent before the last map finished is rated 0.25, 0.5, 0.75,
0.9, damped by that waiting time itself (1, 5, 10, 30 min, as shuffle & sort): idle reduces
only cost something when they wait long. The price is in container GB·s (objective resources).
"""

from __future__ import annotations

from mrtune.diagnose._core import (
    MINUTE_MS,
    Finding,
    JobView,
    Severity,
    ascending,
    lims,
    mean,
    not_computable,
    plural,
)
from mrtune.optimizer.units import format_ms

RATIO_LIMITS = (1.0, 2.0, 4.0, 8.0)
RUNTIME_LIMITS_MIN = (1.0, 5.0, 10.0, 30.0)
WAIT_SHARE = (0.25, 0.5, 0.75, 0.9)
SHUFFLE_KNOBS = (
    "mapreduce.reduce.shuffle.parallelcopies",
    "mapreduce.reduce.shuffle.input.buffer.percent",
    "mapreduce.reduce.shuffle.merge.percent",
    "mapreduce.reduce.input.buffer.percent",
    "mapreduce.task.io.sort.factor",
    "mapreduce.map.output.compress.codec",
)
SLOWSTART = "mapreduce.job.reduce.slowstart.completedmaps"


def _rate(t: float, code: float) -> Severity:
    run = ascending(t, tuple(m * MINUTE_MS for m in RUNTIME_LIMITS_MIN))  # type: ignore[arg-type]
    if code <= 0:
        return run
    return min(run, ascending(t * 2 / code, RATIO_LIMITS))


def shuffle_sort(job: JobView) -> Finding:
    """Mean shuffle and sort time of the reduces against their own code's time."""
    key, name = "shuffle_sort", "Shuffle and sort"
    tasks = [t for t in job.side("reduce") if {"shuffle", "merge", "reduce"} <= set(t.phases_ms)]
    if not tasks:
        why = "no reduce with shuffle and sort finish times" if job.side("reduce") else "no reduce"
        return not_computable(key, name, "reduce", why)
    sh = mean([t.phases_ms["shuffle"] for t in tasks])
    so = mean([t.phases_ms["merge"] for t in tasks])
    code = mean([t.phases_ms["reduce"] for t in tasks])
    sev = max(_rate(sh, code), _rate(so, code))
    worst = "shuffle" if _rate(sh, code) >= _rate(so, code) else "sort"
    return Finding(
        key,
        name,
        "reduce",
        Severity(sev),
        f"reduces spend {format_ms(sh)} shuffling and {format_ms(so)} sorting for "
        f"{format_ms(code)} of reduce code" + (f" ({worst} dominates)" if sev else ""),
        evidence={
            "tasks": plural(len(tasks), "task"),
            "mean shuffle": f"{format_ms(sh)} ({sh / code:.1f}× code)"
            if code > 0
            else format_ms(sh),
            "mean sort": f"{format_ms(so)} ({so / code:.1f}× code)" if code > 0 else format_ms(so),
            "mean reduce code": format_ms(code),
        },
        thresholds=f"time·2/code {lims(RATIO_LIMITS, '×')}; time {lims(RUNTIME_LIMITS_MIN, ' min')}",
        fix_knobs=SHUFFLE_KNOBS,
    )


def slow_start(job: JobView) -> Finding:
    """Reduce container time spent waiting for maps (reduces started too early)."""
    key, name = "slow_start", "Reduce slow-start"
    maps, reds = job.side("map"), job.side("reduce")
    if not reds or not maps:
        return not_computable(key, name, "reduce", "needs both map and reduce tasks")
    last_map = max(t.finish_ms for t in maps)
    waits = [float(max(min(last_map, t.finish_ms) - t.start_ms, 0)) for t in reds]
    held = sum(float(t.finish_ms - t.start_ms) for t in reds)
    share = sum(waits) / held if held > 0 else 0.0
    wait = mean(waits)
    sev = min(
        ascending(share, WAIT_SHARE),
        ascending(wait, tuple(m * MINUTE_MS for m in RUNTIME_LIMITS_MIN)),  # type: ignore[arg-type]
    )
    cur = job.properties.get(SLOWSTART) or (
        f"{job.config.reduce_slowstart:g}" if job.config is not None else "0.05 (default)"
    )
    return Finding(
        key,
        name,
        "reduce",
        sev,
        f"reduces waited for the last map {share:.0%} of their container time",
        evidence={
            "reduces": plural(len(reds), "reduce"),
            "mean wait for last map": format_ms(wait),
            "wait / reduce container time": f"{share:.1%}",
            job.property_name(SLOWSTART): cur,
        },
        thresholds=f"wait share {lims(WAIT_SHARE)}; wait {lims(RUNTIME_LIMITS_MIN, ' min')}",
        source="mrtune thresholds",
        fix_knobs=(SLOWSTART,),
        objective="resources",
    )


def job_state(job: JobView) -> Finding:
    """A failed, killed or truncated job, or failed attempts in a successful one."""
    ev = {
        "state": job.status,
        "failed attempts": plural(job.failed_attempts, "attempt"),
        "killed attempts": plural(job.killed_attempts, "attempt"),
        "failed tasks": plural(job.failed_tasks, "task"),
        "successful attempts": plural(len(job.tasks), "attempt"),
    }
    if job.declared_maps is not None:
        ev["declared"] = (
            f"{plural(job.declared_maps, 'map')}, {plural(job.declared_reduces or 0, 'reduce')}"
        )
    if job.diagnostics:
        ev["diagnostics"] = job.diagnostics.strip().replace("\n", " ")[:300]
    if job.status in {"FAILED", "KILLED", "ERROR"}:
        verb = {"FAILED": "failed", "KILLED": "was killed", "ERROR": "ended in error"}[job.status]
        sev, text = Severity.CRITICAL, f"the job {verb}"
    elif job.status == "INCOMPLETE":
        sev, text = (
            Severity.SEVERE,
            "the history is truncated (no JOB_FINISHED): partial diagnosis",
        )
    elif job.failed_attempts or job.failed_tasks:
        sev, text = Severity.LOW, f"{job.failed_attempts} attempt(s) failed and were retried"
    elif job.status != "SUCCEEDED":  # e.g. REST responses without the job's own
        sev, text = Severity.NONE, f"the job's final state is not recorded ({job.status})"
    else:
        sev, text = Severity.NONE, "the job succeeded with no failed attempt"
    if job.problem and sev >= Severity.SEVERE:
        text += f"; {job.problem.split(': ', 1)[-1]}"
    return Finding(
        "job_state",
        "Job state and failures",
        "job",
        sev,
        text,
        evidence=ev,
        thresholds="failed/killed critical; truncated severe; retried attempts low",
        source="mrtune levels (Dr. Elephant's Exception heuristic reports failed jobs)",
    )
