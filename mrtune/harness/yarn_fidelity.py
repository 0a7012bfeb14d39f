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
same job and record generator, never from a run with the scored label. A reduce's fixed wall
time after its merge (``reduce_fixed_ms``: the task commit's ``canCommit`` poll, HDFS output
create/close) comes from the calibration history alone
(:func:`~mrtune.calibration.fixed_costs.reduce_fixed_from_history`: measured where its reduces
separate it, else a documented prior) or is given (measured on other runs,
``benchmarks/yarn_rank_study.py``); it is taken out of the calibration run's reduce phase
before the fit and added to every prediction.

Figures: record counters equal, map waves equal, per-phase times (:data:`PHASES`), job time
error (median, p90) and the Spearman correlation of predicted and measured job times, over
the runs not fitted.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mrtune.calibration.fixed_costs import (
    container_cores,
    reduce_fixed_from_history,
    reduce_ramp_ms,
    without_contention,
    without_reduce_fixed,
)
from mrtune.calibration.profiles import build_profile
from mrtune.costmodel import ConfigBatch, predict_job
from mrtune.errors import InputError
from mrtune.harness.yarn_check import RECORD_COUNTERS, cluster_spec, measured_figures
from mrtune.harness.yarn_run import MiniCluster
from mrtune.harness.yarn_summary import PHASES, counter_fields, summarize
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


def load_history_runs(path: Path) -> list[HistoryRun]:
    """The successful YARN runs of an index; a bad line is one clear error."""
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
                Path(e["jhist"]),
                Path(e["conf_xml"]),
                MiniCluster(**e["cluster"]),
                e.get("load_avg_1m"),
                str(e.get("job") or ""),
            )
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"not a hadoop-run entry ({exc})", path=f"{path}:{n}") from None
        if not run.jhist.is_file():
            raise InputError("history file missing", path=str(run.jhist))
        runs.append(run)
    if not runs:
        raise InputError("no successful YARN run with a .jhist", path=str(path))
    return runs


def _job_ms(jhist: Path) -> float:
    h = load_history(jhist)
    return float((h.finish_ms or 0) - (h.launch_ms or h.submit_ms or 0))


def measured_phases(jhist: Path) -> dict[str, float]:
    """The :data:`PHASES` of one history, from its successful attempts."""
    h = load_history(jhist)
    maps = [a for a in h.attempts if str(a.kind).upper().endswith("MAP")]
    reds = [a for a in h.attempts if str(a.kind).upper().endswith("REDUCE")]
    nan = math.nan
    if not maps:
        return dict.fromkeys(PHASES, nan)
    first = min(a.start_ms for a in h.attempts)
    last_map = max(a.finish_ms for a in maps)
    out = {
        "map_task": statistics.fmean(a.finish_ms - a.start_ms for a in maps),
        "map_stage": float(last_map - first),
    }
    parts = [
        (a.shuffle_finish_ms - max(a.start_ms, last_map), a.sort_finish_ms - a.shuffle_finish_ms,
         a.finish_ms - a.sort_finish_ms)
        for a in reds
        if a.shuffle_finish_ms and a.sort_finish_ms
    ]  # fmt: skip
    for i, name in enumerate(("shuffle_tail", "merge", "reduce")):
        out[name] = statistics.fmean(p[i] for p in parts) if parts else nan
    return out


def _predict(profile, run: HistoryRun, measured: dict[str, float]) -> dict[str, Any]:
    _, own = build_statistics(load_history(run.jhist), load_conf(run.conf_xml))
    cfg = own if own is not None else profile_config(profile)
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
        "reduce": red.get("reduce", 0.0) + red.get("write", 0.0) + spec.reduce_fixed_ms,
    }
    return out


def _job_ends(jhist: Path) -> dict[str, float]:
    """The job's own fixed times around its tasks: the AM's set-up (job launch → first
    container launch: job setup, the first container requests and allocations) and the job
    commit (last attempt's end → job finish). In the model they are part of the calibration
    run's job overhead."""
    h = load_history(jhist)
    if not h.attempts or h.launch_ms is None or h.finish_ms is None:
        return {}
    first = min(a.start_ms for a in h.attempts)
    last = max(a.finish_ms for a in h.attempts)
    return {"am_setup_ms": float(first - h.launch_ms), "job_commit_ms": float(h.finish_ms - last)}


def _container_start(run: HistoryRun) -> dict[str, float]:
    """Per-container JVM start and task init (:mod:`mrtune.harness.container_start`), when
    the launcher's work folder with the NodeManagers' logs is still there."""
    from mrtune.harness.container_start import container_starts

    h = load_history(run.jhist)
    for work in (run.jhist.parent, run.jhist.parent.parent, run.jhist.parent.parent.parent):
        found = container_starts(h, work)
        if found:
            return found
    return {}


def _group_label(runs: list[HistoryRun], group: str, calibrate: list[str]) -> str:
    labels = [r.label for r in runs if r.group == group]
    chosen = [c for c in calibrate if c in labels]
    if chosen:
        return chosen[0]
    want = f"{group}-default" if group else None
    return next((x for x in labels if x == want or x.endswith("-default")), labels[0])


def history_report(
    runs: list[HistoryRun],
    calibrate: str | list[str] | None = None,
    codec_runs: list[Any] | None = None,
    reduce_fixed_ms: float | None = None,
) -> dict[str, Any]:
    """Calibrate each job group on its label in ``calibrate`` (default: its ``-default`` run,
    else its first run) and predict every run of the group from that one profile.

    ``codec_runs``: run records of the same jobs on the same record generators (local mode or
    YARN); a compressed run then takes its codec's ratio from them, never from a run with its
    own label (:mod:`mrtune.harness.yarn_codecs`); else the documented priors.
    ``reduce_fixed_ms``: the fixed wall time per reduce after its merge
    (``ClusterSpec.reduce_fixed_ms``); None (default): from each group's calibration history
    alone, as a user with one .jhist has it (measured where its reduces separate it, else
    the documented prior); a number: measured on OTHER runs (another round of the matrix:
    ``benchmarks/yarn_rank_study.py``). Taken out of the calibration run's reduce phase
    before the fit and added back to every prediction. 0: no such term."""
    groups = list(dict.fromkeys(r.group for r in runs))
    wanted = [calibrate] if isinstance(calibrate, str) else [c for c in calibrate or [] if c]
    for label in wanted:
        if not any(r.label == label for r in runs):
            raise InputError("no run with this label", field="--calibrate", value=label)
    rows: list[dict[str, Any]] = []
    cal_labels = []
    for g in groups:
        members = [r for r in runs if r.group == g]
        cal_label = _group_label(runs, g, wanted)
        cal_labels.append(cal_label)
        cal = next(r for r in members if r.label == cal_label)
        rows += _group_rows(members, cal, codec_runs or [], reduce_fixed_ms)
    out = {"calibration": ", ".join(cal_labels), "runs": rows, "summary": summarize(rows)}
    out["codec_ratios"] = (
        "measured on other runs of the same job and data (never the scored label)"
        if codec_runs
        else "priors (CODEC_PRIORS)"
    )
    out["reduce_fixed_ms"] = {
        r["job"]: {
            "ms": r["cluster_terms"].get("reduce_fixed_ms", 0.0),
            "source": r.get("reduce_fixed_source", ""),
        }
        for r in rows
        if r["calibration"]
    }
    if len(groups) > 1:
        out["groups"] = {g: summarize([r for r in rows if r["job"] == g]) for g in groups}
    return out


def calibration_profile(
    cal: HistoryRun, reduce_fixed_ms: float | None = None
) -> tuple[Any, dict[str, float]]:
    """The profile of the calibration run's history and the cluster-level terms measured on
    it (:mod:`mrtune.calibration.fixed_costs`): the profile is fitted on the attempts' times
    without the CPU contention of the containers that ran beside them (the history's own
    timeline over the host's cores), and the reduces' ramp-up delay is read off the same
    timeline. ``reduce_fixed_ms`` None: from this history too
    (:func:`~mrtune.calibration.fixed_costs.reduce_fixed_from_history`, its provenance in the
    profile's ``cluster.reduce_fixed_ms``); a number: measured elsewhere; 0: no such term.
    Nothing comes from the runs it is judged on."""
    history = load_history(cal.jhist)
    conf = load_conf(cal.conf_xml)
    _, cfg = build_statistics(history, conf)
    spec = cluster_spec(cal.cluster)
    cores = spec.num_nodes * float(spec.node_cores or spec.node_vcores)
    measured: dict[str, float] = {}
    busy = container_cores(history, _container_start(cal), cores)
    if busy is not None:
        measured["container_cores"] = busy
    if reduce_fixed_ms is None:
        reduce_fixed_ms, how = reduce_fixed_from_history(history, cores, busy or 1.0)
    else:
        how = "given: measured on other runs (--reduce-fixed-ms)" if reduce_fixed_ms else ""
    if reduce_fixed_ms > 0:
        measured["reduce_fixed_ms"] = reduce_fixed_ms
    fit_on = without_contention(without_reduce_fixed(history, reduce_fixed_ms), cores, busy or 1.0)
    profile = build_profile(fit_on, conf)
    if how:
        prov = {**profile.provenance, "cluster.reduce_fixed_ms": how}
        profile = profile.model_copy(update={"provenance": prov})
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
) -> list[dict[str, Any]]:
    from mrtune.harness.yarn_codecs import with_codecs_from

    base, measured = calibration_profile(cal, reduce_fixed_ms)
    overhead = _job_ms(cal.jhist) - _predict(base, cal, measured)["job_ms"]
    cal_counters = measured_figures(load_history(cal.jhist))
    mor = float(cal_counters.get("MAP_OUTPUT_RECORDS") or 0.0)
    width = float(cal_counters.get("MAP_OUTPUT_BYTES") or 0.0) / mor if mor > 0 else 0.0
    rows = []
    for run in members:
        profile, codec_sources = base, []
        props = load_conf(run.conf_xml).properties
        compressed = props.get("mapreduce.map.output.compress", "false").strip() == "true"
        if codec_runs and run is not cal and compressed:
            profile, codec_sources = with_codecs_from(
                base, run.group, width, codec_runs, run.label
            )
        meas = measured_figures(load_history(run.jhist))
        meas["job_ms"] = _job_ms(run.jhist)
        meas["phases"] = measured_phases(run.jhist)
        meas["container_start"] = _container_start(run)
        meas.update(_job_ends(run.jhist))
        pred = _predict(profile, run, measured)
        pred["job_ms"] += overhead
        rows.append(
            {
                "label": run.label,
                "job": run.group,
                "calibration": run is cal,
                # the cluster-level terms measured on the calibration run's history
                "cluster_terms": measured if run is cal else {},
                "reduce_fixed_source": base.provenance.get("cluster.reduce_fixed_ms", "")
                if run is cal
                else "",
                # what the calibration's job time holds beyond the model's tasks (the AM's
                # set-up before the first container, the job commit), added to every run
                "job_overhead_ms": overhead,
                "load_avg": run.load_avg,
                "codec_sources": codec_sources,
                "measured": meas,
                "predicted": pred,
                **counter_fields(meas, pred),
                "waves_equal": pred["map_waves"] == meas["map_waves"],
                "job_time_error": (pred["job_ms"] - meas["job_ms"]) / meas["job_ms"]
                if meas["job_ms"] > 0
                else math.nan,
                "phase_errors": {
                    k: (pred["phases"][k] - m) / m if m and m > 0 else math.nan
                    for k, m in meas["phases"].items()
                },
            }
        )
    return rows
