"""The job's map tasks as groups of equal tasks: each input file's full and tail splits,
for the whole input or for each of the profile's map classes (issue 16).

``FileInputFormat.getSplits`` cuts each file into ``k`` splits of ``splitSize`` and one tail
(the last split takes the rest when it is at most ``SPLIT_SLOP`` = 1.1 times a split), so a
job whose ``input_files`` files are of equal size has two kinds of map: :func:`file_maps`
models both, one :func:`~mrtune.costmodel.map_task.map_task` call each, every call over the
whole configuration batch. A profile with :attr:`~mrtune.costmodel.profile.JobProfile.map_classes`
(Starfish's input specification with three split sizes, or one ``<map_profile>`` per input)
gives each class its own files, statistics and map-side cost factors
(:meth:`~mrtune.costmodel.profile.MapClass.profile_of`): two groups per class, so a job's map
stage is the waves over every class's tasks. The number of model calls grows with the
classes, never with the configurations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel._ifile import at_least
from mrtune.costmodel._map_pair import both_map_tasks
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.map_task import MapInputs, MapTaskResult, map_task
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.stacked import StackedProfiles, nonzero, where

F64 = NDArray[np.float64]
SPLIT_SLOP = 1.1
#: Most configurations for which :func:`file_maps` runs the full and the tail map task as one
#: call (:func:`~mrtune.costmodel._map_pair.both_map_tasks`). It paid when a map call made
#: ~290 numpy calls (issue 18: 7 rows 1.30 vs 1.62 ms, 512 rows 3.20 vs 3.97 ms). Since the
#: lean path's cuts (fewer passes, no masked divides, scalar bounds as arrays) the doubling,
#: the second ``MapInputs`` and the halving of the result cost what they save: min CPU of 3×3
#: interleaved runs (load 2.2-3.1), paired vs two calls, 1 row 0.56 vs 0.67 ms, 7 rows 0.60
#: vs 0.58, 64 rows 0.77 vs 0.63, 512 rows 0.92 vs 0.78, 4,096 rows 1.67 vs 1.60 ms. So only
#: the smallest calls (a what-if's few rows) are paired. Stacked jobs keep two calls.
PAIR_MAX_ROWS = 8


@dataclass(frozen=True)
class MapGroup:
    """``count`` map tasks (per configuration) reading ``split_bytes`` each, alike."""

    count: F64
    split_bytes: F64
    result: MapTaskResult


def split_sizes(
    profile: JobProfile | StackedProfiles, batch: ConfigBatch, cluster: ClusterSpec
) -> F64:
    """Each configuration's split size as the job's FileInputFormat computes it.

    The new API (``org.apache.hadoop.mapreduce.lib.input.FileInputFormat``):
    ``max(minSize, min(maxSize, blockSize))``, the batch's ``split_size``. The old API
    (``org.apache.hadoop.mapred.FileInputFormat.getSplits``; Hadoop Streaming, where
    :attr:`JobProfile.old_api_splits`): ``max(minSize, min(goalSize, blockSize))`` with
    ``goalSize = totalSize / numSplits`` over every input file (Java long division) and
    ``numSplits`` = ``mapreduce.job.maps`` (``JobSubmitter.writeOldSplits``), which
    ``LocalClientProtocolProvider`` sets to 1 in local mode; ``split.maxsize`` is not read.
    A streaming job's 19 MB file at split.maxsize 4 MB ran as one map, and as 3 (8, 8 and
    3 MB) at an 8 MB block."""
    old = profile.old_api_splits
    if not nonzero(old):
        return batch.split_size
    maps = 1.0 if cluster.local_mode else batch.num_maps_hint.astype(np.float64)
    size = old_api_split(profile.input_bytes, maps, batch.split_minsize, batch.block_size)
    return size if old is True else np.where(old, size, batch.split_size)


def old_api_split(total: F64 | float, maps: F64 | float, minsize: F64, block: F64) -> F64:
    """``org.apache.hadoop.mapred.FileInputFormat.computeSplitSize``: ``max(minSize,
    min(goalSize, blockSize))``, ``goalSize = totalSize / numSplits`` (a long division) and
    ``minSize`` at least 1 (:func:`split_sizes`; the profiler's scalar reading of a run)."""
    goal = np.floor(np.asarray(total, dtype=np.float64) / maps)
    return np.maximum(np.maximum(minsize, 1.0), np.minimum(goal, block))


def split_layout(
    profile: JobProfile | StackedProfiles, split_size: F64
) -> tuple[F64, F64, F64, F64]:
    """``(full_per_file, full_split_bytes, tail_split_bytes, files)`` (new-API FileInputFormat)."""
    if isinstance(profile, StackedProfiles):
        return _stacked_split_layout(profile, split_size)
    files = float(profile.input_files)
    file_size = profile.input_bytes / files
    if not profile.input_splittable:
        k = np.zeros_like(split_size)
        return (
            k,
            np.full_like(split_size, file_size),
            np.full_like(split_size, file_size),
            np.full_like(split_size, files),
        )
    k = at_least(np.ceil(file_size / split_size - SPLIT_SLOP), 0.0)
    tail = file_size - k * split_size
    return k, np.minimum(split_size, file_size), tail, np.full_like(split_size, files)


def _stacked_split_layout(profile: StackedProfiles, split_size: F64) -> tuple[F64, F64, F64, F64]:
    """:func:`split_layout` with each row's own input (the same operations per row)."""
    files = profile.input_files
    file_size = profile.input_bytes / files
    k = np.maximum(np.ceil(file_size / split_size - SPLIT_SLOP), 0.0)
    tail = file_size - k * split_size
    full = np.minimum(split_size, file_size)
    whole = ~profile.input_splittable
    if whole.any():
        k = np.where(whole, 0.0, k)
        full = np.where(whole, file_size, full)
        tail = np.where(whole, file_size, tail)
    return k, full, tail, files.copy()


def _fixed_width(profile: JobProfile | StackedProfiles) -> F64 | float | None:
    """``stats.input_record_bytes`` where it applies (uncompressed input): a float for one
    job, an array with ``nan`` on the other rows for stacked jobs, ``None`` when no row has
    fixed-width records."""
    w = profile.stats.input_record_bytes
    if isinstance(w, np.ndarray):
        w = np.where(profile.input_compressed, np.nan, w)
        return w if bool((~np.isnan(w)).any()) else None
    return None if w is None or profile.input_compressed else float(w)


def fixed_width_records(
    file_recs: F64, k_full: F64, full_bytes: F64, width: F64 | float
) -> tuple[F64, F64, F64]:
    """Full splits of fixed-width records: ``(records of the first split, splits holding as
    many, records of each other full split)``; the tail holds the rest of the file.

    A record belongs to the split its first byte is in (``RecordInputFormat``; Hadoop's
    ``LineRecordReader`` skips the partial first line of every split but the first), so the
    first ``j`` splits of ``S`` bytes hold ``ceil(j·S/w)`` records: the first split
    ``ceil(S/w)``, the others ``floor(S/w)`` or one more, ``ceil(k·S/w) − k·floor(S/w)`` of
    the ``k`` holding one more (the first among them). With 100-byte records and 32 MiB
    splits: 335,545 in the first split, 335,544 in the next.
    """
    per = full_bytes / width
    lo = np.floor(per)
    in_full = np.minimum(np.ceil(k_full * per), file_recs)  # records starting in full splits
    n_hi = np.maximum(in_full - k_full * lo, 0.0)
    return lo + 1.0, n_hi, lo


def file_maps(
    profile: JobProfile | StackedProfiles,
    batch: ConfigBatch,
    cluster: ClusterSpec,
    inputs: MapInputs,
    *,
    counters: bool,
    split: F64 | None = None,
) -> tuple[MapGroup, ...]:
    """The full-split and tail-split maps of ``profile``'s ``input_files`` equal files, cut at
    ``split`` bytes (default :func:`split_sizes` of ``profile``; a map class is cut at its
    job's).

    Records per split: full splits hold rint(split / width of the profiled run's full
    splits); the tail split holds what the file has left, so every file's records add up
    exactly (Hadoop's record readers hand each record to the split where it starts), and a
    file holds the input's records over the files, unrounded, so that the job's add up. With
    fixed-width records (``stats.input_record_bytes``) the full splits are exact
    (:func:`fixed_width_records`): a third group holds those with one record fewer than the
    first, so the groups are (first-sized full splits, tail, the other full splits).
    """
    if split is None:
        split = split_sizes(profile, batch, cluster)
    k_full, full_bytes, tail_bytes, files = split_layout(profile, split)
    counts, records = _split_records(profile, k_full, full_bytes, files)
    splits = [full_bytes, tail_bytes, full_bytes][: len(records)]
    n = len(batch)
    if not counters and n <= PAIR_MAX_ROWS and not isinstance(profile, StackedProfiles):
        # a search's call: the tasks as one call over 2 (or 3) times the rows (the same
        # numbers, the map model's fixed cost paid once; costmodel/_map_pair.py)
        results = both_map_tasks(
            profile,
            batch,
            tuple(_rows(x, n) for x in splits),
            tuple(_rows(x, n) for x in records),
            cluster,
        )[:-1]
    else:
        results = [
            map_task(
                profile,
                batch,
                split,
                inputs=inputs,
                input_records=recs,
                spill_overlap=cluster.spill_overlap,
                counters=counters,
                remote_bytes=cluster.remote_read_bytes(split),
                local_mode=cluster.local_mode,
            )
            for split, recs in zip(splits, records, strict=True)
        ]
    return tuple(
        MapGroup(c, split, res) for c, split, res in zip(counts, splits, results, strict=True)
    )


def _split_records(
    profile: JobProfile | StackedProfiles, k_full: F64, full_bytes: F64, files: F64
) -> tuple[list[F64], list[F64]]:
    """``(counts, records)`` of :func:`file_maps`'s groups: the full splits, the tails and,
    with fixed-width records, the full splits holding one record fewer than the first."""
    stats = profile.stats
    cmp_in = where(profile.input_compressed, stats.input_compress_ratio, 1.0)
    width = stats.input_pair_width
    n_files = profile.input_files
    if not isinstance(n_files, np.ndarray):
        n_files = float(n_files)
    # a file's records: the mean over the files, not rounded per file (20 files of a run's
    # 264,571 lines are not 20 × rint(13,228.55)); whole with fixed-width records below
    file_recs = profile.input_bytes / n_files / cmp_in / width
    split_w = stats.split_pair_width
    if split_w is None:
        split_w = width
    elif isinstance(split_w, np.ndarray):
        split_w = np.where(np.isnan(split_w), width, split_w)
    full_recs = np.rint(full_bytes / cmp_in / split_w)
    counts = [k_full * files, files.copy()]
    records = [full_recs, at_least(file_recs - k_full * full_recs, 0.0)]
    fixed = _fixed_width(profile)
    if fixed is not None:
        file_recs = np.where(np.isnan(fixed), file_recs, np.rint(file_recs))
        hi, n_hi, lo = fixed_width_records(file_recs, k_full, full_bytes, fixed)
        exact = ~np.isnan(np.broadcast_to(fixed, np.shape(hi)))
        records[0] = np.where(exact, hi, full_recs)
        records[1] = np.where(exact, file_recs - (hi * n_hi + lo * (k_full - n_hi)), records[1])
        records.append(np.where(exact, lo, full_recs))
        counts = [np.where(exact, n_hi, k_full) * files, files.copy()]
        counts.append(np.where(exact, k_full - n_hi, 0.0) * files)
    return counts, records


def _rows(x: F64 | float, n: int) -> F64:
    """``x`` as ``n`` rows (a scalar split of one profile is broadcast)."""
    return np.broadcast_to(np.asarray(x, dtype=np.float64), (n,))


def map_groups(
    profile: JobProfile | StackedProfiles,
    batch: ConfigBatch,
    cluster: ClusterSpec,
    inputs: MapInputs,
    *,
    counters: bool,
) -> tuple[MapGroup, ...]:
    """Every group of equal map tasks: the full and tail maps of the input, or of each map
    class in turn (``inputs`` is the whole profile's :class:`MapInputs`; a class with its
    own statistics gets its own)."""
    classes = profile.map_classes if isinstance(profile, JobProfile) else ()
    if not classes:
        return file_maps(profile, batch, cluster, inputs, counters=counters)
    groups: list[MapGroup] = []
    split = split_sizes(profile, batch, cluster)  # the old API's goal size is the whole job's
    for cls in classes:
        sub = cls.profile_of(profile)  # type: ignore[arg-type]
        own = inputs if cls.stats is None else MapInputs.build(sub, batch)
        groups.extend(file_maps(sub, batch, cluster, own, counters=counters, split=split))
    return tuple(groups)


def total(groups: Sequence[MapGroup], attr: str) -> F64:
    """The job's sum of a per-task quantity over every group (count × value)."""
    acc = groups[0].count * getattr(groups[0].result, attr)
    for g in groups[1:]:
        acc = acc + g.count * getattr(g.result, attr)
    return acc
