"""``mrtune validate`` on real YARN histories: calibrate on one run, predict the others.

Input: the ``runs.jsonl`` index ``mrtune hadoop-run --mode yarn`` writes (one line per run,
with its ``.jhist``, ``_conf.xml`` and the :class:`~mrtune.harness.yarn_run.MiniCluster` it ran
on). The calibration run's history is profiled through the user's path
(:func:`mrtune.calibration.profiles.build_profile` on the read history: statistics → fitted
cost factors, with its attempts' CPU contention taken out first); every other run is predicted from that profile with its OWN configuration (read from
its ``_conf.xml``) on its own cluster, so nothing a run is judged on was fitted on it. As in
:mod:`mrtune.calibration.fidelity`, the calibration run's job-time residual (client, AM and
scheduling overhead the task model does not hold) is added to every prediction.

Runs of several jobs (a YARN matrix, :mod:`mrtune.harness.yarn_matrix`) are grouped by their
``job`` and each group is calibrated on its own ``<job>-default`` run.

The YARN fixed costs come from the calibration run alone (:func:`calibration_profile`,
:mod:`mrtune.calibration.fixed_costs`): its attempts' times without the CPU contention of the
containers that ran beside them (the history's own timeline over the host's cores,
``ClusterSpec.node_cores``; how many cores one container keeps busy, ``container_cores``, from
its map vs reduce container starts in the NodeManagers' logs), and the delay from slow-start to
a reduce's launch (``reduce_ramp_ms``, the AM's and NodeManagers' heartbeats). Predictions
then stretch each wave by the containers it runs at once.

Codec ratios (``codec_runs``, :mod:`mrtune.harness.yarn_codecs`) come from OTHER runs of the
same job and record generator, never from a run with the scored label. A reduce's fixed times
(its merge phase's floor, ``CostFactors.merge_floor_ms``, and the task commit's ``canCommit``
poll, ``commit_ms``) are the profile's own, as ``mrtune profile`` fits them from the same
history (documented priors, capped by what its phases leave over their per-record work); a
commit time measured on other runs may be given instead (``reduce_fixed_ms``).

Runs with the same label are repeats of one setting (:mod:`mrtune.harness.yarn_repeats`,
the local report's rule): the calibration run is the default label's repeat with the median
job time, the only run fitted; each label is predicted once, from its own configuration (its
first repeat's ``_conf.xml``), and measured as the medians of its repeats' times, with the
counters of its first repeat (repeats that disagree are flagged). The default label's other
repeats are a held-out row of their own: the same configuration as the calibration run, so
their error is the referee's run-to-run noise.

Figures: record counters equal, map waves equal, per-phase times (:data:`PHASES`), job time
error (median, p90) and the Spearman correlation of predicted and measured job times, over
the labels not fitted (medians over repeats), and the noise ceiling the repeats set
(:func:`mrtune.harness.yarn_repeats.noise_ceiling`).

An index's paths may be relative to the index file (a packed round,
:mod:`mrtune.harness.yarn_pack`); the readers take the histories gzipped too.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mrtune.calibration.fidelity import default_label
from mrtune.calibration.fixed_costs import container_cores, reduce_ramp_ms, without_contention
from mrtune.costmodel import ConfigBatch, predict_job
from mrtune.costmodel.profile import JobProfile
from mrtune.errors import InputError
from mrtune.harness.yarn_check import RECORD_COUNTERS, cluster_spec
from mrtune.harness.yarn_measure import container_start, measure, measured_phases
from mrtune.harness.yarn_repeats import (
    by_label,
    combine,
    disagreements,
    median_repeat,
    parse_calibration,
    spread,
)
from mrtune.harness.yarn_run import MiniCluster
from mrtune.harness.yarn_summary import PHASES, counter_fields, summarize
from mrtune.harness.yarn_terms import fit_profile

__all__ = ["PHASES", "HistoryRun", "history_report", "load_history_runs", "measured_phases"]
from mrtune.profiling.build import build_statistics, profile_config
from mrtune.readers import load_history
from mrtune.readers.conf import load_conf


@dataclass
class HistoryRun:
    label: str
    jhist: Path
    conf_xml: Path
    cluster: MiniCluster
    load_avg: float | None = None
    group: str = ""
    """The job the run belongs to: runs are calibrated within their group."""
    repeat: int = 0
    """Which repeat of its label (runs with one label are one setting measured again)."""


def is_history_index(path: Path) -> bool:
    """Whether ``path`` is a ``runs.jsonl`` of YARN runs (its first entry names a .jhist)."""
    if path.suffix != ".jsonl":
        return False
    with path.open(encoding="utf-8") as fh:
        first = fh.readline()
    try:
        return "jhist" in json.loads(first)
    except (json.JSONDecodeError, TypeError):
        return False


def _group_of(entry: dict[str, Any]) -> str:
    """The job an index entry belongs to: the project's job, else a ``--jar`` job's main
    class (``job_name_of``). Without it every ``--jar`` run was one group, all calibrated on
    the first job's run ("terasort: MAP_OUTPUT_RECORDS +2887%")."""
    if entry.get("job"):
        return str(entry["job"])
    if entry.get("main_class"):
        from mrtune.harness.any_record import job_name_of

        return job_name_of(str(entry["main_class"]))
    return ""


def load_history_runs(path: Path) -> list[HistoryRun]:
    """The successful YARN runs of an index; a bad line is one clear error. A relative
    ``jhist``/``conf_xml`` path is taken from the index file's folder (a packed round)."""
    runs = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            e = json.loads(line)
            if e.get("mode") != "yarn" or not e.get("success") or not e.get("jhist"):
                continue
            run = HistoryRun(
                e["label"],
                path.parent / e["jhist"],  # an absolute path stays as it is
                path.parent / e["conf_xml"],
                MiniCluster(**e["cluster"]),
                e.get("load_avg_1m"),
                _group_of(e),
                int(e.get("repeat") or 0),
            )
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"not a hadoop-run entry ({exc})", path=f"{path}:{n}") from None
        if not run.jhist.is_file():
            raise InputError("history file missing", path=str(run.jhist))
        runs.append(run)
    if not runs:
        raise InputError("no successful YARN run with a .jhist", path=str(path))
    return runs


def _predict(profile, run: HistoryRun, measured: dict[str, float]) -> dict[str, Any]:
    stats, own = build_statistics(load_history(run.jhist), load_conf(run.conf_xml))
    cfg = own if own is not None else profile_config(profile)
    profile = with_own_input(profile, stats)
    spec = cluster_spec(run.cluster, **measured)
    pred = predict_job(profile, ConfigBatch.from_configs([cfg]), spec)
    out = {k: float(pred.counters[k][0]) for k in RECORD_COUNTERS if k in pred.counters}
    out.update(map_waves=int(pred.map_waves[0]), job_ms=float(pred.job_ms[0]))
    full, tail = pred.map_full, pred.map_tail
    n_full, n_tail = float(pred.num_full_maps[0]), float(pred.num_tail_maps[0])
    s_map, s_red = (
        float(np.asarray(pred.map_stretch).flat[0]),
        float(np.asarray(pred.reduce_stretch).flat[0]),
    )
    map_ms = (n_full * float(full.task_ms[0]) + n_tail * float(tail.task_ms[0])) / max(
        1.0, n_full + n_tail
    )
    map_ms *= s_map
    red = {k: float(v[0]) * s_red for k, v in pred.reduce.phase_ms.items()}
    has_red = float(pred.num_reducers[0]) > 0
    out["phases"] = {
        "map_task": map_ms,
        "map_stage": float(pred.map_stage_ms[0]),
        # as measured: from the later of the reduce's launch and the last map's end
        "shuffle_tail": float(
            pred.shuffle_end_ms[0] - max(pred.map_stage_ms[0], pred.reduce_start_ms[0])
        )
        if has_red
        else 0.0,
        "merge": red.get("merge", 0.0),
        "reduce": red.get("reduce", 0.0) + red.get("write", 0.0),
    }
    return out


def with_own_input(profile: JobProfile, run: JobProfile) -> JobProfile:
    """``profile`` on the input the run read, when its files differ from the calibration
    run's: the input is the job's, not its configuration's (the local report's rule,
    :func:`~mrtune.calibration.run_inputs.profile_for_run`). A chain's second job reads what
    the first wrote, so a run whose first job had 3 reducers gives it 3 files; the history
    names no file, only how many ``FileInputFormat`` listed and what each map read."""
    # bytes a record reader reads past its split's end vary with the split size: not the input
    same_files = run.input_files == profile.input_files
    if same_files and abs(run.input_bytes - profile.input_bytes) <= 1e-3 * profile.input_bytes:
        return profile
    keys = ("input_bytes", "input_files", "map_classes", "input_splittable", "split_units")
    return profile.model_copy(update={k: getattr(run, k) for k in keys})


def _group_label(runs: list[HistoryRun], group: str, calibrate: list[str]) -> str:
    """The group's calibration label: the one asked for, else the job's default label
    (``wc-default``, ``sensorstats-default``, a chain's ``grep-default#2``), else any
    ``…-default``, else the first."""
    labels = [r.label for r in runs if r.group == group]
    chosen = [c for c in calibrate if c in labels]
    if chosen:
        return chosen[0]
    wants = {default_label(group, project=p) for p in (False, True)} if group else set()
    fallback = (x for x in labels if x.partition("#")[0].endswith("-default"))
    return next((x for x in labels if x in wants), next(fallback, labels[0]))


def _calibration_run(
    members: list[HistoryRun], label: str, rep: int | None, meas: dict[int, dict[str, Any]]
) -> HistoryRun:
    """Repeat ``rep`` of ``label``, else its repeat with the median job time."""
    runs = by_label(members)[label]
    if rep is None:
        return median_repeat(runs, lambda r: meas[id(r)]["job_ms"])
    found = next((r for r in runs if r.repeat == rep), None)
    if found is None:
        raise InputError("no such repeat", field="--calibrate", value=f"{label}:{rep}")
    return found


def history_report(
    runs: list[HistoryRun],
    calibrate: str | list[str] | None = None,
    codec_runs: list[Any] | None = None,
    reduce_fixed_ms: float | None = None,
    priors: dict[str, float] | None = None,
) -> dict[str, Any]:
    """Calibrate each job group on its label in ``calibrate`` (``LABEL`` or ``LABEL:REPEAT``;
    default: its ``-default`` label, else its first) and predict every label of the group from
    that one profile. Of a label's repeats the one with the median job time calibrates unless
    a repeat is named; the label's other repeats are held out with every other label.

    ``codec_runs``: run records of the same jobs on the same record generators (local mode or
    YARN); a compressed run then takes its codec's ratio from them, never from a run with its
    own label (:mod:`mrtune.harness.yarn_codecs`); else the documented priors.
    ``reduce_fixed_ms``: a reduce's commit time (``CostFactors.commit_ms``) measured on
    OTHER runs (another round of the matrix), the fit's prior for it; None (default): the
    documented prior, fitted from each group's calibration history alone, as a user with one
    .jhist has it (:mod:`mrtune.calibration.prior_caps`).
    ``priors``: cost factors the calibration history cannot separate, measured on other runs
    (:func:`mrtune.harness.yarn_terms.fit_profile`); None: the documented YARN priors."""
    groups = list(dict.fromkeys(r.group for r in runs))
    wanted = [calibrate] if isinstance(calibrate, str) else [c for c in calibrate or [] if c]
    picks = dict(parse_calibration(c) for c in wanted)
    for label in picks:
        if not any(r.label == label for r in runs):
            raise InputError("no run with this label", field="--calibrate", value=label)
    meas = {id(r): measure(r.jhist) for r in runs}
    rows: list[dict[str, Any]] = []
    cal_labels = []
    for g in groups:
        members = [r for r in runs if r.group == g]
        label = _group_label(runs, g, list(picks))
        cal = _calibration_run(members, label, picks.get(label), meas)
        repeated = len(by_label(members)[label]) > 1
        cal_labels.append(f"{label}:{cal.repeat}" if repeated else label)
        rows += _group_rows(members, cal, codec_runs or [], reduce_fixed_ms, meas, priors)
    out = {"calibration": ", ".join(cal_labels), "runs": rows, "summary": summarize(rows)}
    out["codec_ratios"] = (
        "measured on other runs of the same job and data (never the scored label)"
        if codec_runs
        else "priors (CODEC_PRIORS)"
    )
    out["cost_priors"] = (
        f"given, measured on other runs: {priors}" if priors else "documented YARN priors"
    )
    out["reduce_fixed_ms"] = {
        r["job"]: {k: r["reduce_fixed"][k] for k in ("merge_floor_ms", "commit_ms", "source")}
        for r in rows
        if r["calibration"]
    }
    if len(groups) > 1:
        out["groups"] = {
            g: summarize([r for r in rows if r["job"] == g], ceiling=False) for g in groups
        }
    return out


def calibration_profile(
    cal: HistoryRun,
    reduce_fixed_ms: float | None = None,
    priors: dict[str, float] | None = None,
) -> tuple[Any, dict[str, float]]:
    """The profile of the calibration run's history and the cluster-level terms measured on
    it (:mod:`mrtune.calibration.fixed_costs`): the profile is fitted on the attempts' times
    without the CPU contention of the containers that ran beside them (the history's own
    timeline over the host's cores), and the reduces' ramp-up delay is read off the same
    timeline. ``reduce_fixed_ms`` None: the reduce's commit time is the profile's own
    (``CostFactors.commit_ms``, fitted from this history as ``mrtune profile`` does); a
    number: measured elsewhere, the fit's prior for it.
    Nothing comes from the runs it is judged on."""
    history = load_history(cal.jhist)
    conf = load_conf(cal.conf_xml)
    _, cfg = build_statistics(history, conf)
    spec = cluster_spec(cal.cluster)
    cores = spec.num_nodes * float(spec.node_cores or spec.node_vcores)
    measured: dict[str, float] = {}
    busy = container_cores(history, container_start(cal.jhist, history), cores)
    if busy is not None:
        measured["container_cores"] = busy
    if reduce_fixed_ms is not None:  # measured on other runs: the fit's prior
        priors = {**(priors or {}), "commit_ms": float(reduce_fixed_ms)}
    fit_on = without_contention(history, cores, busy or 1.0)
    profile = fit_profile(fit_on, conf, priors)
    slowstart = cfg.reduce_slowstart if cfg is not None else 0.05
    ramp = reduce_ramp_ms(history, slowstart)
    if ramp is not None:
        measured["reduce_ramp_ms"] = ramp
    return profile, measured


def _group_rows(
    members: list[HistoryRun],
    cal: HistoryRun,
    codec_runs: list[Any],
    reduce_fixed_ms: float | None,
    meas: dict[int, dict[str, Any]],
    priors: dict[str, float] | None = None,
) -> list[dict[str, Any]]:
    """The calibration row (its one run) and one held-out row per label of the group (the
    calibration label's other repeats among them), each from the group's one profile."""
    base, terms = calibration_profile(cal, reduce_fixed_ms, priors)
    overhead = meas[id(cal)]["job_ms"] - _predict(base, cal, terms)["job_ms"]
    cal_counters = meas[id(cal)]
    mor = float(cal_counters.get("MAP_OUTPUT_RECORDS") or 0.0)
    width = float(cal_counters.get("MAP_OUTPUT_BYTES") or 0.0) / mor if mor > 0 else 0.0
    fit = (base, terms, overhead, width, codec_runs)
    rows = []
    for label, reps in by_label(members).items():
        if label == cal.label:
            rows.append(_label_row([cal], fit, meas, calibration=True))
            reps = [r for r in reps if r is not cal]
        if reps:
            rows.append(_label_row(reps, fit, meas, calibration=False))
    return rows


def _label_row(
    reps: list[HistoryRun], fit: tuple, meas: dict[int, dict[str, Any]], calibration: bool
) -> dict[str, Any]:
    """One label predicted from its first repeat's configuration and measured over
    ``reps`` (medians of times, first repeat's counters, disagreements flagged)."""
    from mrtune.harness.yarn_codecs import with_codecs_from

    base, terms, overhead, width, codec_runs = fit
    first = reps[0]
    profile, codec_sources = base, []
    props = load_conf(first.conf_xml).properties
    compressed = props.get("mapreduce.map.output.compress", "false").strip() == "true"
    if codec_runs and not calibration and compressed:
        profile, codec_sources = with_codecs_from(
            base, first.group, width, codec_runs, first.label
        )
    each = [meas[id(r)] for r in reps]
    m = combine(each)
    pred = _predict(profile, first, terms)
    pred["job_ms"] += overhead
    loads = [r.load_avg for r in reps if r.load_avg is not None]
    return {
        "label": first.label,
        "job": first.group,
        "calibration": calibration,
        "repeats": [r.repeat for r in reps],
        # the cluster-level terms measured on the calibration run's history
        "cluster_terms": terms if calibration else {},
        # the reduce's fixed times, as the profile holds them
        "reduce_fixed": {
            "merge_floor_ms": base.costs.merge_floor_ms,
            "commit_ms": base.costs.commit_ms,
            "source": base.provenance.get("costs.commit_ms", ""),
        }
        if calibration
        else {},
        # what the calibration's job time holds beyond the model's tasks (the AM's
        # set-up before the first container, the job commit), added to every run
        "job_overhead_ms": overhead,
        "load_avg": statistics.median(loads) if loads else None,
        "codec_sources": codec_sources,
        "measured": m,
        "predicted": pred,
        **counter_fields(m, pred),
        "waves_equal": pred["map_waves"] == m["map_waves"],
        "job_time_error": (pred["job_ms"] - m["job_ms"]) / m["job_ms"]
        if m["job_ms"] > 0
        else math.nan,
        "job_time_spread": spread(m["repeat_job_ms"]),
        "repeats_disagree": disagreements(each),
        "phase_errors": {
            k: (pred["phases"][k] - v) / v if v and v > 0 else math.nan
            for k, v in m["phases"].items()
        },
    }
