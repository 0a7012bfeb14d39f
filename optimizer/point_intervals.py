"""Job-time intervals of many configurations of one job, for the commands that list predicted
points (``mrtune sweep``): every prediction says how sure it is.

Each configuration's interval is the profile's evidence (:func:`~mrtune.optimizer.confidence.
gather_evidence`: bootstrap refits of the observed attempts, the defaulted factors over their
prior ranges) evaluated in one stacked model call, then widened like ``whatif``'s job time by
one run's noise and a failed calibration's material miss (:func:`~mrtune.optimizer.
confidence.with_run_noise`).
"""

from __future__ import annotations

import math

from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile
from mrtune.optimizer.confidence import (
    SAMPLES,
    Interval,
    gather_evidence,
    interval_of,
    sample_times,
)
from mrtune.optimizer.model_miss import miss_band
from mrtune.optimizer.noise import Z, run_noise, widen


def point_intervals(
    profile: JobProfile,
    cfg: HadoopConfig,
    batch: ConfigBatch,
    cluster: ClusterSpec,
    *,
    samples: int = SAMPLES,
    seed: int = 0,
) -> tuple[list[Interval], str]:
    """``(one job-time interval per row of batch, how they were made)``; ``cfg`` is the
    configuration the observed attempts ran with (what the refits need)."""
    evidence = gather_evidence(profile, cfg, samples=samples, seed=seed)
    draws, points = sample_times(evidence, batch, cluster)
    noise, miss = run_noise(profile), miss_band(profile)
    band = math.hypot(Z * noise.sigma, miss)
    out = [widen(interval_of(draws[:, i], float(points[i])), band) for i in range(len(points))]
    how = f"{evidence.method}; widened by one run's noise ({noise.sigma:.1%}, {noise.source})"
    if miss > 0:
        how += f" and the failed calibration's miss (±{miss:.0%})"
    return out, how


__all__ = ["point_intervals"]
