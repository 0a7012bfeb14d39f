"""The fidelity report's summary: the goal figures over the predicted runs (issue 5).

Exact-match rate of the record counters, worst and within-1% relative byte errors (apart
for the runs whose codec ratio was measured or fell back to a prior), median and 90th
percentile of the absolute relative job-time error, Spearman's rank correlation of predicted
and measured job times (``scipy.stats.spearmanr``), the phase whose errors carry the time
miss, and the notes that explain each missed goal (:mod:`mrtune.calibration._fidelity_notes`).
Each group of figures is one step below, run in the order the report's JSON lists them.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from mrtune.calibration._fidelity_figures import PHASES, RECORD_COUNTERS
from mrtune.calibration._fidelity_notes import explain
from mrtune.calibration._fidelity_runs import RunComparison, _within

GOALS = {
    "record_exact_rate": 0.95,
    "byte_rel_error": 0.01,
    "byte_within_rate": 0.95,
    "job_time_median_abs_error": 0.10,
    "job_time_p90_abs_error": 0.25,
    "spearman": 0.9,
}


def _quantile(values: Sequence[float], q: float) -> float:
    return float(np.quantile(np.asarray(values, dtype=float), q)) if values else math.nan


def summarize(
    runs: Sequence[RunComparison], calibrations: Sequence[RunComparison] = ()
) -> dict[str, Any]:
    """The goal figures over ``runs`` (see the module doc), with the phase carrying the time
    error and the notes that explain misses (``calibrations``: the calibration runs' own rows,
    for the notes, :func:`mrtune.calibration._fidelity_notes.explain`)."""
    out: dict[str, Any] = {"runs": len(runs), "goals": GOALS}
    if not runs:
        return out
    _record_figures(runs, out)
    _byte_figures(runs, out)
    _codec_figures(runs, out)
    _time_figures(runs, out)
    _phase_figures(runs, out)
    _width_figures(runs, out)
    loads = [r.load_avg for r in runs]
    if len(set(loads)) > 1 and len(runs) >= 3:
        errs = [abs(r.job_time_error) for r in runs]
        out["load_vs_abs_error_spearman"] = float(spearmanr(loads, errs).statistic)
    out["goals_met"] = _goals_met(out)
    out["notes"] = explain(runs, out, calibrations)
    return out


def _record_figures(runs: Sequence[RunComparison], out: dict[str, Any]) -> None:
    """Exact-match rates of the record counters, overall, per counter and per map."""
    pairs = [(r.label, k, ok) for r in runs for k, ok in r.record_matches.items()]
    out["record_counters_compared"] = len(pairs)
    out["record_exact_rate"] = sum(ok for *_, ok in pairs) / len(pairs)
    out["runs_all_records_exact"] = sum(all(r.record_matches.values()) for r in runs) / len(runs)
    out["record_exact_rate_by_counter"] = {
        k: sum(r.record_matches[k] for r in runs) / len(runs) for k in RECORD_COUNTERS
    }
    out["record_mismatches"] = [f"{lab}: {k}" for lab, k, ok in pairs if not ok]
    # how far the unequal ones are: the share within 0.1% (per-map lists element by element)
    near = [_within(r.predicted[k], r.measured[k], 1e-3) for r in runs for k in RECORD_COUNTERS]
    out["record_within_0.1pct_rate"] = sum(near) / len(near)
    pm = [r.per_map_matches for r in runs if r.per_map]
    if pm:
        out["per_map_record_exact_rate"] = sum(a for a, _ in pm) / max(sum(b for _, b in pm), 1)


def _byte_figures(runs: Sequence[RunComparison], out: dict[str, Any]) -> None:
    """Worst and within-1% relative byte errors, and the same over the uncompressed runs."""
    byte = [(abs(e), r.label, k) for r in runs for k, e in r.byte_errors.items()]
    worst = max(byte)
    out["byte_worst_rel_error"] = worst[0]
    out["byte_worst_at"] = f"{worst[1]}: {worst[2]}"
    out["byte_within_1pct_rate"] = sum(e <= 0.01 for e, *_ in byte) / len(byte)
    plain = [
        abs(e)
        for r in runs
        if r.settings.get("mapreduce.map.output.compress", "false") != "true"
        for e in r.byte_errors.values()
    ]
    if plain:
        out["byte_within_1pct_rate_uncompressed"] = sum(e <= 0.01 for e in plain) / len(plain)
        out["byte_worst_rel_error_uncompressed"] = max(plain)


def _time_figures(runs: Sequence[RunComparison], out: dict[str, Any]) -> None:
    """Job-time errors (median, p90, signed), the rank correlations and the repeat spread."""
    errs = [abs(r.job_time_error) for r in runs]
    out["job_time_median_abs_error"] = statistics.median(errs)
    out["job_time_p90_abs_error"] = _quantile(errs, 0.9)
    out["job_time_median_signed_error"] = statistics.median(r.job_time_error for r in runs)
    if len(runs) >= 3:
        rho = spearmanr(
            [r.predicted_times["job"] for r in runs], [r.measured_times["job"] for r in runs]
        )
        out["spearman"] = float(rho.statistic)
        out["spearman_p"] = float(rho.pvalue)
        by_job = {}
        for job in sorted({r.job for r in runs}):
            sub = [r for r in runs if r.job == job]
            if len(sub) >= 3:
                by_job[job] = float(
                    spearmanr(
                        [r.predicted_times["job"] for r in sub],
                        [r.measured_times["job"] for r in sub],
                    ).statistic
                )
        out["spearman_by_job"] = by_job
    if len(runs) >= 3 and all(r.measured_times.get("cpu") for r in runs):
        out["spearman_vs_cpu_time"] = float(
            spearmanr(
                [r.predicted_times["job"] for r in runs], [r.measured_times["cpu"] for r in runs]
            ).statistic
        )
    spreads = [r.job_time_spread for r in runs if r.repeats > 1]
    if spreads:
        out["repeat_spread_median"] = statistics.median(spreads)


def _phase_shares(runs: Sequence[RunComparison]) -> dict[str, float]:
    """Each phase's share of the summed absolute phase errors, largest first."""
    acc: dict[str, float] = defaultdict(float)
    for r in runs:
        for p, e in r.phase_errors_ms.items():
            acc[p] += abs(e)
    total = sum(acc.values()) or 1.0
    return {p: v / total for p, v in sorted(acc.items(), key=lambda x: -x[1])}


def _phase_figures(runs: Sequence[RunComparison], out: dict[str, Any]) -> None:
    """Which phase carries the job-time error: sum of |error| per phase over the runs, over
    all jobs and per job, and each phase's median signed error."""
    out["phase_error_share"] = _phase_shares(runs)
    out["phase_error_share_by_job"] = {
        job: _phase_shares([r for r in runs if r.job == job])
        for job in sorted({r.job for r in runs})
    }
    out["phase_error_median_ms"] = {
        p: statistics.median(r.phase_errors_ms[p] for r in runs) for p in (*PHASES, "other")
    }


def map_output_width(run: RunComparison) -> int | None:
    """The run's measured map output bytes per record, rounded to a byte (None: unknown)."""
    n, b = run.measured.get("MAP_OUTPUT_RECORDS", 0), run.measured.get("MAP_OUTPUT_BYTES", 0)
    return round(b / n) if n and b else None


def _width_figures(runs: Sequence[RunComparison], out: dict[str, Any]) -> None:
    """Job-time and per-phase errors by map output record width (issue 20 item 4: whether
    CPU priced per record or per byte misses more at some widths than at others). Each
    phase's figure is the median of (predicted − measured) / measured over the runs."""
    by: dict[int, list[RunComparison]] = defaultdict(list)
    for r in runs:
        if (w := map_output_width(r)) is not None:
            by[w].append(r)
    table: dict[str, Any] = {}
    for w, sub in sorted(by.items()):
        errs = [r.job_time_error for r in sub]
        phases = {}
        for p in PHASES:
            rel = [
                (r.predicted_times[p] - r.measured_times[p]) / r.measured_times[p]
                for r in sub
                if r.measured_times.get(p, 0.0) > 0
            ]
            if rel:
                phases[p] = statistics.median(rel)
        table[str(w)] = {
            "runs": len(sub),
            "jobs": sorted({r.job for r in sub}),
            "job_time_median_abs_error": statistics.median(abs(e) for e in errs),
            "job_time_p90_abs_error": _quantile([abs(e) for e in errs], 0.9),
            "job_time_median_signed_error": statistics.median(errs),
            "phase_median_rel_error": phases,
        }
    if table:
        out["by_map_output_width"] = table


def _goals_met(out: dict[str, Any]) -> dict[str, bool]:
    """Each goal of :data:`GOALS` against its figure."""
    return {
        "record_exact_rate": out["record_exact_rate"] >= GOALS["record_exact_rate"],
        "byte_rel_error": out["byte_within_1pct_rate"] >= GOALS["byte_within_rate"],
        "job_time_median_abs_error": out["job_time_median_abs_error"]
        <= GOALS["job_time_median_abs_error"],
        "job_time_p90_abs_error": out["job_time_p90_abs_error"] <= GOALS["job_time_p90_abs_error"],
        "spearman": out.get("spearman", -1.0) >= GOALS["spearman"],
    }


def _codec_figures(runs: Sequence[RunComparison], out: dict[str, Any]) -> None:
    """Which codec ratios the byte goal was scored with, and the byte figures of the compressed
    runs whose ratio was measured on another run (leave-one-label-out) apart from those that
    fell back to a documented prior (no other run of the same data used that codec)."""
    packed = [r for r in runs if r.codec_source is not None]
    if not packed:
        return
    measured = [r for r in packed if r.codec_measured]
    on_priors = [r.label for r in packed if not r.codec_measured]
    probed = sum(1 for r in measured if (r.codec_source or "").startswith("measured by probe"))
    out["codec_ratios_scored"] = (
        f"{len(measured)} of {len(packed)} compressed runs with ratios measured on the same "
        f"data ({probed} by the codec probe run, {len(measured) - probed} by another "
        "compressed run), the rest on priors"
        if measured
        else "documented priors (the calibration run compresses nothing)"
    )
    out["codec_runs_measured_by_probe"] = probed
    out["codec_runs_on_priors"] = on_priors
    if measured:
        errs = [abs(e) for r in measured for e in r.byte_errors.values()]
        out["byte_within_1pct_rate_measured_codecs"] = sum(e <= 0.01 for e in errs) / len(errs)
        out["byte_worst_rel_error_measured_codecs"] = max(errs)
        plain = [
            abs(e)
            for r in runs
            if r.codec_source is None or r.codec_measured
            for e in r.byte_errors.values()
        ]
        out["byte_within_1pct_rate_without_priors"] = sum(e <= 0.01 for e in plain) / len(plain)
