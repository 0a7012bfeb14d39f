"""Counters → dataflow statistics (reference §1.2, Table 2), in dataflow order.

The steps of :func:`mrtune.profiling.build.build_statistics` that turn a job's counters into
:class:`~mrtune.costmodel.profile.DataflowStats`: input, map output, combiner, materialized map
output, reduce side. Each records its provenance (measured from which counters, or defaulted
and why) in :class:`Stats`.

Rules that need more than a ratio of two counters:

* **stored input**: FileInputFormat ``BYTES_READ``, else ``HDFS_BYTES_READ − SPLIT_RAW_BYTES``
  (a map also reads its split description from HDFS), else ``HDFS_BYTES_READ``; Hadoop 1's
  ``MAP_INPUT_BYTES`` is the uncompressed size, so stored ÷ uncompressed is the input
  compression ratio.
* **spills per map** follow from the profiled configuration (``records_per_spill`` of the model:
  MAPREDUCE-64's ``softLimit / (w + 16)``, or Hadoop 1's record-percent buffer) and the map
  output per task; ``SPILLED_RECORDS`` is used as a check (one spill writes each record once).
* **combiner**: ``COMBINE_OUTPUT / COMBINE_INPUT`` records at the profiled spill size, and
  ``combine_profiled_input_records`` = COMBINE_INPUT_RECORDS per combine call (per spill, plus
  the merge when the combiner runs there, ``MapTask.mergeParts``).
* **IFile record overhead**: ``MAP_OUTPUT_MATERIALIZED_BYTES`` of uncompressed map output is
  records × (width + overhead) + 6 bytes per partition and map (2 EOF bytes and a 4-byte
  checksum, ``IFile.Writer``), so overhead = (materialized − 6·partitions·maps)/records − width,
  clamped to [0, 20].
* **intermediate compression**: with map output compressed, materialized ÷ the IFile stream's
  uncompressed length is the codec's ratio on this job's data; it goes into
  ``profile.codecs[codec]`` as ``measured``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_task import records_per_spill
from mrtune.costmodel.profile import CodecStats, DataflowStats
from mrtune.profiling.baseline import UNKNOWN_COMBINER
from mrtune.profiling.codecs import measure_map_output_codec
from mrtune.profiling.combine_fit import fit_beta_from_groups, measure_combined_width, zipf_key_law
from mrtune.readers.history import JobHistory

#: IFile: 2 EOF bytes + 4 checksum bytes per partition segment (``IFile.Writer.close``).
IFILE_SEGMENT_BYTES = 6.0
IFILE_CHECKSUM_BYTES = 4.0
IFILE_EOF_BYTES = 2.0
#: ``combine_class`` of a configuration whose combiner is known only from its counters.


def stored_input(counters: Mapping[str, float]) -> tuple[float, str]:
    """Bytes of job input as stored, read by the maps, and which counter gave them (0 if none)."""
    fmt = counters.get("INPUT_FORMAT_BYTES_READ", 0.0)
    if fmt > 0:
        return fmt, "FileInputFormat BYTES_READ"
    hdfs = counters.get("HDFS_BYTES_READ", 0.0)
    split = counters.get("SPLIT_RAW_BYTES", 0.0)
    if hdfs - split > 0:
        return hdfs - split, "HDFS_BYTES_READ − SPLIT_RAW_BYTES" if split else "HDFS_BYTES_READ"
    if counters.get("MAP_INPUT_BYTES", 0.0) > 0:
        return counters["MAP_INPUT_BYTES"], "MAP_INPUT_BYTES"
    return 0.0, ""


def stored_input_bytes(counters: Mapping[str, float]) -> float:
    """:func:`stored_input` without the explanation (per-attempt split sizes)."""
    return stored_input(counters)[0]


class Stats:
    """Collects DataflowStats values with their provenance."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.prov: dict[str, str] = {}

    def measured(self, name: str, value: float, how: str) -> None:
        self.values[name] = value
        self.prov[f"stats.{name}"] = f"measured: {how}"

    def defaulted(self, name: str, why: str, value: Any = None) -> None:
        if value is not None:
            self.values[name] = value
        self.prov.setdefault(f"stats.{name}", f"defaulted: {why}")


@dataclass
class JobContext:
    """What the steps of :func:`build_statistics` share: the history, its configuration and
    counters, the task counts, and the statistics and warnings collected so far."""

    h: JobHistory
    props: dict[str, str]
    conf_source: str
    cfg: HadoopConfig
    J: dict[str, float]
    M: dict[str, float]
    R: dict[str, float]
    n_maps: int
    n_red: int
    warnings: list[str]
    st: Stats = field(default_factory=Stats)

    @property
    def map_only(self) -> bool:
        return self.n_red == 0

    @property
    def parts(self) -> float:
        """Partitions per map output (1 for a map-only job's single file)."""
        return float(max(self.n_red, 1))


@dataclass
class MapSide:
    """Intermediate results of the map-side steps that later steps need."""

    stored: float
    uncompressed: float
    input_compressed: bool
    input_note: str
    width: float | None = None  # map output pair width
    spills: float = 0.0
    has_combiner: bool = False
    final_recs: float | None = None  # records in the maps' final output files


def input_stats(job: JobContext) -> MapSide:
    """Stored and uncompressed input bytes, and the input compression ratio."""
    M, st, warnings = job.M, job.st, job.warnings
    stored, input_note = stored_input(M)
    if stored <= 0:
        stored = M.get("HDFS_BYTES_READ", 0.0) or job.J.get("HDFS_BYTES_READ", 0.0)
        if stored > 0:
            warnings.append(
                f"the maps read no input data (HDFS_BYTES_READ = {stored:.0f} is split "
                "metadata only): input_bytes set to it"
            )
            input_note = "HDFS_BYTES_READ (split metadata only)"
        else:
            stored = float(job.n_maps)
            warnings.append("no input byte counters: input_bytes set to 1 byte per map")
            input_note = "no counter (1 byte per map)"
    uncompressed = M.get("MAP_INPUT_BYTES", 0.0)
    input_compressed = False
    if uncompressed > 0 and stored / uncompressed < 0.95:
        input_compressed = True
        st.measured(
            "input_compress_ratio",
            min(stored / uncompressed, 1.5),
            "stored input bytes / MAP_INPUT_BYTES",
        )
    else:
        st.defaulted(
            "input_compress_ratio",
            "input not compressed (or its raw size not recorded)",
        )
        uncompressed = stored
    return MapSide(stored, uncompressed, input_compressed, input_note)


def map_output_stats(job: JobContext, ms: MapSide) -> None:
    """Input pair width, map size and pairs selectivities, and spills per map (from the conf)."""
    M, st, uncompressed = job.M, job.st, ms.uncompressed
    mir, mor, mob = (
        M.get(k) for k in ("MAP_INPUT_RECORDS", "MAP_OUTPUT_RECORDS", "MAP_OUTPUT_BYTES")
    )
    if mir and mir > 0:
        st.measured("input_pair_width", uncompressed / mir, "input bytes / MAP_INPUT_RECORDS")
    else:
        st.defaulted("input_pair_width", "MAP_INPUT_RECORDS not recorded or 0")
    if job.map_only and (not mob or mob <= 0):
        out_b = M.get("OUTPUT_FORMAT_BYTES_WRITTEN") or M.get("HDFS_BYTES_WRITTEN")
        if out_b and uncompressed > 0:
            st.measured(
                "map_size_sel",
                out_b / uncompressed,
                "map-only output bytes (BYTES_WRITTEN / HDFS_BYTES_WRITTEN) / input bytes",
            )
        else:
            st.defaulted("map_size_sel", "map output bytes not recorded")
    elif mob is not None and uncompressed > 0:
        st.measured("map_size_sel", mob / uncompressed, "MAP_OUTPUT_BYTES / input bytes")
    else:
        st.defaulted("map_size_sel", "MAP_OUTPUT_BYTES not recorded")
    if mor is not None and mir:
        st.measured("map_pairs_sel", mor / mir, "MAP_OUTPUT_RECORDS / MAP_INPUT_RECORDS")
    else:
        st.defaulted("map_pairs_sel", "MAP_OUTPUT_RECORDS or MAP_INPUT_RECORDS not recorded")
    ms.width = (mob / mor) if (mob and mor) else None
    if not job.map_only and mor and ms.width:
        batch = ConfigBatch.from_configs([job.cfg])
        per_spill = float(records_per_spill(batch, ms.width)[0])
        ms.spills = float(math.ceil((mor / job.n_maps) / per_spill)) if mor > 0 else 0.0


_COMBINE_STATS = ("combine_pairs_sel", "combine_size_sel", "combine_profiled_input_records")


def combiner_stats(job: JobContext, ms: MapSide) -> None:
    """Combiner selectivity and records per combine call; the maps' final output records."""
    M, st, cfg, spills = job.M, job.st, job.cfg, ms.spills
    cir = M.get("COMBINE_INPUT_RECORDS", 0.0)
    cor = M.get("COMBINE_OUTPUT_RECORDS")
    ms.has_combiner = bool(cfg.combine_class) or cir > 0
    if ms.has_combiner and not cfg.combine_class:
        # the counters show a combiner the configuration does not name (Rumen, no conf)
        job.cfg = cfg = cfg.model_copy(update={"combine_class": UNKNOWN_COMBINER})
    sr_map = M.get("SPILLED_RECORDS")
    if not ms.has_combiner:
        ms.final_recs = M.get("MAP_OUTPUT_RECORDS")
        for name in _COMBINE_STATS:
            st.defaulted(name, "the job has no combiner")
    elif cir <= 0:
        for name in _COMBINE_STATS:
            st.defaulted(name, "a combiner is configured but COMBINE_INPUT_RECORDS is 0")
    else:
        how = "COMBINE_OUTPUT_RECORDS / COMBINE_INPUT_RECORDS (map side)"
        if cor is None and sr_map is not None and spills <= 1:
            cor = sr_map  # one spill, no merge: what the combiner wrote is what was spilled
            how = "map SPILLED_RECORDS / COMBINE_INPUT_RECORDS (one spill per map)"
        if cor is not None and cor > 0:
            sel = min(cor / cir, 1.0)
            st.measured("combine_pairs_sel", sel, how)
            calls = max(spills, 1.0)
            if spills > 1 and spills >= cfg.combine_min_spills:
                calls += 1.0  # the combiner runs again in the final merge
            st.measured(
                "combine_profiled_input_records",
                cir / (job.n_maps * calls),
                f"COMBINE_INPUT_RECORDS / ({job.n_maps} maps × {calls:g} calls; spills from "
                "the conf)",
            )
            ms.final_recs = cor if spills <= 1 else None
            st.defaulted(
                "combine_size_sel",
                "combiner output width not recorded: width kept (= pairs sel)",
                value=sel,
            )
        else:
            for name in _COMBINE_STATS:
                st.defaulted(name, "combiner output records not recorded")
    groups, raw = job.R.get("REDUCE_INPUT_GROUPS"), M.get("MAP_OUTPUT_RECORDS")
    points = (
        [(raw, groups, "REDUCE_INPUT_GROUPS")]
        if ms.has_combiner and groups and raw and not job.map_only
        else []
    )
    fit_beta_from_groups(st, points, "DESIGN decision 4 default exponent")
    if points:
        maps = [a.counters for a in job.h.successful("map")]
        zipf_key_law(st, maps, ms.spills <= 1, float(groups), float(raw))
    why = "combined width not measurable (compressed, or final records unknown): width kept"
    for name in ("combine_width_growth", "combine_profiled_merge_factor"):
        st.defaulted(name, why if ms.has_combiner else "the job has no combiner")
    st.defaulted("max_distinct_keys", "not observable from counters")


def combined_width(job: JobContext, ms: MapSide) -> float | None:
    """Pair width of the maps' final output (after the combiner)."""
    if not ms.width:
        return None
    if not ms.has_combiner:
        return ms.width
    v = job.st.values
    return ms.width * (v.get("combine_size_sel", 1.0) / v.get("combine_pairs_sel", 1.0))


def materialized_stats(job: JobContext, ms: MapSide) -> dict[str, CodecStats]:
    """IFile record overhead, or the intermediate codec's ratio when map output is compressed."""
    st, cfg, final_recs = job.st, job.cfg, ms.final_recs
    mat = job.M.get("MAP_OUTPUT_MATERIALIZED_BYTES")
    codecs: dict[str, CodecStats] = {}
    fw = combined_width(job, ms) if final_recs and final_recs > 0 else None
    if cfg.map_output_compress and not job.map_only:  # mrtune.profiling.codecs
        codecs = measure_map_output_codec(
            cfg.map_output_codec,
            (job.M, job.R, job.J),
            final_recs,
            fw,
            job.parts,
            job.n_maps,
            job.warnings,
        )
    if job.map_only or not mat:
        st.defaulted(
            "ifile_record_overhead", "no materialized map output (map-only or not recorded)"
        )
    elif cfg.map_output_compress:
        st.defaulted("ifile_record_overhead", "map output is compressed: overhead not separable")
    elif ms.has_combiner and final_recs and ms.width:
        combined_width_stats(job, ms, mat, final_recs)
    elif fw is not None and final_recs:
        ifile_overhead(job, mat, final_recs, fw)
    else:
        st.defaulted(
            "ifile_record_overhead", "final map output records not known (combiner output)"
        )
    sr_map = job.M.get("SPILLED_RECORDS")
    if sr_map is not None and final_recs and ms.spills == 1 and not job.map_only:
        if abs(sr_map - final_recs) > 0.01 * final_recs + 1:
            job.warnings.append(
                f"map SPILLED_RECORDS ({sr_map:.0f}) differs from the one spill per map the "
                f"configuration implies ({final_recs:.0f} records): the configuration may not be "
                "the one the job ran with"
            )
    return codecs


def combined_width_stats(job: JobContext, ms: MapSide, mat: float, final_recs: float) -> None:
    """With a combiner, uncompressed materialized bytes give the combined width and the
    width law (:func:`mrtune.profiling.combine_fit.measure_combined_width`)."""
    segments = job.parts * job.n_maps
    raw = job.M.get("MAP_OUTPUT_RECORDS", 0.0)
    measure_combined_width(job.st, ms.width or 0.0, raw, mat, segments, final_recs)


def ifile_overhead(job: JobContext, mat: float, final_recs: float, fw: float) -> None:
    """Bytes per record the IFile adds (uncompressed map output), clamped to [0, 20]."""
    ovh = (mat - IFILE_SEGMENT_BYTES * job.parts * job.n_maps) / final_recs - fw
    if ovh < 0:
        job.st.defaulted(
            "ifile_record_overhead",
            "MAP_OUTPUT_MATERIALIZED_BYTES is smaller than the records it holds: the map "
            "output was probably compressed (is the configuration missing?)",
        )
        job.warnings.append(
            f"MAP_OUTPUT_MATERIALIZED_BYTES ({mat:.0f}) < records × pair width: map output "
            "looks compressed but the configuration says it is not"
        )
    else:
        job.st.measured(
            "ifile_record_overhead",
            float(min(ovh, 20.0)),
            "(MAP_OUTPUT_MATERIALIZED_BYTES − 6·partitions·maps)/records − width",
        )


def reduce_stats(job: JobContext, ms: MapSide) -> None:
    """Reduce pairs selectivity, pairs per group, size selectivity; output compression."""
    R, st, cfg = job.R, job.st, job.cfg
    rir, rig, ror = (
        R.get(k) for k in ("REDUCE_INPUT_RECORDS", "REDUCE_INPUT_GROUPS", "REDUCE_OUTPUT_RECORDS")
    )
    if job.map_only:
        for name in ("reduce_size_sel", "reduce_pairs_sel", "reduce_pairs_per_group"):
            st.defaulted(name, "map-only job")
    else:
        if rir and rir > 0 and ror is not None:
            st.measured(
                "reduce_pairs_sel", ror / rir, "REDUCE_OUTPUT_RECORDS / REDUCE_INPUT_RECORDS"
            )
        else:
            st.defaulted("reduce_pairs_sel", "reduce record counters not recorded")
        if rir and rig and rig > 0:
            st.measured(
                "reduce_pairs_per_group",
                max(rir / rig, 1.0),
                "REDUCE_INPUT_RECORDS / REDUCE_INPUT_GROUPS",
            )
        else:
            st.defaulted("reduce_pairs_per_group", "REDUCE_INPUT_GROUPS not recorded")
        out_b = R.get("OUTPUT_FORMAT_BYTES_WRITTEN") or R.get("HDFS_BYTES_WRITTEN")
        red_w = combined_width(job, ms)
        if out_b is not None and rir and red_w:
            note = " (compressed output)" if cfg.output_compress else ""
            st.measured(
                "reduce_size_sel",
                out_b / (rir * red_w),
                f"output bytes{note} / (REDUCE_INPUT_RECORDS × pair width)",
            )
        else:
            st.defaulted("reduce_size_sel", "reduce output or input bytes not recorded")
    st.defaulted(
        "out_compress_ratio",
        "uncompressed output size is not recorded"
        if cfg.output_compress
        else "job output not compressed",
    )


def dataflow_statistics(job: JobContext) -> tuple[DataflowStats, dict[str, CodecStats], MapSide]:
    """Every dataflow statistic of the job (unmeasured ones at their defaults), the measured
    intermediate codec ratio, and the map-side quantities later steps need."""
    ms = input_stats(job)
    map_output_stats(job, ms)
    combiner_stats(job, ms)
    codecs = materialized_stats(job, ms)
    reduce_stats(job, ms)
    st = job.st
    stats = DataflowStats(
        **{k: v for k, v in st.values.items() if k in DataflowStats.model_fields}
    )
    for name in DataflowStats.model_fields:
        st.prov.setdefault(f"stats.{name}", "defaulted: Starfish/mrtune default")
    return stats, codecs, ms
