"""From a search result to a recommendation a user can act on (issue: Recommendation).

The search returns the configuration of lowest predicted cost. A recommendation then:

* leaves at its current value every setting whose change gains less than ``min_gain`` (1%):
  changes are reverted greedily, smallest marginal gain first, re-evaluating the rest each time
  (all single reverts of a step are one vectorised model call);
* explains every change that remains by its effect on the phases and the dataflow, measured by
  reverting that one change in the recommended configuration (e.g. "io.sort.mb 100→380: spills
  per map 4→1, map spill+merge −41 s");
* compares the recommended configuration with the current one and with Hadoop's defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile
from mrtune.optimizer.choose import (
    Trusted,
    best_row,
    far_option,
    option_trust,
    region_search,
    space_current,
    trusted_row,
)
from mrtune.optimizer.confidence import (
    SAMPLES,
    Interval,
    gather_evidence,
    prediction_intervals,
)
from mrtune.optimizer.explain import Change, explain_row
from mrtune.optimizer.objective import (
    Objective,
    ObjectiveKind,
    ProgressHook,
    RobustCost,
    point_kind,
)
from mrtune.optimizer.outputs import changed_properties
from mrtune.optimizer.pareto import ParetoChoice
from mrtune.optimizer.recommend_space import check_only, space_for
from mrtune.optimizer.strategies import SearchResult, get_strategy, resolve_strategy
from mrtune.optimizer.trust import HISTORY, MIN_GAIN, trust_region
from mrtune.search_spaces import KNOBS, SearchSpace, find_knob, knob_property_names


@dataclass
class Recommendation:
    """The answer of ``mrtune optimize``."""

    job_id: str
    objective: str
    strategy: str
    search: SearchResult
    current: dict[str, Any]
    recommended: dict[str, Any]
    defaults: dict[str, Any]
    changes: list[Change]
    properties: dict[str, str]
    config: HadoopConfig
    #: How the strategy was chosen: ``"requested"``, or the rule that picked it.
    strategy_chosen_by: str = "requested"
    #: low-confidence changes left out of ``config`` (and so of what is written)
    withheld: list[Change] = field(default_factory=list)
    #: the prediction with the withheld changes too (``None`` when nothing was withheld)
    full: dict[str, Any] | None = None
    #: how the evidence was sampled (:meth:`Evidence.to_json`); ``None``: no intervals
    evidence: dict[str, Any] | None = None
    #: ``current_ms``, ``recommended_ms``, ``speedup`` (current / recommended per sample) and,
    #: when changes were withheld, ``speedup_with_withheld``
    intervals: dict[str, Interval] = field(default_factory=dict)
    #: ``--objective pareto``: the front and the point recommended on it (optimizer.pareto).
    pareto: ParetoChoice | None = None
    #: why the search's optimum (``full``, the withheld changes) is shown as a low-confidence
    #: option instead of written: it moves a size or count beyond the trust region
    #: (:mod:`mrtune.optimizer.trust`); ``None`` when it does not
    far_option: str | None = None
    #: the profile's calibration check (:meth:`CalibrationCheck.brief`); ``None``: not checked
    calibration: dict[str, str] | None = None

    @property
    def gain_vs_current(self) -> float:
        return 1.0 - self.recommended["job_ms"] / self.current["job_ms"]

    @property
    def gain_vs_defaults(self) -> float:
        return 1.0 - self.recommended["job_ms"] / self.defaults["job_ms"]

    @property
    def no_change(self) -> bool:
        return not self.changes

    def reasons(self) -> dict[str, str]:
        """Property name → the explanation of the change that sets it."""
        out: dict[str, str] = {}
        for ch in self.changes:
            for prop in knob_property_names(find_knob(ch.name)):
                if prop in self.properties:
                    out[prop] = ch.explanation
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "job_id": self.job_id,
            "objective": self.objective,
            "strategy": self.strategy,
            "strategy_chosen_by": self.strategy_chosen_by,
            "no_change_recommended": self.no_change,
            "calibration": self.calibration,
            "predicted_ms": {
                "current": self.current["job_ms"],
                "recommended": self.recommended["job_ms"],
                "hadoop_defaults": self.defaults["job_ms"],
            },
            "container_gb_s": {
                "current": self.current["container_gb_s"],
                "recommended": self.recommended["container_gb_s"],
                "hadoop_defaults": self.defaults["container_gb_s"],
            },
            "gain_vs_current": self.gain_vs_current,
            "gain_vs_defaults": self.gain_vs_defaults,
            "changes": [_change_json(c, True) for c in self.changes],
            "withheld_changes": [_change_json(c, False) for c in self.withheld],
            "confidence": None
            if self.evidence is None
            else {
                "evidence": self.evidence,
                "intervals": {k: v.to_json() for k, v in self.intervals.items()},
                "predicted_ms_with_withheld": None if self.full is None else self.full["job_ms"],
            },
            "low_confidence_option": _option_json_of(self),
            "properties": self.properties,
            "search": {
                "best_cost": self.search.best_cost,
                "evaluations": self.search.n_evaluations,
                "wall_time_s": self.search.wall_time_s,
                "notes": self.search.notes,
                "pareto": [
                    {"values": v, "job_ms": t, "container_gb_s": g}
                    for v, t, g in (self.search.pareto or [])
                ],
            },
            "current": self.current,
            "recommended": self.recommended,
            "hadoop_defaults": self.defaults,
            "pareto_front": self.pareto.to_json() if self.pareto is not None else None,
        }


def _option_json_of(rec: Recommendation) -> dict[str, Any] | None:
    """The search's optimum when it is shown beside the row written (a far move)."""
    if rec.far_option is None or rec.full is None:
        return None
    iv = rec.intervals.get("speedup_with_withheld")
    return {
        "reason": rec.far_option,
        "predicted_ms": rec.full["job_ms"],
        "container_gb_s": rec.full["container_gb_s"],
        "speedup": iv.to_json() if iv is not None else None,
        "changes": [c.name for c in rec.withheld],
        "written_with": "--include-low-confidence",
    }


def _change_json(c: Change, written: bool) -> dict[str, Any]:
    return {
        "name": c.name,
        "label": c.label,
        "current": c.current,
        "recommended": c.recommended,
        "gain_ms": c.gain_ms,
        "gain_fraction": c.gain_fraction,
        "explanation": c.explanation,
        "written": written,
        **(c.trust.to_json() if c.trust is not None else {}),
    }


def hadoop_defaults(base: HadoopConfig) -> HadoopConfig:
    """``base`` with every tunable setting at Hadoop's default (job-specific settings kept).

    The defaults are the properties of Hadoop's own default configuration for the base's
    version (``HadoopConfig`` declares them, reference §8.4), for every knob the version has;
    job-specific knobs (:attr:`Knob.job_specific`: the combiner, container sizes) keep the
    job's value.
    """
    stock = HadoopConfig(hadoop_version=base.hadoop_version).model_dump(by_alias=True)
    changes: dict[str, Any] = {}
    for k in KNOBS:
        if k.job_specific or not k.applies_to(base.hadoop_version):
            continue
        for prop in knob_property_names(k):
            changes[prop] = stock[prop]
    return base.with_changes(changes)


def recommend(
    profile: JobProfile,
    base: HadoopConfig,
    cluster: ClusterSpec,
    *,
    strategy: str | None = None,
    objective: ObjectiveKind = ObjectiveKind.time,
    n_trials: int | None = None,
    seed: int | None = 0,
    storage: str | None = None,
    study_name: str | None = None,
    resume: bool = False,
    allow_memory: bool = False,
    only: list[str] | None = None,
    exclude: list[str] | None = None,
    min_gain: float = MIN_GAIN,
    local_mode_honoured: bool = False,
    progress: ProgressHook | None = None,
    confidence: bool | None = None,
    include_low_confidence: bool = False,
    samples: int = SAMPLES,
    max_time_ms: float | None = None,
    max_gb_s: float | None = None,
    space_kind: str = "mrtune",
    ran_with: HadoopConfig | None = None,
    start_label: str | None = None,
) -> Recommendation:
    """Search, prune changes below ``min_gain``, explain the rest, compare with defaults.

    ``strategy`` ``None`` picks the objective's default (:func:`resolve_strategy`: ``tpe``, or
    ``nsga2`` for ``pareto``); ``storage``/``study_name``/``resume`` say where an Optuna
    strategy keeps its study (``None`` = in memory); ``progress`` is called as configurations
    are evaluated. ``space_kind`` ``"starfish"`` searches Starfish's parameters and ranges
    only (:func:`_space`). The row written is chosen by :func:`~.choose.best_row` (the pruned
    best, or for ``pareto`` a front point within ``max_time_ms`` / ``max_gb_s``).

    ``confidence`` (always with the ``robust`` objective) samples the evidence
    (:func:`~mrtune.optimizer.confidence.gather_evidence`, ``samples`` draws, seeded by
    ``seed``) and leaves the low-confidence changes out (:func:`~.choose.trusted_row`). The
    ``robust`` objective searches the point prediction (a full evidence sample per trial
    would multiply the search's cost by the sample count) and scores the final candidates,
    the pruning steps, by the :data:`~mrtune.optimizer.objective.ROBUST_PERCENTILE` of the
    sampled job time. ``ran_with``: the configuration the observed attempts ran with, for
    the evidence refits, when ``base`` (the start) is another one (a replayed file), which
    ``start_label`` names in the far-move reason (:mod:`mrtune.optimizer.trust`).
    """
    check_only(only)
    chosen_by = "requested" if strategy is not None else f"default for objective {objective}"
    strategy = resolve_strategy(strategy, str(objective))
    space = space_for(
        space_kind, profile, base, cluster, allow_memory, only, exclude, local_mode_honoured
    )
    space = _front_region(space, objective, include_low_confidence)
    kind = point_kind(objective)
    obj = Objective(
        space,
        ObjectiveKind.pareto if objective == ObjectiveKind.pareto else kind,
        on_evaluate=progress,
    )
    strat = get_strategy(strategy, storage=storage, study_name=study_name, resume=resume)
    n_trials = n_trials or strat.default_trials
    result = strat.optimize(space, obj, n_trials=n_trials, seed=seed)
    use_conf = bool(confidence) or objective == ObjectiveKind.robust  # robust needs samples
    kw = {"samples": samples, "seed": seed or 0}  # refits at the attempts' configuration
    ev = gather_evidence(profile, ran_with or base, **kw) if use_conf else None
    robust = ev is not None and objective == ObjectiveKind.robust
    cost_of = RobustCost(space, ev.samples) if robust else Objective(space, kind)
    cur_row = space_current(space)
    limits = (max_time_ms, max_gb_s)
    best, front = best_row(space, result, objective, cost_of, cur_row, min_gain, *limits)
    metric = "container_gb_s" if kind == ObjectiveKind.resources else "job_ms"
    origin = HISTORY if start_label is None else f"its value in {start_label}"
    keep = (cost_of, min_gain, include_low_confidence, origin)
    again = (strategy, n_trials, seed, kind, cost_of, cur_row, min_gain, limits)
    # pareto: the row stays on the front shown
    region = None if objective == ObjectiveKind.pareto else region_search(space, *again)
    chosen = trusted_row(ev, space, cluster, cur_row, best, metric, *keep, search_region=region)
    rec = _explained(profile, space, cluster, base, cur_row, best, chosen, kind, front, ev)
    rec.update(job_id=profile.job_id, objective=str(objective), strategy=result.strategy)
    return Recommendation(**rec, search=result, strategy_chosen_by=chosen_by, pareto=front)


def _front_region(space: SearchSpace, objective: ObjectiveKind, include_low: bool) -> SearchSpace:
    """A Pareto front's point is written as it is (no per-change drops: it must stay on the
    front shown, :mod:`mrtune.optimizer.pareto`), so unless ``include_low`` the front is
    searched where the far-move rule trusts the model (:func:`~.trust.trust_region`)."""
    if objective != ObjectiveKind.pareto or include_low:
        return space
    return trust_region(space, space_current(space))


def _explained(
    profile: JobProfile,
    space: SearchSpace,
    cluster: ClusterSpec,
    base: HadoopConfig,
    cur_row: dict[str, float],
    best: dict[str, float],
    chosen: Trusted,
    kind: ObjectiveKind,
    front: ParetoChoice | None,
    ev: Any,
) -> dict[str, Any]:
    """The row written, explained change by change against the current configuration and
    Hadoop's defaults; the changes of ``best`` not written as they are in it (low
    confidence, or a far move replaced by its in-region step) explained against ``best``;
    the intervals; the properties (raises rather than write ≠ scored)."""
    row = chosen.row
    config = space.values_to_config(row)
    defaults_cfg = hadoop_defaults(base)
    cur_s, rec_s, def_s, changes = explain_row(
        profile, space, cluster, base, cur_row, row, kind, defaults_cfg, pareto=front is not None
    )
    withheld: list[Change] = []
    full_s = None
    if row != best:
        _, full_s, _, all_changes = explain_row(profile, space, cluster, base, cur_row, best, kind)
        withheld = [c for c in all_changes if not np.isclose(row[c.name], best[c.name])]
    for c in changes:
        c.trust = chosen.trust.get(c.name)
    option_trust(chosen, withheld)
    intervals = (
        prediction_intervals(ev, cluster, base, config, space.values_to_config(best))
        if ev is not None
        else {}
    )
    # raises rather than write ≠ scored
    props = changed_properties(base, config, combiner_switch=space.combiner_switch)
    return {
        "current": cur_s,
        "recommended": rec_s,
        "defaults": def_s,
        "changes": changes,
        "properties": props,
        "config": config,
        "withheld": withheld,
        "full": full_s,
        "evidence": ev.to_json() if ev is not None else None,
        "intervals": intervals,
        "far_option": far_option(chosen, [c.name for c in changes], withheld),
        "calibration": None if profile.calibration is None else profile.calibration.brief(),
    }
