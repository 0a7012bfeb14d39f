"""``mrtune validate RUNS.jsonl``: the cost model's fidelity against real Hadoop runs (issue 5).

Calibrates each job's profile on one run at Hadoop's defaults and compares the model's
prediction of every other configuration with what Hadoop did (:mod:`mrtune.calibration.fidelity`).
"""

from __future__ import annotations

import json
import math
from typing import Any

import typer
from rich.table import Table

from mrtune.cli._validate_narrow import WIDE, dataflow_tables, job_cells, pct, times_tables
from mrtune.cli._validate_options import (
    CALIBRATE_OPT,
    CODEC_RUNS_OPT,
    FORMAT_OPT,
    MACHINE_OPT,
    MEASURE_CODECS_OPT,
    OUTPUT_OPT,
    REDUCE_FIXED_MS_OPT,
    RUNS_ARG,
    TIMES_OPT,
)
from mrtune.cli.console import OutputFormat, cli_errors, console, emit_json, working


def finite(obj: Any) -> Any:
    """``obj`` with non-finite floats replaced by None (JSON has no inf or NaN)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def _pm(pred: Any, meas: Any, ok: bool | None = None) -> str:
    def fmt(v: Any) -> str:
        if isinstance(v, list):
            vals = [round(x) for x in v]
            return str(vals[0]) if len(set(vals)) == 1 else ",".join(map(str, vals))
        return f"{round(float(v)):,}"

    p, m = fmt(pred), fmt(meas)
    if p == m:
        return f"[green]{m}[/]"
    color = "red" if ok is False else "yellow"
    return f"[{color}]{p}[/] / {m}"


def dataflow_table(report: Any) -> Table:
    """Per run: predicted / measured record and byte counters (green = equal)."""
    t = Table(title="Dataflow: predicted / measured (green: equal)", show_lines=False)
    for col in (
        "label",
        "spills/map",
        "map SPILLED",
        "reduce SPILLED",
        "COMBINE in/out",
        "merge passes",
        "fetch mem/disk",
        "materialized B",
        "shuffle B",
    ):
        t.add_column(col, justify="left" if col == "label" else "right")
    for r in report.runs:
        p, m, ok = r.predicted, r.measured, r.record_matches
        be = r.byte_errors
        t.add_row(
            r.label + (" (calibration)" if r.calibration else ""),
            _pm(p["spills_per_map"], m["spills_per_map"], ok["spills_per_map"]),
            _pm(p["MAP_SPILLED_RECORDS"], m["MAP_SPILLED_RECORDS"]),
            _pm(p["REDUCE_SPILLED_RECORDS"], m["REDUCE_SPILLED_RECORDS"]),
            _pm(p["COMBINE_INPUT_RECORDS"], m["COMBINE_INPUT_RECORDS"])
            + " · "
            + _pm(p["COMBINE_OUTPUT_RECORDS"], m["COMBINE_OUTPUT_RECORDS"]),
            _pm(p["map_merge_passes"], m["map_merge_passes"]),
            _pm(p["fetches_to_memory"], m["fetches_to_memory"])
            + " · "
            + _pm(p["fetches_to_disk"], m["fetches_to_disk"]),
            pct(be["MAP_OUTPUT_MATERIALIZED_BYTES"]),
            pct(be["REDUCE_SHUFFLE_BYTES"]),
        )
    return t


def times_table(report: Any) -> Table:
    """Per run: predicted / measured phase sums and job time (medians over repeats), in s."""
    from mrtune.calibration.fidelity import PHASES

    t = Table(title="Times in s, predicted / measured (medians over repeats)")
    t.add_column("label")
    for p in PHASES:
        t.add_column(p, justify="right")
    for col in ("job", "error", "repeats", "spread", "load"):
        t.add_column(col, justify="right")
    for r in report.runs:
        pt, mt = r.predicted_times, r.measured_times
        t.add_row(
            r.label,
            *[f"{pt[p] / 1000:.1f}/{mt.get(p, 0.0) / 1000:.1f}" for p in PHASES],
            *job_cells(r),
        )
    return t


def summary_table(summary: dict[str, Any]) -> Table:
    t = Table(title=f"Summary over {summary.get('runs', 0)} predicted configurations")
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_column("goal", justify="right")
    t.add_column("met")
    met = summary.get("goals_met", {})
    goals = summary.get("goals", {})

    def row(name: str, label: str, fmt: str, goal: str, key: str | None = None) -> None:
        if name not in summary:
            return
        ok = met.get(key or name)
        t.add_row(
            label,
            format(summary[name], fmt),
            goal,
            "" if ok is None else ("[green]yes[/]" if ok else "[red]no[/]"),
        )

    row(
        "record_exact_rate",
        "record counters equal (run × counter)",
        ".1%",
        f"≥ {goals.get('record_exact_rate', 0):.0%}",
    )
    row("runs_all_records_exact", "runs with every record counter equal", ".1%", "")
    row("record_within_0.1pct_rate", "record counters within 0.1%", ".1%", "")
    row("per_map_record_exact_rate", "per map, given its actual input records", ".1%", "")
    row(
        "byte_worst_rel_error", f"worst byte error ({summary.get('byte_worst_at', '')})", ".2%", ""
    )
    scored = summary.get("codec_ratios_scored")
    row(
        "byte_within_1pct_rate",
        "byte counters within 1%" + (f" (codec ratios: {scored})" if scored else ""),
        ".1%",
        f"≥ {goals.get('byte_within_rate', 0):.0%}",
        "byte_rel_error",
    )
    row(
        "byte_within_1pct_rate_without_priors",
        "byte counters within 1%, runs on measured codec ratios or none",
        ".1%",
        "",
    )
    row(
        "byte_within_1pct_rate_uncompressed",
        "byte counters within 1%, runs without map-output compression",
        ".1%",
        "",
    )
    row(
        "byte_worst_rel_error_uncompressed",
        "worst byte error, runs without map-output compression",
        ".2%",
        "",
    )
    row(
        "job_time_median_abs_error",
        "job time: median |error|",
        ".1%",
        f"≤ {goals.get('job_time_median_abs_error', 0):.0%}",
    )
    row(
        "job_time_p90_abs_error",
        "job time: 90th percentile |error|",
        ".1%",
        f"≤ {goals.get('job_time_p90_abs_error', 0):.0%}",
    )
    row(
        "spearman",
        "Spearman ρ (predicted vs measured job time)",
        ".3f",
        f"≥ {goals.get('spearman', 0)}",
    )
    row("spearman_vs_cpu_time", "Spearman ρ (predicted job time vs JVM CPU time)", ".3f", "")
    row("repeat_spread_median", "repeat spread of measured job time (median)", ".1%", "")
    return t


def print_report(report: Any) -> None:
    """The rich rendering of a :class:`mrtune.calibration.fidelity.FidelityReport`."""
    for c in report.calibrations:
        console.print(
            f"[bold]{c.job}[/]: calibrated on {c.run_id}; driver time outside the model "
            f"{c.overhead_ms:+.0f} ms"
        )
    if console.width >= WIDE:
        console.print(dataflow_table(report))
        console.print(times_table(report))
    else:  # at 80 columns the wide tables folded every cell over several lines
        for t in (*dataflow_tables(report), *times_tables(report)):
            console.print(t)
    s = report.summary()
    console.print(summary_table(s))
    share = s.get("phase_error_share", {})
    if share:
        console.print(
            "share of |phase errors|: "
            + ", ".join(
                f"{p} {v:.0%} (median {s['phase_error_median_ms'][p]:+.0f} ms)"
                for p, v in share.items()
            )
        )
    for note in s.get("notes", []):
        console.print(f"• {note}")


#: The two kinds of runs ``validate`` reads, each the other's complement (:func:`_refuse`).
_KINDS = ("YARN histories", "local run records")


def _refuse(runs: Any, applies_to: str, given: bool, option: str, value: Any) -> None:
    """An option that applies only to ``applies_to`` (one of :data:`_KINDS`), given for runs
    of the other kind, is an error, never ignored."""
    if not given:
        return
    from mrtune.errors import InputError

    these = _KINDS[1 - _KINDS.index(applies_to)]
    raise InputError(
        f"applies to {applies_to} only; these runs are {these}",
        path=str(runs),
        field=option,
        value=", ".join(map(str, value)) if isinstance(value, list) else value,
        allowed=f"leave {option} out for {these}",
    )


app = typer.Typer()


@app.command("validate")
@cli_errors
def validate(
    runs: RUNS_ARG,
    calibrate: CALIBRATE_OPT = None,
    measure_codecs: MEASURE_CODECS_OPT = False,
    codec_runs: CODEC_RUNS_OPT = None,
    reduce_fixed_ms: REDUCE_FIXED_MS_OPT = None,
    times: TIMES_OPT = "median",
    machine: MACHINE_OPT = None,
    format: FORMAT_OPT = OutputFormat.text,
    output: OUTPUT_OPT = None,
) -> None:
    """Predict real Hadoop runs from one default run per job and measure the error."""
    from mrtune.harness.yarn_fidelity import is_history_index

    if is_history_index(runs):  # `hadoop-run --mode yarn` runs: real .jhist/_conf.xml pairs
        from mrtune.cli._hadoop_any import validate_histories

        _refuse(runs, "local run records", times != "median", "--times", times)
        _refuse(runs, "local run records", measure_codecs, "--measure-codecs", True)
        validate_histories(
            runs, calibrate, format, output, codec_runs or [], reduce_fixed_ms, machine
        )
        return
    _refuse(runs, "YARN histories", bool(codec_runs), "--codec-runs", codec_runs)
    _refuse(
        runs, "YARN histories", reduce_fixed_ms is not None, "--reduce-fixed-ms", reduce_fixed_ms
    )
    from mrtune.calibration.fidelity import build_report
    from mrtune.calibration.machine_costs import MachineCosts
    from mrtune.cli._inputs import load_run_records

    records = load_run_records(runs, need_success=True)

    with working(f"calibrating and predicting {len(records)} runs"):
        report = build_report(
            records,
            calibrate or (),
            measure_codecs=measure_codecs,
            times=times,
            machine=MachineCosts.load(machine) if machine is not None else None,
        )
    from mrtune.cli.console import err_console

    for line in report.skipped:  # the rest of the file is scored (exit 0)
        err_console.print(f"note: {line}", highlight=False, markup=False)
    data = finite(report.to_json())
    if output is not None:
        output.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    if format == OutputFormat.json:
        emit_json(data)
        return
    print_report(report)
