"""``mrtune fit``: the regression phase models (Ceesay et al.).

``fit`` reads phase-time data (long-format CSV, or the real-Hadoop harness's JSONL run
records), fits every phase by OLS with p-value backward elimination, cross-validates it
(10-fold by default), compares linear regression with SVM, random forest and decision tree
(the paper's Table I), and optionally saves the model as JSON and a report folder with one
residual plot per phase. ``mrtune predict-regression`` (:mod:`mrtune.cli.predict_regression`)
evaluates eq. 17 with the saved model.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np
import typer
from rich.table import Table

from mrtune.cli._fit_options import (
    AlphaParam,
    CompareParam,
    DataParam,
    ExportCsvParam,
    FmtParam,
    FoldsParam,
    FormParam,
    HeldOutParam,
    NameParam,
    OutputParam,
    ReportParam,
    SeedParam,
)
from mrtune.cli._input_kinds import check_phase_data_paths
from mrtune.cli.console import OutputFormat, cli_errors, console, emit_json, working
from mrtune.costmodel.regression import (
    ALGORITHMS,
    PHASES,
    ErrorStats,
    FitReport,
    PhaseObservations,
    PhaseReport,
    PredictionErrors,
    RegressionDataError,
    fit_phases,
    held_out_regression_predictions,
    prediction_errors,
)
from mrtune.errors import InputError
from mrtune.readers.phase_data import (
    job_inputs_from_run_record,
    load_phase_data,
    measured_runs_from_records,
    parse_run_records,
    rows_to_csv,
)

_ALGORITHM_LABELS = {
    "linear": "Linear regression",
    "svm": "SVM (RBF SVR)",
    "random_forest": "Random forest",
    "decision_tree": "Decision tree",
}


def _fmt(x: float, digits: int = 4) -> str:
    if not np.isfinite(x):
        return "-"
    return f"{x:.{digits}g}" if abs(x) < 1e6 else f"{x:.4e}"


def _coefficient_table(report: FitReport) -> Table:
    table = Table(
        title="Phase models (OLS, backward elimination at p <= "
        f"{report.alpha:g}); time of one task in ms"
    )
    for col in ("Phase", "n", "Term", "Coef", "95% CI", "p-value"):
        table.add_column(col, justify="left" if col in ("Phase", "Term") else "right")
    for phase, r in report.phases.items():
        for i, t in enumerate((r.fit.intercept, *r.fit.terms)):
            table.add_row(
                phase if i == 0 else "",
                str(r.fit.n_obs) if i == 0 else "",
                "intercept" if t.name == "const" else t.name,
                _fmt(t.coef),
                f"[{_fmt(t.ci_low)}, {_fmt(t.ci_high)}]",
                f"{t.p_value:.3g}",
            )
        for d in r.fit.dropped:
            table.add_row(
                "", "", f"[dim]{d.name} (dropped)[/]", "", "", f"[dim]{d.p_value:.3g}[/]"
            )
    return table


def _metrics_table(report: FitReport) -> Table:
    table = Table(title=f"Goodness of fit; CV = {report.folds}-fold, seed {report.seed}")
    for col in ("Phase", "R²", "adj. R²", "RMSE ms", "CV RMSE ms", "CV R²"):
        table.add_column(col, justify="left" if col == "Phase" else "right")
    for phase, r in report.phases.items():
        cv = r.cv.get("linear")
        table.add_row(
            phase,
            f"{r.fit.r2:.3f}",
            f"{r.fit.adj_r2:.3f}",
            _fmt(r.fit.rmse),
            _fmt(cv.rmse) if cv else "-",
            f"{cv.r2:.3f}" if cv else "-",
        )
    return table


def _comparison_table(report: FitReport) -> Table:
    table = Table(title="Algorithm comparison (paper Table I): out-of-fold RMSE and R²")
    for col in ("Phase", "Algorithm", "RMSE ms", "R²"):
        table.add_column(col, justify="left" if col in ("Phase", "Algorithm") else "right")
    for phase, r in report.phases.items():
        best = min(r.cv.values(), key=lambda s: s.rmse).algorithm
        for i, (name, score) in enumerate(r.cv.items()):
            label = _ALGORITHM_LABELS.get(name, name)
            if name == best:
                label = f"[bold]{label} *[/]"
            table.add_row(phase if i == 0 else "", label, _fmt(score.rmse), f"{score.r2:.3f}")
    return table


def _residual_plot(r: PhaseReport, path: Path) -> None:
    """Residuals vs fitted (in-sample) and out-of-fold predicted vs measured, one PNG."""
    from matplotlib.figure import Figure  # Agg canvas; no pyplot global state

    fig = Figure(figsize=(10, 4), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    ax1.scatter(r.fit.fitted, r.fit.residuals, s=10, alpha=0.7)
    ax1.axhline(0.0, color="grey", lw=1)
    ax1.set(xlabel="fitted duration (ms)", ylabel="residual (ms)", title=f"{r.phase}: residuals")
    ax2.scatter(r.y, r.cv["linear"].predictions if "linear" in r.cv else r.fit.fitted, s=10)
    lo, hi = float(np.min(r.y)), float(np.max(r.y))
    ax2.plot([lo, hi], [lo, hi], color="grey", lw=1)
    ax2.set(
        xlabel="measured duration (ms)",
        ylabel="predicted, out of fold (ms)",
        title=f"{r.phase}: CV predictions",
    )
    fig.savefig(path, dpi=100)


def _held_out_errors(
    paths: list[Path],
    observations: PhaseObservations,
    forms: dict[str, tuple[str, ...]],
    folds: int,
    seed: int,
    alpha: float,
) -> PredictionErrors:
    """Grouped K-fold held-out errors of the regression predictor on harness run records."""
    records = []
    for path in paths:
        if path.suffix.lower() not in (".jsonl", ".json"):
            raise InputError(
                "--held-out needs harness run records (.jsonl/.json)",
                path=str(path),
                allowed="JSONL files written by the real-Hadoop harness",
            )
        records += [
            r for r in parse_run_records(path.read_text(encoding="utf-8"), str(path)) if r.success
        ]
    inputs = {r.run_id: job_inputs_from_run_record(r) for r in records}
    try:
        predicted = held_out_regression_predictions(
            observations, inputs, folds=folds, seed=seed, forms=forms, alpha=alpha
        )
    except RegressionDataError as exc:
        sources = ", ".join(str(p) for p in paths)
        raise InputError(str(exc), path=sources, field=exc.field, value=exc.value) from None
    return prediction_errors(measured_runs_from_records(records), predicted)


def _errors_dict(errors: PredictionErrors | None) -> dict | None:
    if errors is None:
        return None

    def clean(stats: ErrorStats) -> dict:
        return {k: (v if np.isfinite(v) else None) for k, v in asdict(stats).items()}

    return {
        "phases": {p: clean(s) for p, s in errors.phases.items()},
        "job": clean(errors.job) if errors.job else None,
    }


def _held_out_table(errors: PredictionErrors, folds: int) -> Table:
    table = Table(title=f"Held-out runs ({folds}-fold by run): regression predictor errors")
    for col in ("Phase", "runs", "RMSE ms", "MAE ms", "MAPE %", "bias ms"):
        table.add_column(col, justify="left" if col == "Phase" else "right")
    items = list(errors.phases.items()) + ([("job", errors.job)] if errors.job else [])
    for name, s in items:
        table.add_row(
            name, str(s.n), _fmt(s.rmse_ms), _fmt(s.mae_ms), f"{s.mape_pct:.1f}", _fmt(s.bias_ms)
        )
    return table


def parse_forms(specs: list[str]) -> dict[str, tuple[str, ...]]:
    """``phase=driver+driver`` options as model forms (an empty right side: intercept only)."""
    forms: dict[str, tuple[str, ...]] = {}
    for spec in specs:
        phase, sep, drivers = spec.partition("=")
        phase = phase.strip()
        if not sep or phase not in PHASES:
            raise InputError(
                "expected PHASE=DRIVER+DRIVER",
                field="--form",
                value=spec,
                allowed=", ".join(PHASES),
            )
        forms[phase] = tuple(d.strip() for d in drivers.split("+") if d.strip())
    return forms


#: One command; ``add_completion=False`` keeps its ``--help`` as it was when the app also
#: held ``predict-regression`` (a group's command has no completion options).
app = typer.Typer(add_completion=False)


@app.command("fit")
@cli_errors
def fit(
    data: DataParam,
    output: OutputParam = None,
    report: ReportParam = None,
    folds: FoldsParam = 10,
    seed: SeedParam = 0,
    alpha: AlphaParam = 0.05,
    compare: CompareParam = True,
    name: NameParam = "fitted",
    export_csv: ExportCsvParam = None,
    form: FormParam = None,
    held_out: HeldOutParam = None,
    fmt: FmtParam = OutputFormat.text,
) -> None:
    """Fit per-phase regression models to measured phase times (Ceesay et al., sec. V)."""
    forms = parse_forms(form or [])
    check_phase_data_paths(data)
    rows, observations = load_phase_data(data)
    sources = ", ".join(str(p) for p in data)
    files: dict[str, str] = {}
    if export_csv is not None:  # before fitting, so the rows are kept even if a fit fails
        export_csv.write_text(rows_to_csv(rows), encoding="utf-8")
        files["csv"] = str(export_csv)
    try:
        with working(f"fitting phase models ({folds}-fold cross-validation)"):
            result = fit_phases(
                observations,
                forms,
                alpha=alpha,
                folds=folds,
                seed=seed,
                algorithms=ALGORITHMS if compare else ("linear",),
            )
    except RegressionDataError as exc:
        raise InputError(str(exc), path=sources, field=exc.field, value=exc.value) from None
    model = result.to_model(name, description=f"fitted on {sources}")
    held_out_errors = (
        _held_out_errors(data, observations, forms, held_out, seed, alpha)
        if held_out is not None
        else None
    )
    if output is not None:
        output.write_text(model.to_json() + "\n", encoding="utf-8")
        files["model"] = str(output)
    if report is not None:
        report.mkdir(parents=True, exist_ok=True)
        for phase, r in result.phases.items():
            png = report / f"residuals-{phase}.png"
            _residual_plot(r, png)
            files[f"plot_{phase}"] = str(png)
        summary = report / "fit-report.json"
        summary.write_text(json.dumps(result.as_dict(), indent=2) + "\n", encoding="utf-8")
        files["report"] = str(summary)
    if fmt is OutputFormat.json:
        emit_json(
            {
                "rows": len(rows),
                "report": result.as_dict(),
                "model": model.model_dump(),
                "held_out": _errors_dict(held_out_errors),
                "files": files,
            }
        )
        return
    console.print(f"{len(rows)} phase rows from {sources}")
    console.print(_coefficient_table(result))
    console.print(_metrics_table(result))
    if compare:
        console.print(_comparison_table(result))
    if held_out_errors is not None:
        console.print(_held_out_table(held_out_errors, held_out))
    for kind, path in files.items():
        console.print(f"wrote {kind}: {path}")
