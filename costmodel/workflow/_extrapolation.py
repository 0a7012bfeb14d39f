"""The linear-extrapolation baseline the seed compares the workflow model against.

Seed §3.3 ("Compare with prediction based on linear extrapolation"): run the workflow on two
smaller inputs (TPC-H scale factors 5 and 10; 1 and 3 months of logs), fit a line through
``(input size, completion time)`` and read off the time for the larger input (scale 20; 6
months). The seed finds it off by more than 10% in 5 of 6 cases, because completion time is not
linear in input size once the number of task waves changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike


@dataclass(frozen=True)
class LinearFit:
    """``time = intercept + slope · size``, least squares through the measured points."""

    slope: float
    intercept: float

    def predict(self, size: ArrayLike) -> np.ndarray:
        """Time at ``size`` (ndarray of the shape of ``size``)."""
        return self.intercept + self.slope * np.asarray(size, dtype=np.float64)


def fit_linear(sizes: ArrayLike, times_ms: ArrayLike) -> LinearFit:
    """Least-squares line through ``(size, time)``; needs at least two distinct sizes."""
    x = np.asarray(sizes, dtype=np.float64)
    y = np.asarray(times_ms, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError("sizes and times_ms must be 1-D and of the same length")
    if np.unique(x).size < 2:
        raise ValueError("linear extrapolation needs measurements at two or more distinct sizes")
    slope, intercept = np.polyfit(x, y, deg=1)
    return LinearFit(float(slope), float(intercept))


def linear_extrapolation(sizes: ArrayLike, times_ms: ArrayLike, target_size: float) -> float:
    """The seed's baseline: the fitted line's time at ``target_size``."""
    return float(fit_linear(sizes, times_ms).predict(target_size))
