"""K-fold cross-validation and the algorithm comparison of the paper's Table I.

The paper validates each phase model with 10-fold cross-validation (R ``caret``) and compares
linear regression with a support vector machine, a random forest and a decision tree on the
same data. Here every algorithm is a scikit-learn estimator scored on the *out-of-fold*
predictions of one shared, seeded :class:`~sklearn.model_selection.KFold` split, so the
numbers of all algorithms are comparable and a run is reproducible from its seed.

* ``linear``: ordinary least squares on the drivers that backward elimination kept (the form
  is chosen once on all rows, then refitted in every fold -- as caret refits a fixed formula);
* ``svm``: epsilon-SVR with an RBF kernel on standardised drivers and a standardised target
  (SVR's ``epsilon`` and ``C`` are scale-dependent; durations are thousands of ms);
* ``random_forest`` / ``decision_tree``: on all candidate drivers of the phase form.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.compose import TransformedTargetRegressor
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.model_selection import KFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR
from sklearn.tree import DecisionTreeRegressor

ALGORITHMS: tuple[str, ...] = ("linear", "svm", "random_forest", "decision_tree")


@dataclass(frozen=True)
class CVScore:
    """Out-of-fold scores of one algorithm on one phase.

    ``predictions`` is the ndarray of shape (n_obs,) of out-of-fold predictions.
    """

    algorithm: str
    rmse: float
    r2: float
    folds: int
    seed: int
    predictions: np.ndarray

    def as_dict(self) -> dict[str, float | int | str]:
        return {
            "algorithm": self.algorithm,
            "rmse_ms": self.rmse,
            "r2": self.r2,
            "folds": self.folds,
            "seed": self.seed,
        }


def make_estimator(algorithm: str, seed: int) -> RegressorMixin:
    """A fresh scikit-learn regressor for ``algorithm`` (one of :data:`ALGORITHMS`)."""
    if algorithm == "linear":
        return LinearRegression()
    if algorithm == "svm":
        return TransformedTargetRegressor(
            regressor=make_pipeline(StandardScaler(), SVR(kernel="rbf", C=10.0, epsilon=0.05)),
            transformer=StandardScaler(),
        )
    if algorithm == "random_forest":
        return RandomForestRegressor(n_estimators=50, random_state=seed, n_jobs=1)
    if algorithm == "decision_tree":
        return DecisionTreeRegressor(random_state=seed, min_samples_leaf=2)
    raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")


def kfold(folds: int, seed: int) -> KFold:
    """The shared split: shuffled K folds with a fixed seed."""
    return KFold(n_splits=folds, shuffle=True, random_state=seed)


def cross_validate(
    x: np.ndarray, y: np.ndarray, algorithm: str, *, folds: int = 10, seed: int = 0
) -> CVScore:
    """Score ``algorithm`` by K-fold cross-validation on ``x`` (n_obs, n_drivers) and ``y``.

    RMSE and R^2 are computed on the pooled out-of-fold predictions (every row is predicted
    once, by a model that did not see it).
    """
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float).reshape(len(y), -1)
    if x.shape[1] == 0:  # intercept-only model: predict the training mean
        x = np.zeros((len(y), 1))
    predictions = cross_val_predict(make_estimator(algorithm, seed), x, y, cv=kfold(folds, seed))
    return CVScore(
        algorithm=algorithm,
        rmse=float(np.sqrt(mean_squared_error(y, predictions))),
        r2=float(r2_score(y, predictions)),
        folds=folds,
        seed=seed,
        predictions=np.asarray(predictions, dtype=float),
    )
