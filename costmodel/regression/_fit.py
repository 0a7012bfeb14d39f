"""Ordinary least squares per phase with p-value backward elimination (paper section V).

The paper fits each phase's form with R's ``lm`` and keeps a driver only while its p-value is
at most 0.05, dropping the worst one at a time ("backwards-elimination"). This module does the
same with statsmodels' OLS; the per-phase intercept (the paper's ``beta_0*``) is always kept,
since eq. 15-17 add the phase constants together.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import statsmodels.api as sm

from mrtune.costmodel.regression._data import PhaseObservations
from mrtune.costmodel.regression._drivers import compute_drivers
from mrtune.costmodel.regression._errors import InsufficientDataError, RegressionDataError
from mrtune.costmodel.regression._phases import DEFAULT_FORMS

P_VALUE_THRESHOLD = 0.05
"""Keep a driver while its p-value is <= this (paper section V)."""


@dataclass(frozen=True)
class Term:
    """One coefficient of a fitted phase model, with its statsmodels inference."""

    name: str
    coef: float
    std_err: float
    p_value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class Dropped:
    """A driver removed by backward elimination, with the p-value it had when removed."""

    name: str
    p_value: float


@dataclass(frozen=True)
class OLSFit:
    """The result of :func:`backward_eliminate`.

    ``fitted`` and ``residuals`` are ndarrays of shape (n_obs,), kept for residual plots.
    """

    intercept: Term
    terms: tuple[Term, ...]
    dropped: tuple[Dropped, ...]
    n_obs: int
    r2: float
    adj_r2: float
    rmse: float
    fitted: np.ndarray = field(repr=False, compare=False)
    residuals: np.ndarray = field(repr=False, compare=False)

    @property
    def drivers(self) -> tuple[str, ...]:
        """The drivers that survived elimination."""
        return tuple(t.name for t in self.terms)

    @property
    def coefficients(self) -> dict[str, float]:
        return {t.name: t.coef for t in self.terms}


def _terms(result: sm.regression.linear_model.RegressionResultsWrapper, names: list[str]) -> list:
    ci = np.asarray(result.conf_int(alpha=0.05))
    out = []
    for i, name in enumerate(["const", *names]):
        out.append(
            Term(
                name=name,
                coef=float(result.params[i]),
                std_err=float(result.bse[i]),
                p_value=float(result.pvalues[i]),
                ci_low=float(ci[i, 0]),
                ci_high=float(ci[i, 1]),
            )
        )
    return out


def backward_eliminate(
    design: Mapping[str, np.ndarray], y: np.ndarray, *, alpha: float = P_VALUE_THRESHOLD
) -> OLSFit:
    """Fit ``y ~ 1 + design`` by OLS, dropping the driver with the largest p-value > ``alpha``.

    A constant driver (collinear with the intercept) is dropped before fitting, with p-value
    NaN; a driver whose p-value is otherwise undefined is dropped first. Elimination stops when every remaining driver has p <= ``alpha`` or none is
    left (then the model is the mean).

    Args:
        design: ``{driver name: ndarray of shape (n_obs,)}``.
        y: ndarray of shape (n_obs,), the phase durations.
        alpha: the p-value threshold.
    """
    y = np.asarray(y, dtype=float)
    names = list(design)
    dropped: list[Dropped] = []
    for name in list(names):  # a constant driver is the intercept again: no p-value exists
        if np.ptp(np.asarray(design[name], dtype=float)) == 0.0:
            dropped.append(Dropped(name, float("nan")))
            names.remove(name)
    while True:
        columns = [np.asarray(design[n], dtype=float) for n in names]
        x = np.column_stack([np.ones_like(y), *columns]) if columns else np.ones((len(y), 1))
        result = sm.OLS(y, x).fit()
        if not names:
            break
        p = np.asarray(result.pvalues[1:], dtype=float)
        p = np.where(np.isnan(p), np.inf, p)
        worst = int(np.argmax(p))
        if p[worst] <= alpha:
            break
        dropped.append(Dropped(names[worst], float(p[worst])))
        del names[worst]
    terms = _terms(result, names)
    residuals = np.asarray(result.resid, dtype=float)
    return OLSFit(
        intercept=terms[0],
        terms=tuple(terms[1:]),
        dropped=tuple(dropped),
        n_obs=len(y),
        r2=float(result.rsquared),
        adj_r2=float(result.rsquared_adj),
        rmse=float(np.sqrt(np.mean(residuals**2))),
        fitted=np.asarray(result.fittedvalues, dtype=float),
        residuals=residuals,
    )


def min_rows(n_candidates: int, folds: int) -> int:
    """Rows a phase needs: more than the parameters (OLS) and one per CV fold."""
    return max(n_candidates + 2, folds)


def phase_design(
    data: PhaseObservations, drivers: tuple[str, ...], phase: str
) -> dict[str, np.ndarray]:
    """The driver columns of one phase's rows, checking that every driver is finite."""
    try:
        design = compute_drivers(data.base, drivers)
    except KeyError as exc:
        raise RegressionDataError(
            f"phase {phase!r}: unknown driver {exc.args[0]!r}", phase=phase, value=exc.args[0]
        ) from None
    for name, column in design.items():
        if not np.all(np.isfinite(column)):
            bad = column[~np.isfinite(column)][0]
            raise RegressionDataError(
                f"phase {phase!r}: driver {name!r} is not finite in some rows",
                phase=phase,
                field=name,
                value=float(bad),
            )
    return design


def fit_phase(
    data: PhaseObservations,
    phase: str,
    drivers: tuple[str, ...] | None = None,
    *,
    alpha: float = P_VALUE_THRESHOLD,
    folds: int = 10,
) -> OLSFit:
    """Fit one phase's model form to its rows of ``data``.

    Raises:
        InsufficientDataError: fewer rows than :func:`min_rows`.
    """
    drivers = DEFAULT_FORMS[phase] if drivers is None else tuple(drivers)
    rows = data.for_phase(phase)
    needed = min_rows(len(drivers), folds)
    if len(rows) < needed:
        raise InsufficientDataError(
            f"phase {phase!r} has {len(rows)} rows; fitting {len(drivers)} driver(s) with "
            f"{folds}-fold cross-validation needs at least {needed}",
            phase=phase,
            field="Operation",
            value=phase,
        )
    return backward_eliminate(phase_design(rows, drivers, phase), rows.duration_ms, alpha=alpha)
