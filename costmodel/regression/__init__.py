"""Regression phase models fitted from measured phase times (Ceesay et al., CloudCom 2019).

Instead of cost factors, each phase's time in one task is a linear function of a few
performance drivers (eqs. 1-11), fitted by OLS with p-value backward elimination and checked
by 10-fold cross-validation against SVM, random forest and decision tree (section V, Table I);
the job time follows from waves of containers (eqs. 15-17). Pure model code: data come in as
:class:`PhaseObservations`, models go out as JSON text.
"""

from __future__ import annotations

from mrtune.costmodel.regression._compare import (
    ErrorStats,
    PredictionErrors,
    RunTimes,
    compare_predictors,
    held_out_regression_predictions,
    measured_run_times,
    prediction_errors,
)
from mrtune.costmodel.regression._cv import ALGORITHMS, CVScore, cross_validate
from mrtune.costmodel.regression._data import PhaseObservations
from mrtune.costmodel.regression._drivers import DERIVED_DRIVERS, DRIVER_UNITS, compute_drivers
from mrtune.costmodel.regression._errors import InsufficientDataError, RegressionDataError
from mrtune.costmodel.regression._fit import (
    P_VALUE_THRESHOLD,
    Dropped,
    OLSFit,
    Term,
    backward_eliminate,
    fit_phase,
    min_rows,
)
from mrtune.costmodel.regression._model import (
    JobInputs,
    JobPrediction,
    PhaseModel,
    RegressionModel,
)
from mrtune.costmodel.regression._phases import (
    DEFAULT_FORMS,
    MAP_PHASES,
    PHASES,
    REDUCE_PHASES,
    normalise_operation,
    phase_side,
)
from mrtune.costmodel.regression._presets import CEESAY2019, PRESETS
from mrtune.costmodel.regression._report import FitReport, PhaseReport, fit_phases

__all__ = [
    "ALGORITHMS",
    "CEESAY2019",
    "CVScore",
    "DEFAULT_FORMS",
    "DERIVED_DRIVERS",
    "DRIVER_UNITS",
    "Dropped",
    "ErrorStats",
    "FitReport",
    "InsufficientDataError",
    "JobInputs",
    "JobPrediction",
    "MAP_PHASES",
    "OLSFit",
    "P_VALUE_THRESHOLD",
    "PHASES",
    "PRESETS",
    "PhaseModel",
    "PhaseObservations",
    "PhaseReport",
    "PredictionErrors",
    "REDUCE_PHASES",
    "RegressionDataError",
    "RegressionModel",
    "RunTimes",
    "Term",
    "backward_eliminate",
    "compare_predictors",
    "compute_drivers",
    "cross_validate",
    "fit_phase",
    "fit_phases",
    "held_out_regression_predictions",
    "measured_run_times",
    "min_rows",
    "normalise_operation",
    "phase_side",
    "prediction_errors",
]
