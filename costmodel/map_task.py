"""The map task model (reference §2, §3, §8.1): Read, Map, Collect, Spill, Merge (, Write).

Vectorised over a :class:`~mrtune.costmodel.batch.ConfigBatch`: every quantity is an ndarray of shape
(n_configs,). Dataflow is exact where Hadoop is deterministic: the number of spills follows
MAPREDUCE-64's unified buffer in Hadoop 2/3 (``softLimit / (w + 16)`` records per spill) or the
record-percent buffer of Hadoop 1, the last spill holds the remainder, the merge follows
``Merger`` (:func:`mrtune.costmodel.merger.spill_merge_plan`), and the combiner runs in the final merge
iff the *total* number of spills reaches ``mapreduce.map.combine.minspills`` (Hadoop
``MapTask.mergeParts``; reference §2.4).

Costs are the reference's terms in ns (cost factors × bytes or records), divided by 1e6 for ms.
Phases are serial (the reference's no-overlap assumption), except the spills made by Hadoop's
``SpillThread`` while the map runs (``spill_overlap``): the time the map thread waits for
them is booked as collect, where ``MapOutputBuffer.collect`` blocks.

Cluster-scale terms (issue 20): a fixed read time per task (``read_fixed_ms``), the split's
non-local blocks read over the network (``remote_bytes``), spills priced by their own disk
factor (``spill_write``) and the merge's heap comparisons (``merge_cmp_cpu``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.codecs import codec_arrays, map_output_codec_arrays
from mrtune.costmodel.combiner import combined_pair_width, combined_records, combined_width_factor
from mrtune.costmodel.merger import _spill_plan_float
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.stacked import StackedProfiles, nonzero, stacked_combined_records, where

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
    width: float | F64
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
    def build(cls, profile: JobProfile | StackedProfiles, batch: ConfigBatch) -> MapInputs:
        st = profile.stats
        map_only = batch.num_reducers == 0
        any_map_only = bool(map_only.any())
        parts = np.maximum(batch.num_reducers.astype(np.float64), 1.0)
        width = st.map_output_pair_width
        combining = batch.use_combiner & profile.has_combiner
        if any_map_only:
            combining = combining & ~map_only
        any_combining = bool(combining.any())
        wfac = where(profile.has_combiner, combined_width_factor(st), 1.0)
        w_spill = np.where(combining, width * wfac, width)
        # with the combiner switched off the codec sees the emitted records (codecs.py)
        ratio, comp_ns, uncomp_ns = map_output_codec_arrays(profile, batch.map_codec, combining)
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
    hidden = n_full * s_full - blocked
    # With contention ≤ 1 the map thread never waits longer than the spills took, so a
    # negative here is only the rounding of n_full·S − (mid + end)·S (mid + end = n_full, e.g.
    # −4.8e-13 ns): it is 0. Above 1 a negative is real (the overlap is slower than serial).
    return np.where(np.asarray(contention) <= 1.0, np.maximum(hidden, 0.0), hidden)


def map_task(
    profile: JobProfile | StackedProfiles,
    batch: ConfigBatch,
    split_bytes: F64,
    *,
    inputs: MapInputs | None = None,
    input_records: F64 | None = None,
    spill_overlap: bool = False,
    counters: bool = True,
    remote_bytes: F64 | float = 0.0,
    local_mode: bool = True,
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

    ``remote_bytes``: bytes of the split read from another node's DataNode (its blocks with
    no local replica, :meth:`~mrtune.costmodel.cluster.ClusterSpec.remote_read_bytes`), priced
    at ``costs.network`` on top of the HDFS read. ``local_mode=False`` (a cluster) leaves out
    ``spill_contention`` and ``sort_cache_slowdown`` unless ``costs.shapes_on_cluster`` says
    a cluster measured them: they were measured on LocalJobRunner only.

    ``counters=False`` leaves out what only the counters read (spilled and combined records,
    local bytes written and read, the per-spill record count): those fields are ``None``.
    A search needs the task time only (:func:`~mrtune.costmodel.job.evaluate`).

    The steps follow the task's phases: :func:`_read_map`, :func:`_spill_dataflow`,
    :func:`_spill_costs`, :func:`_merge`, and :func:`_map_result` assembles them.
    """
    n = len(batch)
    mi = inputs if inputs is not None else MapInputs.build(profile, batch)
    split_bytes = np.asarray(split_bytes, dtype=np.float64)
    if split_bytes.shape != (n,):
        split_bytes = np.broadcast_to(split_bytes, (n,))
    w = _MapWork(split_bytes)
    w.remote_bytes = remote_bytes
    c = profile.costs
    if local_mode:
        w.contention, w.slowdown = c.spill_contention, c.sort_cache_slowdown
    else:
        w.contention = where(c.shapes_on_cluster, c.spill_contention, 0.0)
        w.slowdown = where(c.shapes_on_cluster, c.sort_cache_slowdown, 0.0)
    _read_map(w, profile, batch, mi, input_records)
    _spill_dataflow(w, profile, mi)
    _spill_costs(w, profile, batch, mi, spill_overlap)
    _merge(w, profile, mi, counters)
    result = _map_result(w, profile, mi, n, spill_overlap, counters)
    if mi.any_map_only:
        _zero_map_only_rows(result, mi.map_only, w.out_recs)
    return result


class _MapWork:
    """The arrays one map task's steps hand each other (one attribute per quantity)."""

    def __init__(self, split_bytes: F64) -> None:
        self.split_bytes = split_bytes


def _read_map(
    w: _MapWork,
    profile: JobProfile | StackedProfiles,
    batch: ConfigBatch,
    mi: MapInputs,
    input_records: F64 | None,
) -> None:
    """Read (reference §2.1), Map (§2.2) and the map-only job's HDFS write (§2.2)."""
    st, c = profile.stats, profile.costs
    split_bytes = w.split_bytes
    comp = profile.input_compressed
    if not nonzero(comp):
        in_bytes = split_bytes  # ÷ 1.0
        read_cpu = None  # no decompression: zero
    elif comp is True:
        in_bytes = split_bytes / st.input_compress_ratio
        read_cpu = split_bytes * c.input_uncompress
    else:  # stacked jobs, some compressed: ÷ 1.0 and + 0.0 for the others
        in_bytes = split_bytes / np.where(comp, st.input_compress_ratio, 1.0)
        read_cpu = split_bytes * np.where(comp, c.input_uncompress, 0.0)
    if input_records is None:
        w.in_recs = np.rint(in_bytes / st.input_pair_width)
    else:
        w.in_recs = np.asarray(input_records, dtype=np.float64)
    w.read_cpu = read_cpu
    w.read_io = split_bytes * c.hdfs_read
    if nonzero(w.remote_bytes):
        # non-local blocks cross the network from a remote DataNode (issue 20, locality)
        w.read_io = w.read_io + np.asarray(w.remote_bytes) * c.network
    if nonzero(c.read_fixed_ms):
        # the read intercept: RecordReader.initialize (block locations, first connection)
        w.read_io = w.read_io + np.where(split_bytes > 0, c.read_fixed_ms * NS_PER_MS, 0.0)
    # A map emits whole records, and a share p of n records is floor(n·p) of them (the
    # selectivity job's mapper emits the first floor(n·p/100) records of its split: 134,217 of
    # 167,772 at 80%, where rint gave 134,218 in every map of 46 of the generic benchmark's
    # runs); the epsilon keeps an integral n·p computed in floating point (12.0 words a line)
    w.out_recs = np.floor(w.in_recs * st.map_pairs_sel + WHOLE_RECORD_EPS)
    w.out_bytes = w.out_recs * mi.width
    w.map_cpu = w.in_recs * c.map_cpu
    if mi.any_map_only:
        map_only = mi.map_only
        out_ratio, out_comp, _ = codec_arrays(profile, batch.out_codec)
        hdfs_written_maponly = w.out_bytes * out_ratio
        w.write_io = np.where(map_only, hdfs_written_maponly * c.hdfs_write, 0.0)
        w.write_cpu = np.where(map_only, w.out_bytes * out_comp, 0.0)
        w.hdfs_written = np.where(map_only, hdfs_written_maponly, 0.0)
    else:
        w.write_io = w.write_cpu = None  # no map-only configuration: zero
        w.hdfs_written = None


#: Floating-point slack when flooring a record count that is integral in exact arithmetic.
WHOLE_RECORD_EPS = 1e-6


def _combine(n_in: F64, n_raw: F64, profile: JobProfile | StackedProfiles) -> F64:
    """Distinct keys of a combine over a whole spill or map output (all partitions: each
    key lands in one of them, so their sum is the distinct keys of the whole)."""
    if isinstance(profile, StackedProfiles):
        return stacked_combined_records(n_in, n_raw, profile)
    return combined_records(n_in, n_raw, profile.stats)


def _comb_width(
    n_raw: F64, n_out: F64, profile: JobProfile | StackedProfiles, mi: MapInputs
) -> F64:
    """Width of the records a combine of ``n_raw`` raw records into ``n_out`` writes."""
    return combined_pair_width(n_raw, n_out, mi.width, profile.stats)


def _spill_dataflow(w: _MapWork, profile: JobProfile | StackedProfiles, mi: MapInputs) -> None:
    """Collect and Spill's dataflow (§2.3, §8.1): spills, records and IFile bytes of the full
    spills and of the last one, and the sort comparisons."""
    c = profile.costs
    out_recs, per_spill = w.out_recs, mi.per_spill
    no_spill = out_recs <= 0
    if mi.any_map_only:
        no_spill |= mi.map_only
    w.any_no_spill = any_no_spill = bool(no_spill.any())
    spills = np.ceil(out_recs / per_spill)
    if any_no_spill:
        spills = np.where(no_spill, 0.0, spills)
    r_full = np.minimum(per_spill, out_recs)
    r_last = out_recs - (spills - 1) * per_spill
    if any_no_spill:
        r_last = np.where(spills > 0, r_last, 0.0)
    if mi.any_combining:
        c_full = np.where(mi.combining, _combine(r_full, r_full, profile), r_full)
        c_last = np.where(mi.combining, _combine(r_last, r_last, profile), r_last)
    else:
        c_full, c_last = r_full, r_last
    w_rec, eof_parts, chk_parts, ratio = mi.w_rec, mi.eof_parts, mi.chk_parts, mi.ratio
    wr_full = wr_last = w_rec
    if mi.any_combining:
        # a combined record's width follows how many raw records it merged (its merge factor)
        ovh = profile.stats.ifile_record_overhead
        wr_full = np.where(mi.combining, _comb_width(r_full, c_full, profile, mi) + ovh, w_rec)
        wr_last = np.where(mi.combining, _comb_width(r_last, c_last, profile, mi) + ovh, w_rec)
    # ifile_bytes and on_disk_bytes, with their per-configuration terms computed once
    w.u_full = u_full = _fma(c_full, wr_full, eof_parts)
    w.u_last = u_last = _fma(c_last, wr_last, eof_parts)
    w.d_full = d_full = _fma(u_full, ratio, chk_parts)
    w.d_last = d_last = _fma(u_last, ratio, chk_parts)
    w.n_full = n_full = np.maximum(spills - 1, 0.0)
    spill_recs_written = _fma(n_full, c_full, c_last)
    spill_bytes_written = _fma(n_full, d_full, d_last)
    spill_u_written = _fma(n_full, u_full, u_last)
    cmp_last = _comparisons(r_last, mi.parts)
    cmp_full = _comparisons(r_full, mi.parts)
    if nonzero(w.slowdown):
        # a spill whose records and metadata outgrow the caches compares more slowly
        row = mi.width + METADATA_BYTES
        cmp_full = cmp_full * _cache_factor(r_full * row, c.sort_cache_bytes, w.slowdown)
        cmp_last = cmp_last * _cache_factor(r_last * row, c.sort_cache_bytes, w.slowdown)
    sorted_cmp = _fma(n_full, cmp_full, cmp_last)
    if any_no_spill:
        spill_recs_written = np.where(spills > 0, spill_recs_written, 0.0)
        spill_bytes_written = np.where(spills > 0, spill_bytes_written, 0.0)
        spill_u_written = np.where(spills > 0, spill_u_written, 0.0)
        sorted_cmp = np.where(spills > 0, sorted_cmp, 0.0)
    w.spills, w.r_full, w.r_last, w.c_full, w.c_last = spills, r_full, r_last, c_full, c_last
    w.spill_recs_written, w.spill_bytes_written = spill_recs_written, spill_bytes_written
    w.spill_u_written, w.cmp_last, w.sorted_cmp = spill_u_written, cmp_last, sorted_cmp


def _spill_costs(
    w: _MapWork,
    profile: JobProfile | StackedProfiles,
    batch: ConfigBatch,
    mi: MapInputs,
    spill_overlap: bool,
) -> None:
    """Collect and Spill's costs (§2.3): CPU and I/O of all spills, the final spill alone,
    and (``spill_overlap``) the background spills' overlap with the map thread.

    With ``spill_overlap`` (Hadoop's ``SpillThread``, on every cluster type) the ``spill``
    phase is the final spill (made by the map thread in ``flush``) and the time the map
    thread waited on a running spill, because the buffer's headroom filled, is booked as
    ``collect``: ``MapOutputBuffer.collect`` blocks on ``spillDone`` there, and a task log's
    or a phase table's collect holds it (issue 20: 3.3 s of collect on Ceesay et al.'s
    cluster). The rest of the background spills is hidden behind the map function.
    """
    c = profile.costs
    out_recs, spills = w.out_recs, w.spills
    collect_cpu = out_recs * (c.partition_cpu + c.serde_cpu)
    if mi.any_map_only:
        collect_cpu = np.where(mi.map_only, 0.0, collect_cpu)
    spill_cpu = w.sorted_cmp * c.sort_cpu
    if mi.any_combining:
        spill_cpu += out_recs * c.combine_cpu * mi.combining_f  # where(combining, ·, 0)
    spill_cpu += w.spill_u_written * mi.comp_ns
    spill_io = w.spill_bytes_written * c.spill_write
    if nonzero(c.spill_file_ns):
        spill_io = spill_io + spills * c.spill_file_ns
    # the final spill alone (made by the map thread in flush): sort, combine, compress, write
    last_io = w.d_last * c.spill_write + c.spill_file_ns
    last_cpu = w.cmp_last * c.sort_cpu
    if mi.any_combining:
        last_cpu += w.r_last * c.combine_cpu * mi.combining_f
    last_cpu += w.u_last * mi.comp_ns
    if w.any_no_spill:
        last_io = np.where(spills > 0, last_io, 0.0)
        last_cpu = np.where(spills > 0, last_cpu, 0.0)
    last_ns = last_cpu + last_io
    hidden_ns: F64 | float = 0.0
    collect_io: F64 | None = None
    if spill_overlap:
        work = w.read_io + w.map_cpu + collect_cpu
        if w.read_cpu is not None:
            work = work + w.read_cpu
        spill_ns = spill_cpu + spill_io
        hidden_ns = hidden_spill_ns(
            work,
            spill_ns,
            last_ns,
            w.n_full,
            w.r_full,
            w.r_last,
            out_recs,
            batch.spill_percent,
            w.contention,
        )
        # the background spills' time the map thread waited for, split into the spills'
        # I/O and CPU pro rata, moves to collect; the spill phase keeps the final spill
        bg_cpu = spill_cpu - last_cpu
        bg_io = spill_io - last_io
        bg = bg_cpu + bg_io
        blocked = bg - hidden_ns
        share = np.divide(blocked, bg, out=np.zeros(len(batch)), where=bg > 0)
        collect_cpu = collect_cpu + bg_cpu * share
        collect_io = bg_io * share
        spill_cpu, spill_io = last_cpu, last_io
    w.collect_cpu, w.collect_io, w.spill_cpu, w.spill_io = (
        collect_cpu,
        collect_io,
        spill_cpu,
        spill_io,
    )
    w.last_ns, w.hidden_ns = last_ns, hidden_ns


def _merge(
    w: _MapWork, profile: JobProfile | StackedProfiles, mi: MapInputs, counters: bool
) -> None:
    """Merge (§2.4, §3): the spills merged into one output file by ``Merger``'s passes (the
    plan of :func:`~mrtune.costmodel.merger._spill_plan_float`, computed once per task)."""
    c = profile.costs
    spills, out_recs = w.spills, w.out_recs
    passes, a, b = _spill_plan_float(spills, mi.sort_factor, mi.log_sort_factor)
    merging = spills > 1
    merging_f = merging.astype(np.float64)
    inter_bytes = _fma(a, w.d_full, b * w.d_last)
    inter_u = _fma(a, w.u_full, b * w.u_last)
    inter_recs = _fma(a, w.c_full, b * w.c_last)  # 0 without merging (a = b = 0)
    final_in_recs = w.spill_recs_written
    final_in_bytes = w.spill_bytes_written
    comb_merge_f = None
    if mi.any_combining:
        comb_merge = mi.combining & merging & (spills >= mi.combine_min_spills)
        comb_merge_f = comb_merge.astype(np.float64)
        final_recs = np.where(
            comb_merge, _combine(final_in_recs, out_recs, profile), final_in_recs
        )
    else:
        final_recs = final_in_recs
    # With one spill the final output is that spill (rename): the IFile formulas below give its
    # bytes exactly; only zero-spill rows need the explicit zeros.
    final_u = _fma(final_recs, mi.w_rec, mi.eof_parts)
    if mi.any_combining:
        # merged without a combine, the spills' records keep their widths; combined in the
        # merge, a record has merged (map output records / final records) raw ones
        kept_u = w.spill_u_written - w.spills * mi.eof_parts + mi.eof_parts
        ovh = profile.stats.ifile_record_overhead
        w_fin = _comb_width(out_recs, final_recs, profile, mi) + ovh
        comb_u = np.where(comb_merge, _fma(final_recs, w_fin, mi.eof_parts), kept_u)
        final_u = np.where(mi.combining, comb_u, final_u)
    final_d = _fma(final_u, mi.ratio, mi.chk_parts)
    if w.any_no_spill:
        final_u = np.where(merging, final_u, w.spill_u_written)
        final_d = np.where(merging, final_d, final_in_bytes)
    # np.where(merging, x, 0.0) as x · merging for the finite, non-negative x below
    merge_read = (inter_bytes + final_in_bytes) * merging_f
    merge_written = (inter_bytes + final_d) * merging_f
    merge_written_u = (inter_u + final_u) * merging_f
    merged_recs = (inter_recs + final_in_recs) * merging_f
    merge_io = _fma(merge_read, c.local_read, merge_written * c.local_write)
    if nonzero(c.segment_seek_ns):
        # Each pass reads one segment per partition from each of its inputs: N spills, plus the
        # runs the intermediate passes wrote (passes - 1 of them).
        merge_io = merge_io + (spills + passes - 1.0) * mi.parts * c.segment_seek_ns * merging_f
    merge_cpu = merged_recs * c.merge_cpu
    if nonzero(c.merge_cmp_cpu):
        # the merge heap's comparisons over the spills' runs (merge_comparisons)
        cmp = merge_comparisons(w.n_full, w.c_full, w.c_last)
        merge_cpu = merge_cpu + cmp * c.merge_cmp_cpu * merging_f
    if mi.any_combining:
        merge_cpu += final_in_recs * c.combine_cpu * comb_merge_f
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


def _final_pair_width(
    w: _MapWork, profile: JobProfile | StackedProfiles, mi: MapInputs, counters: bool
) -> F64:
    """Serialized key + value bytes per record of the map's final output (what a reducer's
    segment holds): the combined width where a combiner ran, the map output width otherwise."""
    if not mi.any_combining:
        return mi.w_spill.copy() if counters else mi.w_spill
    recs = w.final_recs
    per_rec = (
        np.divide(w.final_u - mi.eof_parts, recs, out=np.zeros_like(recs), where=recs > 0)
        - profile.stats.ifile_record_overhead
    )
    return np.where(mi.combining & (recs > 0), per_rec, mi.w_spill)


def _map_result(
    w: _MapWork,
    profile: JobProfile | StackedProfiles,
    mi: MapInputs,
    n: int,
    spill_overlap: bool,
    counters: bool,
) -> MapTaskResult:
    """The task's counters and phase times (ns → ms)."""
    c = profile.costs
    phase_io = {
        "read": w.read_io / NS_PER_MS,
        "map": np.zeros(n),
        "collect": _ms(w.collect_io, n),
        "spill": w.spill_io / NS_PER_MS,
        "merge": w.merge_io / NS_PER_MS,
        "write": _ms(w.write_io, n),
    }
    phase_cpu = {
        "read": _ms(w.read_cpu, n),
        "map": w.map_cpu / NS_PER_MS,
        "collect": w.collect_cpu / NS_PER_MS,
        "spill": w.spill_cpu / NS_PER_MS,
        "merge": w.merge_cpu / NS_PER_MS,
        "write": _ms(w.write_cpu, n),
    }
    records_full = w.r_full
    if counters and w.any_no_spill:
        records_full = np.where(w.spills > 0, w.r_full, 0.0)
    hdfs_written = w.hdfs_written if w.hdfs_written is not None else np.zeros(n)
    return MapTaskResult(
        hdfs_bytes_read=w.split_bytes.astype(np.float64) if counters else w.split_bytes,
        input_records=w.in_recs,
        output_records=w.out_recs,
        output_bytes=w.out_bytes,
        spills=w.spills,
        records_per_full_spill=records_full if counters else None,
        records_in_last_spill=w.r_last,
        spilled_records=w.spilled if counters else None,
        merge_passes=w.passes,
        combine_input_records=w.comb_in if counters else None,
        combine_output_records=w.comb_out if counters else None,
        final_records=w.final_recs,
        materialized_bytes=w.final_d,
        final_uncompressed_bytes=w.final_u,
        # MapInputs is shared by the full and tail tasks
        final_pair_width=_final_pair_width(w, profile, mi, counters),
        file_bytes_written=w.file_written if counters else None,
        file_bytes_read=w.merge_read,
        hdfs_bytes_written=hdfs_written,
        phase_io_ms=phase_io,
        phase_cpu_ms=phase_cpu,
        fixed_ms=c.setup_ms + c.cleanup_ms + c.task_overhead_ms,
        last_spill_ms=w.last_ns / NS_PER_MS,
        hidden_spill_ms=w.hidden_ns / NS_PER_MS if spill_overlap else 0.0,
    )


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
        if getattr(res, name) is not None:
            setattr(res, name, np.where(map_only, 0.0, getattr(res, name)))
    res.final_records = np.where(map_only, out_recs, res.final_records)
    for phase in ("spill", "merge"):
        res.phase_io_ms[phase] = np.where(map_only, 0.0, res.phase_io_ms[phase])
        res.phase_cpu_ms[phase] = np.where(map_only, 0.0, res.phase_cpu_ms[phase])
