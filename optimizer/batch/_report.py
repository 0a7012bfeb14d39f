"""Batch outputs: per-job CSV and JSONL, the summary, the cluster-wide ``mapred-site.xml``,
and PNG plots (matplotlib's Agg backend: no display needed)."""

from __future__ import annotations

import csv
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mrtune.optimizer.batch._cluster import ClusterChoice
from mrtune.optimizer.batch._cluster_limits import site_notes, tightest_caps
from mrtune.optimizer.outputs import mapred_site_xml

MS_PER_HOUR = 3_600_000.0
CSV_COLUMNS = (
    "job_id",
    "key",
    "kind",
    "status",
    "reason",
    "map_only",
    "input_bytes",
    "current_s",
    "recommended_s",
    "current_gb_s",
    "recommended_gb_s",
    "gain_pct",
    "basis",
    "gain_p10_p90",
    "calibration",
    "changes",
    "properties",
    "withheld",
)


def display_name(knob_name: str) -> str:
    """A knob as summaries show it: the split knob's values are the effective split size,
    written through split.minsize or split.maxsize (``optimizer.explain.SPLIT_LABEL``)."""
    from mrtune.optimizer.explain import SPLIT_LABEL
    from mrtune.search_spaces import find_knob
    from mrtune.search_spaces.knobs import Role

    try:
        return SPLIT_LABEL if find_knob(knob_name).role == Role.split_size else knob_name
    except KeyError:
        return knob_name


def _short(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def csv_row(r: dict[str, Any]) -> dict[str, Any]:
    tuned = r["status"] == "tuned"
    return {
        "job_id": r.get("job_id", ""),
        "key": r["key"],
        "kind": r["kind"],
        "status": r["status"],
        "reason": r.get("reason", ""),
        "map_only": r.get("map_only", "") if tuned else "",
        "input_bytes": f"{r['input_bytes']:.0f}" if tuned else "",
        "current_s": f"{r['current_ms'] / 1e3:.3f}" if tuned else "",
        "recommended_s": f"{r['recommended_ms'] / 1e3:.3f}" if tuned else "",
        "current_gb_s": f"{r['current_gb_s']:.3f}" if tuned else "",
        "recommended_gb_s": f"{r['recommended_gb_s']:.3f}" if tuned else "",
        "gain_pct": f"{100 * r['gain']:.2f}" if tuned else "",
        "basis": r.get("basis", "") if tuned else "",
        "gain_p10_p90": interval_text(r.get("interval")) if tuned else "",
        "calibration": (r.get("calibration") or {}).get("status", "") if tuned else "",
        "changes": "; ".join(
            f"{c['name']}: {_short(c['current'])}->{_short(c['recommended'])}"
            for c in r.get("changes", [])
        ),
        "properties": "; ".join(f"{k}={v}" for k, v in r.get("properties", {}).items()),
        "withheld": "; ".join(
            f"{c['name']}: {_short(c['current'])}->{_short(c['recommended'])} ({c['rule']})"
            for c in r.get("withheld_changes", [])
        ),
    }


def interval_text(interval: dict[str, Any] | None) -> str:
    """``x1.05-x1.20``: the speedup's p10-p90 with the run-to-run noise (empty: none)."""
    if not interval:
        return ""
    s = interval["speedup"]
    return f"x{s['low']:.3g}-x{s['high']:.3g}"


def public_record(r: dict[str, Any]) -> dict[str, Any]:
    """The JSONL record of a job (the internal encoded values left out)."""
    return {k: v for k, v in r.items() if k not in {"best_encoded", "current_encoded"}}


def count_reasons(results: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Jobs per reason (``reason_kind``: the reason without the job's particulars), most
    frequent first."""
    counts: dict[str, int] = {}
    for r in results:
        kind = r.get("reason_kind") or r.get("reason", "") or "unknown"
        counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _basis_note(summary: dict[str, Any]) -> str:
    """What the file's predicted totals rest on, for its header: a catalog whose changed jobs
    rest on defaulted cost factors only (SWIM rows: sizes, no times) gets gains that are the
    model's at prior costs, not findings, and the file says so where it is read."""
    basis = summary.get("changed_by_basis") or {}
    changed = int(summary.get("changed") or 0)
    if not changed:
        return ""
    parts = [
        f"{basis[b]:,} {b}" for b in ("measured", "partly measured", "defaulted") if b in basis
    ]
    note = f"; evidence of the {changed:,} changed jobs: " + ", ".join(parts)
    if basis.get("defaulted", 0) == changed:
        note += (
            " - every gain rests on defaulted cost factors only (no time measured): "
            "the model's estimate at prior costs, not a finding"
        )
    elif basis.get("defaulted"):
        note += " (defaulted: the model's estimate at prior costs, not a finding)"
    if summary.get("calibration_failed"):
        note += f"; {summary['calibration_failed']:,} calibration(s) missed their own run"
    return note


def _by_basis(records: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Jobs per evidence basis (``measured``, ``partly measured``, ``defaulted``)."""
    counts = Counter(r.get("basis", "defaulted") for r in records)
    return {b: counts[b] for b in ("measured", "partly measured", "defaulted") if counts[b]}


def _by_interval(records: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Changed jobs by what their gain's interval says: ``holds`` when its p10 still gains
    (the speedup's low end above ×1, run-to-run noise included), ``could_vanish`` when it does
    not, ``none`` without an interval. For a SWIM row the interval spans the priors' ranges:
    ``holds`` then means the gain survives whatever the defaulted costs are within them."""
    counts = Counter(
        "none"
        if not r.get("interval")
        else ("holds" if r["interval"]["speedup"]["low"] > 1.0 else "could_vanish")
        for r in records
    )
    return {k: counts[k] for k in ("holds", "could_vanish", "none") if counts[k]}


def _withheld_by_rule(records: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Jobs whose changes were withheld, per rule (a job counts once per rule)."""
    counts = Counter(
        rule
        for r in records
        for rule in {c.get("rule", "calibration_miss") for c in r.get("withheld_changes", [])}
    )
    return dict(sorted(counts.items()))


def summarize(
    results: Sequence[dict[str, Any]], choice: ClusterChoice | None, objective: str
) -> dict[str, Any]:
    """Jobs tuned and failed, predicted hours saved, the settings that matter most."""
    tuned = [r for r in results if r["status"] == "tuned"]
    skipped = [r for r in results if r["status"] == "skipped"]
    failed = [r for r in results if r["status"] not in {"tuned", "skipped"}]
    cur_h = sum(r["current_ms"] for r in tuned) / MS_PER_HOUR
    rec_h = sum(r["recommended_ms"] for r in tuned) / MS_PER_HOUR
    cur_gbs = sum(r["current_gb_s"] for r in tuned)
    rec_gbs = sum(r["recommended_gb_s"] for r in tuned)
    unit_cost = "recommended_gb_s" if objective == "resources" else "recommended_ms"
    matter: dict[str, dict[str, Any]] = {}
    for r in tuned:
        for c in r.get("changes", []):
            m = matter.setdefault(c["name"], {"jobs_changed": 0, "saving": 0.0, "values": {}})
            m["jobs_changed"] += 1
            # Marginal gain: how much more the job would cost without this change alone.
            m["saving"] += c["marginal_gain"] * r[unit_cost]
            val = _short(c["recommended"])
            m["values"][val] = m["values"].get(val, 0) + 1
    unit = "GB·s" if objective == "resources" else "hours"
    scale = 1.0 if objective == "resources" else 1.0 / MS_PER_HOUR
    ranked = sorted(matter.items(), key=lambda kv: -kv[1]["saving"])
    settings = [
        {
            "setting": display_name(name),
            "jobs_changed": m["jobs_changed"],
            f"saving_{'gb_s' if objective == 'resources' else 'hours'}": m["saving"] * scale,
            "most_common_value": max(m["values"].items(), key=lambda kv: kv[1])[0],
        }
        for name, m in ranked
    ]
    out: dict[str, Any] = {
        "objective": objective,
        "jobs": len(results),
        "tuned": len(tuned),
        "failed": len(failed),
        "skipped": len(skipped),
        "failed_by_reason": count_reasons(failed),
        "skipped_by_reason": count_reasons(skipped),
        "changed": sum(1 for r in tuned if r.get("changes")),
        "map_only": sum(1 for r in tuned if r.get("map_only")),
        # what the gains rest on (evidence_basis): a defaulted job's gain is the model's at
        # prior costs, not a finding
        "changed_by_basis": _by_basis(r for r in tuned if r.get("changes")),
        "changed_by_interval": _by_interval(r for r in tuned if r.get("changes")),
        # changes not written: a failed calibration, or a gain that could vanish
        "withheld_by_rule": _withheld_by_rule(tuned),
        "calibration_failed": sum(
            1 for r in tuned if (r.get("calibration") or {}).get("status") == "failed"
        ),
        "predicted_hours_current": cur_h,
        "predicted_hours_recommended": rec_h,
        "predicted_hours_saved": cur_h - rec_h,
        "container_gb_s_current": cur_gbs,
        "container_gb_s_recommended": rec_gbs,
        "container_gb_s_saved": cur_gbs - rec_gbs,
        "settings_that_matter": settings,
        "settings_unit": unit,
        "failures": [
            {"key": r["key"], "job_id": r.get("job_id", ""), "reason": r.get("reason", "")}
            for r in failed
        ],
    }
    if choice is not None:
        out["cluster_wide"] = {**_cluster_wide(choice, objective), "caps": tightest_caps(tuned)}
    return out


def _cluster_wide(choice: ClusterChoice, objective: str) -> dict[str, Any]:
    """The summary's cluster-wide part: the settings, the totals with and without them, each
    setting's marginal saving, and how they were searched."""
    to_h = (lambda v: v) if objective == "resources" else (lambda v: v / MS_PER_HOUR)
    return {
        "settings": {k: _short(v) for k, v in choice.readable().items()},
        "properties": choice.properties(),
        "changed": choice.changed,
        f"total_{'gb_s' if objective == 'resources' else 'hours'}_with_current_cluster_settings": to_h(
            choice.total_baseline
        ),
        f"total_{'gb_s' if objective == 'resources' else 'hours'}_with_cluster_wide_config": to_h(
            choice.total_chosen
        ),
        "marginal": {k: to_h(v) for k, v in choice.marginal.items()},
        "marginal_exact": choice.marginal_exact,
        "note": "per-job settings (mapreduce.job.reduces, split size, combiner) at each "
        "job's recommended value in both totals",
        **site_notes(choice.hadoop_version, choice.names),
        "passes": choice.passes,
        "configurations_evaluated": choice.candidates_evaluated,
    }


def write_outputs(
    outdir: Path,
    results: Sequence[dict[str, Any]],
    summary: dict[str, Any],
    choice: ClusterChoice | None,
    *,
    plots: bool = True,
) -> dict[str, Path]:
    """Write every output file; returns what was written, by name."""
    outdir.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    p = outdir / "jobs.csv"
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_COLUMNS)
        w.writeheader()
        for r in results:
            w.writerow(csv_row(r))
    files["csv"] = p
    p = outdir / "jobs.jsonl"
    with p.open("w", encoding="utf-8") as fh:
        for r in results:
            fh.write(json.dumps(public_record(r), allow_nan=False) + "\n")
    files["jsonl"] = p
    p = outdir / "summary.json"
    p.write_text(json.dumps(summary, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    files["summary"] = p
    p = outdir / "mapred-site.xml"
    if not summary["tuned"]:
        # Nothing was tuned: no cluster-wide file (a stale one from an earlier run of this
        # output directory would claim settings this catalog did not support).
        p.unlink(missing_ok=True)
        return files
    unit = "GB·s" if summary["objective"] == "resources" else "ms"
    props = choice.properties() if choice is not None else {}
    header = "mrtune batch: cluster-wide settings for {} jobs (objective: {})".format(
        summary["tuned"], summary["objective"]
    )
    if choice is not None:
        header += (
            f"; catalog total {choice.total_baseline:,.6g} -> {choice.total_chosen:,.6g} {unit}"
        )
    header += _basis_note(summary)
    p.write_text(
        mapred_site_xml(
            props, choice.reasons(summary["objective"]) if choice else None, header=header
        ),
        encoding="utf-8",
    )
    files["mapred_site"] = p
    if plots:
        files.update(write_plots(outdir, results, summary["objective"]))
    return files


def write_plots(
    outdir: Path, results: Sequence[dict[str, Any]], objective: str
) -> dict[str, Path]:
    """Distribution of predicted gains; gain by job size (input bytes)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tuned = [r for r in results if r["status"] == "tuned"]
    gains = np.array([100 * r["gain"] for r in tuned])
    sizes = np.array([r["input_bytes"] for r in tuned])
    what = "container GB·s" if objective == "resources" else "job time"
    out: dict[str, Path] = {}
    fig, ax = plt.subplots(figsize=(7, 4))
    if len(gains):
        ax.hist(gains, bins=40, color="#4c72b0")
    ax.set_xlabel(f"predicted gain in {what} (%)")
    ax.set_ylabel("jobs")
    ax.set_title(f"Distribution of predicted gains ({len(tuned)} jobs)")
    fig.tight_layout()
    out["plot_gains"] = outdir / "gain_distribution.png"
    fig.savefig(out["plot_gains"], dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 4))
    if len(gains):
        mo = np.array([bool(r.get("map_only")) for r in tuned])
        ax.scatter(sizes[~mo], gains[~mo], s=6, alpha=0.5, label="map + reduce")
        ax.scatter(sizes[mo], gains[mo], s=6, alpha=0.5, label="map-only")
        ax.set_xscale("log")
        ax.legend(loc="best")
    ax.set_xlabel("job input (bytes, log scale)")
    ax.set_ylabel(f"predicted gain in {what} (%)")
    ax.set_title("Predicted gain by job size")
    fig.tight_layout()
    out["plot_by_size"] = outdir / "gain_by_size.png"
    fig.savefig(out["plot_by_size"], dpi=110)
    plt.close(fig)
    return out
