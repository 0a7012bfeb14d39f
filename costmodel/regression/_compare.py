"""Held-out prediction errors of any predictor, per phase and per job (issue 8, section 5).

The comparison of the regression model with the white-box cost model needs both to predict
the same held-out runs. This module does not know either predictor: a predictor's output is a
list of :class:`RunTimes` (per-task phase times and job time of each run), and
:func:`compare_predictors` scores any number of them against the measured runs. For the
regression model, :func:`held_out_regression_predictions` produces those predictions with
whole runs held out (grouped K-fold: no task of a predicted run was seen by its model).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import mean_absolute_error, mean_squared_error
from sklearn.model_selection import GroupKFold

from mrtune.costmodel.regression._data import PhaseObservations
from mrtune.costmodel.regression._errors import InsufficientDataError
from mrtune.costmodel.regression._fit import P_VALUE_THRESHOLD, backward_eliminate, phase_design
from mrtune.costmodel.regression._model import JobInputs, PhaseModel, RegressionModel
from mrtune.costmodel.regression._phases import DEFAULT_FORMS, PHASES


@dataclass(frozen=True)
class RunTimes:
    """Phase and job times of one run: measured, or predicted by some model.

    ``phases_ms`` holds the time of one task of each phase (the mean over the run's tasks when
    measured); ``job_ms`` the job's wall time (``None`` if the predictor gives none).
    """

    run_id: str
    phases_ms: Mapping[str, float]
    job_ms: float | None = None


@dataclass(frozen=True)
class ErrorStats:
    """Errors of predictions against measurements over ``n`` runs (ms, and % for MAPE)."""

    n: int
    rmse_ms: float
    mae_ms: float
    mape_pct: float
    bias_ms: float

    @classmethod
    def of(cls, measured: np.ndarray, predicted: np.ndarray) -> ErrorStats:
        measured = np.asarray(measured, dtype=float)
        predicted = np.asarray(predicted, dtype=float)
        nonzero = measured != 0
        mape = (
            float(np.mean(np.abs(predicted - measured)[nonzero] / np.abs(measured[nonzero])) * 100)
            if nonzero.any()
            else float("nan")
        )
        return cls(
            n=len(measured),
            rmse_ms=float(np.sqrt(mean_squared_error(measured, predicted))),
            mae_ms=float(mean_absolute_error(measured, predicted)),
            mape_pct=mape,
            bias_ms=float(np.mean(predicted - measured)),
        )


@dataclass(frozen=True)
class PredictionErrors:
    """Per-phase and per-job errors of one predictor."""

    phases: dict[str, ErrorStats]
    job: ErrorStats | None


def prediction_errors(
    measured: Sequence[RunTimes], predicted: Sequence[RunTimes]
) -> PredictionErrors:
    """Score ``predicted`` against ``measured``, matching runs by ``run_id``.

    A phase is scored over the runs where both sides have it; the job over the runs where
    both have ``job_ms``. Runs the predictor skipped are left out, not counted as errors.
    """
    by_id = {r.run_id: r for r in predicted}
    pairs = [(m, by_id[m.run_id]) for m in measured if m.run_id in by_id]
    phases: dict[str, ErrorStats] = {}
    for phase in PHASES:
        both = [
            (m.phases_ms[phase], p.phases_ms[phase])
            for m, p in pairs
            if phase in m.phases_ms and phase in p.phases_ms
        ]
        if both:
            arr = np.asarray(both, dtype=float)
            phases[phase] = ErrorStats.of(arr[:, 0], arr[:, 1])
    jobs = [
        (m.job_ms, p.job_ms) for m, p in pairs if m.job_ms is not None and p.job_ms is not None
    ]
    job = ErrorStats.of(*np.asarray(jobs, dtype=float).T) if jobs else None
    return PredictionErrors(phases=phases, job=job)


def compare_predictors(
    measured: Sequence[RunTimes], predictors: Mapping[str, Sequence[RunTimes]]
) -> dict[str, PredictionErrors]:
    """:func:`prediction_errors` of each named predictor on the same measured runs."""
    return {name: prediction_errors(measured, pred) for name, pred in predictors.items()}


def measured_run_times(
    data: PhaseObservations, job_ms: Mapping[str, float] | None = None
) -> list[RunTimes]:
    """Mean per-task duration of each phase of each run in ``data`` (and its job time)."""
    job_ms = job_ms or {}
    out = []
    for run in dict.fromkeys(data.run_id.tolist()):
        rows = data.select(data.run_id == run)
        phases = {p: float(np.mean(rows.duration_ms[rows.operation == p])) for p in rows.phases}
        out.append(RunTimes(run_id=run, phases_ms=phases, job_ms=job_ms.get(run)))
    return out


def held_out_regression_predictions(
    data: PhaseObservations,
    inputs_by_run: Mapping[str, JobInputs],
    *,
    folds: int = 5,
    seed: int = 0,
    forms: Mapping[str, tuple[str, ...]] | None = None,
    alpha: float = P_VALUE_THRESHOLD,
    waves: str = "fractional",
) -> list[RunTimes]:
    """Predict every run of ``data`` with phase models fitted on the *other* runs.

    Runs are split by :class:`~sklearn.model_selection.GroupKFold` (shuffled, seeded); in each
    fold every phase is refitted by OLS with backward elimination on the training runs' rows,
    and the held-out runs are predicted from their :class:`JobInputs` by eq. 15-17.

    Raises:
        InsufficientDataError: fewer distinct runs than ``folds``, or a phase with fewer
            training rows than its form has parameters plus two.
    """
    forms = dict(DEFAULT_FORMS, **(forms or {}))
    runs = np.asarray(list(dict.fromkeys(data.run_id.tolist())), dtype=object)
    if len(runs) < folds:
        raise InsufficientDataError(
            f"{len(runs)} runs cannot be split into {folds} held-out folds",
            field="run_id",
            value=len(runs),
        )
    predictions: list[RunTimes] = []
    splitter = GroupKFold(n_splits=folds, shuffle=True, random_state=seed)
    for train_idx, test_idx in splitter.split(runs, groups=runs):
        train = data.select(np.isin(data.run_id, runs[train_idx]))
        models: dict[str, PhaseModel] = {}
        for phase in train.phases:
            rows = train.for_phase(phase)
            candidates = tuple(forms[phase])
            if len(rows) < len(candidates) + 2:
                raise InsufficientDataError(
                    f"phase {phase!r} has {len(rows)} training rows in a held-out fold",
                    phase=phase,
                    field="Operation",
                    value=phase,
                )
            fit = backward_eliminate(
                phase_design(rows, candidates, phase), rows.duration_ms, alpha=alpha
            )
            models[phase] = PhaseModel(
                phase=phase, intercept=fit.intercept.coef, coefficients=fit.coefficients
            )
        model = RegressionModel(name="held-out fold", phases=models, waves=waves)  # type: ignore[arg-type]
        for run in runs[test_idx]:
            if run not in inputs_by_run:
                continue
            job = model.predict_job(inputs_by_run[run])
            predictions.append(RunTimes(run_id=run, phases_ms=job.phases_ms, job_ms=job.total_ms))
    return predictions
