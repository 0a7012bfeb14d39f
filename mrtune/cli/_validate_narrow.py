"""``validate``'s per-run tables for a narrow terminal (fewer than :data:`WIDE` columns).

The wide tables put nine or eleven columns of ``predicted / measured`` pairs beside labels of
up to 24 characters; at 80 columns rich folded every cell over four lines ("pst-shuf/fle-/buff").
Here each table holds at most five value columns under short headers, and a counter cell shows
``=`` when the model equals Hadoop and the signed relative error when it does not (the pairs
themselves are in ``--format json``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.table import Table

#: Terminal width from which the wide tables fit.
WIDE = 120


def _err(pred: Any, meas: Any) -> str:
    """``=`` (green) when equal, else the signed error of predicted vs measured (yellow)."""
    if isinstance(pred, list) or isinstance(meas, list):
        p = [round(x) for x in (pred if isinstance(pred, list) else [pred])]
        m = [round(x) for x in (meas if isinstance(meas, list) else [meas])]
        if p == m:
            return "[green]=[/]"
        ps, ms = sorted(set(p)), sorted(set(m))
        return f"[yellow]{_ints(ps)}≠{_ints(ms)}[/]"
    p, m = round(float(pred)), round(float(meas))
    if p == m:
        return "[green]=[/]"
    if m == 0:
        return f"[yellow]{p:,}≠0[/]"
    return f"[yellow]{(p - m) / m:+.2%}[/]"


def _ints(vals: Sequence[int]) -> str:
    return str(vals[0]) if len(vals) == 1 else f"{vals[0]}–{vals[-1]}"


def pct(x: float) -> str:
    """A signed relative error, ``inf`` when it is not finite."""
    return "inf" if not math.isfinite(x) else f"{x:+.1%}"


def job_cells(r: Any) -> list[str]:
    """A run's job time (model/Hadoop, s), its error, repeats, their spread and the load."""
    pt, mt = r.predicted_times, r.measured_times
    return [
        f"{pt['job'] / 1000:.1f}/{mt['job'] / 1000:.1f}",
        pct(r.job_time_error),
        str(r.repeats),
        f"{r.job_time_spread:.0%}",
        f"{r.load_avg:.1f}",
    ]


def _table(title: str, cols: Sequence[str]) -> Table:
    t = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1), title_justify="left")
    t.add_column("label", overflow="fold")
    for c in cols:
        t.add_column(c, justify="right", no_wrap=True)
    return t


def _label(r: Any) -> str:
    return r.label + (" (cal.)" if getattr(r, "calibration", False) else "")


def dataflow_tables(report: Any) -> list[Table]:
    """The dataflow comparison in two tables: records, then merges, fetches and bytes."""
    recs = _table(
        "Dataflow records: model vs Hadoop (=: equal; else error)",
        ("spills", "map SPILL", "red SPILL", "COMB in", "COMB out"),
    )
    rest = _table(
        "Merges, fetches, bytes: model vs Hadoop",
        ("merges", "fetch mem", "fetch disk", "mat. B", "shuffle B"),
    )
    for r in report.runs:
        p, m = r.predicted, r.measured

        def cell(key: str, p: dict = p, m: dict = m) -> str:  # noqa: ANN001
            return _err(p[key], m[key])

        recs.add_row(
            _label(r),
            cell("spills_per_map"),
            cell("MAP_SPILLED_RECORDS"),
            cell("REDUCE_SPILLED_RECORDS"),
            cell("COMBINE_INPUT_RECORDS"),
            cell("COMBINE_OUTPUT_RECORDS"),
        )
        be = r.byte_errors
        rest.add_row(
            _label(r),
            cell("map_merge_passes"),
            cell("fetches_to_memory"),
            cell("fetches_to_disk"),
            pct(be["MAP_OUTPUT_MATERIALIZED_BYTES"]),
            pct(be["REDUCE_SHUFFLE_BYTES"]),
        )
    return [recs, rest]


def times_tables(report: Any) -> list[Table]:
    """Phase times, then job time and its context, each ``model/Hadoop`` in s."""
    from mrtune.calibration.fidelity import PHASES

    short = {p: p.replace("reduce.", "r.").replace("map.", "m.") for p in PHASES}
    phases = _table("Phase times in s: model/Hadoop (medians)", [short[p] for p in PHASES])
    job = _table("Job time in s: model/Hadoop", ("job", "error", "repeats", "spread", "load"))
    for r in report.runs:
        pt, mt = r.predicted_times, r.measured_times
        phases.add_row(
            r.label, *[f"{pt[p] / 1000:.1f}/{mt.get(p, 0.0) / 1000:.1f}" for p in PHASES]
        )
        job.add_row(r.label, *job_cells(r))
    return [phases, job]
