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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile
from mrtune.costmodel.job import evaluate
from mrtune.costmodel.stacked import StackedProfiles

#: Samples of the evidence (bootstrap × prior) and bootstrap refits per interval: 64 samples
#: put the p10/p90 on ~6 samples each side; a refit re-solves the least squares on rows
#: computed once (:func:`mrtune.calibration.resample.refit_resamples`, ~2 ms), so every sample
#: gets its own resample.
SAMPLES = 64
RESAMPLES = 64
#: The reported interval: the 10th to 90th percentile of the samples (an 80% interval).
LEVEL = (10.0, 90.0)


@dataclass(frozen=True)
class Prior:
    """The range a defaulted factor is sampled across. ``relative``: ``low``/``high`` multiply
    the factor's value, sampled log-uniformly (the factors are rates whose error is a ratio);
    otherwise they are the absolute bounds, sampled uniformly (factors whose default is 0)."""

    low: float
    high: float
    relative: bool
    why: str


_USER = Prior(
    0.1,
    10.0,
    True,
    "the job's own code: per-record costs of user functions span orders of magnitude "
    "(an identity map vs. parsing JSON); the reference's TeraSort profile has map_cpu 12,568 ns "
    "against the 500 ns default",
)
_FRAMEWORK = Prior(
    0.25,
    4.0,
    True,
    "framework per-record work (partitioner, serialisation, sort comparisons, merge): JIT-"
    "compiled Hadoop code whose cost varies with CPU generation and record layout; Starfish's "
    "instrumented TeraSort profile sits at 5-25x the defaults, uninstrumented runs here near 1x",
)
_IO = Prior(
    0.25,
    4.0,
    True,
    "per-byte I/O: an SSD vs. a spindle shared by several containers, 10 GbE vs. 1 GbE "
    "(one order of magnitude across clusters, centred on the defaults)",
)
_EVENT = Prior(
    0.25,
    4.0,
    True,
    "fixed cost per spill file, merge segment or shuffle fetch: a disk seek, 0.1 ms on SSD to "
    "~8 ms on a loaded HDD, amortised by read-ahead",
)
#: Prior range per CostFactors field (fields absent here are never sampled: setup_ms and
#: cleanup_ms are folded into task_overhead_ms, reduce_includes_final_merge is a flag).
PRIORS: dict[str, Prior] = {
    "map_cpu": _USER,
    "reduce_cpu": _USER,
    "combine_cpu": _USER,
    "partition_cpu": _FRAMEWORK,
    "serde_cpu": _FRAMEWORK,
    "sort_cpu": _FRAMEWORK,
    "merge_cpu": _FRAMEWORK,
    "input_uncompress": _FRAMEWORK,
    "hdfs_read": _IO,
    "hdfs_write": _IO,
    "local_read": _IO,
    "local_write": _IO,
    "network": _IO,
    "spill_file_ns": _EVENT,
    "segment_seek_ns": _EVENT,
    "fetch_ns": _EVENT,
    "task_overhead_ms": Prior(
        0.5, 2.0, True, "YARN container launch + JVM start + commit: ~0.5-2 s on most clusters"
    ),
    "sort_cache_bytes": Prior(
        0.5, 2.0, True, "the sort's cache knee: last-level caches of 8-64 MiB around the 16 MiB"
    ),
    "spill_contention": Prior(
        0.0,
        1.0,
        False,
        "share of the spill/map overlap lost to the shared CPU: 0 (a free core) to 1 (serial)",
    ),
    "sort_cache_slowdown": Prior(
        0.0, 0.3, False, "extra comparison cost per doubling above the cache knee: 0-30%"
    ),
}


#: A factor a machine benchmark measured (``mrtune calibrate-machine``, provenance "machine
#: benchmark …") but this job's history did not: the machine's rate, not this job's, so it
#: stays "defaulted" for the confidence rules, sampled in a narrower range than a guess.
MACHINE_PRIOR = Prior(
    2 / 3,
    1.5,
    True,
    "measured on this machine by a benchmark, not on this job: a machine's rate holds within "
    "about ±50% across jobs (record layout, caches, concurrent containers)",
)


def prior_of(profile: JobProfile, factor: str) -> Prior:
    """The range ``factor`` is sampled across (:data:`PRIORS`, or :data:`MACHINE_PRIOR`)."""
    if "machine benchmark" in profile.provenance_of(f"costs.{factor}"):
        return MACHINE_PRIOR if PRIORS[factor].relative else PRIORS[factor]
    return PRIORS[factor]


def is_measured(profile: JobProfile, factor: str) -> bool:
    """Whether the profile's provenance says ``factor`` was measured from this job's history."""
    return profile.provenance_of(f"costs.{factor}").startswith("measured")


def defaulted_factors(profile: JobProfile) -> list[str]:
    """The sampled factors (:data:`PRIORS`) that the profile did not measure."""
    return [f for f in PRIORS if not is_measured(profile, f)]


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

    @property
    def method(self) -> str:
        boot = (
            f"{self.n_refits} bootstrap refits of the {self.n_observed} observed attempts"
            if self.n_refits
            else "no bootstrap (no observed attempts to resample)"
        )
        return (
            f"{len(self.samples)} samples: {boot}, jointly with a Latin hypercube over the prior "
            f"ranges of {len(self.defaulted)} defaulted cost factors; "
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
            "seed": self.seed,
            "notes": self.notes,
        }


def latin_hypercube(n: int, d: int, seed: int) -> np.ndarray:
    """``n`` points of a Latin hypercube in ``[0, 1)^d`` (McKay, Beckman & Conover 1979): each
    axis cut into ``n`` equal strata, one point per stratum, strata paired across axes by
    independent random permutations, each point uniform inside its cell.

    The construction of :class:`scipy.stats.qmc.LatinHypercube` (scramble on), written out
    because importing ``scipy.stats`` costs ~0.5 s of CPU, more than the whole interval
    (``mrtune optimize``'s budget); ``tests/optimizer/test_confidence.py`` checks the
    stratification."""
    rng = np.random.default_rng(seed)
    strata = np.argsort(rng.random((d, n)), axis=1).T  # (n, d): a permutation per axis
    return (strata + rng.random((n, d))) / n


def _prior_draws(
    profile: JobProfile, names: Sequence[str], n: int, seed: int
) -> dict[str, np.ndarray]:
    """Latin-hypercube draws across each prior (module doc), ``n`` per factor."""
    if not names:
        return {}
    u = latin_hypercube(n, len(names), seed)
    out = {}
    for j, name in enumerate(names):
        p = prior_of(profile, name)
        if p.relative:
            out[name] = np.exp(np.log(p.low) + u[:, j] * (np.log(p.high) - np.log(p.low)))
        else:
            out[name] = p.low + u[:, j] * (p.high - p.low)
    return out


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
    from mrtune.calibration.resample import refit_resamples

    measured = [f for f in PRIORS if is_measured(profile, f)]
    defaulted = defaulted_factors(profile)
    notes: list[str] = []
    ratios: list[dict[str, float]] = []
    if measured and profile.observed:
        refits = refit_resamples(profile, cfg, min(resamples, samples), seed)
        if refits.full is not None and refits.samples:
            ratios = _boot_ratios(refits, measured)
    if measured and not ratios:
        notes.append(
            "measured factors are held at their values: no observed attempts to resample"
            if not profile.observed
            else "the refits of the observed attempts failed: measured factors held"
        )
    draws = _prior_draws(profile, defaulted, samples, seed) if priors else {}
    base = profile.costs.model_dump()
    out = []
    for i in range(samples):
        vals = dict(base)
        for f, r in (ratios[i % len(ratios)] if ratios else {}).items():
            vals[f] = base[f] * r
        for f, d in draws.items():
            p = PRIORS[f]
            vals[f] = base[f] * d[i] if p.relative else d[i]
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
    out = {
        "current_ms": interval_of(s[:, 0], float(p[0])),
        "recommended_ms": interval_of(s[:, 1], float(p[1])),
        "speedup": ratio_interval(s[:, 0], s[:, 1], float(p[0]), float(p[1])),
    }
    if full is not None and full != recommended:
        out["speedup_with_withheld"] = ratio_interval(s[:, 0], s[:, 2], float(p[0]), float(p[2]))
    return out
