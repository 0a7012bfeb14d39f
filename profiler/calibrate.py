"""Fit a profile's cost factors so the model reproduces the observed phase times.

For the profiled configuration and the profile's dataflow statistics the model's phase times
are *linear* in the cost factors (every term is factor × bytes or records, reference §2–§4).
So the volume each factor multiplies in each phase is obtained exactly by running the model
(:func:`costmodel.map_task`, :func:`costmodel.reduce_task`) with that factor at 1 ns and the
others at 0, once per observed attempt with that attempt's own input (HDFS bytes read, reduce
input records), and the fit is linear least squares.

What a history records per successful attempt, and the model phases it covers (phases are
serial in the model; Hadoop's ``mapFinishTime`` ends the map function, before the final spill):

=======================  ===============================================================
segment                  model phases
=======================  ===============================================================
map ``map``              read + map + collect + spill × (s − 1)/s (+ write, map-only)
map ``sort``             spill / s + merge (the last of the ``s`` spills, then the merge)
map ``total``            all map phases (sources without ``mapFinishTime``)
reduce ``shuffle``       shuffle
reduce ``merge``         merge (Hadoop's reduce-side "sort")
reduce ``reduce``        reduce + write
reduce ``total``         all reduce phases
=======================  ===============================================================

The first segment of an attempt (map ``map``, reduce ``shuffle``, or ``total``) also holds the
task's fixed time (container JVM start, task setup), fitted as ``task_overhead_ms``. A reduce
that started before the last map ended spent its shuffle waiting for maps (slow start), so its
first segment measures the maps, not the transfer: it is left out of the fit.

Identification. Every observed phase time is one row of a single weighted least-squares
problem (rows scaled by 1 / their segment's mean, so a short merge counts as much as a long
map phase). A segment whose volume terms explain less than :data:`FIXED_SHARE` of it at default
costs is fixed time: factors at home there (where they contribute most) keep their defaults,
and its rows are dropped with a warning, except first segments, whose rows measure the fixed
time. The remaining factors are ordered by their default contribution, the fixed time is placed
after the leading factor (first when every first segment is fixed time), and the longest list
whose columns stay linearly independent (condition number ≤ 1/:data:`RANK_TOL`) is fitted by
non-negative least squares (:func:`scipy.optimize.nnls`). The others keep their defaults and
say why: zero volume, or not separable from a fitted factor (tasks of equal size cannot tell
per-byte from per-record costs).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import nnls

from costmodel.batch import ConfigBatch
from costmodel.config import HadoopConfig
from costmodel.map_task import map_task
from costmodel.profile import CostFactors, JobProfile, TaskTiming
from costmodel.reduce_task import reduce_task
from profiler.build import stored_input_bytes

F64 = NDArray[np.float64]

#: Per-unit factors (ns per byte or record). The fixed per-task times are handled apart.
UNIT_FACTORS: tuple[str, ...] = tuple(
    f
    for f, info in CostFactors.model_fields.items()
    if f not in ("setup_ms", "cleanup_ms", "task_overhead_ms") and info.annotation is float
)
#: Below this share of a segment's time at default costs, the segment is fixed time.
FIXED_SHARE = 0.05
#: Relative singular value (columns scaled to unit norm) below which a column adds nothing
#: that the others do not already explain: condition number above 1000 means collinear.
RANK_TOL = 1e-3

SEGMENTS: tuple[str, ...] = (
    "map.map",
    "map.total",
    "map.sort",
    "reduce.shuffle",
    "reduce.total",
    "reduce.merge",
    "reduce.reduce",
)
FIRST_SEGMENTS = {"map.map", "map.total", "reduce.shuffle", "reduce.total"}
SEGMENT_LABEL = {
    "map.map": "map phase (start→mapFinishTime)",
    "map.total": "map attempt time",
    "map.sort": "map sort/spill (mapFinishTime→finish)",
    "reduce.shuffle": "shuffle (start→shuffleFinishTime)",
    "reduce.total": "reduce attempt time",
    "reduce.merge": "merge (shuffleFinishTime→sortFinishTime)",
    "reduce.reduce": "reduce (sortFinishTime→finish)",
}


@dataclass
class SegmentFit:
    """One segment's observations and the model's reproduction of them."""

    name: str
    n: int
    observed_mean_ms: float
    model_mean_ms: float
    fitted: list[str] = field(default_factory=list)


@dataclass
class CalibrationResult:
    profile: JobProfile
    segments: list[SegmentFit]


@dataclass
class _Obs:
    y: list[float] = field(default_factory=list)
    rows: list[F64] = field(default_factory=list)  # volume per unit factor
    offset: list[float] = field(default_factory=list)  # codec CPU (not a cost factor)
    fixed_w: list[float] = field(default_factory=list)  # 1 where the row holds the fixed time
    skipped: int = 0  # reduces whose shuffle overlapped the maps


def _unit_profiles(profile: JobProfile) -> tuple[JobProfile, dict[str, JobProfile]]:
    zero = {f: 0.0 for f in CostFactors.model_fields}
    base = profile.model_copy(update={"costs": CostFactors(**zero)})
    units = {
        f: profile.model_copy(update={"costs": CostFactors(**{**zero, f: 1.0})})
        for f in UNIT_FACTORS
    }
    return base, units


def _map_segments(phases: dict[str, F64], spills: F64, map_only: bool) -> dict[str, F64]:
    s = np.maximum(spills, 1.0)
    early = np.where(spills > 1, (spills - 1) / s, 0.0)
    first = phases["read"] + phases["map"] + phases["collect"] + phases["write"]
    return {
        "map.map": first + phases["spill"] * early,
        "map.sort": phases["spill"] * (1 - early) + phases["merge"],
        "map.total": sum(phases.values()),
    }


def _reduce_segments(phases: dict[str, F64]) -> dict[str, F64]:
    return {
        "reduce.shuffle": phases["shuffle"],
        "reduce.merge": phases["merge"],
        "reduce.reduce": phases["reduce"] + phases["write"],
        "reduce.total": sum(phases.values()),
    }


def _collect_map(profile: JobProfile, cfg: HadoopConfig, obs: dict[str, _Obs]) -> None:
    maps = [t for t in profile.observed if t.kind == "map"]
    if not maps:
        return
    n_maps = float(profile.cluster_facts.get("num_maps", len(maps)) or len(maps))
    avg = profile.input_bytes / max(n_maps, 1.0)
    split = np.array([stored_input_bytes(t.counters) or avg for t in maps], dtype=np.float64)
    batch = ConfigBatch.from_base(cfg, len(maps))
    base, units = _unit_profiles(profile)
    r0 = map_task(base, batch, split)
    seg0 = _map_segments(r0.phase_ms, r0.spills, profile.map_only)
    segk = {}
    for f, p in units.items():
        r = map_task(p, batch, split)
        segk[f] = _map_segments(r.phase_ms, r0.spills, profile.map_only)
    _add_obs(maps, seg0, segk, obs, ("map.map", "map.sort"), "map.total")


def _collect_reduce(profile: JobProfile, cfg: HadoopConfig, obs: dict[str, _Obs]) -> None:
    reds = [t for t in profile.observed if t.kind == "reduce"]
    if not reds or profile.map_only:
        return
    n_maps = float(profile.cluster_facts.get("num_maps", 1.0) or 1.0)
    n_red = max(float(profile.cluster_facts.get("num_reduces", len(reds)) or len(reds)), 1.0)
    one = ConfigBatch.from_base(cfg, 1)
    mf = map_task(profile, one, np.array([profile.input_bytes / n_maps]))
    job_rir = profile.observed_counters.get("REDUCE_INPUT_RECORDS") or float(
        mf.final_records[0] * n_maps
    )
    job_raw = profile.observed_counters.get("MAP_OUTPUT_RECORDS") or float(
        mf.output_records[0] * n_maps
    )
    rir = np.array(
        [t.counters.get("REDUCE_INPUT_RECORDS", job_rir / n_red) for t in reds], dtype=np.float64
    )
    m = np.array([t.counters.get("SHUFFLED_MAPS", n_maps) or n_maps for t in reds])
    m = np.maximum(m, 1.0)
    q = rir / m
    q_raw = q * (job_raw / job_rir if job_rir > 0 else 1.0)
    w = np.full(len(reds), float(mf.final_pair_width[0]))
    batch = ConfigBatch.from_base(cfg, len(reds))
    base, units = _unit_profiles(profile)
    seg0 = _reduce_segments(reduce_task(base, batch, m, q, q_raw, w).phase_ms)
    segk = {
        f: _reduce_segments(reduce_task(p, batch, m, q, q_raw, w).phase_ms)
        for f, p in units.items()
    }
    _add_obs(
        reds, seg0, segk, obs, ("reduce.shuffle", "reduce.merge", "reduce.reduce"), "reduce.total"
    )


def _add_obs(
    tasks: list[TaskTiming],
    seg0: dict[str, F64],
    segk: dict[str, dict[str, F64]],
    obs: dict[str, _Obs],
    split_names: tuple[str, ...],
    total_name: str,
) -> None:
    for j, t in enumerate(tasks):
        short = [n.split(".", 1)[1] for n in split_names]
        names = split_names if all(s in t.phases_ms for s in short) else (total_name,)
        # A reduce that starts before the last map ends fetches most of its input while it
        # waits for the maps: its shuffle time measures the maps, not the transfer (and hides
        # its container start). Such first segments are left out of the fit.
        wait = float(t.phases_ms.get("shuffle_wait", 0.0))
        for name in names:
            key = name.split(".", 1)[1]
            o = obs.setdefault(name, _Obs())
            first = name in FIRST_SEGMENTS
            if first and t.kind == "reduce" and wait > 0:
                o.skipped += 1
                continue
            o.y.append(float(t.phases_ms[key]))
            o.fixed_w.append(1.0 if first else 0.0)
            o.rows.append(np.array([segk[f][name][j] for f in UNIT_FACTORS], dtype=np.float64))
            o.offset.append(float(seg0[name][j]))


def fit_cost_factors(profile: JobProfile, cfg: HadoopConfig) -> CalibrationResult:
    """Fit ``profile.costs`` to its observed attempts (see the module doc)."""
    obs: dict[str, _Obs] = {}
    _collect_map(profile, cfg, obs)
    _collect_reduce(profile, cfg, obs)
    defaults = CostFactors()
    theta0 = np.array([getattr(defaults, f) for f in UNIT_FACTORS], dtype=np.float64)
    prov: dict[str, str] = {}
    warnings: list[str] = []
    present = [s for s in SEGMENTS if s in obs and obs[s].y]
    overlapped = sum(obs[s].skipped for s in ("reduce.shuffle", "reduce.total") if s in obs)
    if overlapped and not any(s in present for s in ("reduce.shuffle", "reduce.total")):
        prov["costs.network"] = (
            f"defaulted: all {overlapped} reduce(s) started before the last map ended, so "
            "their shuffle times measure the wait for maps"
        )
    if not present:
        return _finish(profile, theta0, None, "", prov, warnings, obs, [])

    # ---- stack every observed phase time: one row per (attempt, segment)
    y = np.concatenate([np.array(obs[s].y) for s in present])
    V = np.vstack([np.vstack(obs[s].rows) for s in present])
    off = np.concatenate([np.array(obs[s].offset) for s in present])
    fw = np.concatenate([np.array(obs[s].fixed_w) for s in present])
    seg = np.concatenate([[s] * len(obs[s].y) for s in present])
    # each segment weighs the same: rows are scaled by 1 / the segment's mean time
    mean_of = {s: max(float(np.mean(obs[s].y)), 1.0) for s in present}
    w = np.array([1.0 / mean_of[s] for s in seg])

    # ---- segments that are fixed time: the volume terms explain < FIXED_SHARE of them
    share = {}
    for s in present:
        rows = seg == s
        share[s] = float(np.mean(V[rows] @ theta0 + off[rows])) / mean_of[s]
    fixed_segs = {s for s in present if share[s] < FIXED_SHARE}
    keep = np.array([(s not in fixed_segs) or (s in FIRST_SEGMENTS) for s in seg])
    for s in sorted(fixed_segs - FIRST_SEGMENTS, key=SEGMENTS.index):
        warnings.append(
            f"{SEGMENT_LABEL[s]}: {mean_of[s]:.0f} ms on average, but the model's volume terms "
            f"give {share[s] * mean_of[s]:.1f} ms at default costs; the rest is fixed time the "
            "model has no term for"
        )

    # ---- each factor's home segment (largest default contribution)
    contrib = {s: np.abs(V[seg == s]).sum(axis=0) * theta0 * w[seg == s][0] for s in present}
    cand: list[int] = []
    for i, f in enumerate(UNIT_FACTORS):
        best = max(present, key=lambda s: contrib[s][i])
        if contrib[best][i] <= 0:
            prov.setdefault(
                f"costs.{f}", "defaulted: nothing in this job for it to price (zero volume)"
            )
        elif best in fixed_segs:
            prov[f"costs.{f}"] = (
                f"defaulted: {SEGMENT_LABEL[best]} is fixed time "
                f"(volume terms {share[best]:.1%} of it)"
            )
        else:
            cand.append(i)
    total = {i: sum(contrib[s][i] for s in present if s not in fixed_segs) for i in cand}
    cand.sort(key=lambda i: -total[i])

    # ---- greedy selection of identifiable columns, then one non-negative least squares
    Vk, yk, offk, fwk, wk = V[keep], y[keep], off[keep], fw[keep], w[keep]
    columns: list[tuple[str, int]] = [("f", i) for i in cand]
    if fwk.any():
        all_first_fixed = all(s in fixed_segs for s in present if s in FIRST_SEGMENTS)
        columns.insert(0 if all_first_fixed or not columns else 1, ("c", -1))
    sel: list[tuple[str, int]] = []
    for c in columns:
        trial = [*sel, c]
        if len(trial) <= len(yk) and _full_rank(_design(Vk, trial, fwk) * wk[:, None]):
            sel.append(c)
    chosen = [i for k, i in sel if k == "f"]
    others = [i for i in range(len(UNIT_FACTORS)) if i not in chosen]
    resid = yk - offk - Vk[:, others] @ theta0[others]
    theta = theta0.copy()
    fixed: float | None = None
    fixed_how = ""
    if sel:
        D = _design(Vk, sel, fwk) * wk[:, None]
        scale = np.linalg.norm(D, axis=0)
        scale[scale == 0] = 1.0
        sol, _ = nnls(D / scale, resid * wk, maxiter=50 * D.shape[1] + 100)
        sol = sol / scale
        exact = len(sel) == len(yk)
        for (kind, i), v in zip(sel, sol, strict=True):
            if kind == "c":
                fixed = float(v)
                n_first = int(fwk.sum())
                fixed_how = (
                    f"measured: fixed time in {n_first} attempts' first phase (JVM start, "
                    "setup)" + (", with the volume terms fitted jointly" if chosen else "")
                )
            else:
                theta[i] = float(v)
                segs = [
                    SEGMENT_LABEL[s] for s in present if s not in fixed_segs and contrib[s][i] > 0
                ]
                how = "exact fit" if exact else "least squares"
                prov[f"costs.{UNIT_FACTORS[i]}"] = (
                    f"measured: {how} on {len(yk)} phase times ({'; '.join(segs[:2])})"
                    + (" (hit 0 bound)" if v == 0 else "")
                )
    for i in cand:
        if i not in chosen:
            near = _most_collinear(Vk * wk[:, None], i, chosen)
            prov[f"costs.{UNIT_FACTORS[i]}"] = (
                f"defaulted: not separable from {UNIT_FACTORS[near] if near is not None else 'the fitted factors'} "
                f"in these {len(yk)} phase times (underdetermined)"
            )
    return _finish(profile, theta, fixed, fixed_how, prov, warnings, obs, present)


def _most_collinear(V: F64, i: int, chosen: list[int]) -> int | None:
    best, best_c = None, -1.0
    vi = V[:, i] / (np.linalg.norm(V[:, i]) or 1.0)
    for j in chosen:
        vj = V[:, j] / (np.linalg.norm(V[:, j]) or 1.0)
        c = abs(float(vi @ vj))
        if c > best_c:
            best, best_c = j, c
    return best


def _finish(
    profile: JobProfile,
    theta: F64,
    fixed: float | None,
    fixed_how: str,
    prov: dict[str, str],
    warnings: list[str],
    obs: dict[str, _Obs],
    present: list[str],
) -> CalibrationResult:
    defaults = CostFactors()
    costs = {f: float(theta[i]) for i, f in enumerate(UNIT_FACTORS)}
    costs["task_overhead_ms"] = fixed if fixed is not None else defaults.task_overhead_ms
    costs["setup_ms"] = defaults.setup_ms
    costs["cleanup_ms"] = defaults.cleanup_ms
    prov["costs.task_overhead_ms"] = (
        fixed_how
        if fixed is not None
        else "defaulted: not separable from volume terms (task sizes too alike)"
    )
    for f in ("setup_ms", "cleanup_ms"):
        prov[f"costs.{f}"] = "defaulted: not timed apart in histories (in task_overhead_ms)"
    prov["costs.reduce_includes_final_merge"] = (
        "defaulted: false, reduce_cpu is fitted with the final merge charged apart"
    )
    for f in UNIT_FACTORS:
        prov.setdefault(f"costs.{f}", "defaulted: its phase was not observed")
    seg_fits = []
    facts = dict(profile.cluster_facts)
    for s in present:
        o = obs[s]
        pred = (
            np.vstack(o.rows) @ theta
            + np.array(o.offset)
            + costs["task_overhead_ms"] * np.array(o.fixed_w)
        )
        sf = SegmentFit(s, len(o.y), float(np.mean(o.y)), float(np.mean(pred)))
        seg_fits.append(sf)
        facts[f"fit.{s}.observed_ms"] = sf.observed_mean_ms
        facts[f"fit.{s}.model_ms"] = sf.model_mean_ms
        facts[f"fit.{s}.n"] = float(sf.n)
    new = profile.model_copy(
        update={
            "costs": CostFactors(**costs),
            "provenance": {**profile.provenance, **prov},
            "warnings": [*profile.warnings, *warnings],
            "cluster_facts": facts,
        }
    )
    return CalibrationResult(new, seg_fits)


def _design(V: F64, sel: list[tuple[str, int]], fw: F64) -> F64:
    cols = [fw if k == "c" else V[:, i] for k, i in sel]
    return np.column_stack(cols) if cols else np.zeros((V.shape[0], 0))


def _full_rank(D: F64) -> bool:
    if D.shape[1] == 0:
        return True
    norms = np.linalg.norm(D, axis=0)
    if np.any(norms == 0):
        return False
    s = np.linalg.svd(D / norms, compute_uv=False)
    return bool(s[-1] > RANK_TOL * s[0])
