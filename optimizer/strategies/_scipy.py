"""SciPy global optimisers on the unit cube: differential evolution and dual annealing.

Both see the knobs through the one shared encoder (:meth:`SearchSpace.from_unit`: log scale
where declared, categoricals and booleans by equal bins), so they never branch on a knob's type.
Every point is repaired before it is evaluated. Differential evolution evaluates a whole
population per call of the cost model (``vectorized=True``); dual annealing is sequential.
SciPy's gradient "polish" steps are off: the cost surface is piecewise constant in most knobs.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import numpy as np

from mrtune.optimizer.strategies._base import (
    BaseStrategy,
    SearchOutcome,
    as_values,
    current_row,
    row_of,
)

if TYPE_CHECKING:
    from mrtune.optimizer.objective import Objective
    from mrtune.search_spaces import SearchSpace


def _seed_kwargs(func: Any, seed: int | None) -> dict[str, Any]:
    """SciPy ≥ 1.15 takes ``rng``; older versions ``seed``."""
    params = inspect.signature(func).parameters
    if "rng" in params:
        return {"rng": np.random.default_rng(seed)}
    return {"seed": seed}


class _Tracker:
    """Evaluates unit-cube points and remembers the best repaired configuration."""

    def __init__(self, space: SearchSpace, objective: Objective) -> None:
        self.space = space
        self.objective = objective
        self.history: list[float] = []
        self.best_cost = np.inf
        self.best_row: dict[str, float] = current_row(space)

    def __call__(self, u: np.ndarray) -> np.ndarray:
        values = self.space.repair(self.space.from_unit(np.atleast_2d(u)))
        cost = self.objective(values)
        i = int(np.argmin(cost))
        if cost[i] < self.best_cost:
            self.best_cost = float(cost[i])
            self.best_row = row_of(values, i)
        self.history.extend(float(c) for c in cost)
        return cost


class DifferentialEvolutionStrategy(BaseStrategy):
    """:func:`scipy.optimize.differential_evolution`, vectorised, ``n_trials`` evaluations.

    Args:
        popsize: population multiplier (SciPy's ``popsize``: population = popsize × d); it is
            lowered when ``n_trials`` cannot pay for two generations.
        mutation, recombination, strategy: SciPy's settings.
    """

    name = "de"
    default_trials = 3000

    def __init__(
        self,
        *,
        popsize: int = 10,
        mutation: tuple[float, float] = (0.5, 1.0),
        recombination: float = 0.7,
        strategy: str = "best1bin",
    ) -> None:
        self.popsize = popsize
        self.mutation = mutation
        self.recombination = recombination
        self.strategy = strategy

    def _search(
        self,
        space: SearchSpace,
        objective: Objective,
        *,
        n_trials: int,
        seed: int | None,
    ) -> SearchOutcome:
        from scipy import optimize  # imported by the strategy that runs it (start-up time)

        d = len(space.knobs)
        track = _Tracker(space, objective)
        popsize = max(1, min(self.popsize, n_trials // (2 * d)))
        pop = max(popsize * d, 5)
        maxiter = max(0, n_trials // pop - 1)
        x0 = space.to_unit(as_values([current_row(space)]))[0]
        optimize.differential_evolution(
            lambda x: track(np.asarray(x).T),
            bounds=[(0.0, 1.0)] * d,
            strategy=self.strategy,
            maxiter=maxiter,
            popsize=popsize,
            mutation=self.mutation,
            recombination=self.recombination,
            tol=0.0,
            polish=False,
            init="latinhypercube",
            x0=x0,
            vectorized=True,
            updating="deferred",
            **_seed_kwargs(optimize.differential_evolution, seed),
        )
        return SearchOutcome(
            best_values=track.best_row,
            history=track.history,
            notes=f"differential evolution ({self.strategy}, population {pop}, "
            f"{maxiter} generations, {len(track.history)} evaluations)",
        )


class DualAnnealingStrategy(BaseStrategy):
    """:func:`scipy.optimize.dual_annealing` without local search, ``n_trials`` evaluations,
    started at the current configuration."""

    name = "dual-annealing"
    default_trials = 1500

    def __init__(self, *, initial_temp: float = 5230.0, visit: float = 2.62) -> None:
        self.initial_temp = initial_temp
        self.visit = visit

    def _search(
        self,
        space: SearchSpace,
        objective: Objective,
        *,
        n_trials: int,
        seed: int | None,
    ) -> SearchOutcome:
        from scipy import optimize  # imported by the strategy that runs it (start-up time)

        d = len(space.knobs)
        track = _Tracker(space, objective)
        x0 = space.to_unit(as_values([current_row(space)]))[0]
        optimize.dual_annealing(
            lambda x: float(track(x)[0]),
            bounds=[(0.0, 1.0)] * d,
            maxfun=n_trials,
            maxiter=max(1, n_trials),
            initial_temp=self.initial_temp,
            visit=self.visit,
            no_local_search=True,
            x0=x0,
            **_seed_kwargs(optimize.dual_annealing, seed),
        )
        return SearchOutcome(
            best_values=track.best_row,
            history=track.history,
            notes=f"dual annealing without local search, {len(track.history)} evaluations",
        )
