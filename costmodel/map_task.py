"""The map task model (reference §2, §3, §8.1): Read, Map, Collect, Spill, Merge (, Write).

Vectorised over a :class:`~mrtune.costmodel.batch.ConfigBatch`: every quantity is an ndarray of shape
(n_configs,). Dataflow is exact where Hadoop is deterministic: the number of spills follows
MAPREDUCE-64's unified buffer in Hadoop 2/3 (``softLimit / (w + 16)`` records per spill) or the
record-percent buffer of Hadoop 1, the last spill holds the remainder, the merge follows
``Merger`` (:func:`mrtune.costmodel.merge_plans.spill_merge_plan`), and the combiner runs in
the final merge iff the *total* number of spills reaches ``mapreduce.map.combine.minspills``
(Hadoop ``MapTask.mergeParts``; reference §2.4). The steps live beside this module: collect and
spill in :mod:`mrtune.costmodel._map_spill`, the merge in :mod:`mrtune.costmodel._map_merge`,
what they share in :mod:`mrtune.costmodel._map_inputs` and :mod:`mrtune.costmodel._ifile`.

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

from mrtune.costmodel._ifile import (
    IFILE_CHECKSUM_BYTES,
    IFILE_EOF_BYTES,
    INDEX_BYTES_PER_PARTITION,
    INDEX_CHECKSUM_BYTES,
    METADATA_BYTES,
    NS_PER_MS,
    filled,
    ifile_bytes,
    on_disk_bytes,
    task_total_ms,
)
from mrtune.costmodel._map_inputs import MapInputs, MapWork, records_per_spill
from mrtune.costmodel._map_merge import final_pair_width, map_merge, merge_comparisons
from mrtune.costmodel._map_spill import (
    blocked_ns,
    hidden_spill_ns,
    overlap_coefficients,
    spill_costs,
    spill_dataflow,
)
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.codecs import codec_arrays
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.stacked import StackedProfiles, nonzero, where

F64 = NDArray[np.float64]
#: The map model's public names, wherever they are defined (importers use this module).
__all__ = [
    "IFILE_CHECKSUM_BYTES",
    "IFILE_EOF_BYTES",
    "INDEX_BYTES_PER_PARTITION",
    "INDEX_CHECKSUM_BYTES",
    "METADATA_BYTES",
    "NS_PER_MS",
    "MapInputs",
    "MapTaskResult",
    "blocked_ns",
    "hidden_spill_ns",
    "ifile_bytes",
    "map_task",
    "merge_comparisons",
    "on_disk_bytes",
    "overlap_coefficients",
    "records_per_spill",
    "task_total_ms",
]


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
    last_spill_ms: F64 | float | None = 0.0
    """Time of the final spill (the one ``MapOutputBuffer.flush`` makes in the map thread)."""
    hidden_spill_ms: F64 | float | None = 0.0
    """Background spill time hidden behind the map function (``spill_overlap``); the
    ``spill`` phase is already net of it."""

    @cached_property
    def phase_ms(self) -> dict[str, F64]:
        return {k: self.phase_io_ms[k] + self.phase_cpu_ms[k] for k in self.phase_io_ms}

    @cached_property
    def task_ms(self) -> F64:
        return task_total_ms(self.fixed_ms, self.phase_ms)


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
    local bytes written and read, the per-spill record count, the final and hidden spill
    times): those fields are ``None``.
    A search needs the task time only (:func:`~mrtune.costmodel.job.evaluate`).

    The steps follow the task's phases: :func:`_read_map` (here), collect and spill
    (:func:`~mrtune.costmodel._map_spill.spill_dataflow`,
    :func:`~mrtune.costmodel._map_spill.spill_costs`), the merge
    (:func:`~mrtune.costmodel._map_merge.map_merge`), and :func:`_map_result` assembles them.
    """
    n = len(batch)
    mi = inputs if inputs is not None else MapInputs.build(profile, batch)
    split_bytes = np.asarray(split_bytes, dtype=np.float64)
    if split_bytes.shape != (n,):
        split_bytes = np.broadcast_to(split_bytes, (n,))
    w = MapWork(split_bytes)
    w.remote_bytes = remote_bytes
    c = profile.costs
    w.local_mode = local_mode
    if local_mode:
        w.contention, w.slowdown = c.spill_contention, c.sort_cache_slowdown
    else:
        w.contention = where(c.shapes_on_cluster, c.spill_contention, 0.0)
        w.slowdown = where(c.shapes_on_cluster, c.sort_cache_slowdown, 0.0)
    _read_map(w, profile, batch, mi, input_records)
    spill_dataflow(w, profile, mi)
    spill_costs(w, profile, batch, mi, spill_overlap)
    map_merge(w, profile, mi, counters)
    result = _map_result(w, profile, mi, n, spill_overlap, counters)
    if mi.any_map_only:
        _zero_map_only_rows(result, mi.map_only, w.out_recs)
    result.__dict__["task_ms"] = _task_ms(result, result.phase_io_ms["map"])
    return result


def _read_map(
    w: MapWork,
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
    w.out_recs = map_output_records(w.in_recs, st.map_pairs_sel, profile.map_output_floor)
    w.out_bytes = w.out_recs * mi.width
    w.map_cpu = w.in_recs * c.map_cpu
    if mi.any_map_only:
        map_only = mi.map_only
        out_ratio, out_comp, _ = codec_arrays(profile, batch.out_codec, uncompress=False)
        hdfs_written_maponly = w.out_bytes * out_ratio
        w.write_io = np.where(map_only, hdfs_written_maponly * c.hdfs_write, 0.0)
        w.write_cpu = np.where(map_only, w.out_bytes * out_comp, 0.0)
        w.hdfs_written = np.where(map_only, hdfs_written_maponly, 0.0)
    else:
        w.write_io = w.write_cpu = None  # no map-only configuration: zero
        w.hdfs_written = None


#: Floating-point slack when flooring a record count that is integral in exact arithmetic.
WHOLE_RECORD_EPS = 1e-6


def map_output_records(in_recs: F64, pairs_sel: F64 | float, floor: object) -> F64:
    """A map's output records from its ``in_recs`` input records.

    Where the job's mapper emits a deterministic share (``JobProfile.map_output_floor``), a
    share p of n records is floor(n·p) of them: the selectivity job's mapper emits the first
    floor(n·p/100) records of its split, 134,217 of 167,772 at 80%, where rint gave 134,218
    in every map of 46 of the generic benchmark's runs; the epsilon keeps an integral n·p
    computed in floating point (12.0 words a line). Any other mapper's output per record
    is not a share (a tokeniser emits a line's words), so the expectation n·p is kept: a
    floor per map had dropped up to one record a map from the job's total (AggregateWordCount
    at 4 MiB splits, 2,646,240 map outputs against Hadoop's 2,646,242)."""
    expected = in_recs * pairs_sel
    if not nonzero(floor):
        return expected
    floored = np.floor(expected + WHOLE_RECORD_EPS)
    return floored if floor is True else np.where(floor, floored, expected)


def _map_result(
    w: MapWork,
    profile: JobProfile | StackedProfiles,
    mi: MapInputs,
    n: int,
    spill_overlap: bool,
    counters: bool,
) -> MapTaskResult:
    """The task's counters and phase times (ns → ms)."""
    c = profile.costs
    # every part that is zero in all rows: one read-only array, kept for the next call of
    # this length (a search's chunks share it; no allocation and zero-fill per task)
    zero = filled(0.0, n)
    phase_io = {
        "read": w.read_io / NS_PER_MS,
        "map": zero,
        "collect": _ms(w.collect_io, zero),
        "spill": w.spill_io / NS_PER_MS,
        "merge": w.merge_io / NS_PER_MS,
        "write": _ms(w.write_io, zero),
    }
    phase_cpu = {
        "read": _ms(w.read_cpu, zero),
        "map": w.map_cpu / NS_PER_MS,
        "collect": w.collect_cpu / NS_PER_MS,
        "spill": w.spill_cpu / NS_PER_MS,
        "merge": w.merge_cpu / NS_PER_MS,
        "write": _ms(w.write_cpu, zero),
    }
    records_full = None
    if counters:  # the full spills' records (MapWork.r_full is the buffer's: full_spill)
        records_full = np.minimum(mi.per_spill, w.out_recs)
        if w.any_no_spill:
            records_full = np.where(w.spills > 0, records_full, 0.0)
    hdfs_written = w.hdfs_written
    if hdfs_written is None:  # read by the counters alone: the shared zeros on a search's call
        hdfs_written = np.zeros(n) if counters else zero
    return MapTaskResult(
        hdfs_bytes_read=w.split_bytes.astype(np.float64) if counters else w.split_bytes,
        input_records=w.in_recs,
        output_records=w.out_recs,
        output_bytes=w.out_bytes,
        spills=w.spills,
        records_per_full_spill=records_full,
        records_in_last_spill=w.r_last,
        spilled_records=w.spilled if counters else None,
        merge_passes=w.passes,
        combine_input_records=w.comb_in if counters else None,
        combine_output_records=w.comb_out if counters else None,
        final_records=w.final_recs,
        materialized_bytes=w.final_d,
        final_uncompressed_bytes=w.final_u,
        # MapInputs is shared by the full and tail tasks
        final_pair_width=final_pair_width(w, profile, mi, counters),
        file_bytes_written=w.file_written if counters else None,
        file_bytes_read=w.merge_read,
        hdfs_bytes_written=hdfs_written,
        phase_io_ms=phase_io,
        phase_cpu_ms=phase_cpu,
        fixed_ms=c.setup_ms + c.cleanup_ms + c.task_overhead_ms,
        # the counters' and calibration's view of the spill thread; the job model reads
        # neither (None on a search's call)
        last_spill_ms=w.last_ns / NS_PER_MS if counters else None,
        hidden_spill_ms=(w.hidden_ns / NS_PER_MS if spill_overlap else 0.0) if counters else None,
    )


def _ms(ns: F64 | None, zero: F64) -> F64:
    """ns → ms; ``None`` stands for a phase part that is zero in every configuration."""
    return zero if ns is None else ns / NS_PER_MS


def _task_ms(res: MapTaskResult, zero: F64) -> F64:
    """:func:`task_total_ms` of the task's phases without the parts that are ``zero`` in
    every row: ``x + 0.0`` is ``x``, so the sum is the same, number for number, with fewer
    passes (a map's ``map`` phase has no I/O part, a reduce job's maps write no HDFS output)."""
    phases = []
    for k, io in res.phase_io_ms.items():
        cpu = res.phase_cpu_ms[k]
        if io is zero:
            if cpu is not zero:
                phases.append(cpu)
        elif cpu is zero:
            phases.append(io)
        else:
            phases.append(io + cpu)
    return task_total_ms(res.fixed_ms, dict(enumerate(phases)))


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
