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
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import compress
from operator import attrgetter, itemgetter, mul, not_, sub
from typing import Any, NamedTuple

from mrtune.costmodel._schedule_pools import MAP, REDUCE, LocalPool, YarnPool, make_pool
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.job import JobPrediction, MapGroup, predict_job
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
        pool, red_mem, rampup = make_pool(config, cluster)
        delay = cluster.heartbeat_ms + cluster.task_startup_ms
        if type(pool) is YarnPool:
            spans = _yarn_loop(job, pool, rampup, delay)
        else:
            spans = _event_loop(job, pool, red_mem, rampup, delay, cluster.local_mode)
        return _summarise(spans, job, config)
    finally:
        if gc_was_enabled:
            gc.enable()


def _summarise(spans: list[TaskSpan], job: _JobTasks, config: HadoopConfig) -> Schedule:
    """Totals over the timeline (summed in start order, as the tasks were appended), then the
    timeline sorted by (start, kind, index).

    The sort needs no tuple key: the maps were appended in start order and, at one start time,
    in index order (unless the tail splits went first), the reducers in index order, which is
    also their start order (a FIFO of reducers, first wave included). A stable sort by start
    alone of the maps followed by the reducers is then the (start, kind, index) order, "map"
    sorting before "reduce"; Timsort merges the two runs in linear time.
    """
    ends = list(map(itemgetter(4), spans))
    starts = list(map(itemgetter(3), spans))
    kinds = list(map(itemgetter(0), spans))
    is_map = list(map("map".__eq__, kinds))
    mb = {"map": config.map_container_mb, "reduce": config.reduce_container_mb}
    held = sum(map(mul, map(sub, ends, starts), map(mb.__getitem__, kinds)))
    maps = list(compress(spans, is_map))
    if job.tail_first:
        maps.sort(key=attrgetter("start_ms", "index"))
    maps.extend(compress(spans, map(not_, is_map)))
    maps.sort(key=itemgetter(3))
    return Schedule(
        tasks=maps,
        job_ms=max(ends, default=0.0),
        map_stage_end_ms=max(compress(ends, is_map), default=0.0),
        total_task_ms=sum(job.maps) + _reduce_work(job.red_total),
        container_gb_s=held / 1024.0 / 1000.0,
    )


@dataclass(frozen=True)
class _JobTasks:
    """The tasks of one configuration: map times in start order (largest split first), and
    each reduce's time and shuffle by index (reduce 0 is the hot partition's when the profile
    has one, ``costmodel/partitions.py``: launched in the first wave, as ``predict_job``
    assumes)."""

    maps: list[float]
    order: list[int]
    n_red: int
    red_total: list[float]
    red_shuffle: list[float]
    slow_k: int
    tail_first: bool

    @classmethod
    def of(cls, pred: JobPrediction, config: HadoopConfig, cluster: ClusterSpec) -> _JobTasks:
        groups = pred.map_groups or (
            MapGroup(pred.num_full_maps, pred.full_split_bytes, pred.map_full),
            MapGroup(pred.num_tail_maps, pred.tail_split_bytes, pred.map_tail),
        )
        maps: list[float] = []
        blocks: list[tuple[float, range]] = []  # (split size, the group's map indices)
        for g in groups:
            k = int(g.count[0])
            blocks.append((float(g.split_bytes[0]), range(len(maps), len(maps) + k)))
            maps += [float(g.result.task_ms[0])] * k
        # Largest split first, equal splits in index order (a stable sort by size): the tail
        # split can exceed a full one by up to SPLIT_SLOP; map classes come in any order.
        # (a group's maps are alike and contiguous, so sorting the groups stably sorts the maps)
        blocks.sort(key=lambda b: -b[0])
        order = [i for _, r in blocks for i in r]
        # a permuted start order (a larger tail split, or map classes) makes the timeline's
        # sort by start alone need the index as a second key (see _timeline)
        tail_first = order != list(range(len(order)))
        n_red = int(pred.num_reducers[0])
        n_maps = len(maps)
        return cls(
            maps=maps,
            order=order,
            n_red=n_red,
            red_total=_per_reduce(pred, n_red, lambda r: r.task_ms[0]),
            red_shuffle=_per_reduce(pred, n_red, lambda r: r.phase_ms["shuffle"][0]),
            slow_k=max(1, math.ceil(config.reduce_slowstart * n_maps)) if n_red else n_maps,
            tail_first=tail_first,
        )


def _reduce_work(totals: list[float]) -> float:
    """The reduces' summed time (``n × t`` when they are alike, as the scan computes it)."""
    if not totals:
        return 0.0
    rest = totals[1] if len(totals) > 1 else totals[0]
    return totals[0] + (len(totals) - 1) * rest if totals[0] != rest else len(totals) * rest


def _per_reduce(pred: JobPrediction, n_red: int, value: Callable[[Any], float]) -> list[float]:
    """``value`` of each reduce by index: the hot partition's first, then the others."""
    if not n_red:
        return []
    other = float(value(pred.reduce))
    if pred.reduce_hot is None:
        return [other] * n_red
    return [float(value(pred.reduce_hot))] + [other] * (n_red - 1)


def _event_loop(
    job: _JobTasks,
    pool: YarnPool | LocalPool,
    red_mem: int,
    rampup: float,
    delay: float,
    local: bool,
) -> list[TaskSpan]:
    """Replay the job on Hadoop 1 slots or ``LocalJobRunner``: at each event, reducers start
    first (YARN priority 10 vs 20), then maps; task ends are a heap by time, pending tasks
    deques (O(log nodes) per event). YARN takes the inlined :func:`_yarn_loop`."""
    first_fit, take, release = pool.first_fit, pool.take, pool.release
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
                        end = start + red_total[idx]
                        spans.append(
                            TaskSpan("reduce", idx, node, now, end, start + red_shuffle[idx])
                        )
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


def _yarn_loop(job: _JobTasks, pool: YarnPool, rampup: float, delay: float) -> list[TaskSpan]:
    """:func:`_event_loop` on YARN containers with the pool's heaps inlined (no method call per
    event: the loop is the simulation's whole cost). Same order of starts, hence the same
    timeline: reducers first while the ramp-up limit allows, then maps; a reducer can only
    become startable after a map start when that start emptied the pending maps (a start only
    uses resources up), so the reducers are retried then. An event is ``(time, seq, node)``,
    ``~node`` for a reducer; ``seq`` breaks ties in push order."""
    free_mem, free_vc = pool.free_mem, pool.free_vc
    (map_mem, red_mem), (map_vc, red_vc) = pool.mem, pool.vc
    map_heap, red_heap = pool.heaps
    map_flag, red_flag = pool.flags
    maps, n_maps, slow_k = job.maps, len(job.maps), job.slow_k
    red_total, red_shuffle = job.red_total, job.red_shuffle
    push, pop, new = heapq.heappush, heapq.heappop, tuple.__new__
    events: list[tuple[float, int, int]] = []
    pending_maps, pending_reds = deque(job.order), deque(range(job.n_red))
    next_map, next_red = pending_maps.popleft, pending_reds.popleft
    spans: list[TaskSpan] = []
    add = spans.append
    waiting: list[tuple[int, int, float]] = []  # reducers shuffling before the last map ends
    held = done = seq = 0
    now = 0.0
    while True:
        while True:  # start what can start at `now`
            while (
                pending_reds and done >= slow_k and (not pending_maps or held + red_mem <= rampup)
            ):
                while red_heap:
                    node = red_heap[0]
                    if free_mem[node] >= red_mem and free_vc[node] >= red_vc:
                        break
                    red_flag[pop(red_heap)] = False
                else:
                    break
                idx = next_red()
                free_mem[node] -= red_mem
                free_vc[node] -= red_vc
                held += red_mem
                start = now + delay
                if done < n_maps:
                    waiting.append((idx, node, start))
                else:
                    end = start + red_total[idx]
                    add(new(TaskSpan, ("reduce", idx, node, now, end, start + red_shuffle[idx])))
                    push(events, (end, seq, ~node))
                    seq += 1
            before = len(pending_maps)
            while pending_maps:
                while map_heap:
                    node = map_heap[0]
                    if free_mem[node] >= map_mem and free_vc[node] >= map_vc:
                        break
                    map_flag[pop(map_heap)] = False
                else:
                    break
                idx = next_map()
                free_mem[node] -= map_mem
                free_vc[node] -= map_vc
                end = now + delay + maps[idx]
                add(new(TaskSpan, ("map", idx, node, now, end, None)))
                push(events, (end, seq, node))
                seq += 1
            if pending_maps or not pending_reds or len(pending_maps) == before:
                break
        if not events:
            return spans
        now, _, node = pop(events)
        if node < 0:
            node = ~node
            mem = free_mem[node] = free_mem[node] + red_mem
            vc = free_vc[node] = free_vc[node] + red_vc
            held -= red_mem
        else:
            mem = free_mem[node] = free_mem[node] + map_mem
            vc = free_vc[node] = free_vc[node] + map_vc
            done += 1
            if done == n_maps:
                for end, span in _first_wave(waiting, now, n_maps, delay, red_total, red_shuffle):
                    add(span)
                    push(events, (end, seq, ~span.node))
                    seq += 1
        if not map_flag[node] and mem >= map_mem and vc >= map_vc:
            map_flag[node] = True
            push(map_heap, node)
        if not red_flag[node] and mem >= red_mem and vc >= red_vc:
            red_flag[node] = True
            push(red_heap, node)


def _first_wave(
    waiting: list[tuple[int, int, float]],
    last_map_end: float,
    n_maps: int,
    delay: float,
    red_total: list[float],
    red_shuffle: list[float],
) -> list[tuple[float, TaskSpan]]:
    """The reducers started before the last map ended: each finishes its shuffle no earlier
    than the fetch of the last map's segment (``shuffle / maps`` after that map)."""
    out = []
    for idx, node, start in waiting:
        shuffle, total = red_shuffle[idx], red_total[idx]
        shuffle_end = max(start + shuffle, last_map_end + shuffle / max(n_maps, 1))
        end = shuffle_end + (total - shuffle)
        out.append((end, TaskSpan("reduce", idx, node, start - delay, end, shuffle_end)))
    return out
