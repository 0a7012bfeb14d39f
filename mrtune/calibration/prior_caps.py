"""A fixed-cost prior the history contradicts is capped by what the history observed (issue 20).

Where a history cannot separate a cluster-scale fixed cost (one spill per map, every reduce
fetching every map), the fit keeps its documented prior
(:data:`~mrtune.costmodel.cluster.YARN_COST_PRIORS`, Ceesay et al.'s 8-node cluster). A prior
is a guess about another cluster; the history still bounds it from above, because a phase time
holds every fixed cost Hadoop spends inside it: the model cannot charge more of a fixed cost in
a segment than the segment lasted. So a kept prior is capped at the smallest
``observed time ÷ count`` over the attempts' segments that hold it (``count``: how many of it
the segment holds in the model's own rows), and the fit is solved again, so the factors fitted
beside it see the capped value (:func:`solve_capped`). A cap that does not bind changes
nothing: the first solve is returned as it was.

Which segments bound which cost (:data:`BOUNDS`), and the Hadoop code path that puts the cost
there:

* ``spill_file_ns``: ``MapTask.runNewMapper`` reports the SORT phase (``mapFinishTime``,
  ``TaskAttemptImpl``) before ``output.close``, whose ``MapOutputBuffer.flush`` makes the
  final ``sortAndSpill`` and then ``mergeParts``: a ``.jhist``'s sort/spill segment
  (mapFinishTime → finish) holds the last spill's fixed cost; a task log's final spill holds
  it too, and a per-phase table's spill phase holds every spill's.
* ``read_fixed_ms``: ``RecordReader.initialize`` runs in ``runNewMapper`` before
  ``mapper.run``: the map phase (start → mapFinishTime), a per-phase table's read phase, or
  the whole attempt holds it once per map that read its split.
* ``shuffle_floor_ms`` and ``fetch_ns``: ``Shuffle.run`` starts the ``EventFetcher`` (its
  first poll for map completions) and the ``Fetcher`` threads (``ShuffleSchedulerImpl`` assigns
  hosts; ``Fetcher.copyFromHost`` makes the request and ``copyMapOutput`` reads each map's
  output) and waits for them all before the reduce reports SORT (``shuffleFinishTime``): the
  shuffle segment (or the whole attempt) holds the floor once and one fetch cost per map
  output.

* ``merge_floor_ms``: ``Shuffle.run`` reports SORT (``shuffleFinishTime``) and then
  ``MergeManagerImpl.close`` runs ``finalMerge``; the reduce reports REDUCE
  (``sortFinishTime``) after it: the merge segment holds the floor once.
* ``commit_ms``: ``Task.done`` closes the output and ``Task.commit`` polls ``canCommit`` after
  the reduce function, before the attempt finishes: the reduce segment holds it once.

These two share their segment with per-record work one history cannot tell from them (the
merge's bytes, the reduce function's records and the HDFS write): their cap is what the
segment leaves over that work at its PRIOR cost (:data:`NET_OF_VOLUMES`). Capped at the whole
segment, a WordCount reduce phase of 804 ms on YARN became all commit, and ``reduce_cpu``
was "measured" at its 0 bound, so a 100× larger input would reduce in no time.

The map phase also holds background spills, but only in part where the ``SpillThread``
overlaps the map function (``map.map``'s rows are piecewise there): it does not bound the
per-spill cost.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from mrtune.calibration.fixed_costs import FIRST_SEGMENT_CONSTANTS
from mrtune.calibration.rows import _Obs
from mrtune.calibration.segments import SEGMENT_LABEL
from mrtune.calibration.solve import _solve
from mrtune.calibration.stacking import _Fit
from mrtune.costmodel.profile import CostFactors

#: cost factor → (segments that hold it whole, the Hadoop code path that puts it there).
BOUNDS: dict[str, tuple[tuple[str, ...], str]] = {
    "spill_file_ns": (
        ("map.sort", "map.spill_last", "map.spill"),
        "MapOutputBuffer.flush makes the final sortAndSpill after mapFinishTime",
    ),
    "read_fixed_ms": (
        ("map.map", "map.read", "map.total"),
        "RecordReader.initialize runs before the map function, in the map phase",
    ),
    "shuffle_floor_ms": (
        ("reduce.shuffle", "reduce.total"),
        "Shuffle.run's Fetcher and EventFetcher start-up precede shuffleFinishTime",
    ),
    "fetch_ns": (
        ("reduce.shuffle", "reduce.total"),
        "Fetcher.copyMapOutput reads each map output before shuffleFinishTime",
    ),
    "merge_floor_ms": (
        ("reduce.merge",),
        "MergeManagerImpl.close's finalMerge runs between shuffleFinishTime and sortFinishTime",
    ),
    "commit_ms": (
        ("reduce.reduce",),
        "Task.commit's canCommit poll follows the reduce function, before the attempt ends",
    ),
}
#: Factors capped net of the segment's volume terms at their prior costs (see the module doc).
NET_OF_VOLUMES: frozenset[str] = frozenset({"merge_floor_ms", "commit_ms"})
#: How a factor's own unit is written in a provenance line: (divisor to ms, per what).
_UNITS = {
    "spill_file_ns": (1e6, "per spill"),
    "read_fixed_ms": (1.0, "per map"),
    "shuffle_floor_ms": (1.0, "per reduce"),
    "fetch_ns": (1e6, "per fetch"),
    "merge_floor_ms": (1.0, "per reduce"),
    "commit_ms": (1.0, "per reduce"),
}
#: A row's count of a cost is its volume in that cost's unit (ns factors: 1e-6 ms per ns).
_COUNT_SCALE = {
    "spill_file_ns": 1e6,
    "fetch_ns": 1e6,
    "read_fixed_ms": 1.0,
    "merge_floor_ms": 1.0,
    "commit_ms": 1.0,
}


@dataclass(frozen=True)
class PriorCap:
    """A kept prior above what one observed segment allows, and the segment that bounds it."""

    factor: str
    prior: float
    value: float
    segment: str
    attempt: str
    observed_ms: float
    count: float

    def provenance(self, why_kept: str) -> str:
        """``defaulted: prior X capped at the observed Y (segment, attempt)``, then why the
        history could not separate the factor (its provenance before the cap)."""
        div, per = _UNITS[self.factor]
        held = f"; it holds {self.count:g}" if self.count != 1 else ""
        reason = BOUNDS[self.factor][1]
        kept = why_kept.removeprefix("defaulted: ") or "not separable"
        net = " less its other terms at prior costs" if self.factor in NET_OF_VOLUMES else ""
        return (
            f"defaulted: prior {self.prior / div:.4g} ms {per} capped at the observed "
            f"{self.value / div:.4g} ms ({SEGMENT_LABEL.get(self.segment, self.segment)}, "
            f"{self.attempt or 'an attempt'}: {self.observed_ms:.0f} ms{net}{held}; "
            f"{reason}); kept, not fitted: {kept}"
        )


def _kept(fit: _Fit, prior: CostFactors) -> list[int]:
    """Columns of :data:`BOUNDS` the fit kept at their prior (not measured)."""
    out = []
    for i, f in enumerate(fit.columns):
        if f not in BOUNDS:
            continue
        if fit.prov.get(f"costs.{f}", "").startswith("measured"):
            continue
        if float(fit.theta[i]) == float(getattr(prior, f)) and fit.theta[i] > 0:
            out.append(i)
    return out


def _others_at_prior(o: _Obs, col: int, prices: np.ndarray | None) -> np.ndarray:
    """Each row's time at ``prices`` without column ``col`` (0 when ``prices`` is None)."""
    if prices is None or not o.rows:
        return np.zeros(len(o.y))
    p = prices.copy()
    p[col] = 0.0
    return np.vstack(o.rows) @ p + np.asarray(o.offset or [0.0] * len(o.y), dtype=np.float64)


def _bound(
    obs: dict[str, _Obs], factor: str, col: int, prices: np.ndarray | None = None
) -> tuple[float, str, str, float, float]:
    """The smallest ``observed ÷ count`` over the rows of the segments that hold ``factor``
    (net of the other columns at ``prices``, for :data:`NET_OF_VOLUMES`): (bound in the
    factor's unit, segment, attempt id, observed ms, count); inf when none."""
    best = (float("inf"), "", "", 0.0, 0.0)
    for seg in BOUNDS[factor][0]:
        o = obs.get(seg)
        if o is None or not o.y:
            continue
        vol = np.array([float(r[col]) for r in o.rows])
        rest = _others_at_prior(o, col, prices if factor in NET_OF_VOLUMES else None)
        for k in np.flatnonzero(vol > 0):
            if factor in FIRST_SEGMENT_CONSTANTS:
                count, per_unit = 1.0, 1.0  # one per attempt (its unit is ms)
            else:
                count = vol[k] * _COUNT_SCALE[factor]
                per_unit = vol[k]
            b = (float(o.y[k]) - float(rest[k])) / per_unit
            if b < best[0]:
                attempt = o.ids[k] if k < len(o.ids) else ""
                best = (b, seg, attempt, float(o.y[k]), float(count))
    return best


def prior_caps(obs: dict[str, _Obs], fit: _Fit, prior: CostFactors) -> list[PriorCap]:
    """The kept fixed-cost priors the observed segments contradict, each with its cap."""
    caps = []
    prices = np.array([float(getattr(prior, f, 1.0)) for f in fit.columns])
    for i in _kept(fit, prior):
        f = fit.columns[i]
        bound, seg, attempt, y, count = _bound(obs, f, i, prices)
        p = float(getattr(prior, f))
        if bound < p:
            caps.append(PriorCap(f, p, max(bound, 0.0), seg, attempt, y, count))
    return caps


def solve_capped(
    obs: dict[str, _Obs],
    prior: CostFactors,
    refit: Collection[str] | None,
    prior_source: str,
    codecs: Sequence[str] = (),
) -> _Fit:
    """:func:`~mrtune.calibration.solve._solve`, then again with every kept fixed-cost prior
    the observed segments contradict capped (:func:`prior_caps`), so the factors fitted beside
    it see the capped value; each capped factor's provenance says so. Without a binding cap,
    the first solve as it was."""
    fit = _solve(obs, prior, refit, prior_source, codecs)
    caps = prior_caps(obs, fit, prior)
    if not caps:
        return fit
    capped = prior.model_copy(update={c.factor: c.value for c in caps})
    out = _solve(obs, capped, refit, prior_source, codecs)
    for c in caps:
        key = f"costs.{c.factor}"
        i = out.columns.index(c.factor)
        if not out.prov.get(key, "").startswith("measured") and out.theta[i] == c.value:
            out.prov[key] = c.provenance(fit.prov.get(key, ""))
            if c.factor in NET_OF_VOLUMES:
                _note_given_cap(out, obs, c, i, capped)
    return out


def _note_given_cap(
    fit: _Fit, obs: dict[str, _Obs], cap: PriorCap, col: int, prior: CostFactors
) -> None:
    """A net cap leaves its segment's other terms their prior costs, so a factor "measured"
    there beside it that comes back at its prior was not measured at all: its provenance
    says defaulted, and why."""
    o = obs.get(cap.segment)
    if o is None or not o.rows:
        return
    used = np.abs(np.vstack(o.rows)).sum(axis=0) > 0
    for j, f in enumerate(fit.columns):
        key = f"costs.{f}"
        if j == col or not used[j] or not fit.prov.get(key, "").startswith("measured"):
            continue
        p = float(getattr(prior, f, np.nan))
        if not np.isclose(float(fit.theta[j]), p, rtol=1e-6, atol=1e-9):
            continue
        fit.prov[key] = (
            f"defaulted: prior kept; {cap.factor} takes what "
            f"{SEGMENT_LABEL.get(cap.segment, cap.segment)} leaves over this factor at its "
            "prior (the two are not separable there)"
        )
