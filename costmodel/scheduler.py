"""Task-scheduler simulation of one job on a virtual cluster (reference §6.2).

Where :func:`mrtune.costmodel.job.predict_job` estimates the job time analytically for arrays of
configurations, :func:`simulate_schedule` replays a single configuration task by task, the way
Starfish's ``BasicFIFOScheduler`` does, but on YARN containers:

* every node offers ``node_memory_mb`` and ``node_vcores``; a container takes its request rounded
  up to ``min_allocation_mb``; the MRAppMaster holds one container on the first node;
* maps are started largest split first; reducers become eligible once
  ``ceil(slowstart × maps)`` maps have finished and then take precedence over pending maps (YARN
  priority 10 vs 20) but, while maps are pending, may hold at most half of the cluster's memory
  (``yarn.app.mapreduce.am.job.reduce.rampup.limit``);
* a reducer of the first wave cannot finish shuffling before the last map has ended, plus the
  time to fetch that map's segment (``shuffle / maps``);
* Hadoop 1 uses fixed map and reduce slots per node; local mode runs
  ``max_concurrent_maps`` maps at a time and reducers only after the last map.

Each task also pays ``heartbeat_ms + task_startup_ms`` before its first phase.
"""

from __future__ import annotations

import gc
import heapq
import math
from collections import deque
from dataclasses import dataclass, field
from operator import attrgetter
from typing import NamedTuple

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.job import REDUCE_RAMPUP_LIMIT, JobPrediction, MapGroup, predict_job
from mrtune.costmodel.profile import JobProfile


class TaskSpan(NamedTuple):
    """One task in the simulated timeline (ms from job start).

    A named tuple (immutable, compared field by field): a simulation of a million tasks makes
    a million of them, and a tuple is built several times faster than a frozen dataclass.
    """

    kind: str
    index: int
    node: int
    start_ms: float
    end_ms: float
    shuffle_end_ms: float | None = None


@dataclass
class Schedule:
    """The simulated timeline of one job."""

    tasks: list[TaskSpan] = field(default_factory=list)
    job_ms: float = 0.0
    map_stage_end_ms: float = 0.0
    total_task_ms: float = 0.0
    container_gb_s: float = 0.0

    def spans(self, kind: str) -> list[TaskSpan]:
        return [t for t in self.tasks if t.kind == kind]


def simulate_schedule(profile: JobProfile, config: HadoopConfig, cluster: ClusterSpec) -> Schedule:
    """Simulate the job's tasks on ``cluster`` under ``config``.

    Each event costs O(log nodes): the nodes that can take one more container of a kind sit
    in a heap keyed by node index (lowest first, the order a scan of the nodes would give),
    and pending tasks in deques. A node whose free resources a start used up stays in its
    heap until it reaches the top and is found full (lazy deletion); a node is pushed back
    when a finishing task frees enough for one more container.
    """
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    job = _JobTasks.of(pred, config, cluster)
    # The loop allocates two tuples per task and no cycles: the cyclic garbage collector,
    # which would rescan the growing timeline on every collection, is paused meanwhile.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        spans = _event_loop(job, config, cluster)
    finally:
        if gc_was_enabled:
            gc.enable()
    job_ms = max((s.end_ms for s in spans), default=0.0)
    map_end = max((s.end_ms for s in spans if s.kind == "map"), default=0.0)
    map_mb, red_mb = config.map_container_mb, config.reduce_container_mb
    held = sum((s.end_ms - s.start_ms) * (map_mb if s.kind == "map" else red_mb) for s in spans)
    total = sum(job.maps) + job.n_red * job.red_total
    spans.sort(key=attrgetter("start_ms", "kind", "index"))
    return Schedule(
        tasks=spans,
        job_ms=job_ms,
        map_stage_end_ms=map_end,
        total_task_ms=total,
        container_gb_s=held / 1024.0 / 1000.0,
    )


@dataclass(frozen=True)
class _JobTasks:
    """The tasks of one configuration: map times in start order (largest split first)."""

    maps: list[float]
    order: list[int]
    n_red: int
    red_total: float
    red_shuffle: float
    slow_k: int

    @classmethod
    def of(cls, pred: JobPrediction, config: HadoopConfig, cluster: ClusterSpec) -> _JobTasks:
        groups = pred.map_groups or (
            MapGroup(pred.num_full_maps, pred.full_split_bytes, pred.map_full),
            MapGroup(pred.num_tail_maps, pred.tail_split_bytes, pred.map_tail),
        )
        maps: list[float] = []
        sizes: list[float] = []
        for g in groups:
            k = int(g.count[0])
            maps += [float(g.result.task_ms[0])] * k
            sizes += [float(g.split_bytes[0])] * k
        # Largest split first, equal splits in index order (a stable sort by size): the tail
        # split can exceed a full one by up to SPLIT_SLOP; map classes come in any order.
        order = sorted(range(len(maps)), key=lambda i: -sizes[i])
        n_red = int(pred.num_reducers[0])
        n_maps = len(maps)
        return cls(
            maps=maps,
            order=order,
            n_red=n_red,
            red_total=float(pred.reduce.task_ms[0]) if n_red else 0.0,
            red_shuffle=float(pred.reduce.phase_ms["shuffle"][0]) if n_red else 0.0,
            slow_k=max(1, math.ceil(config.reduce_slowstart * n_maps)) if n_red else n_maps,
        )


MAP, REDUCE = 0, 1
KIND_NAMES = ("map", "reduce")


class _YarnPool:
    """Free memory and vcores per node and, per task kind, a heap of the nodes that can start
    one more container of that kind (node index order: what a scan from node 0 finds first).

    A start leaves its node in the heap; the node is dropped lazily once it reaches the top
    and no longer fits, and pushed back when a finishing task frees enough for one more
    container. Each start and finish is O(log nodes), amortised.
    """

    def __init__(
        self, nodes: int, mem: tuple[int, int], vc: tuple[int, int], cluster: ClusterSpec
    ) -> None:
        self.mem, self.vc = mem, vc
        self.free_mem = [cluster.node_memory_mb] * nodes
        self.free_vc = [cluster.node_vcores] * nodes
        self.heaps: list[list[int]] = []
        self.flags: list[list[bool]] = []

    def build(self) -> None:
        nodes = len(self.free_mem)
        for k in (MAP, REDUCE):
            fit = [self.fits(k, i) for i in range(nodes)]
            self.heaps.append([i for i in range(nodes) if fit[i]])  # sorted: a valid heap
            self.flags.append(fit)

    def fits(self, k: int, node: int) -> bool:
        return self.free_mem[node] >= self.mem[k] and self.free_vc[node] >= self.vc[k]

    def first_fit(self, k: int) -> int | None:
        heap, free_mem, free_vc = self.heaps[k], self.free_mem, self.free_vc
        mem, vc = self.mem[k], self.vc[k]
        while heap:
            node = heap[0]
            if free_mem[node] >= mem and free_vc[node] >= vc:
                return node
            self.flags[k][heapq.heappop(heap)] = False
        return None

    def take(self, k: int, node: int) -> None:
        self.free_mem[node] -= self.mem[k]
        self.free_vc[node] -= self.vc[k]

    def release(self, k: int, node: int) -> None:
        free_mem = self.free_mem[node] = self.free_mem[node] + self.mem[k]
        free_vc = self.free_vc[node] = self.free_vc[node] + self.vc[k]
        for j, flags in enumerate(self.flags):
            if not flags[node] and free_mem >= self.mem[j] and free_vc >= self.vc[j]:
                flags[node] = True
                heapq.heappush(self.heaps[j], node)


class _SlotPool(_YarnPool):
    """Hadoop 1: fixed map and reduce slots per TaskTracker, one heap per kind."""

    def __init__(self, nodes: int, cluster: ClusterSpec) -> None:
        super().__init__(nodes, (0, 0), (0, 0), cluster)
        self.slots = [
            [cluster.map_slots_per_node] * nodes,
            [cluster.reduce_slots_per_node] * nodes,
        ]

    def fits(self, k: int, node: int) -> bool:
        return self.slots[k][node] > 0

    def first_fit(self, k: int) -> int | None:
        heap, slots = self.heaps[k], self.slots[k]
        while heap:
            if slots[heap[0]] > 0:
                return heap[0]
            self.flags[k][heapq.heappop(heap)] = False
        return None

    def take(self, k: int, node: int) -> None:
        self.slots[k][node] -= 1

    def release(self, k: int, node: int) -> None:
        self.slots[k][node] += 1
        if not self.flags[k][node]:
            self.flags[k][node] = True
            heapq.heappush(self.heaps[k], node)


class _LocalPool:
    """``LocalJobRunner``: ``max_concurrent_maps`` maps and ``max_concurrent_reduces`` at once."""

    def __init__(self, cluster: ClusterSpec) -> None:
        self.limit = (cluster.max_concurrent_maps or 1, cluster.max_concurrent_reduces or 1)
        self.running = [0, 0]

    def first_fit(self, k: int) -> int | None:
        return 0 if self.running[k] < self.limit[k] else None

    def take(self, k: int, node: int) -> None:
        self.running[k] += 1

    def release(self, k: int, node: int) -> None:
        self.running[k] -= 1


def _pool(config: HadoopConfig, cluster: ClusterSpec) -> tuple[_YarnPool | _LocalPool, int, float]:
    """The cluster's resources, the memory one reducer holds against the ramp-up limit, and
    that limit (YARN only: Hadoop 1 slots and local mode have none)."""
    if cluster.local_mode:
        return _LocalPool(cluster), 0, math.inf
    nodes = cluster.num_nodes
    if config.hadoop_version == 1:
        pool: _YarnPool = _SlotPool(nodes, cluster)
        pool.build()
        return pool, 0, math.inf
    alloc = cluster.min_allocation_mb

    def rounded(mb: int) -> int:
        return int(math.ceil(mb / alloc) * alloc)

    mem = (rounded(config.map_container_mb), rounded(config.reduce_container_mb))
    pool = _YarnPool(nodes, mem, (config.map_vcores, config.reduce_vcores), cluster)
    if cluster.am_memory_mb > 0:
        pool.free_mem[0] -= rounded(cluster.am_memory_mb)
        pool.free_vc[0] -= 1
    pool.build()
    return pool, mem[REDUCE], REDUCE_RAMPUP_LIMIT * sum(pool.free_mem)


def _event_loop(job: _JobTasks, config: HadoopConfig, cluster: ClusterSpec) -> list[TaskSpan]:
    """Replay the job: at each event, reducers start first (YARN priority 10 vs 20), then maps;
    task ends are a heap by time, pending tasks deques (O(log nodes) per event)."""
    pool, red_mem, rampup = _pool(config, cluster)
    first_fit, take, release = pool.first_fit, pool.take, pool.release
    local = cluster.local_mode
    delay = cluster.heartbeat_ms + cluster.task_startup_ms
    maps, n_maps, slow_k = job.maps, len(job.maps), job.slow_k
    red_total, red_shuffle = job.red_total, job.red_shuffle
    push, pop = heapq.heappush, heapq.heappop
    events: list[tuple[float, int, int, int, int]] = []  # (time, seq, kind, index, node)
    pending_maps, pending_reds = deque(job.order), deque(range(job.n_red))
    spans: list[TaskSpan] = []
    waiting: list[tuple[int, int, float]] = []  # reducers shuffling before the last map ends
    running_maps = held = done = seq = 0
    maps_done = False
    now = 0.0
    while True:
        while True:  # start what can start at `now`
            if (
                pending_reds
                and done >= slow_k
                and (
                    (not pending_maps and running_maps == 0)
                    if local
                    else (not pending_maps or held + red_mem <= rampup)
                )
            ):
                node = first_fit(REDUCE)
                if node is not None:
                    idx = pending_reds.popleft()
                    take(REDUCE, node)
                    held += red_mem
                    start = now + delay
                    if not maps_done:
                        waiting.append((idx, node, start))
                    else:
                        end = start + red_total
                        spans.append(TaskSpan("reduce", idx, node, now, end, start + red_shuffle))
                        push(events, (end, seq, REDUCE, idx, node))
                        seq += 1
                    continue
            if pending_maps:
                node = first_fit(MAP)
                if node is not None:
                    idx = pending_maps.popleft()
                    take(MAP, node)
                    running_maps += 1
                    end = now + delay + maps[idx]
                    spans.append(TaskSpan("map", idx, node, now, end))
                    push(events, (end, seq, MAP, idx, node))
                    seq += 1
                    continue
            break
        if not events:
            return spans
        now, _, kind, _, node = pop(events)
        release(kind, node)
        if kind == REDUCE:
            held -= red_mem
            continue
        running_maps -= 1
        done += 1
        if done == n_maps:
            maps_done = True
            for end, span in _first_wave(waiting, now, n_maps, delay, red_total, red_shuffle):
                spans.append(span)
                push(events, (end, seq, REDUCE, span.index, span.node))
                seq += 1


def _first_wave(
    waiting: list[tuple[int, int, float]],
    last_map_end: float,
    n_maps: int,
    delay: float,
    red_total: float,
    red_shuffle: float,
) -> list[tuple[float, TaskSpan]]:
    """The reducers started before the last map ended: each finishes its shuffle no earlier
    than the fetch of the last map's segment (``shuffle / maps`` after that map)."""
    out = []
    for idx, node, start in waiting:
        shuffle_end = max(start + red_shuffle, last_map_end + red_shuffle / max(n_maps, 1))
        end = shuffle_end + (red_total - red_shuffle)
        out.append((end, TaskSpan("reduce", idx, node, start - delay, end, shuffle_end)))
    return out
