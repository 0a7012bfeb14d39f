"""Fit every phase of a data set: model, diagnostics, cross-validation, algorithm comparison.

This is the whole of the paper's section V for one data set, as a value: :func:`fit_phases`
returns a :class:`FitReport` that renders as a table, serialises to a dict and turns into a
:class:`~mrtune.costmodel.regression.RegressionModel` for prediction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from mrtune.costmodel.regression._cv import ALGORITHMS, CVScore, cross_validate
from mrtune.costmodel.regression._data import PhaseObservations
from mrtune.costmodel.regression._errors import RegressionDataError
from mrtune.costmodel.regression._fit import P_VALUE_THRESHOLD, OLSFit, fit_phase, phase_design
from mrtune.costmodel.regression._model import PhaseModel, RegressionModel
from mrtune.costmodel.regression._phases import DEFAULT_FORMS


def _finite_or_none(obj: object) -> object:
    """Replace NaN and infinities (not valid JSON) by ``None``, recursively."""
    if isinstance(obj, float):
        return obj if np.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite_or_none(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite_or_none(v) for v in obj]
    return obj


@dataclass(frozen=True)
class PhaseReport:
    """Everything fitted for one phase.

    ``y`` is the ndarray of shape (n_obs,) of measured durations, in data order, matching
    ``fit.fitted`` and every ``cv[...].predictions``.
    """

    phase: str
    candidates: tuple[str, ...]
    fit: OLSFit
    cv: dict[str, CVScore]
    y: np.ndarray = field(repr=False, compare=False)

    def to_phase_model(self) -> PhaseModel:
        metrics = {
            "n_obs": float(self.fit.n_obs),
            "r2": self.fit.r2,
            "adj_r2": self.fit.adj_r2,
            "rmse_ms": self.fit.rmse,
        }
        if "linear" in self.cv:
            metrics["cv_rmse_ms"] = self.cv["linear"].rmse
            metrics["cv_r2"] = self.cv["linear"].r2
        return PhaseModel(
            phase=self.phase,
            intercept=self.fit.intercept.coef,
            coefficients=self.fit.coefficients,
            p_values={t.name: t.p_value for t in self.fit.terms if np.isfinite(t.p_value)},
            metrics={k: v for k, v in metrics.items() if np.isfinite(v)},
        )

    def as_dict(self) -> dict:
        """Plain JSON-ready values; an undefined statistic (NaN) becomes ``None``."""

        def term(t) -> dict:  # type: ignore[no-untyped-def]
            return {
                "name": t.name,
                "coef": t.coef,
                "std_err": t.std_err,
                "p_value": t.p_value,
                "ci95": [t.ci_low, t.ci_high],
            }

        return _finite_or_none(
            {
                "phase": self.phase,
                "candidates": list(self.candidates),
                "n_obs": self.fit.n_obs,
                "intercept": term(self.fit.intercept),
                "terms": [term(t) for t in self.fit.terms],
                "dropped": [{"name": d.name, "p_value": d.p_value} for d in self.fit.dropped],
                "r2": self.fit.r2,
                "adj_r2": self.fit.adj_r2,
                "rmse_ms": self.fit.rmse,
                "cv": {name: score.as_dict() for name, score in self.cv.items()},
            }
        )


@dataclass(frozen=True)
class FitReport:
    """Per-phase reports, in execution order, plus the settings that produced them."""

    phases: dict[str, PhaseReport]
    folds: int
    seed: int
    alpha: float

    def to_model(self, name: str, description: str = "") -> RegressionModel:
        return RegressionModel(
            name=name,
            description=description,
            phases={p: r.to_phase_model() for p, r in self.phases.items()},
        )

    def as_dict(self) -> dict:
        return {
            "folds": self.folds,
            "seed": self.seed,
            "alpha": self.alpha,
            "phases": {p: r.as_dict() for p, r in self.phases.items()},
        }


def fit_phases(
    data: PhaseObservations,
    forms: Mapping[str, tuple[str, ...]] | None = None,
    *,
    alpha: float = P_VALUE_THRESHOLD,
    folds: int = 10,
    seed: int = 0,
    algorithms: tuple[str, ...] = ALGORITHMS,
) -> FitReport:
    """Fit, cross-validate and compare algorithms for every phase present in ``data``.

    Args:
        data: the phase observations.
        forms: candidate drivers per phase (default :data:`DEFAULT_FORMS`); phases of the data
            missing from ``forms`` use the default form.
        alpha: backward-elimination p-value threshold.
        folds: K of K-fold cross-validation (the paper uses 10).
        seed: seeds the fold split and the randomised learners.
        algorithms: which of :data:`~mrtune.costmodel.regression._cv.ALGORITHMS` to score;
            ``("linear",)`` skips the comparison.

    Raises:
        InsufficientDataError: a phase has too few rows.
        RegressionDataError: the data hold no phase, or a driver cannot be computed.
    """
    forms = dict(DEFAULT_FORMS, **(forms or {}))
    if not data.phases:
        raise RegressionDataError("the data hold no phase rows", field="Operation")
    reports: dict[str, PhaseReport] = {}
    for phase in data.phases:
        candidates = tuple(forms[phase])
        fit = fit_phase(data, phase, candidates, alpha=alpha, folds=folds)
        rows = data.for_phase(phase)
        y = rows.duration_ms
        cv: dict[str, CVScore] = {}
        for algorithm in algorithms:
            drivers = fit.drivers if algorithm == "linear" else candidates
            design = phase_design(rows, drivers, phase)
            x = np.column_stack([design[d] for d in drivers]) if drivers else np.empty((len(y), 0))
            cv[algorithm] = cross_validate(x, y, algorithm, folds=folds, seed=seed)
        reports[phase] = PhaseReport(phase=phase, candidates=candidates, fit=fit, cv=cv, y=y)
    return FitReport(phases=reports, folds=folds, seed=seed, alpha=alpha)
