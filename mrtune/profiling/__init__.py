"""Profiling: a history's counters and task times → dataflow statistics (one builder).

:func:`~mrtune.profiling.build.build_statistics` is the counters-to-statistics step for
``.jhist``, REST and Rumen histories (dataflow statistics in :mod:`~mrtune.profiling.dataflow`,
the cluster the job ran on in :mod:`~mrtune.profiling.cluster_facts`); :func:`~mrtune.profiling.build.profile_config` recovers
the configuration a profile ran with. Cost factors are fitted afterwards, by
:mod:`mrtune.calibration`.
"""

from __future__ import annotations

from mrtune.profiling.build import build_statistics, profile_config

__all__ = ["build_statistics", "profile_config"]
