"""Does the calibrated model reproduce the job's own phase times? (issue 20, DESIGN decision 10)

After every fit, each observed attempt is modelled again, *directly* (``map_task`` and
``reduce_task`` with the fitted profile, the attempt's own split and reduce input, the cluster's
spill overlap), and each segment's mean model time is compared with its mean observed time. The
fit works on a linear form of the model (one volume per factor); evaluating the model itself
checks that form too, so a wrong row (the base-time bug: a fixed 9.7 ms per map charged once
per unit of every factor) shows up as a miss instead of a good-looking fit table.

A segment fails when it misses by more than ``tolerance`` of its observed mean *and* by more
than ``floor_ms`` (history timestamps are whole milliseconds from status updates). The task-log
sub-segments ``map.fill`` and ``map.spill_full`` have no direct model output (they cut the
spill phase where the task log does): they are compared on the fit's linear form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from mrtune.calibration.segments import (
    F64,
    MAP_CUTS,
    REDUCE_CUTS,
    SEGMENT_LABEL,
    SEGMENTS,
    cold_attempt,
    cut_of,
    map_splits,
    reduce_inputs,
)
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_task import map_task
from mrtune.costmodel.profile import (
    CALIBRATION_FLOOR_MS,
    CALIBRATION_TOLERANCE,
    CalibrationCheck,
    JobProfile,
    SegmentCheck,
)
from mrtune.costmodel.reduce_task import reduce_task

#: Segments compared on the fit's linear form (see the module doc).
LINEAR_ONLY = frozenset({"map.fill", "map.spill_full"})


@dataclass(frozen=True)
class MissHint:
    """Why a segment may miss, by the side the model misses on: a segment of fixed time the
    model prices above the observation holds a fixed-cost prior larger than this cluster
    shows; priced below, fixed time the model has no term for."""

    above: str
    below: str

    def reason(self, miss_ms: float) -> str:
        """The reason for a miss of ``miss_ms`` (model − observed)."""
        return self.above if miss_ms > 0 else self.below


def _fixed_ms(profile: JobProfile) -> float:
    c = profile.costs
    return c.task_overhead_ms + c.setup_ms + c.cleanup_ms


def _warm(profile: JobProfile, seg: str) -> float:
    return float(profile.cluster_facts.get(f"jvm_warmup.{seg}_ms", 0.0) or 0.0)


def _map_pairs(
    profile: JobProfile, cfg: HadoopConfig, spill_overlap: bool
) -> dict[str, list[tuple[float, float]]]:
    """(observed, model) per map attempt and segment."""
    maps = [t for t in profile.observed if t.kind == "map"]
    out: dict[str, list[tuple[float, float]]] = {}
    if not maps:
        return out
    res = map_task(
        profile,
        ConfigBatch.from_base(cfg, len(maps)),
        map_splits(profile, maps),
        spill_overlap=spill_overlap,
    )
    ph = res.phase_ms
    last = np.broadcast_to(np.asarray(res.last_spill_ms, dtype=np.float64), res.spills.shape)
    work = ph["read"] + ph["map"] + ph["collect"] + ph["write"]
    first = work + ph["spill"] - last
    sort = last + ph["merge"]
    fixed = _fixed_ms(profile)
    cold = cold_attempt(profile, maps)
    for j, t in enumerate(maps):
        p = t.phases_ms
        model = {
            "map.map": first[j] + fixed,
            "map.sort": sort[j],
            "map.total": first[j] + sort[j] + fixed,
            "map.read": ph["read"][j] + fixed,
            "map.mapfn": ph["map"][j] + ph["write"][j],
            "map.collect": ph["collect"][j],
            "map.spill": ph["spill"][j],
            "map.merge": ph["merge"][j],
        }
        names = list(cut_of(p, MAP_CUTS, "map.total"))
        if "spill_last" in p and res.spills[j] >= 1:
            names.append("map.spill_last")
            model["map.spill_last"] = float(last[j])
        for s in names:
            key = s.split(".", 1)[1]
            if key not in p:
                continue
            extra = _warm(profile, s) if j == cold else 0.0
            out.setdefault(s, []).append((float(p[key]), float(model[s]) + extra))
    return out


def _reduce_pairs(
    profile: JobProfile, cfg: HadoopConfig
) -> tuple[dict[str, list[tuple[float, float]]], int]:
    """(observed, model) per reduce attempt and segment; and how many first segments were
    left out because the reduce started before the maps ended (slow start)."""
    reds = [t for t in profile.observed if t.kind == "reduce"]
    out: dict[str, list[tuple[float, float]]] = {}
    if not reds or profile.map_only:
        return out, 0
    m, q, q_raw, w = reduce_inputs(profile, cfg, reds)
    ph = reduce_task(profile, ConfigBatch.from_base(cfg, len(reds)), m, q, q_raw, w).phase_ms
    fixed = _fixed_ms(profile)
    cold = cold_attempt(profile, reds)
    skipped = 0
    for j, t in enumerate(reds):
        p = t.phases_ms
        model = {
            "reduce.shuffle": ph["shuffle"][j] + fixed,
            "reduce.merge": ph["merge"][j],
            "reduce.reduce": ph["reduce"][j] + ph["write"][j],
            "reduce.reducefn": ph["reduce"][j],
            "reduce.write": ph["write"][j],
            "reduce.total": sum(v[j] for v in ph.values()) + fixed,
        }
        names = cut_of(p, REDUCE_CUTS, "reduce.total")
        for s in names:
            if s in ("reduce.shuffle", "reduce.total") and p.get("shuffle_wait", 0.0) > 0:
                skipped += 1
                continue
            extra = _warm(profile, s) if j == cold else 0.0
            out.setdefault(s, []).append((float(p[s.split(".")[1]]), float(model[s]) + extra))
    return out, skipped


def _segment(
    name: str, pairs: F64, tolerance: float, floor_ms: float, hint: str | MissHint
) -> SegmentCheck:
    obs, pred = float(np.mean(pairs[:, 0])), float(np.mean(pairs[:, 1]))
    miss = pred - obs
    err = miss / obs if obs > 0 else (0.0 if abs(miss) <= floor_ms else float("inf"))
    ok = abs(miss) <= max(tolerance * obs, floor_ms)
    reason = ""
    if not ok:
        said = hint.reason(miss) if isinstance(hint, MissHint) else hint
        reason = said or "the fitted factors cannot match it together with the other segments"
    return SegmentCheck(
        segment=name,
        label=SEGMENT_LABEL.get(name, name),
        n=len(pairs),
        observed_ms=obs,
        predicted_ms=pred,
        error=err if np.isfinite(err) else 1e9,
        ok=ok,
        reason=reason,
    )


def check_calibration(
    profile: JobProfile,
    cfg: HadoopConfig,
    *,
    spill_overlap: bool = False,
    linear: Mapping[str, tuple[int, float, float]] | None = None,
    hints: Mapping[str, str | MissHint] | None = None,
    tolerance: float = CALIBRATION_TOLERANCE,
    floor_ms: float = CALIBRATION_FLOOR_MS,
) -> CalibrationCheck:
    """Compare the calibrated ``profile`` with its observed attempts, segment by segment.

    ``linear``: segment → (n, observed mean, the fit's mean): the prediction for the task-log
    sub-segments (:data:`LINEAR_ONLY`), a diagnosis for the others. ``hints``: segment → why
    the fit could not price it (fixed time, factors at their bounds…), used as the reason
    when that segment misses; a :class:`MissHint` gives one reason per side of the miss.
    """
    hints = hints or {}
    pairs = _map_pairs(profile, cfg, spill_overlap)
    red, skipped = _reduce_pairs(profile, cfg)
    pairs.update(red)
    checks: list[SegmentCheck] = []
    for s in SEGMENTS:
        if s in LINEAR_ONLY:
            if linear and s in linear:
                n, obs, pred = linear[s]
                arr = np.array([[obs, pred]])
                c = _segment(s, arr, tolerance, floor_ms, hints.get(s, ""))
                checks.append(c.model_copy(update={"n": n}))
            continue
        if pairs.get(s):
            hint: str | MissHint = hints.get(s, "")
            if not hint and linear and s in linear:
                _, obs, pred = linear[s]
                if abs(pred - obs) <= max(tolerance * obs, floor_ms):
                    hint = (
                        f"the fit's linear form gives {pred:.0f} ms, the model itself does not "
                        "(a piecewise term, e.g. spill overlap, changed branch at the fitted costs)"
                    )
            checks.append(_segment(s, np.array(pairs[s]), tolerance, floor_ms, hint))
    failed = [c for c in checks if not c.ok]
    notes = []
    if skipped:
        notes.append(
            f"{skipped} reduce shuffle(s) not compared: they started before the last map ended"
        )
    if not checks:
        return CalibrationCheck(
            status="failed",
            tolerance=tolerance,
            floor_ms=floor_ms,
            reason="no observed phase time to compare the model with"
            + (f" ({notes[0]})" if notes else ""),
        )
    reason = "; ".join(
        f"{c.segment} {c.observed_ms:.0f} ms observed vs {c.predicted_ms:.0f} ms model "
        f"({_pct(c.error)}): {c.reason}"
        for c in sorted(failed, key=lambda c: -abs(c.error))
    )
    return CalibrationCheck(
        status="failed" if failed else "ok",
        tolerance=tolerance,
        floor_ms=floor_ms,
        segments=checks,
        reason="; ".join([reason, *notes]) if reason else "; ".join(notes),
    )


def _pct(err: float) -> str:
    return "no observed time" if abs(err) >= 1e9 else f"{err:+.0%}"
