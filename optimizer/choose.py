"""From a search result to the row a recommendation writes: the Pareto point or the pruned
best (:func:`best_row`), then, with evidence, the row left when the low-confidence changes are
taken out (:func:`trusted_row`).

Split from :mod:`mrtune.optimizer.recommend` by what it holds: the choice of the row, where
``recommend.py`` holds the search, the explanation and the :class:`Recommendation` itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mrtune.costmodel import ClusterSpec
from mrtune.optimizer.objective import Objective, ObjectiveKind, Values
from mrtune.optimizer.pareto import ParetoChoice, settle
from mrtune.optimizer.reverts import reverts
from mrtune.optimizer.strategies import SearchResult, get_strategy
from mrtune.optimizer.trust import (
    FAR,
    HISTORY,
    REPROFILE,
    assess_changes,
    confident_row,
    trust_region,
)
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


@dataclass
class Trusted:
    """What :func:`trusted_row` decided: the row written and the assessments behind it."""

    #: the row written (the search's best, or what the trust rule leaves of it)
    row: dict[str, float]
    #: the assessment of every change of ``row`` (and of the changes dropped on the way)
    trust: dict[str, Any] = field(default_factory=dict)
    #: the assessment of every change of the search's best, as the optimum shown beside
    #: ``row`` when that differs (the low-confidence option)
    full: dict[str, Any] = field(default_factory=dict)
    #: the best moves a size or count beyond the trust region, and that move is not written
    far: bool = False
    #: ``row`` is the best of a second search inside the trust region
    #: (:func:`~.trust.trust_region`)
    in_region: bool = False


#: Runs the search again in the space it is given and returns the pruned best row there.
RegionSearch = Callable[[SearchSpace], dict[str, float]]


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
    search_region: RegionSearch | None = None,
) -> Trusted:
    """With evidence, every change gets an interval (:mod:`mrtune.optimizer.trust`); the
    low-confidence changes are left out of the row returned (and so of what is written)
    unless ``include_low_confidence``, and what is left must still gain ``min_gain``.
    ``origin`` names what the far-move rule measured from (the history, or a replayed file).

    When the best moves a size or count beyond the trust region and ``search_region`` is
    given, the row written is the best configuration *inside* the region: the search runs
    again there (:func:`~.trust.trust_region`), so the other settings are chosen for the
    step written, and that row is re-assessed by the same rule. The best without its far
    changes is kept instead when it costs less (it lies in the region too)."""
    if ev is None:
        return Trusted(best)
    if include_low_confidence:
        changed = [k for k in best if not np.isclose(best[k], cur_row[k])]
        trust = assess_changes(ev, space, cluster, cur_row, best, changed, metric, origin)
        return Trusted(best, trust, trust)
    row, trust = confident_row(ev, space, cluster, cur_row, best, metric, origin)
    full, in_region = trust, False
    far = any(t.far for t in trust.values())
    if search_region is not None and far:
        start = search_region(trust_region(space, cur_row))
        r_row, r_trust = confident_row(ev, space, cluster, cur_row, start, metric, origin)
        if _cost(cost_of, r_row) <= _cost(cost_of, row):
            row, trust, in_region = r_row, r_trust, True
    if row != best and _cost(cost_of, row) > _cost(cost_of, cur_row) * (1 - min_gain):
        row = dict(cur_row)  # what is left gains too little to be worth writing
    return Trusted(row, trust, full, far, in_region and row != cur_row)


def region_search(
    space: SearchSpace,
    strategy: str,
    n_trials: int,
    seed: int | None,
    kind: ObjectiveKind,
    cost_of: CostOf,
    cur_row: dict[str, float],
    min_gain: float,
    limits: tuple[float | None, float | None],
) -> RegionSearch:
    """The search run again inside a region of ``space`` (:func:`~.trust.trust_region`): the
    same strategy, budget and seed, its study in memory, its best pruned as the first
    search's is (:func:`~.choose.best_row`, the changes scored by ``cost_of``)."""

    def search(region: SearchSpace) -> dict[str, float]:
        strat = get_strategy(strategy)
        res = strat.optimize(region, Objective(region, kind), n_trials=n_trials, seed=seed)
        return best_row(space, res, kind, cost_of, cur_row, min_gain, *limits)[0]

    return search


def option_trust(chosen: Trusted, withheld: list[Any]) -> None:
    """Give each change of the optimum that is not written as it is its assessment in the
    optimum (``chosen.full``). When a far move was withheld, a change that is sure on its own
    but whose value was chosen with that move (the row written sets another) is part of the
    low-confidence option and says so: every change left out carries its reason."""
    far = [c.name for c in withheld if getattr(chosen.full.get(c.name), "far", False)]
    for c in withheld:
        t = chosen.full.get(c.name)
        if t is not None and not t.reasons and chosen.far and far:
            why = (
                f"chosen together with the far move of {', '.join(far)}; the row written is "
                "searched without it"
            )
            t = dataclasses.replace(t, reasons=[why])
        c.trust = t


def far_option(chosen: Trusted, written: list[str], withheld: list[Any]) -> str | None:
    """Why the search's optimum is shown beside the row written instead of being written
    (``None`` when no far move was withheld): the low-confidence option's reason.
    ``written``: the names of the changes written; ``withheld``: the optimum's changes not
    written as they are in it (:class:`~mrtune.optimizer.explain.Change`, assessed)."""
    # as the change list shows them: the split knob as "input split size" (its values are the
    # split, written through split.minsize above the block), not split.maxsize
    far = [
        f"{c.label} {c.current}→{c.recommended}" for c in withheld if getattr(c.trust, "far", 0)
    ]
    if not chosen.far or not far:
        return None
    what = (
        f"the optimum moves {', '.join(far)} beyond the trust region (×1/{FAR:g}–×{FAR:g} "
        "of the value it starts from): low confidence, not written"
    )
    if chosen.in_region:
        return f"{what}; written instead: the best configuration inside the region; {REPROFILE}"
    if written:
        return f"{what}; written instead: its changes inside the region; {REPROFILE}"
    return (
        f"{what}; nothing inside the region gains enough to be written: profile a run with "
        "the setting moved towards the optimum, then optimize again"
    )


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
