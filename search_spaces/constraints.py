"""Constraints between settings, as vectorised checks (DESIGN decision 9).

Each :class:`Constraint` evaluates a boolean mask over arrays of knob values (feasible = True)
and can *repair* values into the feasible region, so that every strategy, including the ones that
sample a unit cube, only ever proposes configurations Hadoop will accept.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mrtune.costmodel.profile import JobProfile
from mrtune.search_spaces.codecs import (  # noqa: F401 - re-exported (split by what they hold)
    EARLIEST_RELEASE,
    FACT_CODECS,
    FACT_NATIVE_CODECS,
    CodecVerdict,
    Release,
    codec_facts,
    codec_names,
    codec_verdicts,
    job_codec_verdicts,
    parse_release,
)
from mrtune.search_spaces.knobs import Knob

Values = dict[str, np.ndarray]

#: Share of the map heap the sort buffer may take; the rest is left for the map function (user
#: code, its objects and the record being serialized). Hadoop itself only requires io.sort.mb
#: to fit in the heap (``MapTask.MapOutputBuffer`` allocates ``kvbuffer`` as one byte array
#: and fails otherwise), but its own guidance sizes the buffer at half the heap: the
#: ``mapred-site.xml`` table of "Configuring the Hadoop Daemons" (hadoop-common
#: ``ClusterSetup.md``, Hadoop 2.x and 3.x) gives ``mapreduce.task.io.sort.mb`` 512 for
#: ``mapreduce.map.java.opts`` -Xmx1024M, and the MapReduce tutorial warns that "a larger
#: buffer also decreases the memory available to the mapper". Issue 14: the batch's 600 MB
#: in an 819 MB heap (the old share, 0.8) left ~200 MB for user code.
SORT_BUFFER_HEAP_SHARE = 0.5
#: Headroom on the map function's observed heap (:class:`~mrtune.costmodel.profile.MapHeapUse`,
#: the maps' committed heap beyond their sort buffer) that the sort buffer must leave free:
#: ×1.25, the headroom mrtune's memory finding already keeps above a task's largest observed
#: physical memory (``mrtune.diagnose.resources.HEADROOM``), for maps whose split or keys need
#: more than the profiled run's largest did. The ``mapred-site.xml`` table of ClusterSetup.md
#: gives the share above; Hadoop states no figure for the map function's own heap, which only
#: the job's run can show (the committed heap is already an upper bound on its live data).
HEAP_NEED_HEADROOM = 1.25
#: Smallest gap kept between the single-shuffle limit and the merge percent when repairing.
SHUFFLE_PERCENT_GAP = 0.01


@dataclass(frozen=True)
class Constraint:
    """A named rule with a vectorised check and a vectorised repair."""

    name: str
    description: str
    check: Callable[[Values, dict[str, float]], np.ndarray]
    repair: Callable[[Values, dict[str, float]], Values]


def _map_heap_mb(v: Values, ctx: dict[str, float]) -> np.ndarray:
    """The map heap of each configuration, as the written configuration will have it."""
    if "mapreduce.map.memory.mb" in v:
        return followed_heap_mb(
            v["mapreduce.map.memory.mb"],
            ratio=ctx["heap_ratio"],
            explicit=bool(ctx.get("explicit_map_xmx")),
            current_mb=ctx.get("map_container_mb", -1.0),
            current_heap_mb=ctx["map_heap_mb"],
            fixed=bool(ctx.get("heap_fixed")),
        )
    return np.full_like(next(iter(v.values())), ctx["map_heap_mb"], dtype=np.float64)


def followed_heap_mb(
    container_mb: np.ndarray,
    *,
    ratio: float,
    explicit: bool,
    current_mb: float,
    current_heap_mb: float,
    fixed: bool = False,
) -> np.ndarray:
    """The heap (MB) that goes with a searched container size.

    Derived heaps are ``ceil(memory.mb × ratio)`` (Hadoop 3 ``JobConf.getTaskJavaOpts``). An
    explicit ``-Xmx`` is rewritten to ``floor(memory.mb × ratio)`` when the container changes
    (:func:`mrtune.search_spaces.properties._heap_follows`) and kept as it is when it does not, so
    the constraints and the model see the heap that is written. ``fixed``: Hadoop 1 and 2
    without ``-Xmx`` run every container at the default ``-Xmx200m``: the heap stays.
    """
    mb = np.asarray(container_mb, dtype=np.float64)
    if fixed:
        return np.full_like(mb, current_heap_mb)
    if not explicit:
        return np.ceil(mb * ratio)
    return np.where(mb == current_mb, current_heap_mb, np.maximum(np.floor(mb * ratio), 1.0))


def sort_buffer_cap(heap_mb: np.ndarray, ctx: dict[str, float]) -> np.ndarray:
    """The largest ``io.sort.mb`` (MB) offered with a map heap of ``heap_mb``:
    :data:`SORT_BUFFER_HEAP_SHARE` of it and, when the profile observed the map function's heap
    (``ctx["map_heap_need_mb"]``, :class:`~mrtune.costmodel.profile.MapHeapUse`), no more than
    leaves :data:`HEAP_NEED_HEADROOM` × that need free: ``min(share·heap, heap − 1.25·need)``,
    so the evidence only ever tightens the documented share. Never below the value the job
    already runs with while its heap stays the same (``ctx["current_sort_mb"]``): that one is
    proven on the job's own data, as a codec the job uses is (it stays scorable and kept)."""
    cap = np.floor(SORT_BUFFER_HEAP_SHARE * np.asarray(heap_mb, dtype=np.float64))
    need = ctx.get("map_heap_need_mb")
    if need is not None:
        cap = np.minimum(cap, np.floor(heap_mb - HEAP_NEED_HEADROOM * need))
    cap = np.maximum(cap, 1.0)
    now = ctx.get("current_sort_mb")
    if now is None:
        return cap
    same_heap = np.asarray(heap_mb) == ctx["map_heap_mb"]
    return np.where(same_heap & (now < heap_mb), np.maximum(cap, now), cap)


def _sort_check(v: Values, ctx: dict[str, float]) -> np.ndarray:
    if "mapreduce.task.io.sort.mb" not in v:
        return np.ones_like(next(iter(v.values())), dtype=bool)
    return v["mapreduce.task.io.sort.mb"] <= sort_buffer_cap(_map_heap_mb(v, ctx), ctx)


def _sort_repair(v: Values, ctx: dict[str, float]) -> Values:
    if "mapreduce.task.io.sort.mb" in v:
        cap = sort_buffer_cap(_map_heap_mb(v, ctx), ctx)
        v["mapreduce.task.io.sort.mb"] = np.minimum(v["mapreduce.task.io.sort.mb"], cap)
    return v


def _limit_of(v: Values, ctx: dict[str, float], key: str, default_key: str) -> np.ndarray:
    if key in v:
        return v[key]
    return np.full_like(next(iter(v.values())), ctx[default_key], dtype=np.float64)


def _shuffle_check(v: Values, ctx: dict[str, float]) -> np.ndarray:
    lim = _limit_of(v, ctx, "mapreduce.reduce.shuffle.memory.limit.percent", "shuffle_limit")
    mer = _limit_of(v, ctx, "mapreduce.reduce.shuffle.merge.percent", "shuffle_merge")
    return (lim < mer) | (ctx.get("hadoop1", 0.0) > 0)


def _shuffle_repair(v: Values, ctx: dict[str, float]) -> Values:
    if ctx.get("hadoop1", 0.0) > 0:
        return v
    key_l = "mapreduce.reduce.shuffle.memory.limit.percent"
    key_m = "mapreduce.reduce.shuffle.merge.percent"
    mer = _limit_of(v, ctx, key_m, "shuffle_merge")
    if key_l in v:
        v[key_l] = np.minimum(v[key_l], mer - SHUFFLE_PERCENT_GAP)
    elif key_m in v:
        v[key_m] = np.maximum(v[key_m], ctx["shuffle_limit"] + SHUFFLE_PERCENT_GAP)
    return v


def _container_check(v: Values, ctx: dict[str, float]) -> np.ndarray:
    ok = np.ones_like(next(iter(v.values())), dtype=bool)
    for key in ("mapreduce.map.memory.mb", "mapreduce.reduce.memory.mb"):
        if key in v:
            ok &= v[key] <= ctx["node_memory_mb"]
    return ok


def _container_repair(v: Values, ctx: dict[str, float]) -> Values:
    for key in ("mapreduce.map.memory.mb", "mapreduce.reduce.memory.mb"):
        if key in v:
            v[key] = np.minimum(v[key], ctx["node_memory_mb"])
    return v


#: In repair order: the container is capped first, because the heap and so the sort buffer's
#: cap follow it (a sort buffer capped against a container that is then shrunk would no
#: longer fit its heap).
CONSTRAINTS: tuple[Constraint, ...] = (
    Constraint(
        "container-fits-node",
        "container memory <= yarn.nodemanager.resource.memory-mb",
        _container_check,
        _container_repair,
    ),
    Constraint(
        "sort-buffer-fits-heap",
        f"mapreduce.task.io.sort.mb <= 2047 and <= {SORT_BUFFER_HEAP_SHARE:.0%} of the map heap, "
        f"leaving {HEAP_NEED_HEADROOM:g}x the maps' observed heap beyond the buffer when the "
        "history has it (or the value the job runs with, in its own heap)",
        _sort_check,
        _sort_repair,
    ),
    Constraint(
        "single-shuffle-below-merge",
        "mapreduce.reduce.shuffle.memory.limit.percent < mapreduce.reduce.shuffle.merge.percent "
        "(MergeManagerImpl refuses maxSingleShuffleLimit >= mergeThreshold)",
        _shuffle_check,
        _shuffle_repair,
    ),
)


# ---------------------------------------------------------------- task granularity
#: Least shuffle data a reducer should get: Hive's ``hive.exec.reducers.bytes.per.reducer``
#: default (256,000,000 bytes since Hive 0.14, HIVE-7158), the figure Hive divides a stage's
#: input by to choose its reducer count. Fewer bytes per reducer buy seconds at the price of
#: container start-up per task: the MapReduce tutorial's reducer advice (0.95 or 1.75 × nodes ×
#: containers per node) is for jobs with data to fill them, and Dr. Elephant's Reducer Time
#: heuristic flags many short reducers (num_tasks_severity 50/101/500/1000 with
#: short_runtime_severity_in_min 10/4/2/1).
MIN_REDUCE_BYTES = 256e6
#: Least split as a share of the DFS block: the tutorial sizes maps by DFS blocks ("the number
#: of maps is usually driven by the number of DFS blocks") and wants each map to run "at least
#: a minute" because task set-up takes a while; Dr. Elephant's Mapper Time heuristic flags many
#: short maps the same way as for reducers.
MIN_SPLIT_BLOCK_SHARE = 0.5


def max_reducers_for(shuffle_bytes: float) -> int:
    """Most reducers the job's map output can keep busy (>= 1), at :data:`MIN_REDUCE_BYTES`."""
    if not np.isfinite(shuffle_bytes) or shuffle_bytes <= 0:
        return 1
    return max(1, int(np.ceil(shuffle_bytes / MIN_REDUCE_BYTES)))


def distinct_key_cap(profile: JobProfile) -> int | None:
    """Most non-empty partitions the job's keys can fill: the distinct keys the profile
    measured a bound for (``key_vocabulary`` fitted to its counters, times
    ``key_groups_scale``; ``max_distinct_keys``), else ``None``.

    A hash partition holds whole keys, so reducers beyond the keys stay empty: the examples'
    WordMean has two keys ("count", "length") and was offered 16 reducers; its driver reads
    part-r-00000 only and printed "The mean is: NaN" with 3."""
    st = profile.stats
    bounds = []
    measured = str(profile.provenance.get("stats.key_vocabulary", "")).startswith("measured")
    if measured and st.key_vocabulary is not None:
        bounds.append(st.key_vocabulary * (st.key_groups_scale or 1.0))
    if st.max_distinct_keys is not None:
        bounds.append(float(st.max_distinct_keys))
    if not bounds:
        return None
    seen = float(profile.observed_counters.get("REDUCE_INPUT_GROUPS", 0.0) or 0.0)
    # a vocabulary is a whole number of keys (its fit is not: 2.1 for WordMean's two)
    return max(1, int(round(min(bounds))), int(seen))


def min_split_for(block_bytes: float) -> float:
    """Smallest split the search offers: :data:`MIN_SPLIT_BLOCK_SHARE` of the DFS block."""
    return MIN_SPLIT_BLOCK_SHARE * float(block_bytes)


def map_output_bytes(profile: JobProfile) -> float:
    """Uncompressed map output of the whole job, before any combiner: the reducers' work."""
    st = profile.stats
    raw = profile.input_bytes / (st.input_compress_ratio if profile.input_compressed else 1.0)
    return float(raw * st.map_size_sel)


def narrowed(k: Knob, low: float, high: float) -> Knob:
    """``k`` searched in [low, high] only (its grid cut to match, the ends kept as grid points).

    Knobs are frozen, so the narrowed knob of a given (knob, range) is made once: a catalog's
    jobs share a handful of ranges, and ``dataclasses.replace`` per job was a visible share of
    a batch job's set-up."""
    if (low, high) == (k.low, k.high):
        return k
    key = (id(k), low, high)
    hit = _NARROWED.get(key)
    if hit is not None and hit[0] is k:
        return hit[1]
    grid = tuple(g for g in k.grid if low <= g <= high) or (low, high)
    out = dataclasses.replace(k, low=low, high=high, grid=grid)
    if len(_NARROWED) < _MEMO_SIZE:
        _NARROWED[key] = (k, out)
    return out


#: Memo of :func:`narrowed` and :func:`codec_verdicts` (bounded; keys hold the knob itself,
#: checked by identity, so a recycled ``id`` cannot return another knob's narrowing).
_MEMO_SIZE = 4096
_NARROWED: dict[tuple[int, float, float], tuple[Knob, Knob]] = {}


def clip_valid(k: Knob, x: np.ndarray) -> np.ndarray:
    """Clip into the Hadoop-valid range (an open end moves inside by the smallest step)."""
    hit = _CLIP.get(id(k))
    if hit is None or hit[0] is not k:
        lo = k.valid_low if not k.valid_low_open else np.nextafter(k.valid_low, np.inf)
        hi = k.valid_high if not k.valid_high_open else np.nextafter(k.valid_high, -np.inf)
        if k.kind == "int":
            lo, hi = math.ceil(lo), math.floor(hi) if math.isfinite(hi) else hi
        hit = (k, lo, hi)
        if len(_CLIP) < _MEMO_SIZE:
            _CLIP[id(k)] = hit
    return np.clip(x, hit[1], hit[2])


#: Each knob's clip bounds (frozen knobs, keyed by identity).
_CLIP: dict[int, tuple[Knob, object, object]] = {}


def within_valid(k: Knob, x: np.ndarray) -> np.ndarray:
    """Mask of values inside the Hadoop-valid range (open ends excluded)."""
    lo_ok = x > k.valid_low if k.valid_low_open else x >= k.valid_low
    hi_ok = x < k.valid_high if k.valid_high_open else x <= k.valid_high
    return lo_ok & hi_ok
