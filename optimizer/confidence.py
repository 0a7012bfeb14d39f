"""An interval for every prediction, built from the evidence behind the cost factors.

A prediction is only as good as the cost factors it multiplies. Two things are uncertain:

* **measured** factors were fitted on the profile's observed task attempts; had other attempts
  been recorded the fit would differ. That spread is estimated by the bootstrap: the attempts are
  drawn again with replacement and the factors refitted on each draw
  (:func:`mrtune.calibration.resample.refit_resamples`);
* **defaulted** factors (the profile's provenance says ``defaulted``: the history could not
  identify them) are guesses. Each gets a documented prior range (:data:`PRIORS`) and is sampled
  across it.

Both are sampled *jointly*: sample ``i`` takes bootstrap refit ``i mod B`` for the measured
factors and row ``i`` of a Latin hypercube (:func:`latin_hypercube`, McKay et al. 1979: every
prior range is covered evenly with few samples) for the defaulted
ones. A bootstrap refit is applied as its ratio to the refit on all attempts, times the
profile's own factor, so the samples centre on the profile's estimate even when the profile
was fitted differently (e.g. on a machine benchmark's priors).

Every sample is one profile; samples × configurations are evaluated in ONE call of the
vectorised model (:class:`~mrtune.costmodel.stacked.StackedProfiles`), and the ratio of two
configurations is taken per sample (:func:`ratio_interval`): the factors that move both times
together cancel, so a speedup's interval is much tighter than two independent time intervals.

That is the model's uncertainty only. A speedup is checked by measuring it, and a measured
time has run-to-run noise of its own (:mod:`mrtune.optimizer.noise`, from the history's repeats
or task dispersion): :func:`prediction_intervals` widens each interval by it (the model's own
interval stays under ``<name>_model``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile
from mrtune.costmodel.job import evaluate
from mrtune.costmodel.stacked import StackedProfiles
from mrtune.optimizer.model_miss import miss_band
from mrtune.optimizer.noise import RunNoise, Z, run_noise, widen
from mrtune.optimizer.priors import (
    PRIORS,
    _prior_draws,
    defaulted_factors,
    measured_factors,
    prior_of,
    shape_spans,
    span_draws,
)

#: Samples of the evidence (bootstrap × prior) and bootstrap refits per interval: 64 samples
#: put the p10/p90 on ~6 samples each side; a refit re-solves the least squares on rows
#: computed once (:func:`mrtune.calibration.resample.refit_resamples`, ~2 ms), so every sample
#: gets its own resample.
SAMPLES = 64
RESAMPLES = 64  # = mrtune.calibration.resample.BOOTSTRAP_RESAMPLES, the refits a profile keeps
#: The reported interval: the 10th to 90th percentile of the samples (an 80% interval).
LEVEL = (10.0, 90.0)


@dataclass(frozen=True)
class Interval:
    """The ``LEVEL`` percentiles of a sampled quantity and its point (profile) value."""

    low: float
    median: float
    high: float
    point: float

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high

    def to_json(self) -> dict[str, float]:
        return {"low": self.low, "median": self.median, "high": self.high, "point": self.point}


def interval_of(draws: np.ndarray, point: float) -> Interval:
    """p10/p50/p90 of ``draws``, widened to include ``point`` when the samples all fall on one
    side of it (the model is not linear in the factors: waves, merge passes and the spill
    overlap have kinks, so the point need not lie between the percentiles)."""
    d = np.asarray(draws, dtype=float)
    d = d[np.isfinite(d)]
    if d.size == 0:
        return Interval(point, point, point, point)
    lo, mid, hi = np.percentile(d, [LEVEL[0], 50.0, LEVEL[1]])
    return Interval(min(float(lo), point), float(mid), max(float(hi), point), point)


def intervals_of_rows(draws: np.ndarray, points: np.ndarray) -> list[Interval]:
    """:func:`interval_of` of each row of ``draws`` (shape ``(n, samples)``) with its point:
    the percentiles of all-finite rows in one call along the axis (the same values), the
    others row by row."""
    d = np.asarray(draws, dtype=float)
    finite = np.isfinite(d).all(axis=1)
    pct = np.full((3, d.shape[0]), np.nan)
    if finite.any():
        pct[:, finite] = np.percentile(d[finite], [LEVEL[0], 50.0, LEVEL[1]], axis=1)
    out = []
    for i, point in enumerate(map(float, points)):
        if not finite[i]:
            out.append(interval_of(d[i], point))
            continue
        lo, mid, hi = (float(x) for x in pct[:, i])
        out.append(Interval(min(lo, point), mid, max(hi, point), point))
    return out


@dataclass
class Evidence:
    """The sampled profiles of one job (module doc) and how they were drawn."""

    point: JobProfile
    samples: list[JobProfile]
    measured: list[str]
    defaulted: list[str]
    n_observed: int
    n_refits: int
    seed: int
    notes: list[str] = field(default_factory=list)
    #: grid-measured shape factors sampled across the span their evidence leaves
    #: (:func:`mrtune.optimizer.priors.shape_spans`)
    spans: dict[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def method(self) -> str:
        boot = (
            f"{self.n_refits} bootstrap refits of the {self.n_observed} observed attempts"
            if self.n_refits
            else "no bootstrap (no observed attempts to resample)"
        )
        spans = (
            f" and across the spans of {len(self.spans)} grid-measured shape factors "
            "(this history's pick to the machine's or the prior's value)"
            if self.spans
            else ""
        )
        return (
            f"{len(self.samples)} samples: {boot}, jointly with a Latin hypercube over the prior "
            f"ranges of {len(self.defaulted)} defaulted cost factors{spans}; "
            f"{LEVEL[0]:.0f}th-{LEVEL[1]:.0f}th percentile"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "samples": len(self.samples),
            "bootstrap_refits": self.n_refits,
            "observed_attempts": self.n_observed,
            "measured_factors": self.measured,
            "defaulted_factors": self.defaulted,
            "priors": {
                f: {"low": p.low, "high": p.high, "relative": p.relative}
                for f, p in ((f, prior_of(self.point, f)) for f in self.defaulted)
            },
            "shape_spans": {f: {"low": lo, "high": hi} for f, (lo, hi) in self.spans.items()},
            "seed": self.seed,
            "notes": self.notes,
            "run_noise": run_noise(self.point).to_json(),
        }


def _boot_ratios(refits: Any, measured: Sequence[str]) -> list[dict[str, float]]:
    """Per refit, each measured factor's ratio to the refit on all attempts (1 where the full
    refit is 0: a factor the fit pinned at zero has no spread to transfer)."""
    full = refits.full.costs
    out = []
    for q in refits.samples:
        r = {}
        for f in measured:
            a, b = float(getattr(full, f)), float(getattr(q.costs, f))
            r[f] = b / a if a > 0 else 1.0
        out.append(r)
    return out


def _kept_ratios(
    profile: JobProfile, measured: Sequence[str], resamples: int, seed: int
) -> list[dict[str, float]] | None:
    """The ratios of the refits the profile keeps (``profile.bootstrap``, computed when it was
    calibrated), when they are the ones asked for (same seed and number of resamples); else
    ``None``. They equal what :func:`_boot_ratios` computes (``test_confidence``), without the
    refit or ``scipy.optimize`` at every command's start."""
    kept = profile.bootstrap
    if kept is None or kept.seed != seed or kept.requested != resamples or kept.count == 0:
        return None
    ones = [1.0] * kept.count
    cols = {f: kept.ratios.get(f, ones) for f in measured}
    return [{f: cols[f][i] for f in measured} for i in range(kept.count)]


def _measured_ratios(
    profile: JobProfile, cfg: HadoopConfig, measured: Sequence[str], resamples: int, seed: int
) -> list[dict[str, float]]:
    """Per bootstrap refit, each measured factor's ratio (kept with the profile, or refitted)."""
    kept = _kept_ratios(profile, measured, resamples, seed)
    if kept is not None:
        return kept
    from mrtune.calibration.resample import refit_resamples

    refits = refit_resamples(profile, cfg, resamples, seed)
    if refits.full is None or not refits.samples:
        return []
    return _boot_ratios(refits, measured)


def gather_evidence(
    profile: JobProfile,
    cfg: HadoopConfig,
    *,
    samples: int = SAMPLES,
    resamples: int = RESAMPLES,
    seed: int = 0,
    priors: bool = True,
) -> Evidence:
    """Draw ``samples`` profiles from the evidence (module doc). ``cfg``: the configuration the
    observed attempts ran with (what the refit needs). ``priors=False`` holds the defaulted
    factors at their values: the spread of the measured ones alone (the bootstrap)."""
    measured = measured_factors(profile)
    defaulted = defaulted_factors(profile)
    notes: list[str] = []
    ratios: list[dict[str, float]] = []
    if measured and profile.observed:
        ratios = _measured_ratios(profile, cfg, measured, min(resamples, samples), seed)
    if measured and not ratios:
        notes.append(
            "measured factors are held at their values: no observed attempts to resample"
            if not profile.observed
            else "the refits of the observed attempts failed: measured factors held"
        )
    draws = _prior_draws(profile, defaulted, samples, seed) if priors else {}
    spans = shape_spans(profile) if priors else {}
    spread = span_draws(spans, samples, seed + 1)
    base = profile.costs.model_dump()
    out = []
    for i in range(samples):
        vals = dict(base)
        for f, r in (ratios[i % len(ratios)] if ratios else {}).items():
            vals[f] = base[f] * r
        for f, d in draws.items():
            p = PRIORS[f]
            vals[f] = base[f] * d[i] if p.relative else d[i]
        for f, d in spread.items():
            vals[f] = float(d[i])
        # a reduce-side override (CostFactors.reduce_side) moves with its factor: the
        # evidence is on the factor's level, the two profiles measured the sides' ratio
        changed = {f: v for f, v in vals.items() if v != base[f]}
        out.append(profile.model_copy(update={"costs": profile.costs.with_factors(changed)}))
    return Evidence(
        point=profile,
        samples=out,
        measured=measured,
        defaulted=defaulted if priors else [],
        n_observed=len(profile.observed),
        n_refits=len({id(r) for r in ratios}),
        seed=seed,
        notes=notes,
        spans=spans,
    )


def evaluate_profiles(
    profiles: Sequence[JobProfile],
    configs: Sequence[HadoopConfig] | ConfigBatch,
    cluster: ClusterSpec,
) -> tuple[np.ndarray, np.ndarray]:
    """``(job_ms, container_gb_s)`` of every profile × configuration, shape ``(P, C)``, in one
    call of the vectorised model (:class:`StackedProfiles`)."""
    batch = configs if isinstance(configs, ConfigBatch) else ConfigBatch.from_configs(configs)
    n_p, n_c = len(profiles), len(batch)
    if any(p.map_classes for p in profiles):  # each class its own map tasks: not stackable
        pairs = [evaluate(p, batch, cluster) for p in profiles]
        return np.stack([j for j, _ in pairs]), np.stack([g for _, g in pairs])
    stacked = StackedProfiles.of(list(profiles), np.repeat(np.arange(n_p), n_c))
    job_ms, gb_s = evaluate(stacked, ConfigBatch.concat([batch] * n_p), cluster)
    return job_ms.reshape(n_p, n_c), gb_s.reshape(n_p, n_c)


def sample_times(
    evidence: Evidence, configs: Sequence[HadoopConfig] | ConfigBatch, cluster: ClusterSpec
) -> tuple[np.ndarray, np.ndarray]:
    """Job ms per sample × configuration, shape ``(S, C)``, and the point values, ``(C,)``:
    one model call for both (the point profile is stacked as the last row)."""
    job_ms, _ = evaluate_profiles([*evidence.samples, evidence.point], configs, cluster)
    return job_ms[:-1], job_ms[-1]


def ratio_interval(
    num: np.ndarray, den: np.ndarray, point_num: float, point_den: float
) -> Interval:
    """The interval of ``num / den`` taken per sample (module doc)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.asarray(num) / np.asarray(den)
    return interval_of(r, point_num / point_den if point_den > 0 else float("inf"))


def prediction_intervals(
    evidence: Evidence,
    cluster: ClusterSpec,
    current: HadoopConfig,
    recommended: HadoopConfig,
    full: HadoopConfig | None = None,
) -> dict[str, Interval]:
    """Job time intervals of ``current`` and ``recommended`` and of their ratio per sample
    (``speedup`` = current / recommended); with ``full`` (the recommendation before its
    low-confidence changes were withheld) also ``speedup_with_withheld``. One model call."""
    cfgs = [current, recommended] + ([full] if full is not None else [])
    s, p = sample_times(evidence, cfgs, cluster)
    speedup = ratio_interval(s[:, 0], s[:, 1], float(p[0]), float(p[1]))
    out = {
        "current_ms": interval_of(s[:, 0], float(p[0])),
        "recommended_ms": interval_of(s[:, 1], float(p[1])),
        "speedup": speedup,
    }
    if full is not None and full != recommended:
        out["speedup_with_withheld"] = ratio_interval(s[:, 0], s[:, 2], float(p[0]), float(p[2]))
    return with_run_noise(out, run_noise(evidence.point), miss_band(evidence.point))


def with_run_noise(
    intervals: dict[str, Interval], noise: RunNoise, miss: float = 0.0
) -> dict[str, Interval]:
    """The intervals a measurement is checked against (:mod:`mrtune.optimizer.noise`): job
    times widened by one run's noise, speedups by the noise of a speedup measured from
    :data:`~mrtune.optimizer.noise.PAIRS` interleaved pairs, both also by ``miss``, the band of
    a failed calibration's material miss (:mod:`mrtune.optimizer.model_miss`); the model's
    own intervals stay under ``<name>_model``."""
    out: dict[str, Interval] = {}
    for name, iv in intervals.items():
        band = noise.band() if name.startswith("speedup") else Z * noise.sigma
        out[name] = widen(iv, math.hypot(band, miss))
        out[f"{name}_model"] = iv
    return out
