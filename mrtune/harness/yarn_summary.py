"""The figures of a YARN fidelity report (:mod:`mrtune.harness.yarn_fidelity`) over the runs
not fitted, and issue 21's goals on them."""

from __future__ import annotations

import math
import statistics
from typing import Any

#: Phases compared per run (ms): the mean map attempt; the map stage (first attempt start →
#: last map finish); the shuffle's tail after the last map (what a reduce still waits for
#: once every map is done: with slow-start the rest of its copy overlaps the maps); and the
#: reduce's merge and reduce phases (ReduceAttemptFinishedEvent's shuffle/sort finish times).
PHASES = ("map_task", "map_stage", "shuffle_tail", "merge", "reduce")

#: Issue 21's goals on the runs not fitted (summary key → (bound, "min" or "max")).
GOALS: dict[str, tuple[float, str]] = {
    "counters_equal_share": (0.95, "min"),
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


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    held = [r for r in rows if not r["calibration"]]
    errs = sorted(abs(r["job_time_error"]) for r in held if not math.isnan(r["job_time_error"]))
    out: dict[str, Any] = {"runs_predicted": len(held)}
    if held:
        out["counters_equal_share"] = sum(r["counters_equal"] for r in held) / max(
            1, sum(r["counters"] for r in held)
        )
        out["waves_equal_share"] = sum(r["waves_equal"] for r in held) / len(held)
        off = [abs(e) for r in held for e in r["counter_errors"].values()]
        out["counters_within_0.1pct_share"] = 1.0 - sum(e > 1e-3 for e in off) / max(
            1, sum(r["counters"] for r in held)
        )
        out["counter_mismatches"] = [
            f"{r['label']}: {k} {e:+.2%}" for r in held for k, e in r["counter_errors"].items()
        ]
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
    return out
