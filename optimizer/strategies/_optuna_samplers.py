"""Optuna strategies beside TPE: CMA-ES, NSGA-II (the multi-objective default) and grid.

Each is an :class:`~mrtune.optimizer.strategies._optuna.OptunaStrategy` with its own sampler,
so it shares the batched ask-and-tell loop, the study storage and the trial parameters
described in :mod:`mrtune.optimizer.strategies._optuna`. Split from that module by what it
holds: the base class and TPE (the default) there, the other samplers here.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.trial import TrialState

from mrtune.optimizer.objective import ObjectiveKind
from mrtune.optimizer.strategies._base import (
    current_row,
    grid_of,
)
from mrtune.optimizer.strategies._grid_tools import (
    product_size,
)
from mrtune.optimizer.strategies._optuna import OptunaStrategy, _param
from mrtune.optimizer.strategies._polish import screen_and_polish
from mrtune.search_spaces.knobs import find_knob

if TYPE_CHECKING:
    from mrtune.optimizer.objective import Objective
    from mrtune.search_spaces import SearchSpace


# ---------------------------------------------------------------------- CMA-ES
class CmaEsStrategy(OptunaStrategy):
    """Optuna's CMA-ES over the numeric knobs, in their own ranges (log scale where declared).

    Optuna's sampler maps the numeric parameters onto a unit cube itself (log scale for log
    distributions), so ``sigma0`` is a share of each knob's range, and the trials keep the
    knobs' real values. CMA-ES has no categorical parameters: the codec knobs and the combiner
    switch are drawn by Optuna's independent (seeded random) sampler. The search starts from
    the current configuration; one batch is one CMA-ES generation (``popsize`` candidates).
    """

    name = "cmaes"
    default_trials = 600

    def __init__(
        self,
        *,
        sigma0: float = 0.25,
        popsize: int | None = None,
        storage: str | None = None,
        study_name: str | None = None,
        resume: bool = False,
    ) -> None:
        super().__init__(
            batch_size=popsize or 16, storage=storage, study_name=study_name, resume=resume
        )
        self.sigma0 = sigma0
        self.popsize = popsize

    def _popsize(self, space: SearchSpace) -> int:
        return self.popsize or 4 + int(3 * math.log(len(space.knobs)))

    def batch(self, space: SearchSpace) -> int:
        return self._popsize(space)

    def make_sampler(self, space: SearchSpace, seed: int | None) -> optuna.samplers.BaseSampler:
        cur = current_row(space)
        dists = self.distributions(space)
        x0 = {
            n: _param(d, n, cur[n])
            for n, d in dists.items()
            if isinstance(d, (IntDistribution, FloatDistribution))
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return optuna.samplers.CmaEsSampler(
                x0=x0,
                sigma0=self.sigma0,
                seed=seed,
                popsize=self._popsize(space),
                n_startup_trials=0,
                independent_sampler=optuna.samplers.RandomSampler(seed=seed),
                warn_independent_sampling=False,
            )

    def describe(self) -> str:
        return f"CMA-ES on the numeric knobs (sigma0={self.sigma0} of each range)"


# ---------------------------------------------------------------------- NSGA-II
class NSGAIIStrategy(OptunaStrategy):
    """Optuna's NSGA-II over job time and container GB-seconds (both minimised).

    ``pareto`` holds the non-dominated configurations of all trials; ``best_values`` is the
    front's point that is best for the objective's ``kind`` (GB-seconds for ``resources``,
    job time otherwise). One batch is one generation (``population_size`` trials).
    """

    name = "nsga2"
    default_trials = 600
    multi_objective = True

    def __init__(
        self,
        *,
        population_size: int = 50,
        warm_start: bool = True,
        n_screen: int = 1_000,
        n_warm: int = 4,
        storage: str | None = None,
        study_name: str | None = None,
        resume: bool = False,
    ) -> None:
        super().__init__(
            batch_size=population_size, storage=storage, study_name=study_name, resume=resume
        )
        self.population_size = population_size
        self.warm = warm_start
        self.n_screen = n_screen
        self.n_warm = n_warm

    def make_sampler(self, space: SearchSpace, seed: int | None) -> optuna.samplers.BaseSampler:
        return optuna.samplers.NSGAIISampler(population_size=self.population_size, seed=seed)

    def warm_start(
        self, space: SearchSpace, objective: Objective, seed: int | None
    ) -> tuple[list[dict[str, float]], str]:
        """The first generation holds both ends of the front: the current configuration and
        the ``n_warm`` best points of a screening + polish (:func:`screen_and_polish`) for job
        time and for GB-seconds. NSGA-II alone, from random points over ~15 knobs, converges
        on a narrow middle of the front in a few hundred trials; crossover between the two
        polished ends fills it in. Both polishes count in ``objective.evaluations``."""
        if not self.warm:
            return [], ""
        from mrtune.optimizer.objective import Objective as _Objective

        rows = [current_row(space)]
        evaluated = 0
        for kind in (ObjectiveKind.time, ObjectiveKind.resources):
            side = _Objective(space, kind)
            polished, n = screen_and_polish(
                space, side, n_screen=self.n_screen, n_keep=self.n_warm, seed=seed
            )
            rows.extend(polished[: self.n_warm])
            evaluated += n
        objective.evaluations += evaluated
        return rows, f"warm start: both ends of the front polished ({evaluated} evaluations)"

    def describe(self) -> str:
        return f"NSGA-II (population {self.population_size}) on job time and GB-seconds"


# ---------------------------------------------------------------------- grid
class GridStrategy(OptunaStrategy):
    """Optuna over the knobs' grids (the exhaustive strategy's grid).

    Grids of at most ``max_grid`` points use :class:`optuna.samplers.GridSampler` (every point
    once, in a seeded random order, trials capped at the grid's size). Larger grids (the full
    registry has ~10^11 points, which ``GridSampler`` would materialise, and
    ``BruteForceSampler`` re-scans all trials per suggestion) are sampled uniformly at random
    by :class:`optuna.samplers.RandomSampler` over each knob's grid values: a repeat is
    negligible at that size. Combinations the constraints forbid are repaired before
    evaluation.
    """

    name = "grid"
    default_trials = 600

    def __init__(
        self,
        *,
        max_grid: int = 200_000,
        batch_size: int = 32,
        storage: str | None = None,
        study_name: str | None = None,
        resume: bool = False,
    ) -> None:
        super().__init__(
            batch_size=batch_size, storage=storage, study_name=study_name, resume=resume
        )
        self.max_grid = max_grid

    def _grids(self, space: SearchSpace) -> dict[str, list[Any]]:
        """Each knob's grid in the knob's own values (codec names, booleans, numbers)."""
        return {n: [find_knob(n).decode(float(x)) for x in g] for n, g in grid_of(space).items()}

    def _size(self, space: SearchSpace) -> int:
        return product_size({n: np.asarray(g) for n, g in self._grids(space).items()})

    def max_trials(self, space: SearchSpace) -> int | None:
        size = self._size(space)
        return size if size <= self.max_grid else None

    def make_sampler(self, space: SearchSpace, seed: int | None) -> optuna.samplers.BaseSampler:
        if self._size(space) <= self.max_grid:
            return _AskTellGridSampler(self._grids(space), seed=seed)
        return optuna.samplers.RandomSampler(seed=seed)

    def distributions(self, space: SearchSpace) -> dict[str, BaseDistribution]:
        return {n: CategoricalDistribution(tuple(g)) for n, g in self._grids(space).items()}

    def describe(self) -> str:
        return "grid (GridSampler, or RandomSampler over the grid values of large grids)"


class _AskTellGridSampler(optuna.samplers.GridSampler):
    """``GridSampler`` without its ``study.stop()`` once the grid is done: that call is only
    allowed inside ``study.optimize``, and the ask-and-tell loop bounds the trials itself."""

    def after_trial(
        self,
        study: optuna.Study,
        trial: optuna.trial.FrozenTrial,
        state: TrialState,
        values: Sequence[float] | None,
    ) -> None:
        return None
