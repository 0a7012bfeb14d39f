"""Fit a profile's cost factors so the model reproduces the observed phase times.

For the profiled configuration and the profile's dataflow statistics the model's phase times
are *linear* in the cost factors (every term is factor × bytes or records, reference §2–§4).
So the volume each factor multiplies in each phase is obtained exactly by running the model
(:func:`mrtune.costmodel.map_task`, :func:`mrtune.costmodel.reduce_task`) with that factor at 1 ns and the
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

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import least_squares, nnls

from mrtune.calibration.check import check_calibration
from mrtune.calibration.segments import (
    FIRST_SEGMENTS,
    SEGMENT_LABEL,
    SEGMENTS,
    cold_attempt,
    map_splits,
    reduce_inputs,
)
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_task import MapTaskResult, map_task, overlap_coefficients
from mrtune.costmodel.profile import (
    CODEC_PRIORS,
    SORT_CACHE_BYTES,
    CalibrationCheck,
    CodecStats,
    CostFactors,
    JobProfile,
    TaskTiming,
)
from mrtune.costmodel.reduce_task import reduce_task

F64 = NDArray[np.float64]

#: Per-unit factors (ns per byte or record). The fixed per-task times are handled apart.
#: Factors that shape the model rather than price a volume (they multiply other factors): kept
#: fixed during a linear fit, searched on a grid around it (:func:`solve_contention`).
SHAPE_FACTORS: tuple[str, ...] = ("spill_contention", "sort_cache_bytes", "sort_cache_slowdown")
UNIT_FACTORS: tuple[str, ...] = tuple(
    f
    for f, info in CostFactors.model_fields.items()
    if f not in SHAPE_FACTORS + ("setup_ms", "cleanup_ms", "task_overhead_ms")
    and info.annotation is float
)
#: Column-name prefix of a codec's CPU scale (machine fits, :mod:`mrtune.calibration.machine`).
CODEC_COLUMN_PREFIX = "codec:"
#: Below this share of a segment's time at default costs, the segment is fixed time.
FIXED_SHARE = 0.05
#: Relative singular value (columns scaled to unit norm) below which a column adds nothing
#: that the others do not already explain: condition number above 1000 means collinear.
RANK_TOL = 1e-3


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
    #: the calibrated model against the observed phase times (:mod:`mrtune.calibration.check`)
    check: CalibrationCheck | None = None


@dataclass
class _Obs:
    y: list[float] = field(default_factory=list)
    rows: list[F64] = field(default_factory=list)  # volume per unit factor
    offset: list[float] = field(default_factory=list)  # codec CPU (not a cost factor)
    fixed_w: list[float] = field(default_factory=list)  # 1 where the row holds the fixed time
    warm_w: list[float] = field(default_factory=list)  # 1 on the JVM's first attempt (cold)
    skipped: int = 0  # reduces whose shuffle overlapped the maps


def codec_column(name: str) -> str:
    """The column name of a codec's CPU scale in a fit (see :func:`fit_costs`)."""
    return f"{CODEC_COLUMN_PREFIX}{name}"


def _unit_profiles(
    profile: JobProfile, codecs: Sequence[str] = ()
) -> tuple[JobProfile, dict[str, JobProfile]]:
    """The profile at zero costs, and one profile per column with only that column at 1.

    A codec column (``codecs``) prices the codec's compress and uncompress CPU at its prior
    (``CODEC_PRIORS``) times 1: its fitted value scales both. The base profile then has that
    codec's CPU at 0; otherwise codec CPU stays in the offset (it is not a cost factor).
    """
    shape = {f: getattr(profile.costs, f) for f in SHAPE_FACTORS}
    zero = {f: 0.0 for f in CostFactors.model_fields if f not in SHAPE_FACTORS} | shape
    zcodecs = dict(profile.codecs)
    for name in codecs:
        c = profile.codec(name)
        zcodecs[name] = c.model_copy(
            update={"compress_ns_per_byte": 0.0, "uncompress_ns_per_byte": 0.0}
        )
    base = profile.model_copy(update={"costs": CostFactors(**zero), "codecs": zcodecs})
    units = {
        f: base.model_copy(update={"costs": CostFactors(**{**zero, f: 1.0})}) for f in UNIT_FACTORS
    }
    for name in codecs:
        prior = CODEC_PRIORS[name]
        c = profile.codec(name).model_copy(
            update={
                "compress_ns_per_byte": prior.compress_ns_per_byte,
                "uncompress_ns_per_byte": prior.uncompress_ns_per_byte,
            }
        )
        units[codec_column(name)] = base.model_copy(update={"codecs": {**zcodecs, name: c}})
    return base, units


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
    }


def _reduce_segments(phases: dict[str, F64]) -> dict[str, F64]:
    return {
        "reduce.shuffle": phases["shuffle"],
        "reduce.merge": phases["merge"],
        "reduce.reduce": phases["reduce"] + phases["write"],
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
) -> None:
    """Rows of the map attempts. ``theta`` (column → value) decides, with ``spill_overlap``,
    which attempts were spill-bound (:func:`_map_segments`)."""
    maps = [t for t in profile.observed if t.kind == "map"]
    if not maps:
        return
    split = map_splits(profile, maps)
    batch = ConfigBatch.from_base(cfg, len(maps))
    base, units = _unit_profiles(profile, codecs)
    r0 = map_task(base, batch, split)
    share = np.divide(
        r0.records_per_full_spill,
        r0.output_records,
        out=np.zeros(len(maps)),
        where=r0.output_records > 0,
    )
    parts0 = _map_parts(r0, share)
    partsk = {f: _map_parts(map_task(p, batch, split), share) for f, p in units.items()}
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
        ovl = _Overlap.of(r0, batch)
        branch = ovl.branches(at, kappa)
    seg0 = _map_segments(parts0, ovl, branch, kappa)
    segk = {f: _map_segments(pk, ovl, branch, kappa) for f, pk in partsk.items()}
    warm = cold_attempt(profile, maps)
    _add_obs(maps, seg0, segk, obs, ("map.map", "map.sort"), "map.total", warm)
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


def _collect_reduce(
    profile: JobProfile, cfg: HadoopConfig, obs: dict[str, _Obs], codecs: Sequence[str] = ()
) -> None:
    reds = [t for t in profile.observed if t.kind == "reduce"]
    if not reds or profile.map_only:
        return
    m, q, q_raw, w = reduce_inputs(profile, cfg, reds)
    batch = ConfigBatch.from_base(cfg, len(reds))
    base, units = _unit_profiles(profile, codecs)
    seg0 = _reduce_segments(reduce_task(base, batch, m, q, q_raw, w).phase_ms)
    segk = {
        f: _reduce_segments(reduce_task(p, batch, m, q, q_raw, w).phase_ms)
        for f, p in units.items()
    }
    warm = cold_attempt(profile, reds)
    _add_obs(
        reds,
        seg0,
        segk,
        obs,
        ("reduce.shuffle", "reduce.merge", "reduce.reduce"),
        "reduce.total",
        warm,
    )


def _add_obs(
    tasks: list[TaskTiming],
    seg0: dict[str, F64],
    segk: dict[str, dict[str, F64]],
    obs: dict[str, _Obs],
    split_names: tuple[str, ...],
    total_name: str,
    warm: int | None = None,
) -> None:
    """Append each attempt's rows; ``warm``: the index of the attempt that ran first in a JVM
    shared by every task (local mode): each of its segments also holds the JIT compilation of
    the code it ran first (an unknown per segment, :func:`_solve_ridge`)."""
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
            o.warm_w.append(1.0 if j == warm else 0.0)
            o.rows.append(_volumes(segk, seg0, name, j))
            o.offset.append(float(seg0[name][j]))


def fit_cost_factors(
    profile: JobProfile,
    cfg: HadoopConfig,
    *,
    prior: CostFactors | None = None,
    refit: Collection[str] | None = None,
    prior_source: str = "",
    spill_overlap: bool = False,
    method: str = "nnls",
    warm_prior: dict[str, float] | None = None,
) -> CalibrationResult:
    """Fit ``profile.costs`` to its observed attempts (see the module doc).

    ``prior``: the cost factors a factor keeps when this profile's phase times cannot identify
    it (default: :class:`CostFactors`' documented defaults), e.g. a machine benchmark's
    (:mod:`mrtune.calibration.machine`). ``refit``: the only factors (and ``task_overhead_ms``) the fit
    may change; the others keep ``prior`` and their provenance says ``prior_source``.
    ``spill_overlap``: the run's map spills overlapped the map function (local mode, see
    ``mrtune.costmodel.map_task``). ``method``: ``"nnls"`` fits the identifiable factors and keeps
    the others at ``prior`` (:func:`_solve`); ``"ridge"`` moves every factor, pulled toward
    ``prior`` (strongly for factors outside ``refit``) (:func:`_solve_ridge`).
    ``warm_prior``: the cold-JVM extra time per segment (local mode) a machine benchmark
    measured; the run's own first attempts refine it (:func:`_solve_ridge`).
    """
    pr = prior or CostFactors()
    codecs = _fitted_codecs(profile, cfg)
    if method == "ridge" and spill_overlap:
        fit = solve_contention([(profile, cfg)], pr, refit, prior_source, codecs, warm_prior)
    else:
        fit = solve_runs(
            [(profile, cfg)],
            pr,
            refit,
            prior_source,
            codecs,
            spill_overlap,
            method=method,
            contention=pr.spill_contention,
        )
    result = _finish(profile, _apply_codec_scale(fit, codecs, profile))
    check = check_calibration(
        result.profile,
        cfg,
        spill_overlap=spill_overlap,
        linear={sf.name: (sf.n, sf.observed_mean_ms, sf.model_mean_ms) for sf in result.segments},
        hints=_miss_hints(fit),
    )
    result.profile = result.profile.model_copy(update={"calibration": check})
    result.check = check
    return result


def _fitted_codecs(profile: JobProfile, cfg: HadoopConfig) -> tuple[str, ...]:
    """The map-output codec whose CPU scale the job's fit prices, when the run compressed its
    map output and the profile's codec CPU is still the documented prior (a machine benchmark's
    measured CPU is kept)."""
    if profile.map_only or not cfg.map_output_compress:
        return ()
    name = cfg.map_output_codec
    source = profile.codec(name).source
    return (name,) if "machine benchmark" not in source else ()


def _apply_codec_scale(fit: _Fit, codecs: Sequence[str], profile: JobProfile) -> _Fit:
    """Store a fitted codec CPU scale in ``fit.codecs`` (read by :func:`_finish`)."""
    for name in codecs:
        i = fit.columns.index(codec_column(name))
        scale = float(fit.theta[i])
        how = fit.prov.get(f"costs.{codec_column(name)}", "")
        c = profile.codec(name)
        prior = CODEC_PRIORS[name]
        fit.codecs[name] = c.model_copy(
            update={
                "compress_ns_per_byte": prior.compress_ns_per_byte * scale,
                "uncompress_ns_per_byte": prior.uncompress_ns_per_byte * scale,
                "source": f"{c.source}; CPU {scale:.3g} × the prior ({how})"
                if how.startswith("measured")
                else c.source,
            }
        )
    return fit


def _miss_hints(fit: _Fit) -> dict[str, str]:
    """Per segment, what in the fit explains a miss there: fixed time the model has no term
    for, or the factors that price it pushed to their 0 bound."""
    hints: dict[str, str] = {}
    at_zero = [
        i
        for i, f in enumerate(fit.columns)
        if f in UNIT_FACTORS
        and fit.theta[i] <= 1e-9 * max(getattr(CostFactors(), f), 1.0)
        and getattr(CostFactors(), f) > 0
    ]
    for s in fit.present:
        if s in fit.fixed_share:
            hints[s] = (
                f"the model's volume terms give {fit.fixed_share[s]:.1%} of it at prior costs: "
                "fixed time it has no term for"
            )
            continue
        V = np.vstack(fit.obs[s].rows)
        zero = [fit.columns[i] for i in at_zero if np.abs(V[:, i]).sum() > 0]
        if zero:
            hints[s] = f"factor(s) pricing it fitted to their 0 bound: {', '.join(zero[:4])}"
    return hints


def solve_runs(
    runs: Sequence[tuple[JobProfile, HadoopConfig]],
    prior: CostFactors,
    refit: Collection[str] | None,
    prior_source: str = "",
    codecs: Sequence[str] = (),
    spill_overlap: bool = False,
    iterations: int = 4,
    method: str = "nnls",
    contention: float = 0.0,
    warm_prior: dict[str, float] | None = None,
    slowdown: float | None = None,
) -> _Fit:
    """:func:`_solve` on the rows of every run; with ``spill_overlap`` the spill-bound branch of
    each map attempt is re-decided at the fitted costs until it no longer changes.
    ``slowdown``: the ``sort_cache_slowdown`` the runs' volumes are computed with (default:
    the prior's)."""
    theta = {f: float(getattr(prior, f)) for f in UNIT_FACTORS}
    slow = prior.sort_cache_slowdown if slowdown is None else slowdown
    shape = {"sort_cache_slowdown": slow, "sort_cache_bytes": prior.sort_cache_bytes}
    runs = [(p.model_copy(update={"costs": p.costs.model_copy(update=shape)}), c) for p, c in runs]
    last_rows: list[F64] | None = None
    fit: _Fit | None = None
    for _ in range(iterations if spill_overlap else 1):
        obs: dict[str, _Obs] = {}
        for profile, cfg in runs:
            _collect_map(
                profile,
                cfg,
                obs,
                codecs,
                spill_overlap=spill_overlap,
                theta=theta,
                contention=contention,
            )
            _collect_reduce(profile, cfg, obs, codecs)
        rows = obs["map.map"].rows if "map.map" in obs else []
        if (
            fit is not None
            and last_rows is not None
            and len(rows) == len(last_rows)
            and all(np.array_equal(a, b) for a, b in zip(rows, last_rows, strict=True))
        ):
            break
        last_rows = rows
        if method == "ridge":
            strong = (
                [
                    c
                    for c in (
                        *UNIT_FACTORS,
                        *(codec_column(c) for c in codecs),
                        "task_overhead_ms",
                    )
                    if c not in refit
                ]
                if refit is not None
                else []
            )
            fit = _solve_ridge(obs, prior, strong, prior_source, codecs, warm_prior)
        else:
            fit = _solve(obs, prior, refit, prior_source, codecs)
        theta = {f: float(v) for f, v in zip(fit.columns, fit.theta, strict=True)}
    assert fit is not None
    fit.contention = contention
    fit.slowdown = slow
    fit.cache_bytes = prior.sort_cache_bytes
    return fit


#: Spill contention values tried by :func:`solve_contention` (a 1-D search: the factor
#: multiplies other factors, so it cannot be a column of the linear fit).
CONTENTION_GRID: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0)


#: ``sort_cache_slowdown`` values tried by :func:`solve_contention`.
SLOWDOWN_GRID: tuple[float, ...] = (0.0, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0)


def solve_contention(
    runs: Sequence[tuple[JobProfile, HadoopConfig]],
    prior: CostFactors,
    refit: Collection[str] | None,
    prior_source: str = "",
    codecs: Sequence[str] = (),
    warm_prior: dict[str, float] | None = None,
) -> _Fit:
    """:func:`solve_runs` (ridge, spills overlapping) with the two shape factors searched on
    grids, coordinate by coordinate (contention, then sort slowdown, then contention again);
    the least penalised squared error wins. ``spill_contention`` needs a spill before the
    flush in the runs and ``sort_cache_slowdown`` spills of different sizes (background and
    final spills, or several runs): otherwise the prior's value is kept."""
    has_bg = any(
        "spill_full" in t.phases_ms for p, _ in runs for t in p.observed if t.kind == "map"
    )
    sizes = has_bg or len(runs) > 1

    def fit_at(kappa: float, gamma: float) -> _Fit:
        return solve_runs(
            runs,
            prior,
            refit,
            prior_source,
            codecs,
            True,
            method="ridge",
            contention=kappa,
            warm_prior=warm_prior,
            slowdown=gamma,
        )

    kappa, gamma = prior.spill_contention, prior.sort_cache_slowdown
    best = fit_at(kappa, gamma)
    steps = [("kappa", CONTENTION_GRID)] * has_bg + [("gamma", SLOWDOWN_GRID)] * sizes
    if has_bg and sizes:
        steps.append(("kappa", CONTENTION_GRID))
    for which, grid in steps:
        for v in grid:
            cand = fit_at(v, gamma) if which == "kappa" else fit_at(kappa, v)
            if cand.cost < best.cost:
                best = cand
        kappa, gamma = best.contention, best.slowdown
    best.contention_how = (
        f"measured: best of {CONTENTION_GRID} for the spills' own times "
        "(background vs final spill, from the task logs)"
        if has_bg
        else f"{prior_source or 'defaulted'}: no spill before the flush in these runs"
    )
    best.slowdown_how = (
        f"measured: best of {SLOWDOWN_GRID} for spills of different sizes (task logs)"
        if sizes
        else f"{prior_source or 'defaulted'}: one spill size in these runs"
    )
    return best


@dataclass
class _Fit:
    theta: F64
    columns: list[str]
    fixed: float
    fixed_how: str
    prov: dict[str, str]
    warnings: list[str]
    obs: dict[str, _Obs]
    present: list[str]
    cost: float = float("inf")
    contention: float = 0.0
    contention_how: str = ""
    warmup_ms: dict[str, float] = field(default_factory=dict)
    slowdown: float = 0.0
    slowdown_how: str = ""
    cache_bytes: float = SORT_CACHE_BYTES
    #: segment → share of it the volume terms explain at prior costs, for fixed-time segments
    fixed_share: dict[str, float] = field(default_factory=dict)
    #: codecs whose CPU the fit priced (:func:`_apply_codec_scale`)
    codecs: dict[str, CodecStats] = field(default_factory=dict)


@dataclass
class _Stacked:
    """Every observed phase time stacked: one row per (attempt, segment)."""

    y: F64
    V: F64
    off: F64
    fw: F64
    ww: F64
    seg: NDArray
    mean_of: dict[str, float]
    w: F64
    share: dict[str, float]
    fixed_segs: set[str]
    keep: NDArray


def _stack(
    obs: dict[str, _Obs],
    present: list[str],
    theta0: F64,
    warnings: list[str],
    fixed_offset: float = 0.0,
) -> _Stacked:
    """Stack the rows; weigh each segment alike (rows scaled by 1 / its mean time); find the
    segments that are fixed time (volume terms at the prior costs explain < FIXED_SHARE of
    them: their rows are kept only where they hold the task's fixed time, with a warning).
    ``fixed_offset``: a known fixed time already charged to the first segments' rows."""
    y = np.concatenate([np.array(obs[s].y) for s in present])
    V = np.vstack([np.vstack(obs[s].rows) for s in present])
    off = np.concatenate([np.array(obs[s].offset) for s in present])
    fw = np.concatenate([np.array(obs[s].fixed_w) for s in present])
    ww = np.concatenate(
        [np.array(obs[s].warm_w) if obs[s].warm_w else np.zeros(len(obs[s].y)) for s in present]
    )
    if fixed_offset:
        off = off + fixed_offset * fw
    seg = np.concatenate([[s] * len(obs[s].y) for s in present])
    mean_of = {s: max(float(np.mean(obs[s].y)), 1.0) for s in present}
    w = np.array([1.0 / mean_of[s] for s in seg])
    share = {s: float(np.mean(V[seg == s] @ theta0 + off[seg == s])) / mean_of[s] for s in present}
    # a segment where a codec's CPU scale is fitted is never fixed time: the codec's prior can
    # be off by far more than 1/FIXED_SHARE (Hadoop's pure-Java bzip2 on incompressible data)
    n_unit = len(UNIT_FACTORS)
    coded = {s for s in present if V.shape[1] > n_unit and np.abs(V[seg == s, n_unit:]).sum() > 0}
    fixed_segs = {s for s in present if share[s] < FIXED_SHARE and s not in coded}
    keep = np.array([(s not in fixed_segs) or (s in FIRST_SEGMENTS) for s in seg])
    for s in sorted(fixed_segs - FIRST_SEGMENTS, key=SEGMENTS.index):
        warnings.append(
            f"{SEGMENT_LABEL[s]}: {mean_of[s]:.0f} ms on average, but the model's volume terms "
            f"give {share[s] * mean_of[s]:.1f} ms at prior costs; the rest is fixed time the "
            "model has no term for"
        )
    return _Stacked(y, V, off, fw, ww, seg, mean_of, w, share, fixed_segs, keep)


def _solve(
    obs: dict[str, _Obs],
    prior: CostFactors,
    refit: Collection[str] | None,
    prior_source: str,
    codecs: Sequence[str] = (),
) -> _Fit:
    """One weighted non-negative least squares over every observed phase time (module doc).

    Columns are :data:`UNIT_FACTORS`, then one CPU scale per codec of ``codecs``.
    """
    columns = [*UNIT_FACTORS, *(codec_column(c) for c in codecs)]
    theta0 = np.array(
        [getattr(prior, f) for f in UNIT_FACTORS] + [1.0] * len(codecs), dtype=np.float64
    )
    fit_fixed = refit is None or "task_overhead_ms" in refit
    prov: dict[str, str] = {}
    warnings: list[str] = []
    if refit is not None:
        for f in columns:
            if f not in refit:
                prov[f"costs.{f}"] = prior_source or "prior"
        if not fit_fixed:
            prov["costs.task_overhead_ms"] = prior_source or "prior"
    present = [s for s in SEGMENTS if s in obs and obs[s].y]
    overlapped = sum(obs[s].skipped for s in ("reduce.shuffle", "reduce.total") if s in obs)
    if overlapped and not any(s in present for s in ("reduce.shuffle", "reduce.total")):
        prov.setdefault(
            "costs.network",
            f"defaulted: all {overlapped} reduce(s) started before the last map ended, so "
            "their shuffle times measure the wait for maps",
        )
    if not present:
        return _Fit(theta0, columns, prior.task_overhead_ms, "", prov, warnings, obs, [])

    # ---- every observed phase time stacked: one row per (attempt, segment)
    st = _stack(obs, present, theta0, warnings, 0.0 if fit_fixed else prior.task_overhead_ms)
    y, V, off, fw, seg, w = st.y, st.V, st.off, st.fw, st.seg, st.w
    share, fixed_segs, keep = st.share, st.fixed_segs, st.keep

    # ---- each factor's home segment (largest default contribution)
    contrib = {s: np.abs(V[seg == s]).sum(axis=0) * theta0 * w[seg == s][0] for s in present}
    cand: list[int] = []
    for i, f in enumerate(columns):
        if refit is not None and f not in refit:
            continue
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
    cols: list[tuple[str, int]] = [("f", i) for i in cand]
    if fwk.any() and fit_fixed:
        all_first_fixed = all(s in fixed_segs for s in present if s in FIRST_SEGMENTS)
        cols.insert(0 if all_first_fixed or not cols else 1, ("c", -1))
    sel: list[tuple[str, int]] = []
    for c in cols:
        trial = [*sel, c]
        if len(trial) <= len(yk) and _full_rank(_design(Vk, trial, fwk) * wk[:, None]):
            sel.append(c)
    chosen = [i for k, i in sel if k == "f"]
    others = [i for i in range(len(columns)) if i not in chosen]
    resid = yk - offk - Vk[:, others] @ theta0[others]
    theta = theta0.copy()
    fixed = prior.task_overhead_ms
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
                prov[f"costs.{columns[i]}"] = (
                    f"measured: {how} on {len(yk)} phase times ({'; '.join(segs[:2])})"
                    + (" (hit 0 bound)" if v == 0 else "")
                )
    for i in cand:
        if i not in chosen:
            near = _most_collinear(Vk * wk[:, None], i, chosen)
            prov[f"costs.{columns[i]}"] = (
                f"defaulted: not separable from {columns[near] if near is not None else 'the fitted factors'} "
                f"in these {len(yk)} phase times (underdetermined)"
            )
    if fit_fixed and not fixed_how:
        fixed_how = ""
    elif not fit_fixed:
        fixed_how = prior_source or "prior"
    out = _Fit(theta, columns, fixed, fixed_how, prov, warnings, obs, present)
    out.fixed_share = {s: share[s] for s in fixed_segs}
    return out


#: Ridge weights of :func:`_solve_ridge` (rows are relative errors: a weight of 1e-4 on a
#: log-factor makes moving a factor by ×e cost as much as a 1% misfit of one phase time).
WEAK_PRIOR = 1e-4
STRONG_PRIOR = 1.0


def _solve_ridge(
    obs: dict[str, _Obs],
    prior: CostFactors,
    strong: Collection[str] = (),
    prior_source: str = "",
    codecs: Sequence[str] = (),
    warm_prior: dict[str, float] | None = None,
) -> _Fit:
    """Fit every factor at once, pulled toward ``prior`` in log space.

    ``θ_k = prior_k · exp(u_k)``; minimise Σ (weighted row residual)² + Σ λ_k u_k², with
    λ = :data:`WEAK_PRIOR`, or :data:`STRONG_PRIOR` for the factors in ``strong`` (a machine
    benchmark's, which the job's one run should only correct where it must). Where the rows
    cannot separate two factors of a segment (equal-sized tasks: per-byte and per-record terms
    are collinear), the penalty spreads the correction over them in proportion, keeping the
    prior's ratios, instead of moving one and leaving the others at values the observation
    already contradicts. The task's fixed time is a non-negative linear unknown.
    """
    columns = [*UNIT_FACTORS, *(codec_column(c) for c in codecs)]
    theta0 = np.array(
        [getattr(prior, f) for f in UNIT_FACTORS] + [1.0] * len(codecs), dtype=np.float64
    )
    prov: dict[str, str] = {}
    warnings: list[str] = []
    present = [s for s in SEGMENTS if s in obs and obs[s].y]
    if not present:
        return _Fit(theta0, columns, prior.task_overhead_ms, "", prov, warnings, obs, [])
    warm_prior = warm_prior or {}
    st = _stack(obs, present, theta0, warnings)
    seg, mean_of, fixed_segs, keep = st.seg, st.mean_of, st.fixed_segs, st.keep
    V, y, off, fw, w, ww = st.V, st.y, st.off, st.fw, st.w, st.ww
    V, y, off, fw, w, ww = V[keep], y[keep], off[keep], fw[keep], w[keep], ww[keep]
    segk_ = seg[keep]
    active = np.flatnonzero((np.abs(V).sum(axis=0) > 0) & (theta0 > 0))
    warm_segs = [s for s in present if bool((ww[segk_ == s] > 0).any())]
    # one column per segment: 1 on the cold attempt's row of that segment
    W = np.column_stack([(segk_ == s) * ww for s in warm_segs]) if warm_segs else None
    warm0 = np.array([warm_prior.get(s, 0.0) for s in warm_segs])
    lam_warm = np.array([STRONG_PRIOR if s in warm_prior else WEAK_PRIOR for s in warm_segs])
    warm_scale = np.array([mean_of[s] for s in warm_segs])
    lam = np.array([STRONG_PRIOR if columns[i] in strong else WEAK_PRIOR for i in active])
    has_fixed = bool(fw.any())
    base = (
        V[:, [i for i in range(len(columns)) if i not in set(active)]]
        @ theta0[[i for i in range(len(columns)) if i not in set(active)]]
    )
    Va = V[:, active] * theta0[active]

    lam_fixed = STRONG_PRIOR if "task_overhead_ms" in strong else WEAK_PRIOR
    fixed_scale = float(np.mean(y[fw > 0])) if has_fixed else 1.0

    k = len(active)
    i_fixed = k if has_fixed else None
    i_warm = k + has_fixed
    n_warm = len(warm_segs)

    def residuals(x: F64) -> F64:
        u = x[:k]
        fixed = x[i_fixed] if i_fixed is not None else 0.0
        model = off + base + Va @ np.exp(u) + fixed * fw
        if n_warm:
            model = model + W @ x[i_warm : i_warm + n_warm]
        pen = [np.sqrt(lam_fixed) * (fixed - prior.task_overhead_ms) / fixed_scale] * has_fixed
        warm_pen = np.sqrt(lam_warm) * (x[i_warm : i_warm + n_warm] - warm0) / warm_scale
        return np.concatenate([(model - y) * w, np.sqrt(lam) * u, pen, warm_pen])

    x0 = np.zeros(k + has_fixed + n_warm)
    lo = np.full(len(x0), -30.0)
    hi = np.full(len(x0), 30.0)
    if i_fixed is not None:
        x0[i_fixed] = min(prior.task_overhead_ms, float(np.min(y[fw > 0])))
        lo[i_fixed], hi[i_fixed] = 0.0, np.inf
    if n_warm:
        x0[i_warm : i_warm + n_warm] = warm0
        lo[i_warm : i_warm + n_warm], hi[i_warm : i_warm + n_warm] = 0.0, np.inf
    res = least_squares(residuals, x0, bounds=(lo, hi), method="trf", x_scale="jac")
    theta = theta0.copy()
    theta[active] = theta0[active] * np.exp(res.x[:k])
    fixed = float(res.x[i_fixed]) if i_fixed is not None else prior.task_overhead_ms
    warmup = {s: float(v) for s, v in zip(warm_segs, res.x[i_warm : i_warm + n_warm], strict=True)}
    rel = np.abs(res.fun[: len(y)])
    how = f"{len(y)} phase times, median |error| {np.median(rel):.1%} after the fit"
    for j, i in enumerate(active):
        f = columns[i]
        segs = [SEGMENT_LABEL[s] for s in present if s not in fixed_segs]
        ratio = float(np.exp(res.x[j]))
        src = prior_source if f in strong and prior_source else "the prior (documented default)"
        if abs(ratio - 1.0) < 1e-3:
            prov[f"costs.{f}"] = f"{src}: unchanged by the fit of {how}"
        else:
            prov[f"costs.{f}"] = (
                f"measured: {ratio:.3g} × {src}, fitted jointly with every factor of the same "
                f"phases ({'; '.join(segs[:3])}) to {how}"
            )
    for i, f in enumerate(columns):
        if i not in set(active):
            prov.setdefault(
                f"costs.{f}",
                f"{prior_source or 'defaulted'}: nothing in these runs for it to price"
                if theta0[i] > 0
                else f"{prior_source or 'defaulted'}: 0",
            )
    fixed_how = (
        f"measured: fixed time in {int(fw.sum())} attempts' first phase, fitted jointly"
        if has_fixed
        else ""
    )
    return _Fit(
        theta,
        columns,
        fixed,
        fixed_how,
        prov,
        warnings,
        obs,
        present,
        cost=float(res.cost),
        warmup_ms=warmup,
        fixed_share={s: st.share[s] for s in fixed_segs},
    )


def _most_collinear(V: F64, i: int, chosen: list[int]) -> int | None:
    best, best_c = None, -1.0
    vi = V[:, i] / (np.linalg.norm(V[:, i]) or 1.0)
    for j in chosen:
        vj = V[:, j] / (np.linalg.norm(V[:, j]) or 1.0)
        c = abs(float(vi @ vj))
        if c > best_c:
            best, best_c = j, c
    return best


def _finish(profile: JobProfile, fit: _Fit) -> CalibrationResult:
    costs, prov = fit_costs_dict(fit)
    seg_fits = segment_fits(fit)
    facts = dict(profile.cluster_facts)
    for seg_name, v in fit.warmup_ms.items():
        # the first tasks' extra time in the shared JVM: a job constant, not a cost factor
        facts[f"jvm_warmup.{seg_name}_ms"] = v
    for sf in seg_fits:
        facts[f"fit.{sf.name}.observed_ms"] = sf.observed_mean_ms
        facts[f"fit.{sf.name}.model_ms"] = sf.model_mean_ms
        facts[f"fit.{sf.name}.n"] = float(sf.n)
    new = profile.model_copy(
        update={
            "costs": CostFactors(**costs),
            "provenance": {**profile.provenance, **prov},
            "warnings": [*profile.warnings, *fit.warnings],
            "cluster_facts": facts,
            "codecs": {**profile.codecs, **fit.codecs},
        }
    )
    return CalibrationResult(new, seg_fits)


def fit_costs_dict(fit: _Fit) -> tuple[dict[str, float], dict[str, str]]:
    """The fitted :class:`CostFactors` values and their provenance (codec columns excluded)."""
    defaults = CostFactors()
    prov = dict(fit.prov)
    costs = {f: float(fit.theta[i]) for i, f in enumerate(fit.columns) if f in UNIT_FACTORS}
    costs["task_overhead_ms"] = fit.fixed
    costs["spill_contention"] = fit.contention
    costs["sort_cache_slowdown"] = fit.slowdown
    costs["sort_cache_bytes"] = fit.cache_bytes
    prov["costs.sort_cache_slowdown"] = fit.slowdown_how or (
        "defaulted: n·log n comparisons at one cost (reference §2.3)"
        if fit.slowdown == 0
        else "prior"
    )
    prov["costs.sort_cache_bytes"] = "defaulted: 16 MiB, the knee measured on local runs"
    prov["costs.spill_contention"] = fit.contention_how or (
        "defaulted: spills not taken to overlap the map function on this cluster (serial "
        "phases, reference §2.3)"
    )
    costs["setup_ms"] = defaults.setup_ms
    costs["cleanup_ms"] = defaults.cleanup_ms
    prov.setdefault(
        "costs.task_overhead_ms",
        fit.fixed_how or "defaulted: not separable from volume terms (task sizes too alike)",
    )
    for f in ("setup_ms", "cleanup_ms"):
        prov[f"costs.{f}"] = "defaulted: not timed apart in histories (in task_overhead_ms)"
    prov["costs.reduce_includes_final_merge"] = (
        "defaulted: false, reduce_cpu is fitted with the final merge charged apart"
    )
    for f in UNIT_FACTORS:
        prov.setdefault(f"costs.{f}", "defaulted: its phase was not observed")
    return costs, prov


def segment_fits(fit: _Fit) -> list[SegmentFit]:
    """Observed vs model mean time of each segment at the fitted costs."""
    out = []
    for s in fit.present:
        o = fit.obs[s]
        pred = np.vstack(o.rows) @ fit.theta + np.array(o.offset) + fit.fixed * np.array(o.fixed_w)
        if s in fit.warmup_ms and o.warm_w:
            pred = pred + fit.warmup_ms[s] * np.array(o.warm_w)
        out.append(SegmentFit(s, len(o.y), float(np.mean(o.y)), float(np.mean(pred))))
    return out


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
