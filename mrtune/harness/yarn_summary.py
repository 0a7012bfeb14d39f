"""The figures of a YARN fidelity report (:mod:`mrtune.harness.yarn_fidelity`) over the labels
not fitted (each the median of its repeats), issue 21's goals on them, and the ceiling the
repeats' noise sets on them."""

from __future__ import annotations

import math
import statistics
from typing import Any

from mrtune.harness.yarn_check import BYTE_COUNTERS, RECORD_COUNTERS, RECORDS_ONLY

#: A byte counter is "near" when the model is within this relative error (0.1%).
BYTES_NEAR = 1e-3

#: Phases compared per run (ms): the mean map attempt; the map stage (first attempt start →
#: last map finish); the shuffle's tail after the last map (what a reduce still waits for
#: once every map is done: with slow-start the rest of its copy overlaps the maps); and the
#: reduce's merge and reduce phases (ReduceAttemptFinishedEvent's shuffle/sort finish times).
PHASES = ("map_task", "map_stage", "shuffle_tail", "merge", "reduce")

#: Issue 21's goals on the runs not fitted (summary key → (bound, "min" or "max")).
GOALS: dict[str, tuple[float, str]] = {
    "records_equal_share": (0.95, "min"),
    "waves_equal_share": (1.0, "min"),
    "job_time_median_error": (0.10, "max"),
    "job_time_p90_error": (0.25, "max"),
    "spearman": (0.9, "min"),
}


def _goals(out: dict[str, Any]) -> dict[str, bool]:
    return {
        k: (out[k] >= bound if how == "min" else out[k] <= bound)
        for k, (bound, how) in GOALS.items()
        if k in out and not math.isnan(out[k])
    }


def counter_fields(meas: dict[str, Any], pred: dict[str, Any]) -> dict[str, Any]:
    """One run's counter comparison: which of :data:`RECORD_COUNTERS` the model gets exactly
    (its figure rounded to the nearest integer is Hadoop's count: Hadoop sums integer
    per-task counters, the model's job totals are expected values), the records and the
    bytes apart, and for each unequal one its relative and absolute miss."""
    known = [k for k in RECORD_COUNTERS if meas.get(k) is not None and k in pred]
    equal = {k for k in known if round(pred[k]) == round(meas[k])}
    recs = [k for k in known if k in RECORDS_ONLY]
    byts = [k for k in known if k in BYTE_COUNTERS]
    return {
        "counters_equal": len(equal),
        "counters": len(known),
        "records_equal": sum(k in equal for k in recs),
        "records": len(recs),
        "bytes_equal": sum(k in equal for k in byts),
        "bytes": len(byts),
        "bytes_near": sum(abs(pred[k] - meas[k]) <= BYTES_NEAR * abs(meas[k]) for k in byts),
        # the unequal ones and how far: relative error of the model's count, and the count
        "counter_errors": {
            k: (pred[k] - meas[k]) / meas[k] if meas[k] else math.inf
            for k in known
            if k not in equal
        },
        "counter_misses": {k: pred[k] - meas[k] for k in known if k not in equal},
    }


def _shares(held: list[dict[str, Any]]) -> dict[str, Any]:
    """The counter figures over the held-out runs: records equal (the goal), bytes equal,
    bytes within 0.1%, and all seven together (as before: records and bytes)."""

    def share(num: str, den: str) -> float:
        return sum(r[num] for r in held) / max(1, sum(r[den] for r in held))

    off = [abs(e) for r in held for e in r["counter_errors"].values()]
    return {
        "records_equal_share": share("records_equal", "records"),
        "bytes_equal_share": share("bytes_equal", "bytes"),
        "bytes_within_0.1pct_share": share("bytes_near", "bytes"),
        "counters_equal_share": share("counters_equal", "counters"),
        "counters_within_0.1pct_share": 1.0
        - sum(e > BYTES_NEAR for e in off) / max(1, sum(r["counters"] for r in held)),
        "counter_mismatches": [
            f"{r['label']}: {k} {e:+.2%} ({r['counter_misses'][k]:+.4g})"
            for r in held
            for k, e in r["counter_errors"].items()
        ],
    }


def _repeat_figures(held: list[dict[str, Any]], out: dict[str, Any]) -> None:
    """How many held-out runs the labels pool, their repeat spread, and the labels whose
    repeats disagree on a counter or the waves (:mod:`mrtune.harness.yarn_repeats`)."""
    if not any("repeats" in r for r in held):
        return
    out["held_out_runs"] = sum(len(r["repeats"]) for r in held)
    spreads = [r["job_time_spread"] for r in held if len(r["repeats"]) > 1]
    if spreads:
        out["repeat_spread_median"] = statistics.median(spreads)
        out["repeat_spread_max"] = max(spreads)
    out["repeats_disagree"] = [
        f"{r['label']}: {k} {vals}" for r in held for k, vals in r["repeats_disagree"].items()
    ]


def summarize(rows: list[dict[str, Any]], ceiling: bool = True) -> dict[str, Any]:
    """The figures over the held-out rows (one per label: medians over its repeats), and
    with ``ceiling`` what a perfect model would score under the repeats' noise
    (:func:`mrtune.harness.yarn_repeats.noise_ceiling`)."""
    held = [r for r in rows if not r["calibration"]]
    errs = sorted(abs(r["job_time_error"]) for r in held if not math.isnan(r["job_time_error"]))
    out: dict[str, Any] = {"runs_predicted": len(held)}
    _repeat_figures(held, out)
    if held:
        out.update(_shares(held))
        out["waves_equal_share"] = sum(r["waves_equal"] for r in held) / len(held)
    if errs:
        out["job_time_median_error"] = statistics.median(errs)
        out["job_time_p90_error"] = errs[min(len(errs) - 1, math.ceil(0.9 * len(errs)) - 1)]
    for k in PHASES:
        perr = sorted(
            abs(r["phase_errors"][k]) for r in held if not math.isnan(r["phase_errors"][k])
        )
        if perr:
            out[f"{k}_median_error"] = statistics.median(perr)
            out[f"{k}_p90_error"] = perr[min(len(perr) - 1, math.ceil(0.9 * len(perr)) - 1)]
    starts: dict[str, list[float]] = {}
    for r in rows:
        for k, v in r["measured"].get("container_start", {}).items():
            starts.setdefault(k, []).append(v)
    for k, v in sorted(starts.items()):
        out[f"container_{k}_median"] = statistics.median(v)
    if len(held) >= 3:
        from scipy.stats import spearmanr

        rho = spearmanr(
            [r["predicted"]["job_ms"] for r in held], [r["measured"]["job_ms"] for r in held]
        )
        out["spearman"] = float(rho.statistic)
    out["goals_met"] = _goals(out)
    if ceiling:
        from mrtune.harness.yarn_repeats import noise_ceiling

        found = noise_ceiling(rows)
        if found:
            out["noise_ceiling"] = found
    return out
