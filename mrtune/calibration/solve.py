"""The solvers of the calibration fit: weighted non-negative least squares over the
identifiable factors (:func:`_solve`), or every factor pulled toward its prior (:func:`_solve_ridge`).

See :mod:`mrtune.calibration.cost_factors` (module doc) for how factors are identified.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import least_squares, nnls

from mrtune.calibration.fixed_costs import (
    FIRST_SEGMENT_CONSTANTS,
    FIXED_COST_COLUMNS,
    LATE_COLUMNS,
    split_fixed,
)
from mrtune.calibration.rows import UNIT_FACTORS, _Obs, codec_column
from mrtune.calibration.segments import (
    FIRST_SEGMENTS,
    SEGMENT_LABEL,
    SEGMENTS,
)
from mrtune.costmodel.profile import (
    SORT_CACHE_BYTES,
    CodecStats,
    CostFactors,
)

F64 = NDArray[np.float64]

#: Below this share of a segment's time at default costs, the segment is fixed time.
FIXED_SHARE = 0.05
#: Relative singular value (columns scaled to unit norm) below which a column adds nothing
#: that the others do not already explain: condition number above 1000 means collinear.
RANK_TOL = 1e-3


@dataclass
class _Fit:
    theta: F64
    columns: list[str]
    fixed: float
    fixed_how: str
    prov: dict[str, str]
    warnings: list[str]
    obs: dict[str, _Obs]
    present: list[str]
    cost: float = float("inf")
    contention: float = 0.0
    contention_how: str = ""
    warmup_ms: dict[str, float] = field(default_factory=dict)
    slowdown: float = 0.0
    slowdown_how: str = ""
    cache_bytes: float = SORT_CACHE_BYTES
    #: segment → share of it the volume terms explain at prior costs, for fixed-time segments
    fixed_share: dict[str, float] = field(default_factory=dict)
    #: codecs whose CPU the fit priced (:func:`_apply_codec_scale`)
    codecs: dict[str, CodecStats] = field(default_factory=dict)


@dataclass
class _Stacked:
    """Every observed phase time stacked: one row per (attempt, segment)."""

    y: F64
    V: F64
    off: F64
    fw: F64
    ww: F64
    seg: NDArray
    mean_of: dict[str, float]
    w: F64
    share: dict[str, float]
    fixed_segs: set[str]
    keep: NDArray


def _stack(
    obs: dict[str, _Obs],
    present: list[str],
    theta0: F64,
    warnings: list[str],
    fixed_offset: float = 0.0,
) -> _Stacked:
    """Stack the rows; weigh each segment alike (rows scaled by 1 / its mean time); find the
    segments that are fixed time (volume terms at the prior costs explain < FIXED_SHARE of
    them: their rows are kept only where they hold the task's fixed time, with a warning).
    ``fixed_offset``: a known fixed time already charged to the first segments' rows."""
    y = np.concatenate([np.array(obs[s].y) for s in present])
    V = np.vstack([np.vstack(obs[s].rows) for s in present])
    off = np.concatenate([np.array(obs[s].offset) for s in present])
    fw = np.concatenate([np.array(obs[s].fixed_w) for s in present])
    ww = np.concatenate(
        [np.array(obs[s].warm_w) if obs[s].warm_w else np.zeros(len(obs[s].y)) for s in present]
    )
    if fixed_offset:
        off = off + fixed_offset * fw
    seg = np.concatenate([[s] * len(obs[s].y) for s in present])
    mean_of = {s: max(float(np.mean(obs[s].y)), 1.0) for s in present}
    w = np.array([1.0 / mean_of[s] for s in seg])
    theta_vol = theta0.copy()
    for f in FIXED_COST_COLUMNS:
        theta_vol[UNIT_FACTORS.index(f)] = 0.0
    share = {
        s: float(np.mean(V[seg == s] @ theta_vol + off[seg == s])) / mean_of[s] for s in present
    }
    # a segment where a codec's CPU scale is fitted is never fixed time: the codec's prior can
    # be off by far more than 1/FIXED_SHARE (Hadoop's pure-Java bzip2 on incompressible data)
    n_unit = len(UNIT_FACTORS)
    coded = {s for s in present if V.shape[1] > n_unit and np.abs(V[seg == s, n_unit:]).sum() > 0}
    fixed_segs = {s for s in present if share[s] < FIXED_SHARE and s not in coded}
    keep = np.array([(s not in fixed_segs) or (s in FIRST_SEGMENTS) for s in seg])
    for s in sorted(fixed_segs - FIRST_SEGMENTS, key=SEGMENTS.index):
        warnings.append(
            f"{SEGMENT_LABEL[s]}: {mean_of[s]:.0f} ms on average, but the model's volume terms "
            f"give {share[s] * mean_of[s]:.1f} ms at prior costs; the rest is fixed time the "
            "model has no term for"
        )
    return _Stacked(y, V, off, fw, ww, seg, mean_of, w, share, fixed_segs, keep)


def _solve(
    obs: dict[str, _Obs],
    prior: CostFactors,
    refit: Collection[str] | None,
    prior_source: str,
    codecs: Sequence[str] = (),
) -> _Fit:
    """One weighted non-negative least squares over every observed phase time (module doc).

    Columns are :data:`UNIT_FACTORS`, then one CPU scale per codec of ``codecs``.
    """
    columns = [*UNIT_FACTORS, *(codec_column(c) for c in codecs)]
    theta0 = np.array(
        [getattr(prior, f) for f in UNIT_FACTORS] + [1.0] * len(codecs), dtype=np.float64
    )
    fit_fixed = refit is None or "task_overhead_ms" in refit
    prov: dict[str, str] = {}
    warnings: list[str] = []
    if refit is not None:
        for f in columns:
            if f not in refit:
                prov[f"costs.{f}"] = prior_source or "prior"
        if not fit_fixed:
            prov["costs.task_overhead_ms"] = prior_source or "prior"
    present = [s for s in SEGMENTS if s in obs and obs[s].y]
    overlapped = sum(obs[s].skipped for s in ("reduce.shuffle", "reduce.total") if s in obs)
    if overlapped and not any(s in present for s in ("reduce.shuffle", "reduce.total")):
        prov.setdefault(
            "costs.network",
            f"defaulted: all {overlapped} reduce(s) started before the last map ended, so "
            "their shuffle times measure the wait for maps",
        )
    if not present:
        return _Fit(theta0, columns, prior.task_overhead_ms, "", prov, warnings, obs, [])

    # ---- every observed phase time stacked: one row per (attempt, segment)
    st = _stack(obs, present, theta0, warnings, 0.0 if fit_fixed else prior.task_overhead_ms)
    y, V, off, fw, seg, w = st.y, st.V, st.off, st.fw, st.seg, st.w
    share, fixed_segs, keep = st.share, st.fixed_segs, st.keep

    # ---- each factor's home segment (largest default contribution)
    contrib = {s: np.abs(V[seg == s]).sum(axis=0) * theta0 * w[seg == s][0] for s in present}
    cand: list[int] = []
    for i, f in enumerate(columns):
        if refit is not None and f not in refit:
            continue
        best = max(present, key=lambda s: contrib[s][i])
        if contrib[best][i] <= 0:
            prov.setdefault(
                f"costs.{f}", "defaulted: nothing in this job for it to price (zero volume)"
            )
        elif best in fixed_segs and columns[i] not in FIRST_SEGMENT_CONSTANTS:
            prov[f"costs.{f}"] = (
                f"defaulted: {SEGMENT_LABEL[best]} is fixed time "
                f"(volume terms {share[best]:.1%} of it)"
            )
        else:
            cand.append(i)
    total = {i: sum(contrib[s][i] for s in present if s not in fixed_segs) for i in cand}
    # a refinement of another factor is tried after every factor it refines
    cand.sort(key=lambda i: (columns[i] in LATE_COLUMNS, -total[i]))

    # ---- greedy selection of identifiable columns, then one non-negative least squares
    Vk, yk, offk, fwk, wk = V[keep], y[keep], off[keep], fw[keep], w[keep]
    cols: list[tuple[str, int]] = [("f", i) for i in cand]
    consts = [i for i in cand if columns[i] in FIRST_SEGMENT_CONSTANTS]
    # maps' and reduces' first phases each hold one constant: with both a read intercept and
    # a shuffle floor to price, those two carry them and the task's fixed time is their
    # common part (_split_fixed); otherwise the fixed time is a column of its own
    split = (
        fit_fixed
        and len(consts) == 2
        and bool(fwk.any())
        and np.allclose(Vk[:, consts].sum(axis=1), fwk)
    )
    if fwk.any() and fit_fixed:
        all_first_fixed = all(s in fixed_segs for s in present if s in FIRST_SEGMENTS)
        at = 0 if all_first_fixed or not cols else 1
        if split:
            cols = [c for c in cols if c[1] not in consts]
            cols[at:at] = [("f", i) for i in consts]
        else:
            cols.insert(at, ("c", -1))
    sel: list[tuple[str, int]] = []
    for c in cols:
        trial = [*sel, c]
        if len(trial) <= len(yk) and _full_rank(_design(Vk, trial, fwk) * wk[:, None]):
            sel.append(c)
    chosen = [i for k, i in sel if k == "f"]
    others = [i for i in range(len(columns)) if i not in chosen]
    theta0 = theta0.copy()
    absorbed = []
    if ("c", -1) in sel:
        # a per-attempt constant of a first segment that the fitted fixed time cannot be told
        # from: the fixed time carries it (0 here), so a prior larger than the observed
        # constant cannot push the fit to its 0 bound; every prediction is the same, since
        # both are one constant per task
        for i in cand:
            if i not in chosen and columns[i] in FIRST_SEGMENT_CONSTANTS:
                theta0[i] = 0.0
                absorbed.append(i)
    resid = yk - offk - Vk[:, others] @ theta0[others]
    if fit_fixed and ("c", -1) not in sel and not split:
        # the fixed time is not separable here: it keeps its prior, which the prediction adds,
        # so the volume terms are fitted to what the prior leaves (not to the whole time)
        resid = resid - prior.task_overhead_ms * fwk
    theta = theta0.copy()
    fixed = prior.task_overhead_ms
    fixed_how = ""
    if sel:
        D = _design(Vk, sel, fwk) * wk[:, None]
        scale = np.linalg.norm(D, axis=0)
        scale[scale == 0] = 1.0
        sol, _ = nnls(D / scale, resid * wk, maxiter=50 * D.shape[1] + 100)
        sol = sol / scale
        exact = len(sel) == len(yk)
        for (kind, i), v in zip(sel, sol, strict=True):
            if kind == "c":
                fixed = float(v)
                n_first = int(fwk.sum())
                fixed_how = (
                    f"measured: fixed time in {n_first} attempts' first phase (JVM start, "
                    "setup)" + (", with the volume terms fitted jointly" if chosen else "")
                )
            else:
                theta[i] = float(v)
                segs = [
                    SEGMENT_LABEL[s] for s in present if s not in fixed_segs and contrib[s][i] > 0
                ]
                how = "exact fit" if exact else "least squares"
                prov[f"costs.{columns[i]}"] = (
                    f"measured: {how} on {len(yk)} phase times ({'; '.join(segs[:2])})"
                    + (" (hit 0 bound)" if v == 0 else "")
                )
    if split and all(i in chosen for i in consts):
        fixed, fixed_how = split_fixed(theta, consts, columns, prov)
    for i in absorbed:
        prov[f"costs.{columns[i]}"] = (
            "measured: 0, not separable from the task's fixed time in these phase times "
            "(one constant per attempt): task_overhead_ms carries it"
        )
    for i in cand:
        if i not in chosen and i not in absorbed:
            near = _most_collinear(Vk * wk[:, None], i, chosen)
            prov[f"costs.{columns[i]}"] = (
                f"defaulted: not separable from {columns[near] if near is not None else 'the fitted factors'} "
                f"in these {len(yk)} phase times (underdetermined)"
            )
    if fit_fixed and not fixed_how:
        fixed_how = ""
    elif not fit_fixed:
        fixed_how = prior_source or "prior"
    out = _Fit(theta, columns, fixed, fixed_how, prov, warnings, obs, present)
    out.fixed_share = {s: share[s] for s in fixed_segs}
    return out


#: Ridge weights of :func:`_solve_ridge` (rows are relative errors: a weight of 1e-4 on a
#: log-factor makes moving a factor by ×e cost as much as a 1% misfit of one phase time).
WEAK_PRIOR = 1e-4
STRONG_PRIOR = 1.0


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
    columns = [*UNIT_FACTORS, *(codec_column(c) for c in codecs)]
    theta0 = np.array(
        [getattr(prior, f) for f in UNIT_FACTORS] + [1.0] * len(codecs), dtype=np.float64
    )
    prov: dict[str, str] = {}
    warnings: list[str] = []
    present = [s for s in SEGMENTS if s in obs and obs[s].y]
    if not present:
        return _Fit(theta0, columns, prior.task_overhead_ms, "", prov, warnings, obs, [])
    warm_prior = warm_prior or {}
    st = _stack(obs, present, theta0, warnings)
    seg, mean_of, fixed_segs, keep = st.seg, st.mean_of, st.fixed_segs, st.keep
    V, y, off, fw, w, ww = st.V, st.y, st.off, st.fw, st.w, st.ww
    V, y, off, fw, w, ww = V[keep], y[keep], off[keep], fw[keep], w[keep], ww[keep]
    segk_ = seg[keep]
    active = np.flatnonzero((np.abs(V).sum(axis=0) > 0) & (theta0 > 0))
    warm_segs = [s for s in present if bool((ww[segk_ == s] > 0).any())]
    # one column per segment: 1 on the cold attempt's row of that segment
    W = np.column_stack([(segk_ == s) * ww for s in warm_segs]) if warm_segs else None
    warm0 = np.array([warm_prior.get(s, 0.0) for s in warm_segs])
    lam_warm = np.array([STRONG_PRIOR if s in warm_prior else WEAK_PRIOR for s in warm_segs])
    warm_scale = np.array([mean_of[s] for s in warm_segs])
    lam = np.array([STRONG_PRIOR if columns[i] in strong else WEAK_PRIOR for i in active])
    has_fixed = bool(fw.any())
    base = (
        V[:, [i for i in range(len(columns)) if i not in set(active)]]
        @ theta0[[i for i in range(len(columns)) if i not in set(active)]]
    )
    Va = V[:, active] * theta0[active]

    lam_fixed = STRONG_PRIOR if "task_overhead_ms" in strong else WEAK_PRIOR
    fixed_scale = float(np.mean(y[fw > 0])) if has_fixed else 1.0

    k = len(active)
    i_fixed = k if has_fixed else None
    i_warm = k + has_fixed
    n_warm = len(warm_segs)

    def residuals(x: F64) -> F64:
        u = x[:k]
        fixed = x[i_fixed] if i_fixed is not None else 0.0
        model = off + base + Va @ np.exp(u) + fixed * fw
        if n_warm:
            model = model + W @ x[i_warm : i_warm + n_warm]
        pen = [np.sqrt(lam_fixed) * (fixed - prior.task_overhead_ms) / fixed_scale] * has_fixed
        warm_pen = np.sqrt(lam_warm) * (x[i_warm : i_warm + n_warm] - warm0) / warm_scale
        return np.concatenate([(model - y) * w, np.sqrt(lam) * u, pen, warm_pen])

    n_rows = len(y)

    def jacobian(x: F64) -> F64:
        """The residuals' exact derivatives (rows are linear in exp(u), the fixed time and the
        warm-ups): one call instead of the 2-point difference's one residual per unknown."""
        J = np.zeros((n_rows + len(x), len(x)))
        J[:n_rows, :k] = Va * np.exp(x[:k])[None, :] * w[:, None]
        J[n_rows + np.arange(k), np.arange(k)] = np.sqrt(lam)
        if i_fixed is not None:
            J[:n_rows, i_fixed] = fw * w
            J[n_rows + k, i_fixed] = np.sqrt(lam_fixed) / fixed_scale
        if n_warm:
            J[:n_rows, i_warm : i_warm + n_warm] = W * w[:, None]
            j = np.arange(n_warm)
            J[n_rows + i_warm + j, i_warm + j] = np.sqrt(lam_warm) / warm_scale
        return J

    x0 = np.zeros(k + has_fixed + n_warm)
    lo = np.full(len(x0), -30.0)
    hi = np.full(len(x0), 30.0)
    if i_fixed is not None:
        x0[i_fixed] = min(prior.task_overhead_ms, float(np.min(y[fw > 0])))
        lo[i_fixed], hi[i_fixed] = 0.0, np.inf
    if n_warm:
        x0[i_warm : i_warm + n_warm] = warm0
        lo[i_warm : i_warm + n_warm], hi[i_warm : i_warm + n_warm] = 0.0, np.inf
    res = least_squares(residuals, x0, jac=jacobian, bounds=(lo, hi), method="trf", x_scale="jac")
    theta = theta0.copy()
    theta[active] = theta0[active] * np.exp(res.x[:k])
    fixed = float(res.x[i_fixed]) if i_fixed is not None else prior.task_overhead_ms
    warmup = {s: float(v) for s, v in zip(warm_segs, res.x[i_warm : i_warm + n_warm], strict=True)}
    rel = np.abs(res.fun[: len(y)])
    how = f"{len(y)} phase times, median |error| {np.median(rel):.1%} after the fit"
    for j, i in enumerate(active):
        f = columns[i]
        segs = [SEGMENT_LABEL[s] for s in present if s not in fixed_segs]
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
    fixed_how = (
        f"measured: fixed time in {int(fw.sum())} attempts' first phase, fitted jointly"
        if has_fixed
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
        fixed_share={s: st.share[s] for s in fixed_segs},
    )


def _most_collinear(V: F64, i: int, chosen: list[int]) -> int | None:
    best, best_c = None, -1.0
    vi = V[:, i] / (np.linalg.norm(V[:, i]) or 1.0)
    for j in chosen:
        vj = V[:, j] / (np.linalg.norm(V[:, j]) or 1.0)
        c = abs(float(vi @ vj))
        if c > best_c:
            best, best_c = j, c
    return best


def _design(V: F64, sel: list[tuple[str, int]], fw: F64) -> F64:
    cols = [fw if k == "c" else V[:, i] for k, i in sel]
    return np.column_stack(cols) if cols else np.zeros((V.shape[0], 0))


def _full_rank(D: F64) -> bool:
    if D.shape[1] == 0:
        return True
    norms = np.linalg.norm(D, axis=0)
    if np.any(norms == 0):
        return False
    s = np.linalg.svd(D / norms, compute_uv=False)
    return bool(s[-1] > RANK_TOL * s[0])
