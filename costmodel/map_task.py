"""The map task model (reference §2, §3, §8.1): Read, Map, Collect, Spill, Merge (, Write).

Vectorised over a :class:`~mrtune.costmodel.batch.ConfigBatch`: every quantity is an ndarray of shape
(n_configs,). Dataflow is exact where Hadoop is deterministic: the number of spills follows
MAPREDUCE-64's unified buffer in Hadoop 2/3 (``softLimit / (w + 16)`` records per spill) or the
record-percent buffer of Hadoop 1, the last spill holds the remainder, the merge follows
``Merger`` (:func:`mrtune.costmodel.merger.spill_merge_plan`), and the combiner runs in the final merge
iff the *total* number of spills reaches ``mapreduce.map.combine.minspills`` (Hadoop
``MapTask.mergeParts``; reference §2.4).

Costs are the reference's terms in ns (cost factors × bytes or records), divided by 1e6 for ms.
Phases are serial (the reference's no-overlap assumption).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.codecs import codec_arrays
from mrtune.costmodel.combiner import combined_records, combined_width_factor
from mrtune.costmodel.merger import _spill_plan_float
from mrtune.costmodel.profile import JobProfile

F64 = NDArray[np.float64]
MB = float(2**20)
NS_PER_MS = 1e6
#: IFile writes an EOF marker (two -1 vints) and a CRC32 checksum per partition segment.
IFILE_EOF_BYTES = 2.0
IFILE_CHECKSUM_BYTES = 4.0
#: ``SpillRecord``: 3 longs per partition in ``file.out.index`` plus its 8-byte checksum.
INDEX_BYTES_PER_PARTITION = 24.0
INDEX_CHECKSUM_BYTES = 8.0
#: Hadoop 2/3 ``MapOutputBuffer.METASIZE`` and Hadoop 1 ``RECSIZE``: 16 bytes per record.
METADATA_BYTES = 16.0


def records_per_spill(batch: ConfigBatch, pair_width: F64 | float) -> F64:
    """Records that fill the sort buffer to its spill threshold (one full spill).

    Hadoop 2/3 (MAPREDUCE-64, reference §8.1): ``B`` = io.sort.mb·2^20 rounded down to a
    multiple of 16; ``MapOutputBuffer.collect`` starts a spill at the first record for which the
    bytes in use (one 16-byte metadata slot of alignment, plus data and 16 bytes of metadata per
    record) reach ``S = (int)(B × spill%)``: ``ceil((S − 16) / (w + 16))`` records. This is the
    first spill exactly and, for fixed-size records, every later one to within a record (the
    equator's alignment can take one off); checked against 714 real map attempts. Hadoop 1 (reference §2.3): the first of the record-metadata and the
    data buffers to reach its soft limit. A record larger than the buffer is spilled alone.
    """
    mb_bytes = batch.io_sort_mb * MB
    buf = np.floor(mb_bytes / METADATA_BYTES) * METADATA_BYTES
    h2 = np.ceil(
        (np.floor(buf * batch.spill_percent) - METADATA_BYTES) / (pair_width + METADATA_BYTES)
    )
    if not batch.hadoop1.any():
        return np.maximum(h2, 1.0)
    rec_cap = np.floor(np.floor(mb_bytes * batch.record_percent) / METADATA_BYTES)
    soft_rec = np.floor(rec_cap * batch.spill_percent)
    soft_buf = np.floor((mb_bytes - rec_cap * METADATA_BYTES) * batch.spill_percent)
    h1 = np.minimum(soft_rec, np.floor(soft_buf / np.maximum(pair_width, 1e-9)))
    return np.maximum(np.where(batch.hadoop1, h1, h2), 1.0)


def _fma(x: F64 | float, y: F64 | float, z: F64 | float) -> F64:
    """``x * y + z`` with numpy's rounding, adding in place into the product's fresh buffer."""
    t = np.multiply(x, y)
    t += z
    return t


def _comparisons(recs: F64, parts: F64) -> F64:
    """DESIGN decision 3: ``n·log2(max(2, n/R))`` sort comparisons, as when profiling."""
    t = recs / parts
    np.maximum(t, 2.0, out=t)
    np.log2(t, out=t)
    t *= recs
    return t


def _cache_factor(working_set: F64, cache_bytes: float, slowdown: float) -> F64:
    """``1 + slowdown · log2(max(1, working set / cache))``: the cost of a comparison relative
    to one in cache. Measured on local WordCount: a 4.05 M-record spill (115 MB of data and
    metadata) took 605 ns per record against 411–430 ns for a 1.09 M one (30 MB), where
    n·log n alone gives +9%."""
    ratio = np.maximum(working_set / cache_bytes, 1.0)
    return 1.0 + slowdown * np.log2(ratio)


def ifile_bytes(records: F64, width: F64 | float, overhead: float, partitions: F64) -> F64:
    """Uncompressed IFile stream length: records with their vint lengths, plus EOF markers."""
    return records * (width + overhead) + IFILE_EOF_BYTES * partitions


def on_disk_bytes(uncompressed: F64, ratio: F64, partitions: F64) -> F64:
    """Bytes on disk (or shuffled) for IFile data: compressed stream plus one checksum per part."""
    return uncompressed * ratio + IFILE_CHECKSUM_BYTES * partitions


@dataclass
class MapTaskResult:
    """One map task of each configuration (all ndarrays of shape (n,)).

    Counter-like fields use Hadoop's counter meaning for one task; ``phase_io_ms`` and
    ``phase_cpu_ms`` split each phase's time into its I/O and CPU parts.
    """

    hdfs_bytes_read: F64
    input_records: F64
    output_records: F64
    output_bytes: F64
    spills: F64
    records_per_full_spill: F64
    records_in_last_spill: F64
    spilled_records: F64
    merge_passes: F64
    combine_input_records: F64
    combine_output_records: F64
    final_records: F64
    materialized_bytes: F64
    final_uncompressed_bytes: F64
    final_pair_width: F64
    file_bytes_written: F64
    file_bytes_read: F64
    hdfs_bytes_written: F64
    phase_io_ms: dict[str, F64] = field(default_factory=dict)
    phase_cpu_ms: dict[str, F64] = field(default_factory=dict)
    fixed_ms: F64 | float = 0.0
    last_spill_ms: F64 | float = 0.0
    """Time of the final spill (the one ``MapOutputBuffer.flush`` makes in the map thread)."""
    hidden_spill_ms: F64 | float = 0.0
    """Background spill time hidden behind the map function (``spill_overlap``); the
    ``spill`` phase is already net of it."""

    @cached_property
    def phase_ms(self) -> dict[str, F64]:
        return {k: self.phase_io_ms[k] + self.phase_cpu_ms[k] for k in self.phase_io_ms}

    @cached_property
    def task_ms(self) -> F64:
        return task_total_ms(self.fixed_ms, self.phase_ms)


def task_total_ms(fixed_ms: F64 | float, phase_ms: dict[str, F64]) -> F64:
    """``fixed_ms + sum(phase_ms.values())``: the same additions in the same order, in place."""
    parts = [np.asarray(v, dtype=np.float64) for v in phase_ms.values()]
    if len(parts) < 2 or any(p.ndim == 0 for p in parts):
        return np.asarray(fixed_ms + sum(parts), dtype=np.float64)
    total = parts[0] + parts[1]
    for p in parts[2:]:
        total += p
    total += fixed_ms
    return total


@dataclass
class MapInputs:
    """Per-configuration quantities a map task needs that do not depend on its split.

    :func:`predict_job` models two map tasks (full and tail splits) per configuration; building
    these once serves both. Flags record which rows need the branches most searches never
    exercise (map-only rows, zero-spill rows), so those branches are skipped when no row needs
    them: every skipped ``np.where`` would have returned its other operand unchanged.
    """

    map_only: NDArray[np.bool_]
    any_map_only: bool
    parts: F64
    eof_parts: F64
    chk_parts: F64
    index_bytes: F64
    width: float
    per_spill: F64
    combining: NDArray[np.bool_]
    any_combining: bool
    combining_f: F64
    w_spill: F64
    w_rec: F64
    ratio: F64
    comp_ns: F64
    uncomp_ns: F64
    sort_factor: F64
    log_sort_factor: F64
    combine_min_spills: F64

    @classmethod
    def build(cls, profile: JobProfile, batch: ConfigBatch) -> MapInputs:
        st = profile.stats
        map_only = batch.num_reducers == 0
        any_map_only = bool(map_only.any())
        parts = np.maximum(batch.num_reducers.astype(np.float64), 1.0)
        width = st.map_output_pair_width
        combining = batch.use_combiner & profile.has_combiner
        if any_map_only:
            combining = combining & ~map_only
        any_combining = bool(combining.any())
        wfac = combined_width_factor(st) if profile.has_combiner else 1.0
        w_spill = np.where(combining, width * wfac, width)
        ratio, comp_ns, uncomp_ns = codec_arrays(profile, batch.map_codec)
        index_bytes = INDEX_BYTES_PER_PARTITION * parts + INDEX_CHECKSUM_BYTES
        if any_map_only:
            index_bytes = np.where(map_only, 0.0, index_bytes)
        # io.sort.factor >= 2 (HadoopConfig); a merge cannot progress with fewer
        sort_factor = np.maximum(batch.sort_factor.astype(np.float64), 2.0)
        return cls(
            map_only=map_only,
            any_map_only=any_map_only,
            parts=parts,
            eof_parts=IFILE_EOF_BYTES * parts,
            chk_parts=IFILE_CHECKSUM_BYTES * parts,
            index_bytes=index_bytes,
            width=width,
            per_spill=records_per_spill(batch, width),
            combining=combining,
            any_combining=any_combining,
            combining_f=combining.astype(np.float64),
            w_spill=w_spill,
            w_rec=w_spill + st.ifile_record_overhead,
            ratio=ratio,
            comp_ns=comp_ns,
            uncomp_ns=uncomp_ns,
            sort_factor=sort_factor,
            log_sort_factor=np.log(sort_factor),
            combine_min_spills=batch.combine_min_spills.astype(np.float64),
        )


def overlap_coefficients(
    n_full: F64, r_full: F64, r_last: F64, out_recs: F64, spill_percent: F64
) -> tuple[F64, F64, F64, F64]:
    """Cost-independent coefficients of :func:`hidden_spill_ns`: the numbers of middle and
    last background spills, and the headroom records (during a middle spill, and during the
    last one) as shares of the map's output records."""
    p = np.asarray(spill_percent, dtype=np.float64)
    head = r_full * (1.0 - p) / p
    inv = np.divide(1.0, out_recs, out=np.zeros_like(out_recs), where=out_recs > 0)
    mid = np.maximum(n_full - 1.0, 0.0)
    end = (n_full >= 1.0).astype(np.float64)
    return mid, end, head * inv, np.minimum(head, r_last) * inv


def blocked_ns(s_full: F64, overlap_work: F64, contention: float | F64) -> F64:
    """How long the map thread waits for one background spill of ``s_full`` (its time alone)
    while it has ``overlap_work`` of collecting to do in the buffer's headroom.

    The two threads share the machine: while both run, the spill is slowed by ``contention``
    × the time they overlap, ``min(s_full, overlap_work)`` (0: a free core, full speed;
    1: no gain, as if serial; above 1, running both at once is slower than one after the
    other). The map thread waits for what is left after its own work.
    """
    overlap = np.minimum(s_full, overlap_work)
    return np.maximum(s_full + contention * overlap - overlap_work, 0.0)


def hidden_spill_ns(
    work: F64,
    spill_ns: F64,
    last_ns: F64,
    n_full: F64,
    r_full: F64,
    r_last: F64,
    out_recs: F64,
    spill_percent: F64,
    contention: float | F64 = 0.0,
) -> F64:
    """Spill time hidden behind the map function when the spill thread has a core.

    ``MapOutputBuffer``: a spill starts when the buffer reaches its soft limit (``k`` =
    records per full spill); the ``SpillThread`` sorts and writes it while the map thread
    collects into the free rest of the buffer, ``(1 − spill%)/spill% · k`` records of
    headroom, and blocks (``collect`` waits on ``spillDone``) once that is full. The final
    spill is made by the map thread in ``flush``, after waiting for the one in progress.
    With map-thread work ``m`` per output record and a full spill taking ``S``, each middle
    background spill blocks the map thread ``max(0, S − headroom·m)``, and the last one
    ``max(0, S − min(headroom, r_last)·m)`` (the flush waits for it); the rest of the
    ``n_full·S`` background time is hidden (negative: added, with ``contention`` above 1). ``contention`` (:func:`blocked_ns`) takes back
    that share of the overlap. Reference §2.3 (and Starfish) treat the phases as serial,
    which is right when every core runs a task (``contention`` = 1 gives the same). Measured
    on WordCount in local mode: a 2.1 s spill of 2.97 M records blocked the map thread
    1.86 s, leaving 0.24 s (0.74 M records of headroom) hidden.
    """
    mid, end, head_share, last_share = overlap_coefficients(
        n_full, r_full, r_last, out_recs, spill_percent
    )
    s_full = np.divide(spill_ns - last_ns, n_full, out=np.zeros_like(work), where=n_full > 0)
    blocked = mid * blocked_ns(s_full, head_share * work, contention) + end * blocked_ns(
        s_full, last_share * work, contention
    )
    return n_full * s_full - blocked


def map_task(
    profile: JobProfile,
    batch: ConfigBatch,
    split_bytes: F64,
    *,
    inputs: MapInputs | None = None,
    input_records: F64 | None = None,
    spill_overlap: bool = False,
) -> MapTaskResult:
    """Model one map task reading ``split_bytes`` (as stored) under each configuration.

    ``inputs`` (from :meth:`MapInputs.build` on the same profile and batch) saves rebuilding
    the split-independent quantities when several map tasks of one batch are modelled.
    ``input_records`` overrides ``rint(bytes / pair width)``: the job model gives a file's tail
    split the records its full splits leave, so a file's records add up exactly.

    ``spill_overlap``: the spill thread runs on a core of its own (see
    :func:`hidden_spill_ns`); the ``spill`` phase is then reported net of the spill time the
    map function hid (both its I/O and CPU parts, pro rata), less the share
    ``costs.spill_contention`` of the overlap that the two threads lose to each other.
    """
    st, c = profile.stats, profile.costs
    n = len(batch)
    mi = inputs if inputs is not None else MapInputs.build(profile, batch)
    split_bytes = np.asarray(split_bytes, dtype=np.float64)
    if split_bytes.shape != (n,):
        split_bytes = np.broadcast_to(split_bytes, (n,))
    map_only, parts = mi.map_only, mi.parts
    combining, w_spill = mi.combining, mi.w_spill
    ratio, comp_ns, uncomp_ns = mi.ratio, mi.comp_ns, mi.uncomp_ns

    # ---- Read (reference §2.1)
    if profile.input_compressed:
        in_bytes = split_bytes / st.input_compress_ratio
        read_cpu = split_bytes * c.input_uncompress
    else:
        in_bytes = split_bytes  # ÷ 1.0
        read_cpu = None  # no decompression: zero
    if input_records is None:
        in_recs = np.rint(in_bytes / st.input_pair_width)
    else:
        in_recs = np.asarray(input_records, dtype=np.float64)
    read_io = split_bytes * c.hdfs_read

    # ---- Map (§2.2)
    out_recs = np.rint(in_recs * st.map_pairs_sel)
    out_bytes = out_recs * mi.width
    map_cpu = in_recs * c.map_cpu

    # ---- Map-only write (§2.2)
    if mi.any_map_only:
        out_ratio, out_comp, _ = codec_arrays(profile, batch.out_codec)
        hdfs_written_maponly = out_bytes * out_ratio
        write_io = np.where(map_only, hdfs_written_maponly * c.hdfs_write, 0.0)
        write_cpu = np.where(map_only, out_bytes * out_comp, 0.0)
        hdfs_written = np.where(map_only, hdfs_written_maponly, 0.0)
    else:
        write_io = write_cpu = None  # no map-only configuration: zero
        hdfs_written = np.zeros(n)

    # ---- Collect and Spill (§2.3, §8.1)
    per_spill = mi.per_spill
    no_spill = out_recs <= 0
    if mi.any_map_only:
        no_spill |= map_only
    any_no_spill = bool(no_spill.any())
    spills = np.ceil(out_recs / per_spill)
    if any_no_spill:
        spills = np.where(no_spill, 0.0, spills)
    r_full = np.minimum(per_spill, out_recs)
    r_last = out_recs - (spills - 1) * per_spill
    if any_no_spill:
        r_last = np.where(spills > 0, r_last, 0.0)
    if mi.any_combining:
        c_full = np.where(combining, combined_records(r_full, r_full, st), r_full)
        c_last = np.where(combining, combined_records(r_last, r_last, st), r_last)
    else:
        c_full, c_last = r_full, r_last
    w_rec, eof_parts, chk_parts = mi.w_rec, mi.eof_parts, mi.chk_parts
    # ifile_bytes and on_disk_bytes, with their per-configuration terms computed once
    u_full = _fma(c_full, w_rec, eof_parts)
    u_last = _fma(c_last, w_rec, eof_parts)
    d_full = _fma(u_full, ratio, chk_parts)
    d_last = _fma(u_last, ratio, chk_parts)
    n_full = np.maximum(spills - 1, 0.0)
    spill_recs_written = _fma(n_full, c_full, c_last)
    spill_bytes_written = _fma(n_full, d_full, d_last)
    spill_u_written = _fma(n_full, u_full, u_last)
    cmp_last = _comparisons(r_last, parts)
    cmp_full = _comparisons(r_full, parts)
    if c.sort_cache_slowdown:
        # a spill whose records and metadata outgrow the caches compares more slowly
        row = mi.width + METADATA_BYTES
        cmp_full = cmp_full * _cache_factor(
            r_full * row, c.sort_cache_bytes, c.sort_cache_slowdown
        )
        cmp_last = cmp_last * _cache_factor(
            r_last * row, c.sort_cache_bytes, c.sort_cache_slowdown
        )
    sorted_cmp = _fma(n_full, cmp_full, cmp_last)
    if any_no_spill:
        spill_recs_written = np.where(spills > 0, spill_recs_written, 0.0)
        spill_bytes_written = np.where(spills > 0, spill_bytes_written, 0.0)
        spill_u_written = np.where(spills > 0, spill_u_written, 0.0)
        sorted_cmp = np.where(spills > 0, sorted_cmp, 0.0)
    collect_cpu = out_recs * (c.partition_cpu + c.serde_cpu)
    if mi.any_map_only:
        collect_cpu = np.where(map_only, 0.0, collect_cpu)
    spill_cpu = sorted_cmp * c.sort_cpu
    if mi.any_combining:
        spill_cpu += out_recs * c.combine_cpu * mi.combining_f  # where(combining, ·, 0)
    spill_cpu += spill_u_written * comp_ns
    spill_io = spill_bytes_written * c.local_write
    if c.spill_file_ns:
        spill_io = spill_io + spills * c.spill_file_ns
    # the final spill alone (made by the map thread in flush): sort, combine, compress, write
    last_ns = cmp_last * c.sort_cpu + d_last * c.local_write + c.spill_file_ns
    if mi.any_combining:
        last_ns += r_last * c.combine_cpu * mi.combining_f
    last_ns += u_last * comp_ns
    if any_no_spill:
        last_ns = np.where(spills > 0, last_ns, 0.0)
    hidden_ns: F64 | float = 0.0
    if spill_overlap:
        work = read_io + map_cpu + collect_cpu
        if read_cpu is not None:
            work = work + read_cpu
        spill_ns = spill_cpu + spill_io
        hidden_ns = hidden_spill_ns(
            work,
            spill_ns,
            last_ns,
            n_full,
            r_full,
            r_last,
            out_recs,
            batch.spill_percent,
            c.spill_contention,
        )
        keep = 1.0 - np.divide(hidden_ns, spill_ns, out=np.zeros(n), where=spill_ns > 0)
        spill_cpu = spill_cpu * keep
        spill_io = spill_io * keep

    # ---- Merge (§2.4, §3)
    passes, a, b = _spill_plan_float(spills, mi.sort_factor, mi.log_sort_factor)
    merging = spills > 1
    merging_f = merging.astype(np.float64)
    inter_bytes = _fma(a, d_full, b * d_last)
    inter_u = _fma(a, u_full, b * u_last)
    inter_recs = _fma(a, c_full, b * c_last)  # 0 without merging (a = b = 0)
    final_in_recs = spill_recs_written
    final_in_bytes = spill_bytes_written
    if mi.any_combining:
        comb_merge = combining & merging & (spills >= mi.combine_min_spills)
        comb_merge_f = comb_merge.astype(np.float64)
        final_recs = np.where(
            comb_merge, combined_records(final_in_recs, out_recs, st), final_in_recs
        )
    else:
        final_recs = final_in_recs
    # With one spill the final output is that spill (rename): the IFile formulas below give its
    # bytes exactly; only zero-spill rows need the explicit zeros.
    final_u = _fma(final_recs, w_rec, eof_parts)
    final_d = _fma(final_u, ratio, chk_parts)
    if any_no_spill:
        final_u = np.where(merging, final_u, spill_u_written)
        final_d = np.where(merging, final_d, spill_bytes_written)
    # np.where(merging, x, 0.0) as x · merging for the finite, non-negative x below
    merge_read = (inter_bytes + final_in_bytes) * merging_f
    merge_written = (inter_bytes + final_d) * merging_f
    merge_written_u = (inter_u + final_u) * merging_f
    merged_recs = (inter_recs + final_in_recs) * merging_f
    merge_io = _fma(merge_read, c.local_read, merge_written * c.local_write)
    if c.segment_seek_ns:
        # Each pass reads one segment per partition from each of its inputs: N spills, plus the
        # runs the intermediate passes wrote (passes - 1 of them).
        merge_io = merge_io + (spills + passes - 1.0) * parts * c.segment_seek_ns * merging_f
    merge_cpu = merged_recs * c.merge_cpu
    if mi.any_combining:
        merge_cpu += final_in_recs * c.combine_cpu * comb_merge_f
    merge_cpu += merge_read * uncomp_ns
    merge_cpu += merge_written_u * comp_ns
    spilled = spill_recs_written + inter_recs + final_recs * merging_f
    if mi.any_combining:
        comb_in = out_recs * mi.combining_f + final_in_recs * comb_merge_f
        comb_out = spill_recs_written * mi.combining_f + final_recs * comb_merge_f
    else:
        comb_in = np.zeros(n)
        comb_out = np.zeros(n)
    file_written = spill_bytes_written + merge_written + mi.index_bytes

    phase_io = {
        "read": read_io / NS_PER_MS,
        "map": np.zeros(n),
        "collect": np.zeros(n),
        "spill": spill_io / NS_PER_MS,
        "merge": merge_io / NS_PER_MS,
        "write": _ms(write_io, n),
    }
    phase_cpu = {
        "read": _ms(read_cpu, n),
        "map": map_cpu / NS_PER_MS,
        "collect": collect_cpu / NS_PER_MS,
        "spill": spill_cpu / NS_PER_MS,
        "merge": merge_cpu / NS_PER_MS,
        "write": _ms(write_cpu, n),
    }
    records_full = r_full
    if any_no_spill:
        records_full = np.where(spills > 0, r_full, 0.0)
    result = MapTaskResult(
        hdfs_bytes_read=split_bytes.astype(np.float64),
        input_records=in_recs,
        output_records=out_recs,
        output_bytes=out_bytes,
        spills=spills,
        records_per_full_spill=records_full,
        records_in_last_spill=r_last,
        spilled_records=spilled,
        merge_passes=passes,
        combine_input_records=comb_in,
        combine_output_records=comb_out,
        final_records=final_recs,
        materialized_bytes=final_d,
        final_uncompressed_bytes=final_u,
        final_pair_width=w_spill.copy(),  # MapInputs is shared by the full and tail tasks
        file_bytes_written=file_written,
        file_bytes_read=merge_read,
        hdfs_bytes_written=hdfs_written,
        phase_io_ms=phase_io,
        phase_cpu_ms=phase_cpu,
        fixed_ms=c.setup_ms + c.cleanup_ms + c.task_overhead_ms,
        last_spill_ms=last_ns / NS_PER_MS,
        hidden_spill_ms=hidden_ns / NS_PER_MS if spill_overlap else 0.0,
    )
    if mi.any_map_only:
        _zero_map_only_rows(result, map_only, out_recs)
    return result


def _ms(ns: F64 | None, n: int) -> F64:
    """ns → ms; ``None`` stands for a phase part that is zero in every configuration."""
    return np.zeros(n) if ns is None else ns / NS_PER_MS


def _zero_map_only_rows(res: MapTaskResult, map_only: NDArray[np.bool_], out_recs: F64) -> None:
    """A map-only task has no spill, merge or local output (its records go to HDFS)."""
    for name in (
        "spilled_records",
        "merge_passes",
        "materialized_bytes",
        "final_uncompressed_bytes",
        "file_bytes_written",
        "file_bytes_read",
    ):
        setattr(res, name, np.where(map_only, 0.0, getattr(res, name)))
    res.final_records = np.where(map_only, out_recs, res.final_records)
    for phase in ("spill", "merge"):
        res.phase_io_ms[phase] = np.where(map_only, 0.0, res.phase_io_ms[phase])
        res.phase_cpu_ms[phase] = np.where(map_only, 0.0, res.phase_cpu_ms[phase])
