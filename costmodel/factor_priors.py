"""The documented prior range of each cost factor: what a defaulted factor is sampled across
(:mod:`mrtune.optimizer.priors`), and how far a fitted one may go and still be a measurement
(:mod:`mrtune.calibration.plausibility`). Kept as one table, which a reviewer checks against
Hadoop practice; data only, so every layer above the model may read it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Prior:
    """The range a defaulted factor is sampled across. ``relative``: ``low``/``high`` multiply
    the factor's value, sampled log-uniformly (the factors are rates whose error is a ratio);
    otherwise they are the absolute bounds, sampled uniformly (factors whose default is 0)."""

    low: float
    high: float
    relative: bool
    why: str


_USER = Prior(
    0.1,
    10.0,
    True,
    "the job's own code: per-record costs of user functions span orders of magnitude "
    "(an identity map vs. parsing JSON); the reference's TeraSort profile has map_cpu 12,568 ns "
    "against the 500 ns default",
)
_FRAMEWORK = Prior(
    0.25,
    4.0,
    True,
    "framework per-record work (partitioner, serialisation, sort comparisons, merge): JIT-"
    "compiled Hadoop code whose cost varies with CPU generation and record layout; Starfish's "
    "instrumented TeraSort profile sits at 5-25x the defaults, uninstrumented runs here near 1x",
)
_IO = Prior(
    0.25,
    4.0,
    True,
    "per-byte I/O: an SSD vs. a spindle shared by several containers, 10 GbE vs. 1 GbE "
    "(one order of magnitude across clusters, centred on the defaults)",
)
_EVENT = Prior(
    0.25,
    4.0,
    True,
    "fixed cost per spill file, merge segment or shuffle fetch: a disk seek, 0.1 ms on SSD to "
    "~8 ms on a loaded HDD, amortised by read-ahead",
)
#: Prior range per CostFactors field (fields absent here are never sampled: setup_ms and
#: cleanup_ms are folded into task_overhead_ms, reduce_includes_final_merge is a flag).
PRIORS: dict[str, Prior] = {
    "map_cpu": _USER,
    "reduce_cpu": _USER,
    "combine_cpu": _USER,
    "partition_cpu": _FRAMEWORK,
    "serde_cpu": _FRAMEWORK,
    "sort_cpu": _FRAMEWORK,
    "merge_cpu": _FRAMEWORK,
    "input_uncompress": _FRAMEWORK,
    "hdfs_read": _IO,
    "hdfs_write": _IO,
    "local_read": _IO,
    "local_write": _IO,
    # the spills' own write rate (split from local_write): a per-byte I/O rate like it; left
    # out, a fit at 310x its default (the single spill's combine and sort time moved onto it)
    # passed as measured and sold a bzip2 map-output codec as a sure 649 ms a map
    "spill_write": _IO,
    "network": _IO,
    "spill_file_ns": _EVENT,
    "segment_seek_ns": _EVENT,
    "fetch_ns": _EVENT,
    "task_overhead_ms": Prior(
        0.5, 2.0, True, "YARN container launch + JVM start + commit: ~0.5-2 s on most clusters"
    ),
    "sort_cache_bytes": Prior(
        0.5, 2.0, True, "the sort's cache knee: last-level caches of 8-64 MiB around the 16 MiB"
    ),
    "spill_contention": Prior(
        0.0,
        1.0,
        False,
        "share of the spill/map overlap lost to the shared CPU: 0 (a free core) to 1 (serial)",
    ),
    "sort_cache_slowdown": Prior(
        0.0, 0.3, False, "extra comparison cost per doubling above the cache knee: 0-30%"
    ),
}
