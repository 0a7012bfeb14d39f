"""The catalog report of a ``mrtune batch`` output directory: a sortable table of jobs, the
savings in aggregate, the settings that matter, and the cluster-wide ``mapred-site.xml``.

It reads only the files ``mrtune batch`` wrote (:func:`mrtune.optimizer.batch._report.write_outputs`):
``jobs.jsonl`` (or ``jobs.csv`` when the JSONL is missing), ``summary.json`` and
``mapred-site.xml``, whose text is shown byte for byte.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
from pathlib import Path
from typing import Any

from mrtune.errors import InputError
from mrtune.optimizer.units import format_bytes, format_ms
from mrtune.report import plots

MS_PER_HOUR = 3_600_000.0


def _read_jobs(outdir: Path) -> list[dict[str, Any]]:
    jl, cs = outdir / "jobs.jsonl", outdir / "jobs.csv"
    if jl.exists():
        out = []
        for n, line in enumerate(jl.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"not JSON ({exc.msg})", path=f"{jl}:{n}") from None
        return out
    if cs.exists():
        with cs.open(newline="", encoding="utf-8") as fh:
            return [_from_csv(r) for r in csv.DictReader(fh)]
    raise InputError(
        "no jobs.jsonl or jobs.csv: not a `mrtune batch` output directory", path=str(outdir)
    )


def _from_csv(r: dict[str, str]) -> dict[str, Any]:
    """A CSV row in the JSONL record's shape (seconds back to ms, percent back to a fraction)."""
    tuned = r.get("status") == "tuned"
    out: dict[str, Any] = {k: r.get(k, "") for k in ("job_id", "key", "kind", "status", "reason")}
    if tuned:
        out.update(
            input_bytes=float(r["input_bytes"]),
            current_ms=float(r["current_s"]) * 1e3,
            recommended_ms=float(r["recommended_s"]) * 1e3,
            current_gb_s=float(r["current_gb_s"]),
            recommended_gb_s=float(r["recommended_gb_s"]),
            gain=float(r["gain_pct"]) / 100,
            map_only=r.get("map_only") == "True",
            changes_text=r.get("changes", ""),
            withheld_text=r.get("withheld", ""),
            basis=r.get("basis", ""),
            interval_text=r.get("gain_p10_p90", ""),
            calibration={"status": r["calibration"]} if r.get("calibration") else None,
        )
    return out


def _interval(r: dict[str, Any]) -> str:
    """The gain's p10-p90 as jobs.csv writes it (empty: nothing changed)."""
    if "interval_text" in r:
        return str(r["interval_text"])
    from mrtune.optimizer.batch._report import interval_text

    return interval_text(r.get("interval"))


def _changes(r: dict[str, Any]) -> str:
    """The written changes, or, for a job that keeps its configuration by a trust rule, the
    withheld ones with the rule (``withheld: name: a→b (rule)``)."""
    if "changes_text" in r:
        written, held = str(r["changes_text"]), str(r.get("withheld_text", ""))
    else:
        written = "; ".join(
            f"{c['name']}: {c['current']}→{c['recommended']}" for c in r.get("changes", [])
        )
        held = "; ".join(
            f"{c['name']}: {c['current']}→{c['recommended']} ({c.get('rule', 'calibration_miss')})"
            for c in r.get("withheld_changes", [])
        )
    return written or (f"withheld: {held}" if held else "")


def job_rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for r in records:
        tuned = r.get("status") == "tuned"
        rows.append(
            {
                "job": r.get("job_id") or Path(str(r.get("key", ""))).name,
                "source": str(r.get("key", "")),
                "status": r.get("status", ""),
                "input": format_bytes(r["input_bytes"]) if tuned else "",
                "input_sort": f"{r['input_bytes']:.0f}" if tuned else "-1",
                "current": format_ms(r["current_ms"]) if tuned else "",
                "current_sort": f"{r['current_ms']:.3f}" if tuned else "-1",
                "recommended": format_ms(r["recommended_ms"]) if tuned else "",
                "recommended_sort": f"{r['recommended_ms']:.3f}" if tuned else "-1",
                "gain": f"{100 * r['gain']:.1f}%" if tuned else "",
                "gain_sort": f"{r['gain']:.6f}" if tuned else "-1",
                "basis": str(r.get("basis", "")) if tuned else "",
                "interval": _interval(r) if tuned else "",
                "calibration": str((r.get("calibration") or {}).get("status", "")),
                "calibration_summary": str((r.get("calibration") or {}).get("summary", "")),
                "changes": _changes(r) if tuned else str(r.get("reason", "")),
            }
        )
    return rows


def batch_context(outdir: Path | str) -> dict[str, Any]:
    """Everything the batch template shows."""
    out = Path(outdir)
    if not out.is_dir():
        raise InputError("not a directory", path=str(out))
    records = _read_jobs(out)
    summary_path, xml_path = out / "summary.json", out / "mapred-site.xml"
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read the batch summary: {exc}", path=str(summary_path)) from None
    xml = xml_path.read_text(encoding="utf-8") if xml_path.exists() else ""
    tuned = [r for r in records if r.get("status") == "tuned"]
    objective = summary.get("objective", "time")
    what = "container GB·s" if objective == "resources" else "job time"
    unit_key = "saving_gb_s" if objective == "resources" else "saving_hours"
    return {
        "title": f"mrtune batch report · {out.name}",
        "generated": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "outdir": str(out),
        "summary": summary,
        "jobs": job_rows(records),
        "settings": [
            {**s, "saving": s.get(unit_key, 0.0)} for s in summary.get("settings_that_matter", [])
        ],
        "saving_unit": "GB·s" if objective == "resources" else "hours",
        "cluster": summary.get("cluster_wide"),
        "xml": xml,
        "gains_svg": plots.gains([100 * r["gain"] for r in tuned], what) if tuned else "",
    }
