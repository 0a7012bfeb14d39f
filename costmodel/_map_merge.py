"""Merge of a map task (reference §2.4, §3): ``MapTask.mergeParts`` merging the spills into
``file.out`` through ``Merger``'s passes (the closed-form plan of
:func:`~mrtune.costmodel.merge_plans.spill_merge_plan`), the combiner in the final merge
when ``mapreduce.map.combine.minspills`` is reached, and the heap's key comparisons.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel._ifile import fma, quotient
from mrtune.costmodel._map_inputs import (
    MapInputs,
    MapWork,
    combine_keys,
    combine_width,
    if_combining,
)
from mrtune.costmodel.merge_plans import _spill_plan_float
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.stacked import StackedProfiles, nonzero

F64 = NDArray[np.float64]


def _xlog2(x: F64) -> F64:
    """``x·log2(x)`` with ``0·log2(0) = 0`` (x ≥ 0)."""
    return np.where(x > 0, x * np.log2(np.maximum(x, 1.0)), 0.0)


def merge_comparisons(n_full: F64, c_full: F64, c_last: F64) -> F64:
    """Key comparisons of merging ``n_full`` runs of ``c_full`` records and one of ``c_last``
    into one (every pass of ``Merger``'s plan together): ``T·H(p)`` with ``p`` the runs'
    shares of the ``T`` records, i.e. ``xlog(T) − n_full·xlog(c_full) − xlog(c_last)``.

    This is the information-theoretic count (log2 of the interleavings), which a heap merge
    of random keys attains up to lower-order terms; by the chain rule of entropy it does not
    depend on how the passes group the runs, and per partition it scales by 1/R, so the
    total is the same. With the spills' own sorts (``n·log2 n`` each) it adds up to
    ``T·log2 T``: splitting a map's output into more spills does not save comparisons,
    which is why fewer spills are never dearer in CPU (issue 20's io.sort.mb sweep).
    """
    total = n_full * c_full + c_last
    out = _xlog2(total) - n_full * _xlog2(c_full) - _xlog2(c_last)
    return np.maximum(out, 0.0)


def map_merge(
    w: MapWork, profile: JobProfile | StackedProfiles, mi: MapInputs, counters: bool
) -> None:
    """Merge (§2.4, §3): the spills merged into one output file by ``Merger``'s passes (the
    plan of :func:`~mrtune.costmodel.merge_plans._spill_plan_float`, computed once per task)."""
    c = profile.costs
    spills, out_recs = w.spills, w.out_recs
    passes, a, b = _spill_plan_float(spills, mi.sort_factor, mi.log_sort_factor, mi.sort_factor_m1)
    merging = spills > 1
    merging_f = w.merging_f
    inter_bytes = fma(a, w.d_full, b * w.d_last)
    inter_u = fma(a, w.u_full, b * w.u_last)
    inter_recs = fma(a, w.c_full, b * w.c_last)  # 0 without merging (a = b = 0)
    final_in_recs = w.spill_recs_written
    final_in_bytes = w.spill_bytes_written
    comb_merge_f = None
    if mi.any_combining:
        comb_merge = merging & (spills >= mi.combine_min_spills)
        if not mi.all_combining:
            comb_merge &= mi.combining
        comb_merge_f = comb_merge.astype(np.float64)
        final_recs = np.where(
            comb_merge, combine_keys(final_in_recs, out_recs, profile), final_in_recs
        )
    else:
        final_recs = final_in_recs
    # With one spill the final output is that spill (rename): the IFile formulas below give its
    # bytes exactly. A map that spilled nothing still writes its file: mergeParts "creates
    # dummy files", one empty IFile segment a partition (EOF marker and checksum), which is
    # the formulas' value at 0 records (DistributedPentomino's 413 maps emitting nothing
    # each wrote 6 bytes, MAP_OUTPUT_MATERIALIZED_BYTES 2,478; the model had 0).
    if mi.any_combining:
        # merged without a combine, the spills' records keep their widths; combined in the
        # merge, a record has merged (map output records / final records) raw ones
        kept_u = w.spill_u_written - w.spills * mi.eof_parts
        kept_u += mi.eof_parts
        ovh = profile.stats.ifile_record_overhead
        w_fin = combine_width(out_recs, final_recs, profile, mi) + ovh
        comb_u = np.where(comb_merge, fma(final_recs, w_fin, mi.eof_parts), kept_u)
        plain_u = None if mi.all_combining else fma(final_recs, mi.w_rec, mi.eof_parts)
        final_u = if_combining(mi, comb_u, plain_u)
    else:
        final_u = fma(final_recs, mi.w_rec, mi.eof_parts)
    final_d = fma(final_u, mi.ratio, mi.chk_parts)
    if w.any_no_spill:
        empty = spills == 0  # a map-only map writes no IFile at all
        if mi.any_map_only:
            empty &= ~mi.map_only
        own = merging | empty
        final_u = np.where(own, final_u, w.spill_u_written)
        final_d = np.where(own, final_d, final_in_bytes)
    # np.where(merging, x, 0.0) as x · merging for the finite, non-negative x below
    merge_read = inter_bytes + final_in_bytes
    merge_read *= merging_f
    merge_written = inter_bytes  # (a fresh array: inter_bytes is not read again)
    merge_written += final_d
    merge_written *= merging_f
    merge_written_u = inter_u
    merge_written_u += final_u
    merge_written_u *= merging_f
    merged_recs = inter_recs + final_in_recs
    merged_recs *= merging_f
    merge_io = fma(merge_read, c.local_read, merge_written * c.local_write)
    if nonzero(c.segment_seek_ns):
        merge_io += _segment_seeks(spills, passes, mi.parts, c.segment_seek_ns, merging_f)
    merge_cpu = _merge_cpu(w, profile, mi, merged_recs, merging_f, comb_merge_f)
    merge_cpu += merge_read * mi.uncomp_ns
    merge_cpu += merge_written_u * mi.comp_ns
    w.passes, w.final_recs, w.final_u, w.final_d = passes, final_recs, final_u, final_d
    w.merge_read, w.merge_io, w.merge_cpu = merge_read, merge_io, merge_cpu
    if counters:
        w.spilled = w.spill_recs_written + inter_recs + final_recs * merging_f
        if mi.any_combining:
            w.comb_in = out_recs * mi.combining_f + final_in_recs * comb_merge_f
            w.comb_out = w.spill_recs_written * mi.combining_f + final_recs * comb_merge_f
        else:
            w.comb_in = w.comb_out = np.zeros(len(spills))
        w.file_written = w.spill_bytes_written + merge_written + mi.index_bytes


def _merge_cpu(
    w: MapWork,
    profile: JobProfile | StackedProfiles,
    mi: MapInputs,
    merged_recs: F64,
    merging_f: F64,
    comb_merge_f: F64 | None,
) -> F64:
    """The merge's CPU before its codec work: per merged record, the merge heap's key
    comparisons over the spills' runs (:func:`merge_comparisons`), and the combiner where it
    runs in the merge (``Merger`` hands ``combinerRunner`` the merged stream when there are at
    least ``mapreduce.map.combine.minspills`` spills), per record and per byte."""
    c = profile.costs
    merge_cpu = merged_recs * c.merge_cpu
    if nonzero(c.merge_cmp_cpu):
        cmp = merge_comparisons(w.n_full, w.c_full, w.c_last)
        merge_cpu = merge_cpu + cmp * c.merge_cmp_cpu * merging_f
    if comb_merge_f is not None:
        final_in_recs = w.spill_recs_written
        merge_cpu += final_in_recs * c.combine_cpu * comb_merge_f
        if nonzero(c.combine_byte_cpu):
            # the spilled records' key and value bytes (their IFile bytes less the per-record
            # lengths and each spill's EOF markers) go through the merge's combiner
            ovh = profile.stats.ifile_record_overhead
            comb_bytes = w.spill_u_written - w.spills * mi.eof_parts - final_in_recs * ovh
            merge_cpu += comb_bytes * c.combine_byte_cpu * comb_merge_f
    return merge_cpu


def _segment_seeks(
    spills: F64, passes: F64, parts: F64, seek_ns: F64 | float, merging_f: F64
) -> F64:
    """The merge's segment opens in ns: each pass reads one segment per partition from each
    of its inputs, the N spills plus the runs the intermediate passes wrote (passes − 1)."""
    segments = spills + passes
    segments -= 1.0
    segments *= parts
    segments *= seek_ns
    segments *= merging_f
    return segments


def final_pair_width(
    w: MapWork, profile: JobProfile | StackedProfiles, mi: MapInputs, counters: bool
) -> F64:
    """Serialized key + value bytes per record of the map's final output (what a reducer's
    segment holds): the combined width where a combiner ran, the map output width otherwise."""
    if not mi.any_combining:
        return mi.w_spill.copy() if counters else mi.w_spill
    recs = w.final_recs
    per_rec = quotient(w.final_u - mi.eof_parts, recs)
    per_rec -= profile.stats.ifile_record_overhead
    measured = recs > 0
    if mi.all_combining and measured.all():
        return per_rec  # np.where(True, per_rec, …) in every row
    if not mi.all_combining:
        measured &= mi.combining
    return np.where(measured, per_rec, mi.w_spill)
