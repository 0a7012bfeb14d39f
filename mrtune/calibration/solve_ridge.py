"""The ridge solver of the calibration fit: every factor at once, pulled toward its prior in
log space (:func:`_solve_ridge`).

Split from :mod:`mrtune.calibration.solve` (the NNLS solver) by what it holds: the problem's
unknowns and residuals (:class:`_Ridge`), the solve, and the provenance it writes. See
:mod:`mrtune.calibration.cost_factors` (module doc) for when each solver is used.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import OptimizeResult, least_squares

from mrtune.calibration.rows import _Obs, codec_column, fit_columns
from mrtune.calibration.segments import SEGMENT_LABEL, SEGMENTS
from mrtune.calibration.stacking import F64, _Fit, _stack
from mrtune.costmodel.profile import CostFactors

#: Ridge weights of :func:`_solve_ridge` (rows are relative errors: a weight of 1e-4 on a
#: log-factor makes moving a factor by ×e cost as much as a 1% misfit of one phase time).
WEAK_PRIOR = 1e-4
STRONG_PRIOR = 1.0


@dataclass
class _Ridge:
    """The ridge problem over the kept rows. Unknowns ``x``: ``u`` (one log-ratio per active
    factor), then the task's fixed time (when a first phase holds it), then one warm-up time
    per segment whose cold attempt is marked (``W``: 1 on that attempt's row)."""

    y: F64
    w: F64
    off: F64
    fw: F64
    base: F64
    Va: F64
    lam: F64
    lam_fixed: float
    fixed_prior: float
    fixed_scale: float
    W: F64 | None
    warm0: F64
    lam_warm: F64
    warm_scale: F64
    has_fixed: bool

    @property
    def k(self) -> int:
        return self.Va.shape[1]

    @property
    def i_fixed(self) -> int | None:
        return self.k if self.has_fixed else None

    @property
    def i_warm(self) -> int:
        return self.k + self.has_fixed

    @property
    def n_warm(self) -> int:
        return len(self.warm0)

    def residuals(self, x: F64) -> F64:
        """Weighted row residuals, then the penalties ``√λ·u`` toward the priors."""
        k, i_fixed, i_warm, n_warm = self.k, self.i_fixed, self.i_warm, self.n_warm
        u = x[:k]
        fixed = x[i_fixed] if i_fixed is not None else 0.0
        model = self.off + self.base + self.Va @ np.exp(u) + fixed * self.fw
        if n_warm:
            model = model + self.W @ x[i_warm : i_warm + n_warm]
        pen = [
            np.sqrt(self.lam_fixed) * (fixed - self.fixed_prior) / self.fixed_scale
        ] * self.has_fixed
        warm_pen = (
            np.sqrt(self.lam_warm) * (x[i_warm : i_warm + n_warm] - self.warm0) / self.warm_scale
        )
        return np.concatenate([(model - self.y) * self.w, np.sqrt(self.lam) * u, pen, warm_pen])

    def jacobian(self, x: F64) -> F64:
        """The residuals' exact derivatives (rows are linear in exp(u), the fixed time and the
        warm-ups): one call instead of the 2-point difference's one residual per unknown
        (wc-default's profile from its run: 11.2 -> 5.8 s of CPU, the same optimum within the
        solver's tolerance)."""
        k, i_fixed, i_warm, n_warm = self.k, self.i_fixed, self.i_warm, self.n_warm
        n = len(self.y)
        J = np.zeros((n + len(x), len(x)))
        J[:n, :k] = self.Va * np.exp(x[:k])[None, :] * self.w[:, None]
        J[n + np.arange(k), np.arange(k)] = np.sqrt(self.lam)
        if i_fixed is not None:
            J[:n, i_fixed] = self.fw * self.w
            J[n + i_fixed, i_fixed] = np.sqrt(self.lam_fixed) / self.fixed_scale
        if n_warm:
            J[:n, i_warm : i_warm + n_warm] = self.W * self.w[:, None]
            j = np.arange(n_warm)
            J[n + i_warm + j, i_warm + j] = np.sqrt(self.lam_warm) / self.warm_scale
        return J

    def start(self) -> tuple[F64, F64, F64]:
        """Start at the priors; the fixed and warm-up times are non-negative, the log-ratios
        bounded to ±30 (a factor of 1e13, far past any physical correction)."""
        i_fixed, i_warm, n_warm = self.i_fixed, self.i_warm, self.n_warm
        x0 = np.zeros(self.k + self.has_fixed + n_warm)
        lo = np.full(len(x0), -30.0)
        hi = np.full(len(x0), 30.0)
        if i_fixed is not None:
            x0[i_fixed] = min(self.fixed_prior, float(np.min(self.y[self.fw > 0])))
            lo[i_fixed], hi[i_fixed] = 0.0, np.inf
        if n_warm:
            x0[i_warm : i_warm + n_warm] = self.warm0
            lo[i_warm : i_warm + n_warm], hi[i_warm : i_warm + n_warm] = 0.0, np.inf
        return x0, lo, hi


def _ridge_problem(
    rows: tuple[F64, ...],
    segk: F64,
    mean_of: dict[str, float],
    theta0: F64,
    active: F64,
    columns: list[str],
    strong: Collection[str],
    prior: CostFactors,
    warm_prior: dict[str, float],
    present: list[str],
) -> tuple[_Ridge, list[str]]:
    """The kept rows as a :class:`_Ridge`: inactive factors folded into a constant ``base``,
    active ones scaled by their priors (so ``u = 0`` is the prior), the warm-up columns;
    with the segments that have a warm-up unknown."""
    V, y, off, fw, w, ww = rows
    warm_segs = [s for s in present if bool((ww[segk == s] > 0).any())]
    # one column per segment: 1 on the cold attempt's row of that segment
    W = np.column_stack([(segk == s) * ww for s in warm_segs]) if warm_segs else None
    has_fixed = bool(fw.any())
    idle = [i for i in range(len(columns)) if i not in set(active)]
    return _Ridge(
        y=y,
        w=w,
        off=off,
        fw=fw,
        base=V[:, idle] @ theta0[idle],
        Va=V[:, active] * theta0[active],
        lam=np.array([STRONG_PRIOR if columns[i] in strong else WEAK_PRIOR for i in active]),
        lam_fixed=STRONG_PRIOR if "task_overhead_ms" in strong else WEAK_PRIOR,
        fixed_prior=prior.task_overhead_ms,
        fixed_scale=float(np.mean(y[fw > 0])) if has_fixed else 1.0,
        W=W,
        warm0=np.array([warm_prior.get(s, 0.0) for s in warm_segs]),
        lam_warm=np.array([STRONG_PRIOR if s in warm_prior else WEAK_PRIOR for s in warm_segs]),
        warm_scale=np.array([mean_of[s] for s in warm_segs]),
        has_fixed=has_fixed,
    ), warm_segs


def _solve_ridge(
    obs: dict[str, _Obs],
    prior: CostFactors,
    strong: Collection[str] = (),
    prior_source: str = "",
    codecs: Sequence[str] = (),
    warm_prior: dict[str, float] | None = None,
) -> _Fit:
    """Fit every factor at once, pulled toward ``prior`` in log space.

    ``θ_k = prior_k · exp(u_k)``; minimise Σ (weighted row residual)² + Σ λ_k u_k², with
    λ = :data:`WEAK_PRIOR`, or :data:`STRONG_PRIOR` for the factors in ``strong`` (a machine
    benchmark's, which the job's one run should only correct where it must). Where the rows
    cannot separate two factors of a segment (equal-sized tasks: per-byte and per-record terms
    are collinear), the penalty spreads the correction over them in proportion, keeping the
    prior's ratios, instead of moving one and leaving the others at values the observation
    already contradicts. The task's fixed time is a non-negative linear unknown.
    """
    factors = fit_columns(prior)
    columns = [*factors, *(codec_column(c) for c in codecs)]
    theta0 = np.array([getattr(prior, f) for f in factors] + [1.0] * len(codecs), dtype=np.float64)
    prov: dict[str, str] = {}
    warnings: list[str] = []
    present = [s for s in SEGMENTS if s in obs and obs[s].y]
    if not present:
        return _Fit(theta0, columns, prior.task_overhead_ms, "", prov, warnings, obs, [])
    st = _stack(obs, present, theta0, warnings, n_codecs=len(codecs))
    keep = st.keep
    rows = tuple(a[keep] for a in (st.V, st.y, st.off, st.fw, st.w, st.ww))
    V = rows[0]
    active = np.flatnonzero((np.abs(V).sum(axis=0) > 0) & (theta0 > 0))
    problem, warm_segs = _ridge_problem(
        rows, st.seg[keep], st.mean_of, theta0, active, columns, strong, prior,
        warm_prior or {}, present,
    )  # fmt: skip
    x0, lo, hi = problem.start()
    res = least_squares(
        problem.residuals, x0, jac=problem.jacobian, bounds=(lo, hi), method="trf", x_scale="jac"
    )
    k, i_fixed, i_warm = problem.k, problem.i_fixed, problem.i_warm
    theta = theta0.copy()
    theta[active] = theta0[active] * np.exp(res.x[:k])
    fixed = float(res.x[i_fixed]) if i_fixed is not None else prior.task_overhead_ms
    warm = res.x[i_warm : i_warm + problem.n_warm]
    warmup = {s: float(v) for s, v in zip(warm_segs, warm, strict=True)}
    segs = [SEGMENT_LABEL[s] for s in present if s not in st.fixed_segs]
    _ridge_provenance(
        prov, res, len(problem.y), columns, theta0, active, strong, prior_source, segs
    )
    fixed_how = (
        f"measured: fixed time in {int(problem.fw.sum())} attempts' first phase, fitted jointly"
        if problem.has_fixed
        else ""
    )
    return _Fit(
        theta,
        columns,
        fixed,
        fixed_how,
        prov,
        warnings,
        obs,
        present,
        cost=float(res.cost),
        warmup_ms=warmup,
        fixed_share={s: st.share[s] for s in st.fixed_segs},
    )


def _ridge_provenance(
    prov: dict[str, str],
    res: OptimizeResult,
    n_rows: int,
    columns: list[str],
    theta0: F64,
    active: F64,
    strong: Collection[str],
    prior_source: str,
    segs: list[str],
) -> None:
    """Say for each factor what the fit did: moved by a ratio (with the phases that priced
    it), left at its source, or defaulted because nothing in these runs prices it."""
    rel = np.abs(res.fun[:n_rows])
    how = f"{n_rows} phase times, median |error| {np.median(rel):.1%} after the fit"
    for j, i in enumerate(active):
        f = columns[i]
        ratio = float(np.exp(res.x[j]))
        src = prior_source if f in strong and prior_source else "the prior (documented default)"
        if abs(ratio - 1.0) < 1e-3:
            prov[f"costs.{f}"] = f"{src}: unchanged by the fit of {how}"
        else:
            prov[f"costs.{f}"] = (
                f"measured: {ratio:.3g} × {src}, fitted jointly with every factor of the same "
                f"phases ({'; '.join(segs[:3])}) to {how}"
            )
    for i, f in enumerate(columns):
        if i not in set(active):
            prov.setdefault(
                f"costs.{f}",
                f"{prior_source or 'defaulted'}: nothing in these runs for it to price"
                if theta0[i] > 0
                else f"{prior_source or 'defaulted'}: 0",
            )
