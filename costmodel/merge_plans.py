"""``Merger``'s plans in closed form, vectorised over configurations (reference §2.4, §7).

The job model's hot path: every function here is numpy over arrays of configurations, and
property tests prove each equal to the per-key simulation it replaced in
:mod:`mrtune.costmodel.merger` (``tests/costmodel/test_merge_closed_forms.py``).

Map side (``MapTask.mergeParts`` → ``Merger.merge``): with ``N − 1`` full spills and one
smaller last spill, the bytes and records read by intermediate passes are ``a·full + b·last``
where the integers ``(passes, a, b)`` depend only on ``(N, F)`` (the last spill is the smallest
segment, so the order of every comparison is fixed). Merging smallest-first with a first pass
that makes every later pass full is F-ary Huffman merging (the first pass plays the ``F − P``
zero-weight dummies), so for equal spills the merge tree is the complete F-ary tree and
``(passes, a, b)`` has a closed form for every N (:func:`spill_merge_plan`).

Reduce side (``MergeManagerImpl``): the on-disk merges during the shuffle are a round-robin
over at most three file sizes, and the final merge over at most ``2F − 2`` files takes at most
two passes, so :func:`reduce_disk_plan_arrays` (and the model's :func:`reduce_merge_rows`) is
closed-form too.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel._ifile import at_least, at_most


# ---------------------------------------------------------------------- map merge
def _spill_plan_float(
    n: NDArray[np.float64],
    f: NDArray[np.float64],
    log_f: NDArray[np.float64],
    fm1: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """:func:`spill_merge_plan` in float64 arithmetic (``log_f`` = ``np.log(f)``, ``f >= 2``;
    ``fm1`` = ``f − 1`` when the caller has it: the full and tail map tasks share it).

    Every quantity is an integer below 2^53, where float64 sums, products and exact quotients
    are exact and ``ceil(a / b)`` is the integer quotient rounded up; this avoids numpy's slow
    integer division. ``F^L`` is ``rint(exp(L·ln F))`` (relative error below 1e-14, so the
    rounding is exact while ``N + d`` < 2^45; tests go to 2^42), and the float ``floor(log N /
    log F)`` is corrected by one integer check each way, so ``L`` and ``F^L`` are exact.

    One form for every row, with no selection of the rows that merge in several passes: the
    passes are ``ceil((N − 1)/(F − 1))`` (``N + d − 1 = (F − 1)·passes``), and a row with at
    most F spills gets ``N + d`` raised to F, the one-level tree of the same passes with no
    intermediate merge (``a = b = 0``). Exact integer arithmetic makes each value the one the
    selection gave (0 and 1 pass included), so it costs no gather and scatter of the rows.
    """
    if fm1 is None:
        fm1 = f - 1.0
    m = n - 1.0
    at_least(m, 0.0, out=m)  # no spill merges nothing: N = 0 is N = 1
    passes = m / fm1
    np.ceil(passes, out=passes)
    leaves = passes * fm1  # N + d − 1
    leaves += 1.0
    np.maximum(leaves, f, out=leaves)  # N ≤ F: one level of F leaves
    depth = np.log(leaves)
    depth /= log_f
    np.floor(depth, out=depth)
    pw = depth * log_f
    np.exp(pw, out=pw)
    np.rint(pw, out=pw)
    over = pw > leaves
    if over.any():
        depth -= over
        pw /= np.where(over, f, 1.0)
    up = pw * f
    under = up <= leaves
    if under.any():
        depth += under
        up -= pw  # pw·F − pw, exact: pw·(F − 1) where the power is one short
        up *= under
        pw += up
    x = leaves - pw
    x /= fm1  # merges at depth L (exact quotient)
    deep = at_most(x, 1.0)  # x > 0 as 0.0/1.0 (x is a whole number ≥ 0)
    depth -= 1.0
    leaves -= n  # d, the dummies the first pass leaves out
    x *= f
    x -= leaves
    x -= 1.0
    x *= deep
    a = m * depth
    a += x
    b = depth + deep
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
    """Vectorised :func:`~mrtune.costmodel.merger._shuffle_disk_merges`: ``(merges, units,
    (v1, c1, v2, c2, v3, c3))``.

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
    """Vectorised :func:`~mrtune.costmodel.merger.reduce_disk_plan`, as a tuple in
    :class:`~mrtune.costmodel.merger.ReduceDiskPlan`'s field order.

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
