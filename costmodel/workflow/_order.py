"""The order of a stage's concurrent jobs that minimises the refined stage time.

The refined model (eqs. 3.19–3.23) is the makespan of a two-machine permutation flow shop:
machine 1 runs the jobs' map stages back to back, machine 2 their reduce stages, each job on
machine 2 only after machine 1 has finished it. Johnson's rule (Johnson 1954, "Optimal two- and
three-stage production schedules with setup times included") is *optimal* for that problem:
first the jobs whose map stage is shorter than their reduce stage, by increasing map time, then
the others by decreasing reduce time. Small stages are also searched exhaustively (every
permutation, vectorised), which needs no theorem and is what the tests check Johnson against;
the result says which method chose the order.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mrtune.costmodel.workflow._model import _as_pair, refined_stage_ms

#: Stages with at most this many jobs are searched over all permutations (8! = 40 320).
EXHAUSTIVE_LIMIT = 8


@dataclass(frozen=True)
class OrderChoice:
    """The chosen execution order (indices into the stage's jobs) and its refined time."""

    order: tuple[int, ...]
    stage_ms: float
    method: str

    @property
    def description(self) -> str:
        """How the order was found, for the output."""
        n = len(self.order)
        if self.method == "exhaustive":
            return f"exhaustive search over {math.factorial(n)} orders"
        if self.method == "johnson":
            return "Johnson's rule (optimal for the two-stage flow shop of eqs. 3.19-3.23)"
        return "single job"


def johnson_order(map_ms: ArrayLike, reduce_ms: ArrayLike) -> NDArray[np.intp]:
    """Johnson's rule, vectorised over leading batch axes; returns indices of shape ``(..., n)``.

    Jobs with ``T^M < T^R`` come first by increasing ``T^M``; the rest follow by decreasing
    ``T^R``. The sort is stable, so ties keep the given order.
    """
    m, r = _as_pair(map_ms, reduce_ms)
    big = float(max(m.max(initial=0.0), r.max(initial=0.0))) + 1.0
    # One key per job: group 1 sorts by m in [0, big), group 2 by big + (big - r) in (big, 2 big].
    key = np.where(m < r, m, 2.0 * big - r)
    return np.argsort(key, axis=-1, kind="stable")


def exhaustive_order(map_ms: ArrayLike, reduce_ms: ArrayLike) -> OrderChoice:
    """Try every permutation of one stage (1-D inputs); the first best one in lexicographic
    order wins, so the given order is kept when nothing beats it."""
    m, r = _as_pair(map_ms, reduce_ms)
    if m.ndim != 1:
        raise ValueError("exhaustive_order takes one stage (1-D map_ms and reduce_ms)")
    perms = np.array(list(itertools.permutations(range(m.size))), dtype=np.intp)
    times = refined_stage_ms(m[perms], r[perms])
    best = int(np.argmin(times))
    return OrderChoice(tuple(int(i) for i in perms[best]), float(times[best]), "exhaustive")


def best_order(
    map_ms: ArrayLike, reduce_ms: ArrayLike, *, exhaustive_limit: int = EXHAUSTIVE_LIMIT
) -> OrderChoice:
    """The order of one stage (1-D inputs) minimising the refined stage time.

    Exhaustive up to ``exhaustive_limit`` jobs, Johnson's rule above (both optimal here).
    """
    m, r = _as_pair(map_ms, reduce_ms)
    if m.ndim != 1:
        raise ValueError("best_order takes one stage (1-D map_ms and reduce_ms)")
    if m.size == 1:
        return OrderChoice((0,), float(m[0] + r[0]), "single")
    if m.size <= exhaustive_limit:
        return exhaustive_order(m, r)
    order = johnson_order(m, r)
    return OrderChoice(
        tuple(int(i) for i in order), float(refined_stage_ms(m[order], r[order])), "johnson"
    )


def johnson_stage_ms(map_ms: ArrayLike, reduce_ms: ArrayLike) -> NDArray[np.float64]:
    """Refined stage time under Johnson's order, vectorised over leading axes (shape ``(...)``).

    This is the optimal refined stage time, which the workflow tuner needs for every candidate.
    """
    m, r = _as_pair(map_ms, reduce_ms)
    order = johnson_order(m, r)
    return refined_stage_ms(
        np.take_along_axis(m, order, axis=-1), np.take_along_axis(r, order, axis=-1)
    )
