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

import numpy as np
from scipy.optimize import brentq, least_squares

from mrtune.calibration.job_overhead import with_job_overhead
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.combiner import knot_factor, zipf_distinct
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_task import (
    IFILE_CHECKSUM_BYTES,
    IFILE_EOF_BYTES,
    MapTaskResult,
    map_task,
)
from mrtune.costmodel.profile import (
    CODEC_PRIORS,
    CodecStats,
    CostFactors,
    DataflowStats,
    JobProfile,
    TaskTiming,
)
from mrtune.errors import InputError
from mrtune.profiling.codecs import codecs_from_probe, is_probe_run
from mrtune.profiling.combine_fit import fit_key_law_knots, fit_width_law, fit_zipf_key_law

if TYPE_CHECKING:
    from mrtune.calibration.machine_costs import MachineCosts
from mrtune.readers.run_records import (
    FS_COUNTER_GROUP,
    TASK_COUNTER_GROUP,
    Counters,
    MapAttemptEvents,
    ReduceAttemptEvents,
    RunRecord,
)

#: ``fs.local.block.size`` default (``LocalFileSystem``): the split size of a local run.
LOCAL_BLOCK_SIZE = 32 * 2**20
#: ``IFile.Writer.close``: two -1 vints (EOF) and a 4-byte CRC32 per partition segment.
IFILE_SEGMENT_BYTES = IFILE_EOF_BYTES + IFILE_CHECKSUM_BYTES
#: IFile's per-record framing for keys and values shorter than 128 bytes (two 1-byte vints).
IFILE_SMALL_RECORD_OVERHEAD = 2.0
_INPUT_FMT_GROUP = "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter"
_OUTPUT_FMT_GROUP = "org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter"
#: Harness-only or job-only keys: not Hadoop properties the model reads.
_NOT_MODEL_PREFIXES = ("mrtune.",)


# ----------------------------------------------------------------------------- configuration


def hadoop_memory_limit(total_bytes: int, percent: float) -> int:
    """``MergeManagerImpl.memoryLimit``: ``(long)(maxMemory * shuffle.input.buffer.percent)``.

    The percent is a Java ``float`` (``jobConf.getFloat``), so the product is computed in single
    precision: with -Xmx2048m and 0.70 it is 1,503,238,528, not the 1,503,238,553 of double
    arithmetic. ``Runtime.maxMemory()`` equals -Xmx on this JVM (G1): every logged limit of
    the matrix satisfies this formula with ``total_bytes`` = -Xmx.
    """
    return int(np.float32(np.float32(total_bytes) * np.float32(percent)))


def _model_props(rec: RunRecord) -> dict[str, str]:
    props = {**rec.effective_conf, **rec.settings}
    return {k: v for k, v in props.items() if not k.startswith(_NOT_MODEL_PREFIXES)}


def run_config(rec: RunRecord) -> HadoopConfig:
    """The configuration the run had, as the cost model reads it.

    Every task runs in the driver's JVM, so both task heaps are its ``-Xmx`` (making
    ``HadoopConfig.reduce_heap_bytes`` the JVM's max heap, which is ``Runtime.maxMemory()``
    here: the model's shuffle limits then equal MergeManagerImpl's logged ones to the byte,
    see :func:`hadoop_memory_limit`), and splits follow the local file system's 32 MiB block
    size.
    """
    props = _model_props(rec)
    xmx = f"-Xmx{int(rec.xmx_mb)}m"
    props["mapreduce.map.java.opts"] = xmx
    props["mapreduce.reduce.java.opts"] = xmx
    props.setdefault("dfs.blocksize", str(int(props.get("fs.local.block.size", LOCAL_BLOCK_SIZE))))
    props.pop("fs.local.block.size", None)
    try:
        cfg = HadoopConfig.from_properties(props, hadoop_version=3, source=rec.run_id)
    except ValueError as exc:
        raise InputError(f"run {rec.run_id}: configuration not usable: {exc}") from exc
    return cfg


def local_cluster(rec: RunRecord | None = None) -> ClusterSpec:
    """Local mode as a cluster: one node, ``mapreduce.local.{map,reduce}.tasks.maximum`` tasks
    at a time (default 1 each), reduces after all maps, a local-file shuffle
    (``ClusterSpec.local``)."""
    conf = {**rec.effective_conf, **rec.settings} if rec is not None else {}
    maps = int(conf.get("mapreduce.local.map.tasks.maximum", 1))
    reduces = int(conf.get("mapreduce.local.reduce.tasks.maximum", 1))
    return ClusterSpec.local(maps=maps, reduces=reduces)


# ---------------------------------------------------------------------------------- counters


def flat_counters(
    counters: Counters, *, file_read: int | None = None, file_written: int | None = None
) -> dict[str, float]:
    """Counter name → value over all groups, with the format counters renamed as the profiler
    names them and FILE_BYTES_* replaced by the attempt's own deltas when given."""
    out: dict[str, float] = {}
    for group, values in counters.items():
        for name, v in values.items():
            if group == _INPUT_FMT_GROUP and name == "BYTES_READ":
                out["INPUT_FORMAT_BYTES_READ"] = float(v)
            elif group == _OUTPUT_FMT_GROUP and name == "BYTES_WRITTEN":
                out["OUTPUT_FORMAT_BYTES_WRITTEN"] = float(v)
            elif group in (TASK_COUNTER_GROUP, FS_COUNTER_GROUP):
                out[name] = float(v)
            else:
                out.setdefault(name, float(v))
    if file_read is not None:
        out["FILE_BYTES_READ"] = float(file_read)
    if file_written is not None:
        out["FILE_BYTES_WRITTEN"] = float(file_written)
    return out


def _c(counters: Counters, name: str) -> float:
    return float(counters.get(TASK_COUNTER_GROUP, {}).get(name, 0) or 0)


def map_split_bytes(rec: RunRecord, width: float) -> np.ndarray:
    """Each map's input in bytes as the model counts it: records read × input pair width.

    ``rint(bytes / width)`` then gives the map's exact record count (see the module doc).
    """
    return np.array([_c(a.counters, "MAP_INPUT_RECORDS") * width for a in rec.map_attempts])


# ----------------------------------------------------------------------------------- timings


def map_timing(a: MapAttemptEvents) -> TaskTiming | None:
    """``map`` = start → flush (map function, collect and the spills done meanwhile),
    ``sort`` = flush → done (the final spill and the merge of spill files)."""
    if a.start_ms is None or a.done_ms is None:
        return None
    phases: dict[str, float] = {"total": float(a.done_ms - a.start_ms)}
    if a.flush_ms is not None:
        phases["map"] = float(a.flush_ms - a.start_ms)
        phases["sort"] = float(a.done_ms - a.flush_ms)
    # each spill's own time (SpillThread "Spilling map output" → "Finished spill N")
    done = [s for s in a.spills if s.start_ms is not None and s.end_ms is not None]
    early = [s.end_ms - s.start_ms for s in done if not s.final]
    final = [s.end_ms - s.start_ms for s in done if s.final]
    if early:
        phases["spill_full"] = float(np.mean(early))
        phases["fill"] = float(done[0].start_ms - a.start_ms)
    if final:
        phases["spill_last"] = float(final[-1])
    return TaskTiming(
        attempt_id=a.attempt_id,
        kind="map",
        start_ms=a.start_ms,
        finish_ms=a.done_ms,
        phases_ms=phases,
        counters=flat_counters(
            a.counters, file_read=a.file_bytes_read_delta, file_written=a.file_bytes_written_delta
        ),
    )


def reduce_timing(a: ReduceAttemptEvents) -> TaskTiming | None:
    """``shuffle`` = start → finalMerge, ``merge`` = finalMerge → reduce() starts,
    ``reduce`` = reduce() start → done."""
    if a.start_ms is None or a.done_ms is None:
        return None
    phases: dict[str, float] = {"total": float(a.done_ms - a.start_ms)}
    merge_end = reduce_merge_end_ms(a)
    if a.shuffle_end_ms is not None and merge_end is not None:
        phases["shuffle"] = float(a.shuffle_end_ms - a.start_ms)
        phases["merge"] = float(merge_end - a.shuffle_end_ms)
        phases["reduce"] = float(a.done_ms - merge_end)
    return TaskTiming(
        attempt_id=a.attempt_id,
        kind="reduce",
        start_ms=a.start_ms,
        finish_ms=a.done_ms,
        phases_ms=phases,
        counters=flat_counters(
            a.counters, file_read=a.file_bytes_read_delta, file_written=a.file_bytes_written_delta
        ),
    )


def reduce_merge_end_ms(a: ReduceAttemptEvents) -> int | None:
    """When the final merge hands over to reduce(): the record's ``merge_end_ms`` (the first
    status line after finalMerge), else the last final-merge Merger call's "Down to the last
    merge-pass" (a long merge replaces that status line by "reduce > sort" lines, so the
    harness finds none; the two instants are a few ms apart where both exist)."""
    if a.merge_end_ms is not None:
        return a.merge_end_ms
    if a.final_merge is not None and a.final_merge.merger_calls:
        last = a.final_merge.merger_calls[-1]
        return last.last_pass_ms if last.last_pass_ms is not None else last.start_ms
    return None


def run_timings(rec: RunRecord) -> list[TaskTiming]:
    """Observed phase times of every attempt (maps first, in start order)."""
    out = [t for a in rec.map_attempts if (t := map_timing(a)) is not None]
    out += [t for a in rec.reduce_attempts if (t := reduce_timing(a)) is not None]
    return out


def job_overhead_ms(rec: RunRecord) -> float | None:
    """Driver time outside every task: ``job_time_ms`` − (first task start → last task done).

    Job submission (staging, splits), the job's setup and commit and the client's polling
    happen in the driver; the cost model has no term for them.
    """
    starts = [a.start_ms for a in [*rec.map_attempts, *rec.reduce_attempts] if a.start_ms]
    ends = [a.done_ms for a in [*rec.map_attempts, *rec.reduce_attempts] if a.done_ms]
    if rec.job_time_ms is None or not starts or not ends:
        return None
    return float(rec.job_time_ms - (max(ends) - min(starts)))


# ------------------------------------------------------------------------------------ profile


class _Prov:
    def __init__(self) -> None:
        self.values: dict[str, float] = {}
        self.prov: dict[str, str] = {}

    def measured(self, name: str, value: float, how: str) -> None:
        self.values[name] = float(value)
        self.prov[f"stats.{name}"] = f"measured: {how}"

    def defaulted(self, name: str, why: str) -> None:
        self.prov[f"stats.{name}"] = f"defaulted: {why}"


def _map_combine_split(a: MapAttemptEvents) -> tuple[float, float, float, float]:
    """``(raw records, spill-combine output, merge-combine input, merge-combine output)``.

    Every map output record goes through the spill combine; the merge combine
    (``MapTask.mergeParts``, spills ≥ ``combine.minspills``) reads the spill outputs. So
    COMBINE_INPUT = raw + [merge]·Σspill-outputs and COMBINE_OUTPUT = Σspill-outputs +
    [merge]·final.
    """
    raw = _c(a.counters, "MAP_OUTPUT_RECORDS")
    cir = _c(a.counters, "COMBINE_INPUT_RECORDS")
    cor = _c(a.counters, "COMBINE_OUTPUT_RECORDS")
    if cir > raw:
        spill_out = cir - raw
        return raw, spill_out, spill_out, cor - spill_out
    return raw, cor, 0.0, 0.0


def _fit_key_law(rec: RunRecord, st: _Prov) -> bool:
    """Fit the map output keys' Zipf law (``key_vocabulary``, ``key_zipf_exponent``;
    ``mrtune.costmodel.combiner.zipf_distinct``) to what the run says about distinct keys.

    Each map's spill-level combine output is the sum over its spills of the distinct keys in
    each spill's raw records (the spills' record counts come from the task log), a merge-level
    combine outputs the distinct keys of the whole map, and the reduce's input groups are the
    distinct keys of the whole job: two or more observations of one curve at very different
    sample sizes, enough for its two parameters. Returns False (the Heaps law is kept) when the
    run cannot tell (no groups, no spill events) or the law does not fit within 1%.
    """
    J = flat_counters(rec.counters)
    groups, total = J.get("REDUCE_INPUT_GROUPS", 0.0), J.get("MAP_OUTPUT_RECORDS", 0.0)
    obs: list[tuple[list[float], float]] = []
    for a in rec.map_attempts:
        spills = [float(x.records) for x in a.spills if x.records]
        if not spills or len(spills) != a.num_spills:
            return False
        _, spill_out, merge_in, merge_out = _map_combine_split(a)
        obs.append((spills, spill_out))
        if merge_in > 0:
            obs.append(([float(sum(spills))], merge_out))
    if groups <= 0 or total <= 0 or not obs:
        return False
    obs.append(([total], groups))
    got = fit_zipf_key_law(obs, groups)
    if got is None:
        return False
    vocab, s, worst = got
    how = (
        f"fitted with key_zipf_exponent to {len(obs) - 1} per-map combine outputs (spill "
        f"record counts from the task log) and REDUCE_INPUT_GROUPS {groups:.0f} of "
        f"{total:.0f} records; worst relative error {worst:.2%}"
    )
    st.measured("key_vocabulary", vocab, how)
    st.measured("key_zipf_exponent", s, how)
    return True


def _fit_groups_scale(profile: JobProfile, rec: RunRecord, st: _Prov) -> None:
    """``key_groups_scale``: the job's REDUCE_INPUT_GROUPS over the key law's distinct keys of
    all its map output records, so the model's groups (and so the reduce output) are the
    profiled run's own at its own input (the law's fit leaves up to 1% there)."""
    J = flat_counters(rec.counters)
    groups, total = J.get("REDUCE_INPUT_GROUPS", 0.0), J.get("MAP_OUTPUT_RECORDS", 0.0)
    vocab, s = profile.stats.key_vocabulary, profile.stats.key_zipf_exponent
    if groups <= 0 or total <= 0 or vocab is None or s is None:
        st.defaulted("key_groups_scale", "REDUCE_INPUT_GROUPS not recorded")
        return
    # the table the model interpolates (combined_records), so the scale is exact there
    law = st.values.get("key_law_scale", 1.0) * float(zipf_distinct(total, vocab, s))
    knots = st.values.get("key_law_knots")
    if knots is not None:
        law *= float(knot_factor(total, knots))  # type: ignore[arg-type]
    st.measured(
        "key_groups_scale",
        min(max(groups / law, 0.5), 2.0),
        f"REDUCE_INPUT_GROUPS {groups:.0f} ÷ the key law's {law:.0f} distinct keys in "
        f"{total:.0f} map output records",
    )


def _fit_knots(profile: JobProfile, rec: RunRecord, first: MapTaskResult, st: _Prov) -> None:
    """``key_law_knots`` (:func:`mrtune.profiling.combine_fit.fit_key_law_knots`) through
    each map's spill-level and merge-level combine outputs, on the model's own spill layout
    (full spills of ``records_per_full_spill`` and the rest), and REDUCE_INPUT_GROUPS."""
    vocab, s = profile.stats.key_vocabulary, profile.stats.key_zipf_exponent
    if vocab is None or s is None:
        return
    scale = st.values["key_law_scale"]
    obs: list[tuple[list[float], float]] = []
    for i, a in enumerate(rec.map_attempts):
        out, k = float(first.output_records[i]), int(first.spills[i])
        r = float(first.records_per_full_spill[i])
        _, spill_out, merge_in, merge_out = _map_combine_split(a)
        if k < 1 or out <= 0 or spill_out <= 0:
            return
        obs.append(([r] * (k - 1) + [out - r * (k - 1)], spill_out))
        if merge_in > 0 and merge_out > 0:
            obs.append(([out], merge_out))
    J = flat_counters(rec.counters)
    groups, total = J.get("REDUCE_INPUT_GROUPS", 0.0), J.get("MAP_OUTPUT_RECORDS", 0.0)
    if groups > 0 and total > 0:
        obs.append(([total], groups))
    got = fit_key_law_knots(obs, lambda n: scale * zipf_distinct(n, vocab, s))
    if got is None:
        st.defaulted("key_law_knots", "no knots: the key law's factors are out of range")
        return
    knots, worst = got
    st.values["key_law_knots"] = knots  # type: ignore[assignment]
    st.prov["stats.key_law_knots"] = (
        f"measured: the key law's factor at {len(knots)} sample sizes through {len(obs)} "
        "observations (each map's spill- and merge-level COMBINE_OUTPUT_RECORDS on the "
        f"model's spill layout, REDUCE_INPUT_GROUPS); worst relative error {worst:.1e}"
    )


def _fit_combiner(
    profile: JobProfile, cfg: HadoopConfig, rec: RunRecord, split: np.ndarray, st: _Prov
) -> None:
    """Fit ``combine_pairs_sel`` (and ``combiner_heaps_beta`` when the run also combined in the
    merge) so that the model's per-map COMBINE_OUTPUT_RECORDS equal the run's
    (costmodel/combiner.py: D(n) = sel0 · n0 · (n/n0)^beta, n0 = records of one full spill)."""
    maps = rec.map_attempts
    obs = np.array([_c(a.counters, "COMBINE_OUTPUT_RECORDS") for a in maps])
    batch = ConfigBatch.from_base(cfg, len(maps))
    recs = np.rint(split / profile.stats.input_pair_width)
    first = map_task(profile, batch, split, input_records=recs)
    n0 = float(first.records_per_full_spill[0])
    merge_combines = any(_map_combine_split(a)[2] > 0 for a in maps)

    def model(sel: float, beta: float) -> np.ndarray:
        stats = profile.stats.model_copy(
            update={
                "combine_pairs_sel": sel,
                "combine_profiled_input_records": n0,
                "combiner_heaps_beta": beta,
            }
        )
        p = profile.model_copy(update={"stats": stats})
        return map_task(p, batch, split, input_records=recs).combine_output_records

    beta = profile.stats.combiner_heaps_beta
    if profile.stats.key_vocabulary is not None:
        # the key law gives every combine's output: its level is set so that the model
        # reproduces this run's own sample exactly (on the model's spill layout)
        pred = float(model(profile.stats.combine_pairs_sel, beta).sum())
        if pred > 0:
            st.measured(
                "key_law_scale",
                min(max(float(obs.sum()) / pred, 0.5), 2.0),
                "this run's COMBINE_OUTPUT_RECORDS ÷ the fitted Zipf law's expectation",
            )
            _fit_knots(profile, rec, first, st)
        raw = float(sum(_c(a.counters, "MAP_OUTPUT_RECORDS") for a in maps))
        spill_out = float(sum(_map_combine_split(a)[1] for a in maps))
        sel = min(max(spill_out / raw, 1e-9), 1.0) if raw > 0 else 1.0
        st.measured("combine_pairs_sel", sel, "spill-level COMBINE_OUTPUT / MAP_OUTPUT_RECORDS")
        st.measured(
            "combine_profiled_input_records", n0, "records of one full spill of the profiled run"
        )
        st.defaulted("combiner_heaps_beta", "not used: the keys' Zipf law is known")
        _fit_groups_scale(profile, rec, st)
        return
    if merge_combines:
        res = least_squares(
            lambda x: np.log(np.maximum(model(x[0], x[1]), 1e-9)) - np.log(np.maximum(obs, 1)),
            x0=[0.05, beta],
            bounds=([1e-6, 0.05], [1.0, 1.0]),
        )
        sel, beta = float(res.x[0]), float(res.x[1])
        st.measured(
            "combiner_heaps_beta",
            beta,
            "fitted to the spill-level and merge-level combines (per-map COMBINE_* counters)",
        )
    else:
        total = float(obs.sum())

        def gap(s: float) -> float:
            return float(model(s, beta).sum()) - total

        sel = float(brentq(gap, 1e-9, 1.0, xtol=1e-12)) if gap(1.0) > 0 else 1.0
        st.defaulted(
            "combiner_heaps_beta",
            "the run combined only at spills (no merge-level combine to fit it): DESIGN "
            "decision 4 default",
        )
    st.measured(
        "combine_pairs_sel",
        sel,
        f"fitted so the model's COMBINE_OUTPUT_RECORDS equal the run's ({obs.sum():.0f})",
    )
    st.measured(
        "combine_profiled_input_records", n0, "records of one full spill of the profiled run"
    )


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
    st = _Prov()
    J = flat_counters(rec.counters)
    stored = float(rec.input.bytes)
    width_in, width = _map_side_stats(rec, J, stored, st)
    _reduce_side_stats(J, st)

    has_combiner = cfg.combine_class is not None
    profile = JobProfile(
        job_id=rec.job_id or rec.run_id,
        job_name=rec.job,
        input_bytes=stored,
        input_files=1,
        has_combiner=has_combiner,
        combine_class=cfg.combine_class,
        map_only=rec.num_reduces == 0,
        stats=DataflowStats(**{k: v for k, v in st.values.items()}),
    )
    profile, final_recs = _combiner_stats(profile, cfg, rec, J, width_in, st)
    codec_runs = list(codec_runs)
    warnings: list[str] = []
    codecs = _ifile_and_codecs(rec, cfg, J, st, final_recs, width, codec_runs)
    for name, stats in _probe_codecs(rec, codec_runs, warnings).items():
        # the probe measured every codec on this very data; the calibration run's own
        # compressed output (if any) stays first, other runs' ratios come after the probe's
        own = codecs.get(name)
        if own is None or f"run {rec.run_id} " not in own.source:
            codecs[name] = stats
    _reduce_size_sel(J, st, width, has_combiner)
    for name in DataflowStats.model_fields:
        st.prov.setdefault(f"stats.{name}", "defaulted: Starfish/mrtune default")
    profile = profile.model_copy(
        update={
            "stats": DataflowStats(**st.values),
            "codecs": codecs,
            "provenance": {
                **st.prov,
                "input_bytes": "measured: size of the generated input file",
                "input_files": "measured: one generated file",
            },
            # the run's configuration as the model reads it (heap, local block size, shuffle
            # memory): profile_config(profile) then gives run_config(rec) back
            "source_properties": {**_model_props(rec), **cfg.to_properties()},
            "cluster_facts": _run_facts(rec, stored),
            "observed": run_timings(rec),
            "observed_counters": J,
            "warnings": warnings,
        }
    )
    built = _calibrate_run(profile, cfg, rec, machine) if calibrate else _uncalibrated(profile)
    return with_job_overhead(built)


def _check_run(rec: RunRecord) -> None:
    """A profile needs a successful run with map attempts."""
    if not rec.success:
        raise InputError(f"run {rec.run_id} failed: no profile from it", field="success")
    if not rec.map_attempts:
        raise InputError(f"run {rec.run_id} has no map attempts", field="map_attempts")


def _split_width(rec: RunRecord, st: _Prov) -> None:
    """``split_pair_width``: bytes per record of the run's full splits (the maps whose split,
    "Processing split: path:start+length", is the longest), when the run had more than one.

    Text lines vary in width, so a 32 MiB split's mean line is not the file's: the postings
    input's full split holds 337,507 lines where the file's mean width gives 337,504, and
    each line emits 12 words, so every map-side counter of the held-out runs was off by 36+
    records although the model was exact on the run's own splits. The tail split keeps what
    the file has left (``costmodel/job.py``), so totals do not change.
    """
    lengths = [a.split_length for a in rec.map_attempts]
    if len(lengths) < 2 or any(n is None or n <= 0 for n in lengths):
        st.defaulted("split_pair_width", "one split or split lengths not logged: file's width")
        return
    longest = max(n for n in lengths if n is not None)
    full = [a for a in rec.map_attempts if a.split_length == longest]
    recs = sum(_c(a.counters, "MAP_INPUT_RECORDS") for a in full)
    if recs <= 0:
        st.defaulted("split_pair_width", "MAP_INPUT_RECORDS of the full splits is 0")
        return
    st.measured(
        "split_pair_width",
        longest * len(full) / recs,
        f"split length {longest} × {len(full)} full splits / their MAP_INPUT_RECORDS {recs:.0f}",
    )


def _map_side_stats(
    rec: RunRecord, J: dict[str, float], stored: float, st: _Prov
) -> tuple[float, float]:
    """Map-side selectivities from the counters; ``(input pair width, map output pair width)``."""
    mir, mor, mob = (
        J.get("MAP_INPUT_RECORDS", 0.0),
        J.get("MAP_OUTPUT_RECORDS", 0.0),
        J.get("MAP_OUTPUT_BYTES", 0.0),
    )
    if mir <= 0:
        raise InputError(f"run {rec.run_id}: MAP_INPUT_RECORDS is 0", field="counters")
    width_in = stored / mir
    st.measured("input_pair_width", width_in, "input file bytes / MAP_INPUT_RECORDS")
    _split_width(rec, st)
    st.measured("map_size_sel", mob / stored, "MAP_OUTPUT_BYTES / input bytes")
    st.measured("map_pairs_sel", mor / mir, "MAP_OUTPUT_RECORDS / MAP_INPUT_RECORDS")
    st.defaulted("input_compress_ratio", "generated input is not compressed")
    return width_in, (mob / mor if mor > 0 else 0.0)


def _reduce_side_stats(J: dict[str, float], st: _Prov) -> None:
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


def _combiner_stats(
    profile: JobProfile,
    cfg: HadoopConfig,
    rec: RunRecord,
    J: dict[str, float],
    width_in: float,
    st: _Prov,
) -> tuple[JobProfile, float]:
    """The key law and combiner selectivity; ``(profile, records the maps finally wrote)``."""
    if not (profile.has_combiner and J.get("COMBINE_INPUT_RECORDS", 0.0) > 0):
        why = (
            "the job has no combiner" if not profile.has_combiner else "COMBINE_INPUT_RECORDS is 0"
        )
        for name in ("combine_pairs_sel", "combine_profiled_input_records", "combiner_heaps_beta"):
            st.defaulted(name, why)
        return profile, J.get("MAP_OUTPUT_RECORDS", 0.0)
    if _fit_key_law(rec, st):
        profile = profile.model_copy(
            update={"stats": profile.stats.model_copy(update=dict(st.values))}
        )
    _fit_combiner(profile, cfg, rec, map_split_bytes(rec, width_in), st)
    final_recs = sum(
        (s[3] if s[2] > 0 else s[1]) for s in map(_map_combine_split, rec.map_attempts)
    )
    return profile, final_recs


def _ifile_and_codecs(
    rec: RunRecord,
    cfg: HadoopConfig,
    J: dict[str, float],
    st: _Prov,
    final_recs: float,
    width: float,
    codec_runs: Iterable[RunRecord],
) -> dict[str, CodecStats]:
    """IFile framing, the combined output width and codec ratios (MAP_OUTPUT_MATERIALIZED_BYTES).

    Uncompressed, the materialized bytes are the records plus IFile's framing
    (``IFile.Writer``: vint lengths per record, EOF and CRC per segment), which separates the
    per-record overhead, or, with a combiner, the combined records' width.
    """
    has_combiner = cfg.combine_class is not None
    mat = J.get("MAP_OUTPUT_MATERIALIZED_BYTES", 0.0)
    codecs: dict[str, CodecStats] = {}
    segs = len(rec.map_attempts) * float(max(rec.num_reduces, 1))
    if cfg.map_output_compress:
        st.defaulted("ifile_record_overhead", "map output compressed: IFile framing not separable")
        codecs.update(_codec_from_run(rec, cfg, final_recs, width, segs))
    elif final_recs > 0 and mat > 0:
        per_rec = (mat - IFILE_SEGMENT_BYTES * segs) / final_recs
        if has_combiner:
            # WordCount-like keys and values are < 128 bytes: 2 bytes of vints per record;
            # what remains is the combined records' width.
            comb_w = per_rec - IFILE_SMALL_RECORD_OVERHEAD
            sel = st.values.get("combine_pairs_sel", 1.0)
            st.measured(
                "combine_size_sel",
                min(max(sel * comb_w / width, 1e-9), 1.5),
                "combine_pairs_sel × combined pair width / map output pair width, the width "
                "from (MAP_OUTPUT_MATERIALIZED_BYTES − 6·segments)/final records − 2",
            )
            st.defaulted("ifile_record_overhead", "2 bytes (two 1-byte vints) assumed")
            fit_width_law(st, width, J.get("MAP_OUTPUT_RECORDS", 0.0), final_recs)
        else:
            st.measured(
                "ifile_record_overhead",
                min(max(per_rec - width, 0.0), 20.0),
                "(MAP_OUTPUT_MATERIALIZED_BYTES − 6·partitions·maps) / records − pair width",
            )
    if has_combiner and "combine_width_growth" not in st.values:
        st.defaulted("combine_width_growth", "combined width not separable: width kept")
    if has_combiner and "combine_size_sel" not in st.values and "combine_pairs_sel" in st.values:
        st.values["combine_size_sel"] = st.values["combine_pairs_sel"]
        st.prov["stats.combine_size_sel"] = (
            "defaulted: combined pair width not separable (compressed output): width kept"
        )
    comb_width = width * _combined_width_factor(st, has_combiner)
    for name, stats in codecs_from_runs(rec, codec_runs, comb_width).items():
        codecs.setdefault(name, stats)
    return codecs


def _combined_width_factor(st: _Prov, has_combiner: bool) -> float:
    """How much wider a combined record is than a map output record (1 without a combiner)."""
    if not has_combiner:
        return 1.0
    return st.values.get("combine_size_sel", 1.0) / st.values.get("combine_pairs_sel", 1.0)


def _reduce_size_sel(J: dict[str, float], st: _Prov, width: float, has_combiner: bool) -> None:
    """Reduce output size selectivity: output bytes over the reduce input's (combined) bytes."""
    rir = J.get("REDUCE_INPUT_RECORDS", 0.0)
    out_b = J.get("OUTPUT_FORMAT_BYTES_WRITTEN")
    if rir > 0 and out_b is not None and width > 0:
        red_w = width * _combined_width_factor(st, has_combiner)
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


def _same_map_output(a: RunRecord, b: RunRecord) -> bool:
    """Whether two runs' map outputs are the same kind of data (codec ratios carry over)."""
    if a.input.path != b.input.path:
        return False
    wa = flat_counters(a.counters)
    wb = flat_counters(b.counters)
    ra, rb = wa.get("MAP_OUTPUT_RECORDS", 0.0), wb.get("MAP_OUTPUT_RECORDS", 0.0)
    if ra <= 0 or rb <= 0:
        return False
    return (
        abs(wa.get("MAP_OUTPUT_BYTES", 0.0) / ra - wb.get("MAP_OUTPUT_BYTES", 0.0) / rb)
        < 1e-6 * (wa.get("MAP_OUTPUT_BYTES", 0.0) / ra) + 1e-9
    )


def _probe_codecs(
    rec: RunRecord, runs: Iterable[RunRecord], warnings: list[str]
) -> dict[str, CodecStats]:
    """Codec ratios from the first codec probe run (``mrtune.codec.probe=true``,
    :func:`mrtune.profiling.codecs.codecs_from_probe`) over the same map output data as ``rec``."""
    for other in runs:
        if other.success and is_probe_run(other.settings) and _same_map_output(rec, other):
            got = codecs_from_probe(other.counters, other.run_id, warnings)
            if got:
                return got
    return {}


def codecs_from_runs(
    rec: RunRecord, runs: Iterable[RunRecord], combined_width: float | None = None
) -> dict[str, CodecStats]:
    """Codec ratios measured by ``runs`` on the same map output data as ``rec`` (same input
    file and map output pair width, combiner used alike), first run per codec.

    The ratio is a property of the data the codec sees: the same records, combined or not
    (combined WordCount output compresses far less than the raw (word, 1) pairs).
    ``combined_width``: the combined pair width (the calibrated profile's); by default the
    map output width.
    """
    cfg = run_config(rec)
    J = flat_counters(rec.counters)
    mor, mob = J.get("MAP_OUTPUT_RECORDS", 0.0), J.get("MAP_OUTPUT_BYTES", 0.0)
    width = combined_width if combined_width is not None else (mob / mor if mor > 0 else 0.0)
    same = [r for r in runs if r.success and _same_map_output(rec, r)]
    return codec_ratios_from(same, has_combiner=cfg.combine_class is not None, width=width)


def codec_ratios_from(
    runs: Iterable[RunRecord], *, has_combiner: bool, width: float
) -> dict[str, CodecStats]:
    """Codec ratios measured by ``runs``, which the caller has matched to the data being
    predicted (:func:`codecs_from_runs`: the same input file; a YARN history: the same job
    and record generator), first run per codec; ``width``: the predicted job's (combined)
    map output pair width, the IFile stream the ratio is taken over."""
    out: dict[str, CodecStats] = {}
    for other in runs:
        if is_probe_run(other.settings):
            continue  # counters only (_probe_codecs reads them)
        ocfg = run_config(other)
        if not ocfg.map_output_compress or ocfg.map_output_codec in out:
            continue
        if ocfg.use_combiner != has_combiner:
            continue
        if has_combiner:
            o_final = sum(
                (s[3] if s[2] > 0 else s[1]) for s in map(_map_combine_split, other.map_attempts)
            )
        else:
            o_final = flat_counters(other.counters).get("MAP_OUTPUT_RECORDS", 0.0)
        if o_final <= 0:
            continue
        segs_o = len(other.map_attempts) * max(other.num_reduces, 1)
        out.update(_codec_from_run(other, ocfg, o_final, width, segs_o))
    return out


def _codec_from_run(
    rec: RunRecord, cfg: HadoopConfig, final_recs: float, width: float, segs: float
) -> dict[str, CodecStats]:
    """The map-output codec's ratio on this job's data: (materialized − checksums) ÷ the IFile
    stream's uncompressed length (records × (width + 2) + 2 EOF bytes per segment)."""
    mat = flat_counters(rec.counters).get("MAP_OUTPUT_MATERIALIZED_BYTES", 0.0)
    u = final_recs * (width + IFILE_SMALL_RECORD_OVERHEAD) + IFILE_EOF_BYTES * segs
    if mat <= 0 or u <= 0:
        return {}
    ratio = (mat - IFILE_CHECKSUM_BYTES * segs) / u
    if not 0 < ratio <= 1.5:
        return {}
    prior = CODEC_PRIORS[cfg.map_output_codec]
    return {
        cfg.map_output_codec: CodecStats(
            ratio=ratio,
            compress_ns_per_byte=prior.compress_ns_per_byte,
            uncompress_ns_per_byte=prior.uncompress_ns_per_byte,
            source=f"measured: ratio from run {rec.run_id} (MAP_OUTPUT_MATERIALIZED_BYTES); "
            f"CPU costs {prior.source}",
        )
    }


def _selectivity_percent(rec: RunRecord) -> float:
    conf = {**rec.effective_conf, **rec.settings}
    return float(conf.get("mrtune.selectivity.percent", 100))


def profile_for_run(profile: JobProfile, calibration: RunRecord, rec: RunRecord) -> JobProfile:
    """``profile`` (built from ``calibration``) moved to the job parameters of ``rec``.

    The configuration is the what-if question, but two things are properties of the job, not
    of its configuration: the input size, and the selectivity job's emitted share
    (``mrtune.selectivity.percent``: the map emits the first floor(n·p/100) records of its
    split), which scales the map's pair and size selectivities.
    """
    update: dict[str, object] = {"input_bytes": float(rec.input.bytes)}
    if rec.job == "selectivity" and calibration.job == "selectivity":
        p0, p1 = _selectivity_percent(calibration), _selectivity_percent(rec)
        if p0 > 0 and p1 != p0:
            f = p1 / p0
            st = profile.stats
            update["stats"] = st.model_copy(
                update={"map_pairs_sel": st.map_pairs_sel * f, "map_size_sel": st.map_size_sel * f}
            )
            update["provenance"] = {
                **profile.provenance,
                "stats.map_pairs_sel": f"job parameter: mrtune.selectivity.percent {p1:g} "
                f"(calibrated at {p0:g})",
            }
    return profile.model_copy(update=update)
