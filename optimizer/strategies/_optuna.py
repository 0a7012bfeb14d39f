"""Optuna strategies: the shared base and TPE (the default, warm-started); CMA-ES, NSGA-II and
grid are in :mod:`mrtune.optimizer.strategies._optuna_samplers`.

All of them run an Optuna study with the ask-and-tell interface in batches: ``study.ask`` a
batch of trials, evaluate the whole batch in one call of the vectorised cost model, then
``study.tell`` each result. Where the study lives is part of the strategy's settings, given when
it is built (:class:`StudyStorage`): in memory by default (fast, nothing written), or in
Optuna's RDB storage when a ``storage`` URL is given (any SQLAlchemy URL, or a file path taken
as SQLite), so a search can be resumed by name (DESIGN decision 7).

Each trial's parameters are the knobs' Hadoop property names with the knobs' own values and
Optuna distributions (integers, floats on their log scale where declared, codec names,
``True``/``False`` for the combiner), so a stored study opens in optuna-dashboard as a
configuration; :meth:`Knob.encode` turns them into the model's numbers. Proposed values are
repaired (:meth:`SearchSpace.repair`) before they are evaluated; the value told to Optuna is
the cost of the repaired configuration, and the answer is the repaired configuration.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

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
    BaseStrategy,
    SearchOutcome,
    Values,
    row_of,
)
from mrtune.optimizer.strategies._polish import knob_distributions, screen_and_polish
from mrtune.optimizer.strategies._study import StudyStorage, completed_trials, open_study
from mrtune.search_spaces.knobs import find_knob

if TYPE_CHECKING:
    from mrtune.optimizer.objective import Objective
    from mrtune.search_spaces import SearchSpace

optuna.logging.set_verbosity(optuna.logging.WARNING)

#: Names of the values told to Optuna (shown by optuna-dashboard and the plots).
METRIC_NAMES = {"time": "job_ms", "resources": "container_gb_s"}


def _param(dist: BaseDistribution, name: str, value: float) -> Any:
    """An encoded value as the Python value ``dist`` holds (a knob value, or a grid point)."""
    knob = find_knob(name)
    if knob.kind in {"categorical", "bool"}:
        return knob.decode(value)
    if isinstance(dist, CategoricalDistribution):
        return min(dist.choices, key=lambda c: abs(float(c) - value))  # type: ignore[arg-type]
    if isinstance(dist, IntDistribution):
        return int(min(max(round(value), dist.low), dist.high))
    assert isinstance(dist, FloatDistribution)
    return float(min(max(value, dist.low), dist.high))


class OptunaStrategy(BaseStrategy):
    """Shared study handling and the batched ask/evaluate/tell loop.

    Subclasses give the sampler, the parameter distributions, and optionally a warm start
    (trials to enqueue before sampling). Every one takes ``storage``, ``study_name`` and
    ``resume`` (see :class:`StudyStorage`).
    """

    uses_storage: ClassVar[bool] = True

    def __init__(
        self,
        *,
        batch_size: int = 16,
        storage: str | None = None,
        study_name: str | None = None,
        resume: bool = False,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size=}")
        self.batch_size = batch_size
        self.study = StudyStorage(storage, study_name, resume)

    # ------------------------------------------------------------------ hooks
    def make_sampler(self, space: SearchSpace, seed: int | None) -> optuna.samplers.BaseSampler:
        raise NotImplementedError

    def distributions(self, space: SearchSpace) -> dict[str, BaseDistribution]:
        return knob_distributions(space)

    def params_to_values(self, space: SearchSpace, params: Sequence[Mapping[str, Any]]) -> Values:
        """Trial parameters (knob values) → encoded model numbers."""
        return {k.name: np.array([k.encode(p[k.name]) for p in params]) for k in space.knobs}

    def warm_start(
        self, space: SearchSpace, objective: Objective, seed: int | None
    ) -> tuple[list[dict[str, float]], str]:
        """Configurations to enqueue before sampling starts, and a note."""
        return [], ""

    # ------------------------------------------------------------------ study handling
    def _directions(self) -> list[str]:
        return ["minimize", "minimize"] if self.multi_objective else ["minimize"]

    def _metric_names(self, objective: Objective) -> list[str]:
        if self.multi_objective:
            return [METRIC_NAMES["time"], METRIC_NAMES["resources"]]
        return [METRIC_NAMES.get(str(objective.kind), METRIC_NAMES["time"])]

    def open_study(
        self, space: SearchSpace, objective: Objective, sampler: optuna.samplers.BaseSampler
    ) -> optuna.Study:
        """The study of this search (see :func:`~mrtune.optimizer.strategies._study.open_study`)."""
        return open_study(
            self.study,
            default_name=f"mrtune-{space.profile.job_id}-{self.name}-{objective.kind}",
            directions=self._directions(),
            sampler=sampler,
            knobs=space.names,
            labels={
                "job_id": space.profile.job_id,
                "strategy": self.name,
                "objective": str(objective.kind),
            },
            metric_names=self._metric_names(objective),
        )

    def _search(
        self, space: SearchSpace, objective: Objective, *, n_trials: int, seed: int | None
    ) -> SearchOutcome:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            probe = self.make_sampler(space, seed)
            study = self.open_study(space, objective, probe)
            done = completed_trials(study)
            if done:
                # A resumed study continues with a generator that differs from the first run's.
                study.sampler = self.make_sampler(space, None if seed is None else seed + done)
            notes = [
                f"study {study.study_name!r}"
                + (f" resumed at {done} trials" if done else "")
                + (" (in memory)" if self.study.url is None else "")
            ]
            dists = self.distributions(space)
            if not done and not study.trials:
                warm, note = self.warm_start(space, objective, seed)
                for row in warm[:n_trials]:
                    study.enqueue_trial({n: _param(dists[n], n, row[n]) for n in dists})
                if note:
                    notes.append(note)
            remaining = max(n_trials - done, 0)
            cap = self.max_trials(space)
            if cap is not None and done + remaining > cap:
                remaining = max(cap - done, 0)
                notes.append(f"capped at the {cap} points of the grid")
            self._run_trials(space, objective, study, dists, remaining)
            notes.append(f"{self.describe()}, {n_trials} trials in batches of {self.batch(space)}")
            return self._outcome(space, objective, study, "; ".join(notes))

    def _run_trials(
        self,
        space: SearchSpace,
        objective: Objective,
        study: optuna.Study,
        dists: dict[str, BaseDistribution],
        remaining: int,
    ) -> None:
        batch = self.batch(space)
        while remaining > 0:
            k = min(batch, remaining)
            trials = [study.ask(dists) for _ in range(k)]
            values = space.repair(self.params_to_values(space, [t.params for t in trials]))
            if self.multi_objective:
                t_ms, gb_s = objective.both(values)
                for t, a, b in zip(trials, t_ms, gb_s, strict=True):
                    study.tell(t, [float(a), float(b)])
            else:
                cost = objective(values)
                for t, c in zip(trials, cost, strict=True):
                    study.tell(t, float(c))
            remaining -= k

    def describe(self) -> str:
        return type(self).__name__

    def batch(self, space: SearchSpace) -> int:
        """Trials asked (and evaluated in one model call) per round."""
        return self.batch_size

    def max_trials(self, space: SearchSpace) -> int | None:
        """Most trials worth running (a finite grid), or ``None``."""
        return None

    def _outcome(
        self, space: SearchSpace, objective: Objective, study: optuna.Study, notes: str
    ) -> SearchOutcome:
        trials = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
        values = space.repair(self.params_to_values(space, [t.params for t in trials]))
        if self.multi_objective:
            return self._front_outcome(objective, study, trials, values, notes)
        cost = np.array([t.value for t in trials])
        i = int(np.argmin(cost))
        return SearchOutcome(
            best_values=row_of(values, i), history=list(cost), notes=notes, study=study
        )

    def _front_outcome(
        self,
        objective: Objective,
        study: optuna.Study,
        trials: list[optuna.trial.FrozenTrial],
        values: Values,
        notes: str,
    ) -> SearchOutcome:
        """The study's Pareto front (Optuna's :attr:`~optuna.study.Study.best_trials`), sorted
        by job time, identical points once; ``best_values`` is the front's best point for the
        objective's ``kind`` (GB-seconds for ``resources``, job time otherwise: the knee or a
        limit is chosen later, by :func:`mrtune.optimizer.pareto.settle`)."""
        t_ms = np.array([t.values[0] for t in trials])
        gb_s = np.array([t.values[1] for t in trials])
        position = {t.number: i for i, t in enumerate(trials)}
        on_front = sorted(
            {position[t.number] for t in study.best_trials if t.number in position},
            key=lambda i: (t_ms[i], gb_s[i], i),
        )
        seen: set[tuple[float, float]] = set()
        front = []
        for i in on_front:
            if (t_ms[i], gb_s[i]) not in seen:
                seen.add((t_ms[i], gb_s[i]))
                front.append(i)
        pareto = [(row_of(values, i), float(t_ms[i]), float(gb_s[i])) for i in front]
        cost = gb_s if objective.kind == ObjectiveKind.resources else t_ms
        return SearchOutcome(
            best_values=row_of(values, int(np.argmin(cost))),
            history=list(cost),
            pareto=pareto,
            notes=notes,
            study=study,
        )


class TPEStrategy(OptunaStrategy):
    """Optuna's TPE, warm-started by a vectorised screening of the grid (the default).

    What runs, in order:

    1. **Screening** (``warm_start=True``): ``n_screen`` random points of the knobs' grids and
       the current configuration go through the cost model in one vectorised call.
    2. **Polish**: vectorised coordinate descent from the ``n_warm`` best distinct screening
       points (all starts in one model call per block): single knobs over their whole grid
       and the pairs the model couples most (:data:`COUPLED_PAIRS`: sort buffer with spill
       percent or split size, split size with reducers, reducers with the shuffle buffer …),
       first on the registry grids, then on finer grids over each knob's whole range (64
       values per knob, 16 × 16 per pair), until nothing improves
       (:func:`screen_and_polish`). The fine pass matters: the model rewards values between
       grid points (a split size that fills the last wave, a buffer that holds one spill).
    3. **TPE**: the polished points are enqueued (``study.enqueue_trial``) as the first trials;
       multivariate TPE with the constant liar then samples the knobs' *full* ranges (not only
       the grid) for the rest of the ``n_trials``, ``batch_size`` trials per model call.

    Screening and polish cost ~20–250 k model evaluations in ~10–30 model calls (~0.1–0.3 s
    of CPU); each TPE trial costs ~10–30 ms of sampler time. The default budget is the 16
    polished points (``n_warm``), so the default ``mrtune optimize`` runs no TPE sample: over
    the README example and 15 profiles × 3 seeds (``benchmarks/bench_startup.py --quality``)
    the best trial was the zoomed polish point (trial 0) in 48 of 48 runs, with 8 TPE
    samples after the polished points as with none; those 8 samples cost ~0.15-0.25 s of
    the command's CPU without changing an answer. ``--trials N`` (N > 16) buys TPE samples
    after the polished points, in batches of ``batch_size``.

    With ``warm_start=False`` it is plain TPE (``"tpe-plain"`` in the registry).
    """

    name = "tpe"
    default_trials = 16

    def __init__(
        self,
        *,
        warm_start: bool = True,
        n_screen: int = 3_000,
        n_warm: int = 16,
        batch_size: int = 16,
        n_startup_trials: int = 10,
        storage: str | None = None,
        study_name: str | None = None,
        resume: bool = False,
    ) -> None:
        super().__init__(
            batch_size=batch_size, storage=storage, study_name=study_name, resume=resume
        )
        self.warm = warm_start
        self.n_screen = n_screen
        self.n_warm = n_warm
        self.n_startup_trials = n_startup_trials

    def make_sampler(self, space: SearchSpace, seed: int | None) -> optuna.samplers.BaseSampler:
        return optuna.samplers.TPESampler(
            seed=seed,
            multivariate=True,
            constant_liar=True,
            n_startup_trials=self.n_startup_trials,
        )

    def describe(self) -> str:
        return "multivariate TPE" + (
            " warm-started by screening + grid polish" if self.warm else ""
        )

    def warm_start(
        self, space: SearchSpace, objective: Objective, seed: int | None
    ) -> tuple[list[dict[str, float]], str]:
        if not self.warm:
            return [], ""
        rows, evaluated = screen_and_polish(
            space, objective, n_screen=self.n_screen, n_keep=self.n_warm, seed=seed
        )
        return rows, f"warm start: {evaluated} screening/polish evaluations"


class PlainTPEStrategy(TPEStrategy):
    """Plain multivariate TPE (no screening warm start), for comparisons."""

    name = "tpe-plain"
    default_trials = 200

    def __init__(
        self,
        *,
        batch_size: int = 16,
        n_startup_trials: int = 10,
        storage: str | None = None,
        study_name: str | None = None,
        resume: bool = False,
    ) -> None:
        super().__init__(
            warm_start=False,
            batch_size=batch_size,
            n_startup_trials=n_startup_trials,
            storage=storage,
            study_name=study_name,
            resume=resume,
        )
