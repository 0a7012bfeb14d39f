"""What both calibration solvers share: the fit's result (:class:`_Fit`), every observed phase
time stacked into one weighted system (:func:`_stack`), and the rank tests of the greedy
column selection.

Split from :mod:`mrtune.calibration.solve` so that the NNLS solver (``solve.py``) and the
ridge solver (``solve_ridge.py``) each import it and neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from mrtune.calibration.fixed_costs import FIXED_COST_COLUMNS
from mrtune.calibration.rows import UNIT_FACTORS, _Obs
from mrtune.calibration.segments import FIRST_SEGMENTS, SEGMENT_LABEL, SEGMENTS
from mrtune.costmodel.profile import SORT_CACHE_BYTES, CodecStats

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
    #: The values the grid search started from (the machine benchmark's or the prior's), for
    #: the shape factors it measured (:func:`~mrtune.calibration.cost_factors.solve_contention`)
    shape_reference: dict[str, float] = field(default_factory=dict)
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
    n_codecs: int = 0,
) -> _Stacked:
    """Stack the rows; weigh each segment alike (rows scaled by 1 / its mean time); find the
    segments that are fixed time (volume terms at the prior costs explain < FIXED_SHARE of
    them: their rows are kept only where they hold the task's fixed time, with a warning).
    ``fixed_offset``: a known fixed time already charged to the first segments' rows.
    ``n_codecs``: the last columns of ``V`` that are codec CPU scales."""
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
    n_plain = V.shape[1] - n_codecs
    coded = {s for s in present if n_codecs and np.abs(V[seg == s, n_plain:]).sum() > 0}
    fixed_segs = {s for s in present if share[s] < FIXED_SHARE and s not in coded}
    keep = np.array([(s not in fixed_segs) or (s in FIRST_SEGMENTS) for s in seg])
    fixed_ms = {s: float(np.mean(V[seg == s] @ (theta0 - theta_vol))) for s in present}
    for s in sorted(fixed_segs - FIRST_SEGMENTS, key=SEGMENTS.index):
        volume = share[s] * mean_of[s]
        warnings.append(
            f"{SEGMENT_LABEL[s]}: {mean_of[s]:.0f} ms on average, but the model's volume terms "
            f"give {volume:.1f} ms at prior costs; "
            + _fixed_rest(fixed_ms[s], mean_of[s] - volume, mean_of[s])
        )
    return _Stacked(y, V, off, fw, ww, seg, mean_of, w, share, fixed_segs, keep)


def _fixed_rest(fixed: float, rest: float, mean: float) -> str:
    """What a fixed-time segment's rest (its time beyond the volume terms) is, given what the
    model's fixed costs (spill, fetch, seek, at their current values) charge there: more
    than the rest is a prior this cluster contradicts (the model is above the observation);
    within :data:`FIXED_SHARE` of the segment, they price it; else the rest is fixed time the
    model has no term for (a few ms of seeks in a second of commit do not change that)."""
    slack = FIXED_SHARE * mean
    if fixed > rest + slack:
        return (
            f"its fixed costs give {fixed:.1f} ms, more than the rest: priors larger than "
            "this cluster shows"
        )
    if fixed > 0.0 and rest - fixed <= slack:
        return f"its fixed costs give the rest ({fixed:.1f} ms)"
    return "the rest is fixed time the model has no term for"


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
