"""Profiling: a history's counters and task times → dataflow statistics (one builder).

:func:`~mrtune.profiling.build.build_statistics` is the counters-to-statistics step for
``.jhist``, REST and Rumen histories; :func:`~mrtune.profiling.build.profile_config` recovers
the configuration a profile ran with. Cost factors are fitted afterwards, by
:mod:`mrtune.calibration`.
"""

from __future__ import annotations

from mrtune.profiling.build import build_statistics, profile_config

__all__ = ["build_statistics", "profile_config"]
