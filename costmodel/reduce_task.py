"""The reduce task model (reference §4, §7): Shuffle, Merge (sort), Reduce, Write.

Each reducer receives one segment from every map (uniform partitioning, reference §4.1). The
shuffle follows Hadoop 2/3's ``MergeManagerImpl`` (or Hadoop 1's ``ReduceCopier``) exactly for
equal segments:

* a segment is fetched to memory iff its decompressed length is ≤ the single-shuffle limit
  ``L = M × memory.limit.percent`` (Hadoop 1: < 0.25 × M), with ``M = heap × input.buffer.percent``;
* in memory, all committed segments are merged to one disk file (combiner applied) once the
  committed bytes reach ``T = M × merge.percent`` (Hadoop 1 also at ``inmem.merge.threshold``
  segments); ``mapreduce.reduce.merge.inmem.threshold`` is ignored in Hadoop 2/3;
* on disk, the F smallest files are merged once 2F − 1 are present;
* the final merge evicts in-memory segments down to ``reduce.input.buffer.percent`` (merging them
  to one disk file when fewer than F files are on disk), runs ``Merger`` over the disk files and
  streams into reduce().

SPILLED_RECORDS on the reduce side counts records read from file-backed segments by ``Merger``
(its ``readsCounter``), which is what Hadoop 2/3 increments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.codecs import codec_arrays
from mrtune.costmodel.combiner import combined_records, combined_width_factor
from mrtune.costmodel.map_task import (
    IFILE_CHECKSUM_BYTES,
    IFILE_EOF_BYTES,
    NS_PER_MS,
    task_total_ms,
)
from mrtune.costmodel.merger import reduce_merge_rows
from mrtune.costmodel.profile import JobProfile

F64 = NDArray[np.float64]
INT_MAX = float(2**31 - 1)


def _java_float_times(x: F64, pct: F64) -> F64:
    """``(long)(x * pctFloat)`` as Java computes it: both operands rounded to float32."""
    prod = np.asarray(x, dtype=np.float32) * np.asarray(pct, dtype=np.float32)
    return np.floor(prod.astype(np.float64))


@dataclass
class ReduceTaskResult:
    """One reduce task of each configuration (ndarrays of shape (n,))."""

    shuffle_bytes: F64
    shuffled_maps: F64
    fetches_to_memory: F64
    fetches_to_disk: F64
    inmem_merges: F64
    shuffle_disk_merges: F64
    evicted_segments: F64
    evicted_merged_to_disk: F64
    final_merge_passes: F64
    input_records: F64
    input_groups: F64
    output_records: F64
    output_bytes: F64
    hdfs_bytes_written: F64
    spilled_records: F64
    combine_input_records: F64
    combine_output_records: F64
    file_bytes_written: F64
    file_bytes_read: F64
    memory_limit_bytes: F64
    single_shuffle_limit_bytes: F64
    merge_threshold_bytes: F64
    phase_io_ms: dict[str, F64] = field(default_factory=dict)
    phase_cpu_ms: dict[str, F64] = field(default_factory=dict)
    phase_net_ms: dict[str, F64] = field(default_factory=dict)
    fixed_ms: float = 0.0

    @cached_property
    def phase_ms(self) -> dict[str, F64]:
        out = {}
        for k, io in self.phase_io_ms.items():
            t = io + self.phase_cpu_ms[k]
            t += self.phase_net_ms.get(k, 0.0)
            out[k] = t
        return out

    @cached_property
    def task_ms(self) -> F64:
        return task_total_ms(self.fixed_ms, self.phase_ms)


def reduce_task(
    profile: JobProfile,
    batch: ConfigBatch,
    num_maps: F64,
    seg_records: F64,
    seg_raw_records: F64,
    seg_width: F64,
    *,
    map_codecs: tuple[F64, F64, F64] | None = None,
) -> ReduceTaskResult:
    """Model one reducer that fetches ``num_maps`` equal segments.

    ``seg_records`` records of ``seg_width`` serialized bytes per segment, standing for
    ``seg_raw_records`` raw map output records (for the combiner's distinct-keys law).
    ``map_codecs`` is :func:`~mrtune.costmodel.codecs.codec_arrays` of the batch's map-output codec,
    when the caller already has it.
    """
    st, c = profile.stats, profile.costs
    n = len(batch)
    m = np.asarray(num_maps, dtype=np.float64)
    if m.shape != (n,):
        m = np.broadcast_to(m, (n,))
    q = np.asarray(seg_records, dtype=np.float64)
    q_raw = np.asarray(seg_raw_records, dtype=np.float64)
    w = np.asarray(seg_width, dtype=np.float64)
    ovh = st.ifile_record_overhead
    h1 = batch.hadoop1
    any_h1 = bool(h1.any())
    if map_codecs is None:
        map_codecs = codec_arrays(profile, batch.map_codec)
    ratio, comp_ns, uncomp_ns = map_codecs

    # ifile_bytes / on_disk_bytes of one segment (one partition: one EOF marker, one checksum)
    w_rec = w + ovh
    seg_u = q * w_rec + IFILE_EOF_BYTES  # decompressed length (the fetch decision uses it)
    seg_c = seg_u * ratio + IFILE_CHECKSUM_BYTES  # bytes shuffled and stored on disk

    # ---- memory limits (reference §7)
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
    to_mem &= m > 0
    to_mem_f = to_mem.astype(np.float64)
    not_mem_f = 1.0 - to_mem_f

    # ---- in-memory merges during the shuffle
    seg_u1 = np.maximum(seg_u, 1.0)
    per_merge = np.maximum(np.ceil(merge_thr / seg_u1), 1.0)
    if any_h1:
        # Hadoop 1 ShuffleRamManager.reserve blocks while size + request > maxSize, so a merge
        # that ceil(T/u) segments would overflow starts with floor(T/u) of them.
        fits = per_merge * seg_u <= mem_limit
        per_merge_h1 = np.maximum(np.where(fits, per_merge, np.floor(merge_thr / seg_u1)), 2.0)
        per_merge_h1 = np.where(
            batch.inmem_threshold > 0,
            np.minimum(per_merge_h1, batch.inmem_threshold),
            per_merge_h1,
        )
        per_merge = np.where(h1, per_merge_h1, per_merge)
    # np.where(to_mem, x, 0.0) as x · to_mem for the finite x below
    n_inmem = np.floor(m / per_merge) * to_mem_f
    mem_left = (m - n_inmem * per_merge) * to_mem_f
    combining = batch.use_combiner & profile.has_combiner
    any_combining = bool(combining.any())
    wfac = combined_width_factor(st) if profile.has_combiner else 1.0
    mf_in = per_merge * q
    if any_combining:
        mf_recs = np.where(combining, combined_records(mf_in, per_merge * q_raw, st), mf_in)
        mf_w = np.where(combining, w * wfac, w)
        mf_u = mf_recs * (mf_w + ovh) + IFILE_EOF_BYTES
    else:
        mf_recs, mf_w = mf_in, w
        mf_u = mf_recs * w_rec + IFILE_EOF_BYTES
    mf_d = mf_u * ratio + IFILE_CHECKSUM_BYTES

    # Disk files as the shuffle leaves them: in-memory merge outputs, or fetched segments.
    files = np.where(to_mem, n_inmem, m)
    file_d = np.where(to_mem, mf_d, seg_c)
    file_u = np.where(to_mem, mf_u, seg_u)
    file_r = np.where(to_mem, mf_recs, q)

    # ---- final merge: eviction to reduce.input.buffer.percent (reference §7)
    max_inmem_reduce = mem_limit * batch.reduce_input_pct
    if any_h1:
        max_inmem_reduce = np.where(
            h1,
            np.minimum(batch.reduce_heap_bytes * batch.reduce_input_pct, INT_MAX),
            max_inmem_reduce,
        )
    mem_bytes = mem_left * seg_u
    evicted = np.where(
        mem_bytes > max_inmem_reduce,
        np.minimum(np.ceil((mem_bytes - max_inmem_reduce) / seg_u1), mem_left),
        0.0,
    )
    # On-disk merges during the shuffle, then Merger over the files left (reference §7;
    # closed forms in costmodel.merger). Evicted segments stay in memory (first-pass segments
    # of the final merge) iff F or more files are on disk after the shuffle's merges
    # (MergeManagerImpl.finalMerge); otherwise they are merged to one disk file of their own.
    f = np.maximum(batch.sort_factor.astype(np.float64), 2.0)  # io.sort.factor >= 2
    sh_merges, sh_units, kept, passes, ird, iwm = reduce_merge_rows(files, f, evicted)
    iwd, fdd, fdm = ird, files, iwm  # the first pass writes what it reads; the final reads all
    ev_to_disk = (evicted > 0) & (kept == 0)
    ev_f = ev_to_disk.astype(np.float64)
    ev_recs = evicted * q
    ev_u = ev_recs * w_rec + IFILE_EOF_BYTES
    ev_d = ev_u * ratio + IFILE_CHECKSUM_BYTES
    ev_d_disk = ev_d * ev_f

    # ---- records (the final merge's first pass reads no in-memory segment from disk: irm = 0)
    in_records = n_inmem * mf_recs + mem_left * q + m * q * not_mem_f
    disk_recs_shuffle = sh_units * file_r
    disk_recs_final = (ird + fdd) * file_r + fdm * q + ev_recs * ev_f
    spilled = disk_recs_shuffle + disk_recs_final
    if any_combining:
        comb_f = combining.astype(np.float64)
        comb_in = n_inmem * mf_in * comb_f
        comb_out = n_inmem * mf_recs * comb_f
    else:
        comb_in = np.zeros(n)
        comb_out = np.zeros(n)

    # ---- bytes
    fetched = m * seg_c
    disk_fetch_bytes = fetched * not_mem_f
    inmem_written_d = n_inmem * mf_d
    inmem_written_u = n_inmem * mf_u
    sh_merge_d = sh_units * file_d
    sh_merge_u = sh_units * file_u
    interm_d = ird * file_d
    interm_wd = iwd * file_d + iwm * seg_c
    interm_wu = iwd * file_u + iwm * seg_u
    final_disk_bytes = fdd * file_d + fdm * seg_c + ev_d_disk
    file_written = disk_fetch_bytes + inmem_written_d + sh_merge_d + ev_d_disk + interm_wd
    file_read = sh_merge_d + interm_d + final_disk_bytes

    # ---- reduce function and output (§4.3, §4.4)
    red_in_bytes_u = in_records * mf_w
    out_recs = in_records * st.reduce_pairs_sel
    out_bytes = red_in_bytes_u * st.reduce_size_sel
    out_ratio, out_comp, _ = codec_arrays(profile, batch.out_codec)
    hdfs_written = out_bytes * out_ratio

    # ---- costs (ns)
    shuffle_net = fetched * c.network
    if c.fetch_ns:
        shuffle_net = shuffle_net + m * c.fetch_ns
    shuffle_cpu = fetched * uncomp_ns * to_mem_f
    shuffle_cpu += n_inmem * mf_in * c.merge_cpu
    if any_combining:
        shuffle_cpu += comb_in * c.combine_cpu
    shuffle_cpu += inmem_written_u * comp_ns
    shuffle_cpu += sh_units * file_r * c.merge_cpu
    shuffle_cpu += sh_merge_d * uncomp_ns
    shuffle_cpu += sh_merge_u * comp_ns
    shuffle_io = (disk_fetch_bytes + inmem_written_d + sh_merge_d) * c.local_write + (
        sh_merge_d * c.local_read
    )
    merge_io = ev_d_disk * c.local_write + interm_d * c.local_read + (interm_wd * c.local_write)
    interm_written_recs = iwd * file_r + iwm * q
    merge_cpu = (ev_recs * c.merge_cpu + ev_u * comp_ns) * ev_f
    merge_cpu += interm_written_recs * c.merge_cpu
    merge_cpu += interm_d * uncomp_ns
    merge_cpu += interm_wu * comp_ns
    reduce_io = final_disk_bytes * c.local_read
    if c.segment_seek_ns:
        # Segments opened: F per on-disk merge during the shuffle, up to F per intermediate
        # pass of the final merge, and the final pass's disk segments (at most F).
        shuffle_io = shuffle_io + sh_merges * f * c.segment_seek_ns
        merge_io = merge_io + np.minimum((passes - 1.0).clip(0.0) * f, files) * c.segment_seek_ns
        reduce_io = reduce_io + np.minimum(files + ev_f, f) * c.segment_seek_ns
    # The final merge streams into reduce(): its CPU is charged here unless the profile's
    # reduce cost factor was calibrated on the merge-and-reduce loop (Starfish, reference §4.3).
    if c.reduce_includes_final_merge:
        reduce_cpu = in_records * c.reduce_cpu
    else:
        reduce_cpu = in_records * (c.reduce_cpu + c.merge_cpu) + final_disk_bytes * uncomp_ns
    write_io = hdfs_written * c.hdfs_write
    write_cpu = out_bytes * out_comp

    def ms(x: F64) -> F64:
        return np.asarray(x, dtype=np.float64) / NS_PER_MS

    zero = np.zeros(n)
    return ReduceTaskResult(
        shuffle_bytes=fetched,
        shuffled_maps=m.copy(),
        fetches_to_memory=np.where(to_mem, m, 0.0),
        fetches_to_disk=np.where(to_mem, 0.0, m),
        inmem_merges=n_inmem,
        shuffle_disk_merges=sh_merges,
        evicted_segments=evicted,
        evicted_merged_to_disk=ev_to_disk.astype(np.float64),
        final_merge_passes=passes,
        input_records=in_records,
        input_groups=in_records / st.reduce_pairs_per_group,
        output_records=out_recs,
        output_bytes=out_bytes,
        hdfs_bytes_written=hdfs_written,
        spilled_records=spilled,
        combine_input_records=comb_in,
        combine_output_records=comb_out,
        file_bytes_written=file_written,
        file_bytes_read=file_read,
        memory_limit_bytes=mem_limit,
        single_shuffle_limit_bytes=single_limit,
        merge_threshold_bytes=merge_thr,
        phase_io_ms={
            "shuffle": ms(shuffle_io),
            "merge": ms(merge_io),
            "reduce": ms(reduce_io),
            "write": ms(write_io),
        },
        phase_cpu_ms={
            "shuffle": ms(shuffle_cpu),
            "merge": ms(merge_cpu),
            "reduce": ms(reduce_cpu),
            "write": ms(write_cpu),
        },
        phase_net_ms={"shuffle": ms(shuffle_net), "merge": zero, "reduce": zero, "write": zero},
        fixed_ms=c.setup_ms + c.cleanup_ms + c.task_overhead_ms,
    )
