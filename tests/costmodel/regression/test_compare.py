"""Held-out errors of any predictor, per phase and per job (issue 8, section 5)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mrtune.costmodel.regression import (
    JobInputs,
    PhaseObservations,
    RunTimes,
    compare_predictors,
    held_out_regression_predictions,
    measured_run_times,
    prediction_errors,
)

from .synthetic import NOISE_SD, TRUE, job_drivers


def _inputs_by_run(data: PhaseObservations) -> dict[str, JobInputs]:
    out = {}
    for run in dict.fromkeys(data.run_id.tolist()):
        i = int(np.flatnonzero(data.run_id == run)[0])
        out[run] = JobInputs(
            data_size_mb=data.base["D"][i],
            mappers=int(data.base["M_t"][i]),
            map_selectivity_pct=data.base["M_sel"][i],
            reducers=int(data.base["R_t"][i]),
            containers=4,
        )
    return out


def test_perfect_predictor_has_zero_error_and_errors_are_exact() -> None:
    measured = [
        RunTimes("a", {"read": 100.0, "write": 50.0}, 1000.0),
        RunTimes("b", {"read": 200.0, "write": 80.0}, 2000.0),
    ]
    shifted = [
        RunTimes("a", {"read": 110.0, "write": 50.0}, 900.0),
        RunTimes("b", {"read": 190.0}, 2300.0),
        RunTimes("zzz", {"read": 1.0}, 1.0),  # not measured: ignored
    ]
    result = compare_predictors(measured, {"same": measured, "shifted": shifted})
    assert result["same"].job.rmse_ms == 0 and result["same"].phases["read"].mae_ms == 0
    s = result["shifted"]
    assert s.phases["read"].n == 2 and s.phases["read"].rmse_ms == pytest.approx(10.0)
    assert s.phases["read"].mape_pct == pytest.approx((10 / 100 + 10 / 200) / 2 * 100)
    assert s.phases["write"].n == 1  # run b's prediction has no write
    assert s.job.rmse_ms == pytest.approx(math.sqrt((100**2 + 300**2) / 2))
    assert s.job.bias_ms == pytest.approx((-100 + 300) / 2)


def test_held_out_regression_predictions_are_close_to_the_truth(
    synthetic_data: PhaseObservations,
) -> None:
    """Runs held out by grouped 5-fold CV are predicted within the noise of the generator."""
    inputs = _inputs_by_run(synthetic_data)
    predicted = held_out_regression_predictions(synthetic_data, inputs, folds=5, seed=0)
    assert len(predicted) == len(inputs)
    # the truth, computed by hand from the generating coefficients
    truth = []
    for run, job in inputs.items():
        block = job.data_size_mb / job.mappers
        drv = job_drivers(
            job.data_size_mb, job.map_selectivity_pct, 64 if block <= 64 else 128, job.reducers
        )
        phases = {
            p: b0 + sum(c * drv[k] for k, c in coefs.items()) for p, (b0, coefs) in TRUE.items()
        }
        truth.append(RunTimes(run, phases))
    errors = prediction_errors(truth, predicted)
    for phase, stats in errors.phases.items():
        assert stats.n == len(inputs)
        assert stats.rmse_ms < NOISE_SD[phase], phase  # model error is below the task noise
    measured = measured_run_times(synthetic_data)
    assert {m.run_id for m in measured} == set(inputs)
    assert prediction_errors(measured, predicted).job is None  # no measured job times given
