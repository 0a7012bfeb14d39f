"""Job history (+ job configuration) → :class:`mrtune.costmodel.JobProfile`.

Dataflow statistics come from counters, as Starfish's ``MRMapProfileLoader`` /
``MRReduceProfileLoader`` define them (reference §1.2, Table 2); every statistic records in
``profile.provenance["stats.<name>"]`` whether it was *measured* (and from which counters) or
*defaulted* (and why). Cost factors are fitted afterwards by :mod:`mrtune.calibration.cost_factors`.

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
from typing import Any

from pydantic import ValidationError

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_task import records_per_spill
from mrtune.costmodel.profile import (
    CODEC_PRIORS,
    CodecStats,
    CostFactors,
    DataflowStats,
    JobProfile,
)
from mrtune.errors import InputError
from mrtune.profiling.task_checks import screen_history
from mrtune.readers.conf import ConfFile
from mrtune.readers.history import JobHistory

#: IFile: 2 EOF bytes + 4 checksum bytes per partition segment (``IFile.Writer.close``).
IFILE_SEGMENT_BYTES = 6.0
IFILE_CHECKSUM_BYTES = 4.0
IFILE_EOF_BYTES = 2.0
#: ``combine_class`` of a configuration whose combiner is known only from its counters.
UNKNOWN_COMBINER = "(combiner seen in counters; class not recorded)"


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


def profiled_config(
    props: Mapping[str, str], hadoop_version: int | None, warnings: list[str] | None = None
) -> HadoopConfig:
    """``HadoopConfig`` of the profiled run; properties the model cannot accept are dropped.

    A real job configuration can hold values the model refuses (an LZO codec, an unresolved
    ``${var}``, settings that only make sense on that cluster). Those properties are left out,
    each with a warning, instead of losing the whole configuration.
    """
    warnings = warnings if warnings is not None else []
    version = hadoop_version or 3
    props = dict(props)
    for _ in range(len(props) + 1):
        try:
            return HadoopConfig.from_properties(props, hadoop_version=version)
        except (ValidationError, ValueError) as exc:
            bad = _offending_property(props, version)
            if bad is None:
                warnings.append(f"configuration not usable ({exc}); Hadoop defaults assumed")
                return HadoopConfig(hadoop_version=version)
            warnings.append(
                f"configuration property {bad}={props[bad]!r} is not usable by the model; "
                "its default is assumed"
            )
            del props[bad]
    return HadoopConfig(hadoop_version=version)


def _offending_property(props: dict[str, str], version: int) -> str | None:
    """The first property that fails on its own, or that breaks a cross-field rule."""
    known = {f.alias for f in HadoopConfig.model_fields.values() if f.alias}
    from mrtune.costmodel.properties import DEPRECATED_NAMES

    model_props = [k for k in props if DEPRECATED_NAMES.get(k, k) in known or k in known]
    for k in model_props:
        try:
            HadoopConfig.from_properties({k: props[k]}, hadoop_version=version)
        except (ValidationError, ValueError):
            return k
    # each is fine alone: drop the last model property taking part in a failing combination
    for k in reversed(model_props):
        rest = {kk: v for kk, v in props.items() if kk != k}
        try:
            HadoopConfig.from_properties(rest, hadoop_version=version)
            return k
        except (ValidationError, ValueError):
            continue
    return None


def _ratio(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den <= 0 or num < 0:
        return None
    return num / den


class _Stats:
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


def _check_usable(h: JobHistory) -> None:
    if h.attempts:
        return
    name = h.source
    if h.status in ("FAILED", "KILLED", "ERROR"):
        diag = h.diagnostics.strip().splitlines()[0] if h.diagnostics.strip() else ""
        raise InputError(
            f"job {h.job_id} {h.status}: no successful task attempt to profile "
            f"({h.failed_attempts} failed, {h.killed_attempts} killed attempts"
            + (f"; {diag}" if diag else "")
            + ")",
            path=name,
        )
    if not h.complete:
        raise InputError(
            f"truncated job history (no JOB_FINISHED event) and no finished task attempt: "
            f"nothing to profile for {h.job_id}",
            path=name,
        )
    raise InputError(
        f"no successful task attempt for job {h.job_id}: nothing to profile", path=name
    )


def build_statistics(
    history: JobHistory,
    conf: ConfFile | Mapping[str, str] | None = None,
) -> tuple[JobProfile, HadoopConfig]:
    """Turn a job history (and its configuration) into an uncalibrated :class:`JobProfile`.

    Returns the profile (dataflow statistics measured from the counters, cost factors at their
    defaults) and the job's configuration, which :mod:`mrtune.calibration` needs to fit the
    cost factors to the observed task times.
    """
    h = screen_history(history)  # inconsistent attempts excluded, with a counted warning
    _check_usable(h)
    warnings = list(h.warnings)
    if h.status in ("FAILED", "KILLED", "ERROR", "RUNNING", "NEW", "INITED", "PREP"):
        warnings.append(
            f"job {h.status}: profile built from its {len(h.attempts)} successful attempt(s) only"
        )
    if h.failed_attempts or h.killed_attempts:
        warnings.append(
            f"{h.failed_attempts} failed and {h.killed_attempts} killed attempt(s) excluded"
        )

    # ---- configuration
    props = dict(h.properties)
    conf_source = "history" if props else ""
    if conf is not None:
        conf_props = conf.properties if isinstance(conf, ConfFile) else dict(conf)
        props.update(conf_props)
        conf_source = conf.path if isinstance(conf, ConfFile) else "given properties"
    if not props:
        warnings.append("no job configuration: Hadoop defaults assumed (give --conf)")
    cfg = profiled_config(props, h.hadoop_version, warnings)

    # ---- counters and task counts
    J = h.job_counters()
    M = h.side_counters("map")
    R = h.side_counters("reduce")
    if not J and not M and not R:
        warnings.append("the history holds no counters: every dataflow statistic is defaulted")
    n_maps = h.total_maps if (h.status == "SUCCEEDED" and h.total_maps) else h.num_maps
    n_maps = max(int(n_maps or 0), len(h.successful("map")), 1)
    if h.status == "SUCCEEDED" and h.total_reduces is not None:
        n_red = int(h.total_reduces)
    else:
        n_red = max(h.num_reduces, 0)
    if n_red == 0 and not h.successful("reduce") and "mapreduce.job.reduces" in props:
        try:
            n_red = int(props["mapreduce.job.reduces"])
        except ValueError:
            pass
    map_only = n_red == 0
    parts = float(max(n_red, 1))
    if cfg.num_reducers != n_red:
        cfg = cfg.model_copy(update={"num_reducers": n_red})

    st = _Stats()

    # ---- input
    stored, input_note = stored_input(M)
    if stored <= 0:
        stored = M.get("HDFS_BYTES_READ", 0.0) or J.get("HDFS_BYTES_READ", 0.0)
        if stored > 0:
            warnings.append(
                f"the maps read no input data (HDFS_BYTES_READ = {stored:.0f} is split "
                "metadata only): input_bytes set to it"
            )
            input_note = "HDFS_BYTES_READ (split metadata only)"
        else:
            stored = float(n_maps)
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

    # ---- map side
    mir, mor, mob = (
        M.get(k) for k in ("MAP_INPUT_RECORDS", "MAP_OUTPUT_RECORDS", "MAP_OUTPUT_BYTES")
    )
    if mir and mir > 0:
        st.measured(
            "input_pair_width",
            uncompressed / mir,
            "input bytes / MAP_INPUT_RECORDS",
        )
    else:
        st.defaulted("input_pair_width", "MAP_INPUT_RECORDS not recorded or 0")
    if map_only and (not mob or mob <= 0):
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

    width = (mob / mor) if (mob and mor) else None  # map output pair width
    # spills per map from the configuration
    spills = 0.0
    if not map_only and mor and width:
        batch = ConfigBatch.from_configs([cfg])
        per_spill = float(records_per_spill(batch, width)[0])
        spills = float(math.ceil((mor / n_maps) / per_spill)) if mor > 0 else 0.0

    # ---- combiner
    cir = M.get("COMBINE_INPUT_RECORDS", 0.0)
    cor = M.get("COMBINE_OUTPUT_RECORDS")
    has_combiner = bool(cfg.combine_class) or cir > 0
    if has_combiner and not cfg.combine_class:
        # the counters show a combiner the configuration does not name (Rumen, no conf)
        cfg = cfg.model_copy(update={"combine_class": UNKNOWN_COMBINER})
    sr_map = M.get("SPILLED_RECORDS")
    final_recs: float | None = None  # records in the maps' final output files
    if not has_combiner:
        final_recs = mor
        for name in ("combine_pairs_sel", "combine_size_sel", "combine_profiled_input_records"):
            st.defaulted(name, "the job has no combiner")
    elif cir <= 0:
        final_recs = None
        for name in ("combine_pairs_sel", "combine_size_sel", "combine_profiled_input_records"):
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
                cir / (n_maps * calls),
                f"COMBINE_INPUT_RECORDS / ({n_maps} maps × {calls:g} calls; spills from the conf)",
            )
            final_recs = cor if spills <= 1 else None
            st.defaulted(
                "combine_size_sel",
                "combiner output width not recorded: width kept (= pairs sel)",
                value=sel,
            )
        else:
            for name in (
                "combine_pairs_sel",
                "combine_size_sel",
                "combine_profiled_input_records",
            ):
                st.defaulted(name, "combiner output records not recorded")
    st.defaulted("combiner_heaps_beta", "DESIGN decision 4 default exponent")
    st.defaulted("max_distinct_keys", "not observable from counters")

    # ---- materialized map output: IFile overhead or intermediate compression ratio
    mat = M.get("MAP_OUTPUT_MATERIALIZED_BYTES")
    codecs: dict[str, CodecStats] = {}
    fw = None
    if final_recs and final_recs > 0 and width:
        fw = width * (
            st.values.get("combine_size_sel", 1.0) / st.values.get("combine_pairs_sel", 1.0)
            if has_combiner
            else 1.0
        )
    if map_only or not mat:
        st.defaulted(
            "ifile_record_overhead", "no materialized map output (map-only or not recorded)"
        )
    elif cfg.map_output_compress:
        st.defaulted("ifile_record_overhead", "map output is compressed: overhead not separable")
        if fw is not None and final_recs:
            u = final_recs * (fw + 2.0) + IFILE_EOF_BYTES * parts * n_maps
            ratio = (mat - IFILE_CHECKSUM_BYTES * parts * n_maps) / u
            if 0 < ratio <= 1.5:
                prior = CODEC_PRIORS[cfg.map_output_codec]
                codecs[cfg.map_output_codec] = CodecStats(
                    ratio=ratio,
                    compress_ns_per_byte=prior.compress_ns_per_byte,
                    uncompress_ns_per_byte=prior.uncompress_ns_per_byte,
                    source=(
                        "measured: ratio = (MAP_OUTPUT_MATERIALIZED_BYTES − checksums) / "
                        "uncompressed IFile bytes; CPU costs " + prior.source
                    ),
                )
    elif fw is not None and final_recs:
        ovh = (mat - IFILE_SEGMENT_BYTES * parts * n_maps) / final_recs - fw
        if ovh < 0:
            st.defaulted(
                "ifile_record_overhead",
                "MAP_OUTPUT_MATERIALIZED_BYTES is smaller than the records it holds: the map "
                "output was probably compressed (is the configuration missing?)",
            )
            warnings.append(
                f"MAP_OUTPUT_MATERIALIZED_BYTES ({mat:.0f}) < records × pair width: map output "
                "looks compressed but the configuration says it is not"
            )
        else:
            st.measured(
                "ifile_record_overhead",
                float(min(ovh, 20.0)),
                "(MAP_OUTPUT_MATERIALIZED_BYTES − 6·partitions·maps)/records − width",
            )
    else:
        st.defaulted(
            "ifile_record_overhead", "final map output records not known (combiner output)"
        )
    if sr_map is not None and final_recs and spills == 1 and not map_only:
        if abs(sr_map - final_recs) > 0.01 * final_recs + 1:
            warnings.append(
                f"map SPILLED_RECORDS ({sr_map:.0f}) differs from the one spill per map the "
                f"configuration implies ({final_recs:.0f} records): the configuration may not be "
                "the one the job ran with"
            )

    # ---- reduce side
    rir, rig, ror = (
        R.get(k) for k in ("REDUCE_INPUT_RECORDS", "REDUCE_INPUT_GROUPS", "REDUCE_OUTPUT_RECORDS")
    )
    if map_only:
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
        red_w = width
        if red_w and has_combiner:
            red_w *= st.values.get("combine_size_sel", 1.0) / st.values.get(
                "combine_pairs_sel", 1.0
            )
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

    stats_values = {k: v for k, v in st.values.items() if k in DataflowStats.model_fields}
    stats = DataflowStats(**stats_values)
    for name in DataflowStats.model_fields:
        st.prov.setdefault(f"stats.{name}", "defaulted: Starfish/mrtune default")

    # ---- number of input files: reproduce the observed maps when the conf's count cannot
    split = cfg.split_size
    files_conf = _int_prop(props, "mapreduce.input.fileinputformat.numinputfiles")
    input_files, files_how = n_maps, "one file per map (reproduces the observed number of maps)"
    if files_conf and files_conf > 0 and _maps_for(stored, files_conf, split) == n_maps:
        input_files, files_how = files_conf, "mapreduce.input.fileinputformat.numinputfiles"
    elif _maps_for(stored, 1, split) == n_maps:
        input_files, files_how = 1, "one file (its splits give the observed number of maps)"

    # ---- cluster facts
    facts: dict[str, float | str] = dict(h.facts)
    facts.update(
        {
            "source_format": h.source_format,
            "source": h.source,
            "conf_source": conf_source or "none",
            "status": h.status,
            "hadoop_version": float(cfg.hadoop_version),
            "num_maps": float(n_maps),
            "num_reduces": float(n_red),
            "successful_map_attempts": float(len(h.successful("map"))),
            "successful_reduce_attempts": float(len(h.successful("reduce"))),
            "failed_attempts": float(h.failed_attempts),
            "killed_attempts": float(h.killed_attempts),
            "duplicate_attempt_events": float(h.duplicates_dropped),
            "input_bytes": float(stored),
            "input_files": float(input_files),
            "input_files_source": files_how,
            "uberized": "true" if h.uberized else "false",
            "map_container_mb_conf": float(cfg.map_container_mb),
            "reduce_container_mb_conf": float(cfg.reduce_container_mb),
            "map_heap_mb_conf": float(cfg.map_heap_bytes / 2**20),
            "reduce_heap_mb_conf": float(cfg.reduce_heap_bytes / 2**20),
        }
    )
    if spills:
        facts["spills_per_map_estimated"] = spills
    if files_conf:
        facts["input_files_conf"] = float(files_conf)
    if h.launch_ms and h.finish_ms:
        facts["job_ms"] = float(h.finish_ms - h.launch_ms)
    for side, mb_key, ms_key, vc_key in (
        ("map", "MB_MILLIS_MAPS", "MILLIS_MAPS", "VCORES_MILLIS_MAPS"),
        ("reduce", "MB_MILLIS_REDUCES", "MILLIS_REDUCES", "VCORES_MILLIS_REDUCES"),
    ):
        mb, ms, vc = J.get(mb_key), J.get(ms_key), J.get(vc_key)
        if mb and ms and ms > 0:
            facts[f"{side}_container_mb"] = mb / ms
            facts[f"{side}_container_mb_source"] = f"{mb_key} / {ms_key}"
        else:
            facts[f"{side}_container_mb"] = float(
                cfg.map_container_mb if side == "map" else cfg.reduce_container_mb
            )
            facts[f"{side}_container_mb_source"] = "configuration"
        if vc and ms and ms > 0:
            facts[f"{side}_vcores"] = vc / ms

    # ---- observed task timings
    from mrtune.costmodel.profile import TaskTiming

    last_map = max((a.finish_ms for a in h.successful("map")), default=None)
    observed = []
    for a in sorted(h.attempts, key=lambda a: (a.kind != "map", a.start_ms, a.attempt_id)):
        phases = a.phases_ms()
        if a.kind == "reduce" and last_map is not None and a.start_ms < last_map:
            end = a.shuffle_finish_ms if a.shuffle_finish_ms is not None else a.finish_ms
            phases["shuffle_wait"] = float(max(min(last_map, end) - a.start_ms, 0))
        observed.append(
            TaskTiming(
                attempt_id=a.attempt_id,
                kind=a.kind,
                start_ms=a.start_ms,
                finish_ms=a.finish_ms,
                phases_ms=phases,
                counters=dict(a.counters),
            )
        )

    profile = JobProfile(
        job_id=h.job_id,
        job_name=h.job_name,
        input_bytes=float(stored),
        input_files=int(input_files),
        input_compressed=input_compressed,
        input_splittable=True,
        has_combiner=has_combiner,
        combine_class=cfg.combine_class if cfg.combine_class != UNKNOWN_COMBINER else None,
        map_only=map_only,
        stats=stats,
        costs=CostFactors(),
        codecs=codecs,
        provenance={
            **st.prov,
            "input_bytes": f"measured: {input_note}",
            "input_files": f"measured: {files_how}",
        },
        source_properties={str(k): str(v) for k, v in props.items()},
        cluster_facts=facts,
        observed=observed,
        observed_counters=J,
        warnings=_dedupe(warnings),
    )
    return profile, cfg


def _maps_for(stored: float, files: int, split: int) -> int:
    """Maps the new-API FileInputFormat makes for ``files`` equal files (SPLIT_SLOP 1.1)."""
    size = stored / files
    k = max(math.ceil(size / split - 1.1), 0)
    return files * (k + 1)


def _int_prop(props: Mapping[str, str], key: str) -> int | None:
    try:
        return int(str(props[key]).strip())
    except (KeyError, ValueError):
        return None


def _dedupe(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for i in items:
        if i not in seen:
            seen.add(i)
            out.append(i)
    return out


def profile_config(profile: JobProfile) -> HadoopConfig:
    """The profiled run's configuration as a :class:`HadoopConfig` (for a what-if baseline)."""
    raw = str(profile.cluster_facts.get("hadoop_version", 3)).strip()
    try:  # "3", 3.0 or a release string such as "3.5.0": the major version
        version = int(float(raw)) if raw.count(".") <= 1 else int(raw.split(".", 1)[0])
    except ValueError:
        version = 3
    cfg = profiled_config(profile.source_properties, version)
    if profile.has_combiner and not cfg.combine_class:
        cfg = cfg.model_copy(update={"combine_class": profile.combine_class or UNKNOWN_COMBINER})
    n_red = profile.cluster_facts.get("num_reduces")
    if isinstance(n_red, float) and int(n_red) != cfg.num_reducers:
        cfg = cfg.model_copy(update={"num_reducers": int(n_red)})
    return cfg
