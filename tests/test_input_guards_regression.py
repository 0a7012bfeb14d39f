"""``predict-regression`` inputs have finite, stated bounds, and a prediction is a finite time.

``data_size_mb=1e400`` had crashed in ``math.ceil`` (OverflowError, exit 1) and ``1e300``
printed "predicted job time: inf s" with exit 0; a block size of 1e-300 MB gave 10^302 map
tasks. Each is now one ``error:`` line with exit code 2 naming the key, the value and the range.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel.regression import CEESAY2019, JobInputs, PhaseModel, RegressionModel
from mrtune.costmodel.regression._model import MAX_MB, MAX_PCT, MAX_TASKS

BASE = "block_size_mb=128,map_selectivity_pct=100,reducers=4,containers=8"


def _one_error_line(res, *needles: str) -> str:  # noqa: ANN001
    err = res.stderr.strip()
    assert res.exit_code == 2, (res.exit_code, err, res.stdout[-300:])
    assert err.startswith("error:") and "\n" not in err, err
    assert "internal error" not in err and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize(
    ("inputs", "needles"),
    [
        (f"data_size_mb=1e400,{BASE}", ("data_size_mb", "'1e400'", "finite")),
        (f"data_size_mb=1e300,{BASE}", ("data_size_mb", "'1e300'", "<= 8796093022208 MB")),
        (f"D=inf,{BASE}", ("--inputs D", "finite")),
        (f"data_size_mb=nan,{BASE}", ("data_size_mb", "finite")),
        (
            "data_size_mb=100,block_size_mb=1e-300,map_selectivity_pct=1,reducers=1,containers=1",
            ("map tasks", str(MAX_TASKS)),
        ),
        (f"data_size_mb=10,{BASE},t_map_ms=1e30", ("t_map_ms", "ms")),
        (
            "data_size_mb=10,mappers=1,map_selectivity_pct=1e30,reducers=1,containers=1",
            ("map_selectivity_pct", "%"),
        ),
        ("data_size_mb=10,mappers=1,M_sel=1,reducers=1,containers=3e9", ("containers",)),
    ],
)
def test_out_of_range_inputs_are_one_line(inputs: str, needles: tuple[str, ...], fmt: str) -> None:
    res = CliRunner().invoke(
        app, ["predict-regression", "ceesay2019", "--inputs", inputs, "--format", fmt]
    )
    err = _one_error_line(res, "--inputs", *needles)
    assert "inf s" not in res.stdout and "allowed:" in err


def test_the_bounds_are_finite_and_declared() -> None:
    for name, info in JobInputs.model_fields.items():
        if name == "extra_drivers":
            continue
        upper = [c.le for c in info.metadata if getattr(c, "le", None) is not None]
        assert upper and math.isfinite(upper[0]), name
    with pytest.raises(ValidationError, match="extra_drivers"):
        JobInputs(
            data_size_mb=1, mappers=1, map_selectivity_pct=1, reducers=1, containers=1,
            extra_drivers={"x": math.inf},
        )  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    data=st.floats(1e-6, MAX_MB),
    mappers=st.integers(1, MAX_TASKS),
    sel=st.floats(0, MAX_PCT),
    reducers=st.integers(0, MAX_TASKS),
    containers=st.integers(1, MAX_TASKS),
)
def test_every_allowed_input_gives_a_finite_time(
    data: float, mappers: int, sel: float, reducers: int, containers: int
) -> None:
    inputs = JobInputs(
        data_size_mb=data,
        mappers=mappers,
        map_selectivity_pct=sel,
        reducers=reducers,
        containers=containers,
    )
    job = CEESAY2019.predict_job(inputs)
    assert math.isfinite(job.total_ms) and job.total_ms >= 0


def test_a_model_whose_coefficients_overflow_is_refused() -> None:
    """A user's model (``mrtune fit -o``) may hold any coefficient: inf is never an answer."""
    model = RegressionModel(
        name="huge",
        phases={"read": PhaseModel(phase="read", intercept=0.0, coefficients={"d": 1e300})},
    )
    inputs = JobInputs(
        data_size_mb=1e12, mappers=1, map_selectivity_pct=1, reducers=0, containers=1
    )
    with pytest.raises(ValueError, match="non-finite read time"):
        model.predict_job(inputs)


def test_the_cli_refuses_an_overflowing_model(tmp_path) -> None:  # noqa: ANN001
    model = RegressionModel(
        name="huge",
        phases={"read": PhaseModel(phase="read", intercept=0.0, coefficients={"d": 1e300})},
    )
    path = tmp_path / "huge.json"
    path.write_text(model.to_json(), encoding="utf-8")
    inputs = "data_size_mb=1e12,mappers=1,map_selectivity_pct=1,reducers=0,containers=1"
    res = CliRunner().invoke(app, ["predict-regression", str(path), "--inputs", inputs])
    _one_error_line(res, "--inputs", "non-finite")


def test_an_ordinary_prediction_is_unchanged() -> None:
    res = CliRunner().invoke(
        app, ["predict-regression", "ceesay2019", "--inputs", f"data_size_mb=1024,{BASE}"]
    )
    assert res.exit_code == 0, res.output
    assert "predicted job time:" in res.stdout
