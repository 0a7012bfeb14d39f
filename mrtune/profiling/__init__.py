"""Profiling: a history's counters and task times → dataflow statistics (one builder).

:func:`~mrtune.profiling.build.build_statistics` is the counters-to-statistics step for
``.jhist``, REST and Rumen histories (dataflow statistics in :mod:`~mrtune.profiling.dataflow`,
the cluster the job ran on in :mod:`~mrtune.profiling.cluster_facts`); :func:`~mrtune.profiling.build.profile_config` recovers
the configuration a profile ran with. Cost factors are fitted afterwards, by
:mod:`mrtune.calibration`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtune.profiling.baseline import profile_config

if TYPE_CHECKING:
    from mrtune.profiling.build import build_statistics


def __getattr__(name: str) -> Any:
    """PEP 562: the statistics builder (and the readers it needs) loads on first use, so a
    saved profile's baseline (:func:`profile_config`) costs neither (issue 13)."""
    if name == "build_statistics":
        from mrtune.profiling.build import build_statistics

        return build_statistics
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["build_statistics", "profile_config"]
