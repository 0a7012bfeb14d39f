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
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.map_groups import SPLIT_SLOP, MapGroup, map_groups, split_layout, total
from mrtune.costmodel.map_task import MapInputs, MapTaskResult
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.reduce_task import ReduceTaskResult, reduce_task
from mrtune.costmodel.stacked import StackedProfiles, nonzero

F64 = NDArray[np.float64]
__all__ = ["SPLIT_SLOP", "JobPrediction", "MapGroup", "evaluate", "predict_job", "split_layout"]
#: ``yarn.app.mapreduce.am.job.reduce.rampup.limit``: share of the cluster reducers may take
#: while maps are still pending.
REDUCE_RAMPUP_LIMIT = 0.5


def container_slots(cluster: ClusterSpec, container_mb: F64, vcores: NDArray[np.int64]) -> F64:
    """Concurrent containers of one size on the cluster (memory and vcores; AM taken out)."""
    alloc = np.ceil(container_mb / cluster.min_allocation_mb) * cluster.min_allocation_mb
    per_node = np.minimum(
        np.floor(cluster.node_memory_mb / alloc), np.floor(cluster.node_vcores / vcores)
    )
    am = np.ceil(cluster.am_memory_mb / alloc) if cluster.am_memory_mb > 0 else 0.0
    return np.maximum(per_node * cluster.num_nodes - am, 1.0)


@dataclass
class JobPrediction:
    """The analytic job model's answer for each configuration (ndarrays of shape (n,)).

    ``map_groups`` holds every group of equal map tasks (:mod:`mrtune.costmodel.map_groups`):
    the input's full and tail maps, or two per map class. ``map_full`` / ``map_tail`` and
    their counts and sizes are the first two (the whole job's when it has no map classes);
    every job total reads all the groups.
    """

    num_maps: F64
    num_full_maps: F64
    num_tail_maps: F64
    num_reducers: F64
    full_split_bytes: F64
    tail_split_bytes: F64
    map_full: MapTaskResult
    map_tail: MapTaskResult
    reduce: ReduceTaskResult
    map_slots: F64
    reduce_slots: F64
    map_waves: F64
    reduce_waves: F64
    map_stage_ms: F64
    reduce_start_ms: F64
    shuffle_end_ms: F64
    job_ms: F64
    total_task_ms: F64
    container_gb_s: F64
    #: ClusterSpec.cpu_stretch of a map wave and of a reduce wave (1: no contention term)
    map_stretch: F64 | float = 1.0
    reduce_stretch: F64 | float = 1.0
    map_groups: tuple[MapGroup, ...] = ()

    def _maps(self, attr: str) -> F64:
        """Job total of a per-map quantity over every group of maps."""
        groups = self.map_groups or (
            MapGroup(self.num_full_maps, self.full_split_bytes, self.map_full),
            MapGroup(self.num_tail_maps, self.tail_split_bytes, self.map_tail),
        )
        return total(groups, attr)

    @cached_property
    def _total_raw(self) -> F64:
        return self._maps("output_records")

    @cached_property
    def counters(self) -> dict[str, F64]:
        """Job-total Hadoop counters (computed on first access; searches never need them)."""
        counters = {
            "MAP_INPUT_RECORDS": self._maps("input_records"),
            "MAP_OUTPUT_RECORDS": np.where(
                (self.num_reducers > 0),
                self._total_raw,
                self._maps("output_records"),
            ),
            "MAP_OUTPUT_BYTES": self._maps("output_bytes"),
            "MAP_OUTPUT_MATERIALIZED_BYTES": self._maps("materialized_bytes"),
            "SPILLED_RECORDS": self._maps("spilled_records")
            + np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.spilled_records, 0.0
            ),
            "MAP_SPILLED_RECORDS": self._maps("spilled_records"),
            "REDUCE_SPILLED_RECORDS": np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.spilled_records, 0.0
            ),
            "COMBINE_INPUT_RECORDS": self._maps("combine_input_records")
            + np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.combine_input_records, 0.0
            ),
            "COMBINE_OUTPUT_RECORDS": self._maps("combine_output_records")
            + np.where(
                (self.num_reducers > 0),
                self.num_reducers * self.reduce.combine_output_records,
                0.0,
            ),
            "REDUCE_SHUFFLE_BYTES": np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.shuffle_bytes, 0.0
            ),
            "REDUCE_INPUT_RECORDS": np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.input_records, 0.0
            ),
            "REDUCE_INPUT_GROUPS": np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.input_groups, 0.0
            ),
            "REDUCE_OUTPUT_RECORDS": np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.output_records, 0.0
            ),
            "SHUFFLED_MAPS": np.where(
                (self.num_reducers > 0), self.num_reducers * self.num_maps, 0.0
            ),
            "HDFS_BYTES_READ": self._maps("hdfs_bytes_read"),
            "HDFS_BYTES_WRITTEN": np.where(
                (self.num_reducers > 0),
                self.num_reducers * self.reduce.hdfs_bytes_written,
                self._maps("hdfs_bytes_written"),
            ),
            "FILE_BYTES_WRITTEN": self._maps("file_bytes_written")
            + np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.file_bytes_written, 0.0
            ),
            "FILE_BYTES_READ": self._maps("file_bytes_read")
            + np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.file_bytes_read, 0.0
            ),
            "MAP_SPILLS": self._maps("spills"),
        }
        return counters

    @property
    def map_task_ms(self) -> F64:
        """Average map task time (full and tail splits weighted by their counts)."""
        n = np.maximum(self.num_maps, 1.0)
        return self._maps("task_ms") / n

    @property
    def reduce_task_ms(self) -> F64:
        return np.where(self.num_reducers > 0, self.reduce.task_ms, 0.0)

    @property
    def map_phase_ms(self) -> dict[str, F64]:
        n = np.maximum(self.num_maps, 1.0)
        groups = self.map_groups or (
            MapGroup(self.num_full_maps, self.full_split_bytes, self.map_full),
            MapGroup(self.num_tail_maps, self.tail_split_bytes, self.map_tail),
        )
        out = {}
        for k in self.map_full.phase_ms:
            acc = groups[0].count * groups[0].result.phase_ms[k]
            for g in groups[1:]:
                acc = acc + g.count * g.result.phase_ms[k]
            out[k] = acc / n
        return out

    @property
    def reduce_phase_ms(self) -> dict[str, F64]:
        return {
            k: np.where(self.num_reducers > 0, v, 0.0) for k, v in self.reduce.phase_ms.items()
        }

    def __len__(self) -> int:
        return int(self.job_ms.shape[0])


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
    """
    n = len(batch)
    map_only = profile.map_only
    if nonzero(map_only):
        batch = batch.take(slice(None))
        reducers = np.zeros(n, dtype=np.int64)
        if map_only is not True:
            reducers = np.where(map_only, reducers, batch.num_reducers)
        object.__setattr__(batch, "num_reducers", reducers)
    map_inputs = MapInputs.build(profile, batch)
    groups = map_groups(profile, batch, cluster, map_inputs, counters=counters)
    mf, mt = groups[0].result, groups[1].result
    n_maps = groups[0].count
    for g in groups[1:]:
        n_maps = n_maps + g.count
    R = batch.num_reducers.astype(np.float64)
    has_red = R > 0
    # np.where(has_red, x, y) is x when every configuration has reducers (searches' usual case)
    all_red = bool(has_red.all())

    # ---- reduce input: one segment per map per reducer (uniform partitioning, §4.1)
    Rn = np.maximum(R, 1.0)
    tot_final = total(groups, "final_records")
    tot_raw = total(groups, "output_records")
    segs_per_job = n_maps * Rn
    seg_recs = tot_final / segs_per_job
    seg_raw = tot_raw / segs_per_job
    seg_width = mf.final_pair_width
    if map_inputs.any_combining or len(groups) > 2:
        # the groups' final records differ in width (merge factors, or each map class's own
        # statistics): a reducer's segments hold them in proportion to their records
        seg_bytes = groups[0].count * mf.final_records * mf.final_pair_width
        for g in groups[1:]:
            seg_bytes = seg_bytes + g.count * g.result.final_records * g.result.final_pair_width
        mixed = tot_final > 0
        if len(groups) == 2:
            mixed = map_inputs.combining & mixed
        seg_width = np.where(
            mixed,
            np.divide(seg_bytes, tot_final, out=np.zeros(n), where=tot_final > 0),
            mf.final_pair_width,
        )
    rd = reduce_task(
        profile,
        batch,
        n_maps,
        seg_recs,
        seg_raw,
        seg_width,
        map_codecs=(map_inputs.ratio, map_inputs.comp_ns, map_inputs.uncomp_ns),
        counters=counters,
    )

    # ---- slots
    startup = cluster.task_startup_ms + cluster.heartbeat_ms
    if cluster.local_mode:
        map_slots = np.full(n, float(cluster.max_concurrent_maps or 1))
        red_slots = np.full(n, float(cluster.max_concurrent_reduces or 1))
    else:
        yarn_map = container_slots(cluster, batch.map_container_mb, batch.map_vcores)
        yarn_red = container_slots(cluster, batch.reduce_container_mb, batch.reduce_vcores)
        map_slots, red_slots = yarn_map, yarn_red
        if batch.hadoop1.any():
            map_slots = np.where(
                batch.hadoop1, float(cluster.num_nodes * cluster.map_slots_per_node), yarn_map
            )
            red_slots = np.where(
                batch.hadoop1, float(cluster.num_nodes * cluster.reduce_slots_per_node), yarn_red
            )
    # CPU contention of the containers running at once (ClusterSpec.cpu_stretch; 1 unless
    # the cluster states its cores): tasks of a full wave share the nodes' cores
    s_map = cluster.cpu_stretch(np.minimum(n_maps, map_slots))
    s_red = cluster.cpu_stretch(np.minimum(Rn, red_slots))
    r_task = rd.task_ms * s_red
    if cluster.reduce_fixed_ms and not cluster.local_mode:
        r_task = r_task + cluster.reduce_fixed_ms  # wall time after the merge, unstretched
    m_times = [g.result.task_ms * s_map for g in groups]
    # + 0.0 changes no task time: skip it when the cluster adds no start-up delay
    t_times = [m + startup for m in m_times] if startup else m_times
    map_work = groups[0].count * t_times[0]
    longest = t_times[0] * (groups[0].count > 0)
    for g, t in zip(groups[1:], t_times[1:], strict=True):
        map_work = map_work + g.count * t
        longest = np.maximum(longest, t * (g.count > 0))
    t_map_avg = map_work / n_maps
    t_red = r_task + startup if startup else r_task

    # ---- map stage with the reducers' ramp-up taking containers (not in local mode / H1)
    map_waves = np.ceil(n_maps / map_slots)
    slow_k = np.maximum(1.0, np.ceil(batch.slowstart * n_maps))
    reduce_start = np.ceil(slow_k / map_slots) * t_map_avg
    shared = (~batch.hadoop1) & has_red & (not cluster.local_mode)
    early_reds = np.minimum(
        R,
        np.floor(
            REDUCE_RAMPUP_LIMIT
            * map_slots
            * batch.map_container_mb
            / np.maximum(batch.reduce_container_mb, 1.0)
        ),
    )
    lost = np.ceil(
        early_reds * batch.reduce_container_mb / np.maximum(batch.map_container_mb, 1.0)
    )
    if not shared.all():
        lost = np.where(shared, lost, 0.0)
    done_before = np.minimum(np.floor(reduce_start / t_map_avg) * map_slots, n_maps)
    slots_after = np.maximum(map_slots - lost, 1.0)
    map_stage_plain = map_waves * t_map_avg
    t_after = t_map_avg
    if cluster.node_cores is not None:
        # fewer maps at once once the reducers hold containers (a reducer waiting on its
        # shuffle takes little CPU): each of those maps shares the cores with fewer others
        left = np.maximum(n_maps - done_before, 1.0)
        t_after = t_map_avg * cluster.cpu_stretch(np.minimum(left, slots_after)) / s_map
    map_stage_shared = reduce_start + np.ceil((n_maps - done_before) / slots_after) * t_after
    map_stage = np.where(
        shared & (reduce_start < map_stage_plain), map_stage_shared, map_stage_plain
    )
    map_stage = np.maximum(map_stage, longest)

    # ---- reduce stage (first wave overlaps the map stage from slow-start on)
    # A reduce launched after the maps pays its fixed time (container launch, JVM start, task
    # init) before its shuffle, as a .jhist books it (start → shuffleFinishTime). One launched
    # during the maps (slow-start) keeps it after its shuffle: there it stands in for the
    # latency after the last map the model has no term for (the reduce learns of map
    # completions by polling, EventFetcher, once a second; Hadoop 1 at TaskTracker heartbeats).
    # A reduce whose launch (slow-start, then the AM's ramp-up delay) falls after the last map
    # is not overlapping, however early slow-start was met.
    fetch_ms = rd.phase_ms["shuffle"] * s_red
    early = (not cluster.local_mode) & has_red & (reduce_start < map_stage)
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
    red_waves = np.ceil(R / red_slots)
    first_wave_end = shuffle_end + after_shuffle - startup
    job = first_wave_end + (red_waves - 1.0) * t_red

    # ---- totals: the seed's total cost (sum of task times) and container GB-seconds
    total_map_ms = map_work
    if startup:
        total_map_ms = groups[0].count * m_times[0]
        for g, m in zip(groups[1:], m_times[1:], strict=True):
            total_map_ms = total_map_ms + g.count * m
    total_red_ms = R * r_task
    first_wave = np.minimum(R, red_slots)
    held_first = first_wave * (first_wave_end - red_start)
    held_rest = (R - first_wave) * t_red
    reduce_start_ms, shuffle_end_ms = red_start, shuffle_end
    if not all_red:
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
        num_maps=n_maps,
        num_full_maps=groups[0].count,
        num_tail_maps=groups[1].count,
        num_reducers=R,
        full_split_bytes=groups[0].split_bytes,
        tail_split_bytes=groups[1].split_bytes,
        map_full=mf,
        map_tail=mt,
        reduce=rd,
        map_slots=map_slots,
        reduce_slots=red_slots,
        map_waves=map_waves,
        reduce_waves=red_waves,
        map_stage_ms=map_stage,
        reduce_start_ms=reduce_start_ms,
        shuffle_end_ms=shuffle_end_ms,
        job_ms=job,
        total_task_ms=total_map_ms + total_red_ms,
        container_gb_s=gb_s,
        map_stretch=s_map,
        reduce_stretch=s_red,
        map_groups=groups,
    )


#: Configurations per model call in :func:`evaluate`. One call makes ~860 numpy calls whatever
#: its size, ~2 ms of fixed cost on a loaded core (0.4 ms quiet): at 4,096 rows that was 40% of
#: the chunk's time. Measured at n = 10^6 on 2 shared cores (load ~9.5, CPU time): 4,096 rows
#: 0.44-0.53 M configs/s, 16,384 rows 0.55-0.74 M (+26-40%) for 26 MB more peak memory, 32,768
#: and 65,536 no better than 16,384 for 60-125 MB more. The working set is beyond the caches
#: at any of these sizes (~15 KB touched per configuration).
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
