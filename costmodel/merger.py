"""Hadoop's ``Merger`` (reference §3): an exact simulation and the §2.4 closed forms.

``simulate_merge`` follows ``Merger.MergeQueue.merge(factor, inMem)`` of Hadoop 1.2 and 2/3:
segments ordered smallest first, a first pass sized by ``getPassFactor`` so that every later pass
merges exactly ``F`` segments, in-memory segments consumed by the first pass, merged runs
re-inserted at their sorted position, and a final pass that streams (no write). The closed forms
(``first_pass_size`` …) are the fast path for N ≤ F² equal spills; a property test proves them
equal to the simulation.

For the vectorised model the map-side merge is summarised by :func:`spill_merge_plan`: with
``N − 1`` full spills and one smaller last spill, the bytes and records read by intermediate
passes are ``a·full + b·last`` where the integers ``(passes, a, b)`` depend only on ``(N, F)``
(the last spill is the smallest segment, so the order of every comparison is fixed). Merging
smallest-first with a first pass that makes every later pass full is F-ary Huffman merging
(the first pass plays the ``F − P`` zero-weight dummies), so for equal spills the merge tree is
the complete F-ary tree and ``(passes, a, b)`` has a closed form for every N
(:func:`spill_merge_plan`). The reduce side's on-disk merges during the shuffle are a
round-robin over at most three file sizes, and the final merge over at most ``2F − 2`` files
takes at most two passes, so :func:`reduce_disk_plan_arrays` is closed-form too. The per-key
simulations (:func:`_spill_plan_simulated`, :func:`_shuffle_disk_merges`,
:func:`reduce_disk_plan`) stay as the reference that property tests compare the closed forms
against.
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray


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


# ---------------------------------------------------------------------- vectorised map merge
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


def _spill_plan_float(
    n: NDArray[np.float64], f: NDArray[np.float64], log_f: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """:func:`spill_merge_plan` in float64 arithmetic (``log_f`` = ``np.log(f)``, ``f >= 2``).

    Every quantity is an integer below 2^53, where float64 sums, products and exact quotients
    are exact and ``floor(a / b)`` is the integer quotient; this avoids numpy's slow integer
    division. ``F^L`` is ``rint(exp(L·ln F))`` (relative error below 1e-14, so the rounding is
    exact while ``N + d`` < 2^45; tests go to 2^42), and the float ``floor(log N / log F)`` is
    corrected by one integer check each way, so ``L`` and ``F^L`` are exact.
    """
    fm1 = f - 1.0
    nm1 = n - 1.0
    rem = nm1 - np.floor(nm1 / fm1) * fm1  # (N − 1) mod (F − 1)
    d = (fm1 - rem) * (rem > 0.0)  # dummies the first pass leaves out
    leaves = np.maximum(n + d, 1.0)
    depth = np.floor(np.log(leaves) / log_f)
    pw = np.rint(np.exp(depth * log_f))
    over = pw > leaves
    if over.any():
        depth -= over
        pw /= np.where(over, f, 1.0)
    under = pw * f <= leaves
    if under.any():
        depth += under
        pw *= np.where(under, f, 1.0)
    x = (leaves - pw) / fm1  # merges at depth L (exact quotient)
    deep = x > 0.0
    merging = n > f
    merging_f = merging.astype(np.float64)
    passes = np.where(merging, (leaves - 1.0) / fm1, n > 1.0)
    # np.where(mask, v, 0.0) as v · mask: every v here is a finite integer
    a = (nm1 * (depth - 1.0) + (x * f - d - 1.0) * deep) * merging_f
    b = (depth - 1.0 + deep) * merging_f
    return passes, a, b


def spill_merge_plan(
    n: NDArray[np.int64], f: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Vectorised ``(passes, a, b)`` of the map-side merge of ``n`` spills with factor ``f``.

    Intermediate passes read (and write) ``a`` full spills' and ``b`` last spills' worth of data;
    the final pass reads everything once. ``Merger`` with its first-pass sizing is F-ary Huffman
    merging with ``d = (F − 1 − (N − 1) mod (F − 1)) mod (F − 1)`` zero-size dummies, so the tree
    of N + d equal leaves is the complete F-ary tree: with ``F^L ≤ N + d < F^(L+1)``, ``x =
    (N + d − F^L) / (F − 1)`` nodes of depth L are merges and ``x·F`` leaves sit at depth
    ``L + 1``, the dummies and the smallest (last) spill among them. Each leaf is read once per
    merge above it; the final pass's one read is not an intermediate one. For N ≤ F² this is the
    reference's §2.4 closed forms; property tests prove it equal to the simulation.
    """
    n = np.asarray(n, dtype=np.float64)
    f = np.maximum(np.asarray(f, dtype=np.float64), 2.0)
    n, f = np.broadcast_arrays(n, f)
    out = _spill_plan_float(n, f, np.log(f))
    return tuple(v.astype(np.int64) for v in out)  # type: ignore[return-value]


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


def _shuffle_merges_float(
    files: NDArray[np.float64], f: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], tuple[NDArray[np.float64], ...]]:
    """:func:`shuffle_disk_merge_arrays` in float64 (exact: all values are integers < 2^53)."""
    fm1 = f - 1.0
    extra = files - (2.0 * f - 1.0)
    any_merge = extra >= 0.0
    later = np.floor(extra / fm1)
    merges = np.where(any_merge, 1.0 + later, 0.0)
    fresh = np.where(any_merge, extra - later * fm1, files)  # singles since the last merge
    k = np.maximum(merges - f, 0.0)  # round-robin merges
    rounds = np.floor(k / f)
    j = k - rounds * f
    base = f + rounds * fm1
    ramp = merges <= f
    ones = np.where(ramp, np.where(any_merge, f - merges, 0.0) + fresh, fresh)
    runs_lo = np.where(ramp, merges, f - j)
    runs_hi = np.where(ramp, 0.0, j)
    # units: F per ramp merge; a round-robin merge reads F − 1 singles and one run of its round
    rr_runs = f * (rounds * f + fm1 * (rounds * (rounds - 1.0) / 2.0)) + j * base
    units = np.where(ramp, f * merges, f * f + k * fm1 + rr_runs)
    sizes = (np.ones_like(files), ones, base, runs_lo, base + fm1, runs_hi)
    return merges, units, sizes


def _final_merge_float(
    files: NDArray[np.float64],
    f: NDArray[np.float64],
    sizes: tuple[NDArray[np.float64], ...],
    in_mem: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """``(left, passes, first_pass_d, mem)`` of the final merge over the files ``sizes`` left.

    ``first_pass_d`` is read and written by the one intermediate pass (``mem`` in-memory
    segments join it); the final pass then streams all ``files`` units and ``mem`` segments.
    """
    _, c1, v2, c2, v3, c3 = sizes
    left = c1 + c2 + c3
    two = left > f
    first = np.where(two, left - f + 1.0, 0.0)
    t1 = np.minimum(first, c1)
    t2 = np.minimum(first - t1, c2)
    td = t1 + t2 * v2 + (first - t1 - t2) * v3
    passes = np.where(two, 2.0, left + in_mem > 1.0)
    mem = np.where(two, in_mem, 0.0)
    return left, passes, td, mem


def _reduce_plan_float(
    files: NDArray[np.float64], f: NDArray[np.float64], in_mem: NDArray[np.float64]
) -> tuple[NDArray[np.float64], ...]:
    """:func:`reduce_disk_plan_arrays` in float64 (exact: all values are integers < 2^53)."""
    merges, units, sizes = _shuffle_merges_float(files, f)
    left, passes, td, mem = _final_merge_float(files, f, sizes, in_mem)
    zero = np.zeros_like(files)
    return (merges, units, left, passes, td, zero, td.copy(), mem, files.copy(), mem.copy())


def reduce_merge_rows(
    files: NDArray[np.float64], f: NDArray[np.float64], evicted: NDArray[np.float64]
) -> tuple[NDArray[np.float64], ...]:
    """The reduce task's disk-merge plan per row: ``(merges, units, kept, passes, td, mem)``.

    ``files`` equal disk files after the shuffle's fetches and in-memory merges, factor ``f``
    (float64, ≥ 2) and ``evicted`` in-memory segments at the final merge. ``merges``/``units``:
    on-disk merges during the shuffle; ``kept``: evicted segments that stay in memory as
    first-pass segments (iff F or more files are left, ``MergeManagerImpl.finalMerge``);
    ``passes``: final-merge passes; ``td``: file units read and written by its first pass, which
    also writes the ``mem`` kept segments. Rows with at most F files (most configurations) merge
    nothing before one final pass over everything (and count a pass even for a single file,
    as the model always has), so the closed forms run only on the other rows.
    """
    n = files.shape[0]
    simple = (files < 2.0 * f - 1.0) & (files <= f)
    merges = np.zeros(n)
    units = np.zeros(n)
    td = np.zeros(n)
    mem = np.zeros(n)
    kept = np.where(files >= f, evicted, 0.0)
    passes = (files + evicted > 0).astype(np.float64)
    hard = np.flatnonzero(~simple)
    if hard.size:
        fh, ff, eh = files[hard], f[hard], evicted[hard]
        m_h, u_h, sizes = _shuffle_merges_float(fh, ff)
        kept_h = np.where(sizes[1] + sizes[3] + sizes[5] >= ff, eh, 0.0)
        _, p_h, td_h, mem_h = _final_merge_float(fh, ff, sizes, kept_h)
        merges[hard] = m_h
        units[hard] = u_h
        kept[hard] = kept_h
        passes[hard] = p_h
        td[hard] = td_h
        mem[hard] = mem_h
    return merges, units, kept, passes, td, mem


def shuffle_disk_merge_arrays(
    files: NDArray[np.int64], factor: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], tuple[NDArray[np.int64], ...]]:
    """Vectorised :func:`_shuffle_disk_merges`: ``(merges, units, (v1, c1, v2, c2, v3, c3))``.

    Equal files arrive one at a time and the F smallest are merged whenever 2F − 1 are on disk,
    so a merge happens at file 2F − 1 and then every F − 1 files, leaving F files each time.
    The first F merges take only single files (F − M singles and M runs of F are left after
    merge M); from then on each merge takes the F − 1 new singles and the smallest run ``s``,
    giving ``s + F − 1``: a round robin in which every run grows by F − 1 per F merges. The
    files left are ``c1`` singles (``v1`` = 1), ``c2`` runs of ``v2`` and ``c3`` of ``v3``
    units, in ascending size.
    """
    files = np.asarray(files, dtype=np.float64)
    f = np.maximum(np.asarray(factor, dtype=np.float64), 2.0)
    merges, units, sizes = _shuffle_merges_float(*np.broadcast_arrays(files, f))
    return (
        merges.astype(np.int64),
        units.astype(np.int64),
        tuple(v.astype(np.int64) for v in sizes),
    )


def shuffle_final_files(files: NDArray[np.int64], factor: NDArray[np.int64]) -> NDArray[np.int64]:
    """Disk files left for the final merge after the shuffle's on-disk merges."""
    files = np.asarray(files, dtype=np.float64)
    f = np.maximum(np.asarray(factor, dtype=np.float64), 2.0)
    extra = files - (2.0 * f - 1.0)
    merges = np.where(extra >= 0.0, 1.0 + np.floor(extra / (f - 1.0)), 0.0)
    return (files - merges * (f - 1.0)).astype(np.int64)


def reduce_disk_plan_arrays(
    files: NDArray[np.int64], factor: NDArray[np.int64], in_mem: NDArray[np.int64]
) -> tuple[NDArray[np.int64], ...]:
    """Vectorised :func:`reduce_disk_plan`, as a tuple in :class:`ReduceDiskPlan`'s field order.

    At most 2F − 2 files are left after the shuffle, so the final ``Merger.merge`` either
    streams them all (≤ F files) or makes one first pass over the ``n − F + 1`` smallest files
    plus the in-memory segments and then streams the F that remain. The in-memory segments'
    size only decides where the first pass's run is inserted, which cannot matter when the next
    pass is the final one over everything: the plan does not depend on ``mem_ratio``.
    """
    files = np.asarray(files, dtype=np.float64)
    f = np.maximum(np.asarray(factor, dtype=np.float64), 2.0)
    in_mem = np.asarray(in_mem, dtype=np.float64)
    plan = _reduce_plan_float(*np.broadcast_arrays(files, f, in_mem))
    return tuple(v.astype(np.int64) for v in plan)
