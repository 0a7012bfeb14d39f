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

from mrtune.costmodel._ifile import NS_PER_MS, at_least, filled, task_total_ms
from mrtune.costmodel._reduce_shuffle import (
    ReduceWork,
    combine_keys,
    final_merge_plan,
    inmem_merges,
    shuffle_memory,
)
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.codecs import codec_arrays, map_output_codec_arrays
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.stacked import (
    StackedProfiles,
    nonzero,
    reduce_side_codec_costs,
    reduce_side_costs,
)

F64 = NDArray[np.float64]


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
    profile: JobProfile | StackedProfiles,
    batch: ConfigBatch,
    num_maps: F64,
    seg_records: F64,
    seg_raw_records: F64,
    seg_width: F64,
    *,
    map_codecs: tuple[F64, F64, F64] | None = None,
    counters: bool = True,
    parts: F64 | None = None,
    sort_factor: F64 | None = None,
) -> ReduceTaskResult:
    """Model one reducer that fetches ``num_maps`` equal segments.

    ``seg_records`` records of ``seg_width`` serialized bytes per segment, standing for
    ``seg_raw_records`` raw map output records (for the combiner's distinct-keys law).
    ``map_codecs`` is :func:`~mrtune.costmodel.codecs.codec_arrays` of the batch's map-output codec,
    when the caller already has it, as are ``parts`` (``max(reducers, 1)``) and
    ``sort_factor`` (``max(io.sort.factor, 2)``), both float64 (the job model's
    :class:`~mrtune.costmodel.map_task.MapInputs` holds them). ``counters=False`` leaves out
    what only the counters read (those fields are ``None``): a search needs the task time only.

    Steps: the shuffle and the merges' plan in :mod:`mrtune.costmodel._reduce_shuffle`
    (:func:`shuffle_memory`: the limits and where each segment goes, :func:`inmem_merges`,
    :func:`final_merge_plan`), then here :func:`_reduce_dataflow`, :func:`_reduce_costs`,
    and :func:`_reduce_result` assembles them.
    """
    n = len(batch)
    m = np.asarray(num_maps, dtype=np.float64)
    if m.shape != (n,):
        m = np.broadcast_to(m, (n,))
    w = ReduceWork()
    w.m = m
    w.q = np.asarray(seg_records, dtype=np.float64)
    w.q_raw = np.asarray(seg_raw_records, dtype=np.float64)
    if parts is None:
        parts = at_least(batch.num_reducers.astype(np.float64), 1.0)
    w.parts = parts
    w.f = sort_factor
    w.w = np.asarray(seg_width, dtype=np.float64)
    if map_codecs is None:
        combining = batch.use_combiner & profile.has_combiner
        map_codecs = map_output_codec_arrays(profile, batch.map_codec, combining)
    w.ratio, comp_ns, uncomp_ns = map_codecs
    w.comp_ns, w.uncomp_ns = reduce_side_codec_costs(profile, batch.map_codec, comp_ns, uncomp_ns)
    shuffle_memory(w, profile, batch)
    inmem_merges(w, profile, batch)
    final_merge_plan(w, batch)
    _reduce_dataflow(w, profile, batch, counters)
    _reduce_costs(w, profile)
    return _reduce_result(w, profile, n, counters)


def _reduce_dataflow(
    w: ReduceWork, profile: JobProfile | StackedProfiles, batch: ConfigBatch, counters: bool
) -> None:
    """Records and bytes through the shuffle, the merges, reduce() and the write (§4.3,
    §4.4); the final merge's first pass reads no in-memory segment from disk."""
    m, q, file_d = w.m, w.q, w.file_d
    w.in_records = w.n_inmem * w.mf_recs + w.mem_left * q + m * q * w.not_mem_f
    if w.all_combining:  # x · 1.0 is x
        w.comb_in = w.n_inmem * w.mf_in
        w.comb_out = w.n_inmem * w.mf_recs if counters else None
    elif w.any_combining:
        comb_f = w.combining.astype(np.float64)
        w.comb_in = w.n_inmem * w.mf_in * comb_f
        w.comb_out = w.n_inmem * w.mf_recs * comb_f if counters else None
    else:
        w.comb_in = w.comb_out = None
    w.fetched = fetched = m * w.seg_c
    w.disk_fetch_bytes = fetched * w.not_mem_f
    w.inmem_written_d = w.n_inmem * w.mf_d
    w.sh_merge_d = w.sh_units * file_d
    w.interm_d = w.ird * file_d
    w.interm_wd = w.iwd * file_d + w.iwm * w.seg_c
    w.final_disk_bytes = w.fdd * file_d + w.fdm * w.seg_c + w.ev_d_disk
    _reduce_output(w, profile)
    out_ratio, w.out_comp, _ = codec_arrays(profile, batch.out_codec, uncompress=False)
    w.hdfs_written = w.out_bytes * out_ratio
    if counters:
        disk_recs_shuffle = w.sh_units * w.file_r
        disk_recs_final = (w.ird + w.fdd) * w.file_r + w.fdm * q + w.ev_recs * w.ev_f
        w.spilled = disk_recs_shuffle + disk_recs_final
        w.file_written = (
            w.disk_fetch_bytes + w.inmem_written_d + w.sh_merge_d + w.ev_d_disk + w.interm_wd
        )
        w.file_read = w.sh_merge_d + w.interm_d + w.final_disk_bytes


def _key_law_known(profile: JobProfile | StackedProfiles) -> bool | NDArray[np.bool_]:
    """Whether the profile's combiner key law has a calibration point (a Heaps point or a
    Zipf law): then it counts the job's distinct keys, not only a combine's."""
    st = profile.stats
    if isinstance(profile, StackedProfiles):
        n0, vocab = st.combine_profiled_input_records, st.key_vocabulary
        return profile.has_combiner & (~np.isnan(n0) | ~np.isnan(vocab))
    known = st.combine_profiled_input_records is not None or st.key_vocabulary is not None
    return bool(profile.has_combiner and known)


def _reduce_output(w: ReduceWork, profile: JobProfile | StackedProfiles) -> None:
    """Input groups, output records and output bytes of one reducer.

    Without a combiner these are the profile's reduce selectivities applied to the reduce
    input. With one, the input records depend on where the combiner ran, but the groups do
    not: they are the distinct keys of the partition's raw map output (the key law split R
    ways, :func:`~mrtune.costmodel.combiner.combined_records`), and reduce() runs once per
    group, so output records = groups × (REDUCE_OUTPUT_RECORDS / REDUCE_INPUT_GROUPS) and
    output bytes = output records × the profiled output record width: each selectivity is
    applied once, to a quantity that does not change with the combiner, the spills or R.
    """
    st = profile.stats
    in_recs = w.in_records
    law = _key_law_known(profile)
    if law is not True:  # the selectivities (every row of a job without a key law)
        groups = in_recs / st.reduce_pairs_per_group
        out_records = in_recs * st.reduce_pairs_sel
        out_bytes = in_recs * w.mf_w * st.reduce_size_sel
    if law is not False and bool(np.any(law)):
        raw = w.m * w.q_raw
        g_law = np.minimum(
            combine_keys(in_recs, raw, profile, w.parts) * st.key_groups_scale, in_recs
        )
        per_group = st.reduce_pairs_sel * st.reduce_pairs_per_group
        # REDUCE_OUTPUT_BYTES / REDUCE_OUTPUT_RECORDS of the profile: reduce_size_sel is the
        # output bytes over REDUCE_INPUT_RECORDS × the profiled combined width
        comb_w = st.map_output_pair_width * (st.combine_size_sel / st.combine_pairs_sel)
        w_out = np.divide(
            st.reduce_size_sel * comb_w,
            st.reduce_pairs_sel,
            out=np.zeros_like(np.asarray(st.reduce_pairs_sel * comb_w, dtype=np.float64)),
            where=np.asarray(st.reduce_pairs_sel) > 0,
        )
        if law is True:  # one job: np.where(True, a, b) is a
            groups = g_law
            out_records = groups * per_group
            out_bytes = out_records * w_out
        else:
            groups = np.where(law, g_law, groups)
            out_records = np.where(law, groups * per_group, out_records)
            out_bytes = np.where(law, out_records * w_out, out_bytes)
    w.groups, w.out_records, w.out_bytes = groups, out_records, out_bytes


def _reduce_costs(w: ReduceWork, profile: JobProfile | StackedProfiles) -> None:
    """The phases' network, CPU and I/O in ns (reference §4, §7), at the reduce-side cost
    factors (:func:`~mrtune.costmodel.stacked.reduce_side_costs`)."""
    c = reduce_side_costs(profile)
    m, comp_ns, uncomp_ns, file_r = w.m, w.comp_ns, w.uncomp_ns, w.file_r
    sh_merge_d = w.sh_merge_d
    w.shuffle_net = w.fetched * c.network
    if nonzero(c.fetch_ns):
        w.shuffle_net = w.shuffle_net + m * c.fetch_ns
    if nonzero(c.shuffle_floor_ms):
        # the shuffle's latency floor: Fetcher start-up and the EventFetcher's first poll
        # for map completions (ShuffleSchedulerImpl), once per reduce that fetches anything
        w.shuffle_net = w.shuffle_net + np.where(m > 0, c.shuffle_floor_ms * NS_PER_MS, 0.0)
    shuffle_cpu = w.fetched * uncomp_ns * w.to_mem_f
    shuffle_cpu += w.n_inmem * w.mf_in * c.merge_cpu
    if w.any_combining:
        shuffle_cpu += w.comb_in * c.combine_cpu
        if nonzero(c.combine_byte_cpu):
            # the in-memory merges' combiner reads segments of the maps' width
            shuffle_cpu += w.comb_in * w.w * c.combine_byte_cpu
    shuffle_cpu += w.n_inmem * w.mf_u * comp_ns
    shuffle_cpu += w.sh_units * file_r * c.merge_cpu
    shuffle_cpu += sh_merge_d * uncomp_ns
    shuffle_cpu += w.sh_units * w.file_u * comp_ns
    shuffle_io = (w.disk_fetch_bytes + w.inmem_written_d + sh_merge_d) * c.local_write + (
        sh_merge_d * c.local_read
    )
    merge_io = (
        w.ev_d_disk * c.local_write + w.interm_d * c.local_read + (w.interm_wd * c.local_write)
    )
    interm_written_recs = w.iwd * file_r + w.iwm * w.q
    interm_wu = w.iwd * w.file_u + w.iwm * w.seg_u
    merge_cpu = (w.ev_recs * c.merge_cpu + w.ev_u * comp_ns) * w.ev_f
    merge_cpu += interm_written_recs * c.merge_cpu
    merge_cpu += w.interm_d * uncomp_ns
    merge_cpu += interm_wu * comp_ns
    reduce_io = w.final_disk_bytes * c.local_read
    if nonzero(c.segment_seek_ns):
        # Segments opened: F per on-disk merge during the shuffle, up to F per intermediate
        # pass of the final merge, and the final pass's disk segments (at most F).
        f, files = w.f, w.files
        shuffle_io = shuffle_io + w.sh_merges * f * c.segment_seek_ns
        merge_io = merge_io + np.minimum((w.passes - 1.0).clip(0.0) * f, files) * c.segment_seek_ns
        reduce_io = reduce_io + np.minimum(files + w.ev_f, f) * c.segment_seek_ns
    # The final merge streams into reduce(): its CPU is charged here unless the profile's
    # reduce cost factor was calibrated on the merge-and-reduce loop (Starfish, reference §4.3).
    included = c.reduce_includes_final_merge
    if included is True:
        reduce_cpu = w.in_records * c.reduce_cpu
    elif included is False:
        reduce_cpu = w.in_records * (c.reduce_cpu + c.merge_cpu) + w.final_disk_bytes * uncomp_ns
    else:  # stacked jobs: each row as its own profile says
        reduce_cpu = np.where(
            included,
            w.in_records * c.reduce_cpu,
            w.in_records * (c.reduce_cpu + c.merge_cpu) + w.final_disk_bytes * uncomp_ns,
        )
    if nonzero(c.merge_floor_ms):
        # the merge (sort) phase's fixed time: finalMerge's new file, cold merge code
        merge_io = merge_io + np.where(m > 0, c.merge_floor_ms * NS_PER_MS, 0.0)
    w.write_io = w.hdfs_written * c.hdfs_write
    if nonzero(c.commit_ms):
        # Task.commit's canCommit poll and the output's close, once per reduce
        w.write_io = w.write_io + c.commit_ms * NS_PER_MS
    w.write_cpu = w.out_bytes * w.out_comp
    w.shuffle_io, w.shuffle_cpu, w.merge_io, w.merge_cpu = (
        shuffle_io,
        shuffle_cpu,
        merge_io,
        merge_cpu,
    )
    w.reduce_io, w.reduce_cpu = reduce_io, reduce_cpu


def _ms(x: F64) -> F64:
    return np.asarray(x, dtype=np.float64) / NS_PER_MS


def _reduce_result(
    w: ReduceWork, profile: JobProfile | StackedProfiles, n: int, counters: bool
) -> ReduceTaskResult:
    """The task's counters and phase times (ns → ms); counters left out are ``None``."""
    c = reduce_side_costs(profile)
    zero = filled(0.0, n)  # every part that is zero in all rows (read-only, shared)
    comb_in = w.comb_in if w.comb_in is not None else zero
    comb_out = w.comb_out if w.comb_out is not None else zero
    in_records = w.in_records
    res = ReduceTaskResult(
        shuffle_bytes=w.fetched,
        shuffled_maps=w.m.copy() if counters else w.m,
        fetches_to_memory=np.where(w.to_mem, w.m, 0.0) if counters else None,
        fetches_to_disk=np.where(w.to_mem, 0.0, w.m) if counters else None,
        inmem_merges=w.n_inmem,
        shuffle_disk_merges=w.sh_merges,
        evicted_segments=w.evicted,
        evicted_merged_to_disk=w.ev_to_disk.astype(np.float64) if counters else None,
        final_merge_passes=w.passes,
        input_records=in_records,
        input_groups=w.groups if counters else None,
        output_records=w.out_records if counters else None,
        output_bytes=w.out_bytes,
        hdfs_bytes_written=w.hdfs_written,
        spilled_records=w.spilled if counters else None,
        combine_input_records=comb_in,
        combine_output_records=comb_out if counters else None,
        file_bytes_written=w.file_written if counters else None,
        file_bytes_read=w.file_read if counters else None,
        memory_limit_bytes=w.mem_limit,
        single_shuffle_limit_bytes=w.single_limit,
        merge_threshold_bytes=w.merge_thr,
        phase_io_ms={
            "shuffle": _ms(w.shuffle_io),
            "merge": _ms(w.merge_io),
            "reduce": _ms(w.reduce_io),
            "write": _ms(w.write_io),
        },
        phase_cpu_ms={
            "shuffle": _ms(w.shuffle_cpu),
            "merge": _ms(w.merge_cpu),
            "reduce": _ms(w.reduce_cpu),
            "write": _ms(w.write_cpu),
        },
        phase_net_ms={"shuffle": _ms(w.shuffle_net), "merge": zero, "reduce": zero, "write": zero},
        fixed_ms=c.setup_ms + c.cleanup_ms + c.task_overhead_ms,
    )
    # task_total_ms without adding the network parts that are zero (x + 0.0 is x): the same
    # numbers as the task_ms property, with three passes fewer
    phases = {}
    for k, io in res.phase_io_ms.items():
        t = io + res.phase_cpu_ms[k]
        net = res.phase_net_ms[k]
        if net is not zero:
            t += net
        phases[k] = t
    res.__dict__["phase_ms"] = phases
    res.__dict__["task_ms"] = task_total_ms(res.fixed_ms, phases)
    return res
