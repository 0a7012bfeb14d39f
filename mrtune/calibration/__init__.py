"""Calibration: fitting cost factors to observed times (one job's tasks, or a machine benchmark).

:func:`build_profile` and :func:`load_profile_source` are the complete history → profile path;
:mod:`~mrtune.calibration.cost_factors` fits one job's factors, :mod:`~mrtune.calibration.machine`
a machine's, :mod:`~mrtune.calibration.run_profile` profiles a local run of the harness, and
:mod:`~mrtune.calibration.fidelity` scores the model against real runs (``mrtune validate``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mrtune.calibration.profiles import build_profile, load_profile_source


def __getattr__(name: str) -> Any:
    """PEP 562: the fit (and ``scipy.optimize`` under it, ~0.5 s) loads on first use, so a
    command that only reads one of this package's small modules (``segments``) skips it."""
    if name in ("build_profile", "load_profile_source"):
        from mrtune.calibration import profiles

        return getattr(profiles, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["build_profile", "load_profile_source"]
