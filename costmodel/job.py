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
from mrtune.costmodel.map_task import MapInputs, MapTaskResult, map_task
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.reduce_task import ReduceTaskResult, reduce_task
from mrtune.costmodel.stacked import StackedProfiles, nonzero, where

F64 = NDArray[np.float64]
SPLIT_SLOP = 1.1
#: ``yarn.app.mapreduce.am.job.reduce.rampup.limit``: share of the cluster reducers may take
#: while maps are still pending.
REDUCE_RAMPUP_LIMIT = 0.5


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
    k = np.maximum(np.ceil(file_size / split_size - SPLIT_SLOP), 0.0)
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
    """The analytic job model's answer for each configuration (ndarrays of shape (n,))."""

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

    @cached_property
    def _total_raw(self) -> F64:
        return (
            self.num_full_maps * self.map_full.output_records
            + self.num_tail_maps * self.map_tail.output_records
        )

    @cached_property
    def counters(self) -> dict[str, F64]:
        """Job-total Hadoop counters (computed on first access; searches never need them)."""
        counters = {
            "MAP_INPUT_RECORDS": self.num_full_maps * self.map_full.input_records
            + self.num_tail_maps * self.map_tail.input_records,
            "MAP_OUTPUT_RECORDS": np.where(
                (self.num_reducers > 0),
                self._total_raw,
                self.num_full_maps * self.map_full.output_records
                + self.num_tail_maps * self.map_tail.output_records,
            ),
            "MAP_OUTPUT_BYTES": self.num_full_maps * self.map_full.output_bytes
            + self.num_tail_maps * self.map_tail.output_bytes,
            "MAP_OUTPUT_MATERIALIZED_BYTES": self.num_full_maps * self.map_full.materialized_bytes
            + self.num_tail_maps * self.map_tail.materialized_bytes,
            "SPILLED_RECORDS": self.num_full_maps * self.map_full.spilled_records
            + self.num_tail_maps * self.map_tail.spilled_records
            + np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.spilled_records, 0.0
            ),
            "MAP_SPILLED_RECORDS": self.num_full_maps * self.map_full.spilled_records
            + self.num_tail_maps * self.map_tail.spilled_records,
            "REDUCE_SPILLED_RECORDS": np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.spilled_records, 0.0
            ),
            "COMBINE_INPUT_RECORDS": self.num_full_maps * self.map_full.combine_input_records
            + self.num_tail_maps * self.map_tail.combine_input_records
            + np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.combine_input_records, 0.0
            ),
            "COMBINE_OUTPUT_RECORDS": self.num_full_maps * self.map_full.combine_output_records
            + self.num_tail_maps * self.map_tail.combine_output_records
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
            "HDFS_BYTES_READ": self.num_full_maps * self.map_full.hdfs_bytes_read
            + self.num_tail_maps * self.map_tail.hdfs_bytes_read,
            "HDFS_BYTES_WRITTEN": np.where(
                (self.num_reducers > 0),
                self.num_reducers * self.reduce.hdfs_bytes_written,
                self.num_full_maps * self.map_full.hdfs_bytes_written
                + self.num_tail_maps * self.map_tail.hdfs_bytes_written,
            ),
            "FILE_BYTES_WRITTEN": self.num_full_maps * self.map_full.file_bytes_written
            + self.num_tail_maps * self.map_tail.file_bytes_written
            + np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.file_bytes_written, 0.0
            ),
            "FILE_BYTES_READ": self.num_full_maps * self.map_full.file_bytes_read
            + self.num_tail_maps * self.map_tail.file_bytes_read
            + np.where(
                (self.num_reducers > 0), self.num_reducers * self.reduce.file_bytes_read, 0.0
            ),
            "MAP_SPILLS": self.num_full_maps * self.map_full.spills
            + self.num_tail_maps * self.map_tail.spills,
        }
        return counters

    @property
    def map_task_ms(self) -> F64:
        """Average map task time (full and tail splits weighted by their counts)."""
        n = np.maximum(self.num_maps, 1.0)
        return (
            self.num_full_maps * self.map_full.task_ms + self.num_tail_maps * self.map_tail.task_ms
        ) / n

    @property
    def reduce_task_ms(self) -> F64:
        return np.where(self.num_reducers > 0, self.reduce.task_ms, 0.0)

    @property
    def map_phase_ms(self) -> dict[str, F64]:
        n = np.maximum(self.num_maps, 1.0)
        full, tail = self.map_full.phase_ms, self.map_tail.phase_ms
        return {k: (self.num_full_maps * full[k] + self.num_tail_maps * tail[k]) / n for k in full}

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
    k_full, full_bytes, tail_bytes, files = split_layout(profile, batch.split_size)
    map_inputs = MapInputs.build(profile, batch)
    # Records per split: full splits hold rint(split / width of the profiled run's full
    # splits); the tail split holds what the file has left, so every file's records add up
    # exactly (Hadoop's record readers hand each record to the split where it starts).
    stats = profile.stats
    cmp_in = where(profile.input_compressed, stats.input_compress_ratio, 1.0)
    width = stats.input_pair_width
    n_files = profile.input_files
    if not isinstance(n_files, np.ndarray):
        n_files = float(n_files)
    file_recs = np.rint(profile.input_bytes / n_files / cmp_in / width)
    split_w = stats.split_pair_width
    if split_w is None:
        split_w = width
    elif isinstance(split_w, np.ndarray):
        split_w = np.where(np.isnan(split_w), width, split_w)
    full_recs = np.rint(full_bytes / cmp_in / split_w)
    tail_recs = np.maximum(file_recs - k_full * full_recs, 0.0)
    ovl = cluster.spill_overlap
    mf = map_task(
        profile,
        batch,
        full_bytes,
        inputs=map_inputs,
        input_records=full_recs,
        spill_overlap=ovl,
        counters=counters,
        remote_bytes=cluster.remote_read_bytes(full_bytes),
        local_mode=cluster.local_mode,
    )
    mt = map_task(
        profile,
        batch,
        tail_bytes,
        inputs=map_inputs,
        input_records=tail_recs,
        spill_overlap=ovl,
        counters=counters,
        remote_bytes=cluster.remote_read_bytes(tail_bytes),
        local_mode=cluster.local_mode,
    )
    n_full = k_full * files
    n_tail = files.copy()
    n_maps = n_full + n_tail
    R = batch.num_reducers.astype(np.float64)
    has_red = R > 0
    # np.where(has_red, x, y) is x when every configuration has reducers (searches' usual case)
    all_red = bool(has_red.all())

    # ---- reduce input: one segment per map per reducer (uniform partitioning, §4.1)
    Rn = np.maximum(R, 1.0)
    tot_final = n_full * mf.final_records + n_tail * mt.final_records
    tot_raw = n_full * mf.output_records + n_tail * mt.output_records
    segs_per_job = n_maps * Rn
    seg_recs = tot_final / segs_per_job
    seg_raw = tot_raw / segs_per_job
    seg_width = mf.final_pair_width
    if map_inputs.any_combining:
        # full and tail maps' combined records differ in width (their merge factors differ):
        # a reducer's segments hold them in proportion to their records
        seg_bytes = n_full * mf.final_records * mf.final_pair_width
        seg_bytes = seg_bytes + n_tail * mt.final_records * mt.final_pair_width
        seg_width = np.where(
            map_inputs.combining & (tot_final > 0),
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
    m_full, m_tail, r_task = mf.task_ms * s_map, mt.task_ms * s_map, rd.task_ms * s_red
    if cluster.reduce_fixed_ms and not cluster.local_mode:
        r_task = r_task + cluster.reduce_fixed_ms  # wall time after the merge, unstretched
    # + 0.0 changes no task time: skip it when the cluster adds no start-up delay
    t_full = m_full + startup if startup else m_full
    t_tail = m_tail + startup if startup else m_tail
    map_work = n_full * t_full + n_tail * t_tail
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
    map_stage = np.maximum(map_stage, np.maximum(t_full * (n_full > 0), t_tail))

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
    total_map_ms = map_work if not startup else n_full * m_full + n_tail * m_tail
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
    gb_s = (
        (map_work * batch.map_container_mb + (held_first + held_rest) * batch.reduce_container_mb)
        / 1024.0
        / 1000.0
    )

    return JobPrediction(
        num_maps=n_maps,
        num_full_maps=n_full,
        num_tail_maps=n_tail,
        num_reducers=R,
        full_split_bytes=full_bytes,
        tail_split_bytes=tail_bytes,
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
    )


#: Configurations per numpy pass in :func:`evaluate`: small enough that the working arrays stay
#: in the CPU cache, large enough that numpy's per-call overhead is amortised.
EVALUATE_CHUNK = 4096


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
