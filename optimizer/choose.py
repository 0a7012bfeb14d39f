"""From a search result to the row a recommendation writes: the Pareto point or the pruned
best (:func:`best_row`), then, with evidence, the row left when the low-confidence changes are
taken out (:func:`trusted_row`).

Split from :mod:`mrtune.optimizer.recommend` by what it holds: the choice of the row, where
``recommend.py`` holds the search, the explanation and the :class:`Recommendation` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mrtune.costmodel import ClusterSpec
from mrtune.optimizer.objective import ObjectiveKind, Values
from mrtune.optimizer.pareto import ParetoChoice, settle
from mrtune.optimizer.reverts import reverts
from mrtune.optimizer.strategies import SearchResult
from mrtune.optimizer.trust import HISTORY, assess_changes, confident_row
from mrtune.search_spaces import SearchSpace

CostOf = Callable[[Values], np.ndarray]


def best_row(
    space: SearchSpace,
    result: SearchResult,
    objective: ObjectiveKind,
    cost_of: CostOf,
    cur_row: dict[str, float],
    min_gain: float,
    max_time_ms: float | None,
    max_gb_s: float | None,
) -> tuple[dict[str, float], ParetoChoice | None]:
    """For ``pareto`` the point recommended lies on the front: its knee, or the best within
    ``max_time_ms`` / ``max_gb_s`` (:func:`mrtune.optimizer.pareto.settle`, which also does
    the pruning); otherwise the search's best with the changes under ``min_gain`` pruned
    (:func:`_prune`). Returns the row and the front (``None`` but for ``pareto``)."""
    if objective == ObjectiveKind.pareto:
        front = settle(
            space, result, cur_row, min_gain=min_gain, max_time_ms=max_time_ms, max_gb_s=max_gb_s
        )
        return dict(front.chosen.values), front
    return _prune(space, cost_of, cur_row, dict(result.best_values), min_gain), None


def trusted_row(
    ev: Any,
    space: SearchSpace,
    cluster: ClusterSpec,
    cur_row: dict[str, float],
    best: dict[str, float],
    metric: str,
    cost_of: CostOf,
    min_gain: float,
    include_low_confidence: bool,
    origin: str = HISTORY,
) -> tuple[dict[str, float], dict[str, Any]]:
    """With evidence, every change gets an interval (:mod:`mrtune.optimizer.trust`); the
    low-confidence changes are left out of the row returned (and so of what is written)
    unless ``include_low_confidence``, and what is left must still gain ``min_gain``.
    ``origin`` names what the far-move rule measured from (the history, or a replayed file).
    Returns the row and each change's trust."""
    row, trust = best, {}
    if ev is not None and include_low_confidence:
        changed = [k for k in best if not np.isclose(best[k], cur_row[k])]
        trust = assess_changes(ev, space, cluster, cur_row, best, changed, metric, origin)
    elif ev is not None:
        row, trust = confident_row(ev, space, cluster, cur_row, best, metric, origin)
        if row != best and _cost(cost_of, row) > _cost(cost_of, cur_row) * (1 - min_gain):
            row = dict(cur_row)  # what is left gains too little to be worth writing
    return row, trust


def _cost(cost_of: CostOf, row: dict[str, float]) -> float:
    return float(cost_of({k: np.array([v]) for k, v in row.items()})[0])


def _prune(
    space: SearchSpace,
    cost_of: CostOf,
    cur_row: dict[str, float],
    best: dict[str, float],
    min_gain: float,
) -> dict[str, float]:
    """Greedy pruning of the changes that gain less than ``min_gain`` (module doc). Each
    revert is repaired (:func:`~mrtune.optimizer.reverts.reverts`), so the row kept is the
    configuration scored and written."""

    def costs(rows: list[dict[str, float]]) -> np.ndarray:
        return cost_of({k: np.array([r[k] for r in rows]) for k in rows[0]})

    base_cost = float(costs([cur_row])[0])
    while True:
        changed = [k for k in best if not np.isclose(best[k], cur_row[k])]
        _, trials = reverts(space, best, cur_row, changed)
        if not trials:
            break
        both = costs([best, *trials])
        # Marginal gain of each change at the recommended configuration: how much slower it
        # gets without that one change. Measuring at the final point (not against the current
        # time) keeps the result stable: applying a recommendation and optimizing again
        # recommends nothing more.
        gains = (both[1:] - both[0]) / max(float(both[0]), 1e-9)
        j = int(np.argmin(gains))
        if gains[j] < min_gain:
            best = trials[j]
            continue
        break
    if float(costs([best])[0]) > base_cost * (1 - min_gain):
        best = dict(cur_row)
    return best


def space_current(space: SearchSpace) -> dict[str, float]:
    """The base configuration's knob values, encoded and repaired like search results."""
    cur = space.current_values()
    enc = {k.name: np.array([k.encode(cur[k.name])]) for k in space.knobs}
    return {k: float(v[0]) for k, v in enc.items()}
