"""Job history (+ job configuration) → :class:`mrtune.costmodel.JobProfile`.

Dataflow statistics come from counters, as Starfish's ``MRMapProfileLoader`` /
``MRReduceProfileLoader`` define them (reference §1.2, Table 2); every statistic records in
``profile.provenance["stats.<name>"]`` whether it was *measured* (and from which counters) or
*defaulted* (and why). Cost factors are fitted afterwards by :mod:`mrtune.calibration.cost_factors`.

The dataflow statistics themselves are :mod:`mrtune.profiling.dataflow`; the cluster facts
(hosts, containers, peaks, node capacity) are :mod:`mrtune.profiling.cluster_facts`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import (
    CostFactors,
    JobProfile,
    TaskTiming,
)
from mrtune.errors import InputError, JobDidNotSucceed
from mrtune.profiling.baseline import profile_config, profiled_config
from mrtune.profiling.cluster_facts import infer_cluster
from mrtune.profiling.combine_fit import knots_on_model_layout
from mrtune.profiling.combiner_api import old_api_combiner
from mrtune.profiling.dataflow import (
    UNKNOWN_COMBINER,
    JobContext,
    MapSide,
    dataflow_statistics,
    stored_input,
    stored_input_bytes,
)
from mrtune.profiling.heap_use import MapHeapUse, checked_heap_use
from mrtune.profiling.input_classes import (
    anchored_combiner,
    history_classes,
    job_split_size,
    old_api,
)
from mrtune.profiling.job_fixed import fixed_by_code
from mrtune.profiling.map_output_share import emits_share, map_counter_pairs
from mrtune.profiling.observed_conf import observed_block, observed_containers
from mrtune.profiling.old_api_hint import HINT_FACT, apply_old_api_hint
from mrtune.profiling.partition_skew import partition_skew
from mrtune.profiling.task_checks import screen_history
from mrtune.readers.conf import ConfFile
from mrtune.readers.history import JobHistory

__all__ = [
    "UNKNOWN_COMBINER",
    "build_statistics",
    "profile_config",
    "profiled_config",
    "stored_input",
    "stored_input_bytes",
]


def _check_usable(h: JobHistory, screened_out: str | None = None) -> None:
    """One line when the history has nothing the map side can be profiled from.

    ``screened_out``: the task screen's warning when it excluded attempts (all of them, or all
    the maps): the error then says why, not only that nothing is left.
    """
    name = h.source
    which = f"job {h.job_id}" if h.job_id.startswith("job_") else "the job (its id not recorded)"
    if h.attempts and not h.successful("map"):
        # reduces alone give no input size, map selectivity or map cost: a profile built from
        # them predicted a made-up map side (1 byte per map) with exit 0
        declared = f"declares {h.total_maps} map(s) but " if h.total_maps else ""
        untimed = [w for w in h.warnings if "_m_" in w and ("not timed" in w or "no usable" in w)]
        why = "".join(f"; {w}" for w in (screened_out, *untimed[:1]) if w)
        raise InputError(
            f"{which} {declared}has no successful map attempt ({h.failed_attempts} failed, "
            f"{h.killed_attempts} killed attempts{why}): the map side cannot be profiled",
            path=name,
        )
    if h.attempts:
        return
    if screened_out:
        raise InputError(
            f"no usable task attempt for {which}: {screened_out}; nothing to profile", path=name
        )
    if h.status in ("FAILED", "KILLED", "ERROR"):
        diag = h.diagnostics.strip().splitlines()[0] if h.diagnostics.strip() else ""
        raise JobDidNotSucceed(
            f"job {h.job_id} {h.status}: no successful task attempt to profile "
            f"({h.failed_attempts} failed, {h.killed_attempts} killed attempts"
            + (f"; {diag}" if diag else "")
            + ")",
            path=name,
        )
    if not h.complete:
        what = (
            f"job still {h.status} (a REST response of a running job)"
            if h.source_format == "rest"
            else "truncated job history (no JOB_FINISHED event)"
        )
        raise InputError(
            f"{what} and no finished task attempt: nothing to profile for {h.job_id}",
            path=name,
        )
    raise InputError(f"no successful task attempt for {which}: nothing to profile", path=name)


def build_statistics(
    history: JobHistory,
    conf: ConfFile | Mapping[str, str] | None = None,
) -> tuple[JobProfile, HadoopConfig]:
    """Turn a job history (and its configuration) into an uncalibrated :class:`JobProfile`.

    Returns the profile (dataflow statistics measured from the counters, cost factors at their
    defaults) and the job's configuration, which :mod:`mrtune.calibration` needs to fit the
    cost factors to the observed task times. The steps run in dataflow order: configuration and
    task counts, input, map output, combiner, materialized output, reduce side, input files,
    cluster facts, observed task timings.
    """
    screened = screen_history(history)  # inconsistent attempts excluded, counted warning
    excluded = len(screened.attempts) < len(history.attempts)
    note = next((w for w in reversed(screened.warnings) if "inconsistent task" in w), None)
    _check_usable(screened, note if excluded else None)
    history = screened
    job = _job_context(history, conf)
    stats, codecs, ms = dataflow_statistics(job)
    st = job.st
    hint = apply_old_api_hint(job, ms.stored)  # before the layout: the run's split follows it
    input_files, files_how, files_conf = _input_files(job, ms.stored)
    layout = history_classes(job, ms.stored, files_conf)
    classes, packed = layout.classes, layout.packed
    if classes:
        input_files, files_how = sum(c.input_files for c in classes), layout.note
    elif packed:  # each map's files one unsplittable unit, of one size
        input_files, files_how = job.n_maps, "one unit a map (CombineFileInputFormat's packing)"
    facts = _job_facts(job, ms, input_files, files_how, files_conf)
    if hint is not None:
        facts[HINT_FACT] = float(hint[0])
    cluster = infer_cluster(job.h, job.J, job.props, job.cfg, job.warnings)
    cfg = job.cfg
    heap_use, heap_warning = _heap_use(job)
    observed = _observed_timings(job.h)
    hot, skew_line = partition_skew(observed)
    skew = [skew_line] if skew_line else []
    profile = JobProfile(
        job_id=job.h.job_id,
        job_name=job.h.job_name,
        input_bytes=float(ms.stored),
        input_files=int(input_files),
        input_splittable=not packed,
        split_units=layout.units,
        old_api_splits=old_api(job.props),
        map_classes=classes,
        input_compressed=ms.input_compressed,
        has_combiner=ms.has_combiner,
        old_api_combiner=old_api_combiner(job.props, job.R.get("COMBINE_INPUT_RECORDS", 0.0))
        if ms.has_combiner
        else None,
        combine_class=cfg.combine_class if cfg.combine_class != UNKNOWN_COMBINER else None,
        map_only=job.map_only,
        map_output_floor=emits_share(map_counter_pairs(_map_counters(job))),
        stats=stats,
        costs=CostFactors(),
        codecs=codecs,
        provenance={
            **st.prov,
            "input_bytes": f"measured: {ms.input_note}",
            "input_files": files_how if classes else f"measured: {files_how}",
            **({f"cluster_facts.{HINT_FACT}": hint[1]} if hint else {}),
        },
        source_properties={str(k): str(v) for k, v in job.props.items()},
        cluster_facts=facts,
        cluster=cluster,
        observed=observed,
        observed_counters=job.J,
        warnings=_dedupe([*job.warnings, *([heap_warning] if heap_warning else []), *skew]),
        map_heap_use=heap_use,
        fixed_by_job=fixed_by_code(conf),
        partition_skew=hot,
    )
    if ms.has_combiner and not job.map_only:
        maps = _map_counters(job)
        groups = float(job.R.get("REDUCE_INPUT_GROUPS") or 0.0)
        profile = knots_on_model_layout(profile, cfg, maps, ms.spills <= 1, groups)
        profile = anchored_combiner(profile, cfg, _map_combined(job, ms))
    return profile, cfg


def _heap_use(job: JobContext) -> tuple[MapHeapUse | None, str | None]:
    """The maps' heap in use against the configured heap (:func:`checked_heap_use`)."""
    return checked_heap_use(
        (a.counters for a in job.h.successful("map")),
        job.cfg,
        map_only=job.map_only,
        source_format=job.h.source_format,
    )


def _map_counters(job: JobContext) -> list[dict[str, float]]:
    """Each map's counters (every successful attempt: what ran)."""
    return [a.counters for a in job.h.successful("map")]


def _map_combined(job: JobContext, ms: MapSide) -> float | None:
    """The run's map-side combined records: COMBINE_OUTPUT_RECORDS of the maps, or their
    SPILLED_RECORDS when each spilled once (Rumen traces keep no combine counters a task)."""
    cor = job.M.get("COMBINE_OUTPUT_RECORDS")
    if cor is None and ms.spills <= 1:
        cor = job.M.get("SPILLED_RECORDS")
    return cor


def _job_warnings(h: JobHistory) -> list[str]:
    """The reader's warnings, plus what a failed job or excluded attempts mean for the profile."""
    warnings = list(h.warnings)
    if h.status in ("FAILED", "KILLED", "ERROR", "RUNNING", "NEW", "INITED", "PREP"):
        warnings.append(
            f"job {h.status}: profile built from its {len(h.attempts)} successful attempt(s) only"
        )
    if h.failed_attempts or h.killed_attempts:
        warnings.append(
            f"{h.failed_attempts} failed and {h.killed_attempts} killed attempt(s) excluded"
        )
    if h.total_reduces and not h.successful("reduce"):
        warnings.append(
            f"the job declares {h.total_reduces} reduce(s) but the history has no successful "
            "reduce attempt: the reduce side's statistics and costs are defaults, not measured"
        )
    return warnings


def _task_counts(h: JobHistory, props: Mapping[str, str]) -> tuple[int, int]:
    """Maps and reduces: the job's declared totals when it succeeded, else what ran."""
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
    return n_maps, n_red


def _job_context(h: JobHistory, conf: ConfFile | Mapping[str, str] | None) -> JobContext:
    """Configuration (history's properties, overridden by ``conf``), counters, task counts."""
    warnings = _job_warnings(h)
    props = dict(h.properties)
    conf_source = "history" if props else ""
    if conf is not None:
        conf_props = conf.properties if isinstance(conf, ConfFile) else dict(conf)
        props.update(conf_props)
        if isinstance(conf, ConfFile):
            warnings.extend(conf.warnings)  # final properties a later definition did not override
        conf_source = conf.path if isinstance(conf, ConfFile) else "given properties"
    if not props:
        warnings.append("no job configuration: Hadoop defaults assumed (give --conf)")
    J, M, R = h.job_counters(), h.side_counters("map"), h.side_counters("reduce")
    observed_containers(props, J, warnings)
    cfg = profiled_config(props, h.hadoop_version, warnings)
    if not J and not M and not R:
        warnings.append("the history holds no counters: every dataflow statistic is defaulted")
    n_maps, n_red = _task_counts(h, props)
    per_map = [stored_input_bytes(a.counters) for a in h.successful("map")]
    if line := observed_block(props, per_map, cfg.dfs_blocksize, cfg.hadoop_version):
        warnings.append(line)
        cfg = profiled_config(props, h.hadoop_version, [])
    if cfg.num_reducers != n_red:
        cfg = cfg.model_copy(update={"num_reducers": n_red})
    return JobContext(h, props, conf_source, cfg, J, M, R, n_maps, n_red, warnings)


def _input_files(job: JobContext, stored: float) -> tuple[int, str, int | None]:
    """Number of input files: the conf's count when its splits give the observed maps, else
    the count that reproduces them."""
    split = job_split_size(job.props, job.cfg, stored)
    files_conf = _int_prop(job.props, "mapreduce.input.fileinputformat.numinputfiles")
    n_maps = job.n_maps
    if files_conf and files_conf > 0 and _maps_for(stored, files_conf, split) == n_maps:
        return files_conf, "mapreduce.input.fileinputformat.numinputfiles", files_conf
    if _maps_for(stored, 1, split) == n_maps:
        return 1, "one file (its splits give the observed number of maps)", files_conf
    return n_maps, "one file per map (reproduces the observed number of maps)", files_conf


def _job_facts(
    job: JobContext, ms: MapSide, input_files: int, files_how: str, files_conf: int | None
) -> dict[str, float | str]:
    """Flat facts about the job and its run (sources, counts, container sizes, duration)."""
    h, cfg, J = job.h, job.cfg, job.J
    facts: dict[str, float | str] = dict(h.facts)
    facts.update(
        {
            "source_format": h.source_format,
            "source": h.source,
            "conf_source": job.conf_source or "none",
            "status": h.status,
            "hadoop_version": float(cfg.hadoop_version),
            "num_maps": float(job.n_maps),
            "num_reduces": float(job.n_red),
            "successful_map_attempts": float(len(h.successful("map"))),
            "successful_reduce_attempts": float(len(h.successful("reduce"))),
            "failed_attempts": float(h.failed_attempts),
            "killed_attempts": float(h.killed_attempts),
            "duplicate_attempt_events": float(h.duplicates_dropped),
            "input_bytes": float(ms.stored),
            "input_files": float(input_files),
            "input_files_source": files_how,
            "uberized": "true" if h.uberized else "false",
            "map_container_mb_conf": float(cfg.map_container_mb),
            "reduce_container_mb_conf": float(cfg.reduce_container_mb),
            "map_heap_mb_conf": float(cfg.map_heap_bytes / 2**20),
            "reduce_heap_mb_conf": float(cfg.reduce_heap_bytes / 2**20),
        }
    )
    if ms.spills:
        facts["spills_per_map_estimated"] = ms.spills
    if files_conf:
        facts["input_files_conf"] = float(files_conf)
    if h.launch_ms and h.finish_ms:
        facts["job_ms"] = float(h.finish_ms - h.launch_ms)
    for side, mb_key, ms_key, vc_key in (
        ("map", "MB_MILLIS_MAPS", "MILLIS_MAPS", "VCORES_MILLIS_MAPS"),
        ("reduce", "MB_MILLIS_REDUCES", "MILLIS_REDUCES", "VCORES_MILLIS_REDUCES"),
    ):
        mb, millis, vc = J.get(mb_key), J.get(ms_key), J.get(vc_key)
        if mb and millis and millis > 0:
            facts[f"{side}_container_mb"] = mb / millis
            facts[f"{side}_container_mb_source"] = f"{mb_key} / {ms_key}"
        else:
            facts[f"{side}_container_mb"] = float(
                cfg.map_container_mb if side == "map" else cfg.reduce_container_mb
            )
            facts[f"{side}_container_mb_source"] = "configuration"
        if vc and millis and millis > 0:
            facts[f"{side}_vcores"] = vc / millis
    return facts


def _observed_timings(h: JobHistory) -> list[TaskTiming]:
    """Every successful attempt's phase times; a reduce's wait for the last map is split off
    its shuffle (``shuffle_wait``), since the model's shuffle starts when the data is there."""
    last_map = max((a.finish_ms for a in h.timed("map")), default=None)
    observed = []
    for a in sorted(h.timed(), key=lambda a: (a.kind != "map", a.start_ms, a.attempt_id)):
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
    return observed


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
