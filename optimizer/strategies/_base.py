"""The search-strategy contract (:class:`BaseStrategy`) and its result (:class:`SearchResult`).

Style: optuna's ``samplers/_base.py``: one abstract base whose docstring states the contract,
one private module per algorithm, and shared helpers here so that no strategy re-implements the
bookkeeping (timing, evaluation counting, the final repair-and-check of the answer).
"""

from __future__ import annotations

import abc
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from mrtune.errors import MrtuneError
from mrtune.search_spaces.knobs import Role

if TYPE_CHECKING:
    from mrtune.optimizer.objective import Objective
    from mrtune.search_spaces import SearchSpace

Values = dict[str, np.ndarray]
Row = dict[str, float]


class StudyError(MrtuneError, ValueError):
    """A stored Optuna study cannot be opened as asked (name taken, other knobs, no storage)."""


@dataclass
class SearchResult:
    """What a strategy found.

    Attributes:
        best_values: the best configuration as *encoded* knob values (codec knobs as integer
            codes, bools as 0/1), repaired and feasible (``space.feasible`` holds).
        best_cost: the objective's cost of ``best_values`` (job ms, or container GB-s for
            ``ObjectiveKind.resources``), evaluated once more on exactly those values.
        n_evaluations: configurations the cost model evaluated for this search (all phases,
            including screening and the final check).
        wall_time_s: wall-clock time of :meth:`BaseStrategy.optimize`.
        history: best cost so far after each trial (Optuna, RRS, SciPy) or each evaluated
            block (exhaustive); non-increasing.
        pareto: for multi-objective strategies, the non-dominated configurations as
            ``(values, job_ms, container_gb_s)``, sorted by job time; ``None`` otherwise.
        strategy: the registry name of the strategy that produced the result.
        notes: how the result was obtained (phases, budgets, exactness), for reports.
        study: the Optuna study of an Optuna strategy (in memory or stored: its trials carry
            the knobs' names and values), for plots and dashboards; ``None`` otherwise.
    """

    best_values: dict[str, float]
    best_cost: float
    n_evaluations: int
    wall_time_s: float
    history: list[float] = field(default_factory=list)
    pareto: list[tuple[dict[str, float], float, float]] | None = None
    strategy: str = ""
    notes: str = ""
    study: Any = field(default=None, repr=False, compare=False)


@dataclass
class SearchOutcome:
    """What :meth:`BaseStrategy._search` hands back to the template method."""

    best_values: Mapping[str, float]
    history: list[float] = field(default_factory=list)
    pareto: list[tuple[dict[str, float], float, float]] | None = None
    notes: str = ""
    study: Any = None


class BaseStrategy(abc.ABC):
    """Base class of every search strategy.

    Contract:

    * :meth:`optimize` is the only public entry point. It is a template method: it validates
      the arguments, starts the clock, calls the strategy's :meth:`_search`, then **repairs**
      the returned values with :meth:`SearchSpace.repair`, checks them with
      :meth:`SearchSpace.feasible` (a strategy that returns an infeasible configuration is a
      bug and raises ``AssertionError``), evaluates the final configuration once more so that
      ``best_cost`` is exactly the model's cost of ``best_values``, and fills in
      ``n_evaluations`` (from :attr:`Objective.evaluations`) and ``wall_time_s``.
    * :meth:`_search` must evaluate configurations only through the given
      :class:`~mrtune.optimizer.objective.Objective` (vectorised: pass many configurations per call;
      the cost model is built for arrays) and only propose values that are repaired before
      they are evaluated, so every configuration it scores is one Hadoop would accept.
    * Values are dicts ``{knob name: ndarray}`` of encoded numbers (see
      :meth:`SearchSpace.from_unit`); a single configuration is ``{knob name: float}``.
    * Randomness comes only from ``seed``: each call builds its own generators from it, so the
      same ``(space, objective kind, n_trials, seed)`` gives the same result, and two
      strategies (or two copies of one) never share random state. ``seed=None`` is
      non-deterministic.
    * Where a strategy keeps its trials is a setting, given when it is built: the Optuna
      strategies (:attr:`uses_storage`) take ``storage`` (``None`` = in memory; any SQLAlchemy
      URL or a SQLite file path), ``study_name`` and ``resume``; the others keep nothing, and
      :func:`~mrtune.optimizer.strategies.get_strategy` refuses those settings for them.
      :meth:`_search` therefore takes only what every strategy uses.
    * Many tiny searches (a batch catalog): a :attr:`stepwise` strategy also offers its
      search as a generator that yields the rows to cost and is sent their costs, so a caller
      can stack many jobs' rows into one model call; ``optimize`` drives the same generator
      through the objective, so both routes give the same answer.
    * Progress: every strategy evaluates through the objective, whose ``on_evaluate`` hook
      (:class:`~mrtune.optimizer.objective.Objective`) reports evaluations as they happen.
    * Thread safety: a strategy instance holds only its settings, so one instance may be used
      from several threads or processes at once (with a storage: each run opens its own
      study); the objective must not be shared.
    """

    #: Registry name (``get_strategy(name)``).
    name: ClassVar[str] = ""
    #: Budget used when the caller gives none (``mrtune optimize`` without ``--trials``): what
    #: the search benchmark shows the strategy needs to approach the optimum.
    default_trials: ClassVar[int] = 200
    #: Whether the strategy persists its trials in Optuna storage and can resume.
    uses_storage: ClassVar[bool] = False
    #: Whether the strategy searches job time and GB-seconds together (fills ``pareto``).
    multi_objective: ClassVar[bool] = False
    #: Whether the strategy also runs as a generator of the rows to cost (``steps(space, *,
    #: n_trials)``, e.g. :class:`~mrtune.optimizer.strategies.DescentStrategy`), so that many
    #: small searches run in lockstep with one stacked model call per round (the batch tuner).
    stepwise: ClassVar[bool] = False

    def optimize(
        self,
        space: SearchSpace,
        objective: Objective,
        *,
        n_trials: int,
        seed: int | None,
    ) -> SearchResult:
        """Search ``space`` for the configuration of lowest ``objective`` cost.

        Args:
            space: the knobs to tune and the job they apply to.
            objective: the vectorised cost (its ``kind`` says time or resources).
            n_trials: the strategy's budget, in its own unit (trials for Optuna and RRS,
                function evaluations for SciPy; the exhaustive strategy ignores it).
            seed: seed of every random choice; ``None`` for a fresh one.

        Returns:
            The :class:`SearchResult`; its ``best_values`` satisfy every constraint.

        Raises:
            ValueError: ``n_trials < 1`` or a space without knobs.
            StudyError: a stored study that cannot be created or resumed as asked.
        """
        if n_trials < 1:
            raise ValueError(f"n_trials must be >= 1, got {n_trials=}")
        if not space.knobs:
            raise ValueError("the search space has no knobs to tune")
        start = time.perf_counter()
        before = objective.evaluations
        outcome = self._search(space, objective, n_trials=n_trials, seed=seed)
        best = finalize_row(space, outcome.best_values)
        cost = float(objective(as_values([best]))[0])
        notes = outcome.notes
        history = list(np.minimum.accumulate(np.asarray(outcome.history, dtype=np.float64)))
        return SearchResult(
            best_values=best,
            best_cost=cost,
            n_evaluations=objective.evaluations - before,
            wall_time_s=time.perf_counter() - start,
            history=[float(h) for h in history],
            pareto=outcome.pareto,
            strategy=self.name,
            notes=notes,
            study=outcome.study,
        )

    @abc.abstractmethod
    def _search(
        self,
        space: SearchSpace,
        objective: Objective,
        *,
        n_trials: int,
        seed: int | None,
    ) -> SearchOutcome:
        """Run the search; return the best values found (repair happens afterwards)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in sorted(vars(self).items()))
        return f"{type(self).__name__}({params})"


# ---------------------------------------------------------------------- shared helpers
def as_values(rows: Sequence[Mapping[str, float]]) -> Values:
    """A list of single configurations → one dict of arrays (keys of the first row)."""
    names = list(rows[0])
    return {n: np.array([float(r[n]) for r in rows], dtype=np.float64) for n in names}


def row_of(values: Mapping[str, np.ndarray], i: int) -> Row:
    """Configuration ``i`` of a dict of arrays, as ``{name: float}``."""
    return {n: float(np.asarray(v)[i]) for n, v in values.items()}


def take(values: Mapping[str, np.ndarray], index: np.ndarray | slice) -> Values:
    """The configurations at ``index``."""
    return {n: np.asarray(v)[index] for n, v in values.items()}


def concat(parts: Sequence[Mapping[str, np.ndarray]]) -> Values:
    """Stack several dicts of arrays with the same keys."""
    return {n: np.concatenate([np.asarray(p[n]) for p in parts]) for n in parts[0]}


def finalize_row(space: SearchSpace, row: Mapping[str, float]) -> Row:
    """Complete ``row`` with current values, repair it, and insist that it is feasible."""
    cur = space.current_values()
    full = {k.name: float(row.get(k.name, k.encode(cur[k.name]))) for k in space.knobs}
    repaired = space.repair(as_values([full]))
    if not bool(space.feasible(repaired)[0]):
        raise AssertionError(f"strategy returned an infeasible configuration: {full}")
    return row_of(repaired, 0)


def current_row(space: SearchSpace) -> Row:
    """The base configuration's encoded value of every knob (repaired)."""
    cur = space.current_values()
    row = {k.name: k.encode(cur[k.name]) for k in space.knobs}
    return row_of(space.repair(as_values([row])), 0)


def grid_of(space: SearchSpace) -> dict[str, np.ndarray]:
    """Each knob's encoded grid (:meth:`Knob.grid_values`), without values no setting allows.

    ``io.sort.mb`` values above its cap (a share of the map heap, see
    :mod:`mrtune.search_spaces.constraints`) are dropped when the map container is not searched: the
    repair would map them all onto the cap, which is not a grid value. Other infeasible
    combinations (e.g. a single-shuffle limit above the merge percent) depend on two knobs and
    are filtered per configuration.
    """
    grids: dict[str, np.ndarray] = {}
    cur = current_row(space)
    capped = space.sort_buffer_cap_mb() is not None
    for k in space.knobs:
        g = np.unique(space.grid(k))
        if capped and k.role == Role.sort_buffer:
            probe = {n: np.full(len(g), cur[n]) for n in space.names}
            probe[k.name] = g
            ok = space.feasible(probe)
            g = g[ok] if ok.any() else np.array([cur[k.name]])
        grids[k.name] = g
    return grids


def snap_to_grid(space: SearchSpace, values: Mapping[str, float]) -> Row:
    """The nearest value of each knob's grid (in log distance for log-scale knobs)."""
    grids = grid_of(space)
    out: Row = {}
    for k in space.knobs:
        g = grids[k.name]
        x = float(values[k.name])
        if k.log and g.min() > 0 and x > 0:
            d = np.abs(np.log(g) - np.log(x))
        else:
            d = np.abs(g - x)
        out[k.name] = float(g[int(np.argmin(d))])
    return out
