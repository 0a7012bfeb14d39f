"""The reduce task's shuffle and the plan of its merges (reference §4.1, §7).

Hadoop 2/3's ``MergeManagerImpl`` (Hadoop 1's ``ReduceCopier``) for equal segments: the
memory limits as Java computes them, which segments are fetched to memory, the in-memory
merges during the shuffle (``InMemoryMerger``, combiner applied), the eviction at the final
merge (``finalMerge``) and ``Merger``'s passes over the disk files (the closed forms of
:func:`~mrtune.costmodel.merge_plans.reduce_merge_rows`). Each step reads and writes a
:class:`ReduceWork`, the arrays the steps of :func:`~mrtune.costmodel.reduce_task.reduce_task`
hand each other.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel._ifile import IFILE_CHECKSUM_BYTES, IFILE_EOF_BYTES, at_least
from mrtune.costmodel.batch import ConfigBatch, shared_value
from mrtune.costmodel.combiner import combined_pair_width, combined_records
from mrtune.costmodel.merge_plans import reduce_merge_rows
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.stacked import StackedProfiles, stacked_combined_records

F64 = NDArray[np.float64]
INT_MAX = float(2**31 - 1)


def _java_float_times(x: F64, pct: F64) -> F64:
    """``(long)(x * pctFloat)`` as Java computes it: both operands rounded to float32 (a
    column every configuration shares, :func:`shared_value`, converted once), the product
    floored in float32 and widened (exact: a float32 is a float64)."""
    one = shared_value(x) if isinstance(x, np.ndarray) else None
    x32 = np.asarray(x, dtype=np.float32) if one is None else np.float32(one)
    prod = x32 * np.asarray(pct, dtype=np.float32)
    return np.floor(prod, out=np.empty(prod.shape))


class ReduceWork:
    """The arrays one reduce task's steps hand each other (one attribute per quantity)."""


def combine_keys(n_in: F64, n_raw: F64, profile: JobProfile | StackedProfiles, parts: F64) -> F64:
    """Distinct keys among ``n_raw`` raw records of one of ``parts`` partitions."""
    if isinstance(profile, StackedProfiles):
        return stacked_combined_records(n_in, n_raw, profile, parts)
    return combined_records(n_in, n_raw, profile.stats, parts)


def shuffle_memory(
    w: ReduceWork, profile: JobProfile | StackedProfiles, batch: ConfigBatch
) -> None:
    """Segment sizes, the shuffle's memory limits (reference §7) and which segments are
    fetched to memory."""
    h1 = batch.hadoop1
    w.any_h1 = any_h1 = bool(h1.any())
    # ifile_bytes / on_disk_bytes of one segment (one partition: one EOF marker, one checksum)
    w.w_rec = w.w + profile.stats.ifile_record_overhead
    w.seg_u = seg_u = w.q * w.w_rec + IFILE_EOF_BYTES  # decompressed (the fetch decision)
    w.seg_c = w.seg_u * w.ratio + IFILE_CHECKSUM_BYTES  # bytes shuffled and stored on disk
    # Hadoop 1 ReduceCopier: (int)min(total mem, Integer.MAX_VALUE); Hadoop 2/3: no cap on M.
    total_mem = batch.reduce_total_mem_bytes
    if any_h1:
        total_mem = np.where(h1, np.minimum(total_mem, INT_MAX), total_mem)
    # MergeManagerImpl multiplies a long by a float percent: Java evaluates that in 32-bit
    # float and truncates, e.g. (long)(2^31 * 0.7f) = 1,503,238,528 (logged by real runs).
    mem_limit = _java_float_times(total_mem, batch.shuffle_input_pct)
    single_limit = np.minimum(_java_float_times(mem_limit, batch.shuffle_limit_pct), INT_MAX)
    if any_h1:
        single_limit = np.where(h1, np.floor(mem_limit * 0.25), single_limit)
    merge_thr = _java_float_times(mem_limit, batch.shuffle_merge_pct)
    to_mem = seg_u <= single_limit
    if any_h1:
        to_mem = np.where(h1, seg_u < single_limit, to_mem)
    to_mem &= w.m > 0
    w.mem_limit, w.single_limit, w.merge_thr = mem_limit, single_limit, merge_thr
    w.to_mem = to_mem
    w.to_mem_f = to_mem.astype(np.float64)
    w.not_mem_f = 1.0 - w.to_mem_f


def shuffle_combines(profile: JobProfile | StackedProfiles, batch: ConfigBatch) -> NDArray:
    """Whether the reduce's in-memory merges run the combiner, per configuration.

    Hadoop 2/3's ``ReduceTask.run`` hands the shuffle ``JobConf.getCombinerClass()``, the old
    mapred API's ``mapred.combiner.class``, and ``MergeManagerImpl.InMemoryMerger`` combines
    only with it; a new-API combiner (``Job.setCombinerClass``) runs on the map side alone.
    Hadoop 1's ``ReduceCopier`` takes ``CombinerRunner.create``, which runs either API."""
    old_api = profile.old_api_combiner
    if not isinstance(old_api, np.ndarray):
        old_api = bool(old_api)
    return batch.use_combiner & profile.has_combiner & (batch.hadoop1 | old_api)


def inmem_merges(w: ReduceWork, profile: JobProfile | StackedProfiles, batch: ConfigBatch) -> None:
    """In-memory merges during the shuffle (``MergeManagerImpl.InMemoryMerger``, combiner
    applied when :func:`shuffle_combines`) and the disk files the shuffle leaves."""
    st = profile.stats
    m, q, seg_u, merge_thr = w.m, w.q, w.seg_u, w.merge_thr
    seg_u1 = w.seg_u1 = at_least(seg_u, 1.0)
    per_merge = np.ceil(merge_thr / seg_u1)
    at_least(per_merge, 1.0, out=per_merge)
    if w.any_h1:
        # Hadoop 1 ShuffleRamManager.reserve blocks while size + request > maxSize, so a merge
        # that ceil(T/u) segments would overflow starts with floor(T/u) of them.
        fits = per_merge * seg_u <= w.mem_limit
        per_merge_h1 = np.maximum(np.where(fits, per_merge, np.floor(merge_thr / seg_u1)), 2.0)
        per_merge_h1 = np.where(
            batch.inmem_threshold > 0,
            np.minimum(per_merge_h1, batch.inmem_threshold),
            per_merge_h1,
        )
        per_merge = np.where(batch.hadoop1, per_merge_h1, per_merge)
    # np.where(to_mem, x, 0.0) as x · to_mem for the finite x below
    w.n_inmem = n_inmem = np.floor(m / per_merge) * w.to_mem_f
    w.mem_left = (m - n_inmem * per_merge) * w.to_mem_f
    w.combining = combining = shuffle_combines(profile, batch)
    w.any_combining = bool(combining.any())
    w.all_combining = every = w.any_combining and bool(combining.all())
    w.mf_in = mf_in = per_merge * q
    if w.any_combining:
        # one partition's records: the key law over all partitions, split R ways; the
        # segments' records are already combined (their width is the map's combined width),
        # so the width of the merge's output follows the raw records merged into one
        raw = per_merge * w.q_raw
        mf_recs = combine_keys(mf_in, raw, profile, w.parts)
        w.mf_recs = mf_recs if every else np.where(combining, mf_recs, mf_in)
        mf_w = combined_pair_width(raw, w.mf_recs, st.map_output_pair_width, st)
        w.mf_w = mf_w if every else np.where(combining, mf_w, w.w)
        mf_u = w.mf_recs * (w.mf_w + st.ifile_record_overhead) + IFILE_EOF_BYTES
    else:
        w.mf_recs, w.mf_w = mf_in, w.w
        mf_u = w.mf_recs * w.w_rec + IFILE_EOF_BYTES
    w.mf_u = mf_u
    w.mf_d = mf_u * w.ratio + IFILE_CHECKSUM_BYTES
    # Disk files as the shuffle leaves them: in-memory merge outputs, or fetched segments.
    to_mem = w.to_mem
    w.files = np.where(to_mem, n_inmem, m)
    w.file_d = np.where(to_mem, w.mf_d, w.seg_c)
    w.file_u = np.where(to_mem, mf_u, seg_u)
    w.file_r = np.where(to_mem, w.mf_recs, q)


def final_merge_plan(w: ReduceWork, batch: ConfigBatch) -> None:
    """The final merge: eviction to ``reduce.input.buffer.percent`` (reference §7), the
    shuffle's on-disk merges and ``Merger``'s passes (closed forms in costmodel.merge_plans).

    Evicted segments stay in memory (first-pass segments of the final merge) iff F or more
    files are on disk after the shuffle's merges (``MergeManagerImpl.finalMerge``);
    otherwise they are merged to one disk file of their own.
    """
    max_inmem_reduce = w.mem_limit * batch.reduce_input_pct
    if w.any_h1:
        max_inmem_reduce = np.where(
            batch.hadoop1,
            np.minimum(batch.reduce_heap_bytes * batch.reduce_input_pct, INT_MAX),
            max_inmem_reduce,
        )
    mem_bytes = w.mem_left * w.seg_u
    evicted = np.where(
        mem_bytes > max_inmem_reduce,
        np.minimum(np.ceil((mem_bytes - max_inmem_reduce) / w.seg_u1), w.mem_left),
        0.0,
    )
    f = w.f  # io.sort.factor >= 2: the caller's, or made here
    if f is None:
        w.f = f = at_least(batch.sort_factor.astype(np.float64), 2.0)
    plan = reduce_merge_rows(w.files, f, evicted)
    w.sh_merges, w.sh_units, kept, w.passes, w.ird, w.iwm = plan
    # the first pass writes what it reads; the final reads all
    w.iwd, w.fdd, w.fdm = w.ird, w.files, w.iwm
    w.evicted = evicted
    w.ev_to_disk = (evicted > 0) & (kept == 0)
    w.ev_f = w.ev_to_disk.astype(np.float64)
    w.ev_recs = evicted * w.q
    w.ev_u = w.ev_recs * w.w_rec + IFILE_EOF_BYTES
    ev_d = w.ev_u * w.ratio + IFILE_CHECKSUM_BYTES
    w.ev_d_disk = ev_d * w.ev_f
