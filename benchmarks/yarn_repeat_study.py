"""The YARN matrix recorded with repeats (round 3): its report, the old rounds beside it,
what still misses per phase and per setting, and candidate terms under leave-out discipline
(issue 21, task yarn21).

Reads the packed round (``benchmarks/results/yarn-r3/runs.jsonl``: every run's .jhist and
_conf.xml, gzipped, :mod:`mrtune.harness.yarn_pack`) and the old rounds' committed reports
(their histories are gone; their per-label figures remain). No Hadoop is run.

- ``report``: ``mrtune validate`` on the round (codec ratios from ``--codec-runs``), written
  with ``--report``; labels are medians of their repeats, the calibration run is the default
  label's median repeat, the default label's other repeats are held out.
- ``rounds``: each label's measured job time in rounds 1, 2 (one run each) and 3 (median of
  3): how far the rounds move against the repeats' own spread, and the model's error on each
  label in every round (a miss of one sign in all three rounds is the model's, not noise).
- ``phases``: per held-out label and phase, predicted − measured (s), and each phase's share.
- ``terms``: each candidate term's constant chosen on a grid by leave-one-label-out (for a
  label, the value that best predicts the OTHER held-out labels' job times), the label then
  scored by the model run with that value: before/after job time median, p90 and Spearman.

Usage: python benchmarks/yarn_repeat_study.py benchmarks/results/yarn-r3/runs.jsonl
       --codec-runs benchmarks/results/runs-matrix.jsonl --codec-runs
       benchmarks/results/runs-codecs.jsonl --old benchmarks/results/fidelity-report-yarn.json
       --old benchmarks/results/fidelity-report-yarn-r2.json
       --report benchmarks/results/fidelity-report-yarn-r3.json
       -o benchmarks/results/yarn-repeat-study.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
from pathlib import Path
from typing import Any

from scipy.stats import spearmanr

from mrtune.harness.yarn_codecs import load_codec_runs
from mrtune.harness.yarn_fidelity import history_report, load_history_runs
from mrtune.harness.yarn_summary import PHASES


def _held(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in report["runs"] if not r["calibration"]]


def _rho(a: list[float], b: list[float]) -> float:
    return float(spearmanr(a, b).statistic) if len(a) >= 3 else math.nan


def _p90(errs: list[float]) -> float:
    errs = sorted(errs)
    return errs[min(len(errs) - 1, math.ceil(0.9 * len(errs)) - 1)]


def _scores(rows: list[dict[str, Any]]) -> dict[str, float]:
    errs = [abs(r["job_time_error"]) for r in rows]
    return {
        "job_time_median_error": statistics.median(errs),
        "job_time_p90_error": _p90(errs),
        "spearman": _rho(
            [r["predicted"]["job_ms"] for r in rows], [r["measured"]["job_ms"] for r in rows]
        ),
    }


# ------------------------------------------------------------------------------- rounds


def rounds(report: dict[str, Any], old: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each label's job time and model error across the rounds, and how far the rounds
    move against the repeats' spread."""
    r3 = {r["label"]: r for r in _held(report)}
    r3 |= {r["label"]: r for r in report["runs"] if r["calibration"]}  # one row per label
    times3 = {}
    for r in report["runs"]:
        times3.setdefault(r["label"], []).extend(r["measured"]["repeat_job_ms"])
    per_label, moves = [], {k: [] for k in old}
    for label, row in r3.items():
        med = statistics.median(times3[label])
        entry: dict[str, Any] = {
            "label": label,
            "round3_repeats_s": [t / 1e3 for t in times3[label]],
            "round3_median_s": med / 1e3,
            "round3_error": row["job_time_error"],
            "round3_load": row["load_avg"],
        }
        for name, rep in old.items():
            o = next((x for x in rep["runs"] if x["label"] == label), None)
            if o is None:
                continue
            entry[f"{name}_s"] = o["measured"]["job_ms"] / 1e3
            entry[f"{name}_error"] = o["job_time_error"]
            entry[f"{name}_load"] = o["load_avg"]
            moves[name].append(o["measured"]["job_ms"] / med - 1.0)
        errs = [entry[k] for k in entry if k.endswith("_error")]
        entry["same_sign_every_round"] = (
            len(errs) == len(old) + 1
            and all(abs(e) >= 0.03 for e in errs)
            and len({math.copysign(1, e) for e in errs}) == 1
        )
        per_label.append(entry)
    out: dict[str, Any] = {"labels": per_label}
    for name in old:
        both = [e for e in per_label if f"{name}_s" in e]
        out[f"{name}_vs_round3"] = {
            "move_abs_median": statistics.median(abs(m) for m in moves[name]),
            "move_median_signed": statistics.median(moves[name]),
            "spearman_measured": _rho(
                [e[f"{name}_s"] for e in both], [e["round3_median_s"] for e in both]
            ),
        }
    out["round3_repeat_spread_median"] = report["summary"].get("repeat_spread_median")
    return out


def comparable(report: dict[str, Any], old: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The figures over the labels every round held out (rounds 1 and 2 had no repeats, so
    no held-out row of the default label): round 3's medians beside the old rounds'."""
    keys = ("records_equal_share", "waves_equal_share", "job_time_median_error",
            "job_time_p90_error", "spearman")  # fmt: skip
    rows = [r for r in _held(report) if not r["label"].endswith("-default")]
    from mrtune.harness.yarn_summary import summarize

    mine = summarize(rows, ceiling=False)
    out = {"round3_without_default_rows": {k: mine.get(k) for k in keys}}
    out["round3_all_labels"] = {k: report["summary"].get(k) for k in keys}
    for name, rep in old.items():
        out[name] = {k: rep["summary"].get(k) for k in keys}
    return out


# ------------------------------------------------------------------------------- phases


def phases(report: dict[str, Any]) -> dict[str, Any]:
    """Per held-out label, each phase's miss (predicted − measured, s; medians over the
    repeats), and per phase the median miss and its share of the summed |misses|."""
    held = _held(report)
    rows = []
    for r in held:
        m, p = r["measured"]["phases"], r["predicted"]["phases"]
        rows.append(
            {
                "label": r["label"],
                "job_miss_s": (r["predicted"]["job_ms"] - r["measured"]["job_ms"]) / 1e3,
                **{
                    f"{k}_miss_s": (p[k] - m[k]) / 1e3
                    for k in PHASES
                    if m.get(k) is not None and not math.isnan(m[k])
                },
            }
        )
    total = {k: sum(abs(x.get(f"{k}_miss_s", 0.0)) for x in rows) for k in PHASES}
    whole = sum(total.values()) or 1.0
    return {
        "labels": rows,
        "median_miss_s": {
            k: statistics.median(x[f"{k}_miss_s"] for x in rows if f"{k}_miss_s" in x)
            for k in PHASES
        },
        "share_of_abs_miss": {k: v / whole for k, v in total.items()},
    }


# -------------------------------------------------------------------------------- terms


def _loss(rows: list[dict[str, Any]]) -> float:
    return sum(abs(math.log(r["predicted"]["job_ms"] / r["measured"]["job_ms"])) for r in rows)


def lolo(reports: dict[float, dict[str, Any]]) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """Leave-one-label-out: for each held-out label, the grid value whose report best
    predicts the OTHER held-out labels (sum of |log(predicted / measured)| of job time), and
    the label's row from that report."""
    keyed = {v: {r["label"]: r for r in _held(rep)} for v, rep in reports.items()}
    labels = list(next(iter(keyed.values())))
    chosen, rows = {}, []
    for label in labels:
        v = min(keyed, key=lambda v: _loss([r for k, r in keyed[v].items() if k != label]))
        chosen[label] = v
        rows.append(keyed[v][label])
    return chosen, rows


def term_study(
    runs: list[Any], codec: Any, name: str, grid: list[float], build: Any
) -> dict[str, Any]:
    """One candidate term over ``grid`` (``build(runs, codec, value)`` → report; the
    first value is the term off): each value's figures in-sample (for reading only), the
    leave-one-label-out choice per label and the figures of the rows so predicted."""
    reports = {v: build(runs, codec, v) for v in grid}
    before = {r["label"]: r["job_time_error"] for r in _held(reports[grid[0]])}
    chosen, rows = lolo(reports)
    return {
        "term": name,
        "grid": grid,
        "in_sample": {str(v): _scores(_held(rep)) for v, rep in reports.items()},
        "before": _scores(_held(reports[grid[0]])),
        "after_leave_one_label_out": _scores(rows),
        "per_label": {
            r["label"]: {
                "value": chosen[r["label"]],
                "error_before": before[r["label"]],
                "error_after": r["job_time_error"],
            }
            for r in rows
        },
    }


#: The candidate: the fixed cost of one extra spill (ms). The YARN prior is 300 ms; the local
#: machine benchmark measured 2.5 ms on this machine (benchmarks/results/machine-costs.json,
#: other runs entirely); the grid lets leave-one-label-out choose from the round's other labels.
SPILL_FILE_GRID_MS = [300.0, 200.0, 100.0, 50.0, 20.0, 2.5]


def _with_spill_file(runs: list[Any], codec: Any, ms: float) -> dict[str, Any]:
    priors = None if ms == SPILL_FILE_GRID_MS[0] else {"spill_file_ns": ms * 1e6}
    return history_report(runs, None, codec, None, priors)


def spill_labels(report: dict[str, Any]) -> dict[str, Any]:
    """The held-out labels whose maps spill more than once (the term's only lever)."""
    return {
        r["label"]: r["job_time_error"]
        for r in _held(report)
        if "sortmb" in r["label"] and r["label"] != "sort-sortmb-20"
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("index", type=Path)
    ap.add_argument("--codec-runs", type=Path, action="append", default=[])
    ap.add_argument("--old", type=Path, action="append", default=[])
    ap.add_argument("--report", type=Path)
    ap.add_argument("-o", "--output", type=Path)
    args = ap.parse_args()
    cpu0 = time.process_time()
    out: dict[str, Any] = {"load_avg_at_start": os.getloadavg()[0]}
    codec = load_codec_runs(args.codec_runs) if args.codec_runs else None
    runs = load_history_runs(args.index)
    report = history_report(runs, None, codec, None)
    if args.report:
        args.report.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    old = {
        f"round{i}": json.loads(p.read_text(encoding="utf-8")) for i, p in enumerate(args.old, 1)
    }
    out["summary"] = report["summary"]
    out["comparable"] = comparable(report, old)
    out["rounds"] = rounds(report, old)
    out["phases"] = phases(report)
    term = term_study(runs, codec, "spill_file_ms", SPILL_FILE_GRID_MS, _with_spill_file)
    out["terms"] = {"spill_file_ms": term}
    out["cpu_s"] = time.process_time() - cpu0
    out["load_avg_at_end"] = os.getloadavg()[0]
    text = json.dumps(out, indent=1, default=float)
    if args.output:
        args.output.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
