"""How far a failed calibration's model may be from the job, as a band on its predictions.

A profile whose calibrated model misses the job's own observed times (the segment check,
:mod:`mrtune.calibration.check`) says so in every command. What that means for a prediction
is proportionate to the miss: a model that misses a 58 ms reduce segment by 290 ms cannot
overturn a split change predicted to save 40% of the job, while a model that misses a third of
the reduce task can explain any gain the reduce side shows.

The miss's size is :func:`miss_share`: the largest miss of a failed segment as a share of its
task's observed time. A miss within the job's own run-to-run noise
(:func:`mrtune.optimizer.noise.run_noise`) moves no prediction by more than the job moves from
one run to the next, and is immaterial (band 0). A larger one is a band of ``log(1 + share)``
on the log scale (:func:`miss_band`), taken on every prediction of the profile: a segment the
model does not reproduce may be absent from one configuration's time and present in the
other's, so a ratio of two job times can be off by at most that share of the task, and a task
is at most the whole job. The band is added to the run-to-run band in quadrature
(:func:`mrtune.optimizer.noise.widen`; the model's error and the measurement's are
independent), so a change is withheld for a failed calibration exactly when its gain could be
the miss (:mod:`mrtune.optimizer.trust`).

Issue 21's YARN rounds (2 December): sort's 290 ms miss on a 58 ms reduce segment was about 3%
of its reduce task against 11.5% noise (immaterial); WordCount's and postings' reduce-side
misses were 9% and 6% of the reduce task against 6.3% and 4.3% noise, which withheld split
changes predicted at ×1.54 and ×1.52 although no 9% miss of one reduce could explain them.
"""

from __future__ import annotations

import math

import numpy as np

from mrtune.costmodel import JobProfile
from mrtune.optimizer.noise import run_noise


def miss_share(profile: JobProfile) -> float:
    """The largest miss of a failed segment as a share of its task's observed mean time
    (``map.*`` of a map attempt's, ``reduce.*`` of a reduce attempt's); 1 where the task's
    time is not known, so such a miss always counts; 0 without a check."""
    check = profile.calibration
    if check is None:
        return 0.0
    totals: dict[str, float] = {}
    for kind in ("map", "reduce"):
        seg = next((s for s in check.segments if s.segment == f"{kind}.total"), None)
        times = [
            t.phases_ms.get("total", sum(t.phases_ms.values()))  # phases only: their sum
            for t in profile.observed
            if t.kind == kind
        ]
        totals[kind] = (
            seg.observed_ms if seg is not None else (float(np.mean(times)) if times else 0.0)
        )
    share = 0.0
    for s in check.segments:
        if s.ok:
            continue
        total = totals.get(s.segment.split(".", 1)[0], 0.0)
        miss = abs(s.predicted_ms - s.observed_ms)
        share = max(share, miss / total if total > 0 else 1.0)
    return share


def material_miss(profile: JobProfile) -> float:
    """:func:`miss_share` of a failed calibration when it exceeds the job's run-to-run noise,
    else 0 (module doc)."""
    if not profile.calibration_failed:
        return 0.0
    share = miss_share(profile)
    return share if share > run_noise(profile).sigma else 0.0


def miss_band(profile: JobProfile) -> float:
    """The log half-width a material miss adds to every prediction of ``profile`` (module
    doc): ``log(1 + share)``; 0 for a calibration that passed or missed immaterially."""
    return math.log1p(material_miss(profile))


def speedup_band(profile: JobProfile) -> float:
    """The log half-width a measured speedup of ``profile``'s predictions is checked against:
    the run-to-run band of a speedup measured from interleaved pairs
    (:meth:`mrtune.optimizer.noise.RunNoise.band`) and :func:`miss_band`, in quadrature."""
    return math.hypot(run_noise(profile).band(), miss_band(profile))
