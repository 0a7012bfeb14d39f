"""Bootstrap of a profile's observed tasks, with the cost factors refitted on each resample.

The evidence behind a fitted cost factor is the set of task attempts it was fitted on: had the
job run again, other attempts (other nodes, other spill counts, other stragglers) would have
been recorded and the fit would differ. The bootstrap (Efron & Tibshirani, *An Introduction to
the Bootstrap*, ch. 6) estimates that spread by drawing the attempts again with replacement and
refitting (:func:`~mrtune.calibration.cost_factors.fit_cost_factors`) on each draw. Maps and
reduces are drawn separately, each kind keeping its own count, so every resample still holds
both kinds (a resample without reduces could not fit a reduce-side factor at all).

This is the one resampling core: ``mrtune.diagnose.price`` (the price of a finding) and
``mrtune.optimizer.confidence`` (the interval of every prediction) both use it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mrtune.calibration.cost_factors import (
    UNIT_FACTORS,
    _apply_codec_scale,
    _fitted_codecs,
    fit_costs_dict,
)
from mrtune.calibration.cost_units import with_byte_starts
from mrtune.calibration.fit_setup import cluster_fit_setup
from mrtune.calibration.fixed_costs import tie_spill_write, untie_spill_write
from mrtune.calibration.prior_caps import solve_capped
from mrtune.calibration.rows import _collect_map, _collect_reduce, _Obs, fit_columns
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import PER_BYTE_FACTORS, BootstrapRatios, CostFactors, JobProfile
from mrtune.errors import MrtuneError

Progress = Callable[[int, int], None]
#: Bootstrap refits kept with a calibrated profile (:func:`with_bootstrap`): 64 put the p10/p90
#: of an interval on ~6 resamples each side (:mod:`mrtune.optimizer.confidence`).
BOOTSTRAP_RESAMPLES = 64
#: The seed of the kept refits: the seed ``whatif`` and ``optimize`` draw with by default.
BOOTSTRAP_SEED = 0
#: what a refit may raise on a degenerate resample (all attempts equal, a singular system)
_FIT_ERRORS = (MrtuneError, ValueError, np.linalg.LinAlgError)


def resample_observed(profile: JobProfile, rng: np.random.Generator) -> JobProfile:
    """``profile`` with its observed attempts drawn again with replacement, maps and reduces
    separately (module doc)."""
    obs = profile.observed
    picked = []
    for kind in ("map", "reduce"):
        idx = [i for i, t in enumerate(obs) if t.kind == kind]
        if idx:
            picked += [obs[i] for i in rng.choice(idx, size=len(idx), replace=True)]
    return profile.model_copy(update={"observed": picked})


@dataclass
class Refits:
    """The refit on all observed attempts (``full``) and one refit per resample (``samples``;
    resamples whose fit failed are left out). ``full`` is ``None`` when the profile has no
    observed attempts or the fit on all of them fails: there is then nothing to resample."""

    full: JobProfile | None
    samples: list[JobProfile] = field(default_factory=list)
    requested: int = 0


class _Rows:
    """Every observed attempt's rows of the least-squares fit, computed once.

    A row depends only on its own attempt (its input bytes, records, spills: the model is run
    per attempt at unit factors, :mod:`mrtune.calibration.rows`), so a resample's rows are the
    drawn attempts' rows, repeated as drawn: the solve is redone, the model is not rerun, at
    a tenth of the cost of :func:`fit_cost_factors` on the resampled profile.

    The fit is the one the profile was calibrated with (:func:`cluster_fit_setup`: the
    cluster's priors, the spill overlap of Hadoop's SpillThread), including the spill-write
    tie of :mod:`mrtune.calibration.fixed_costs`. Without the overlap it is exactly what
    :func:`fit_cost_factors` gives on the resample (``tests/optimizer/test_confidence.py``);
    with it, each map attempt's spill-bound branch is the one decided at the profile's own
    fitted costs, where the full fit iterates it at each resample's (a branch flips only for
    attempts at the boundary, which a resample moves little).
    """

    def __init__(self, profile: JobProfile, cfg: HadoopConfig) -> None:
        prior, overlap = cluster_fit_setup(profile)
        # the per-byte CPU columns the calibration fitted (cost_units), if any
        self.prior = with_byte_starts(
            prior, [f for f in PER_BYTE_FACTORS if getattr(profile.costs, f) > 0]
        )
        self.profile = profile
        self.codecs = _fitted_codecs(profile, cfg)
        shape = {f: getattr(self.prior, f) for f in ("sort_cache_slowdown", "sort_cache_bytes")}
        shaped = profile.model_copy(update={"costs": profile.costs.model_copy(update=shape)})
        factors = fit_columns(self.prior)
        byte_terms = factors[len(UNIT_FACTORS) :]
        theta = {f: float(getattr(profile.costs, f)) for f in factors} if overlap else None
        self.obs: dict[str, _Obs] = {}
        _collect_map(
            shaped,
            cfg,
            self.obs,
            self.codecs,
            spill_overlap=overlap,
            theta=theta,
            contention=self.prior.spill_contention,
            byte_terms=byte_terms,
        )
        _collect_reduce(shaped, cfg, self.obs, self.codecs, byte_terms)
        self.where = {
            name: _positions(o.attempt) for name, o in self.obs.items()
        }  # segment → attempt → its row positions

    def fit(self, draw: dict[str, np.ndarray] | None) -> CostFactors:
        """The factors fitted on the attempts ``draw`` (kind → drawn indices; None: all)."""
        obs = {n: self._take(n, draw) for n in self.obs}
        tied = tie_spill_write(obs)
        fit = solve_capped(obs, self.prior, None, "", self.codecs)
        if not tied and "not separable" in fit.prov.get("costs.spill_write", ""):
            tied = tie_spill_write(obs, force=True)
            fit = solve_capped(obs, self.prior, None, "", self.codecs)
        if tied:
            untie_spill_write(fit)
        fit.contention = self.prior.spill_contention
        fit.slowdown = self.prior.sort_cache_slowdown
        fit.cache_bytes = self.prior.sort_cache_bytes
        costs, _ = fit_costs_dict(_apply_codec_scale(fit, self.codecs, self.profile))
        return CostFactors(**costs)

    def _take(self, name: str, draw: dict[str, np.ndarray] | None) -> _Obs:
        """The drawn attempts' rows (copies: the spill-write tie edits rows in place)."""
        o, where = self.obs[name], self.where[name]
        if draw is None:
            pos = list(range(len(o.y)))
        else:
            pos = [p for a in draw[name.split(".", 1)[0]] for p in where.get(int(a), ())]
        return _Obs(
            y=[o.y[p] for p in pos],
            rows=[np.array(o.rows[p], copy=True) for p in pos],
            offset=[o.offset[p] for p in pos],
            fixed_w=[o.fixed_w[p] for p in pos],
            warm_w=[o.warm_w[p] for p in pos] if o.warm_w else [],
            skipped=o.skipped,
            attempt=[o.attempt[p] for p in pos],
            ids=[o.ids[p] for p in pos] if o.ids else [],
        )


def _positions(attempts: list[int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for p, a in enumerate(attempts):
        out.setdefault(a, []).append(p)
    return out


def draw_attempts(profile: JobProfile, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One bootstrap draw: per kind, indices into that kind's observed attempts (the same
    draws, in the same order, as :func:`resample_observed`)."""
    out = {}
    for kind in ("map", "reduce"):
        n = sum(1 for t in profile.observed if t.kind == kind)
        out[kind] = rng.choice(np.arange(n), size=n, replace=True) if n else np.array([], int)
    return out


def refit_resamples(
    profile: JobProfile,
    cfg: HadoopConfig,
    resamples: int,
    seed: int = 0,
    progress: Progress | None = None,
) -> Refits:
    """Refit the cost factors on ``resamples`` bootstrap resamples of ``profile.observed``
    (the rows are computed once, :class:`_Rows`).

    ``cfg`` is the configuration the attempts ran with (the fit's volumes depend on it). The
    random draws depend only on ``seed``: the same seed gives the same resamples.
    """
    if not profile.observed or resamples < 1:
        return Refits(None, [], resamples)
    try:
        rows = _Rows(profile, cfg)
        full = profile.model_copy(update={"costs": rows.fit(None)})
    except _FIT_ERRORS:
        return Refits(None, [], resamples)
    rng = np.random.default_rng(seed)
    out: list[JobProfile] = []
    for b in range(resamples):
        draw = draw_attempts(profile, rng)
        try:
            out.append(profile.model_copy(update={"costs": rows.fit(draw)}))
        except _FIT_ERRORS:
            pass
        if progress is not None:
            progress(b + 1, resamples)
    return Refits(full, out, resamples)


def bootstrap_ratios(
    profile: JobProfile,
    cfg: HadoopConfig,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> BootstrapRatios | None:
    """Each fitted factor's ratio to the refit on all attempts, per resample (1 where the full
    refit is 0: a factor the fit pinned at zero has no spread to transfer). ``None`` when there
    is nothing to resample (no observed attempts, or the full refit fails)."""
    refits = refit_resamples(profile, cfg, resamples, seed)
    if refits.full is None or not refits.samples:
        return None
    full = refits.full.costs
    ratios: dict[str, list[float]] = {}
    for name in CostFactors.model_fields:
        value = getattr(full, name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue  # flags and the reduce-side table (which moves with its factor)
        a = float(value)
        if a > 0:
            ratios[name] = [float(getattr(q.costs, name)) / a for q in refits.samples]
    return BootstrapRatios(seed=seed, requested=resamples, ratios=ratios)


def with_bootstrap(profile: JobProfile, cfg: HadoopConfig) -> JobProfile:
    """``profile`` with its bootstrap refits kept (:class:`BootstrapRatios`).

    The refits depend only on the observed attempts and the fit setup, both fixed once the
    profile is calibrated, so they are computed here once rather than by every ``whatif`` and
    ``optimize`` that reads the saved profile: those then need neither the refit nor
    ``scipy.optimize`` (about 1 s of a command's start, issue 13).
    """
    if not profile.observed:
        return profile
    return profile.model_copy(update={"bootstrap": bootstrap_ratios(profile, cfg)})
