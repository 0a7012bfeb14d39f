"""Run-to-run noise of a job's time, and the band it puts around a measured speedup (issue 14).

The intervals of :mod:`mrtune.optimizer.confidence` are the model's parametric uncertainty:
what the cost factors could be, given the evidence. A speedup is checked by *measuring* it,
and a measurement has its own noise: the same job at the same settings does not take the
same time twice (real-hadoop.md: back-to-back repeats vary 0.5-5%, batches ±10%; this
project's matrix: a median (max - min) / median of 5.3% over 3 repeats). A predicted gain
smaller than that noise is not a finding: no measurement a user can afford would tell it
from no change.

What the history says about the noise, best evidence first (:func:`run_noise`):

1. **repeats** of the profiled configuration (``cluster_facts["repeat_job_time_cv"]`` with
   ``cluster_facts["repeat_runs"]`` ≥ :data:`MIN_REPEATS`): the sample standard deviation of
   the log job times, the direct measure;
2. **task dispersion** within the run: like attempts (one kind, inputs within
   :data:`LIKE_INPUT` of the median, the cold first attempt of a shared JVM left out) vary
   by ``s`` (log standard deviation); tasks that vary independently make the job vary by
   ``s · sqrt(Σ t²) / Σ t``. That is a lower bound: drift of the host moves every task
   together and does not average out, so
3. the noise is never taken below :data:`NOISE_FLOOR`, the spread of back-to-back repeats
   recorded on a quiet host, unless repeats measured it.

A speedup measured from ``p`` interleaved pairs as the median of the per-pair ratios has a
log standard deviation of ``sqrt(2) · σ · sqrt(π / 2) / sqrt(p)`` (the ratio of two runs, and
the median's efficiency against the mean for normal errors, ``sqrt(π/2)``; Kenney & Keeping,
*Mathematics of Statistics*, §13.13). :func:`widen` adds that band to a model interval in
quadrature on the log scale, each side apart (the two errors are independent).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np

from mrtune.costmodel import JobProfile


class _Interval(Protocol):
    """What :func:`widen` needs of :class:`mrtune.optimizer.confidence.Interval` (that module
    imports this one)."""

    low: float
    median: float
    high: float
    point: float


IV = TypeVar("IV", bound=_Interval)

#: The relative standard deviation of one run's job time when repeats did not measure it:
#: the matrix's median repeat range (5.3% over 3 repeats, benchmarks/fidelity_report.py) is
#: ~1.69 σ for three normal draws, so σ ≈ 3%.
NOISE_FLOOR = 0.03
#: Repeats needed before their spread replaces the floor (a standard deviation from two
#: runs has one degree of freedom: it is as likely to be half the truth as twice it).
MIN_REPEATS = 3
#: Like attempts for the task dispersion: input within ±25% of their kind's median input.
LIKE_INPUT = 0.25
#: Like attempts needed per kind for their dispersion to count.
MIN_LIKE = 3
#: Interleaved pairs a speedup is measured with (the harness's recommendation runs, issue 14).
PAIRS = 5
#: Quantile of the standard normal at the upper percentile of
#: :data:`mrtune.optimizer.confidence.LEVEL` (the 90th: the intervals are 80% intervals; this
#: module is imported by that one, so the tie is checked by a test, not an import).
Z = 1.2815515655446004
_MEDIAN_EFFICIENCY = math.sqrt(math.pi / 2.0)


@dataclass(frozen=True)
class RunNoise:
    """The relative standard deviation (log scale) of one run's job time, and its source."""

    sigma: float
    source: str

    def speedup_sigma(self, pairs: int = PAIRS) -> float:
        """Log standard deviation of a speedup measured as the median of ``pairs`` ratios."""
        return math.sqrt(2.0) * self.sigma * _MEDIAN_EFFICIENCY / math.sqrt(max(pairs, 1))

    def band(self, pairs: int = PAIRS) -> float:
        """Half-width (log scale) of the measured speedup's interval at :data:`LEVEL`."""
        return Z * self.speedup_sigma(pairs)

    def to_json(self, pairs: int = PAIRS) -> dict[str, Any]:
        return {
            "run_sigma": self.sigma,
            "source": self.source,
            "pairs": pairs,
            "speedup_band": math.expm1(self.band(pairs)),
        }


def _log_sd(times: list[float]) -> float | None:
    t = np.log(np.asarray([x for x in times if x > 0], dtype=float))
    return float(np.std(t, ddof=1)) if t.size >= 2 else None


def task_dispersion(profile: JobProfile) -> tuple[float, int] | None:
    """``(job-level relative sd, like attempts used)`` from the spread of like attempts (module
    doc, 2), or ``None`` when no kind has :data:`MIN_LIKE` of them."""
    from mrtune.calibration.segments import cold_attempt
    from mrtune.profiling.dataflow import stored_input_bytes

    var, used = [], 0
    totals = [t.phases_ms.get("total", 0.0) for t in profile.observed]
    for kind in ("map", "reduce"):
        tasks = [t for t in profile.observed if t.kind == kind]
        cold = cold_attempt(profile, tasks)
        tasks = [t for i, t in enumerate(tasks) if i != cold]
        size = [
            stored_input_bytes(t.counters)
            if kind == "map"
            else t.counters.get("REDUCE_SHUFFLE_BYTES", 0.0)
            for t in tasks
        ]
        med = float(np.median(size)) if size else 0.0
        like = [
            t.phases_ms.get("total", 0.0)
            for t, s in zip(tasks, size, strict=True)
            if med <= 0 or abs((s or 0.0) - med) <= LIKE_INPUT * med
        ]
        sd = _log_sd(like) if len(like) >= MIN_LIKE else None
        if sd is not None:
            var.append(sd**2)
            used += len(like)
    total = sum(totals)
    if not var or total <= 0:
        return None
    s = math.sqrt(float(np.mean(var)))
    return s * math.sqrt(sum(x * x for x in totals)) / total, used


def run_noise(profile: JobProfile) -> RunNoise:
    """The noise of one run of this job, from the best evidence its history has (module doc)."""
    facts = profile.cluster_facts
    runs = facts.get("repeat_runs")
    cv = facts.get("repeat_job_time_cv")
    if isinstance(runs, int | float) and isinstance(cv, int | float) and runs >= MIN_REPEATS:
        return RunNoise(float(cv), f"measured: spread of {int(runs)} repeats of the job")
    disp = task_dispersion(profile)
    floor = f"the floor for repeats on a quiet host ({NOISE_FLOOR:.0%}, {__name__})"
    if disp is None:
        return RunNoise(NOISE_FLOOR, f"defaulted: no repeats, too few like tasks; {floor}")
    s, n = disp
    if s >= NOISE_FLOOR:
        return RunNoise(s, f"measured: dispersion of {n} like task attempts within the run")
    return RunNoise(
        NOISE_FLOOR,
        f"defaulted: {n} like task attempts vary the job by {s:.1%}, below {floor}",
    )


def repeat_facts(times_ms: list[float]) -> dict[str, float]:
    """``cluster_facts`` entries for repeats of the profiled configuration (module doc, 1)."""
    sd = _log_sd(times_ms)
    if sd is None:
        return {}
    return {"repeat_runs": float(len(times_ms)), "repeat_job_time_cv": sd}


def widen(iv: IV, band: float) -> IV:
    """``iv`` with a measurement band (log half-width) added in quadrature, each side apart
    (module doc); the point and median stay."""
    if band <= 0 or not (iv.low > 0 and iv.high > 0 and iv.point > 0):
        return iv
    centre = math.log(iv.point)
    lo = math.hypot(centre - math.log(iv.low), band)
    hi = math.hypot(math.log(iv.high) - centre, band)
    return type(iv)(math.exp(centre - lo), iv.median, math.exp(centre + hi), iv.point)  # type: ignore[call-arg]


def within_noise(iv: _Interval, band: float) -> bool:
    """Whether a gain interval widened by the band reaches no gain (``low ≤ 1``)."""
    return widen(iv, band).low <= 1.0
