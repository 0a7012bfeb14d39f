"""Why each recommended change helps: its effect on the phases and the dataflow, measured by
reverting that one change in the recommended configuration (e.g. "io.sort.mb 100→380: spills
per map 4→1, map spill+merge −41 s")."""

from __future__ import annotations

from typing import Any

from mrtune.optimizer.units import format_bytes, format_ms
from mrtune.optimizer.whatif import MAP_PHASES, REDUCE_PHASES
from mrtune.search_spaces import find_knob


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
