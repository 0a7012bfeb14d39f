"""One cluster-wide configuration for a whole catalog (``mapred-site.xml``).

Per-job recommendations differ from job to job; a cluster has one ``mapred-site.xml``. This
module chooses the values of the **cluster-level** knobs (every tunable knob except the per-job
ones, :data:`~mrtune.optimizer.batch._tune.PER_JOB_KNOBS`: reducer count, split size and the job's
own combiner, which each job keeps at its tuned value) that minimise the catalog's **total**
predicted time (or container GB·s with ``objective="resources"``), summed over the tuned jobs.

Search (every step is one pass over the catalog; each job evaluates all candidates of the
pass in one vectorised model call, on the workers):

1. **Candidates**: the catalog's current setting (the most common current value of each knob),
   Hadoop's defaults, a cost-weighted vote (per knob, the value chosen by the jobs holding the
   most predicted cost), and the per-job winners of the costliest jobs and of the most
   frequent winning combinations.
2. **Descent**: from the best candidate, every single-knob move over the knob's grid (plus the
   combined move of all improving single moves of the previous pass), until a pass improves
   nothing (at most ``max_rounds``).
3. **Pruning**: settings whose revert to the catalog's current value costs less than
   ``min_gain`` of the total are reverted (cheapest first, all prefixes in one pass) as long
   as the configuration keeps a gain of ``min_gain`` over the current settings, so the site
   file holds only settings that matter, alone or together. If no configuration gains
   ``min_gain`` the catalog's current settings stay.

The marginal value reported for each setting is what reverting it alone costs the catalog: exact
when the descent's last pass was around the final configuration (``marginal_exact``), else
measured at the configuration before the last move (an extra pass over the catalog is not spent
on it).

What the file may hold is :mod:`~mrtune.optimizer.batch._cluster_limits`'s: no job-output
compression unless asked, only codecs every job and the cluster load, sizes and counts within
×4 of the catalog's current values, no combination that breaks a constraint as written, the
names of the catalog's Hadoop line, and the lint pass.

A job reads only the knobs that apply to it (a map-only job ignores reduce-side settings).
Values a job cannot take are repaired for that job (``io.sort.mb`` above its heap is capped),
as its own configuration would have to override them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.optimizer.batch._catalog import JobRef
from mrtune.optimizer.batch._cluster_limits import (
    catalog_version,
    excluded_knobs,
    feasible_rows,
    knob_grid,
    site_base,
    site_lint,
    site_properties,
    within_grids,
)
from mrtune.optimizer.batch._executors import Executor
from mrtune.optimizer.batch._score import score_chunk
from mrtune.optimizer.batch._tune import MIN_GAIN, PER_JOB_KNOBS
from mrtune.optimizer.batch._worker import BatchSettings
from mrtune.search_spaces import KNOBS, find_knob

ProgressFn = Callable[[str, int, int], None]


@dataclass
class ClusterChoice:
    """The chosen cluster-wide values and what they are predicted to do to the catalog."""

    names: list[str]
    values: dict[str, float]
    baseline: dict[str, float]
    total_baseline: float
    total_chosen: float
    marginal: dict[str, float] = field(default_factory=dict)
    marginal_exact: bool = True
    passes: int = 0
    candidates_evaluated: int = 0
    jobs: int = 0
    #: the catalog's Hadoop line (names the properties) and the cluster's stated facts (the
    #: codec verdicts): :mod:`~mrtune.optimizer.batch._cluster_limits`
    hadoop_version: int = 3
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def changed(self) -> list[str]:
        return [n for n in self.names if self.values[n] != self.baseline[n]]

    def readable(self) -> dict[str, Any]:
        return {n: find_knob(n).decode(self.values[n]) for n in self.names}

    def properties(self) -> dict[str, str]:
        """Hadoop properties for the settings that differ from the catalog's current ones,
        under the names the catalog's Hadoop line reads."""
        return site_properties(self.hadoop_version, {n: self.values[n] for n in self.changed})

    def lint(self, cluster: ClusterSpec) -> Any:
        """The job-independent lint rules (:func:`mrtune.optimizer.lint.lint_settings`, codec
        availability included) on the line's defaults with the chosen settings: the file
        every job of the cluster reads."""
        now = site_base(
            self.hadoop_version, list(self.baseline), np.array([*self.baseline.values()])
        )
        changed = {n: self.values[n] for n in self.changed}
        return site_lint(self.hadoop_version, changed, cluster, self.facts, now)

    def reasons(self, objective: str) -> dict[str, str]:
        """Property → why: what reverting that setting alone costs the catalog."""
        out: dict[str, str] = {}
        props = self.properties()
        for n in self.changed:
            knob = find_knob(n)
            text = f"{n} -> {knob.decode(self.values[n])}"
            gain = self.marginal.get(n)
            if gain is not None:
                amount = (
                    f"{gain:,.4g} container GB·s"
                    if objective == "resources"
                    else f"{gain / 3.6e6:,.4g} h of predicted job time"
                )
                share = gain / self.total_chosen if self.total_chosen > 0 else 0.0
                about = "" if self.marginal_exact else "about "
                text += f": reverting it alone costs the catalog {about}{amount} ({share:.1%})"
            for prop in props:
                if find_knob(prop).name == n:
                    out[prop] = text
        return out


def _mode(values: Sequence[float]) -> float:
    counts = Counter(values)
    top = max(counts.values())
    return min(v for v, c in counts.items() if c == top)


def choose_cluster_config(
    results: Sequence[dict[str, Any]],
    refs: dict[str, JobRef],
    settings: BatchSettings,
    executor: Executor,
    *,
    chunk: int = 64,
    max_rounds: int = 3,
    min_gain: float = MIN_GAIN,
    n_top: int = 16,
    progress: ProgressFn | None = None,
) -> ClusterChoice | None:
    """Choose the cluster-level values for the tuned jobs ``results`` (module docstring).

    ``results`` must be in a fixed order (the catalog order): totals are summed in that order,
    so every executor gives bit-identical totals. Returns ``None`` without tuned jobs.
    """
    tuned = [r for r in results if r.get("status") == "tuned"]
    if not tuned:
        return None
    skip = PER_JOB_KNOBS | excluded_knobs(settings.cluster_output_compression)
    order = [k.name for k in KNOBS if k.name not in skip]
    present = {n for r in tuned for n in r["best_encoded"]}
    names = [n for n in order if n in present]
    if not names:
        return None
    baseline = np.array(
        [
            _mode([r["current_encoded"][n] for r in tuned if n in r["current_encoded"]])
            for n in names
        ]
    )
    version, facts = catalog_version(tuned), settings.cluster_facts()
    limits = (site_base(version, names, baseline), facts, not settings.include_low_confidence)
    cand, grids = _candidates(tuned, names, baseline, settings.objective, n_top, limits)
    items = [(refs[r["key"]], r["best_encoded"]) for r in tuned]
    totals = _Totals(executor, settings, names, items, chunk, progress, version)
    tot = totals(cand, "cluster-wide config: candidates")
    base_idx = np.nonzero((cand == baseline).all(axis=1))[0]
    total_baseline = float(tot[base_idx[0]])
    i = int(np.argmin(tot))
    x, cx, values, exact = _descend(
        totals, cand[i].copy(), float(tot[i]), grids, baseline, names, max_rounds
    )
    x, cx, values = _prune_settings(
        totals, x, cx, values, baseline, names, total_baseline, min_gain
    )
    return ClusterChoice(
        names=names,
        values={n: float(x[j]) for j, n in enumerate(names)},
        baseline={n: float(baseline[j]) for j, n in enumerate(names)},
        total_baseline=total_baseline,
        total_chosen=cx,
        marginal=values,
        marginal_exact=exact,
        passes=totals.passes,
        candidates_evaluated=totals.evaluated,
        jobs=len(items),
        hadoop_version=version,
        facts=facts,
    )


def _candidates(
    tuned: list[dict[str, Any]],
    names: list[str],
    baseline: np.ndarray,
    objective: str,
    n_top: int,
    limits: tuple[Any, dict[str, Any], bool],
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The first pass's candidates (module docstring, step 1; unique rows) and every knob's
    grid, both within the heap caps the tuned jobs report and the codecs every job and the
    cluster load (``limits``: the catalog's current configuration and the cluster's facts,
    :func:`~mrtune.optimizer.batch._cluster_limits.codec_grid`)."""
    obj = "current_gb_s" if objective == "resources" else "current_ms"

    def vector(enc: dict[str, float]) -> np.ndarray:
        return np.array([enc.get(n, baseline[j]) for j, n in enumerate(names)])

    winners = [vector(r["best_encoded"]) for r in tuned]
    weights = np.array([r[obj] for r in tuned])
    cands = [baseline.copy()]
    defaults = baseline.copy()
    for j, n in enumerate(names):
        k = find_knob(n)
        defaults[j] = k.encode("none" if k.kind == "categorical" else k.default)
    cands.append(defaults)
    vote = baseline.copy()
    for j in range(len(names)):
        tally: dict[float, float] = {}
        for w, v in zip(weights, winners, strict=True):
            tally[float(v[j])] = tally.get(float(v[j]), 0.0) + float(w)
        vote[j] = max(sorted(tally), key=lambda v: tally[v])
    cands.append(vote)
    for i in np.argsort(-weights, kind="stable")[:n_top]:
        cands.append(winners[i])
    for vec, _ in Counter(tuple(v) for v in winners).most_common(n_top):
        cands.append(np.array(vec))
    # A site file applies to every job: a value some job's heap cannot hold (io.sort.mb above
    # its cap, search_spaces.constraints) is never proposed.
    grids = [knob_grid(n, tuned, float(baseline[j]), *limits) for j, n in enumerate(names)]
    return np.unique(within_grids(np.array(cands), grids, names, baseline), axis=0), grids


class _Totals:
    """One pass over the catalog: the total cost of every candidate row, summed over the
    jobs in catalog order (deterministic sums whatever order the chunks finish in)."""

    def __init__(
        self,
        executor: Executor,
        settings: BatchSettings,
        names: list[str],
        items: list[tuple[JobRef, dict[str, float]]],
        chunk: int,
        progress: ProgressFn | None,
        version: int = 3,
    ) -> None:
        self.executor, self.settings, self.names, self.items = executor, settings, names, items
        self.version = version
        self.chunks = [items[i : i + chunk] for i in range(0, len(items), chunk)]
        self.keys = [ref.key for ref, _ in items]
        self.progress = progress
        self.passes = 0
        self.evaluated = 0

    def __call__(self, c: np.ndarray, label: str) -> np.ndarray:
        self.passes += 1
        self.evaluated += len(c) * len(self.items)
        got: dict[str, np.ndarray] = {}
        done = 0
        for _, part in self.executor.map_unordered(
            score_chunk, self.chunks, settings=self.settings, names=self.names, candidates=c
        ):
            for key, costs in part:
                got[key] = costs
            done += len(part)
            if self.progress is not None:
                self.progress(label, done, len(self.items))
        mat = np.stack([got[k] for k in self.keys])
        # a row that breaks a constraint as written would be scored repaired but written as
        # it is: never chosen (_cluster_limits.feasible_rows)
        return np.where(feasible_rows(c, self.names, self.version), np.nansum(mat, axis=0), np.inf)


def _single_moves(
    x: np.ndarray, grids: list[np.ndarray], combined: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Every single-knob move from ``x`` (knob by knob, grid order) and the combined move;
    rows and the knob each moves (-1: the combined move). Empty when there is none."""
    rows, which = [], []
    for j, g in enumerate(grids):
        for v in g[g != x[j]]:
            r = x.copy()
            r[j] = v
            rows.append(r)
            which.append(j)
    if combined is not None and not np.array_equal(combined, x):
        rows.append(combined)
        which.append(-1)
    return np.array(rows), np.array(which)


def _descend(
    totals: _Totals,
    x: np.ndarray,
    cx: float,
    grids: list[np.ndarray],
    baseline: np.ndarray,
    names: list[str],
    max_rounds: int,
) -> tuple[np.ndarray, float, dict[str, float], bool]:
    """The descent (module docstring, step 2) from ``x`` (total ``cx``): the final point,
    its total, each changed setting's marginal value and whether that is exact."""
    combined: np.ndarray | None = None
    marginal: dict[str, float] = {}  # exact: reverts evaluated at the final point
    estimate: dict[str, float] = {}  # measured at the point before the last move
    for rnd in range(1, max_rounds + 1):
        c, w = _single_moves(x, grids, combined)
        if not len(c):
            break
        t = totals(c, f"cluster-wide config: descent {rnd}")
        at_x = {
            names[w[m]]: float(t[m] - cx)
            for m in range(len(w))
            if w[m] >= 0 and c[m, w[m]] == baseline[w[m]] and x[w[m]] != baseline[w[m]]
        }
        m = int(np.argmin(t))
        if not t[m] < cx * (1.0 - 1e-9):
            marginal = at_x
            break
        # A round that gains less than a thousandth of the total ends the descent (its move is
        # kept; further rounds would cost a pass over the catalog for nothing that matters).
        last_round = t[m] > cx * (1.0 - 1e-3)
        new = c[m].copy()
        estimate = {}
        for j in range(len(names)):
            if new[j] == baseline[j]:
                continue
            if new[j] == x[j]:
                estimate[names[j]] = at_x.get(names[j], 0.0)
            else:  # moved now: its value is what moving it alone gained at the old point
                single = np.nonzero((w == j) & (c[:, j] == new[j]))[0]
                estimate[names[j]] = float(cx - t[single[0]]) if len(single) else 0.0
        combined = new.copy()
        for j in range(len(names)):
            sel = w == j
            if sel.any():
                k = int(np.argmin(np.where(sel, t, np.inf)))
                if t[k] < cx * (1.0 - 1e-9) and j != w[m]:
                    combined[j] = c[k, j]
        x, cx = new, float(t[m])
        if last_round:
            break
    exact = bool(marginal) or not estimate
    return x, cx, (marginal if marginal else estimate), exact


def _prune_settings(
    totals: _Totals,
    x: np.ndarray,
    cx: float,
    values: dict[str, float],
    baseline: np.ndarray,
    names: list[str],
    total_baseline: float,
    min_gain: float,
) -> tuple[np.ndarray, float, dict[str, float]]:
    """Pruning (module docstring, step 3): revert settings worth less than ``min_gain`` of
    the total, cheapest first, while each revert costs less than ``min_gain`` and the whole
    keeps a gain of ``min_gain`` over the catalog's current settings (settings that only
    matter together are kept together); the current settings if no gain is left."""
    small = sorted((v, n) for n, v in values.items() if v < min_gain * cx)
    if small and cx <= total_baseline * (1.0 - min_gain):
        steps = np.repeat(x[None, :], len(small), axis=0)
        for m, (_, n) in enumerate(small):
            steps[m:, names.index(n)] = baseline[names.index(n)]
        ts = totals(steps, "cluster-wide config: pruning")
        prev = np.concatenate([[cx], ts[:-1]])
        ok = ((ts - prev) < min_gain * np.maximum(prev, 1e-12)) & (
            ts <= total_baseline * (1.0 - min_gain)
        )
        take = int(np.argmin(ok)) if not ok.all() else len(ok)
        if take:
            x, cx = steps[take - 1].copy(), float(ts[take - 1])
            values = {n: v for n, v in values.items() if n not in {b for _, b in small[:take]}}
    if cx > total_baseline * (1.0 - min_gain):
        return baseline.copy(), total_baseline, {}
    return x, cx, values
