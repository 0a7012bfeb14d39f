"""Job level (reference §6.1): input splits, map and reduce tasks, waves, overlap, totals.

``predict_job`` is the analytic, vectorised job model: it evaluates every configuration of a
:class:`~mrtune.costmodel.batch.ConfigBatch` with numpy operations only. The splits follow the new-API
``FileInputFormat`` (``SPLIT_SLOP`` = 1.1): each input file gives ``k`` full splits and one tail
split, which are modelled as two classes of map tasks so that per-map dataflow stays exact.
Task slots come from YARN container packing (memory and vcores per node, the MRAppMaster's
container taken out), Hadoop 1 slots, or local mode. The first reduce wave overlaps its shuffle
with the map stage from the slow-start point on (reference §6.2's rule), and reducers launched
early hold containers that maps can no longer use (the AM's reduce ramp-up, at most half the
cluster while maps are pending).

The per-task event simulation of the same job is :mod:`mrtune.costmodel.scheduler`.
The steps of :func:`predict_job` are functions of their own, each following one part of the
job as Hadoop runs it (the reduce input, the slots, the task times, the map stage, the reduce
stage, the totals); :class:`~mrtune.costmodel._job_stages.JobShape` and
:class:`~mrtune.costmodel._job_stages.TaskTimes` carry the arrays they share.
Its answer, :class:`~mrtune.costmodel.prediction.JobPrediction`, is defined in
:mod:`mrtune.costmodel.prediction`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel._ifile import at_least, filled, quotient
from mrtune.costmodel._job_stages import (
    REDUCE_RAMPUP_LIMIT,
    HotReduce,
    JobShape,
    Stages,
    TaskTimes,
    stages,
    task_times,
    with_hot_reduce,
)
from mrtune.costmodel.batch import ConfigBatch, shared_value
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.map_groups import SPLIT_SLOP, MapGroup, map_groups, split_layout, total
from mrtune.costmodel.map_task import MapInputs
from mrtune.costmodel.partitions import hot_share, partition_factors
from mrtune.costmodel.prediction import JobPrediction
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.reduce_task import ReduceTaskResult, reduce_task
from mrtune.costmodel.stacked import StackedProfiles, nonzero

F64 = NDArray[np.float64]
#: The job model's public names, wherever they are defined (importers use this module).
__all__ = [
    "REDUCE_RAMPUP_LIMIT",
    "SPLIT_SLOP",
    "JobPrediction",
    "MapGroup",
    "container_slots",
    "evaluate",
    "predict_job",
    "split_layout",
]


def container_slots(cluster: ClusterSpec, container_mb: F64, vcores: NDArray[np.int64]) -> F64:
    """Concurrent containers of one size on the cluster (memory and vcores; AM taken out)."""
    alloc = np.ceil(container_mb / cluster.min_allocation_mb) * cluster.min_allocation_mb
    per_node = np.minimum(
        np.floor(cluster.node_memory_mb / alloc), np.floor(cluster.node_vcores / vcores)
    )
    am = np.ceil(cluster.am_memory_mb / alloc) if cluster.am_memory_mb > 0 else 0.0
    return at_least(per_node * cluster.num_nodes - am, 1.0)


def predict_job(
    profile: JobProfile | StackedProfiles,
    batch: ConfigBatch,
    cluster: ClusterSpec,
    *,
    counters: bool = True,
) -> JobPrediction:
    """Predict job time, dataflow, total cost and resource use for every configuration.

    ``profile`` is one job's, or :class:`~mrtune.costmodel.stacked.StackedProfiles` giving
    each configuration its own job (a catalog in one call; same results row by row).
    ``counters=False`` skips what only :attr:`JobPrediction.counters` reads (a search's
    objectives need the times alone; the counters are then unavailable).

    Steps: the map tasks (:func:`~mrtune.costmodel.map_groups.map_groups`), the reducers'
    input segments (:func:`_reduce_segments`) and one reduce task
    (:func:`~mrtune.costmodel.reduce_task.reduce_task`), the slots (:func:`_slots`), then in
    :mod:`mrtune.costmodel._job_stages` the tasks' wall times (``task_times``), the map stage
    (``map_stage_times``) and the reduce stage (``reduce_stage_times``), and the totals
    (:func:`_prediction`).
    """
    n = len(batch)
    batch = _map_only_reducers(profile, batch, n)
    map_inputs = MapInputs.build(profile, batch)
    groups = map_groups(profile, batch, cluster, map_inputs, counters=counters)
    n_maps = groups[0].count
    for g in groups[1:]:
        n_maps = n_maps + g.count
    R = map_inputs.reducers
    has_red = R > 0
    all_red = bool(has_red.all())
    Rn = map_inputs.parts
    # several map classes: their final records may differ in width (MapClass.stats)
    classes = isinstance(profile, JobProfile) and len(profile.map_classes) > 1
    seg_recs, seg_raw, seg_width = _reduce_segments(groups, map_inputs, n_maps, Rn, n, classes)
    h = hot_share(profile)
    f_hot, f_other = partition_factors(h, Rn) if h is not None else (None, None)

    def reducer(share: F64 | None) -> ReduceTaskResult:
        # a reduce of ``share`` mean partitions: its records scale, its keys do not
        recs = seg_recs if share is None else seg_recs * share
        return reduce_task(
            profile,
            batch,
            n_maps,
            recs,
            seg_raw,
            seg_width,
            map_codecs=(map_inputs.ratio, map_inputs.comp_ns, map_inputs.uncomp_ns),
            counters=counters,
            parts=Rn,
            sort_factor=map_inputs.sort_factor,
        )

    rd = reducer(f_other)  # every reduce, or the others beside a hot partition
    map_slots, red_slots, slots_shared = _slots(cluster, batch, n)
    shape = JobShape(
        batch=batch,
        cluster=cluster,
        groups=groups,
        n_maps=n_maps,
        R=R,
        Rn=Rn,
        has_red=has_red,
        all_red=all_red,
        startup=cluster.task_startup_ms + cluster.heartbeat_ms,
        map_slots=map_slots,
        red_slots=red_slots,
        slots_shared=slots_shared,
    )
    times = task_times(shape, rd)
    st = stages(shape, times, rd)
    hot = None
    if f_hot is not None:
        st, hot = with_hot_reduce(shape, times, st, reducer(f_hot))
    return _prediction(profile, shape, times, rd, st, hot)


def _map_only_reducers(
    profile: JobProfile | StackedProfiles, batch: ConfigBatch, n: int
) -> ConfigBatch:
    """The batch with 0 reducers on the rows of a map-only job (``job.setNumReduceTasks(0)``
    in its driver overrides ``mapreduce.job.reduces``, whatever a configuration says)."""
    map_only = profile.map_only
    if nonzero(map_only):
        batch = batch.take(slice(None))
        reducers = np.zeros(n, dtype=np.int64)
        if map_only is not True:
            reducers = np.where(map_only, reducers, batch.num_reducers)
        object.__setattr__(batch, "num_reducers", reducers)
    return batch


def _reduce_segments(
    groups: tuple[MapGroup, ...],
    map_inputs: MapInputs,
    n_maps: F64,
    Rn: F64,
    n: int,
    classes: bool = False,
) -> tuple[F64, F64, F64]:
    """A reducer's input: one segment per map (uniform partitioning, reference §4.1), as
    ``(records, raw records, serialized width)`` of one segment.

    ``Fetcher`` copies each map's partition for the reducer; with map classes (``classes``)
    or a combiner the maps' final records differ in width, and a segment holds them in
    proportion to their records (the groups of fixed-width splits differ only in records).
    """
    mf = groups[0].result
    # total(groups, "final_records"), each group's count × records kept for the bytes below
    finals = [g.count * g.result.final_records for g in groups]
    tot_final = finals[0]
    for f in finals[1:]:
        tot_final = tot_final + f
    tot_raw = total(groups, "output_records")
    segs_per_job = n_maps * Rn
    seg_recs = tot_final / segs_per_job
    seg_raw = tot_raw / segs_per_job
    seg_width = mf.final_pair_width
    if map_inputs.any_combining or classes:
        # the groups' final records differ in width (merge factors, or each map class's own
        # statistics): a reducer's segments hold them in proportion to their records
        seg_bytes = finals[0] * mf.final_pair_width
        for f, g in zip(finals[1:], groups[1:], strict=True):
            seg_bytes = seg_bytes + f * g.result.final_pair_width
        mixed = tot_final > 0
        every = bool(mixed.all())
        width = np.true_divide(seg_bytes, tot_final) if every else quotient(seg_bytes, tot_final)
        if not classes and not map_inputs.all_combining:
            mixed = map_inputs.combining & mixed
        elif every:  # np.where(True, width, …) in every row
            return seg_recs, seg_raw, width
        seg_width = np.where(mixed, width, mf.final_pair_width)
    return seg_recs, seg_raw, seg_width


def _slots(cluster: ClusterSpec, batch: ConfigBatch, n: int) -> tuple[F64, F64, bool]:
    """Map and reduce tasks that run at once: ``LocalJobRunner``'s thread pools, YARN's
    container packing (:func:`container_slots`), or Hadoop 1's TaskTracker slots; and
    whether every configuration has the same map slots."""
    if cluster.local_mode:
        map_slots = filled(float(cluster.max_concurrent_maps or 1), n)
        red_slots = filled(float(cluster.max_concurrent_reduces or 1), n)
        return map_slots, red_slots, True
    yarn_map = _side_slots(cluster, batch.map_container_mb, batch.map_vcores, n)
    yarn_red = _side_slots(cluster, batch.reduce_container_mb, batch.reduce_vcores, n)
    map_slots, red_slots = yarn_map, yarn_red
    h1 = shared_value(batch.hadoop1)
    if h1 is None and batch.hadoop1.any():
        map_slots = np.where(
            batch.hadoop1, float(cluster.num_nodes * cluster.map_slots_per_node), yarn_map
        )
        red_slots = np.where(
            batch.hadoop1, float(cluster.num_nodes * cluster.reduce_slots_per_node), yarn_red
        )
        return map_slots, red_slots, False
    if h1:  # every configuration is Hadoop 1
        map_slots = filled(float(cluster.num_nodes * cluster.map_slots_per_node), n)
        red_slots = filled(float(cluster.num_nodes * cluster.reduce_slots_per_node), n)
        return map_slots, red_slots, True
    return (
        map_slots,
        red_slots,
        shared_value(batch.map_container_mb) is not None
        and (shared_value(batch.map_vcores) is not None),
    )


def _side_slots(cluster: ClusterSpec, container_mb: F64, vcores: NDArray[np.int64], n: int) -> F64:
    """:func:`container_slots` of one side's containers, computed once when every
    configuration shares their size (:func:`~mrtune.costmodel.batch.shared_value`)."""
    if shared_value(container_mb) is None or shared_value(vcores) is None:
        return container_slots(cluster, container_mb, vcores)
    # one value for every row: the cached read-only column of it (no fill per chunk)
    return filled(float(container_slots(cluster, container_mb[:1], vcores[:1])[0]), n)


def _prediction(
    profile: JobProfile | StackedProfiles,
    j: JobShape,
    t: TaskTimes,
    rd: ReduceTaskResult,
    s: Stages,
    hot: HotReduce | None = None,
) -> JobPrediction:
    """The job's totals: the seed's total cost (sum of task times), container GB-seconds
    (maps for their run, reducers from launch; YARN bills a container while it is held) and
    the job time with its fixed overhead; map-only rows take the map stage's. With a hot
    partition (``hot``) one of the ``R`` reduces is the hot one."""
    batch, groups, R, has_red = j.batch, j.groups, j.R, j.has_red
    red_start, shuffle_end, red_waves, job, map_stage = (
        s.red_start,
        s.shuffle_end,
        s.red_waves,
        s.job,
        s.map_stage,
    )
    map_work, t_red = t.map_work, t.t_red
    total_map_ms = map_work
    if j.startup:
        total_map_ms = groups[0].count * t.m_times[0]
        for g, m in zip(groups[1:], t.m_times[1:], strict=True):
            total_map_ms = total_map_ms + g.count * m
    total_red_ms = R * t.r_task
    first_wave = np.minimum(R, j.red_slots)
    held_first = first_wave * (s.first_wave_end - red_start)
    if hot is not None:
        total_red_ms = total_red_ms + (hot.r_task - t.r_task)
        held_first = held_first + at_least(hot.first_wave_end - s.first_wave_end, 0.0)
    held_rest = (R - first_wave) * t_red
    reduce_start_ms, shuffle_end_ms = red_start, shuffle_end
    if not j.all_red:
        red_waves = np.where(has_red, red_waves, 0.0)
        job = np.where(has_red, job, map_stage)
        total_red_ms = np.where(has_red, total_red_ms, 0.0)
        held_first = np.where(has_red, held_first, 0.0)
        held_rest = np.where(has_red, held_rest, 0.0)
        reduce_start_ms = np.where(has_red, red_start, 0.0)
        shuffle_end_ms = np.where(has_red, shuffle_end, 0.0)
    # the job's own fixed time outside every task (MRAppMaster start, job setup and commit;
    # CostFactors.job_overhead_ms): the same under every configuration, part of what a user
    # measures (JobHistory's launch→finish)
    job = job + profile.costs.job_overhead_ms
    gb_s = (
        (map_work * batch.map_container_mb + (held_first + held_rest) * batch.reduce_container_mb)
        / 1024.0
        / 1000.0
    )
    return JobPrediction(
        num_maps=j.n_maps,
        num_full_maps=groups[0].count,
        num_tail_maps=groups[1].count,
        num_reducers=R,
        full_split_bytes=groups[0].split_bytes,
        tail_split_bytes=groups[1].split_bytes,
        map_full=groups[0].result,
        map_tail=groups[1].result,
        reduce=rd,
        map_slots=j.map_slots,
        reduce_slots=j.red_slots,
        map_waves=s.map_waves,
        reduce_waves=red_waves,
        map_stage_ms=map_stage,
        reduce_start_ms=reduce_start_ms,
        shuffle_end_ms=shuffle_end_ms,
        job_ms=job,
        total_task_ms=total_map_ms + total_red_ms,
        container_gb_s=gb_s,
        map_stretch=t.s_map,
        reduce_stretch=t.s_red,
        map_groups=groups,
        reduce_hot=None if hot is None else hot.result,
    )


#: Configurations per model call in :func:`evaluate`. One call of the lean path makes ~980
#: numpy calls (776 passes over the rows, 652 temporaries, ~15 KB touched per configuration:
#: ``benchmarks/count_passes.py``), ~0.6-0.8 ms of fixed cost on this EPYC (L1d 48 KiB, L2
#: 2 MiB, L3 32 MiB per core complex). At 16,384 rows the arrays are 128 KiB, so the few
#: dozen alive at once spill from L2 to L3; smaller chunks fit L2 but pay the fixed cost more
#: often, larger ones spill further. Measured at n = 10^6 (CPU time, min of 5, load 2.6-2.7,
#: code of this commit): 4,096 rows 1.46 M configs/s, 8,192 rows 2.14 M, 16,384 rows 2.73 M,
#: 32,768 rows 2.26 M; one call costs 2.75 ms at 8,192 rows and 5.37 ms at 16,384 (0.33 µs a
#: row either way).
EVALUATE_CHUNK = 16384


def evaluate(
    profile: JobProfile | StackedProfiles,
    batch: ConfigBatch,
    cluster: ClusterSpec,
    *,
    chunk: int = EVALUATE_CHUNK,
) -> tuple[F64, F64]:
    """``(job_ms, container_gb_s)`` for every configuration: the optimizer's hot path.

    Same model as :func:`predict_job`, evaluated in cache-sized chunks and returning only the
    two objectives, which is what searches over millions of configurations need (the
    counters are not computed). ``profile`` may stack many jobs
    (:class:`~mrtune.costmodel.stacked.StackedProfiles`, rows aligned with ``batch``).
    """
    n = len(batch)
    stacked = isinstance(profile, StackedProfiles)
    if stacked and len(profile) != n:
        raise ValueError(f"{len(profile)} stacked profile rows for {n} configurations")
    if n <= chunk:
        pred = predict_job(profile, batch, cluster, counters=False)
        return pred.job_ms, pred.container_gb_s
    job = np.empty(n)
    gbs = np.empty(n)
    for start in range(0, n, chunk):
        part = slice(start, min(start + chunk, n))
        prof = profile.take(part) if stacked else profile
        pred = predict_job(prof, batch.take(part), cluster, counters=False)
        job[part] = pred.job_ms
        gbs[part] = pred.container_gb_s
    return job, gbs
