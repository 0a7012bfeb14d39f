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
from mrtune.errors import InputError
from mrtune.optimizer.objective import Objective, ObjectiveKind, ProgressHook
from mrtune.optimizer.outputs import changed_properties
from mrtune.optimizer.strategies import SearchResult, get_strategy, resolve_strategy
from mrtune.optimizer.units import format_bytes, format_ms
from mrtune.optimizer.whatif import MAP_PHASES, REDUCE_PHASES, Scenario, evaluate_scenarios
from mrtune.search_spaces import KNOBS, SearchSpace, find_knob, knob_property_names

MIN_GAIN = 0.01


@dataclass
class Change:
    """One recommended setting change and why."""

    name: str
    current: Any
    recommended: Any
    gain_ms: float
    gain_fraction: float
    effects: list[str] = field(default_factory=list)

    @property
    def explanation(self) -> str:
        head = f"{self.name} {self.current}→{self.recommended}"
        return f"{head}: " + ", ".join(self.effects) if self.effects else head


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
            "changes": [
                {
                    "name": c.name,
                    "current": c.current,
                    "recommended": c.recommended,
                    "gain_ms": c.gain_ms,
                    "gain_fraction": c.gain_fraction,
                    "explanation": c.explanation,
                }
                for c in self.changes
            ],
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


def _fmt(knob_name: str, value: Any) -> str:
    if find_knob(knob_name).unit == "bytes":
        return format_bytes(float(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _effects(before: dict[str, Any], after: dict[str, Any], scale: float) -> list[str]:
    """Dataflow and phase differences between two summaries, largest first."""
    out: list[str] = []
    d0, d1 = before["dataflow"], after["dataflow"]
    metrics = (
        ("spills_per_map", "spills per map", "{:.4g}"),
        ("map_merge_passes", "map merge passes", "{:.0f}"),
        ("shuffle_bytes", "shuffle", None),
        ("fetches_to_disk", "fetches to disk", "{:.0f}"),
        ("reduce_spilled_records", "reduce spilled records", "{:,.0f}"),
    )
    for key, label, fmt in metrics:
        a, b = d0[key], d1[key]
        if abs(a - b) > 1e-9 * max(abs(a), 1.0):
            if fmt is None:
                sa, sb = format_bytes(a), format_bytes(b)
            else:
                sa, sb = fmt.format(a), fmt.format(b)
            if sa != sb:
                out.append(f"{label} {sa}→{sb}")
    if before["num_reducers"] != after["num_reducers"]:
        out.append(f"reduce waves {before['reduce_waves']:.0f}→{after['reduce_waves']:.0f}")
    if before["num_maps"] != after["num_maps"]:
        out.append(f"maps {before['num_maps']}→{after['num_maps']}")
    deltas = []
    for side, phases in (("map", MAP_PHASES), ("reduce", REDUCE_PHASES)):
        p0 = before[f"{side}_phases_ms"]
        p1 = after[f"{side}_phases_ms"]
        for ph in phases:
            if ph in p0 or ph in p1:
                delta = p1.get(ph, 0.0) - p0.get(ph, 0.0)
                if abs(delta) >= 0.01 * scale and abs(delta) >= 1.0:
                    deltas.append(
                        (
                            abs(delta),
                            f"{side} {ph} {'+' if delta > 0 else '−'}{format_ms(abs(delta))} per task",
                        )
                    )
    out.extend(text for _, text in sorted(deltas, reverse=True)[:4])
    dj = after["job_ms"] - before["job_ms"]
    out.append(f"job {'+' if dj > 0 else '−'}{format_ms(abs(dj))}")
    return out


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
    space_kind: str = "mrtune",
) -> Recommendation:
    """Search, prune changes below ``min_gain``, explain the rest, compare with defaults.

    ``strategy`` ``None`` picks the objective's default (:func:`resolve_strategy`: ``tpe``, or
    ``nsga2`` for ``pareto``); ``storage``/``study_name``/``resume`` say where an Optuna
    strategy keeps its study (``None`` = in memory); ``progress`` is called as configurations
    are evaluated (:class:`~mrtune.optimizer.objective.Objective`). ``space_kind``
    ``"starfish"`` searches Starfish's parameters and ranges only
    (:func:`mrtune.search_spaces.starfish.starfish_space`).
    """
    for name in only or ():
        if not find_knob(name).site_property:
            raise InputError(
                f"{name} is set by the job's code (Job.setCombinerClass), which no site file "
                "or -D flag overrides, so it cannot be recommended",
                field="--only",
                value=name,
            )
    chosen_by = "requested" if strategy is not None else f"default for objective {objective}"
    strategy = resolve_strategy(strategy, str(objective))
    space = _space(
        space_kind, profile, base, cluster, allow_memory, only, exclude, local_mode_honoured
    )
    kind = ObjectiveKind.time if objective == ObjectiveKind.pareto else objective
    obj = Objective(
        space,
        ObjectiveKind.pareto if objective == ObjectiveKind.pareto else kind,
        on_evaluate=progress,
    )
    strat = get_strategy(strategy, storage=storage, study_name=study_name, resume=resume)
    result = strat.optimize(space, obj, n_trials=n_trials or strat.default_trials, seed=seed)
    cost_of = Objective(space, kind)
    cur_row = space_current(space)
    best_row = dict(result.best_values)
    best = dict(best_row)

    def costs(rows: list[dict[str, float]]) -> np.ndarray:
        vals = {k: np.array([r[k] for r in rows]) for k in rows[0]}
        return cost_of(vals)

    base_cost = float(costs([cur_row])[0])
    # Greedy pruning of changes that gain less than min_gain.
    while True:
        changed = [k for k in best if not np.isclose(best[k], cur_row[k])]
        if not changed:
            break
        trials = []
        for k in changed:
            r = dict(best)
            r[k] = cur_row[k]
            trials.append(r)
        c_best = float(costs([best])[0])
        c_rev = costs(trials)
        # Marginal gain of each change at the recommended configuration: how much slower it
        # gets without that one change. Measuring at the final point (not against the current
        # time) keeps the result stable: applying a recommendation and optimizing again
        # recommends nothing more.
        gains = (c_rev - c_best) / max(c_best, 1e-9)
        j = int(np.argmin(gains))
        if gains[j] < min_gain:
            best = trials[j]
            continue
        break
    if float(costs([best])[0]) > base_cost * (1 - min_gain):
        best = dict(cur_row)

    config = space.values_to_config(best)
    defaults_cfg = hadoop_defaults(base)
    scen = [
        Scenario("current", profile, base, cluster),
        Scenario("recommended", profile, config, cluster),
        Scenario("hadoop defaults", profile, defaults_cfg, cluster),
    ]
    changed = [k for k in best if not np.isclose(best[k], cur_row[k])]
    for k in changed:
        r = dict(best)
        r[k] = cur_row[k]
        scen.append(Scenario(k, profile, space.values_to_config(r), cluster))
    rows = evaluate_scenarios(scen)
    cur_s, rec_s, def_s = rows[:3]
    changes = []
    for k, rev in zip(changed, rows[3:], strict=True):
        knob = find_knob(k)
        gain = rev["job_ms"] - rec_s["job_ms"]
        if kind == ObjectiveKind.resources:
            gain_frac = (rev["container_gb_s"] - rec_s["container_gb_s"]) / max(
                rev["container_gb_s"], 1e-9
            )
        else:
            gain_frac = gain / max(rev["job_ms"], 1e-9)
        scale = max(rec_s["map_task_ms"], rec_s["reduce_task_ms"], 1.0)
        changes.append(
            Change(
                name=k,
                current=_fmt(k, knob.decode(cur_row[k])),
                recommended=_fmt(k, knob.decode(best[k])),
                gain_ms=gain,
                gain_fraction=gain_frac,
                effects=_effects(rev, rec_s, scale),
            )
        )
    changes.sort(key=lambda c: -c.gain_fraction)
    # raises rather than write ≠ scored
    props = changed_properties(base, config, combiner_switch=space.combiner_switch)
    return Recommendation(
        job_id=profile.job_id,
        objective=str(objective),
        strategy=result.strategy,
        search=result,
        current=cur_s,
        recommended=rec_s,
        defaults=def_s,
        changes=changes,
        properties=props,
        config=config,
        strategy_chosen_by=chosen_by,
    )


def _space(
    kind: str,
    profile: JobProfile,
    base: HadoopConfig,
    cluster: ClusterSpec,
    allow_memory: bool,
    only: list[str] | None,
    exclude: list[str] | None,
    local_mode_honoured: bool,
) -> SearchSpace:
    """mrtune's own space (``"mrtune"``) or Starfish's parameters and ranges (``"starfish"``)."""
    if kind == "starfish":
        if only or allow_memory:
            raise InputError(
                "the Starfish space is Starfish's parameters and ranges; --only and "
                "--allow-memory apply to mrtune's own space",
                field="--space",
                value=kind,
            )
        from mrtune.search_spaces.starfish import starfish_space

        return starfish_space(
            profile, base, cluster, exclude=exclude or (), local_mode_honoured=local_mode_honoured
        )
    if kind != "mrtune":
        raise InputError(
            "unknown search space", field="--space", value=kind, allowed="mrtune, starfish"
        )
    return SearchSpace.for_job(
        profile,
        base,
        cluster,
        allow_memory=allow_memory,
        only=only,
        exclude=exclude or (),
        local_mode_honoured=local_mode_honoured,
    )


def space_current(space: SearchSpace) -> dict[str, float]:
    """The base configuration's knob values, encoded and repaired like search results."""
    cur = space.current_values()
    enc = {k.name: np.array([k.encode(cur[k.name])]) for k in space.knobs}
    return {k: float(v[0]) for k, v in enc.items()}
