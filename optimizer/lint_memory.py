"""The lint's memory rules (:mod:`mrtune.optimizer.lint`'s docstring gives each threshold and
its source): ``sort-buffer-heap`` (with the map function's observed heap when the profile has
it, and the sort buffer's cap that the search applied), ``heap-container`` and
``container-node``. Apart from the job rules because ``whatif`` and the batch's cluster-wide
file apply them without a prediction."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mrtune.costmodel import ClusterSpec, HadoopConfig
from mrtune.costmodel.config import MB, parse_xmx
from mrtune.costmodel.profile import MapHeapUse
from mrtune.optimizer.lint_report import Finding
from mrtune.optimizer.severity import Severity, ascending
from mrtune.search_spaces.constraints import (
    HEAP_NEED_HEADROOM,
    SORT_BUFFER_HEAP_SHARE,
    sort_buffer_cap,
)

#: Above the documented share (Hadoop's guidance: half the heap), from three quarters, and
#: above four fifths (a fifth of the heap or less left to the map function).
SORT_SHARE_LIMITS = (SORT_BUFFER_HEAP_SHARE + 1e-9, 0.75, 0.8 + 1e-9)
HEAP_SHARE_LIMITS = (0.85, 0.9, 0.95, 1.0)
SORT_MB_MAX = 2047


def sort_buffer_findings(cfg: HadoopConfig, use: MapHeapUse | None) -> list[Finding]:
    """The ``sort-buffer-heap`` rule (module docstring) on ``cfg``, with the map function's
    observed heap ``use`` when the profile has it (``whatif`` applies it to a ``--set`` too)."""
    heap_mb = cfg.map_heap_bytes / MB
    share = cfg.io_sort_mb / heap_mb
    left = heap_mb - cfg.io_sort_mb
    threshold = (
        f"{share:.0%} of the {heap_mb:,.0f} MB map heap; limits above "
        f"{SORT_BUFFER_HEAP_SHARE:.0%}, 75%, above 80%; error at the heap or above "
        f"{SORT_MB_MAX}"
    )
    if cfg.io_sort_mb > SORT_MB_MAX or cfg.io_sort_mb >= heap_mb:
        sev, msg = Severity.ERROR, "the map task fails at start-up allocating its sort buffer"
    else:
        sev = ascending(share, SORT_SHARE_LIMITS)
        msg = f"leaves {left:,.0f} MB of the heap for the map function"
    if use is not None and sev != Severity.ERROR:
        need = use.need_mb
        by_need = (
            Severity.SEVERE
            if left < need
            else Severity.LOW
            if left < HEAP_NEED_HEADROOM * need
            else Severity.NONE
        )
        proven = use.saturated and cfg.io_sort_mb <= use.sort_mb and heap_mb >= use.heap_mb
        if proven:
            # the maps filled their whole heap, so the "need" is what was left: censored, and
            # the run itself worked with this buffer (it was severe on every default run of
            # the examples on the mini-cluster, -Xmx179m with io.sort.mb 100)
            by_need = Severity.NONE
        sev = max(sev, by_need)
        msg += f", which took {need:,.0f} MB beside its buffer on the profiled run" + (
            " (its whole heap: a bound; the run worked with this buffer)" if proven else ""
        )
        threshold += (
            f"; low below {HEAP_NEED_HEADROOM:g}x that {need:,.0f} MB left, severe below it"
        )
    return [
        Finding(
            "sort-buffer-heap",
            "mapreduce.task.io.sort.mb",
            str(cfg.io_sort_mb),
            sev,
            threshold,
            msg,
            "hadoop MapTask.MapOutputBuffer.init",
        )
    ]


def sort_buffer_limit(cfg: HadoopConfig, use: MapHeapUse) -> dict[str, Any]:
    """The sort buffer's cap at ``cfg``'s map heap and what sets it (the documented share or
    the map function's observed heap: :func:`~mrtune.search_spaces.constraints.
    sort_buffer_cap`), with the observed figure and its source, so the output names what
    the search left free."""
    heap_mb = cfg.map_heap_bytes / MB
    share_mb = max(math.floor(SORT_BUFFER_HEAP_SHARE * heap_mb), 1)
    cap = float(sort_buffer_cap(np.array([heap_mb]), {"map_heap_need_mb": use.need_mb})[0])
    by_need = cap < share_mb
    why = (
        f"the heap less {HEAP_NEED_HEADROOM:g}x the map function's observed heap"
        if by_need
        else f"{SORT_BUFFER_HEAP_SHARE:.0%} of it, which leaves {HEAP_NEED_HEADROOM:g}x the "
        "map function's observed heap"
    )
    kept = f"; the job's own {cfg.io_sort_mb} kept" if cfg.io_sort_mb > cap else ""
    return {
        "cap_mb": cap,
        "heap_mb": heap_mb,
        "share_cap_mb": float(share_mb),
        "set_by": "observed heap" if by_need else "share",
        "map_heap_use": use.model_dump(),
        "line": f"io.sort.mb <= {cap:,.0f} MB in the {heap_mb:,.0f} MB map heap ({why}"
        f"{kept}); map function: {use.brief()}",
    }


def heap_container(cfg: HadoopConfig, cluster: ClusterSpec) -> list[Finding]:
    if cfg.hadoop_version == 1 or cluster.local_mode:
        return []  # no containers: TaskTracker slots / one local JVM
    out = []
    for side in ("map", "reduce"):
        opts = getattr(cfg, f"{side}_java_opts") or cfg.child_java_opts
        if parse_xmx(opts) is None:
            continue  # Hadoop derives the heap from the container (ratio): fits by design
        heap = getattr(cfg, f"{side}_heap_bytes") / MB
        box = float(getattr(cfg, f"{side}_container_mb"))
        share = heap / box
        sev = Severity.ERROR if share > 1.0 else ascending(share, HEAP_SHARE_LIMITS)
        out.append(
            Finding(
                "heap-container",
                f"mapreduce.{side}.java.opts",
                f"-Xmx{heap:.0f}m",
                sev,
                f"heap {share:.0%} of the {box:.0f} MB container; limits 85%, 90%, 95%, 100%; "
                "error above it",
                "YARN kills the container" if share > 1.0 else "little room for non-heap memory",
                "hadoop ContainersMonitorImpl; MAPREDUCE-5785 (heap ratio 0.8)",
            )
        )
    return out


def container_node(cfg: HadoopConfig, cluster: ClusterSpec) -> list[Finding]:
    if cfg.hadoop_version == 1 or cluster.local_mode:
        return []
    out = []
    for side in ("map", "reduce"):
        mb, vc = cfg.map_container_mb, cfg.map_vcores
        if side == "reduce":
            mb, vc = cfg.reduce_container_mb, cfg.reduce_vcores
        share = mb / cluster.node_memory_mb
        limit = cluster.container_limit_mb()
        too_big = mb > limit or vc > cluster.node_vcores
        sev = Severity.ERROR if too_big else (Severity.LOW if share > 0.5 else Severity.NONE)
        out.append(
            Finding(
                "container-node",
                f"mapreduce.{side}.memory.mb",
                str(mb),
                sev,
                f"{mb} MB and {vc} vcores on nodes of {cluster.node_memory_mb} MB and "
                f"{cluster.node_vcores} vcores, containers up to {limit} MB; low above half "
                "a node, error above the largest container",
                cluster.container_limit_reason()
                if mb > limit
                else "the ResourceManager refuses the request"
                if too_big
                else "at most one such container per node",
                "hadoop SchedulerUtils.normalizeAndValidateRequest",
            )
        )
    return out
