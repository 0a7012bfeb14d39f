"""The registry's grids of the knobs, cut to a job's limits and made once per knob, and the
number rules of the job-aware grid values (:meth:`SearchSpace.grid
<mrtune.search_spaces.space.SearchSpace.grid>`).

Split from :mod:`mrtune.search_spaces.space`: a batch builds every job's grids, so they are
cached here by knob, and the few numbers a job adds are computed in Python (numpy's fixed cost
per call is most of the time on a dozen values).
"""

from __future__ import annotations

import math

import numpy as np

from mrtune.search_spaces.knobs import Knob

#: Each knob's registry grid (knobs are frozen: keyed by identity).
_GRIDS: dict[int, tuple[Knob, np.ndarray]] = {}


def _ceil(x: float) -> float:
    """``np.ceil`` of one number, in Python (a job's grid computes a dozen of them)."""
    return float(math.ceil(x)) if math.isfinite(x) else x


def _clip_round(x: float, lo: float, hi: float) -> float:
    """``np.clip(np.round(x), lo, hi)`` of one number (round half to even, as numpy)."""
    if math.isnan(x):
        return x
    if math.isinf(x):
        return hi if x > 0 else lo
    return min(max(float(round(x)), lo), hi)


def _registry_grid(knob: Knob) -> np.ndarray:
    """The registry's encoded grid of ``knob`` cut to its (job-limited) range, made once per
    knob (a batch builds every job's grids; knobs are frozen, keyed by identity)."""
    hit = _GRIDS.get(id(knob))
    if hit is not None and hit[0] is knob:
        return hit[1]
    base = knob.grid_values().astype(np.float64)
    if knob.kind in {"int", "float"}:
        lo, hi = float(knob.low), float(knob.high)  # type: ignore[arg-type]
        base = np.unique(np.clip(base, lo, hi))  # the job's limits cut the registry grid
    base.setflags(write=False)
    if len(_GRIDS) < 4096:
        _GRIDS[id(knob)] = (knob, base)
    return base
