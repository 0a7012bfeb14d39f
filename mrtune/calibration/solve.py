"""The solvers of the calibration fit: weighted non-negative least squares over the
identifiable factors (:func:`_solve`), or every factor pulled toward its prior (:func:`_solve_ridge`,
in :mod:`mrtune.calibration.solve_ridge`).

See :mod:`mrtune.calibration.cost_factors` (module doc) for how factors are identified. The
stacked rows and the rank tests both solvers share are in :mod:`mrtune.calibration.stacking`.
:func:`_solve` runs in named steps: provenance of the factors kept at their prior, each
factor's home segment (:func:`_candidates`), the greedy selection of identifiable columns
(:func:`_column_order`, :func:`_select_columns`), one NNLS (:func:`_fit_selected`), and the
provenance of what could not be separated (:func:`_unfitted_provenance`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np
from scipy.optimize import nnls

from mrtune.calibration.fixed_costs import (
    FIRST_SEGMENT_CONSTANTS,
    LATE_COLUMNS,
    split_fixed,
)
from mrtune.calibration.rows import _Obs, codec_column, fit_columns
from mrtune.calibration.segments import FIRST_SEGMENTS, SEGMENT_LABEL, SEGMENTS
from mrtune.calibration.solve_ridge import STRONG_PRIOR, WEAK_PRIOR, _solve_ridge
from mrtune.calibration.stacking import (
    F64,
    FIXED_SHARE,
    RANK_TOL,
    _design,
    _Fit,
    _full_rank,
    _most_collinear,
    _stack,
    _Stacked,
)
from mrtune.costmodel.profile import CostFactors

__all__ = [
    "FIXED_SHARE",
    "RANK_TOL",
    "STRONG_PRIOR",
    "WEAK_PRIOR",
    "_Fit",
    "_solve",
    "_solve_ridge",
]

#: One column of the NNLS design: ``("f", i)`` factor ``i``, or ``("c", -1)`` the fixed time.
_Col = tuple[str, int]


def _solve(
    obs: dict[str, _Obs],
    prior: CostFactors,
    refit: Collection[str] | None,
    prior_source: str,
    codecs: Sequence[str] = (),
) -> _Fit:
    """One weighted non-negative least squares over every observed phase time (module doc).

    Columns are :func:`~mrtune.calibration.rows.fit_columns` of ``prior``, then one CPU
    scale per codec of ``codecs``.
    """
    factors = fit_columns(prior)
    columns = [*factors, *(codec_column(c) for c in codecs)]
    theta0 = np.array([getattr(prior, f) for f in factors] + [1.0] * len(codecs), dtype=np.float64)
    fit_fixed = refit is None or "task_overhead_ms" in refit
    warnings: list[str] = []
    present = [s for s in SEGMENTS if s in obs and obs[s].y]
    prov = _prior_provenance(obs, present, columns, refit, fit_fixed, prior_source)
    if not present:
        return _Fit(theta0, columns, prior.task_overhead_ms, "", prov, warnings, obs, [])

    # ---- every observed phase time stacked: one row per (attempt, segment)
    st = _stack(
        obs,
        present,
        theta0,
        warnings,
        0.0 if fit_fixed else prior.task_overhead_ms,
        n_codecs=len(codecs),
    )
    contrib, cand = _candidates(st, present, theta0, columns, refit, prov)

    # ---- greedy selection of identifiable columns, then one non-negative least squares
    Vk, yk, offk, fwk, wk = (a[st.keep] for a in (st.V, st.y, st.off, st.fw, st.w))
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
    order = _column_order(cand, consts, split, fit_fixed, fwk, st.fixed_segs, present)
    sel = _select_columns(Vk, fwk, wk, len(yk), order)
    chosen = [i for k, i in sel if k == "f"]
    others = [i for i in range(len(columns)) if i not in chosen]
    theta0, absorbed = _absorb_constants(theta0, sel, cand, chosen, columns)
    resid = yk - offk - Vk[:, others] @ theta0[others]
    if fit_fixed and ("c", -1) not in sel and not split:
        # the fixed time is not separable here: it keeps its prior, which the prediction adds,
        # so the volume terms are fitted to what the prior leaves (not to the whole time)
        resid = resid - prior.task_overhead_ms * fwk
    segs_of = {
        i: [SEGMENT_LABEL[s] for s in present if s not in st.fixed_segs and contrib[s][i] > 0]
        for i in chosen
    }
    theta, fixed, fixed_how = _fit_selected(
        (Vk, fwk, wk), resid, sel, theta0, prior.task_overhead_ms, columns, segs_of, prov
    )
    if split and all(i in chosen for i in consts):
        fixed, fixed_how = split_fixed(theta, consts, columns, prov)
    _unfitted_provenance(prov, cand, chosen, absorbed, columns, Vk * wk[:, None], len(yk))
    if fit_fixed and not fixed_how:
        fixed_how = ""
    elif not fit_fixed:
        fixed_how = prior_source or "prior"
    out = _Fit(theta, columns, fixed, fixed_how, prov, warnings, obs, present)
    out.fixed_share = {s: st.share[s] for s in st.fixed_segs}
    return out


def _prior_provenance(
    obs: dict[str, _Obs],
    present: list[str],
    columns: list[str],
    refit: Collection[str] | None,
    fit_fixed: bool,
    prior_source: str,
) -> dict[str, str]:
    """Provenance known before any row is stacked: the factors a partial refit keeps at their
    prior, and the network cost when every reduce's shuffle overlapped the maps (its time
    then measures the wait for maps, not the network)."""
    prov: dict[str, str] = {}
    if refit is not None:
        for f in columns:
            if f not in refit:
                prov[f"costs.{f}"] = prior_source or "prior"
        if not fit_fixed:
            prov["costs.task_overhead_ms"] = prior_source or "prior"
    overlapped = sum(obs[s].skipped for s in ("reduce.shuffle", "reduce.total") if s in obs)
    if overlapped and not any(s in present for s in ("reduce.shuffle", "reduce.total")):
        prov.setdefault(
            "costs.network",
            f"defaulted: all {overlapped} reduce(s) started before the last map ended, so "
            "their shuffle times measure the wait for maps",
        )
    return prov


def _candidates(
    st: _Stacked,
    present: list[str],
    theta0: F64,
    columns: list[str],
    refit: Collection[str] | None,
    prov: dict[str, str],
) -> tuple[dict[str, F64], list[int]]:
    """Each factor's home segment (largest default contribution); the factors worth a column,
    largest total contribution first. A factor with no volume, or whose home is fixed time,
    is defaulted here and says why."""
    V, seg, w, share, fixed_segs = st.V, st.seg, st.w, st.share, st.fixed_segs
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
    return contrib, cand


def _column_order(
    cand: list[int],
    consts: list[int],
    split: bool,
    fit_fixed: bool,
    fwk: F64,
    fixed_segs: set[str],
    present: list[str],
) -> list[_Col]:
    """The order the greedy selection tries columns in: the fixed time (or, when it is split,
    the two first-phase constants) first, or second when a first phase has volume terms."""
    cols: list[_Col] = [("f", i) for i in cand]
    if fwk.any() and fit_fixed:
        all_first_fixed = all(s in fixed_segs for s in present if s in FIRST_SEGMENTS)
        at = 0 if all_first_fixed or not cols else 1
        if split:
            cols = [c for c in cols if c[1] not in consts]
            cols[at:at] = [("f", i) for i in consts]
        else:
            cols.insert(at, ("c", -1))
    return cols


def _select_columns(Vk: F64, fwk: F64, wk: F64, n_rows: int, cols: list[_Col]) -> list[_Col]:
    """Keep a column only if the weighted design stays of full rank with it (and there are
    rows enough): the factors the phase times can tell apart."""
    sel: list[_Col] = []
    for c in cols:
        trial = [*sel, c]
        if len(trial) <= n_rows and _full_rank(_design(Vk, trial, fwk) * wk[:, None]):
            sel.append(c)
    return sel


def _absorb_constants(
    theta0: F64, sel: list[_Col], cand: list[int], chosen: list[int], columns: list[str]
) -> tuple[F64, list[int]]:
    """A per-attempt constant of a first segment that the fitted fixed time cannot be told
    from: the fixed time carries it (0 here), so a prior larger than the observed constant
    cannot push the fit to its 0 bound; every prediction is the same, since both are one
    constant per task."""
    theta0 = theta0.copy()
    absorbed = []
    if ("c", -1) in sel:
        for i in cand:
            if i not in chosen and columns[i] in FIRST_SEGMENT_CONSTANTS:
                theta0[i] = 0.0
                absorbed.append(i)
    return theta0, absorbed


def _fit_selected(
    kept: tuple[F64, F64, F64],
    resid: F64,
    sel: list[_Col],
    theta0: F64,
    fixed_prior: float,
    columns: list[str],
    segs_of: dict[int, list[str]],
    prov: dict[str, str],
) -> tuple[F64, float, str]:
    """One NNLS over the selected columns (scaled to unit norm), and each fitted factor's
    provenance; returns the factors, the task's fixed time and how it was found."""
    Vk, fwk, wk = kept
    theta = theta0.copy()
    fixed = fixed_prior
    fixed_how = ""
    if not sel:
        return theta, fixed, fixed_how
    chosen = any(k == "f" for k, _ in sel)
    D = _design(Vk, sel, fwk) * wk[:, None]
    scale = np.linalg.norm(D, axis=0)
    scale[scale == 0] = 1.0
    sol, _ = nnls(D / scale, resid * wk, maxiter=50 * D.shape[1] + 100)
    sol = sol / scale
    n_rows = len(resid)
    exact = len(sel) == n_rows
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
            how = "exact fit" if exact else "least squares"
            prov[f"costs.{columns[i]}"] = (
                f"measured: {how} on {n_rows} phase times ({'; '.join(segs_of[i][:2])})"
                + (" (hit 0 bound)" if v == 0 else "")
            )
    return theta, fixed, fixed_how


def _unfitted_provenance(
    prov: dict[str, str],
    cand: list[int],
    chosen: list[int],
    absorbed: list[int],
    columns: list[str],
    Vw: F64,
    n_rows: int,
) -> None:
    """Say why a candidate kept its prior: carried by the fixed time, or not separable from
    the fitted factor it is most collinear with."""
    for i in absorbed:
        prov[f"costs.{columns[i]}"] = (
            "measured: 0, not separable from the task's fixed time in these phase times "
            "(one constant per attempt): task_overhead_ms carries it"
        )
    for i in cand:
        if i not in chosen and i not in absorbed:
            near = _most_collinear(Vw, i, chosen)
            prov[f"costs.{columns[i]}"] = (
                f"defaulted: not separable from {columns[near] if near is not None else 'the fitted factors'} "
                f"in these {n_rows} phase times (underdetermined)"
            )
