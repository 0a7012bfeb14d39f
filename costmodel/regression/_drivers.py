"""Performance drivers of the phase models, computed the same way for fitting and predicting.

Every driver is a vectorised function of a few base quantities (numpy arrays or scalars):

========  ==========================================================================
``D``     total input of the job, MB (Table II "Num Of Bytes Read")
``M_t``   number of map tasks (Table II "Total Mappers")
``M_sel`` map selectivity, percent of the input a map emits (Table II)
``R_t``   number of reduce tasks (Table II "Total Reducers")
``R_sel`` reduce selectivity, percent of its input a reduce writes (eq. 10)
========  ==========================================================================

and of optional measured per-task values that take precedence over the paper's derivation
when present: ``d`` (split size), ``M_d``, ``S_d``, ``R_d`` (MB). Derived drivers:

* ``d = D / M_t`` -- the mean input split of one map task (eq. 1 uses the split size);
* ``M_d = d * M_sel / 100`` -- eq. 3;
* ``S_d = d * M_sel/100 * M_t / R_t`` -- eq. 7, the data one reducer receives;
* ``R_d = S_d * R_sel / 100`` -- eq. 10;
* ``X_log_X = X * ln X`` for ``X`` in ``M_d``, ``S_d``, ``M_sel`` (eq. 6 and eq. 22; natural
  logarithm, as R's ``log`` in the authors' scripts), 0 where ``X <= 0`` (the limit of x ln x).

Any other name is looked up verbatim among the extra columns of the data, so a form may name
a raw column (the tests use that to offer a pure-noise driver to backward elimination).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

BASE_QUANTITIES: tuple[str, ...] = ("D", "M_t", "M_sel", "R_t", "R_sel")
MEASURED_OVERRIDES: tuple[str, ...] = ("d", "M_d", "S_d", "R_d")

DERIVED_DRIVERS: tuple[str, ...] = (
    "D",
    "d",
    "M_t",
    "M_sel",
    "M_d",
    "S_d",
    "R_d",
    "M_d_log_M_d",
    "S_d_log_S_d",
    "M_sel_log_M_sel",
)

DRIVER_UNITS: dict[str, str] = {
    "D": "MB",
    "d": "MB",
    "M_t": "tasks",
    "M_sel": "%",
    "M_d": "MB",
    "S_d": "MB",
    "R_d": "MB",
    "M_d_log_M_d": "MB*ln(MB)",
    "S_d_log_S_d": "MB*ln(MB)",
    "M_sel_log_M_sel": "%*ln(%)",
}


_X_LOG_X: dict[str, str] = {
    "M_d_log_M_d": "M_d",
    "S_d_log_S_d": "S_d",
    "M_sel_log_M_sel": "M_sel",
}


def _x_log_x(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    safe = np.where(x > 0, x, 1.0)
    return np.where(x > 0, x * np.log(safe), 0.0)


def _override(base: Mapping[str, object], name: str, fallback: np.ndarray) -> np.ndarray:
    """A measured value where it is given (not NaN), the paper's derivation elsewhere."""
    given = base.get(name)
    if given is None:
        return fallback
    given = np.asarray(given, dtype=float)
    return np.where(np.isnan(given), fallback, given)


def compute_drivers(base: Mapping[str, object], names: tuple[str, ...] | list[str]) -> dict:
    """Evaluate the drivers ``names`` from the base quantities (see the module docstring).

    Args:
        base: ``D``, ``M_t``, ``M_sel``, ``R_t``, ``R_sel`` (arrays of one length, or scalars),
            optionally the measured ``d``, ``M_d``, ``S_d``, ``R_d`` (NaN = not measured) and any
            extra columns.
        names: the drivers wanted.

    Returns:
        ``{name: ndarray of float}`` in the order of ``names``.

    Raises:
        KeyError: a name is neither a derived driver nor an extra column of ``base``.
    """
    values: dict[str, np.ndarray] = {}

    def get(name: str) -> np.ndarray:
        if name in values:
            return values[name]
        if name in ("D", "M_t", "M_sel", "R_t", "R_sel"):
            out = np.asarray(base[name], dtype=float)
        elif name == "d":
            m_t = get("M_t")
            out = _override(base, "d", get("D") / np.where(m_t > 0, m_t, np.nan))
        elif name == "M_d":
            out = _override(base, "M_d", get("d") * get("M_sel") / 100.0)
        elif name == "S_d":
            r_t = get("R_t")
            per_reducer = get("d") * get("M_sel") / 100.0 * get("M_t") / np.where(r_t > 0, r_t, 1)
            out = _override(base, "S_d", np.where(r_t > 0, per_reducer, 0.0))
        elif name == "R_d":
            out = _override(base, "R_d", get("S_d") * get("R_sel") / 100.0)
        elif name in _X_LOG_X:
            out = _x_log_x(get(_X_LOG_X[name]))
        elif name in base:
            out = np.asarray(base[name], dtype=float)
        else:
            raise KeyError(name)
        values[name] = out
        return out

    return {name: get(name) for name in names}


def is_known_driver(name: str, extra_columns: tuple[str, ...] | list[str] = ()) -> bool:
    """Whether ``compute_drivers`` can evaluate ``name`` for data with these extra columns."""
    return name in DERIVED_DRIVERS or name in extra_columns
