"""What a search minimises: the cost model's job time or resource use, vectorised.

An :class:`Objective` evaluates arrays of knob values (dict name → ndarray, as produced by
:class:`~mrtune.search_spaces.SearchSpace`) in one call of :func:`mrtune.costmodel.predict_job`, and counts how
many configurations it has evaluated, so that strategies can be compared on equal budgets.
"""

from __future__ import annotations

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


@dataclass
class Objective:
    """Vectorised objective over a :class:`SearchSpace`."""

    space: SearchSpace
    kind: ObjectiveKind = ObjectiveKind.time
    evaluations: int = field(default=0, init=False)

    def predict(self, values: Values) -> JobPrediction:
        """The full prediction for repaired ``values`` (all arrays of equal length)."""
        batch = self.space.to_batch(values)
        self.evaluations += len(batch)
        return predict_job(self.space.profile, batch, self.space.cluster)

    def __call__(self, values: Values) -> np.ndarray:
        """Cost per configuration, shape (n,): job ms or GB-seconds (see ``kind``)."""
        job_ms, gb_s = self.both(values)
        return gb_s if self.kind == ObjectiveKind.resources else job_ms

    def both(self, values: Values) -> tuple[np.ndarray, np.ndarray]:
        """(job ms, container GB-s) per configuration, for Pareto searches."""
        batch = self.space.to_batch(values)
        self.evaluations += len(batch)
        return evaluate(self.space.profile, batch, self.space.cluster)
