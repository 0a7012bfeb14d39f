"""The model calls behind a fit's rows: each attempt at zero costs and at each unit column.

:mod:`mrtune.calibration.rows` turns every observed attempt into a row of volumes, one per
fitted column, where a column's volume is the model's segment time with only that column at 1
(less the base, every column at 0). That is one model call per column per run: ~25 columns
(the unit cost factors and the fitted codecs' CPU scales) for the map attempts and as many for
the reduce attempts.

Two things made those calls the slowest part of a fit (issue 13 item 7: the machine fit was
the test suite's longest fixture):

* **numpy's fixed cost per call**, not the arithmetic: a call evaluates a run's few attempts.
  The base and unit profiles are therefore stacked (:class:`~mrtune.costmodel.stacked.
  ProfileTable`: one row per attempt per profile) and evaluated in ONE call of
  :func:`~mrtune.costmodel.map_task.map_task` / :func:`~mrtune.costmodel.reduce_task.
  reduce_task`. Stacked rows are computed with the same operations in the same order as the
  per-profile call (:mod:`mrtune.costmodel.stacked`), so the volumes are the same numbers.
* **the same calls, repeated**: :func:`~mrtune.calibration.cost_factors.solve_contention`
  refits on ~26 grid points of the two shape factors, and each
  :func:`~mrtune.calibration.cost_factors.solve_runs` re-decides the spill-bound branches up to
  4 times. The unit models do not depend on the fitted costs nor on the spill contention (the
  contention and the branches act on the model's parts afterwards,
  :func:`mrtune.calibration.rows._map_segments`); only ``sort_cache_slowdown`` changes them,
  and it is part of the profile. Inside :func:`reuse_unit_models` each (profile, configuration,
  codecs) is therefore modelled once, keyed on the profile's and configuration's full JSON
  content (every field; no field of either model is excluded from it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from mrtune.calibration.cost_units import SEPARABLE_SPREAD, map_output_widths, spread
from mrtune.calibration.segments import map_splits, reduce_inputs
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_task import MapTaskResult, map_task
from mrtune.costmodel.profile import (
    CODEC_PRIORS,
    PER_BYTE_FACTORS,
    CostFactors,
    JobProfile,
    TaskTiming,
)
from mrtune.costmodel.reduce_task import ReduceTaskResult, reduce_task
from mrtune.costmodel.stacked import ProfileTable, StackedProfiles

F64 = NDArray[np.float64]
_R = TypeVar("_R", MapTaskResult, ReduceTaskResult)

#: Factors that shape the model rather than price a volume (they multiply other factors): kept
#: fixed during a linear fit, searched on a grid around it
#: (:func:`~mrtune.calibration.cost_factors.solve_contention`).
SHAPE_FACTORS: tuple[str, ...] = ("spill_contention", "sort_cache_bytes", "sort_cache_slowdown")
#: Per-unit factors (ns per byte or record). The fixed per-task times are handled apart, and
#: the per-byte CPU factors (:data:`~mrtune.costmodel.profile.PER_BYTE_FACTORS`) are columns
#: only of a fit that can separate them (:func:`fit_columns`).
UNIT_FACTORS: tuple[str, ...] = tuple(
    f
    for f, info in CostFactors.model_fields.items()
    if f not in SHAPE_FACTORS + PER_BYTE_FACTORS + ("setup_ms", "cleanup_ms", "task_overhead_ms")
    and info.annotation is float
)
#: Column-name prefix of a codec's CPU scale (machine fits, :mod:`mrtune.calibration.machine`).
CODEC_COLUMN_PREFIX = "codec:"

#: (kind, profile JSON, configuration JSON, codecs) → the base's and the units' results,
#: while a :func:`reuse_unit_models` scope is open (``None``: no scope, nothing is kept).
_SCOPE: ContextVar[dict[tuple[str, str, str, tuple[str, ...]], object] | None] = ContextVar(
    "mrtune_unit_models", default=None
)


def fit_columns(prior: CostFactors) -> tuple[str, ...]:
    """The cost factors a fit from ``prior`` prices: :data:`UNIT_FACTORS`, and each per-byte
    CPU factor the prior starts above 0 (0: CPU per record only, not a column, so a fit
    without per-byte evidence is the one it always was; mrtune.calibration.cost_units)."""
    return UNIT_FACTORS + tuple(f for f in PER_BYTE_FACTORS if getattr(prior, f) > 0)


def codec_column(name: str) -> str:
    """The column name of a codec's CPU scale in a fit (see :func:`fit_costs`)."""
    return f"{CODEC_COLUMN_PREFIX}{name}"


@contextmanager
def reuse_unit_models() -> Iterator[None]:
    """Model each (profile, configuration, codecs) once while the scope is open (module
    docstring); nested scopes share the outermost one's results, which are dropped when it
    closes (nothing outlives the fit that opened it)."""
    if _SCOPE.get() is not None:
        yield
        return
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def _remembered(kind: str, profile: JobProfile, cfg: HadoopConfig, columns: Sequence[str], make):
    scope = _SCOPE.get()
    if scope is None:
        return make()
    key = (kind, profile.model_dump_json(), cfg.model_dump_json(), tuple(columns))
    if key not in scope:
        scope[key] = make()
    return scope[key]


def unit_profiles(
    profile: JobProfile, codecs: Sequence[str] = (), byte_terms: Sequence[str] = ()
) -> tuple[JobProfile, dict[str, JobProfile]]:
    """The profile at zero costs, and one profile per column with only that column at 1:
    :data:`UNIT_FACTORS`, then ``byte_terms`` (per-byte CPU factors the fit prices), then
    one per codec of ``codecs``.

    A codec column (``codecs``) prices the codec's compress and uncompress CPU at its prior
    (``CODEC_PRIORS``) times 1: its fitted value scales both. The base profile then has that
    codec's CPU at 0; otherwise codec CPU stays in the offset (it is not a cost factor).
    """
    shape = {f: getattr(profile.costs, f) for f in SHAPE_FACTORS}
    # reduce_side: no override, a fit keeps one shared value per factor
    zero = {f: 0.0 for f in CostFactors.model_fields if f not in SHAPE_FACTORS + ("reduce_side",)}
    zero |= shape
    zcodecs = dict(profile.codecs)
    for name in codecs:
        c = profile.codec(name)
        zcodecs[name] = c.model_copy(
            update={"compress_ns_per_byte": 0.0, "uncompress_ns_per_byte": 0.0}
        )
    base = profile.model_copy(update={"costs": CostFactors(**zero), "codecs": zcodecs})
    units = {
        f: base.model_copy(update={"costs": CostFactors(**{**zero, f: 1.0})})
        for f in (*UNIT_FACTORS, *byte_terms)
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


def _stack(
    base: JobProfile, units: dict[str, JobProfile], cfg: HadoopConfig, n: int
) -> tuple[StackedProfiles, ConfigBatch] | None:
    """The base and unit profiles as one model input, ``n`` rows (one per attempt) per
    profile in the order base, ``units``; ``None`` when they cannot be stacked (a profile
    with map classes, :class:`~mrtune.costmodel.stacked.ProfileTable`)."""
    if base.map_classes:
        return None
    job = np.repeat(np.arange(len(units) + 1, dtype=np.int64), n)
    return ProfileTable([base, *units.values()]).rows(job), ConfigBatch.from_base(cfg, len(job))


def _split(res: _R, names: Sequence[str], n: int) -> tuple[_R, dict[str, _R]]:
    """A stacked result cut back into the base's and each unit's (``n`` rows each). The
    arrays are made read-only: a remembered result is shared by every later fit's rows."""

    def cut(v: object, i: int) -> object:
        if isinstance(v, dict):
            return {k: cut(x, i) for k, x in v.items()}
        if isinstance(v, np.ndarray) and v.ndim == 1:
            v.flags.writeable = False
            return v[i * n : (i + 1) * n]
        return v

    parts = [
        type(res)(**{f.name: cut(getattr(res, f.name), i) for f in fields(res)})
        for i in range(len(names) + 1)
    ]
    return parts[0], dict(zip(names, parts[1:], strict=True))


def _attempt_widths(profile: JobProfile, maps: list[TaskTiming]) -> tuple[F64, F64] | None:
    """Each map's own ``(map_pairs_sel, map_size_sel)`` from its counters, when the maps'
    output widths spread by :data:`~mrtune.calibration.cost_units.SEPARABLE_SPREAD` or more
    (only then can a per-byte factor's volume differ from a per-record one's from map to
    map); ``None`` otherwise, or when a map lacks the counters."""
    widths = map_output_widths(maps)
    if len(widths) != len(maps) or spread(widths)[0] < SEPARABLE_SPREAD:
        return None
    pairs, sizes = [], []
    for t in maps:
        n_in = t.counters.get("MAP_INPUT_RECORDS", 0.0)
        if n_in <= 0:
            return None
        pairs.append(t.counters["MAP_OUTPUT_RECORDS"] / n_in)
        sizes.append(t.counters["MAP_OUTPUT_BYTES"] / (n_in * profile.stats.input_pair_width))
    return np.array(pairs), np.array(sizes)


def _with_attempt_widths(table: StackedProfiles, profile: JobProfile, widths: tuple[F64, F64]):
    """``table`` (``k·n`` rows: ``k`` unit profiles × the ``n`` maps) with each row's map
    output selectivities those of its map (:func:`_attempt_widths`)."""
    pairs, sizes = widths
    k = len(table) // len(pairs)
    st = table.stats
    st.map_pairs_sel, st.map_size_sel = np.tile(pairs, k), np.tile(sizes, k)
    st.map_output_pair_width = profile.stats.input_pair_width * st.map_size_sel / st.map_pairs_sel
    return table


def map_units(
    profile: JobProfile,
    cfg: HadoopConfig,
    maps: list[TaskTiming],
    codecs: Sequence[str] = (),
    byte_terms: Sequence[str] = (),
) -> tuple[MapTaskResult, dict[str, MapTaskResult]]:
    """:func:`map_task` of each of ``maps`` (the profile's observed map attempts, in order) at
    the base and at every unit profile (:func:`unit_profiles`). A fit that prices per-byte
    CPU (``byte_terms``) models each map at its own output width where the maps' widths
    differ enough to tell the two apart (:func:`_attempt_widths`)."""

    def make() -> tuple[MapTaskResult, dict[str, MapTaskResult]]:
        split = map_splits(profile, maps)
        base, units = unit_profiles(profile, codecs, byte_terms)
        n = len(split)
        stacked = _stack(base, units, cfg, n)
        if stacked is None:
            batch = ConfigBatch.from_base(cfg, n)
            r0 = map_task(base, batch, split)
            return r0, {f: map_task(p, batch, split) for f, p in units.items()}
        table, batch = stacked
        widths = _attempt_widths(profile, maps) if byte_terms else None
        if widths is not None:
            table = _with_attempt_widths(table, profile, widths)
        return _split(map_task(table, batch, np.tile(split, len(units) + 1)), list(units), n)

    return _remembered("map", profile, cfg, (*codecs, *byte_terms), make)


def reduce_units(
    profile: JobProfile,
    cfg: HadoopConfig,
    reds: list[TaskTiming],
    codecs: Sequence[str] = (),
    byte_terms: Sequence[str] = (),
) -> tuple[ReduceTaskResult, dict[str, ReduceTaskResult]]:
    """:func:`reduce_task` of each of ``reds`` (the observed reduce attempts, in order) at the
    base and at every unit profile, on the inputs :func:`reduce_inputs` gives each."""

    def make() -> tuple[ReduceTaskResult, dict[str, ReduceTaskResult]]:
        inputs = reduce_inputs(profile, cfg, reds)
        base, units = unit_profiles(profile, codecs, byte_terms)
        n = len(reds)
        stacked = _stack(base, units, cfg, n)
        if stacked is None:
            batch = ConfigBatch.from_base(cfg, n)
            r0 = reduce_task(base, batch, *inputs)
            return r0, {f: reduce_task(p, batch, *inputs) for f, p in units.items()}
        table, batch = stacked
        tiled = [np.tile(np.asarray(x, dtype=np.float64), len(units) + 1) for x in inputs]
        return _split(reduce_task(table, batch, *tiled), list(units), n)

    return _remembered("reduce", profile, cfg, (*codecs, *byte_terms), make)
