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


#: What each unit's bound is (``mrtune.costmodel.regression._model``'s MAX_* constants).
_BOUND_REASON = {
    "mb": "MB (8 EiB: Hadoop counts bytes in a Java long)",
    "pct": "% (8 EiB of output from one byte of input)",
    "ms": "ms (a Java long of milliseconds)",
    "": "(a Java int, as Hadoop counts tasks: JobConf.setNumMapTasks, setNumReduceTasks)",
}


def _allowed(field: str) -> str | None:
    """The range a JobInputs field accepts, read from its declaration so it never drifts."""
    info = JobInputs.model_fields.get(field)
    if info is None:
        return None

    def num(x: float) -> str:
        return str(int(x)) if float(x).is_integer() and abs(x) < 1e16 else f"{x:.4g}"

    lo = hi = ""
    for c in info.metadata:
        if getattr(c, "gt", None) is not None:
            lo = f"> {num(c.gt)}"
        elif getattr(c, "ge", None) is not None:
            lo = f">= {num(c.ge)}"
        elif getattr(c, "le", None) is not None:
            hi = f"<= {num(c.le)}"
    unit = field.rpartition("_")[2] if field.endswith(("_mb", "_pct", "_ms")) else ""
    kind = "a finite number" if unit else "a whole number"
    return f"{kind} {lo} and {hi} {_BOUND_REASON[unit]}" if lo and hi else None


def inputs_error(exc: ValidationError) -> InputError:
    """One line for the first bad ``--inputs`` value: its key, the value, the allowed range.

    The bounds are finite so that eq. 17 gives a finite time (``1e400`` had overflowed in
    ``math.ceil`` and ``1e300`` printed a job time of ``inf`` s).
    """
    errors = exc.errors(include_url=False)
    err = errors[0]
    key = ".".join(str(p) for p in err.get("loc", ()))
    aliases = {
        a: name
        for name, info in JobInputs.model_fields.items()
        for a in getattr(info.validation_alias, "choices", ())
    }
    field = aliases.get(key, key)
    value = err.get("input")
    msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return InputError(
        msg + more,
        field=f"--inputs {key}" if key else "--inputs",
        value=None if isinstance(value, dict | list) else value,
        allowed=_allowed(field),
    )


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
    try:
        job_inputs = JobInputs.model_validate(parse_inputs(inputs))
    except ValidationError as exc:
        raise inputs_error(exc) from None
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
