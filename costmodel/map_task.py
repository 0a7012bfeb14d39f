"""The map task model (reference §2, §3, §8.1): Read, Map, Collect, Spill, Merge (, Write).

Vectorised over a :class:`~costmodel.batch.ConfigBatch`: every quantity is an ndarray of shape
(n_configs,). Dataflow is exact where Hadoop is deterministic: the number of spills follows
MAPREDUCE-64's unified buffer in Hadoop 2/3 (``softLimit / (w + 16)`` records per spill) or the
record-percent buffer of Hadoop 1, the last spill holds the remainder, the merge follows
``Merger`` (:func:`costmodel.merger.spill_merge_plan`), and the combiner runs in the final merge
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

from costmodel.batch import ConfigBatch
from costmodel.codecs import codec_arrays
from costmodel.combiner import combined_records, combined_width_factor
from costmodel.merger import spill_merge_plan
from costmodel.profile import JobProfile

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
    multiple of 16; a spill starts when data plus 16 bytes of metadata per record reach
    ``(int)(B × spill%)``. Hadoop 1 (reference §2.3): the first of the record-metadata and the
    data buffers to reach its soft limit. A record larger than the buffer is spilled alone.
    """
    mb_bytes = batch.io_sort_mb * MB
    buf = np.floor(mb_bytes / METADATA_BYTES) * METADATA_BYTES
    h2 = np.floor(np.floor(buf * batch.spill_percent) / (pair_width + METADATA_BYTES))
    if not batch.hadoop1.any():
        return np.maximum(h2, 1.0)
    rec_cap = np.floor(np.floor(mb_bytes * batch.record_percent) / METADATA_BYTES)
    soft_rec = np.floor(rec_cap * batch.spill_percent)
    soft_buf = np.floor((mb_bytes - rec_cap * METADATA_BYTES) * batch.spill_percent)
    h1 = np.minimum(soft_rec, np.floor(soft_buf / np.maximum(pair_width, 1e-9)))
    return np.maximum(np.where(batch.hadoop1, h1, h2), 1.0)


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

    @cached_property
    def phase_ms(self) -> dict[str, F64]:
        return {k: self.phase_io_ms[k] + self.phase_cpu_ms[k] for k in self.phase_io_ms}

    @cached_property
    def task_ms(self) -> F64:
        total = self.fixed_ms + sum(self.phase_ms.values())
        return np.asarray(total, dtype=np.float64)


def map_task(profile: JobProfile, batch: ConfigBatch, split_bytes: F64) -> MapTaskResult:
    """Model one map task reading ``split_bytes`` (as stored) under each configuration."""
    st, c = profile.stats, profile.costs
    n = len(batch)
    split_bytes = np.broadcast_to(np.asarray(split_bytes, dtype=np.float64), (n,))
    zeros = np.zeros(n)
    reducers = batch.num_reducers.astype(np.float64)
    map_only = batch.num_reducers == 0

    # ---- Read (reference §2.1)
    cmp_in = st.input_compress_ratio if profile.input_compressed else 1.0
    in_bytes = split_bytes / cmp_in
    in_recs = np.rint(in_bytes / st.input_pair_width)
    read_io = split_bytes * c.hdfs_read
    read_cpu = split_bytes * c.input_uncompress if profile.input_compressed else zeros

    # ---- Map (§2.2)
    out_recs = np.rint(in_recs * st.map_pairs_sel)
    width = (
        st.input_pair_width * st.map_size_sel / st.map_pairs_sel if st.map_pairs_sel > 0 else 0.0
    )
    out_bytes = out_recs * width
    map_cpu = in_recs * c.map_cpu

    # ---- Map-only write (§2.2)
    out_ratio, out_comp, _ = codec_arrays(profile, batch.out_codec)
    hdfs_written_maponly = out_bytes * out_ratio
    write_io = np.where(map_only, hdfs_written_maponly * c.hdfs_write, 0.0)
    write_cpu = np.where(map_only, out_bytes * out_comp, 0.0)

    # ---- Collect and Spill (§2.3, §8.1)
    ratio, comp_ns, uncomp_ns = codec_arrays(profile, batch.map_codec)
    parts = np.maximum(reducers, 1.0)
    per_spill = records_per_spill(batch, width)
    spills = np.where(map_only | (out_recs <= 0), 0.0, np.ceil(out_recs / per_spill))
    r_full = np.minimum(per_spill, out_recs)
    r_last = np.where(spills > 0, out_recs - (spills - 1) * per_spill, 0.0)
    combining = batch.use_combiner & profile.has_combiner & ~map_only
    wfac = combined_width_factor(st) if profile.has_combiner else 1.0
    c_full = np.where(combining, combined_records(r_full, r_full, st), r_full)
    c_last = np.where(combining, combined_records(r_last, r_last, st), r_last)
    w_spill = np.where(combining, width * wfac, width)
    ovh = st.ifile_record_overhead
    u_full = ifile_bytes(c_full, w_spill, ovh, parts)
    u_last = ifile_bytes(c_last, w_spill, ovh, parts)
    d_full = on_disk_bytes(u_full, ratio, parts)
    d_last = on_disk_bytes(u_last, ratio, parts)
    n_full = np.maximum(spills - 1, 0.0)
    spill_recs_written = np.where(spills > 0, n_full * c_full + c_last, 0.0)
    spill_bytes_written = np.where(spills > 0, n_full * d_full + d_last, 0.0)
    spill_u_written = np.where(spills > 0, n_full * u_full + u_last, 0.0)

    def sort_comparisons(recs: F64) -> F64:
        # DESIGN decision 3: n·log2(max(2, n/R)) comparisons, as when profiling.
        return recs * np.log2(np.maximum(2.0, recs / parts))

    sorted_cmp = np.where(
        spills > 0, n_full * sort_comparisons(r_full) + sort_comparisons(r_last), 0.0
    )
    collect_cpu = np.where(map_only, 0.0, out_recs * (c.partition_cpu + c.serde_cpu))
    spill_cpu = (
        sorted_cmp * c.sort_cpu
        + np.where(combining, out_recs * c.combine_cpu, 0.0)
        + spill_u_written * comp_ns
    )
    spill_io = spill_bytes_written * c.local_write

    # ---- Merge (§2.4, §3)
    spills_i = spills.astype(np.int64)
    passes, a, b = spill_merge_plan(spills_i, batch.sort_factor)
    merging = spills > 1
    inter_bytes = a * d_full + b * d_last
    inter_u = a * u_full + b * u_last
    inter_recs = a * c_full + b * c_last
    final_in_recs = spill_recs_written
    final_in_bytes = spill_bytes_written
    comb_merge = combining & merging & (spills_i >= batch.combine_min_spills)
    merged_final_recs = np.where(
        comb_merge, combined_records(final_in_recs, out_recs, st), final_in_recs
    )
    final_recs = np.where(merging, merged_final_recs, spill_recs_written)
    final_u = np.where(merging, ifile_bytes(final_recs, w_spill, ovh, parts), spill_u_written)
    final_d = np.where(merging, on_disk_bytes(final_u, ratio, parts), spill_bytes_written)
    merge_read = np.where(merging, inter_bytes + final_in_bytes, 0.0)
    merge_written = np.where(merging, inter_bytes + final_d, 0.0)
    merge_written_u = np.where(merging, inter_u + final_u, 0.0)
    merged_recs = np.where(merging, inter_recs + final_in_recs, 0.0)
    merge_io = merge_read * c.local_read + merge_written * c.local_write
    merge_cpu = (
        merged_recs * c.merge_cpu
        + np.where(comb_merge, final_in_recs * c.combine_cpu, 0.0)
        + merge_read * uncomp_ns
        + merge_written_u * comp_ns
    )
    spilled = np.where(merging, spill_recs_written + inter_recs + final_recs, spill_recs_written)
    comb_in = np.where(combining, out_recs, 0.0) + np.where(comb_merge, final_in_recs, 0.0)
    comb_out = np.where(combining, spill_recs_written, 0.0) + np.where(comb_merge, final_recs, 0.0)
    index_bytes = np.where(map_only, 0.0, INDEX_BYTES_PER_PARTITION * parts + INDEX_CHECKSUM_BYTES)
    file_written = spill_bytes_written + merge_written + index_bytes

    def ms(x: F64) -> F64:
        return np.asarray(x, dtype=np.float64) / NS_PER_MS

    phase_io = {
        "read": ms(read_io),
        "map": ms(zeros),
        "collect": ms(zeros),
        "spill": ms(np.where(map_only, 0.0, spill_io)),
        "merge": ms(np.where(map_only, 0.0, merge_io)),
        "write": ms(write_io),
    }
    phase_cpu = {
        "read": ms(read_cpu),
        "map": ms(map_cpu),
        "collect": ms(collect_cpu),
        "spill": ms(np.where(map_only, 0.0, spill_cpu)),
        "merge": ms(np.where(map_only, 0.0, merge_cpu)),
        "write": ms(write_cpu),
    }
    return MapTaskResult(
        hdfs_bytes_read=split_bytes.astype(np.float64),
        input_records=in_recs,
        output_records=out_recs,
        output_bytes=out_bytes,
        spills=spills,
        records_per_full_spill=np.where(spills > 0, r_full, 0.0),
        records_in_last_spill=r_last,
        spilled_records=np.where(map_only, 0.0, spilled),
        merge_passes=np.where(map_only, 0.0, passes.astype(np.float64)),
        combine_input_records=comb_in,
        combine_output_records=comb_out,
        final_records=np.where(map_only, out_recs, final_recs),
        materialized_bytes=np.where(map_only, 0.0, final_d),
        final_uncompressed_bytes=np.where(map_only, 0.0, final_u),
        final_pair_width=np.asarray(w_spill, dtype=np.float64),
        file_bytes_written=np.where(map_only, 0.0, file_written),
        file_bytes_read=np.where(map_only, 0.0, merge_read),
        hdfs_bytes_written=np.where(map_only, hdfs_written_maponly, 0.0),
        phase_io_ms=phase_io,
        phase_cpu_ms=phase_cpu,
        fixed_ms=c.setup_ms + c.cleanup_ms + c.task_overhead_ms,
    )
