"""Why each recommended change helps: its effect on the phases and the dataflow, measured by
reverting that one change in the recommended configuration (e.g. "io.sort.mb 100→380: spills
per map 4→1, map spill+merge −41 s")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile
from mrtune.optimizer.objective import ObjectiveKind
from mrtune.optimizer.reverts import repaired
from mrtune.optimizer.trust import ChangeTrust
from mrtune.optimizer.units import format_bytes, format_ms
from mrtune.optimizer.whatif import Scenario, evaluate_scenarios
from mrtune.optimizer.whatif_summary import MAP_PHASES, REDUCE_PHASES
from mrtune.search_spaces import SearchSpace, find_knob
from mrtune.search_spaces.knobs import Role


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


#: How the split knob's change is shown (its values are the effective split size).
SPLIT_LABEL = "input split size"


@dataclass
class Change:
    """One recommended setting change and why."""

    name: str
    current: Any
    recommended: Any
    gain_ms: float
    gain_fraction: float
    effects: list[str] = field(default_factory=list)
    #: the gain's interval, the factors it rests on, its confidence (``None``: not assessed)
    trust: ChangeTrust | None = None

    @property
    def low_confidence(self) -> bool:
        return self.trust is not None and self.trust.low

    @property
    def label(self) -> str:
        """What the change is shown as: the knob's property, or for the split knob (whose
        values are the effective split, written through split.minsize above the block and
        split.maxsize below it) "input split size": a Hadoop 1 job's 64 MiB → 13.2 GiB had
        read as split.maxsize's values while the file wrote mapred.min.split.size."""
        if find_knob(self.name).role == Role.split_size:
            return SPLIT_LABEL
        return self.name

    @property
    def explanation(self) -> str:
        head = f"{self.label} {self.current}→{self.recommended}"
        return f"{head}: " + ", ".join(self.effects) if self.effects else head


def explain_row(
    profile: JobProfile,
    space: SearchSpace,
    cluster: ClusterSpec,
    base: HadoopConfig,
    cur_row: dict[str, float],
    row: dict[str, float],
    kind: ObjectiveKind,
    defaults_cfg: HadoopConfig | None = None,
    *,
    pareto: bool = False,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None, list[Change]]:
    """Summaries of current, ``row`` and (given) Hadoop's defaults, and every change of
    ``row`` explained by reverting it alone (repaired, as it would be written), in one model
    call. ``pareto``: each change's effect on the container GB·s is stated too."""
    scen = [
        Scenario("current", profile, base, cluster),
        Scenario("recommended", profile, space.values_to_config(row), cluster),
    ]
    if defaults_cfg is not None:
        scen.append(Scenario("hadoop defaults", profile, defaults_cfg, cluster))
    changed = [k for k in row if not np.isclose(row[k], cur_row[k])]
    # a revert the repair undoes cannot be explained apart: its row is the repaired row itself
    fixed = repaired(space, [{**row, k: cur_row[k]} for k in changed]) if changed else []
    for k, r in zip(changed, fixed, strict=True):
        scen.append(Scenario(k, profile, space.values_to_config(r), cluster))
    rows = evaluate_scenarios(scen)
    head = 3 if defaults_cfg is not None else 2
    cur_s, rec_s = rows[0], rows[1]
    changes = []
    for k, rev in zip(changed, rows[head:], strict=True):
        knob = find_knob(k)
        gain = rev["job_ms"] - rec_s["job_ms"]
        if kind == ObjectiveKind.resources:
            gain_frac = (rev["container_gb_s"] - rec_s["container_gb_s"]) / max(
                rev["container_gb_s"], 1e-9
            )
        else:
            gain_frac = gain / max(rev["job_ms"], 1e-9)
        scale = max(rec_s["map_task_ms"], rec_s["reduce_task_ms"], 1.0)
        effects = _effects(rev, rec_s, scale)
        if pareto:  # the change's effect on the second objective too
            d_gb = rec_s["container_gb_s"] - rev["container_gb_s"]
            effects.append(f"container {'+' if d_gb > 0 else '−'}{abs(d_gb):,.1f} GB·s")
        changes.append(
            Change(
                name=k,
                current=_fmt(k, knob.decode(cur_row[k])),
                recommended=_fmt(k, knob.decode(row[k])),
                gain_ms=gain,
                gain_fraction=gain_frac,
                effects=effects,
            )
        )
    changes.sort(key=lambda c: -c.gain_fraction)
    return cur_s, rec_s, rows[2] if defaults_cfg is not None else None, changes
