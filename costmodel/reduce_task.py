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

from costmodel.batch import ConfigBatch
from costmodel.codecs import codec_arrays
from costmodel.combiner import combined_records, combined_width_factor
from costmodel.map_task import NS_PER_MS, ifile_bytes, on_disk_bytes
from costmodel.merger import reduce_disk_plan_arrays, shuffle_final_files
from costmodel.profile import JobProfile

F64 = NDArray[np.float64]
INT_MAX = float(2**31 - 1)


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
        return {
            k: self.phase_io_ms[k] + self.phase_cpu_ms[k] + self.phase_net_ms.get(k, 0.0)
            for k in self.phase_io_ms
        }

    @cached_property
    def task_ms(self) -> F64:
        return np.asarray(self.fixed_ms + sum(self.phase_ms.values()), dtype=np.float64)


def reduce_task(
    profile: JobProfile,
    batch: ConfigBatch,
    num_maps: F64,
    seg_records: F64,
    seg_raw_records: F64,
    seg_width: F64,
) -> ReduceTaskResult:
    """Model one reducer that fetches ``num_maps`` equal segments.

    ``seg_records`` records of ``seg_width`` serialized bytes per segment, standing for
    ``seg_raw_records`` raw map output records (for the combiner's distinct-keys law).
    """
    st, c = profile.stats, profile.costs
    n = len(batch)
    m = np.broadcast_to(np.asarray(num_maps, dtype=np.float64), (n,))
    q = np.asarray(seg_records, dtype=np.float64)
    q_raw = np.asarray(seg_raw_records, dtype=np.float64)
    w = np.asarray(seg_width, dtype=np.float64)
    ovh = st.ifile_record_overhead
    h1 = batch.hadoop1
    ratio, comp_ns, uncomp_ns = codec_arrays(profile, batch.map_codec)
    one = np.ones(n)

    seg_u = ifile_bytes(q, w, ovh, one)  # decompressed length (the fetch decision uses it)
    seg_c = on_disk_bytes(seg_u, ratio, one)  # bytes shuffled and stored on disk

    # ---- memory limits (reference §7)
    # Hadoop 1 ReduceCopier: (int)min(total mem, Integer.MAX_VALUE); Hadoop 2/3: no cap on M.
    total_mem = np.where(
        h1, np.minimum(batch.reduce_total_mem_bytes, INT_MAX), batch.reduce_total_mem_bytes
    )
    mem_limit = np.floor(total_mem * batch.shuffle_input_pct)
    single_limit = np.where(
        h1, mem_limit * 0.25, np.minimum(mem_limit * batch.shuffle_limit_pct, INT_MAX)
    )
    merge_thr = mem_limit * batch.shuffle_merge_pct
    to_mem = np.where(h1, seg_u < single_limit, seg_u <= single_limit) & (m > 0)

    # ---- in-memory merges during the shuffle
    per_merge = np.maximum(np.ceil(merge_thr / np.maximum(seg_u, 1.0)), 1.0)
    # Hadoop 1 ShuffleRamManager.reserve blocks while size + request > maxSize, so a merge
    # that ceil(T/u) segments would overflow starts with floor(T/u) of them.
    fits = per_merge * seg_u <= mem_limit
    per_merge_h1 = np.maximum(
        np.where(fits, per_merge, np.floor(merge_thr / np.maximum(seg_u, 1.0))), 2.0
    )
    per_merge_h1 = np.where(
        batch.inmem_threshold > 0, np.minimum(per_merge_h1, batch.inmem_threshold), per_merge_h1
    )
    per_merge = np.where(h1, per_merge_h1, per_merge)
    n_inmem = np.where(to_mem, np.floor(m / per_merge), 0.0)
    mem_left = np.where(to_mem, m - n_inmem * per_merge, 0.0)
    combining = batch.use_combiner & profile.has_combiner
    wfac = combined_width_factor(st) if profile.has_combiner else 1.0
    mf_in = per_merge * q
    mf_recs = np.where(combining, combined_records(mf_in, per_merge * q_raw, st), mf_in)
    mf_w = np.where(combining, w * wfac, w)
    mf_u = ifile_bytes(mf_recs, mf_w, ovh, one)
    mf_d = on_disk_bytes(mf_u, ratio, one)

    # Disk files as the shuffle leaves them: in-memory merge outputs, or fetched segments.
    files = np.where(to_mem, n_inmem, m)
    file_d = np.where(to_mem, mf_d, seg_c)
    file_u = np.where(to_mem, mf_u, seg_u)
    file_r = np.where(to_mem, mf_recs, q)

    # ---- final merge: eviction to reduce.input.buffer.percent (reference §7)
    max_inmem_reduce = np.where(
        h1,
        np.minimum(batch.reduce_heap_bytes * batch.reduce_input_pct, INT_MAX),
        mem_limit * batch.reduce_input_pct,
    )
    mem_bytes = mem_left * seg_u
    evicted = np.where(
        mem_bytes > max_inmem_reduce,
        np.minimum(np.ceil((mem_bytes - max_inmem_reduce) / np.maximum(seg_u, 1.0)), mem_left),
        0.0,
    )
    # Eviction goes to one disk file when fewer than F files are on disk after the shuffle
    # merges; the plan below tells how many files remain.
    f = batch.sort_factor
    files_i = files.astype(np.int64)
    # Evicted segments stay in memory (first-pass segments of the final merge) iff F or more
    # files are on disk after the shuffle's merges (MergeManagerImpl.finalMerge); otherwise
    # they are merged to one disk file of their own.
    kept_i = np.where(shuffle_final_files(files_i, f) >= f, evicted.astype(np.int64), 0)
    sh_merges, sh_units, _, passes, ird, irm, iwd, iwm, fdd, fdm = reduce_disk_plan_arrays(
        files_i, f, kept_i
    )
    kept = kept_i
    ev_to_disk = (evicted > 0) & (kept == 0)
    ev_recs = evicted * q
    ev_u = ifile_bytes(ev_recs, w, ovh, one)
    ev_d = on_disk_bytes(ev_u, ratio, one)
    # fewer files than a merge needs: one final pass over all files (+ the evicted file)
    simple = (files_i < 2 * f - 1) & (files_i <= f)
    passes = np.where(simple, np.where(files + evicted > 0, 1.0, 0.0), passes)

    # ---- records
    in_records = n_inmem * mf_recs + mem_left * q + np.where(to_mem, 0.0, m * q)
    disk_recs_shuffle = sh_units * file_r
    disk_recs_final = (ird + fdd) * file_r + (irm + fdm) * q + np.where(ev_to_disk, ev_recs, 0.0)
    spilled = disk_recs_shuffle + disk_recs_final
    comb_in = np.where(combining, n_inmem * mf_in, 0.0)
    comb_out = np.where(combining, n_inmem * mf_recs, 0.0)

    # ---- bytes
    fetched = m * seg_c
    disk_fetch_bytes = np.where(to_mem, 0.0, fetched)
    inmem_written_d = n_inmem * mf_d
    inmem_written_u = n_inmem * mf_u
    sh_merge_d = sh_units * file_d
    sh_merge_u = sh_units * file_u
    interm_d = ird * file_d + irm * seg_c
    interm_wd = iwd * file_d + iwm * seg_c
    interm_wu = iwd * file_u + iwm * seg_u
    final_disk_bytes = fdd * file_d + fdm * seg_c + np.where(ev_to_disk, ev_d, 0.0)
    file_written = (
        disk_fetch_bytes
        + inmem_written_d
        + sh_merge_d
        + np.where(ev_to_disk, ev_d, 0.0)
        + interm_wd
    )
    file_read = sh_merge_d + interm_d + final_disk_bytes

    # ---- reduce function and output (§4.3, §4.4)
    red_in_bytes_u = in_records * np.where(combining, w * wfac, w)
    out_recs = in_records * st.reduce_pairs_sel
    out_bytes = red_in_bytes_u * st.reduce_size_sel
    out_ratio, out_comp, _ = codec_arrays(profile, batch.out_codec)
    hdfs_written = out_bytes * out_ratio

    # ---- costs (ns)
    shuffle_net = fetched * c.network
    shuffle_cpu = (
        np.where(to_mem, fetched * uncomp_ns, 0.0)
        + n_inmem * mf_in * c.merge_cpu
        + comb_in * c.combine_cpu
        + inmem_written_u * comp_ns
        + sh_units * file_r * c.merge_cpu
        + sh_merge_d * uncomp_ns
        + sh_merge_u * comp_ns
    )
    shuffle_io = (disk_fetch_bytes + inmem_written_d + sh_merge_d) * c.local_write + (
        sh_merge_d * c.local_read
    )
    merge_io = (
        np.where(ev_to_disk, ev_d, 0.0) * c.local_write
        + interm_d * c.local_read
        + (interm_wd * c.local_write)
    )
    interm_written_recs = iwd * file_r + iwm * q
    merge_cpu = (
        np.where(ev_to_disk, ev_recs * c.merge_cpu + ev_u * comp_ns, 0.0)
        + interm_written_recs * c.merge_cpu
        + interm_d * uncomp_ns
        + interm_wu * comp_ns
    )
    reduce_io = final_disk_bytes * c.local_read
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
