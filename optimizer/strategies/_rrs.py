"""Recursive Random Search (Ye & Kalyanaraman, SIGMETRICS 2003) as Starfish runs it.

Starfish's ``edu.duke.starfish.jobopt.rrs.RecursiveRandomSearch`` with its defaults
(``starfish.job.optimizer.*``): exploration confidence ``p = 0.99`` and percentile
``r = 0.1`` give ``n = round(ln(1-p)/ln(1-r)) = 44`` exploration samples; exploitation
confidence ``q = 0.99`` and expected value ``v = 0.8`` give ``l = round(ln(1-q)/ln(1-v)) = 3``
failures before the neighbourhood shrinks by ``c = 0.5``; exploitation stops when its scale
falls below ``st = 0.001``. A neighbourhood of scale ``ρ`` around ``x`` draws every coordinate
within ``ρ^(1/d)`` of the range around ``x`` (``IRRSSearchSpace.getRandomSpacePoint``), so
it holds a share ``ρ`` of the space. As in Starfish's code, the exploitation threshold is the
mean of the last ``n`` exploration samples, and the search stops after
``ceil(150·d^1.2)`` evaluations or ``ceil(80·d^1.2)`` evaluations without improvement, or
when ``n_trials`` evaluations are spent, whichever comes first.

"Smart" RRS is Starfish's ``SmartRRSJobOptimizer``: RRS over the map-side knobs first, with
the reducers ignored (we minimise the map stage's time, ``JobPrediction.map_stage_ms``; for
a resources objective, the full cost), then RRS over the remaining knobs with the map side
fixed at its best.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from mrtune.optimizer.objective import ObjectiveKind
from mrtune.optimizer.strategies._base import BaseStrategy, Row, SearchOutcome, current_row, row_of
from mrtune.search_spaces.knobs import Role

if TYPE_CHECKING:
    from mrtune.optimizer.objective import Objective
    from mrtune.search_spaces import SearchSpace

Cost = Callable[[np.ndarray], np.ndarray]


def recursive_random_search(
    cost: Cost,
    dim: int,
    budget: int,
    rng: np.random.Generator,
    *,
    p: float = 0.99,
    r: float = 0.1,
    q: float = 0.99,
    v: float = 0.8,
    c: float = 0.5,
    st: float = 0.001,
    history: list[float] | None = None,
) -> tuple[np.ndarray, float, int]:
    """RRS on the unit cube ``[0, 1]^dim``; ``cost`` maps points (k, dim) to costs (k,).

    Returns ``(best point, best cost, evaluations)``. Kept in the paper's order: an initial
    exploration of ``n`` points, then, each time an exploration point beats the ``r``-quantile
    threshold, an exploitation around it (:func:`_exploit`: re-align on improvement, shrink
    after ``l_fail`` failures).
    """
    n = round(math.log(1 - p) / math.log(1 - r))
    l_fail = round(math.log(1 - q) / math.log(1 - v))
    max_evals = min(budget, math.ceil(150 * dim**1.2))
    max_stall = math.ceil(80 * dim**1.2)
    f = _Counted(cost, history if history is not None else [])

    xs = rng.random((min(n, max_evals), dim))
    fx = f(xs)
    i0 = int(np.argmin(fx))
    x0, f0 = xs[i0].copy(), float(fx[i0])
    y_r = f0
    x_opt, f_opt = x0.copy(), f0
    last_change = f.count
    i = 0
    exploit = True
    explore_x = list(xs)
    explore_f = list(fx)
    while f.count < max_evals and f.count - last_change < max_stall:
        if exploit:
            x_l, f_l = _exploit(
                f, x0, f0, rng, r=r, st=st, c=c, l_fail=l_fail, max_evals=max_evals
            )
            exploit = False
            if f_l < f_opt:
                x_opt, f_opt = x_l.copy(), f_l
                last_change = f.count
        if f.count >= max_evals:
            break
        x0 = rng.random(dim)
        f0 = float(f(x0)[0])
        if i < len(explore_x):
            explore_x[i], explore_f[i] = x0, f0
        if f0 < y_r:
            exploit = True
        i += 1
        if i == n:
            y_r = float(np.mean(explore_f))
            i = 0
        if f0 < f_opt:
            x_opt, f_opt = x0.copy(), f0
            last_change = f.count
    return x_opt, f_opt, f.count


class _Counted:
    """``cost`` with its evaluations counted and recorded: the budget and the stall rule of
    :func:`recursive_random_search` read the count, ``history`` keeps every cost seen."""

    def __init__(self, cost: Cost, history: list[float]) -> None:
        self.cost = cost
        self.history = history
        self.count = 0

    def __call__(self, x: np.ndarray) -> np.ndarray:
        y = self.cost(np.atleast_2d(x))
        self.count += len(y)
        self.history.extend(float(t) for t in y)
        return y


def _exploit(
    f: _Counted,
    x0: np.ndarray,
    f0: float,
    rng: np.random.Generator,
    *,
    r: float,
    st: float,
    c: float,
    l_fail: int,
    max_evals: int,
) -> tuple[np.ndarray, float]:
    """RRS's exploitation phase around ``x0``: sample the box of volume ``rho``; re-align on
    an improvement; after ``l_fail`` failures in a row shrink the box by ``c``; stop when it
    is smaller than ``st`` or the budget is spent."""
    dim = len(x0)
    j = 0
    x_l, f_l = x0.copy(), f0
    rho = r
    while rho > st and f.count < max_evals:
        half = rho ** (1.0 / dim)
        lo = np.clip(x_l - half, 0.0, 1.0)
        hi = np.clip(x_l + half, 0.0, 1.0)
        xp = lo + rng.random(dim) * (hi - lo)
        fp = float(f(xp)[0])
        if fp < f_l:
            x_l, f_l = xp, fp
            j = 0
        else:
            j += 1
        if j == l_fail:
            rho *= c
            j = 0
    return x_l, f_l


class RRSStrategy(BaseStrategy):
    """Starfish's Recursive Random Search on the unit cube of all knobs (see module docstring).

    ``n_trials`` caps the evaluations (Starfish's own stopping rules may end it earlier).
    """

    name = "rrs"
    default_trials = 3000

    def __init__(
        self,
        *,
        p: float = 0.99,
        r: float = 0.1,
        q: float = 0.99,
        v: float = 0.8,
        c: float = 0.5,
        st: float = 0.001,
    ) -> None:
        for label, x in (("p", p), ("r", r), ("q", q), ("v", v), ("c", c), ("st", st)):
            if not 0.0 < x < 1.0:
                raise ValueError(f"RRS parameter {label} must be in (0, 1), got {label}={x}")
        self.p, self.r, self.q, self.v, self.c, self.st = p, r, q, v, c, st

    def _rrs(
        self, cost: Cost, dim: int, budget: int, rng: np.random.Generator, history: list[float]
    ) -> tuple[np.ndarray, float, int]:
        return recursive_random_search(
            cost,
            dim,
            budget,
            rng,
            p=self.p,
            r=self.r,
            q=self.q,
            v=self.v,
            c=self.c,
            st=self.st,
            history=history,
        )

    def _search(
        self,
        space: SearchSpace,
        objective: Objective,
        *,
        n_trials: int,
        seed: int | None,
    ) -> SearchOutcome:
        rng = np.random.default_rng(seed)
        history: list[float] = []

        def cost(u: np.ndarray) -> np.ndarray:
            return objective(space.repair(space.from_unit(u)))

        x, _, used = self._rrs(cost, len(space.knobs), n_trials, rng, history)
        best = row_of(space.repair(space.from_unit(x[None, :])), 0)
        return SearchOutcome(
            best_values=best, history=history, notes=f"RRS (Starfish defaults), {used} evaluations"
        )


class SmartRRSStrategy(RRSStrategy):
    """Starfish's "smart" RRS: map-side knobs first (reducers ignored), then the rest.

    The map phase gets a share of ``n_trials`` proportional to its number of knobs. Map-side
    knobs are those whose :attr:`Knob.side` is ``"map"`` plus the sort factor (it sizes the
    map-side merge).
    """

    name = "smart-rrs"
    default_trials = 3000

    def _search(
        self,
        space: SearchSpace,
        objective: Objective,
        *,
        n_trials: int,
        seed: int | None,
    ) -> SearchOutcome:
        rng = np.random.default_rng(seed)
        history: list[float] = []
        row = current_row(space)
        map_side = [k.name for k in space.knobs if k.side == "map" or k.role == Role.merge_factor]
        rest = [n for n in space.names if n not in map_side]
        ignore_reducers = objective.kind != ObjectiveKind.resources
        budget_map = (
            max(1, round(n_trials * len(map_side) / len(space.names))) if rest else n_trials
        )
        used_total = 0
        notes = []
        for phase, names, budget in (
            ("map", map_side, budget_map),
            ("reduce", rest, n_trials - budget_map),
        ):
            if not names or budget < 1:
                continue
            sub_hist: list[float] = []
            cost = self._subspace_cost(
                space, objective, names, row, phase == "map" and ignore_reducers
            )
            x, _, used = self._rrs(cost, len(names), budget, rng, sub_hist)
            row = self._apply(space, names, row, x)
            used_total += used
            if phase == "map" and ignore_reducers:
                # The map phase scored map-stage time; record job costs in the history.
                sub_hist = list(np.full(len(sub_hist), np.nan))
            history.extend(sub_hist)
            notes.append(f"{phase} side: {len(names)} knobs, {used} evaluations")
        final = float(objective({n: np.array([v]) for n, v in row.items()})[0])
        history = [h if np.isfinite(h) else final for h in history] + [final]
        return SearchOutcome(
            best_values=row,
            history=history,
            notes="smart RRS (Starfish defaults): " + "; ".join(notes),
        )

    @staticmethod
    def _subspace_cost(
        space: SearchSpace,
        objective: Objective,
        names: Sequence[str],
        row: Row,
        map_stage_only: bool,
    ) -> Cost:
        def cost(u: np.ndarray) -> np.ndarray:
            values = SmartRRSStrategy._values(space, names, row, u)
            if map_stage_only:
                return objective.predict(values).map_stage_ms
            return objective(values)

        return cost

    @staticmethod
    def _values(
        space: SearchSpace, names: Sequence[str], row: Row, u: np.ndarray
    ) -> dict[str, np.ndarray]:
        k = len(u)
        full = np.repeat(space.to_unit({n: np.array([row[n]]) for n in space.names}), k, axis=0)
        idx = [space.names.index(n) for n in names]
        full[:, idx] = u
        values = space.from_unit(full)
        for n in space.names:
            if n not in names:
                values[n] = np.full(k, row[n])  # exact, not via the unit-cube round trip
        return space.repair(values)

    @staticmethod
    def _apply(space: SearchSpace, names: Sequence[str], row: Row, x: np.ndarray) -> Row:
        values = SmartRRSStrategy._values(space, names, row, x[None, :])
        return row_of(values, 0)
