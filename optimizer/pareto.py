"""The Pareto front of job time against container GB·s, and the one point recommended on it.

``mrtune optimize --objective pareto`` searches both objectives with NSGA-II
(:class:`~mrtune.optimizer.strategies.NSGAIIStrategy`). The front is Optuna's own
(:attr:`optuna.study.Study.best_trials`, computed here by :func:`non_dominated` for any set of
points, so no front function is hand-written). One point of that front is recommended:

* **the knee** by default. Each objective is normalised to [0, 1] over the front's own range
  (0 = the front's best value, 1 = its worst; a range under 1% of the best value counts as
  1%, see :func:`knee_index`), so that milliseconds and GB·s weigh alike; the
  two extremes (fastest, cheapest) then sit at (0, 1) and (1, 0), and the knee is the front
  point farthest from the straight line joining them, on the side of the origin: the largest
  ``(1 − t′ − g′) / √2``. It is the point where a further gain in one objective costs the most
  in the other (the "maximum distance to the extreme line" rule of Das, *Structural
  Optimization* 18, 1999, and Branke et al., PPSN VIII, 2004). Ties, and fronts of one or two
  points (every point lies on that line), go to the faster point.
* **the cheapest point within ``--max-time``**, or **the fastest within ``--max-resources``**;
  with both, the knee of the front's part that meets both. No front point within the limits is
  an error that names the nearest one.

Changes that gain less than ``min_gain`` on *both* objectives are reverted (as the
single-objective recommendation does): every front point of the search is simplified so, and
the simplified configurations join the candidates, with the current configuration, before the
front is taken; a last pass reverts changes of the chosen point only while the result stays
non-dominated. So the recommendation always lies on the front that is shown, which also
holds the current configuration (so "no change" is recommended when the current
configuration is the knee). The old rule (fastest trial, then greedy reverts scored by time
alone, then "no gain: keep current") could end on a point dominated by its own front.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from mrtune.errors import InputError
from mrtune.optimizer.reverts import reverts
from mrtune.optimizer.units import format_ms, parse_size

if TYPE_CHECKING:
    from mrtune.optimizer.strategies import SearchResult
    from mrtune.search_spaces import SearchSpace

Row = dict[str, float]


# ---------------------------------------------------------------------- limits on the command line
_DURATION = re.compile(
    r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?\d+)?)\s*(ms|s|sec|m|min|h|hr|d)\s*$", re.I
)
_DURATION_MS = {"ms": 1.0, "s": 1e3, "sec": 1e3, "m": 6e4, "min": 6e4, "h": 3.6e6, "hr": 3.6e6}
_DURATION_MS["d"] = 8.64e7
_RESOURCE = re.compile(
    r"^\s*(?P<size>[0-9]*\.?[0-9]+(?:[eE][+-]?\d+)?\s*[kKmMgGtTpP]i?[bB]?)"
    r"\s*[·*.\-x ]?\s*(?P<time>ms|s|sec|min|h|hr)\s*$"
)
_RESOURCE_FORMS = "memory × time, e.g. 200GB·s, 200GBs, 1.5TB*s, 512MB·s, 3GB·h (binary units)"


def parse_duration_ms(text: str, *, option: str = "--max-time") -> float:
    """Milliseconds from ``"5min"``, ``"90s"``, ``"1.5h"``, ``"250ms"``; a bare number is refused
    (``--max-time 5`` is more often a forgotten ``min`` than five milliseconds)."""
    m = _DURATION.match(str(text))
    if not m:
        raise InputError(
            "not a duration with a unit",
            field=option,
            value=text,
            allowed="e.g. 250ms, 90s, 5min, 2h",
        )
    ms = float(m.group(1)) * _DURATION_MS[m.group(2).lower()]
    if not math.isfinite(ms) or ms <= 0:
        raise InputError("a duration must be positive", field=option, value=text)
    return ms


def parse_gb_seconds(text: str, *, option: str = "--max-resources") -> float:
    """Container GiB·s (the model's ``container_gb_s``: MB held / 1024 × seconds) from
    ``"200GB·s"``, ``"200GBs"``, ``"1.5TB*s"``, ``"3GB·h"``. The memory part is read by
    :func:`~mrtune.optimizer.units.parse_size` (binary multiples, as Hadoop)."""
    m = _RESOURCE.match(str(text).replace("×", "x"))
    if not m:
        raise InputError(
            "not a resource amount with units", field=option, value=text, allowed=_RESOURCE_FORMS
        )
    try:
        size = parse_size(m.group("size"))
    except ValueError as exc:
        raise InputError(str(exc), field=option, value=text, allowed=_RESOURCE_FORMS) from None
    seconds = _DURATION_MS[m.group("time").lower()] / 1e3
    return size / 2**30 * seconds


# ---------------------------------------------------------------------- the front
def non_dominated(job_ms: np.ndarray, gb_s: np.ndarray) -> np.ndarray:
    """Indices of the points on the Pareto front of (job time, GB·s), both minimised, sorted
    by job time; of identical points the first is kept.

    The front is Optuna's :attr:`~optuna.study.Study.best_trials` of an in-memory study that
    holds the points as completed trials (``optuna.trial.create_trial``), so it is exactly the
    front Optuna shows for the NSGA-II study and in ``plot_pareto_front``.
    """
    import optuna

    t = np.asarray(job_ms, dtype=np.float64)
    g = np.asarray(gb_s, dtype=np.float64)
    ok = np.nonzero(np.isfinite(t) & np.isfinite(g))[0]
    if not ok.size:
        return np.zeros(0, dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = optuna.create_study(directions=["minimize", "minimize"])
        study.add_trials(
            [optuna.trial.create_trial(values=[float(t[i]), float(g[i])]) for i in ok]
        )
        best = sorted(tr.number for tr in study.best_trials)
    seen: set[tuple[float, float]] = set()
    keep = []
    for n in best:
        i = int(ok[n])
        if (t[i], g[i]) not in seen:
            seen.add((t[i], g[i]))
            keep.append(i)
    keep.sort(key=lambda i: (t[i], g[i]))
    return np.asarray(keep, dtype=np.int64)


def knee_index(job_ms: np.ndarray, gb_s: np.ndarray, *, resolution: float = 0.01) -> int:
    """Index of the knee of a front (module docstring): the largest distance to the line that
    joins the extremes in normalised objective space; ties go to the faster point.

    The span an objective is normalised by is at least ``resolution`` (1%) of its best value,
    so that a spread the recommendation would call no gain is not magnified to the whole
    [0, 1] range: on a front of 17.400 s / 36 GB·s and 17.407 s / 29 GB·s the 7 ms are 0.04 of
    the normalised time axis, not all of it, and the knee is the cheaper point.
    """
    t = np.asarray(job_ms, dtype=np.float64)
    g = np.asarray(gb_s, dtype=np.float64)
    if t.size == 0:
        raise ValueError("an empty front has no knee")

    def norm(x: np.ndarray) -> np.ndarray:
        span = max(float(x.max() - x.min()), resolution * abs(float(x.min())))
        return (x - x.min()) / span if span > 0 else np.zeros_like(x)

    dist = (1.0 - norm(t) - norm(g)) / math.sqrt(2.0)
    best = float(dist.max())
    ties = np.nonzero(np.isclose(dist, best, rtol=0, atol=1e-12))[0]
    return int(ties[np.argmin(t[ties])])


def choose(
    job_ms: np.ndarray,
    gb_s: np.ndarray,
    max_time_ms: float | None,
    max_gb_s: float | None,
    *,
    resolution: float = 0.01,
) -> tuple[int, str]:
    """The recommended front point (index) and the rule that chose it.

    Raises:
        InputError: no front point meets the limits (the message names the nearest one).
    """
    t = np.asarray(job_ms, dtype=np.float64)
    g = np.asarray(gb_s, dtype=np.float64)
    ok = np.ones(t.size, dtype=bool)
    if max_time_ms is not None:
        ok &= t <= max_time_ms
    if max_gb_s is not None:
        ok &= g <= max_gb_s
    if not ok.any():
        if max_time_ms is not None and max_gb_s is None:
            raise InputError(
                f"no configuration on the front finishes within {format_ms(max_time_ms)}; "
                f"the fastest takes {format_ms(float(t.min()))}",
                field="--max-time",
            )
        if max_gb_s is not None and max_time_ms is None:
            raise InputError(
                f"no configuration on the front uses at most {max_gb_s:,.1f} GB·s; "
                f"the cheapest uses {float(g.min()):,.1f} GB·s",
                field="--max-resources",
            )
        raise InputError(
            f"no configuration on the front meets both --max-time {format_ms(max_time_ms or 0)} "
            f"and --max-resources {max_gb_s or 0:,.1f} GB·s; the fastest takes "
            f"{format_ms(float(t.min()))}, the cheapest uses {float(g.min()):,.1f} GB·s",
            field="--max-time/--max-resources",
        )
    idx = np.nonzero(ok)[0]
    if max_time_ms is not None and max_gb_s is None:
        j = idx[np.lexsort((t[idx], g[idx]))[0]]
        return int(j), f"the cheapest within --max-time {format_ms(max_time_ms)}"
    if max_gb_s is not None and max_time_ms is None:
        j = idx[np.lexsort((g[idx], t[idx]))[0]]
        return int(j), f"the fastest within --max-resources {max_gb_s:,.1f} GB·s"
    j = idx[knee_index(t[idx], g[idx], resolution=resolution)]
    if max_time_ms is None:
        return int(j), "the knee (largest distance to the line joining the extremes)"
    return int(j), "the knee of the front's part within --max-time and --max-resources"


@dataclass
class FrontPoint:
    """One configuration of the front: encoded knob values and both predicted objectives."""

    values: Row
    job_ms: float
    gb_s: float
    #: ``search`` (a trial), ``current`` (the job's configuration) or ``reverted`` (the chosen
    #: point with changes gaining less than ``min_gain`` undone)
    source: str = "search"


@dataclass
class ParetoChoice:
    """The front (sorted by job time) and the recommended point on it."""

    front: list[FrontPoint]
    index: int
    rule: str
    max_time_ms: float | None = None
    max_gb_s: float | None = None
    reverted: list[str] = field(default_factory=list)

    @property
    def chosen(self) -> FrontPoint:
        return self.front[self.index]

    def differing_knobs(self) -> list[str]:
        """Knobs whose value is not the same on every front point (the trade-off's knobs),
        those that follow the trade-off most closely first: by the absolute rank correlation
        (Spearman's) of the knob's value with job time along the front."""
        if not self.front:
            return []
        names = list(self.front[0].values)
        from scipy.stats import rankdata

        diff = [n for n in names if len({round(p.values[n], 9) for p in self.front}) > 1]
        time_rank = rankdata([p.job_ms for p in self.front])

        def strength(n: str) -> float:
            r = rankdata([p.values[n] for p in self.front])
            if r.std() == 0 or time_rank.std() == 0:
                return 0.0
            return abs(float(np.corrcoef(r, time_rank)[0, 1]))

        return sorted(diff, key=lambda n: -strength(n))

    def to_json(self) -> dict[str, Any]:
        from mrtune.search_spaces import find_knob

        diff = self.differing_knobs()
        return {
            "rule": self.rule,
            "max_time_ms": self.max_time_ms,
            "max_container_gb_s": self.max_gb_s,
            "recommended_index": self.index,
            "reverted_changes": self.reverted,
            "differing_knobs": diff,
            "front": [
                {
                    "job_ms": p.job_ms,
                    "container_gb_s": p.gb_s,
                    "source": p.source,
                    "recommended": i == self.index,
                    "knobs": {n: find_knob(n).decode(p.values[n]) for n in diff},
                }
                for i, p in enumerate(self.front)
            ],
        }


def settle(
    space: SearchSpace,
    result: SearchResult,
    current: Row,
    *,
    min_gain: float,
    max_time_ms: float | None = None,
    max_gb_s: float | None = None,
) -> ParetoChoice:
    """The front of the search's points and the current configuration, and the point
    recommended on it (module docstring). All candidates are evaluated again, in one model
    call per step, so the objectives shown are exactly those of the configurations."""
    from mrtune.optimizer.objective import Objective, ObjectiveKind
    from mrtune.optimizer.strategies._base import as_values, row_of

    obj = Objective(space, ObjectiveKind.pareto)
    found = [dict(v) for v, _, _ in (result.pareto or [])]
    simpler = [_simplify(obj, r, current, min_gain) for r in found]
    rows = [dict(current), *found, *simpler]
    repaired = space.repair(as_values(rows))
    rows = [row_of(repaired, j) for j in range(len(rows))]
    sources = ["current"] + ["search"] * len(found) + ["reverted"] * len(simpler)
    t, g = obj.both(space.repair(as_values(rows)))
    front = non_dominated(t, g)
    rows, sources = [rows[i] for i in front], [sources[i] for i in front]
    t, g = t[front], g[front]
    i, rule = choose(t, g, max_time_ms, max_gb_s, resolution=max(min_gain, 1e-9))
    reverted: list[str] = []
    t0, g0 = float(t[i]), float(g[i])  # the reverts together stay within min_gain of these
    while True:
        changed = [k for k in rows[i] if not np.isclose(rows[i][k], current[k])]
        if not changed:
            break
        names, trials = reverts(space, rows[i], current, changed)
        if not trials:
            break
        tr, gr = obj.both(as_values(trials))
        ok = (tr <= t0 * (1 + min_gain)) & (gr <= g0 * (1 + min_gain))
        # the chosen point itself dominates any revert that costs anything at all, yet a revert
        # within min_gain replaces it: only the other front points may rule one out (else a
        # 0.0% change, 7 ms of 29.7 s, stayed in what is written)
        others = np.arange(len(t)) != i
        t_o, g_o = t[others], g[others]
        ok &= np.array([not _dominated(a, b, t_o, g_o) for a, b in zip(tr, gr, strict=True)])
        if max_time_ms is not None:
            ok &= tr <= max_time_ms
        if max_gb_s is not None:
            ok &= gr <= max_gb_s
        if not ok.any():
            break
        loss = np.maximum(tr / t0, gr / g0)
        j = int(np.argmin(np.where(ok, loss, np.inf)))
        reverted.append(names[j])
        # the front points the reverted one dominates leave the front (the chosen one stays)
        keep = ~((tr[j] <= t) & (gr[j] <= g) & ((tr[j] < t) | (gr[j] < g)))
        keep &= ~((t == tr[j]) & (g == gr[j]))  # the same point with fewer changes replaces it
        keep[i] = False  # as does the point it reverts, which it matches within min_gain
        rows = [r for r, k in zip(rows, keep, strict=True) if k] + [trials[j]]
        sources = [s for s, k in zip(sources, keep, strict=True) if k] + ["reverted"]
        t, g = np.append(t[keep], tr[j]), np.append(g[keep], gr[j])
        i = len(rows) - 1
    order = np.lexsort((g, t))
    points = [FrontPoint(rows[k], float(t[k]), float(g[k]), sources[k]) for k in order]
    return ParetoChoice(
        front=points,
        index=int(np.nonzero(order == i)[0][0]),
        rule=rule
        + (f"; {len(reverted)} change(s) gaining < {min_gain:.0%} undone" if reverted else ""),
        max_time_ms=max_time_ms,
        max_gb_s=max_gb_s,
        reverted=reverted,
    )


def _simplify(obj: Any, row: Row, current: Row, min_gain: float) -> Row:
    """``row`` with its changes reverted greedily, smallest loss first, while the result stays
    within ``min_gain`` of ``row`` on both objectives (a candidate for the front)."""
    from mrtune.optimizer.strategies._base import as_values

    t0, g0 = (float(x[0]) for x in obj.both(as_values([row])))
    best = dict(row)
    while True:
        changed = [k for k in best if not np.isclose(best[k], current[k])]
        if not changed:
            return best
        _, trials = reverts(obj.space, best, current, changed)
        if not trials:
            return best
        tr, gr = obj.both(as_values(trials))
        loss = np.maximum(tr / t0, gr / g0)
        j = int(np.argmin(loss))
        if loss[j] > 1 + min_gain:
            return best
        best = trials[j]


def _dominated(a: float, b: float, t: np.ndarray, g: np.ndarray) -> bool:
    """Whether (a, b) is dominated by a point of (t, g): no worse in both, better in one."""
    return bool(np.any((t <= a) & (g <= b) & ((t < a) | (g < b))))
