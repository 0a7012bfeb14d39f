"""GC time and memory headroom of map and reduce containers (Dr. Elephant's
``GenericGCHeuristic`` and ``GenericMemoryHeuristic``).

GC: ``mean(GC_TIME_MILLIS) / mean(CPU_MILLISECONDS)`` over the side's tasks, defaults
``gc_ratio_severity`` 0.01, 0.02, 0.03, 0.04, damped by the mean task runtime
(``runtime_severity_in_min`` 5, 10, 12, 15): GC in short tasks is not worth tuning. The cost
model has no garbage-collection term, so the price is the observed GC time per task (what a
larger heap could at most recover on the side's critical path, one wave).

Memory: ``mean(PHYSICAL_MEMORY_BYTES) / container size``, defaults ``memory_ratio_severity``
0.6, 0.5, 0.4, 0.3 (descending: the less of the container a task uses, the worse), damped by
the container size (``container_memory_severity`` 1.1, 1.5, 2, 2.5 × 2048 MB: asking for about
the default container is not waste worth reporting). The container size is Hadoop's own rule
(``JobConf.getMemoryRequired``: ``mapreduce.{map,reduce}.memory.mb``, or the heap / ratio, or
1024 MB). The fix is a smaller container that still holds the largest task's physical memory
with 25% headroom (and, for maps, a heap above the sort buffer), rounded up to 512 MB, with
``-Xmx`` scaled when the job sets it; the what-if model prices it in container GB·s.
"""

from __future__ import annotations

import math
import re

from mrtune.diagnose._core import (
    MB,
    MINUTE_MS,
    Finding,
    JobView,
    ascending,
    descending,
    lims,
    mean,
    not_computable,
    plural,
)
from mrtune.optimizer.units import format_bytes, format_ms

GC_RATIO_LIMITS = (0.01, 0.02, 0.03, 0.04)
GC_RUNTIME_LIMITS_MIN = (5.0, 10.0, 12.0, 15.0)
MEM_RATIO_LIMITS = (0.6, 0.5, 0.4, 0.3)
CONTAINER_LIMITS = (1.1, 1.5, 2.0, 2.5)
CONTAINER_DEFAULT_MB = 2048.0
HEADROOM = 1.25
_SIDE = {"map": "Mapper", "reduce": "Reducer"}


def gc(job: JobView, kind: str) -> Finding:
    """GC time / CPU time of the side's tasks."""
    key, name = f"{kind}_gc", f"{_SIDE[kind]} GC"
    tasks = [
        t
        for t in job.side(kind)
        if "GC_TIME_MILLIS" in t.counters and "CPU_MILLISECONDS" in t.counters
    ]
    if not tasks:
        return not_computable(
            key, name, kind, f"no {kind} task with GC_TIME_MILLIS and CPU_MILLISECONDS"
        )
    gc_ms = mean([t.counters["GC_TIME_MILLIS"] for t in tasks])
    cpu_ms = mean([t.counters["CPU_MILLISECONDS"] for t in tasks])
    run_ms = mean([float(t.finish_ms - t.start_ms) for t in tasks])
    ratio = gc_ms / cpu_ms if cpu_ms > 0 else 0.0
    run_lim = tuple(m * MINUTE_MS for m in GC_RUNTIME_LIMITS_MIN)
    sev = min(ascending(ratio, GC_RATIO_LIMITS), ascending(run_ms, run_lim))  # type: ignore[arg-type]
    return Finding(
        key,
        name,
        kind,
        sev,
        f"GC took {ratio:.1%} of the {kind}s' CPU time ({format_ms(gc_ms)} per task)",
        evidence={
            "tasks": plural(len(tasks), "task"),
            "mean GC time": format_ms(gc_ms),
            "mean CPU time": format_ms(cpu_ms),
            "GC / CPU": f"{ratio:.2%}",
            "mean runtime": format_ms(run_ms),
        },
        thresholds=f"GC/CPU {lims(GC_RATIO_LIMITS)}; runtime {lims(GC_RUNTIME_LIMITS_MIN, ' min')}",
        observed_bound_ms=gc_ms,
    )


def _container_mb(job: JobView, kind: str) -> tuple[float, str]:
    if job.config is not None:
        mb = job.config.map_container_mb if kind == "map" else job.config.reduce_container_mb
        return float(mb), f"mapreduce.{kind}.memory.mb (Hadoop's JobConf.getMemoryRequired)"
    raw = job.properties.get(f"mapreduce.{kind}.memory.mb", "")
    try:
        mb = float(raw)
    except ValueError:
        mb = -1.0
    if mb > 0:
        return mb, f"mapreduce.{kind}.memory.mb"
    return 1024.0, "Hadoop 2/3 default 1024 MB"


def _smallest_container(job: JobView, kind: str, max_phys: float) -> float:
    """512 MB steps above the largest task's physical memory × 1.25, with a heap (× the heap
    ratio, ``mapreduce.job.heap.memory-mb.ratio``) that still holds the map's sort buffer."""
    need = max_phys * HEADROOM / MB
    if job.config is not None and kind == "map":
        need = max(need, job.config.io_sort_mb * HEADROOM / job.config.heap_memory_mb_ratio)
    return max(512.0, math.ceil(need / 512.0) * 512.0)


def _memory_fix(job: JobView, kind: str, need_mb: float) -> dict[str, str]:
    """``memory.mb`` and, when the job sets its heap explicitly (``-Xmx`` in java.opts), the
    heap scaled to the new container: Hadoop derives ``-Xmx`` from memory.mb × ratio only when
    the options do not set it, and a heap above the container gets the task killed."""
    fix = {f"mapreduce.{kind}.memory.mb": str(int(need_mb))}
    cfg = job.config
    if cfg is None:
        return fix
    opts = (cfg.map_java_opts if kind == "map" else cfg.reduce_java_opts) or cfg.child_java_opts
    if opts and re.search(r"-Xmx\S+", opts):
        heap = int(need_mb * cfg.heap_memory_mb_ratio)
        fix[f"mapreduce.{kind}.java.opts"] = re.sub(r"-Xmx\S+", f"-Xmx{heap}m", opts)
    return fix


def memory(job: JobView, kind: str) -> Finding:
    """Physical memory used by the side's tasks against the container they asked for."""
    key, name = f"{kind}_memory", f"{_SIDE[kind]} memory headroom"
    tasks = [t for t in job.side(kind) if t.counters.get("PHYSICAL_MEMORY_BYTES", 0) > 0]
    if not tasks:
        return not_computable(key, name, kind, f"no {kind} task with PHYSICAL_MEMORY_BYTES")
    phys = [t.counters["PHYSICAL_MEMORY_BYTES"] for t in tasks]
    cont_mb, where = _container_mb(job, kind)
    ratio = mean(phys) / (cont_mb * MB)
    cont_lim = tuple(f * CONTAINER_DEFAULT_MB for f in CONTAINER_LIMITS)
    sev = min(descending(ratio, MEM_RATIO_LIMITS), ascending(cont_mb, cont_lim))  # type: ignore[arg-type]
    need_mb = _smallest_container(job, kind, max(phys))
    fix = _memory_fix(job, kind, need_mb) if need_mb < cont_mb else {}
    return Finding(
        key,
        name,
        kind,
        sev,
        f"{kind}s used {ratio:.0%} of their {cont_mb:,.0f} MB containers on average",
        evidence={
            "tasks": plural(len(tasks), "task"),
            "mean physical memory": format_bytes(mean(phys)),
            "max physical memory": format_bytes(max(phys)),
            "min physical memory": format_bytes(min(phys)),
            "container": f"{cont_mb:,.0f} MB ({where})",
            "used / container": f"{ratio:.1%}",
            "smallest safe container": f"{need_mb:,.0f} MB (max × {HEADROOM:g}, 512 MB steps"
            + (", heap above the sort buffer)" if kind == "map" and job.config else ")"),
        },
        thresholds=f"used/container {lims(MEM_RATIO_LIMITS)} (descending); container "
        f"{lims(CONTAINER_LIMITS, '×2048 MB')}",
        objective="resources",
        fix_settings=fix,
    )
