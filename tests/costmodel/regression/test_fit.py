"""OLS fit, backward elimination and cross-validation on synthetic data with known truth."""

from __future__ import annotations

import numpy as np
import pytest

from mrtune.costmodel.regression import (
    ALGORITHMS,
    InsufficientDataError,
    PhaseObservations,
    backward_eliminate,
    fit_phase,
    fit_phases,
)

from .synthetic import TRUE


def test_fit_recovers_true_coefficients_within_their_confidence_intervals(
    synthetic_data: PhaseObservations,
) -> None:
    """Every true coefficient (intercept included) lies in the fit's 95 % interval."""
    report = fit_phases(synthetic_data, algorithms=("linear",))
    assert set(report.phases) == set(TRUE)
    for phase, (b0, coefs) in TRUE.items():
        fit = report.phases[phase].fit
        assert fit.drivers == tuple(coefs), phase
        assert fit.intercept.ci_low <= b0 <= fit.intercept.ci_high, (phase, fit.intercept)
        for term in fit.terms:
            assert term.ci_low <= coefs[term.name] <= term.ci_high, (phase, term)
            assert term.p_value < 1e-6


def test_backward_elimination_drops_a_pure_noise_driver(
    synthetic_data: PhaseObservations,
) -> None:
    """Offered ``Noise`` (a random column) next to the true drivers, the fit drops it only."""
    fit = fit_phase(synthetic_data, "shuffle", ("S_d", "Noise", "M_t"))
    assert fit.drivers == ("S_d", "M_t")
    assert [d.name for d in fit.dropped] == ["Noise"]
    assert fit.dropped[0].p_value > 0.05


def test_backward_elimination_removes_worst_first_and_keeps_the_intercept() -> None:
    rng = np.random.default_rng(3)
    n = 200
    x = rng.uniform(0, 10, n)
    noise_a, noise_b = rng.normal(size=n), rng.normal(size=n)
    y = 5.0 + 2.0 * x + rng.normal(0, 0.5, n)
    fit = backward_eliminate({"a": noise_a, "x": x, "b": noise_b}, y)
    assert fit.drivers == ("x",)
    assert {d.name for d in fit.dropped} == {"a", "b"}
    assert all(d.p_value > 0.05 for d in fit.dropped)
    only_noise = backward_eliminate({"a": noise_a}, y - 2.0 * x)
    assert only_noise.drivers == ()
    assert only_noise.intercept.coef == pytest.approx(np.mean(y - 2.0 * x))


def test_constant_driver_is_dropped_not_crashing() -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, 50)
    fit = backward_eliminate(
        {"const_col": np.full(50, 3.0), "x": x}, 1 + x + rng.normal(0, 0.01, 50)
    )
    assert fit.drivers == ("x",)
    assert fit.dropped[0].name == "const_col" and np.isnan(fit.dropped[0].p_value)


def test_cross_validation_is_reproducible_with_a_seed(synthetic_data: PhaseObservations) -> None:
    one = synthetic_data.for_phase("write").select(np.arange(120))
    a = fit_phases(one, seed=7, algorithms=ALGORITHMS).phases["write"].cv
    b = fit_phases(one, seed=7, algorithms=ALGORITHMS).phases["write"].cv
    c = fit_phases(one, seed=8, algorithms=("linear",)).phases["write"].cv
    for name in ALGORITHMS:
        np.testing.assert_array_equal(a[name].predictions, b[name].predictions)
        assert a[name].rmse == b[name].rmse
    # another seed gives other folds, hence other out-of-fold predictions
    assert not np.array_equal(a["linear"].predictions, c["linear"].predictions)


def test_cv_scores_the_linear_model_near_the_noise_level(
    synthetic_data: PhaseObservations,
) -> None:
    """Out-of-fold RMSE of the true form is close to the generating noise (ms)."""
    report = fit_phases(synthetic_data.for_phase("spill"), algorithms=("linear",))
    cv = report.phases["spill"].cv["linear"]
    assert 17.0 < cv.rmse < 23.0  # noise sd is 20 ms
    assert cv.r2 > 0.9
    assert cv.folds == 10


def test_a_phase_with_too_few_rows_is_refused(synthetic_data: PhaseObservations) -> None:
    few = synthetic_data.select(np.flatnonzero(synthetic_data.operation == "write")[:9])
    with pytest.raises(InsufficientDataError) as info:
        fit_phase(few, "write")
    assert info.value.phase == "write"
    assert "9 rows" in str(info.value) and "at least 10" in str(info.value)
