"""Per recommended change: its gain with an interval, the cost factors it rests on, and whether
it is well-founded enough to be written (DESIGN decision 10).

For every change ``k`` of a recommendation ``R`` (encoded knob rows, as the search returns them):

* **gain**: ``t(R without k) / t(R)`` per evidence sample (:mod:`mrtune.optimizer.confidence`),
  the speedup that change brings where it is applied; **alone**: ``t(current) /
  t(current with k only)``. Both are ratios of the same sample, so what moves both times
  together cancels;
* **rests on**: the model's sensitivity of that gain to each cost factor: each factor is
  doubled (or, for the factors whose default is 0, set to the middle of its prior range) and the
  change of ``log(gain)`` recorded. A factor's share of the total is how much of the gain it
  carries; the factors with a share of at least :data:`REST_SHARE` are listed, measured and
  defaulted apart. All factors × configurations are one vectorised model call;
* **low confidence**, for any of (each reason is reported):

  - its gain rests mainly on defaulted factors (their share > :data:`DEFAULTED_SHARE`): the
    history could not measure what the gain is made of;
  - its gain interval reaches 1 (the low end of the interval is no gain);
  - its gain is within the run-to-run noise: the gain interval widened by the noise band of a
    speedup measured from :data:`~mrtune.optimizer.noise.PAIRS` interleaved pairs
    (:func:`mrtune.optimizer.noise.widen`) reaches 1 + :data:`MIN_GAIN`, so no such
    measurement could be expected to show the gain a change must bring (issue 14: WordCount's
    spill percent 0.99, predicted ×1.012 with a model interval of ×1.005–1.023, measured
    ×0.91);
  - the profile's calibration failed materially (:func:`calibration_miss`) and its gain could
    be that miss: the model misses the job's own observed times by a share of a task larger
    than the job's run-to-run noise, and the gain interval widened by that share
    (:func:`mrtune.optimizer.model_miss.miss_band`) and by the noise band reaches
    1 + :data:`MIN_GAIN`. A gain far larger than the miss stands, its interval widened;
  - it moves a size or count (a knob searched on a log scale: buffer and container MB, merge
    factor, reducers, split size) beyond :data:`FAR` times, or below 1/FAR of, the value the
    history ran with: the profile's rates were measured at that value, and the model's
    extrapolation across more than a factor of 4 (two doublings) is the part least checked
    against real runs (spill counts and merge passes change regime in between).

**The trust region.** A far move is not written by default, but it is no reason to write
nothing: the default recommendation is the best configuration *inside* the region the rule
trusts, every log-scale knob within ×1/FAR–×FAR of the history's value
(:func:`trust_region`: the space the search runs a second time in, so that the other knobs
are chosen for the step actually written, not for the far value), re-assessed by the same
rule (:func:`mrtune.optimizer.choose.trusted_row`). The far optimum stays on show as a
low-confidence option (:data:`REPROFILE`): applying the in-region step and profiling again
puts the history's measurements next to the far value, where the rule then trusts it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mrtune.costmodel import ClusterSpec, JobProfile
from mrtune.optimizer.confidence import Evidence, Interval, evaluate_profiles, ratio_interval
from mrtune.optimizer.model_miss import material_miss, miss_band
from mrtune.optimizer.noise import PAIRS, widen
from mrtune.optimizer.noise import run_noise as _run_noise
from mrtune.optimizer.priors import PRIORS, is_measured
from mrtune.search_spaces import SearchSpace, find_knob
from mrtune.search_spaces.knobs import CODEC_ROLES

#: The smallest gain a change must bring to be recommended (:mod:`mrtune.optimizer.recommend`
#: prunes the changes below it at the point prediction). The noise rule asks the same of the
#: low end of the gain interval widened by the measurement band: a change is written when a
#: measurement a user can afford would show at least this gain, not merely "above no gain" (on
#: 2026-12-02 WordCount's spill percent 0.5, predicted ×1.062 with a widened low end of ×1.001,
#: measured ×0.986 over 5 interleaved pairs; two rounds earlier the same change measured ×1.061).
MIN_GAIN = 0.01
REST_SHARE = 0.10
DEFAULTED_SHARE = 0.5
FAR = 4.0
#: What to do about a far optimum once the in-region step is written (module doc).
REPROFILE = (
    "re-profile after applying the in-region step, then optimize again: the new history "
    "measures the job next to the far value"
)

Row = dict[str, float]


@dataclass
class ChangeTrust:
    """What one change's gain rests on and how sure it is (module doc)."""

    gain: Interval
    alone: Interval
    measured: list[str] = field(default_factory=list)
    defaulted: list[str] = field(default_factory=list)
    defaulted_share: float = 0.0
    reasons: list[str] = field(default_factory=list)
    #: the gain interval widened by the noise band of a measured speedup (log half-width)
    noise_band: float = 0.0
    #: the change moves a size or count beyond ×FAR of its origin (one of the ``reasons``)
    far: bool = False
    #: the band a failed calibration's material miss adds (log half-width,
    #: :func:`mrtune.optimizer.model_miss.miss_band`); 0 when it passed
    miss_band: float = 0.0

    @property
    def measured_band(self) -> float:
        """The band a measurement of the gain is checked against: noise and miss in
        quadrature (:func:`mrtune.optimizer.noise.widen`)."""
        return math.hypot(self.noise_band, self.miss_band)

    @property
    def low(self) -> bool:
        return bool(self.reasons)

    def to_json(self) -> dict[str, Any]:
        return {
            "gain_ratio": self.gain.to_json(),
            "gain_ratio_measured": widen(self.gain, self.measured_band).to_json(),
            "noise_band": float(np.expm1(self.noise_band)),
            "calibration_miss_band": float(np.expm1(self.miss_band)),
            "alone_ratio": self.alone.to_json(),
            "rests_on": {"measured": self.measured, "defaulted": self.defaulted},
            "defaulted_share": self.defaulted_share,
            "confidence": "low" if self.low else "ok",
            "low_confidence_reasons": self.reasons,
        }


def _perturbed(profile: JobProfile) -> tuple[list[str], list[JobProfile]]:
    """One profile per sampled factor with that factor moved (module doc)."""
    base = profile.costs.model_dump()
    names, out = [], []
    for f, p in PRIORS.items():
        v = float(base[f])
        new = v * 2.0 if p.relative else 0.5 * (p.low + p.high)
        if new == v:
            continue
        names.append(f)
        out.append(profile.model_copy(update={"costs": profile.costs.with_factors({f: new})}))
    return names, out


def _rows_batch(space: SearchSpace, rows: list[Row]) -> Any:
    """The rows as scored: repaired first (a revert may break a Hadoop limit on its own)."""
    return space.to_batch(space.repair({k: np.array([r[k] for r in rows]) for k in rows[0]}))


def _variants(cur: Row, best: Row, changed: list[str]) -> list[Row]:
    """[current, R, R without each change…, current with each change alone…]."""
    rows = [dict(cur), dict(best)]
    rows += [{**best, k: cur[k]} for k in changed]
    rows += [{**cur, k: best[k]} for k in changed]
    return rows


#: What the far-move rule measures from when the start is the profile's own configuration.
HISTORY = "the value the history ran with"


def _far(k: str, cur: Row, best: Row, origin: str = HISTORY) -> str | None:
    knob = find_knob(k)
    if not knob.log:
        return None
    a, b = float(knob.decode(cur[k])), float(knob.decode(best[k]))
    if a <= 0 or b <= 0:
        return None
    r = b / a
    if r > FAR or r < 1 / FAR:
        return f"moves the setting ×{r:.3g} from {origin} (beyond ×{1 / FAR:g}–×{FAR:g})"
    return None


def far_span(value: float, kind: str) -> tuple[float, float]:
    """``value`` ×1/:data:`FAR`–×FAR, integers rounded inwards: the values of a size or count
    the far-move rule trusts (module doc), before a caller cuts them to its own range."""
    lo, hi = value / FAR, value * FAR
    if kind == "int":
        return float(math.ceil(lo)), float(math.floor(hi))
    return lo, hi


def trust_region(space: SearchSpace, cur: Row) -> SearchSpace:
    """``space`` with every log-scale knob searched only where the far-move rule trusts it:
    within ×1/:data:`FAR`–×FAR of its value in ``cur`` (integers rounded inwards), cut to the
    knob's own search range; the region's ends are grid points, so grid searches reach the
    largest trusted step. A knob whose search range lies wholly outside the region (a split
    floor above ×FAR of a tiny history split) stays at its value in ``cur``."""
    knobs = []
    for k in space.knobs:
        a = float(k.decode(cur[k.name])) if k.log else 0.0
        if a <= 0:
            knobs.append(k)
            continue
        lo, hi = far_span(a, k.kind)
        lo, hi = max(float(k.low), lo), min(float(k.high), hi)  # type: ignore[arg-type]
        if lo > hi:
            lo = hi = a
        grid = sorted({g for g in k.grid if lo <= g <= hi} | {lo, hi})
        knobs.append(dataclasses.replace(k, low=lo, high=hi, grid=tuple(grid)))
    return dataclasses.replace(space, knobs=knobs)


def assess_changes(
    evidence: Evidence,
    space: SearchSpace,
    cluster: ClusterSpec,
    cur: Row,
    best: Row,
    changed: list[str],
    metric: str = "job_ms",
    origin: str = HISTORY,
) -> dict[str, ChangeTrust]:
    """:class:`ChangeTrust` of every change in ``changed`` (module doc); ``metric``:
    ``job_ms`` or ``container_gb_s``, what the gain is measured in; ``origin``: what ``cur``
    is, named in the far-move reason (the history's value, or a replayed file's)."""
    if not changed:
        return {}
    batch = _rows_batch(space, _variants(cur, best, changed))
    names, moved = _perturbed(evidence.point)
    profiles = [*evidence.samples, evidence.point, *moved]
    job_ms, gb_s = evaluate_profiles(profiles, batch, cluster)
    v = job_ms if metric == "job_ms" else gb_s
    n_s, n_k = len(evidence.samples), len(changed)
    samples, point, pert = v[:n_s], v[n_s], v[n_s + 1 :]
    with np.errstate(divide="ignore", invalid="ignore"):
        g0 = np.log(point[2 : 2 + n_k] / point[1])
        gf = np.log(pert[:, 2 : 2 + n_k] / pert[:, 1:2])
    sens = np.nan_to_num(np.abs(gf - g0))  # (factors, changes)
    noise = _run_noise(evidence.point)
    band = noise.band()
    miss, m_band = calibration_miss(evidence.point), miss_band(evidence.point)
    out = {}
    for j, k in enumerate(changed):
        gain = ratio_interval(samples[:, 2 + j], samples[:, 1], point[2 + j], point[1])
        alone = ratio_interval(
            samples[:, 0], samples[:, 2 + n_k + j], point[0], point[2 + n_k + j]
        )
        total = float(sens[:, j].sum())
        share = sens[:, j] / total if total > 0 else np.zeros(len(names))
        order = np.argsort(-share)
        rest = [names[i] for i in order if share[i] >= REST_SHARE]
        d_share = float(
            sum(share[i] for i, f in enumerate(names) if not is_measured(evidence.point, f))
        )
        t = ChangeTrust(
            gain=gain,
            alone=alone,
            measured=[f for f in rest if is_measured(evidence.point, f)],
            defaulted=[f for f in rest if not is_measured(evidence.point, f)],
            defaulted_share=d_share,
            noise_band=band,
            miss_band=m_band,
        )
        if d_share > DEFAULTED_SHARE:
            t.reasons.append(f"{d_share:.0%} of its gain rests on defaulted cost factors")
        if gain.low <= 1.0:
            t.reasons.append(f"its interval includes no gain (×{gain.low:.3g} at the low end)")
        elif widen(gain, band).low <= 1.0 + MIN_GAIN:
            t.reasons.append(
                f"its gain (×{gain.point:.3g}) is within the run-to-run noise: ±"
                f"{np.expm1(band):.1%} on a speedup measured from {PAIRS} pairs "
                f"({noise.source}) leaves ×{widen(gain, band).low:.3g} at the low end, "
                f"under the ×{1 + MIN_GAIN:g} a change must bring"
            )
        if prior := _prior_codec(evidence.point, k, best):
            t.reasons.append(prior)
        far = _far(k, cur, best, origin)
        if far:
            t.reasons.append(far)
            t.far = True
        low = widen(gain, t.measured_band).low
        if miss and gain.low > 1.0 and low <= 1.0 + MIN_GAIN:
            t.reasons.append(
                f"{miss}: its gain (×{gain.point:.3g}) could be that miss: the miss (±"
                f"{np.expm1(m_band):.0%}) and the noise leave ×{low:.4g} at the low end, under "
                f"the ×{1 + MIN_GAIN:g} a change must bring"
            )
        out[k] = t
    return out


def _prior_codec(profile: JobProfile, k: str, best: Row) -> str | None:
    """Why a codec change rests on a guess: the codec's compression ratio is its documented
    prior, never measured on this job's data. Its gain is then the prior's, whatever the cost
    factors say: the examples' Sort over RandomWriter's random bytes was written lz4 as "ok"
    for a shuffle of 27.7 → 13.3 MiB, and its real shuffle grew 0.4%."""
    knob = find_knob(k)
    if knob.role not in CODEC_ROLES:
        return None
    name = str(knob.decode(best[k]))
    if name == "none" or not profile.codec(name).source.startswith("prior"):
        return None
    return (
        f"its gain rests on {name}'s documented compression ratio "
        f"{profile.codec(name).ratio:g}, not measured on this job's data (data that does not "
        "compress would gain nothing)"
    )


def calibration_miss(profile: JobProfile) -> str | None:
    """What a failed calibration says of a profile's changes, or ``None`` when its miss is
    immaterial (:func:`mrtune.optimizer.model_miss.material_miss`: within the job's own
    run-to-run noise). The check still says it failed in every command; this text is the
    reason a change carries when its gain could be the miss (:func:`assess_changes`) and a
    batch job's when its whole change could (``batch``'s calibration rule)."""
    w = profile.calibration.worst if profile.calibration_failed else None
    share = material_miss(profile)
    if w is None or share <= 0:
        return None
    noise = _run_noise(profile).sigma
    return (
        f"the profile's calibration failed ({w.segment} {w.error_text}, {share:.0%} of its "
        f"task's time, more than the job's {noise:.0%} run-to-run noise)"
    )


def confident_row(
    evidence: Evidence,
    space: SearchSpace,
    cluster: ClusterSpec,
    cur: Row,
    best: Row,
    metric: str = "job_ms",
    origin: str = HISTORY,
) -> tuple[Row, dict[str, ChangeTrust]]:
    """``best`` without its low-confidence changes, re-assessed until none is left (dropping
    one change moves the others' gains), and the assessment of every change of ``best``
    (those dropped as assessed in the configuration they were dropped from). An infeasible
    remainder (a kept change that only fits with a dropped one) keeps nothing."""
    row = dict(best)
    trust: dict[str, ChangeTrust] = {}
    for _ in range(len(best) + 1):
        changed = [k for k in row if not np.isclose(row[k], cur[k])]
        now = assess_changes(evidence, space, cluster, cur, row, changed, metric, origin)
        trust.update(now)
        low = [k for k, t in now.items() if t.low]
        if not low:
            break
        for k in low:
            row[k] = cur[k]
    vals = {k: np.array([v]) for k, v in row.items()}
    if not bool(space.feasible(vals)[0]):
        return dict(cur), trust
    return row, trust
