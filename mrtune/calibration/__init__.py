"""Calibration: fitting cost factors to observed times (one job's tasks, or a machine benchmark).

:func:`build_profile` and :func:`load_profile_source` are the complete history → profile path;
:mod:`~mrtune.calibration.cost_factors` fits one job's factors, :mod:`~mrtune.calibration.machine`
a machine's, :mod:`~mrtune.calibration.run_profile` profiles a local run of the harness, and
:mod:`~mrtune.calibration.fidelity` scores the model against real runs (``mrtune validate``).
"""

from __future__ import annotations

from mrtune.calibration.profiles import build_profile, load_profile_source

__all__ = ["build_profile", "load_profile_source"]
