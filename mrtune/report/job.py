"""What one job's HTML report shows, computed: the profile with its provenance, the diagnosis,
the recommendation with its confidence and XML, the phase breakdown, the sweeps of the most
sensitive settings and the task timeline.

Confidence of the recommendation (the optimizer gives none yet): the profile's observed tasks
are resampled and the cost factors refitted (:func:`mrtune.diagnose.price.bootstrap_savings`);
on every resample current and recommended configuration are re-predicted. Reported: the 90%
interval of the saving and the share of resamples in which the recommendation is faster.
*high* when that share is ≥ 95% and the interval's low end gains ≥ 1%; *medium* when the
share is ≥ 80%; *low* otherwise, or when the profile has no observed tasks to resample.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mrtune.diagnose import Diagnosis
from mrtune.diagnose.price import bootstrap_savings
from mrtune.diagnose.text import STYLE, price_text, settings_text
from mrtune.optimizer.units import format_bytes, format_ms
from mrtune.optimizer.whatif_summary import MAP_PHASES, REDUCE_PHASES
from mrtune.report import plots

SWEEP_POINTS = 15
TOP_SWEEPS = 3
_CSS = {
    k: v.replace("bold ", "").replace("white on red", "critical")
    for k, v in {s.label: STYLE[s] for s in STYLE}.items()
}


def knob_unit(name: str) -> str:
    """The unit of a setting's value, for axis labels."""
    if name.endswith("split.maxsize"):
        return "bytes"
    if name.endswith(".mb"):
        return "MB"
    if "slowstart" in name:
        return "fraction of maps done"
    if "percent" in name:
        return "fraction of heap"
    return "count"


#: units of the statistics whose name and description do not say it in the usual form
_UNITS = {
    "input_pair_width": "bytes/record",
    "ifile_record_overhead": "bytes/record",
    "combine_profiled_input_records": "records",
    "combine_profiled_merge_factor": "records/record",
    "combine_width_growth": "bytes per merged record",
    "max_distinct_keys": "keys",
    "key_vocabulary": "keys",
    "reduce_pairs_per_group": "records/group",
    "combiner_heaps_beta": "exponent",
    "key_zipf_exponent": "exponent",
    "key_law_scale": "factor",
    "key_groups_scale": "factor",
    "sort_cache_slowdown": "fraction per doubling",
    "spill_contention": "fraction",
}


def _cost_unit(field: str, description: str) -> str:
    """The unit of a statistic or cost factor, from its name and its documented meaning."""
    if field in _UNITS:
        return _UNITS[field]
    first = description.lower().split(",")[0].split(":")[0]
    if field.endswith("_bytes"):
        return "bytes"
    if field.endswith("_ms"):
        return "ms"
    if field.endswith("_ns"):
        return "ns"
    if first.startswith("ns per"):
        if "byte" in first:
            return "ns/byte"
        return "ns/comparison" if "comparison" in first else "ns/record"
    return "ratio" if ("/" in first or "sel" in field or "ratio" in field) else ""


def profile_rows(diag: Diagnosis) -> list[dict[str, str]]:
    """Every statistic and cost factor with its unit and whether it was measured or defaulted."""
    prof = diag.view.profile
    if prof is None:
        return []
    rows = [
        {
            "group": "job",
            "name": "input",
            "value": format_bytes(prof.input_bytes),
            "kind": "measured",
            "how": "input bytes as stored",
        },
        {
            "group": "job",
            "name": "input files",
            "value": f"{prof.input_files:,} files",
            "kind": _kind(prof.provenance_of("input_files")),
            "how": prof.provenance_of("input_files"),
        },
        {
            "group": "job",
            "name": "combiner",
            "value": prof.combine_class or ("yes" if prof.has_combiner else "none"),
            "kind": "measured",
            "how": "job configuration",
        },
    ]
    for group, model, prefix in (
        ("dataflow", prof.stats, "stats"),
        ("cost factor", prof.costs, "costs"),
    ):
        for name, fld in type(model).model_fields.items():
            val = getattr(model, name)
            if val is None:
                continue
            unit = _cost_unit(name, fld.description or "")
            prov = prof.provenance_of(f"{prefix}.{name}")
            text = f"{val:,.4g}" if isinstance(val, float) else str(val)
            if unit == "bytes" and isinstance(val, (int, float)):
                text = format_bytes(float(val))
            elif unit:
                text += f" {unit}"
            rows.append(
                {"group": group, "name": name, "value": text, "kind": _kind(prov), "how": prov}
            )
    return rows


def _kind(prov: str) -> str:
    return "measured" if prov.startswith("measured") else "defaulted"


def finding_rows(diag: Diagnosis) -> list[dict[str, Any]]:
    return [
        {
            "severity": f.severity.label,
            "rank": int(f.severity),
            "css": _CSS[f.severity.label],
            "name": f.name,
            "summary": f.summary,
            "computable": f.computable,
            "evidence": f.evidence,
            "thresholds": f"{f.thresholds} ({f.source})" if f.thresholds else "",
            "price": price_text(f.price),
            "saving": f.price.fraction if f.price else 0.0,
            "fix": settings_text(f.price),
            "method": f.price.interval_method if f.price and f.price.interval else "",
            "note": f.price.note if f.price else "",
        }
        for f in diag.findings
    ]


def confidence(diag: Diagnosis, rec: Any, resamples: int, seed: int) -> dict[str, Any]:
    """Bootstrap interval of the recommended saving and the share of resamples it wins."""
    if rec.no_change:
        return {"label": "n/a", "text": "no change recommended"}
    draws = bootstrap_savings(diag.view, [rec.config], ["job_ms"], resamples, seed)[0]
    if len(draws) < 2:
        return {
            "label": "low",
            "text": "no observed tasks to resample: the saving rests on the model alone",
        }
    lo, hi = float(np.percentile(draws, 5)), float(np.percentile(draws, 95))
    share = float(np.mean(draws > 0))
    cur = rec.current["job_ms"]
    label = "high" if share >= 0.95 and lo >= 0.01 * cur else "medium" if share >= 0.8 else "low"
    return {
        "label": label,
        "low": format_ms(lo),
        "high": format_ms(hi),
        "share": f"{share:.0%}",
        "text": f"saving 90%: {format_ms(lo)} – {format_ms(hi)}; faster in {share:.0%} of "
        f"{len(draws)} bootstrap resamples of the observed tasks (cost factors refitted)",
    }


def sweeps(diag: Diagnosis) -> list[dict[str, Any]]:
    """The settings whose range moves the predicted job time most, each swept in one call."""
    from mrtune.costmodel import predict_job
    from mrtune.optimizer.whatif_summary import summarize
    from mrtune.search_spaces import SearchSpace

    v = diag.view
    assert v.profile is not None and v.config is not None and v.cluster is not None
    space = SearchSpace.for_job(v.profile, v.config, v.cluster, allow_memory=True)
    cur = space.current_values()
    found = []
    for k in space.knobs:
        if k.kind not in {"int", "float"}:
            continue
        lo, hi = float(k.low), float(k.high)
        vals = (
            np.geomspace(lo, hi, SWEEP_POINTS)
            if k.log and lo > 0
            else np.linspace(lo, hi, SWEEP_POINTS)
        )
        rep = np.unique(space.repair({k.name: vals})[k.name])
        if len(rep) < 2:
            continue
        pred = predict_job(v.profile, space.to_batch({k.name: rep}), v.cluster)
        rows = [summarize(pred, i) for i in range(len(rep))]
        times = [r["job_ms"] for r in rows]
        found.append(((max(times) - min(times)) / max(min(times), 1e-9), k, rep, rows))
    found.sort(key=lambda x: -x[0])
    out = []
    for spread, k, rep, rows in found[:TOP_SWEEPS]:
        unit = knob_unit(k.name)
        cx = cur.get(k.name)
        out.append(
            {
                "name": k.name,
                "spread": f"{spread:.1%}",
                "svg": plots.sweep(
                    k.name,
                    unit,
                    [float(x) for x in rep],
                    rows,
                    float(cx) if isinstance(cx, (int, float)) else None,
                    MAP_PHASES,
                    REDUCE_PHASES,
                    k.log,
                ),
            }
        )
    return out


def phase_table(current: dict[str, Any], recommended: dict[str, Any]) -> list[dict[str, str]]:
    rows = []
    for side, phases in (("map", MAP_PHASES), ("reduce", REDUCE_PHASES)):
        for ph in phases:
            a = current[f"{side}_phases_ms"].get(ph)
            b = recommended[f"{side}_phases_ms"].get(ph)
            if a is None and b is None:
                continue
            a, b = a or 0.0, b or 0.0
            d = b - a if abs(b - a) >= 0.5 else 0.0
            rows.append(
                {
                    "side": side,
                    "phase": ph,
                    "current": format_ms(a),
                    "recommended": format_ms(b),
                    "delta": ("+" if d > 0 else "") + format_ms(d),
                    "delta_ms": f"{d:.3f}",
                }
            )
    return rows
