"""The job's stages (reference §6.1, §6.2): its tasks' wall times on the cluster, the waves of
maps with the reducers' ramp-up taking containers, and the reduce stage's overlap with the
maps from slow-start on.

Steps of :func:`~mrtune.costmodel.job.predict_job`; :class:`JobShape` and :class:`TaskTimes`
carry the arrays they share (one per configuration, shape (n,)), :class:`Stages` their answer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel._ifile import at_least, at_most
from mrtune.costmodel.batch import ConfigBatch, shared_value
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.map_groups import MapGroup
from mrtune.costmodel.reduce_task import ReduceTaskResult

F64 = NDArray[np.float64]
#: ``yarn.app.mapreduce.am.job.reduce.rampup.limit``: share of the cluster reducers may take
#: while maps are still pending.
REDUCE_RAMPUP_LIMIT = 0.5


@dataclass(slots=True)
class JobShape:
    """What every step of :func:`~mrtune.costmodel.job.predict_job` reads: the cluster, the
    configurations, their map groups and reducers, and the containers each can run at once."""

    batch: ConfigBatch
    cluster: ClusterSpec
    groups: tuple[MapGroup, ...]
    n_maps: F64
    #: reducers (float), and ``max(R, 1)``: a map-only row's one output partition
    R: F64
    Rn: F64
    has_red: NDArray[np.bool_]
    #: every configuration has reducers: ``np.where(has_red, x, y)`` is then ``x``
    all_red: bool
    #: a task's launch delay (``task_startup_ms`` + one heartbeat; 0 when the cluster has none)
    startup: float
    map_slots: F64
    red_slots: F64
    #: every configuration has the same map slots (``map_slots`` holds one value n times)
    slots_shared: bool = False


@dataclass(slots=True)
class TaskTimes:
    """One map (per group) and one reduce task's wall time under each configuration."""

    s_map: F64
    s_red: F64
    #: a reduce task's time, stretched, plus ``reduce_fixed_ms`` on a cluster
    r_task: F64
    #: each map group's task time, stretched, without the launch delay
    m_times: list[F64]
    #: the map stage's task time summed over the maps, with the launch delay
    map_work: F64
    longest: F64
    t_map_avg: F64
    t_red: F64


def task_times(j: JobShape, rd: ReduceTaskResult) -> TaskTimes:
    """The tasks' wall times on the cluster: CPU contention of the containers running at once
    (:meth:`~mrtune.costmodel.cluster.ClusterSpec.cpu_stretch`; 1 unless the cluster states
    its cores), the launch delay, and a reduce's fixed time after its merge."""
    cluster, groups, startup = j.cluster, j.groups, j.startup
    if not cluster.stretches:
        # cpu_stretch is 1.0 whatever the wave (no contention term), and x · 1.0 is x: the
        # waves' sizes and the products are left out (the same numbers, four passes fewer)
        s_map = s_red = 1.0
        r_task = rd.task_ms
        m_times = [g.result.task_ms for g in groups]
    else:  # tasks of a full wave share the nodes' cores
        s_map = cluster.cpu_stretch(np.minimum(j.n_maps, j.map_slots))
        s_red = cluster.cpu_stretch(np.minimum(j.Rn, j.red_slots))
        r_task = rd.task_ms * s_red
        m_times = [g.result.task_ms * s_map for g in groups]
    r_task = _after_merge(cluster, r_task)
    # + 0.0 changes no task time: skip it when the cluster adds no start-up delay
    t_times = [m + startup for m in m_times] if startup else m_times
    map_work = groups[0].count * t_times[0]
    longest = _if_any(t_times[0], groups[0].count)
    for g, t in zip(groups[1:], t_times[1:], strict=True):
        map_work = map_work + g.count * t
        longest = np.maximum(longest, _if_any(t, g.count))
    return TaskTimes(
        s_map=s_map,
        s_red=s_red,
        r_task=r_task,
        m_times=m_times,
        map_work=map_work,
        longest=longest,
        t_map_avg=map_work / j.n_maps,
        t_red=r_task + startup if startup else r_task,
    )


def _after_merge(cluster: ClusterSpec, r_task: F64) -> F64:
    """A reduce's time plus ``reduce_fixed_ms`` on a cluster (wall time after the merge,
    unstretched)."""
    if cluster.reduce_fixed_ms and not cluster.local_mode:
        return r_task + cluster.reduce_fixed_ms
    return r_task


def _if_any(t: F64, count: F64) -> F64:
    """``t · (count > 0)``: a group's task time where it has tasks, 0 where it has none
    (``t`` itself when every row has some: ``x · 1.0`` is ``x``, no cast and product)."""
    some = count > 0
    return t if some.all() else t * some


def map_stage_times(j: JobShape, t: TaskTimes) -> tuple[F64, F64, F64]:
    """``(map waves, slow-start time, map stage end)``: the waves of maps, with the reducers
    launched at slow-start (``mapreduce.job.reduce.slowstart.completedmaps``) holding
    containers the maps can no longer use, at most :data:`REDUCE_RAMPUP_LIMIT` of the
    cluster (``RMContainerAllocator``'s ramp-up; not in local mode or on Hadoop 1)."""
    batch, cluster, n_maps, map_slots = j.batch, j.cluster, j.n_maps, j.map_slots
    t_map_avg = t.t_map_avg
    map_waves = np.ceil(n_maps / map_slots)
    slow_k = at_least(np.ceil(batch.slowstart * n_maps), 1.0)
    waves_before = np.ceil(slow_k / map_slots)
    reduce_start = waves_before * t_map_avg
    shared = (~batch.hadoop1) & j.has_red & (not cluster.local_mode)
    map_mb, red_mb = batch.map_container_mb, batch.reduce_container_mb
    if j.slots_shared and shared_value(map_mb) is not None and shared_value(red_mb) is not None:
        map_mb, red_mb = map_mb[0], red_mb[0]  # one value each: computed once
        ramp = np.floor(REDUCE_RAMPUP_LIMIT * map_slots[0] * map_mb / np.maximum(red_mb, 1.0))
        early_reds = at_most(j.R, float(ramp))
    else:
        early_reds = np.minimum(
            j.R, np.floor(REDUCE_RAMPUP_LIMIT * map_slots * map_mb / at_least(red_mb, 1.0))
        )
    lost = np.ceil(early_reds * red_mb / at_least(map_mb, 1.0))
    if not shared.all():
        lost = np.where(shared, lost, 0.0)
    # the waves done at slow-start, counted, not floor(reduce_start / t_map_avg): that
    # quotient of k·t by t is k − 1 when it rounds below k, and a fraction of a record in a
    # tail map had moved a 502-map job's map stage by a third
    done_before = np.minimum(waves_before * map_slots, n_maps)
    slots_after = at_least(map_slots - lost, 1.0)
    map_stage_plain = map_waves * t_map_avg
    t_after = t_map_avg
    if cluster.node_cores is not None:
        # fewer maps at once once the reducers hold containers (a reducer waiting on its
        # shuffle takes little CPU): each of those maps shares the cores with fewer others
        left = at_least(n_maps - done_before, 1.0)
        t_after = t_map_avg * cluster.cpu_stretch(np.minimum(left, slots_after)) / t.s_map
    map_stage_shared = reduce_start + np.ceil((n_maps - done_before) / slots_after) * t_after
    map_stage = np.where(
        shared & (reduce_start < map_stage_plain), map_stage_shared, map_stage_plain
    )
    map_stage = np.maximum(map_stage, t.longest)
    return map_waves, reduce_start, map_stage


def reduce_stage_times(
    j: JobShape, t: TaskTimes, rd: ReduceTaskResult, reduce_start: F64, map_stage: F64
) -> tuple[F64, F64, F64, F64, F64]:
    """``(reduce start, shuffle end, reduce waves, first wave end, job end)``: the first
    reduce wave overlaps its shuffle with the map stage from slow-start on (reference §6.2).

    A reduce launched after the maps pays its fixed time (container launch, JVM start, task
    init) before its shuffle, as a .jhist books it (start → shuffleFinishTime). One launched
    during the maps (slow-start) keeps it after its shuffle: there it stands in for the
    latency after the last map the model has no term for (the reduce learns of map
    completions by polling, ``EventFetcher``, once a second; Hadoop 1 at TaskTracker
    heartbeats). A reduce whose launch (slow-start, then the AM's ramp-up delay) falls after
    the last map is not overlapping, however early slow-start was met.
    """
    cluster, startup, n_maps = j.cluster, j.startup, j.n_maps
    s_red, t_red = t.s_red, t.t_red
    fetch_ms = rd.phase_ms["shuffle"]
    if not (isinstance(s_red, float) and s_red == 1.0):  # x · 1.0 is x: no pass for it
        fetch_ms = fetch_ms * s_red
    early = (not cluster.local_mode) & j.has_red & (reduce_start < map_stage)
    red_start = np.where(early, reduce_start, map_stage)
    if cluster.reduce_ramp_ms and not cluster.local_mode:
        red_start = red_start + cluster.reduce_ramp_ms
    overlap_ok = early & (red_start < map_stage)
    shuffle_ms = np.where(overlap_ok, fetch_ms, fetch_ms + rd.fixed_ms * s_red)
    after_shuffle = t_red - shuffle_ms
    shuffle_end = np.where(
        overlap_ok,
        np.maximum(red_start + startup + shuffle_ms, map_stage + fetch_ms / n_maps),
        red_start + startup + shuffle_ms,
    )
    red_waves = np.ceil(j.R / j.red_slots)
    first_wave_end = shuffle_end + after_shuffle - startup
    job = first_wave_end + (red_waves - 1.0) * t_red
    return red_start, shuffle_end, red_waves, first_wave_end, job


@dataclass(slots=True)
class Stages:
    """When each stage ends under each configuration (ms from the first map's launch)."""

    map_waves: F64
    #: slow-start: the time the reducers could launch, and the map stage's end
    slow_start: F64
    map_stage: F64
    #: the first reduce wave's launch (slow-start or the map stage, plus the AM's ramp-up)
    red_start: F64
    shuffle_end: F64
    red_waves: F64
    first_wave_end: F64
    job: F64


def stages(j: JobShape, t: TaskTimes, rd: ReduceTaskResult) -> Stages:
    """The map stage (:func:`map_stage_times`), then the reduce stage
    (:func:`reduce_stage_times`) that overlaps it."""
    map_waves, slow_start, map_stage = map_stage_times(j, t)
    red_start, shuffle_end, red_waves, first_wave_end, job = reduce_stage_times(
        j, t, rd, slow_start, map_stage
    )
    return Stages(
        map_waves=map_waves,
        slow_start=slow_start,
        map_stage=map_stage,
        red_start=red_start,
        shuffle_end=shuffle_end,
        red_waves=red_waves,
        first_wave_end=first_wave_end,
        job=job,
    )


@dataclass(slots=True)
class HotReduce:
    """The reduce of the hot partition (:mod:`mrtune.costmodel.partitions`): its task
    result, its wall time on the cluster (as :attr:`TaskTimes.r_task`) and when it ends."""

    result: ReduceTaskResult
    r_task: F64
    first_wave_end: F64


def with_hot_reduce(
    j: JobShape, t: TaskTimes, s: Stages, rd_hot: ReduceTaskResult
) -> tuple[Stages, HotReduce]:
    """The stages with one reduce of the hot partition among the others (``t`` and ``s``
    are the other reduces').

    The hot reduce runs in the first wave (the reduces launch together) and shuffles like
    the others, from slow-start on; it ends at its own first-wave end. The others' schedule
    loses its slot meanwhile: its extra time, spread over the reduce slots, delays their
    last wave (all of it with one slot: ``LocalJobRunner`` runs the reduces one after
    another). The job ends at the later of the two.
    """
    hot_task = rd_hot.task_ms if isinstance(t.s_red, float) else rd_hot.task_ms * t.s_red
    hot_task = _after_merge(j.cluster, hot_task)
    hot_t = replace(t, r_task=hot_task, t_red=hot_task + j.startup if j.startup else hot_task)
    *_, hot_end, _ = reduce_stage_times(j, hot_t, rd_hot, s.slow_start, s.map_stage)
    extra = at_least(hot_task - t.r_task, 0.0) / j.red_slots
    job = np.maximum(s.job + extra, hot_end)
    return replace(s, job=job), HotReduce(rd_hot, hot_task, hot_end)
