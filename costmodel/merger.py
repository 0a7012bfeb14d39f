"""Hadoop's ``Merger`` (reference §3), simulated exactly: the reference the closed forms are
proved against.

``simulate_merge`` follows ``Merger.MergeQueue.merge(factor, inMem)`` of Hadoop 1.2 and 2/3:
segments ordered smallest first, a first pass sized by ``getPassFactor`` so that every later pass
merges exactly ``F`` segments, in-memory segments consumed by the first pass, merged runs
re-inserted at their sorted position, and a final pass that streams (no write). The reference's
§2.4 closed forms (``first_pass_size`` …) are the scalar fast path for N ≤ F² equal spills; a
property test proves them equal to the simulation.

The per-key simulations of the two plans the job model needs, :func:`_spill_plan_simulated`
(the map-side merge of ``N − 1`` full spills and one smaller last spill) and
:func:`_shuffle_disk_merges` / :func:`reduce_disk_plan` (the reduce side's on-disk merges during
the shuffle and its final merge, ``MergeManagerImpl``), stay here as the reference that
property tests compare the vectorised closed forms of :mod:`mrtune.costmodel.merge_plans`
against; the model's hot path runs only those.
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass
from functools import lru_cache

# the closed forms, importable from here as before the split (the model imports merge_plans)
from mrtune.costmodel.merge_plans import (
    reduce_disk_plan_arrays,
    reduce_merge_rows,
    shuffle_disk_merge_arrays,
    shuffle_final_files,
    spill_merge_plan,
)

__all__ = [
    "MergeResult",
    "ReduceDiskPlan",
    "final_merge_spills",
    "first_pass_size",
    "interm_merge_spills",
    "num_merge_passes",
    "pass_factor",
    "reduce_disk_plan",
    "reduce_disk_plan_arrays",
    "reduce_merge_rows",
    "shuffle_disk_merge_arrays",
    "shuffle_final_files",
    "simulate_merge",
    "spill_merge_plan",
]


def pass_factor(factor: int, pass_no: int, num_segments: int) -> int:
    """``Merger.MergeQueue.getPassFactor``: the first pass makes later passes full."""
    if pass_no > 1 or num_segments <= factor or factor == 1:
        return factor
    mod = (num_segments - 1) % (factor - 1)
    return factor if mod == 0 else mod + 1


@dataclass(frozen=True)
class MergeResult:
    """What one ``Merger.merge`` call does.

    ``intermediate_*`` count the passes that write an ``intermediate.N`` file; the final pass
    streams ``final_read_*`` to its consumer (the map's ``file.out`` writer or reduce()).
    ``disk_read_records`` counts records read from file-backed segments over all passes (what
    the reduce side adds to SPILLED_RECORDS through Merger's ``readsCounter``).
    """

    passes: int
    intermediate_read_bytes: float
    intermediate_read_records: float
    intermediate_written_bytes: float
    intermediate_written_records: float
    final_segments: int
    final_read_bytes: float
    final_read_records: float
    disk_read_records: float
    disk_read_bytes: float


def simulate_merge(
    segments: list[tuple[float, float]],
    factor: int,
    in_memory: list[tuple[float, float]] | None = None,
) -> MergeResult:
    """Simulate ``Merger.merge`` on disk ``segments`` of (bytes, records) plus ``in_memory`` ones.

    In-memory segments sit at the front of the list and are always consumed by the first pass
    (reference §3.1). Empty segments are dropped, as Hadoop does.
    """
    if factor < 2:
        raise ValueError(f"merge factor must be >= 2, got {factor}")
    mem = [s for s in (in_memory or []) if s[1] > 0 or s[0] > 0]
    # Min-heap of (bytes, order, records): smallest first, ties by arrival (Hadoop inserts a
    # merged run at its sorted position; the order among equal sizes changes no total).
    heap: list[tuple[float, int, float]] = []
    order = 0
    for size, recs in segments:
        if size > 0 or recs > 0:
            heap.append((size, order, recs))
            order += 1
    heapq.heapify(heap)
    passes = 0
    ir_b = ir_r = iw_b = iw_r = 0.0
    dr_r = dr_b = 0.0
    pass_no = 1
    while True:
        n = len(heap)
        f = pass_factor(factor, pass_no, n)
        take = [heapq.heappop(heap) for _ in range(min(f, n))]
        taken_mem = mem if pass_no == 1 else []
        total_segments = n + len(taken_mem)
        size = sum(t[0] for t in take) + sum(t[0] for t in taken_mem)
        recs = sum(t[2] for t in take) + sum(t[1] for t in taken_mem)
        dr_r += sum(t[2] for t in take)
        dr_b += sum(t[0] for t in take)
        if n <= f:
            passes += 1 if total_segments > 1 else 0
            return MergeResult(
                passes=passes,
                intermediate_read_bytes=ir_b,
                intermediate_read_records=ir_r,
                intermediate_written_bytes=iw_b,
                intermediate_written_records=iw_r,
                final_segments=total_segments,
                final_read_bytes=size,
                final_read_records=recs,
                disk_read_records=dr_r,
                disk_read_bytes=dr_b,
            )
        ir_b += sum(t[0] for t in take)
        ir_r += sum(t[2] for t in take)
        iw_b += size
        iw_r += recs
        passes += 1
        pass_no += 1
        heapq.heappush(heap, (size, order, recs))
        order += 1


# ---------------------------------------------------------------------- closed forms (§2.4)
def first_pass_size(n: int, f: int) -> int:
    """``calcNumSpillsFirstPass``."""
    if n <= f:
        return n
    if (n - 1) % (f - 1) == 0:
        return f
    return (n - 1) % (f - 1) + 1


def interm_merge_spills(n: int, f: int) -> int:
    """``calcNumSpillsIntermMerge`` (valid for N ≤ F²): spills read by intermediate passes."""
    if n <= f:
        return 0
    p = first_pass_size(n, f)
    return p + ((n - p) // f) * f


def final_merge_spills(n: int, f: int) -> int:
    """``calcNumSpillsFinalMerge`` (valid for N ≤ F²): segments in the final pass."""
    if n <= f:
        return n
    p = first_pass_size(n, f)
    s = interm_merge_spills(n, f)
    return 1 + (n - p) // f + (n - s)


def num_merge_passes(n: int, f: int) -> int:
    """Merge passes for N equal spills (valid for N ≤ F²)."""
    if n <= 1:
        return 0
    if n <= f:
        return 1
    p = first_pass_size(n, f)
    return 2 + (n - p) // f


# ---------------------------------------------------------------------- map merge
@lru_cache(maxsize=65536)
def _spill_plan_simulated(n: int, f: int) -> tuple[int, int, int]:
    """(passes, a, b) by simulating ``Merger`` with the last spill slightly smaller.

    Segments are (full spills, last spills) contents ordered by total size and then by holding
    the last spill (it is smaller): the order Hadoop's size comparisons give for any last-spill
    size below a full one. Runs of identical passes (the F smallest segments all of one size)
    are applied in bulk, so the cost grows with the number of distinct sizes, not with N.
    """
    if n <= 1:
        return (0, 0, 0)
    # distinct segment kinds: key (total, -last) -> [full, last, count]
    kinds: dict[tuple[int, int], list[int]] = {(1, 0): [1, 0, n - 1], (1, -1): [0, 1, 1]}
    if n - 1 == 0:
        del kinds[(1, 0)]
    heap = list(kinds)
    heapq.heapify(heap)
    total = n
    a = b = passes = 0

    def add(full: int, last: int, count: int) -> None:
        key = (full + last, -last)
        if key in kinds:
            kinds[key][2] += count
        else:
            kinds[key] = [full, last, count]
            heapq.heappush(heap, key)

    def take_one_pass(fp: int) -> None:
        nonlocal a, b, total, passes
        need, fa, fb = fp, 0, 0
        while need:
            key = heap[0]
            full, last, count = kinds[key]
            k = min(count, need)
            fa += full * k
            fb += last * k
            need -= k
            if k == count:
                heapq.heappop(heap)
                del kinds[key]
            else:
                kinds[key][2] -= k
        a += fa
        b += fb
        total -= fp - 1
        passes += 1
        add(fa, fb, 1)

    take_one_pass(pass_factor(f, 1, n))
    while total > f:
        key = heap[0]
        full, last, count = kinds[key]
        bulk = min(count // f, -(-(total - f) // (f - 1)))
        if bulk >= 1:
            kinds[key][2] -= bulk * f
            if kinds[key][2] == 0:
                heapq.heappop(heap)
                del kinds[key]
            a += full * f * bulk
            b += last * f * bulk
            total -= (f - 1) * bulk
            passes += bulk
            add(full * f, last * f, bulk)
        else:
            take_one_pass(f)
    return (passes + 1, a, b)


# ---------------------------------------------------------------------- reduce-side plan
@dataclass(frozen=True)
class ReduceDiskPlan:
    """Plan of the reduce side's disk merges for equal disk files (reference §7).

    Sizes are in two units: ``d`` = one disk file as the shuffle left it (a fetched map output
    or an in-memory merge's output) and ``m`` = one in-memory segment evicted at the final merge.
    ``shuffle_*``: on-disk merges during the shuffle (each takes the F smallest files once
    2F − 1 are on disk: ``MergeManagerImpl.OnDiskMerger`` / Hadoop 1 ``LocalFSMerger``, assumed
    to finish before the next file arrives). ``final_*``: ``Merger.merge`` over the remaining
    files plus the evicted segments as its in-memory first-pass segments.
    """

    shuffle_merges: int
    shuffle_units: int
    final_files: int
    final_passes: int
    interm_read_d: float
    interm_read_m: float
    interm_written_d: float
    interm_written_m: float
    final_disk_d: float
    final_disk_m: float


@lru_cache(maxsize=65536)
def _shuffle_disk_merges(files: int, factor: int) -> tuple[tuple[int, ...], int, int]:
    """On-disk merges during the shuffle: (file sizes left, merges, units merged)."""
    sizes: list[int] = []
    merges = units = 0
    threshold = 2 * factor - 1
    for _ in range(files):
        bisect.insort(sizes, 1)
        if len(sizes) >= threshold:
            take, sizes = sizes[:factor], sizes[factor:]
            merged = sum(take)
            units += merged
            merges += 1
            bisect.insort(sizes, merged)
    return tuple(sizes), merges, units


@lru_cache(maxsize=65536)
def reduce_disk_plan(
    files: int, factor: int, in_mem: int, mem_ratio: float = 0.5
) -> ReduceDiskPlan:
    """Simulate on-disk merging for ``files`` equal files and ``in_mem`` evicted segments.

    ``mem_ratio`` is the size of one evicted segment relative to one disk file; it only decides
    the order of segments of different kinds (rounded by the caller so the cache stays small).
    """
    sizes, merges, units = _shuffle_disk_merges(files, factor)
    sizes = list(sizes)
    # Final Merger.merge: disk segments as (d, m) pairs, ordered by d + mem_ratio·m.
    segs: list[tuple[float, float, float, int]] = [
        (float(x), float(x), 0.0, i) for i, x in enumerate(sizes)
    ]
    next_id = len(segs)
    passes = 0
    ird = irm = iwd = iwm = 0.0
    pass_no = 1
    while True:
        n = len(segs)
        f = pass_factor(factor, pass_no, n)
        mem = in_mem if pass_no == 1 else 0
        take, rest = segs[:f], segs[f:]
        if n + mem <= f + mem:
            passes += 1 if n + mem > 1 else 0
            return ReduceDiskPlan(
                shuffle_merges=merges,
                shuffle_units=units,
                final_files=len(sizes),
                final_passes=passes,
                interm_read_d=ird,
                interm_read_m=irm,
                interm_written_d=iwd,
                interm_written_m=iwm,
                final_disk_d=sum(t[1] for t in take),
                final_disk_m=sum(t[2] for t in take),
            )
        td = sum(t[1] for t in take)
        tm = sum(t[2] for t in take)
        ird += td
        irm += tm
        iwd += td
        iwm += tm + mem
        merged = (td + mem_ratio * (tm + mem), td, tm + mem, next_id)
        next_id += 1
        pos = bisect.bisect_left([(t[0], t[3]) for t in rest], (merged[0], -1))
        rest.insert(pos, merged)
        segs = rest
        passes += 1
        pass_no += 1
