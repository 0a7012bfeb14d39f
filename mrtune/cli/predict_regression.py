"""``mrtune predict-regression``: a job's time by eq. 17 from a regression phase model.

Evaluates eq. 17 of Ceesay et al. (the phase times of one task times the waves of
containers) with a model saved by ``mrtune fit -o`` or a named preset (``ceesay2019``: the
paper's eqs. 19-24) for the inputs of the paper's Table II. A module of its own, apart from
``mrtune fit`` (:mod:`mrtune.cli.fit`), because it only reads a model: it needs neither the
fitting stack nor the phase-data readers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.table import Table

from mrtune.cli.console import OutputFormat, cli_errors, console, emit_json
from mrtune.costmodel.regression import PRESETS, JobInputs, RegressionModel
from mrtune.errors import InputError


def _load_model(spec: str) -> RegressionModel:
    path = Path(spec)
    if path.is_file():
        try:
            return RegressionModel.from_json(path.read_text(encoding="utf-8"))
        except ValidationError as exc:
            from mrtune.cli.console import format_validation_error

            raise InputError(
                f"not a regression model: {format_validation_error(exc)}", path=spec
            ) from None
    if spec in PRESETS:
        return PRESETS[spec]
    raise InputError(
        "neither a model file nor a preset",
        field="MODEL",
        value=spec,
        allowed=f"a JSON file written by `mrtune fit -o`, or one of: {', '.join(PRESETS)}",
    )


def parse_inputs(spec: str) -> dict[str, object]:
    """``key=value,key=value`` pairs, or a JSON object file, as raw values for JobInputs."""
    path = Path(spec)
    if path.suffix.lower() == ".json" or path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", path=spec) from None
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg} at line {exc.lineno}", path=spec) from None
        if not isinstance(data, dict):
            raise InputError("expected a JSON object of inputs", path=spec)
        return data
    out: dict[str, object] = {}
    for pair in spec.split(","):
        if not pair.strip():
            continue
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError("expected KEY=VALUE", field="--inputs", value=pair)
        out[key.strip()] = value.strip()
    return out


#: One command; ``add_completion=False`` keeps its ``--help`` as it was when it shared
#: :mod:`mrtune.cli.fit`'s app (a group's command has no completion options).
app = typer.Typer(add_completion=False)


@app.command("predict-regression")
@cli_errors
def predict_regression(
    model_spec: Annotated[
        str,
        typer.Argument(
            metavar="MODEL",
            help=f"Model JSON from `mrtune fit -o`, or a preset: {', '.join(PRESETS)}.",
        ),
    ],
    inputs: Annotated[
        str,
        typer.Option(
            "--inputs",
            help=(
                "Table II inputs as key=value pairs or a JSON file, e.g. "
                "data_size_mb=1024,block_size_mb=128,map_selectivity_pct=50,reducers=2,"
                "containers=4 (paper symbols D, M_t, M_sel, R_t, N_c, T_map, T_reduce, "
                "M_d, S_d, R_d are accepted too)."
            ),
        ),
    ],
    waves: Annotated[
        str | None,
        typer.Option(help="Override how waves are counted: fractional (paper) or ceil."),
    ] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format")] = OutputFormat.text,
) -> None:
    """Predict a job's time by eq. 17 (waves of containers) from a regression model."""
    model = _load_model(model_spec)
    if waves is not None:
        if waves not in ("fractional", "ceil"):
            raise InputError("unknown", field="--waves", value=waves, allowed="fractional, ceil")
        model = model.model_copy(update={"waves": waves})
    job_inputs = JobInputs.model_validate(parse_inputs(inputs))
    try:
        prediction = model.predict_job(job_inputs)
    except ValueError as exc:
        raise InputError(str(exc), field="--inputs") from None
    if fmt is OutputFormat.json:
        emit_json(
            {
                "model": model.name,
                "waves": model.waves,
                "inputs": job_inputs.model_dump(),
                "prediction": prediction.model_dump(),
            }
        )
        return
    table = Table(title=f"Eq. 17 with model {model.name!r} ({model.waves} waves)")
    table.add_column("Phase / term")
    table.add_column("ms", justify="right")
    for phase, ms in prediction.phases_ms.items():
        table.add_row(f"{phase} (one task)", f"{ms:,.1f}")
    table.add_row("T_map (user map(), one task)", f"{job_inputs.t_map_ms:,.1f}")
    table.add_row("T_reduce (user reduce(), one task)", f"{job_inputs.t_reduce_ms:,.1f}")
    table.add_row(
        f"map: {prediction.map_waves:g} waves x {prediction.map_task_ms:,.1f}",
        f"{prediction.map_ms:,.1f}",
    )
    table.add_row(
        f"reduce: {prediction.reduce_waves:g} waves x {prediction.reduce_task_ms:,.1f}",
        f"{prediction.reduce_ms:,.1f}",
    )
    table.add_row("[bold]job[/]", f"[bold]{prediction.total_ms:,.1f}[/]")
    console.print(table)
    console.print(f"predicted job time: {prediction.total_ms / 1000:,.1f} s")
