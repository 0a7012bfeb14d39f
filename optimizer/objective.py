"""What a search minimises: the cost model's job time or resource use, vectorised.

An :class:`Objective` evaluates arrays of knob values (dict name → ndarray, as produced by
:class:`~mrtune.search_spaces.SearchSpace`) in one call of :func:`mrtune.costmodel.predict_job`, and counts how
many configurations it has evaluated, so that strategies can be compared on equal budgets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from mrtune.costmodel import JobPrediction, evaluate, predict_job
from mrtune.search_spaces import SearchSpace

Values = dict[str, np.ndarray]


class ObjectiveKind(StrEnum):
    """``time``: predicted job time (ms); ``resources``: container GB-seconds;
    ``pareto``: both (multi-objective strategies only)."""

    time = "time"
    resources = "resources"
    pareto = "pareto"


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
