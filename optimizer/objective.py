"""What a search minimises: the cost model's job time or resource use, vectorised.

An :class:`Objective` evaluates arrays of knob values (dict name → ndarray, as produced by
:class:`~mrtune.search_spaces.SearchSpace`) in one call of :func:`mrtune.costmodel.predict_job`, and counts how
many configurations it has evaluated, so that strategies can be compared on equal budgets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from mrtune.costmodel import JobPrediction, JobProfile, evaluate, predict_job
from mrtune.search_spaces import SearchSpace

Values = dict[str, np.ndarray]


class ObjectiveKind(StrEnum):
    """``time``: predicted job time (ms); ``resources``: container GB-seconds;
    ``pareto``: both (multi-objective strategies only); ``robust``: the
    :data:`ROBUST_PERCENTILE` of the job time over the evidence samples
    (:mod:`mrtune.optimizer.confidence`): a configuration must be fast where the cost factors
    are as the history says *and* where the defaulted ones are off, not only at the point
    estimate (``mrtune optimize``'s default)."""

    time = "time"
    resources = "resources"
    pareto = "pareto"
    robust = "robust"


#: The percentile of the sampled job time the robust objective minimises: the time the job
#: stays under in 9 of 10 draws of the evidence.
ROBUST_PERCENTILE = 90.0


def point_kind(kind: ObjectiveKind) -> ObjectiveKind:
    """What a search minimises for ``kind``: the point prediction of ``time`` or
    ``resources`` (``robust`` searches the point job time and re-scores its final candidates,
    :func:`~mrtune.optimizer.recommend.recommend`; ``pareto``'s single-objective parts are
    job time)."""
    return kind if kind == ObjectiveKind.resources else ObjectiveKind.time


#: Progress hook: ``(configurations evaluated so far, best cost so far)``.
ProgressHook = Callable[[int, float], None]


@dataclass
class Objective:
    """Vectorised objective over a :class:`SearchSpace`.

    ``on_evaluate``, when given, is called after every model call with the number of
    configurations evaluated so far and the lowest cost seen (job ms, or GB-seconds for
    ``resources``): every strategy evaluates only through its objective, so this one hook
    reports the progress of any of them (the CLI's status line).
    """

    space: SearchSpace
    kind: ObjectiveKind = ObjectiveKind.time
    on_evaluate: ProgressHook | None = None
    evaluations: int = field(default=0, init=False)
    best: float = field(default=float("inf"), init=False)

    def predict(self, values: Values) -> JobPrediction:
        """The full prediction for repaired ``values`` (all arrays of equal length)."""
        batch = self.space.to_batch(values)
        pred = predict_job(self.space.profile, batch, self.space.cluster)
        cost = pred.container_gb_s if self.kind == ObjectiveKind.resources else pred.job_ms
        self._count(len(batch), np.asarray(cost))
        return pred

    def __call__(self, values: Values) -> np.ndarray:
        """Cost per configuration, shape (n,): job ms or GB-seconds (see ``kind``)."""
        job_ms, gb_s = self.both(values)
        return gb_s if self.kind == ObjectiveKind.resources else job_ms

    def both(self, values: Values) -> tuple[np.ndarray, np.ndarray]:
        """(job ms, container GB-s) per configuration, for Pareto searches."""
        batch = self.space.to_batch(values)
        job_ms, gb_s = evaluate(self.space.profile, batch, self.space.cluster)
        self._count(len(batch), gb_s if self.kind == ObjectiveKind.resources else job_ms)
        return job_ms, gb_s

    def _count(self, n: int, cost: np.ndarray) -> None:
        self.evaluations += n
        finite = cost[np.isfinite(cost)]
        if finite.size:
            self.best = min(self.best, float(finite.min()))
        if self.on_evaluate is not None:
            self.on_evaluate(self.evaluations, self.best)


@dataclass
class RobustCost:
    """The robust objective (:data:`ROBUST_PERCENTILE` of the job time over ``samples``, the
    evidence's profiles) for rows of knob values: samples × rows in one model call."""

    space: SearchSpace
    samples: Sequence[JobProfile]

    def __call__(self, values: Values) -> np.ndarray:
        from mrtune.optimizer.confidence import evaluate_profiles

        job_ms, _ = evaluate_profiles(
            self.samples, self.space.to_batch(values), self.space.cluster
        )
        return np.percentile(job_ms, ROBUST_PERCENTILE, axis=0)
