"""Many jobs' profiles as arrays aligned with the configurations: a catalog in one model call.

The model is vectorised over configurations (DESIGN decision 5), but one call evaluates one
job; a batch of many small jobs then pays numpy's fixed cost per call once per job
(issue 18: ~80% of the per-job tuner's model time). :class:`StackedProfiles` holds what the
model reads from a :class:`~mrtune.costmodel.profile.JobProfile` (input layout, flags,
dataflow statistics, cost factors, codec statistics) as ndarrays of shape (n,), row ``i``
holding the values of the job configuration ``i`` belongs to, so jobs × candidates stack
into one :class:`~mrtune.costmodel.batch.ConfigBatch` and one call of
:func:`~mrtune.costmodel.job.predict_job` / :func:`~mrtune.costmodel.job.evaluate`.

Every row is computed with the same floating-point operations, in the same order, as the
per-job call would apply to it (a flag that is a Python ``bool`` for one job becomes a mask
selecting between the same two values; a term a profile leaves at zero adds an exact zero),
so stacked results equal per-job results bit for bit (``tests/costmodel/test_stacked.py``).
The combiner's key law is transcendental (``np.power``, the Zipf table), so its rows are
evaluated per distinct law with the law's parameters as scalars, as the per-job call does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from types import SimpleNamespace

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel._stacked_columns import (
    _COSTS,
    _SHARED_STATS,
    _at,
    _codec_tables,
    _rows,
    _shared_as_numbers,
    _shared_table,
    _uncombined_table,
)
from mrtune.costmodel.combiner import combined_records
from mrtune.costmodel.profile import REDUCE_SIDE_FACTORS, CostFactors, DataflowStats, JobProfile

F64 = NDArray[np.float64]
#: ``key_law_knots`` (a table, not a number) is read through the key laws (:class:`_KeyLaw`).
_STATS = [name for name in DataflowStats.model_fields if name != "key_law_knots"]
#: Optional statistics: ``None`` becomes ``nan`` (no calibration point) or ``inf`` (no bound).
_NONE_AS = {"combine_profiled_input_records": np.nan, "max_distinct_keys": np.inf}


@dataclass(frozen=True)
class _KeyLaw:
    """One combiner key law (the distinct-keys curve of :func:`combined_records`) and the
    rows that follow it."""

    rows: NDArray[np.int64] | None  # None: every row
    stats: DataflowStats


@dataclass(frozen=True)
class StackedProfiles:
    """Profiles of many jobs, one row per configuration (module docstring).

    ``job`` is the index (into the ``profiles`` given to :meth:`of`) of each row's job. The
    attributes mirror :class:`JobProfile`'s: ``stats`` and ``costs`` are namespaces of
    arrays with :class:`DataflowStats` and :class:`CostFactors` field names.
    """

    job: NDArray[np.int64]
    input_bytes: F64
    input_files: F64
    input_splittable: NDArray[np.bool_]
    input_compressed: NDArray[np.bool_]
    has_combiner: NDArray[np.bool_]
    #: each row's ``JobProfile.old_api_combiner`` (None as False)
    old_api_combiner: NDArray[np.bool_]
    map_only: NDArray[np.bool_]
    #: each row's ``JobProfile.map_output_floor``
    map_output_floor: NDArray[np.bool_]
    #: each row's hot partition share (``PartitionSkew.hot_share``; 0: equal partitions)
    hot_share: F64
    old_api_splits: NDArray[np.bool_]
    stats: SimpleNamespace
    costs: SimpleNamespace
    codec_ratio: F64  # (jobs, codes)
    codec_comp: F64
    codec_uncomp: F64
    key_laws: tuple[_KeyLaw, ...]
    #: The reduce task's cost factors (:func:`reduce_side_costs`): ``costs`` with each row's
    #: reduce-side overrides; ``None`` when no job has one (the reduce task reads ``costs``).
    reduce_costs: SimpleNamespace | None = None
    #: The reduce task's codec CPU tables (jobs, codes), ``None`` when no job's codec
    #: statistics give reduce-side costs (:func:`reduce_side_codec_costs`).
    codec_reduce_comp: F64 | None = None
    codec_reduce_uncomp: F64 | None = None
    #: The codecs' ratios on the emitted (uncombined) map output (jobs, codes); ``None``: no
    #: job's codec statistics give one (:attr:`CodecStats.ratio_uncombined`).
    codec_ratio_uncombined: F64 | None = None

    @classmethod
    def of(cls, profiles: Sequence[JobProfile], job: NDArray[np.int64]) -> StackedProfiles:
        """Rows ``job[i]`` of ``profiles`` (e.g. ``np.repeat(np.arange(J), C)`` for J jobs
        × C candidates each)."""
        return ProfileTable(profiles).rows(job)

    def __len__(self) -> int:
        return int(self.job.shape[0])

    def take(self, index: slice) -> StackedProfiles:
        """The rows at ``index`` (a slice: what :func:`~mrtune.costmodel.job.evaluate`'s
        chunks take)."""
        rows = np.arange(len(self))[index]
        laws = []
        for law in self.key_laws:
            if law.rows is None:
                laws.append(law)
                continue
            keep = law.rows[(law.rows >= rows[0]) & (law.rows <= rows[-1])] - rows[0]
            if len(keep):
                laws.append(_KeyLaw(keep, law.stats))
        data = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in {"key_laws", "stats", "costs", "reduce_costs"}
        }
        sliced = {k: (v if k.startswith("codec_") else v[index]) for k, v in data.items()}
        return StackedProfiles(
            **sliced,
            stats=SimpleNamespace(**_rows(vars(self.stats), index)),  # type: ignore[arg-type]
            costs=SimpleNamespace(**_rows(vars(self.costs), index)),  # type: ignore[arg-type]
            key_laws=tuple(laws),
            reduce_costs=None
            if self.reduce_costs is None
            else SimpleNamespace(**_rows(vars(self.reduce_costs), index)),  # type: ignore[arg-type]
        )

    def codec_arrays(self, codes: NDArray[np.int64]) -> tuple[F64, F64, F64]:
        """:func:`~mrtune.costmodel.codecs.codec_arrays` row by row (each row's own job)."""
        return (
            _at(self.codec_ratio, self.job, codes),
            _at(self.codec_comp, self.job, codes),
            _at(self.codec_uncomp, self.job, codes),
        )

    def uncombined_ratio(self, codes: NDArray[np.int64]) -> F64:
        """:func:`~mrtune.costmodel.codecs.uncombined_ratio` row by row."""
        table = (
            self.codec_ratio
            if self.codec_ratio_uncombined is None
            else (self.codec_ratio_uncombined)
        )
        return _at(table, self.job, codes)


class ProfileTable:
    """The jobs' profile values, one entry per job, read from the pydantic models once.

    A batch tuner costs the same jobs round after round with different rows; reading ~60
    fields of every profile on every round cost more than the model call itself. The table
    is built once per chunk and :meth:`rows` gathers each round's rows (the same values
    :meth:`StackedProfiles.of` gives: it is built on this table).
    """

    def __init__(self, profiles: Sequence[JobProfile]) -> None:
        if not profiles:
            raise ValueError("StackedProfiles needs at least one profile")
        if any(p.map_classes for p in profiles):
            # a row holds one input; a job's map classes (JobProfile.map_classes) each need
            # their own map tasks: such a job is costed on its own (predict_job's per-job path)
            raise ValueError("a profile with map classes cannot be stacked")

        def col(values: list[object], fill: float = np.nan) -> F64:
            return np.array([fill if v is None else v for v in values], dtype=np.float64)

        def flag(values: list[bool]) -> NDArray[np.bool_]:
            return np.array(values, dtype=np.bool_)

        self.stats = {
            f: col([getattr(p.stats, f) for p in profiles], _NONE_AS.get(f, np.nan))
            for f in _STATS
        }
        self.stats["map_output_pair_width"] = col(
            [p.stats.map_output_pair_width for p in profiles]
        )
        self.costs: dict[str, np.ndarray] = {
            f: col([getattr(p.costs, f) for p in profiles]) for f in _COSTS
        }
        self.costs["reduce_includes_final_merge"] = flag(
            [p.costs.reduce_includes_final_merge for p in profiles]
        )
        self.codecs = _codec_tables(profiles)
        self.uncombined = _uncombined_table(profiles, self.codecs[0])
        self.reduce_codecs: tuple[F64, F64] | None = None
        if any(c.reduce_side for p in profiles for c in p.codecs.values()):
            self.reduce_codecs = _codec_tables(profiles, reduce=True)[1:]
        self.reduce_costs: dict[str, np.ndarray] | None = None
        if any(p.costs.reduce_side for p in profiles):
            side = {
                f: col([p.costs.reduce_value(f) for p in profiles]) for f in REDUCE_SIDE_FACTORS
            }
            self.reduce_costs = {**self.costs, **side}
        self.columns = {
            "input_bytes": col([p.input_bytes for p in profiles]),
            "input_files": col([float(p.input_files) for p in profiles]),
            "input_splittable": flag([p.input_splittable for p in profiles]),
            "input_compressed": flag([p.input_compressed for p in profiles]),
            "has_combiner": flag([p.has_combiner for p in profiles]),
            "old_api_combiner": flag([bool(p.old_api_combiner) for p in profiles]),
            "map_only": flag([p.map_only for p in profiles]),
            "map_output_floor": flag([p.map_output_floor for p in profiles]),
            "old_api_splits": flag([p.old_api_splits for p in profiles]),
            "hot_share": col(
                [p.partition_skew.hot_share if p.partition_skew else 0.0 for p in profiles]
            ),
        }
        self.laws, self.all_combine = _law_groups(profiles)
        _shared_as_numbers(self.stats, _SHARED_STATS)
        _shared_as_numbers(self.costs, [*_COSTS, "reduce_includes_final_merge"])
        if self.reduce_costs is not None:
            _shared_as_numbers(self.reduce_costs, list(self.reduce_costs))
        self.codecs = tuple(_shared_table(t) for t in self.codecs)  # type: ignore[assignment]
        if self.uncombined is not None:
            self.uncombined = _shared_table(self.uncombined)
        if self.reduce_codecs is not None:
            self.reduce_codecs = tuple(_shared_table(t) for t in self.reduce_codecs)  # type: ignore[assignment]

    def rows(self, job: NDArray[np.int64]) -> StackedProfiles:
        """Rows ``job[i]`` of the table's jobs."""
        job = np.asarray(job, dtype=np.int64)
        ratio, comp, uncomp = self.codecs
        red_comp, red_uncomp = self.reduce_codecs or (None, None)
        reduce_costs = (
            None if self.reduce_costs is None else SimpleNamespace(**_rows(self.reduce_costs, job))
        )
        return StackedProfiles(
            job=job,
            **{k: v[job] for k, v in self.columns.items()},
            stats=SimpleNamespace(**_rows(self.stats, job)),
            costs=SimpleNamespace(**_rows(self.costs, job)),
            codec_ratio=ratio,
            codec_comp=comp,
            codec_uncomp=uncomp,
            key_laws=_key_laws(self.laws, self.all_combine, job),
            reduce_costs=reduce_costs,
            codec_reduce_comp=red_comp,
            codec_reduce_uncomp=red_uncomp,
            codec_ratio_uncombined=self.uncombined,
        )


def _law_key(stats: DataflowStats) -> tuple[object, ...]:
    """What :func:`~mrtune.costmodel.combiner.combined_records` reads from the statistics."""
    return (
        stats.combine_pairs_sel,
        stats.combine_profiled_input_records,
        stats.combiner_heaps_beta,
        stats.max_distinct_keys,
        stats.key_vocabulary,
        stats.key_zipf_exponent,
        stats.key_law_scale,
        stats.key_law_knots,
    )


def _law_groups(
    profiles: Sequence[JobProfile],
) -> tuple[list[tuple[list[int], DataflowStats]], bool]:
    """The jobs of each combiner key law (jobs without a combiner need none), and whether
    every job has a combiner."""
    groups: dict[tuple[object, ...], list[int]] = {}
    first: dict[tuple[object, ...], DataflowStats] = {}
    for j, p in enumerate(profiles):
        if not p.has_combiner:
            continue
        key = _law_key(p.stats)
        groups.setdefault(key, []).append(j)
        first.setdefault(key, p.stats)
    every = all(p.has_combiner for p in profiles)
    return [(jobs, first[key]) for key, jobs in groups.items()], every


def _key_laws(
    groups: list[tuple[list[int], DataflowStats]], every: bool, job: NDArray[np.int64]
) -> tuple[_KeyLaw, ...]:
    """Rows grouped by combiner key law."""
    if len(groups) == 1 and every:
        return (_KeyLaw(None, groups[0][1]),)
    laws = []
    for jobs, stats in groups:
        rows = np.nonzero(np.isin(job, jobs))[0]
        if len(rows):
            laws.append(_KeyLaw(rows, stats))
    return tuple(laws)


def stacked_combined_records(
    n_in: F64, n_raw: F64, profiles: StackedProfiles, parts: F64 | float = 1.0
) -> F64:
    """:func:`~mrtune.costmodel.combiner.combined_records` with each row's own key law.

    Rows of jobs without a combiner get their input back (the model only reads combined
    counts where a combiner runs)."""
    n_in = np.asarray(n_in, dtype=np.float64)
    n_raw = np.asarray(n_raw, dtype=np.float64)
    if len(profiles.key_laws) == 1 and profiles.key_laws[0].rows is None:
        return combined_records(n_in, n_raw, profiles.key_laws[0].stats, parts)
    out = n_in.copy()
    parts = np.broadcast_to(np.asarray(parts, dtype=np.float64), n_in.shape)
    for law in profiles.key_laws:
        rows = law.rows
        out[rows] = combined_records(n_in[rows], n_raw[rows], law.stats, parts[rows])
    return out


def where(mask: object, a: object, b: object) -> object:
    """``a if mask else b`` for one job's flag (a Python bool), ``np.where`` for a stacked
    mask: the per-job path keeps its scalar, the stacked one selects per row."""
    if mask is True or mask is False or isinstance(mask, np.bool_):
        return a if mask else b
    return np.where(mask, a, b)


def nonzero(x: object) -> bool:
    """Whether a cost term is non-zero for any row (a term that is zero everywhere is
    skipped; where it is zero for some rows only, adding it adds an exact zero there)."""
    if isinstance(x, np.ndarray):
        return bool(x.any())
    return bool(x)


def reduce_side_costs(profile: JobProfile | StackedProfiles) -> CostFactors | SimpleNamespace:
    """The cost factors the reduce task reads: each factor's reduce-side value where the
    profile measured the two sides apart (``CostFactors.reduce_side``, e.g. Starfish's
    ``<reduce_profile>`` MERGE_CPU_COST), else the shared one. Without overrides this is
    ``profile.costs`` itself, so such a profile predicts bit for bit as before."""
    if isinstance(profile, StackedProfiles):
        return profile.costs if profile.reduce_costs is None else profile.reduce_costs
    return profile.costs.for_reduce()


def reduce_side_codec_costs(
    profile: JobProfile | StackedProfiles, codes: NDArray[np.int64], comp: F64, uncomp: F64
) -> tuple[F64, F64]:
    """The map-output codec's ``(compress, uncompress)`` ns per byte as the reduce task pays
    them: ``comp`` / ``uncomp`` (the map task's, per configuration) unless the profile's
    codec statistics give reduce-side values (``CodecStats.reduce_*_ns_per_byte``)."""
    if isinstance(profile, StackedProfiles):
        if profile.codec_reduce_comp is None or profile.codec_reduce_uncomp is None:
            return comp, uncomp
        return (
            _at(profile.codec_reduce_comp, profile.job, codes),
            _at(profile.codec_reduce_uncomp, profile.job, codes),
        )
    if not any(c.reduce_side for c in profile.codecs.values()):
        return comp, uncomp
    _, rc, ru = _codec_tables([profile], reduce=True)
    return rc[0].take(codes), ru[0].take(codes)
