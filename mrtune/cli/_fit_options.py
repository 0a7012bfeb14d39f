"""The parameters of ``mrtune fit``, declared once as ``Annotated`` types.

Why a module of its own: declared inline, the parameters were 48 of the command's ~106
lines; as named types the command reads as parse → call → render, and ``--help`` is
unchanged (each parameter keeps its name, its default and its ``typer.Option``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mrtune.cli.console import OutputFormat
from mrtune.costmodel.regression import DERIVED_DRIVERS

DataParam = Annotated[
    list[Path],
    typer.Argument(help="Phase-time CSV files (long format) or harness run records."),
]
OutputParam = Annotated[
    Path | None, typer.Option("-o", "--output", help="Write the fitted model as JSON.")
]
ReportParam = Annotated[
    Path | None,
    typer.Option("--report", help="Folder for residual plots (PNG) and fit-report.json."),
]
FoldsParam = Annotated[int, typer.Option(min=2, help="K of K-fold cross-validation.")]
SeedParam = Annotated[int, typer.Option(help="Seed of the folds and random learners.")]
AlphaParam = Annotated[
    float, typer.Option(min=0.0, max=1.0, help="Backward-elimination p-value threshold.")
]
CompareParam = Annotated[
    bool, typer.Option(help="Compare with SVM, random forest and decision tree.")
]
NameParam = Annotated[str, typer.Option(help="Name stored in the model file.")]
ExportCsvParam = Annotated[
    Path | None,
    typer.Option("--export-csv", help="Also write the phase rows as long-format CSV."),
]
FormParam = Annotated[
    list[str] | None,
    typer.Option(
        "--form",
        help=(
            "Candidate drivers of a phase, e.g. --form merge=M_d+M_d_log_M_d (repeatable;"
            f" drivers: {', '.join(DERIVED_DRIVERS)} or any numeric data column)."
        ),
    ),
]
HeldOutParam = Annotated[
    int | None,
    typer.Option(
        "--held-out",
        min=2,
        help=(
            "With run records: predict every run from models fitted on the other runs "
            "(grouped K-fold) and report per-phase and per-job errors."
        ),
    ),
]
FmtParam = Annotated[OutputFormat, typer.Option("--format")]
