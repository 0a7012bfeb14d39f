"""The cost model against real Hadoop: the fidelity report of issue 5 (Deliver 3).

For each job in a set of run records, the profile is calibrated on ONE run at Hadoop's
defaults (label ``<prefix>-default``, the repeat with the median job time unless another is
named) by :func:`mrtune.calibration.run_profile.profile_from_run`; every other label's configuration is
then predicted with :func:`mrtune.costmodel.predict_job` on the local-mode cluster, with that run's
input size, and compared with what Hadoop did:

* **record counters** (deterministic in Hadoop; taken from the first successful repeat, and
  repeats that disagree are flagged): spills per map, map and reduce SPILLED_RECORDS,
  COMBINE_INPUT/OUTPUT_RECORDS, map merge passes, fetches to memory and to disk, in-memory
  merges. They must be equal, not close.
* **byte counters**: MAP_OUTPUT_MATERIALIZED_BYTES and REDUCE_SHUFFLE_BYTES (relative error).
* **times** (medians over repeats): the summed phase times (maps and reduces run one at a time
  in local mode) and the job time. The predicted job time is the model's plus one constant,
  the driver's time outside the model (job submission, setup, commit, gaps between tasks),
  measured on the calibration run as its job time minus the model's time for it.

A second, per-task check feeds the model each map's actual input records (``map_task`` on
records × width bytes), which separates the model's spill and merge logic from its
records-per-split rule (see :data:`SPLIT_NOTE`).

Summary: exact-match rate of the record counters, worst relative byte error, median and 90th
percentile of the absolute relative job-time error, Spearman's rank correlation of predicted
and measured job times (``scipy.stats.spearmanr``), and for the time goals the phase whose
errors carry the miss.

The parts live apart by what they hold: the figures compared
(:mod:`mrtune.calibration._fidelity_figures`), one label's comparison
(:mod:`mrtune.calibration._fidelity_runs`), the summary
(:mod:`mrtune.calibration._fidelity_summary`) and its notes
(:mod:`mrtune.calibration._fidelity_notes`); this module is the driver, calibrate → predict →
compare, one job after another, and re-exports their public names (``mrtune validate`` and
the benchmarks import them from here).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from mrtune.calibration._fidelity_checks import check_repeats, check_same_code
from mrtune.calibration._fidelity_figures import (
    BYTE_COUNTERS,
    INFO_COUNTERS,
    PHASES,
    RECORD_COUNTERS,
    measured_figures,
    measured_phases,
    per_map_check,
    predicted_figures,
    predicted_phases,
)
from mrtune.calibration._fidelity_notes import SPILL_NOTE, SPLIT_NOTE, explain
from mrtune.calibration._fidelity_runs import RunComparison, rel_error, same
from mrtune.calibration._fidelity_summary import GOALS, summarize
from mrtune.calibration.machine_costs import MachineCosts
from mrtune.calibration.run_profile import (
    codecs_from_runs,
    local_cluster,
    profile_for_run,
    profile_from_run,
    run_config,
)
from mrtune.costmodel import ConfigBatch, JobProfile, predict_job
from mrtune.costmodel.combiner import combined_width_factor
from mrtune.errors import InputError
from mrtune.profiling.codecs import is_probe_run
from mrtune.readers.run_records import RunRecord

__all__ = [
    "BYTE_COUNTERS",
    "GOALS",
    "INFO_COUNTERS",
    "JOB_PREFIX",
    "default_label",
    "PHASES",
    "RECORD_COUNTERS",
    "SPILL_NOTE",
    "SPLIT_NOTE",
    "TIME_STATISTICS",
    "FidelityReport",
    "JobCalibration",
    "RunComparison",
    "build_report",
    "explain",
    "measured_figures",
    "measured_phases",
    "per_map_check",
    "predicted_figures",
    "predicted_phases",
    "rel_error",
    "same",
    "summarize",
]

#: Prefix of a job's labels in the matrix (``mrtune/harness/matrices/matrix.yaml``).
JOB_PREFIX = {"sort": "sort", "wordcount": "wc", "selectivity": "sel", "postings": "pst"}


def default_label(job: str, project: bool = True) -> str:
    """The label ``validate`` calibrates ``job`` on by default: ``<prefix>-default`` for the
    project's jobs (:data:`JOB_PREFIX`: ``wc-default`` for WordCount), ``<job>-default`` for
    any other (a ``hadoop-run --jar`` job is named after its main class: ``sensorstats``, and
    the examples' ``WordCount`` is ``wordcount-default``, not the project's ``wc-default``).
    The k-th job of a driver that ran several, ``grep#2``, is calibrated on ``grep-default#2``
    (:func:`mrtune.harness.any_record.build_any_records`)."""
    base, sep, k = job.partition("#")
    return f"{JOB_PREFIX.get(base, base) if project else base}-default{sep}{k}"


@dataclass
class JobCalibration:
    job: str
    run_id: str
    profile: JobProfile
    overhead_ms: float
    """Calibration run's job time − the model's job time for it (added to every prediction)."""
    record: RunRecord


@dataclass
class FidelityReport:
    calibrations: list[JobCalibration]
    runs: list[RunComparison]
    skipped: list[str] = field(default_factory=list)
    """One line per job (or label) that could not be profiled, and why (:func:`build_report`)."""

    @property
    def compared(self) -> list[RunComparison]:
        """The predicted runs (every label but the calibration ones)."""
        return [r for r in self.runs if not r.calibration]

    def summary(self) -> dict[str, Any]:
        return summarize(self.compared, [r for r in self.runs if r.calibration])

    def to_json(self) -> dict[str, Any]:
        return {
            "calibrations": [
                {
                    "job": c.job,
                    "run_id": c.run_id,
                    "job_overhead_ms": c.overhead_ms,
                    "costs": c.profile.costs.model_dump(),
                    "stats": c.profile.stats.model_dump(),
                    "codecs": {k: v.model_dump() for k, v in c.profile.codecs.items()},
                }
                for c in self.calibrations
            ],
            "summary": self.summary(),
            "runs": [r.to_json() for r in self.runs],
            "skipped": self.skipped,
        }


# ------------------------------------------------------------------------------- the driver


def _with_codecs_measured_elsewhere(
    profile: JobProfile,
    cal: RunRecord,
    records: Sequence[RunRecord],
    label: str,
    machine: MachineCosts | None,
) -> JobProfile:
    """``profile`` with codec ratios measured by the records' compressed runs on the same data,
    leaving out every run of ``label`` (the configuration being predicted never supplies its
    own ratio)."""
    st = profile.stats
    width = st.map_output_pair_width
    if profile.has_combiner:
        width *= combined_width_factor(st)
    others = [r for r in records if (r.label or r.run_id) != label]
    measured = codecs_from_runs(cal, others, width)
    if not measured:
        return profile
    probed = {k: v for k, v in profile.codecs.items() if v.source.startswith("measured by probe")}
    out = profile.model_copy(update={"codecs": {**profile.codecs, **measured, **probed}})
    return machine.apply_codecs(out) if machine is not None else out


def _codec_source(profile: JobProfile, rec: RunRecord) -> str | None:
    cfg = run_config(rec)
    if not cfg.map_output_compress:
        return None
    return profile.codec(cfg.map_output_codec).source


def _median_repeat(recs: Sequence[RunRecord], statistic: str = "median") -> RunRecord:
    """The repeat with the median job time (``statistic="min"``: the fastest repeat)."""
    ok = sorted(
        (r for r in recs if r.success and r.job_time_ms), key=lambda r: (r.job_time_ms, r.repeat)
    )
    return ok[0] if statistic == "min" else ok[(len(ok) - 1) // 2]


#: How repeats of one configuration are reduced to one time: the median (issue 5), or the
#: minimum, the least disturbed run on a shared host (CPU contention only ever adds time).
TIME_STATISTICS = {"median": statistics.median, "min": min}


def _parse_calibration(spec: str) -> tuple[str, int | None]:
    label, _, rep = spec.partition(":")
    return label, (int(rep) if rep else None)


def build_report(
    records: Iterable[RunRecord],
    calibrate: Sequence[str] = (),
    *,
    measure_codecs: bool = False,
    times: str = "median",
    machine: MachineCosts | None = None,
) -> FidelityReport:
    """Calibrate each job on one default run and compare every label with the model.

    ``calibrate``: calibration labels (``LABEL`` or ``LABEL:REPEAT``); by default
    ``<job prefix>-default`` of each job, the repeat with the median job time.
    Codec probe runs among ``records`` (``mrtune.codec.probe=true``,
    :func:`mrtune.profiling.codecs.codecs_from_probe`) are neither calibrated on nor scored:
    they give each codec's ratio on the same data, combined and as emitted.
    ``measure_codecs``: take a codec's compression ratio the probe lacks from the records' runs
    that used it on the same data, never from the configuration being predicted
    (leave-one-label-out); otherwise the calibration run, at defaults, measures none and
    documented priors are used.
    ``times``: ``median`` (default) or ``min`` over repeats, for the measured times and for the
    choice of the calibration repeat.
    ``machine``: this machine's cost factors from a separate benchmark
    (:mod:`mrtune.calibration.machine`); each job's run then refits only the job's own costs.
    """
    if times not in TIME_STATISTICS:
        raise InputError(
            "unknown time statistic",
            field="times",
            value=times,
            allowed=", ".join(TIME_STATISTICS),
        )
    stat = TIME_STATISTICS[times]
    records = [r for r in records if r.success]
    # codec probe runs (mrtune.codec.probe=true) are for counters only: their codec ratios go
    # into the profiles of the same data, and they are neither calibrated on nor scored
    probes = [r for r in records if is_probe_run(r.settings)]
    records = [r for r in records if not is_probe_run(r.settings)]
    by_label: dict[str, list[RunRecord]] = defaultdict(list)
    for r in records:
        by_label[r.label or r.run_id].append(r)
    for label, recs in by_label.items():
        check_repeats(label, recs)
    chosen = _calibration_labels(calibrate, by_label, records)
    check_same_code(by_label, {job: by_label[label][0] for job, (label, _) in chosen.items()})
    calibrations: dict[str, JobCalibration] = {}
    skipped: list[str] = []
    for job, (label, rep) in chosen.items():
        with _skipping(skipped, f"job {job} (calibration run {label}) not scored"):
            calibrations[job] = _calibrate(
                job, label, rep, by_label[label], times, machine, probes
            )
    comparisons = []
    for label, recs in by_label.items():
        if (calib := calibrations.get(recs[0].job)) is None:
            continue
        base = calib.profile
        if measure_codecs:
            base = _with_codecs_measured_elsewhere(base, calib.record, records, label, machine)
        with _skipping(skipped, f"{label} not scored"):
            cal = label == chosen[recs[0].job][0]
            comparisons.append(_compare(label, recs, calib, base, cal, stat))
    if not comparisons:
        more = f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""
        raise InputError(f"nothing could be scored: {skipped[0]}{more}")
    return FidelityReport(list(calibrations.values()), comparisons, skipped)


@contextmanager
def _skipping(skipped: list[str], what: str) -> Iterator[None]:
    """Leave out a job (or a label) whose run cannot be profiled, its reason one line of
    ``skipped``: one generator job (TeraGen: its maps read no input) in a runs file made
    validate exit 2 and left every other job unscored. A bad ``--calibrate`` is raised before
    this, and a repeat that does not exist is raised through it."""
    try:
        yield
    except InputError as exc:
        if exc.field == "calibration run":  # "no such repeat": the user's own mistake
            raise
        skipped.append(f"{what}: {str(exc).splitlines()[0]}")


def _calibration_labels(
    calibrate: Sequence[str], by_label: dict[str, list[RunRecord]], records: Sequence[RunRecord]
) -> dict[str, tuple[str, int | None]]:
    """``{job: (calibration label, repeat or None)}``: the ones asked for, else each job's
    :func:`default_label`."""
    chosen: dict[str, tuple[str, int | None]] = {}
    for spec in calibrate:
        label, rep = _parse_calibration(spec)
        if label not in by_label:
            raise InputError(
                "no successful run with this label", field="calibration run", value=label
            )
        chosen[by_label[label][0].job] = (label, rep)
    for job in sorted({r.job for r in records}):
        if job not in chosen:
            project = all(r.main_class is None for r in records if r.job == job)
            label = default_label(job, project)
            if label not in by_label:
                raise InputError(
                    f"no calibration run for job {job}: no run labelled {label}",
                    field="--calibrate",
                    allowed=f"--calibrate LABEL[:REPEAT] naming a {job} run at Hadoop's "
                    f"defaults, or such a run labelled {label} (the default: <job>-default, "
                    "with the project's jobs as wc, sort, sel, pst)",
                )
            chosen[job] = (label, None)
    return chosen


def _calibrate(
    job: str,
    label: str,
    rep: int | None,
    runs: Sequence[RunRecord],
    times: str,
    machine: MachineCosts | None,
    probes: Sequence[RunRecord],
) -> JobCalibration:
    """The job's profile from its calibration run (repeat ``rep`` of ``label``, else the
    median one), and the driver's time outside the model (the run's job time minus the
    model's time for it)."""
    cal = next((r for r in runs if r.repeat == rep), None) if rep is not None else None
    if rep is not None and cal is None:
        raise InputError("no such repeat", field="calibration run", value=f"{label}:{rep}")
    cal = cal or _median_repeat(runs, times)
    profile = profile_from_run(cal, machine=machine, codec_runs=probes)
    pred = predict_job(profile, ConfigBatch.from_configs([run_config(cal)]), local_cluster(cal))
    overhead = float(cal.job_time_ms or 0.0) - float(pred.job_ms[0])
    return JobCalibration(job, cal.run_id, profile, overhead, cal)


def _compare(
    label: str,
    recs: Sequence[RunRecord],
    calib: JobCalibration,
    base: JobProfile,
    calibration: bool,
    stat: Callable[[list[float]], float],
) -> RunComparison:
    """One label predicted (from its first repeat's configuration and input) and measured
    (its repeats reduced by ``stat``)."""
    first = min(recs, key=lambda r: r.repeat)
    profile = profile_for_run(base, calib.record, first)
    pred = predict_job(
        profile, ConfigBatch.from_configs([run_config(first)]), local_cluster(first)
    )
    figs = [measured_figures(r) for r in recs]
    phases = [measured_phases(r) for r in recs]
    mt = {k: stat([p[k] for p in phases if k in p] or [0.0]) for k in (*PHASES, "job", "cpu")}
    times = [p["job"] for p in phases]
    pt = predicted_phases(pred, profile)
    pt["job"] += calib.overhead_ms
    return RunComparison(
        label=label,
        job=calib.job,
        settings=dict(first.settings),
        repeats=len(recs),
        calibration=calibration,
        predicted=predicted_figures(pred),
        measured=figs[0],
        predicted_times=pt,
        measured_times=mt,
        job_time_spread=(max(times) - min(times)) / statistics.median(times)
        if len(times) > 1 and statistics.median(times) > 0
        else 0.0,
        load_avg=statistics.median(float(r.load_avg_1m or 0.0) for r in recs),
        deterministic=all(f == figs[0] for f in figs[1:]),
        per_map=per_map_check(profile, first),
        codec_source=_codec_source(profile, first),
        ignored=first.ignored_settings(),
    )
