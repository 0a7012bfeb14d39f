"""What a map task's steps share (reference §2.3, §8.1): the sort buffer's records per spill,
the split-independent :class:`MapInputs`, and :class:`MapWork`, the arrays the steps of
:func:`~mrtune.costmodel.map_task.map_task` hand each other.

``MapInputs`` is built once per batch and serves the full and tail splits' tasks (and every
map class's); ``MapWork`` is one task's scratchpad, one attribute per quantity, so each step
(read, collect/spill, merge, assembly) is a function of its own under 80 lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel._ifile import (
    IFILE_CHECKSUM_BYTES,
    IFILE_EOF_BYTES,
    INDEX_BYTES_PER_PARTITION,
    INDEX_CHECKSUM_BYTES,
    MB,
    METADATA_BYTES,
    at_least,
)
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.codecs import map_output_codec_arrays
from mrtune.costmodel.combiner import combined_pair_width, combined_records, combined_width_factor
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.stacked import StackedProfiles, stacked_combined_records, where

F64 = NDArray[np.float64]


def records_per_spill(batch: ConfigBatch, pair_width: F64 | float) -> F64:
    """Records that fill the sort buffer to its spill threshold (one full spill).

    Hadoop 2/3 (MAPREDUCE-64, reference §8.1): ``B`` = io.sort.mb·2^20 rounded down to a
    multiple of 16; ``MapOutputBuffer.collect`` starts a spill at the first record for which the
    bytes in use (one 16-byte metadata slot of alignment, plus data and 16 bytes of metadata per
    record) reach ``S = (int)(B × spill%)``: ``ceil((S − 16) / (w + 16))`` records. This is the
    first spill exactly and, for fixed-size records, every later one to within a record (the
    equator's alignment can take one off); checked against 714 real map attempts. Hadoop 1
    (reference §2.3): the first of the record-metadata and the data buffers to reach its soft
    limit. A record larger than the buffer is spilled alone.
    """
    mb_bytes = batch.io_sort_mb * MB
    buf = np.floor(mb_bytes / METADATA_BYTES) * METADATA_BYTES
    h2 = np.ceil(
        (np.floor(buf * batch.spill_percent) - METADATA_BYTES) / (pair_width + METADATA_BYTES)
    )
    if not batch.hadoop1.any():
        return at_least(h2, 1.0, out=h2)
    rec_cap = np.floor(np.floor(mb_bytes * batch.record_percent) / METADATA_BYTES)
    soft_rec = np.floor(rec_cap * batch.spill_percent)
    soft_buf = np.floor((mb_bytes - rec_cap * METADATA_BYTES) * batch.spill_percent)
    h1 = np.minimum(soft_rec, np.floor(soft_buf / np.maximum(pair_width, 1e-9)))
    return np.maximum(np.where(batch.hadoop1, h1, h2), 1.0)


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
    #: ``mapreduce.job.reduces`` as float64, and ``max(R, 1)``: the partitions a map writes
    #: (the job model and the reduce task read both: converted once per batch)
    reducers: F64
    parts: F64
    eof_parts: F64
    chk_parts: F64
    index_bytes: F64
    width: float | F64
    per_spill: F64
    combining: NDArray[np.bool_]
    any_combining: bool
    #: every row combines (a job with a combiner the configurations leave on): the
    #: ``np.where(combining, combined, plain)`` selections are then the combined operand
    all_combining: bool
    combining_f: F64
    w_spill: F64
    w_rec: F64
    ratio: F64
    comp_ns: F64
    uncomp_ns: F64
    sort_factor: F64
    log_sort_factor: F64
    #: ``sort_factor − 1`` (the merge plan's F − 1, the same for the full and tail tasks)
    sort_factor_m1: F64
    #: ``mapreduce.map.sort.spill.percent`` as float64, and ``1 − spill%`` (the sort
    #: buffer's headroom share, :func:`~mrtune.costmodel._map_spill.overlap_coefficients`)
    spill_percent: F64
    headroom: F64
    combine_min_spills: F64

    @classmethod
    def build(cls, profile: JobProfile | StackedProfiles, batch: ConfigBatch) -> MapInputs:
        st = profile.stats
        map_only = batch.num_reducers == 0
        any_map_only = bool(map_only.any())
        reducers = batch.num_reducers.astype(np.float64)
        parts = at_least(reducers, 1.0)
        width = st.map_output_pair_width
        combining = batch.use_combiner & profile.has_combiner
        if any_map_only:
            combining = combining & ~map_only
        any_combining = bool(combining.any())
        all_combining = any_combining and bool(combining.all())
        wfac = where(profile.has_combiner, combined_width_factor(st), 1.0)
        w_spill = width * wfac if all_combining else np.where(combining, width * wfac, width)
        # with the combiner switched off the codec sees the emitted records (codecs.py)
        ratio, comp_ns, uncomp_ns = map_output_codec_arrays(profile, batch.map_codec, combining)
        index_bytes = INDEX_BYTES_PER_PARTITION * parts + INDEX_CHECKSUM_BYTES
        if any_map_only:
            index_bytes = np.where(map_only, 0.0, index_bytes)
        # io.sort.factor >= 2 (HadoopConfig); a merge cannot progress with fewer
        sort_factor = at_least(batch.sort_factor.astype(np.float64), 2.0)
        spill_percent = np.asarray(batch.spill_percent, dtype=np.float64)
        return cls(
            map_only=map_only,
            any_map_only=any_map_only,
            reducers=reducers,
            parts=parts,
            eof_parts=IFILE_EOF_BYTES * parts,
            chk_parts=IFILE_CHECKSUM_BYTES * parts,
            index_bytes=index_bytes,
            width=width,
            per_spill=records_per_spill(batch, width),
            combining=combining,
            any_combining=any_combining,
            all_combining=all_combining,
            combining_f=combining.astype(np.float64),
            w_spill=w_spill,
            w_rec=w_spill + st.ifile_record_overhead,
            ratio=ratio,
            comp_ns=comp_ns,
            uncomp_ns=uncomp_ns,
            sort_factor=sort_factor,
            log_sort_factor=np.log(sort_factor),
            sort_factor_m1=sort_factor - 1.0,
            spill_percent=spill_percent,
            headroom=1.0 - spill_percent,
            combine_min_spills=batch.combine_min_spills.astype(np.float64),
        )


class MapWork:
    """The arrays one map task's steps hand each other (one attribute per quantity)."""

    def __init__(self, split_bytes: F64) -> None:
        self.split_bytes = split_bytes


def combine_keys(n_in: F64, n_raw: F64, profile: JobProfile | StackedProfiles) -> F64:
    """Distinct keys of a combine over a whole spill or map output (all partitions: each
    key lands in one of them, so their sum is the distinct keys of the whole)."""
    if isinstance(profile, StackedProfiles):
        return stacked_combined_records(n_in, n_raw, profile)
    return combined_records(n_in, n_raw, profile.stats)


def combine_width(
    n_raw: F64, n_out: F64, profile: JobProfile | StackedProfiles, mi: MapInputs
) -> F64 | float:
    """Width of the records a combine of ``n_raw`` raw records into ``n_out`` writes: the
    profiled combined width, one number, where the combiner keeps its width (a summing
    combiner, ``combine_width_growth`` = 0; :func:`combined_pair_width` broadcasts it)."""
    st = profile.stats
    if isinstance(st.combine_width_growth, float | int) and st.combine_width_growth == 0:
        return mi.width * (st.combine_size_sel / st.combine_pairs_sel)
    return combined_pair_width(n_raw, n_out, mi.width, st)


def if_combining(mi: MapInputs, combined: F64 | float, plain: F64 | float) -> F64 | float:
    """``np.where(mi.combining, combined, plain)``, without its pass when every row or no
    row combines (the selection is then one operand, value for value)."""
    if mi.all_combining:
        return combined
    if not mi.any_combining:
        return plain
    return np.where(mi.combining, combined, plain)
