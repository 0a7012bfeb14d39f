"""Fit a profile's cost factors so the model reproduces the observed phase times.

For the profiled configuration and the profile's dataflow statistics the model's phase times
are *linear* in the cost factors (every term is factor × bytes or records, reference §2–§4).
So the volume each factor multiplies in each phase is obtained exactly by running the model
(:func:`mrtune.costmodel.map_task`, :func:`mrtune.costmodel.reduce_task`) with that factor at 1 ns and the
others at 0, *less the base time* with every factor at 0 (the base is a known term of its own:
the CPU of a codec at its prior, :mod:`mrtune.calibration.rows`), once per observed attempt
with that attempt's own input (HDFS bytes read, reduce input records); the fit is linear least
squares. When the run compressed its map output, the codec's CPU scale is a column too.

What a history records per successful attempt, and the model phases it covers (phases are
serial in the model; Hadoop's ``mapFinishTime`` ends the map function, before the final spill):

========================  ==============================================================
segment                   model phases
========================  ==============================================================
map ``map``               read + map + collect + spill × (s − 1)/s (+ write, map-only)
map ``sort``              spill / s + merge (the last of the ``s`` spills, then the merge)
map ``total``             all map phases (sources without ``mapFinishTime``)
reduce ``shuffle``        shuffle
reduce ``merge``          merge (Hadoop's reduce-side "sort")
reduce ``reduce``         reduce + write
reduce ``total``          all reduce phases
map ``read`` … ``merge``  one model phase each (per-phase tables: read, mapfn, collect,
                          spill, merge; reduce ``reducefn``, ``write``)
========================  ==============================================================

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
per-byte from per-record costs). A kept fixed-cost prior (per spill, per fetch, the read
intercept, the shuffle floor) larger than a segment that holds it is capped at what that
segment observed and the fit solved again (:mod:`mrtune.calibration.prior_caps`).

Check. After every fit the model itself is run again at the fitted costs and compared with each
observed segment (:mod:`mrtune.calibration.check`); a miss beyond the tolerance is recorded in
``profile.calibration`` as ``failed``, with the segment and the reason.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np
from numpy.typing import NDArray

from mrtune.calibration.check import check_calibration
from mrtune.calibration.cost_units import separable_terms, with_byte_starts
from mrtune.calibration.fit_result import (
    CalibrationResult,
    SegmentFit,
    finish,
    fit_costs_dict,
    miss_hints,
    segment_fits,
    with_starved_cpu,
)
from mrtune.calibration.fixed_costs import tie_spill_write, untie_spill_write
from mrtune.calibration.plausibility import flag_implausible
from mrtune.calibration.prior_caps import solve_capped
from mrtune.calibration.rows import (
    CODEC_COLUMN_PREFIX,
    SHAPE_FACTORS,
    UNIT_FACTORS,
    _collect_map,
    _collect_reduce,
    _Obs,
    codec_column,
    fit_columns,
)
from mrtune.calibration.segments import (
    SEGMENTS,
)
from mrtune.calibration.solve import (
    FIXED_SHARE,
    RANK_TOL,
    _Fit,
    _solve_ridge,
)
from mrtune.calibration.unit_models import reuse_unit_models
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import (
    CODEC_PRIORS,
    CostFactors,
    JobProfile,
)
from mrtune.profiling.codecs import MEASURED_BY_PROBE_CPU

F64 = NDArray[np.float64]


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
    per_byte: bool = False,
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
    ``per_byte``: also fit the per-byte CPU factors this history can separate from the
    per-record ones (:func:`~mrtune.calibration.cost_units.separable_terms`: its maps' widths
    spread enough). Off by default: on the machine benchmark they did not improve held-out
    predictions (:mod:`mrtune.calibration.cost_units`). A per-byte factor ``prior`` already
    sets (a machine file fitted with them) is priced at it either way.
    """
    pr = prior or CostFactors()
    terms = separable_terms([profile]) if per_byte else ()
    if terms:
        # this history's own to fit, from a weak start, whatever the prior's strength
        pr = with_byte_starts(pr, terms)
        refit = None if refit is None else {*refit, *terms}
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
    result = finish(profile, _apply_codec_scale(fit, codecs, profile))
    result.profile = flag_implausible(result.profile, pr)
    check = check_calibration(
        result.profile,
        cfg,
        spill_overlap=spill_overlap,
        linear={sf.name: (sf.n, sf.observed_mean_ms, sf.model_mean_ms) for sf in result.segments},
        hints=with_starved_cpu(miss_hints(fit), result.profile),
    )
    result.profile = result.profile.model_copy(update={"calibration": check})
    result.check = check
    return result


def _fitted_codecs(profile: JobProfile, cfg: HadoopConfig) -> tuple[str, ...]:
    """The map-output codec whose CPU scale the job's fit prices, when the run compressed its
    map output and the profile's codec CPU is still the documented prior (a machine benchmark's
    measured CPU and the codec probe's timed CPU are kept)."""
    if profile.map_only or not cfg.map_output_compress:
        return ()
    name = cfg.map_output_codec
    source = profile.codec(name).source
    kept = "machine benchmark" in source or MEASURED_BY_PROBE_CPU in source
    return () if kept else (name,)


def _apply_codec_scale(fit: _Fit, codecs: Sequence[str], profile: JobProfile) -> _Fit:
    """Store a fitted codec CPU scale in ``fit.codecs`` (read by :func:`mrtune.calibration.fit_result.finish`)."""
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
    """:func:`~mrtune.calibration.prior_caps.solve_capped` (``nnls``) on the rows of every
    run; with ``spill_overlap`` the spill-bound branch of each map attempt is re-decided at
    the fitted costs until it no longer changes.
    ``slowdown``: the ``sort_cache_slowdown`` the runs' volumes are computed with (default:
    the prior's)."""
    factors = fit_columns(prior)
    byte_terms = factors[len(UNIT_FACTORS) :]  # the per-byte CPU columns the prior starts
    theta = {f: float(getattr(prior, f)) for f in factors}
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
                byte_terms=byte_terms,
            )
            _collect_reduce(profile, cfg, obs, codecs, byte_terms)
        tied = tie_spill_write(obs)
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
                        *factors,
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
            fit = solve_capped(obs, prior, refit, prior_source, codecs)
            if not tied and "not separable" in fit.prov.get("costs.spill_write", ""):
                # spills timed apart but their bytes not separable from the per-spill and
                # sort terms: spill_write follows local_write rather than its own default
                tied = tie_spill_write(obs, force=True)
                fit = solve_capped(obs, prior, refit, prior_source, codecs)
        if tied:
            untie_spill_write(fit)
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


@reuse_unit_models()  # the grid models each run once per shape (calibration.unit_models)
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
    best.shape_reference = {
        **({"spill_contention": prior.spill_contention} if has_bg else {}),
        **({"sort_cache_slowdown": prior.sort_cache_slowdown} if sizes else {}),
    }
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


__all__ = [
    "CODEC_COLUMN_PREFIX",
    "FIXED_SHARE",
    "RANK_TOL",
    "SEGMENTS",
    "SHAPE_FACTORS",
    "UNIT_FACTORS",
    "CalibrationResult",
    "SegmentFit",
    "_Obs",
    "_collect_map",
    "_collect_reduce",
    "codec_column",
    "fit_cost_factors",
    "fit_costs_dict",
    "segment_fits",
    "solve_contention",
    "solve_runs",
]
