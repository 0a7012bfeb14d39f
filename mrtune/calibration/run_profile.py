"""A real local-mode run record → :class:`mrtune.costmodel.JobProfile` (issue 5, Deliver 2).

A local run (``LocalJobRunner``) writes no ``.jhist``; the harness's
:class:`mrtune.readers.run_records.RunRecord` holds instead every attempt's "Final Counters" block and
the per-task events of the log. This module turns one record into

* the run's :class:`~mrtune.costmodel.HadoopConfig` (:func:`run_config`): the resolved properties, the
  JVM heap as ``-Xmx`` of both task kinds (every task shares the one JVM), the local file
  system's 32 MiB block size (``fs.local.block.size``, what splits default to), and
  ``mapreduce.reduce.memory.totalbytes`` chosen so that the model's shuffle memory limit equals
  the one ``MergeManagerImpl`` logged (:func:`hadoop_memory_limit`);
* a :class:`~mrtune.costmodel.ClusterSpec` of local mode (:func:`local_cluster`);
* a :class:`~mrtune.costmodel.JobProfile` (:func:`profile_from_run`) whose dataflow statistics come
  from the counters and whose cost factors are this machine's, fitted by
  :func:`mrtune.calibration.cost_factors.fit_cost_factors` on the run's phase times.

Local-mode specifics (``shared/spec/real-hadoop.md``): FILE_BYTES_READ/WRITTEN are
JVM-cumulative, so each attempt's counters carry its own delta
(:attr:`~mrtune.readers.run_records.TaskAttemptBase.file_bytes_read_delta`); a map's input is the
records it read times the input pair width (``FileInputFormatCounter.BYTES_READ`` includes the
read-ahead past the split end, so it is not the split's share of the file).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from mrtune.calibration.cost_units import COST_UNIT_KEY, cost_unit_statement
from mrtune.calibration.job_overhead import with_job_overhead
from mrtune.calibration.run_codecs import (
    codec_ratios_from,
    codecs_from_runs,
    combined_width_factor,
    ifile_and_codecs,
    probe_codecs,
)
from mrtune.calibration.run_combiner import Prov, combiner_stats, run_knots_on_model_layout
from mrtune.calibration.run_inputs import (
    ignored_settings_line,
    input_compression_note,
    input_files,
    old_api_note,
    profile_for_run,
    unsplittable,
)
from mrtune.calibration.run_record import (
    LOCAL_BLOCK_SIZE,
    flat_counters,
    hadoop_memory_limit,
    job_overhead_ms,
    local_cluster,
    map_split_bytes,
    map_timing,
    model_props,
    reduce_merge_end_ms,
    reduce_timing,
    run_config,
    run_timings,
)
from mrtune.calibration.run_widths import record_width, split_width
from mrtune.calibration.self_check import with_self_check
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import CodecStats, CostFactors, DataflowStats, JobProfile
from mrtune.errors import InputError
from mrtune.profiling.combiner_api import run_combiner_api
from mrtune.profiling.input_classes import old_api
from mrtune.profiling.map_output_share import run_emits_share
from mrtune.profiling.partition_skew import partition_skew
from mrtune.readers.run_records import RunRecord

if TYPE_CHECKING:
    from mrtune.calibration.machine_costs import MachineCosts

#: Re-exported: the run-record readers and codec helpers lived here before the split.
__all__ = [
    "LOCAL_BLOCK_SIZE",
    "codec_ratios_from",
    "codecs_from_runs",
    "flat_counters",
    "hadoop_memory_limit",
    "job_overhead_ms",
    "local_cluster",
    "map_split_bytes",
    "map_timing",
    "profile_for_run",
    "profile_from_run",
    "reduce_merge_end_ms",
    "reduce_timing",
    "run_config",
    "run_timings",
]


def profile_from_run(
    rec: RunRecord,
    *,
    calibrate: bool = True,
    codec_runs: Iterable[RunRecord] = (),
    machine: MachineCosts | None = None,
) -> JobProfile:
    """Build the job's profile from one successful run (see the module doc).

    ``codec_runs``: other runs whose map output was compressed; those with the same map output
    data (same input file and map output pair width, e.g. the sort and selectivity jobs over
    one record file) give their codec's measured ratio on this data (the calibration run, at
    Hadoop's defaults, compresses nothing). Without them codecs fall back to documented priors.

    ``machine``: this machine's cost factors from a benchmark (:mod:`mrtune.calibration.machine`).
    The run then refits only the job's own costs (:data:`mrtune.calibration.machine_costs.
    JOB_FACTORS`) and every other factor, and the codecs' CPU, are the machine's.
    """
    _check_run(rec)
    cfg = run_config(rec)
    st = Prov()
    J = flat_counters(rec.counters)
    stored = float(rec.input.bytes)
    width_in, width = _map_side_stats(rec, J, stored, st)
    _reduce_side_stats(J, st)
    has_combiner = cfg.combine_class is not None
    n_files, classes, files_how = input_files(rec)
    whole = unsplittable(rec, cfg)
    profile = JobProfile(
        job_id=rec.job_id or rec.run_id,
        job_name=rec.job,
        input_bytes=stored,
        input_files=n_files,
        map_classes=classes,
        input_splittable=whole is None,
        split_units=whole,
        old_api_splits=old_api(rec.ran_with()),
        has_combiner=has_combiner,
        combine_class=cfg.combine_class,
        old_api_combiner=run_combiner_api(rec) if has_combiner else None,
        map_only=rec.num_reduces == 0,
        map_output_floor=run_emits_share(rec),
        stats=DataflowStats(**{k: v for k, v in st.values.items()}),
        fixed_by_job=list(rec.fixed_by_job),
    )
    profile, final_recs = combiner_stats(profile, cfg, rec, J, width_in, st)
    codec_runs = list(codec_runs)
    warnings: list[str] = [ignored_settings_line(rec)] if rec.ignored_settings() else []
    warnings += [w for w in (whole, old_api_note(rec) if whole is None else None) if w]
    hot, skew_line = partition_skew(run_timings(rec))
    if skew_line:
        warnings.append(skew_line)
    codecs = _codecs(rec, cfg, J, st, (final_recs, width), codec_runs, warnings)
    _reduce_size_sel(J, st, width, has_combiner)
    for name in DataflowStats.model_fields:
        st.prov.setdefault(f"stats.{name}", "defaulted: Starfish/mrtune default")
    profile = profile.model_copy(
        update={
            "stats": DataflowStats(**st.values),
            "codecs": codecs,
            "partition_skew": hot,
            "provenance": {
                **st.prov,
                "input_bytes": "measured: "
                + ("the input files' sizes" if rec.input_file_sizes() else "the input's size"),
                "input_files": files_how,
            },
            # the run's configuration as the model reads it (heap, local block size, shuffle
            # memory): profile_config(profile) then gives run_config(rec) back
            "source_properties": {**model_props(rec), **cfg.to_properties()},
            "cluster_facts": _run_facts(rec, stored),
            "observed": run_timings(rec),
            "observed_counters": J,
            "warnings": warnings,
        }
    )
    return _fitted(profile, cfg, rec, machine if calibrate else False)


def _fitted(
    profile: JobProfile, cfg: HadoopConfig, rec: RunRecord, machine: MachineCosts | None | bool
) -> JobProfile:
    """The dataflow profile's key-law knots on the model's layout, its costs (calibrated on
    the run unless ``machine`` is ``False``), and the self-check against the run."""
    if profile.has_combiner and rec.num_reduces > 0:
        profile = run_knots_on_model_layout(profile, cfg, rec, flat_counters(rec.counters))
    if machine is False:
        built, machine = _uncalibrated(profile), None
    else:
        built = _calibrate_run(profile, cfg, rec, machine)
    unit = cost_unit_statement(built, machine.source if machine is not None else None, rec)
    built = built.model_copy(update={"provenance": {**built.provenance, COST_UNIT_KEY: unit}})
    # the job model under local mode against the run itself (maps, stages), as for histories
    return with_self_check(with_job_overhead(built), cfg, local_cluster(rec))


def _codecs(
    rec: RunRecord,
    cfg: HadoopConfig,
    J: dict[str, float],
    st: Prov,
    final: tuple[float, float],
    codec_runs: list[RunRecord],
    warnings: list[str],
) -> dict[str, CodecStats]:
    """The IFile overhead and each codec's statistics: the run's own, then the probe's (it
    measured every codec on this very data; the calibration run's own compressed output, if
    any, stays first, other runs' ratios come after the probe's)."""
    codecs = ifile_and_codecs(rec, cfg, J, st, final[0], final[1], codec_runs)
    for name, stats in probe_codecs(rec, codec_runs, warnings).items():
        own = codecs.get(name)
        if own is None or f"run {rec.run_id} " not in own.source:
            codecs[name] = stats
    return codecs


def _check_run(rec: RunRecord) -> None:
    """A profile needs a successful run with map attempts."""
    if not rec.success:
        raise InputError(f"run {rec.run_id} failed: no profile from it", field="success")
    if not rec.map_attempts:
        raise InputError(f"run {rec.run_id} has no map attempts", field="map_attempts")


#: A split this small (bytes a map) whose map writes :data:`GENERATED_GROWTH` times more is a
#: generator's dummy split, not input (RandomWriter's RandomInputFormat: one byte a map).
GENERATED_SPLIT_BYTES = 64.0
GENERATED_GROWTH = 1000.0


def _map_side_stats(
    rec: RunRecord, J: dict[str, float], stored: float, st: Prov
) -> tuple[float, float]:
    """Map-side selectivities from the counters; ``(input pair width, map output pair width)``."""
    mir, mor, mob = (
        J.get("MAP_INPUT_RECORDS", 0.0),
        J.get("MAP_OUTPUT_RECORDS", 0.0),
        J.get("MAP_OUTPUT_BYTES", 0.0),
    )
    how = "MAP_OUTPUT_BYTES / input bytes"
    if rec.num_reduces == 0 and mob <= 0:
        # a map-only task writes through NewDirectOutputCollector, which counts records but
        # never MAP_OUTPUT_BYTES: the job's output was profiled as 0 bytes (RandomTextWriter)
        mob = J.get("OUTPUT_FORMAT_BYTES_WRITTEN", 0.0)
        how = "FileOutputFormat BYTES_WRITTEN / input bytes (map-only: no MAP_OUTPUT_BYTES)"
    if mir <= 0:
        raise InputError(f"run {rec.run_id}: MAP_INPUT_RECORDS is 0", field="counters")
    maps = max(len(rec.map_attempts), 1)
    if stored <= 0 or (stored / maps < GENERATED_SPLIT_BYTES and mob > GENERATED_GROWTH * stored):
        # TeraGen's RangeInputFormat: no file read; RandomWriter's and RandomTextWriter's: a
        # one-byte dummy split a map, whose output (5 MB) scaled to 1 GB of "input" was 5.5 PB
        raise InputError(
            f"run {rec.run_id}: its maps read no input to speak of ({stored:.0f} B for "
            f"{mir:.0f} records, {mob:.0f} B of output: an input format that generates its "
            "records, e.g. TeraGen's, RandomWriter's): "
            "mrtune models a job from the bytes its maps read, so this run cannot be profiled",
            field="input.bytes",
            value=stored,
        )
    width_in = stored / mir
    st.measured("input_pair_width", width_in, "input file bytes / MAP_INPUT_RECORDS")
    split_width(rec, st)
    record_width(rec, width_in, st)
    st.measured("map_size_sel", mob / stored, how)
    st.measured("map_pairs_sel", mor / mir, "MAP_OUTPUT_RECORDS / MAP_INPUT_RECORDS")
    st.defaulted("input_compress_ratio", input_compression_note(rec))
    return width_in, (mob / mor if mor > 0 else 0.0)


def _reduce_side_stats(J: dict[str, float], st: Prov) -> None:
    """Reduce-side record selectivity and records per group (``REDUCE_INPUT_*`` counters)."""
    rir = J.get("REDUCE_INPUT_RECORDS", 0.0)
    rig = J.get("REDUCE_INPUT_GROUPS", 0.0)
    ror = J.get("REDUCE_OUTPUT_RECORDS", 0.0)
    if rir > 0:
        st.measured("reduce_pairs_sel", ror / rir, "REDUCE_OUTPUT_RECORDS / REDUCE_INPUT_RECORDS")
        if rig > 0:
            st.measured(
                "reduce_pairs_per_group",
                max(rir / rig, 1.0),
                "REDUCE_INPUT_RECORDS / REDUCE_INPUT_GROUPS",
            )


def _reduce_size_sel(J: dict[str, float], st: Prov, width: float, has_combiner: bool) -> None:
    """Reduce output size selectivity: output bytes over the reduce input's (combined) bytes."""
    rir = J.get("REDUCE_INPUT_RECORDS", 0.0)
    out_b = J.get("OUTPUT_FORMAT_BYTES_WRITTEN")
    if rir > 0 and out_b is not None and width > 0:
        red_w = width * combined_width_factor(st, has_combiner)
        st.measured(
            "reduce_size_sel",
            out_b / (rir * red_w),
            "FileOutputFormat BYTES_WRITTEN / (REDUCE_INPUT_RECORDS × pair width)",
        )


def _run_facts(rec: RunRecord, stored: float) -> dict[str, float | str]:
    """What the run says about where it ran (local mode: one JVM, its heap, the load)."""
    facts: dict[str, float | str] = {
        "source_format": "local-run-record",
        "source": rec.run_id,
        "status": "SUCCEEDED" if rec.success else "FAILED",
        "conf_source": rec.conf_source or "the driver's resolved configuration (MrtTool)",
        "hadoop_version": rec.hadoop_version or "3",
        "num_maps": float(len(rec.map_attempts)),
        "num_reduces": float(rec.num_reduces),
        "input_bytes": stored,
        "xmx_mb": float(rec.xmx_mb),
        "load_avg_1m": float(rec.load_avg_1m or 0.0),
    }
    if (ovh_ms := job_overhead_ms(rec)) is not None:
        facts["job_overhead_ms"] = ovh_ms
    for a in rec.reduce_attempts[:1]:
        if a.limits is not None:
            facts["reduce_memory_limit_logged"] = float(a.limits.memory_limit)
    return facts


def _calibrate_run(
    profile: JobProfile, cfg: HadoopConfig, rec: RunRecord, machine: MachineCosts | None
) -> JobProfile:
    """Fit the cost factors to the run's task times (from the machine's factors, if given)."""
    from mrtune.calibration.cost_factors import fit_cost_factors

    overlap = local_cluster(rec).spill_overlap
    if machine is None:
        return fit_cost_factors(profile, cfg, spill_overlap=overlap, method="ridge").profile
    from mrtune.calibration.machine_costs import JOB_FACTORS

    return fit_cost_factors(
        machine.apply_codecs(profile),
        cfg,
        prior=machine.costs,
        refit=JOB_FACTORS,
        prior_source=f"machine benchmark ({machine.source})",
        spill_overlap=overlap,
        method="ridge",
        warm_prior=machine.warmup_ms,
    ).profile


def _uncalibrated(profile: JobProfile) -> JobProfile:
    """``profile`` with every cost factor marked as defaulted (calibration not run)."""
    prov = dict(profile.provenance)
    for name in CostFactors.model_fields:
        prov.setdefault(f"costs.{name}", "defaulted: calibration not run")
    return profile.model_copy(update={"provenance": prov})
