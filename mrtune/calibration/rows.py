"""Rows of the calibration fit: each observed phase time as volumes per cost factor.

For the profiled configuration the model's phase times are linear in the cost factors, so each
attempt's segment time is ``base + Σ factor × volume``, where the volume of a factor is the
model's segment time with only that factor at 1 *less the base* (every factor at 0; the base is
not zero when, e.g., a codec's CPU is priced at its prior rather than fitted). See
:mod:`mrtune.calibration.cost_factors` for the segments and the fit, and
:mod:`mrtune.calibration.unit_models` for the model calls (stacked, and remembered within a fit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from mrtune.calibration.segments import (
    FIRST_SEGMENTS,
    MAP_CUTS,
    REDUCE_CUTS,
    cold_attempt,
    cut_of,
)
from mrtune.calibration.unit_models import (
    CODEC_COLUMN_PREFIX,
    SHAPE_FACTORS,
    UNIT_FACTORS,
    codec_column,
    fit_columns,
    map_units,
    reduce_units,
)
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_task import MapTaskResult, overlap_coefficients
from mrtune.costmodel.profile import CostFactors, JobProfile, TaskTiming

F64 = NDArray[np.float64]
#: Re-exported: the fit modules import the column names from here.
__all__ = ["CODEC_COLUMN_PREFIX", "SHAPE_FACTORS", "UNIT_FACTORS", "codec_column", "fit_columns"]


@dataclass
class _Obs:
    y: list[float] = field(default_factory=list)
    rows: list[F64] = field(default_factory=list)  # volume per unit factor
    offset: list[float] = field(default_factory=list)  # codec CPU (not a cost factor)
    fixed_w: list[float] = field(default_factory=list)  # 1 where the row holds the fixed time
    warm_w: list[float] = field(default_factory=list)  # 1 on the JVM's first attempt (cold)
    skipped: int = 0  # reduces whose shuffle overlapped the maps
    #: index of each row's attempt among the observed attempts of its kind (map or reduce),
    #: so a bootstrap can redraw attempts without recomputing rows (calibration.resample)
    attempt: list[int] = field(default_factory=list)
    #: each row's attempt id, to name the attempt a capped prior was bounded by
    #: (:mod:`mrtune.calibration.prior_caps`)
    ids: list[str] = field(default_factory=list)


def _map_parts(res: MapTaskResult, full_share: F64) -> dict[str, F64]:
    """A map task's serial parts: the map thread's work to the flush, the background spills
    (each at its own cost, as if alone), the final spill, the merge."""
    ph = res.phase_ms
    work = ph["read"] + ph["map"] + ph["collect"] + ph["write"]
    last = np.asarray(res.last_spill_ms, dtype=np.float64) * np.ones_like(work)
    n_full = np.maximum(res.spills - 1.0, 0.0)
    bg = ph["spill"] - last
    s_full = np.divide(bg, n_full, out=np.zeros_like(bg), where=n_full > 0)
    return {
        "work": work,
        "bg": bg,
        "last": last,
        "merge": ph["merge"],
        "s_full": s_full,
        "fill": work * full_share,
        "read": ph["read"],
        "mapfn": ph["map"] + ph["write"],
        "collect": ph["collect"],
        "spill": ph["spill"],
    }


@dataclass
class _Overlap:
    """Cost-independent coefficients of ``mrtune.costmodel.map_task.hidden_spill_ns`` per attempt."""

    n_full: F64
    mid: F64
    end: F64
    head_share: F64
    last_share: F64

    @classmethod
    def of(cls, res: MapTaskResult, batch: ConfigBatch) -> _Overlap:
        n_full = np.maximum(res.spills - 1.0, 0.0)
        mid, end, head, last = overlap_coefficients(
            n_full,
            res.records_per_full_spill,
            res.records_in_last_spill,
            res.output_records,
            batch.spill_percent,
        )
        return cls(n_full, mid, end, head, last)

    def branches(self, parts: dict[str, F64], kappa: float) -> tuple[NDArray, NDArray]:
        """Per attempt, which linear piece of ``blocked_ns`` holds for the middle spills and for
        the last background spill at these (evaluated) parts: 0 when the spill outlasts the
        map thread's headroom work, 1 when it is shorter but still blocks, 2 when it is
        hidden entirely."""
        a = self.s_full(parts)
        out = []
        for share in (self.head_share, self.last_share):
            b = share * parts["work"]
            out.append(np.where(a >= b, 0, np.where((1.0 + kappa) * a > b, 1, 2)))
        return out[0], out[1]

    def s_full(self, parts: dict[str, F64]) -> F64:
        return np.divide(
            parts["bg"], self.n_full, out=np.zeros_like(parts["bg"]), where=self.n_full > 0
        )

    def terms(
        self, parts: dict[str, F64], kappa: float, branch: tuple[NDArray, NDArray]
    ) -> tuple[F64, F64]:
        """(total blocked time, mean time of one background spill), each linear in the parts
        on the given pieces (``mrtune.costmodel.map_task.blocked_ns``)."""
        a = self.s_full(parts)
        blocked = np.zeros_like(a)
        spill_sum = np.zeros_like(a)
        for weight, share, code in (
            (self.mid, self.head_share, branch[0]),
            (self.end, self.last_share, branch[1]),
        ):
            b = share * parts["work"]
            piece = np.where(code == 0, a - (1.0 - kappa) * b, (1.0 + kappa) * a - b)
            blocked += weight * np.where(code == 2, 0.0, piece)
            spill_sum += weight * np.where(code == 0, a + kappa * b, (1.0 + kappa) * a)
        mean_spill = np.divide(spill_sum, self.n_full, out=np.zeros_like(a), where=self.n_full > 0)
        return blocked, mean_spill


def _map_segments(
    parts: dict[str, F64],
    ovl: _Overlap | None,
    branch: tuple[NDArray, NDArray] | None,
    kappa: float = 0.0,
) -> dict[str, F64]:
    """Observed map segments from the parts (linear in the cost factors).

    Serial phases (``ovl is None``): ``map`` = work + background spills. With the spill
    thread on its own core (``mrtune.costmodel.map_task.hidden_spill_ns``) ``map`` = work + the time
    the map thread blocked on full buffers, and a background spill lasts its own time plus
    ``kappa`` × its overlap with the map thread; each is piecewise linear, and ``branch``
    says per attempt which piece holds at the current cost estimate, so each row stays linear.
    """
    if ovl is None or branch is None:
        first = parts["work"] + parts["bg"]
        spill_full = parts["s_full"]
    else:
        blocked, spill_full = ovl.terms(parts, kappa, branch)
        first = parts["work"] + blocked
    sort = parts["last"] + parts["merge"]
    return {
        "map.map": first,
        "map.sort": sort,
        "map.total": first + sort,
        "map.spill_last": parts["last"],
        "map.spill_full": spill_full,
        "map.fill": parts["fill"],
        # per-phase tables (clusters: serial phases)
        "map.read": parts["read"],
        "map.mapfn": parts["mapfn"],
        "map.collect": parts["collect"],
        "map.spill": parts["spill"],
        "map.merge": parts["merge"],
    }


def _reduce_segments(phases: dict[str, F64]) -> dict[str, F64]:
    return {
        "reduce.shuffle": phases["shuffle"],
        "reduce.merge": phases["merge"],
        "reduce.reduce": phases["reduce"] + phases["write"],
        "reduce.reducefn": phases["reduce"],
        "reduce.write": phases["write"],
        "reduce.total": sum(phases.values()),
    }


def _collect_map(
    profile: JobProfile,
    cfg: HadoopConfig,
    obs: dict[str, _Obs],
    codecs: Sequence[str] = (),
    *,
    spill_overlap: bool = False,
    theta: dict[str, float] | None = None,
    contention: float = 0.0,
    byte_terms: Sequence[str] = (),
) -> None:
    """Rows of the map attempts. ``theta`` (column → value) decides, with ``spill_overlap``,
    which attempts were spill-bound (:func:`_map_segments`). ``byte_terms``: the per-byte CPU
    factors the fit prices (columns after :data:`UNIT_FACTORS`, before the codecs')."""
    maps = [t for t in profile.observed if t.kind == "map"]
    if not maps:
        return
    r0, rk = map_units(profile, cfg, maps, codecs, byte_terms)
    share = np.divide(
        r0.records_per_full_spill,
        r0.output_records,
        out=np.zeros(len(maps)),
        where=r0.output_records > 0,
    )
    parts0 = _map_parts(r0, share)
    partsk = {f: _map_parts(r, share) for f, r in rk.items()}
    ovl = branch = None
    kappa = contention if spill_overlap else 0.0
    if spill_overlap:
        th = theta or {}
        default = CostFactors()
        at = {
            key: parts0[key]
            + sum(
                (pk[key] - parts0[key]) * th.get(f, getattr(default, f, 1.0))
                for f, pk in partsk.items()
            )
            for key in parts0
        }
        ovl = _Overlap.of(r0, ConfigBatch.from_base(cfg, len(maps)))
        branch = ovl.branches(at, kappa)
    seg0 = _map_segments(parts0, ovl, branch, kappa)
    segk = {f: _map_segments(pk, ovl, branch, kappa) for f, pk in partsk.items()}
    warm = cold_attempt(profile, maps)
    _add_obs(maps, seg0, segk, obs, MAP_CUTS, "map.total", warm)
    _add_spill_obs(maps, r0, seg0, segk, obs, warm)


def _volumes(segk: dict[str, dict[str, F64]], seg0: dict[str, F64], name: str, j: int) -> F64:
    """Attempt ``j``'s volume per column in segment ``name``: the segment time with only that
    column at 1, *less the base time* (every column at 0).

    The base is not zero: it holds what no column prices (the CPU of a codec whose scale is not
    fitted, at its prior). It is the row's known offset (:attr:`_Obs.offset`); leaving it in each
    column's volume as well would charge it once per unit of every factor (issue 20: a 9.7 ms
    LZOP base became a "volume" of every factor and the fit collapsed to the 0 bounds).
    """
    base = float(seg0[name][j])
    return np.array([segk[f][name][j] - base for f in segk], dtype=np.float64)


def _add_spill_obs(
    maps: list[TaskTiming],
    r0: MapTaskResult,
    seg0: dict[str, F64],
    segk: dict[str, dict[str, F64]],
    obs: dict[str, _Obs],
    warm: int | None = None,
) -> None:
    """Rows of the spills' own times, where the task log gave them (local run records:
    ``fill`` = task start → first spill start, the map function's time for one buffer;
    ``spill_full`` = mean time of the spills before the flush; ``spill_last`` = the final
    spill). They pin the sort and combine costs apart from the map function's, which the
    map segment alone cannot do when the map thread blocked on a full buffer."""
    for j, t in enumerate(maps):
        for name, key, ok in (
            ("map.fill", "fill", r0.spills[j] > 1),
            ("map.spill_full", "spill_full", r0.spills[j] > 1),
            ("map.spill_last", "spill_last", r0.spills[j] >= 1),
        ):
            if key not in t.phases_ms or not ok:
                continue
            o = obs.setdefault(name, _Obs())
            o.y.append(float(t.phases_ms[key]))
            o.fixed_w.append(1.0 if name in FIRST_SEGMENTS else 0.0)
            o.warm_w.append(1.0 if j == warm else 0.0)
            o.rows.append(_volumes(segk, seg0, name, j))
            o.offset.append(float(seg0[name][j]))
            o.attempt.append(j)
            o.ids.append(t.attempt_id)


def _collect_reduce(
    profile: JobProfile,
    cfg: HadoopConfig,
    obs: dict[str, _Obs],
    codecs: Sequence[str] = (),
    byte_terms: Sequence[str] = (),
) -> None:
    reds = [t for t in profile.observed if t.kind == "reduce"]
    if not reds or profile.map_only:
        return
    r0, rk = reduce_units(profile, cfg, reds, codecs, byte_terms)
    seg0 = _reduce_segments(r0.phase_ms)
    segk = {f: _reduce_segments(r.phase_ms) for f, r in rk.items()}
    warm = cold_attempt(profile, reds)
    _add_obs(
        reds,
        seg0,
        segk,
        obs,
        REDUCE_CUTS,
        "reduce.total",
        warm,
    )


def _add_obs(
    tasks: list[TaskTiming],
    seg0: dict[str, F64],
    segk: dict[str, dict[str, F64]],
    obs: dict[str, _Obs],
    cuts: tuple[tuple[str, ...], ...],
    total_name: str,
    warm: int | None = None,
) -> None:
    """Append each attempt's rows; ``warm``: the index of the attempt that ran first in a JVM
    shared by every task (local mode): each of its segments also holds the JIT compilation of
    the code it ran first (an unknown per segment, :func:`_solve_ridge`)."""
    for j, t in enumerate(tasks):
        names = cut_of(t.phases_ms, cuts, total_name)
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
            o.warm_w.append(1.0 if j == warm else 0.0)
            o.rows.append(_volumes(segk, seg0, name, j))
            o.offset.append(float(seg0[name][j]))
            o.attempt.append(j)
            o.ids.append(t.attempt_id)
