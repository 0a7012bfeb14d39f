"""``mrtune validate`` on real YARN histories: calibrate on one run, predict the others.

Input: the ``runs.jsonl`` index ``mrtune hadoop-run --mode yarn`` writes (one line per run,
with its ``.jhist``, ``_conf.xml`` and the :class:`~mrtune.harness.yarn_run.MiniCluster` it ran
on). The calibration run's history is profiled through the user's path
(:func:`mrtune.calibration.profiles.load_profile_source`: readers → statistics → fitted cost
factors); every other run is predicted from that profile with its OWN configuration (read from
its ``_conf.xml``) on its own cluster, so nothing a run is judged on was fitted on it. As in
:mod:`mrtune.calibration.fidelity`, the calibration run's job-time residual (client, AM and
scheduling overhead the task model does not hold) is added to every prediction.

Figures: record counters equal, map waves equal, job time error (median, p90) and the
Spearman correlation of predicted and measured job times, over the runs not fitted.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mrtune.calibration.profiles import load_profile_source
from mrtune.costmodel import ConfigBatch, predict_job
from mrtune.errors import InputError
from mrtune.harness.yarn_check import RECORD_COUNTERS, cluster_spec, measured_figures
from mrtune.harness.yarn_run import MiniCluster
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


def _predict(profile, run: HistoryRun) -> dict[str, Any]:
    _, own = build_statistics(load_history(run.jhist), load_conf(run.conf_xml))
    cfg = own if own is not None else profile_config(profile)
    pred = predict_job(profile, ConfigBatch.from_configs([cfg]), cluster_spec(run.cluster))
    out = {k: float(pred.counters[k][0]) for k in RECORD_COUNTERS if k in pred.counters}
    out.update(map_waves=int(pred.map_waves[0]), job_ms=float(pred.job_ms[0]))
    return out


def history_report(runs: list[HistoryRun], calibrate: str | None = None) -> dict[str, Any]:
    """Calibrate on ``calibrate`` (default: a label ending ``-default``, else the first)."""
    labels = [r.label for r in runs]
    cal_label = calibrate or next((x for x in labels if x.endswith("-default")), labels[0])
    cal = next((r for r in runs if r.label == cal_label), None)
    if cal is None:
        raise InputError("no run with this label", field="--calibrate", value=cal_label)
    profile = load_profile_source(cal.jhist, cal.conf_xml)
    overhead = _job_ms(cal.jhist) - _predict(profile, cal)["job_ms"]
    rows = []
    for run in runs:
        meas = measured_figures(load_history(run.jhist))
        meas["job_ms"] = _job_ms(run.jhist)
        pred = _predict(profile, run)
        pred["job_ms"] += overhead
        equal = [k for k in RECORD_COUNTERS if meas.get(k) is not None and pred.get(k) == meas[k]]
        rows.append(
            {
                "label": run.label,
                "calibration": run is cal,
                "load_avg": run.load_avg,
                "measured": meas,
                "predicted": pred,
                "counters_equal": len(equal),
                "counters": sum(meas.get(k) is not None for k in RECORD_COUNTERS),
                "waves_equal": pred["map_waves"] == meas["map_waves"],
                "job_time_error": (pred["job_ms"] - meas["job_ms"]) / meas["job_ms"]
                if meas["job_ms"] > 0
                else math.nan,
            }
        )
    return {"calibration": cal_label, "runs": rows, "summary": _summary(rows)}


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    held = [r for r in rows if not r["calibration"]]
    errs = sorted(abs(r["job_time_error"]) for r in held if not math.isnan(r["job_time_error"]))
    out: dict[str, Any] = {"runs_predicted": len(held)}
    if held:
        out["counters_equal_share"] = sum(r["counters_equal"] for r in held) / max(
            1, sum(r["counters"] for r in held)
        )
        out["waves_equal_share"] = sum(r["waves_equal"] for r in held) / len(held)
    if errs:
        out["job_time_median_error"] = statistics.median(errs)
        out["job_time_p90_error"] = errs[min(len(errs) - 1, math.ceil(0.9 * len(errs)) - 1)]
    if len(held) >= 3:
        from scipy.stats import spearmanr

        rho = spearmanr(
            [r["predicted"]["job_ms"] for r in held], [r["measured"]["job_ms"] for r in held]
        )
        out["spearman"] = float(rho.statistic)
    return out
