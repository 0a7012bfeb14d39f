"""The task-by-task scheduler before issue 18 (a scan over every node, ``list.pop(0)``), kept
verbatim as the reference that the heap-based :func:`mrtune.costmodel.scheduler.simulate_schedule`
must reproduce exactly."""

from __future__ import annotations

import heapq
import math

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.job import REDUCE_RAMPUP_LIMIT, predict_job
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.scheduler import Schedule, TaskSpan


def reference_schedule(
    profile: JobProfile, config: HadoopConfig, cluster: ClusterSpec
) -> Schedule:
    """Simulate the job's tasks on ``cluster`` under ``config``."""
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    n_full, n_tail = int(pred.num_full_maps[0]), int(pred.num_tail_maps[0])
    maps = [float(pred.map_full.task_ms[0])] * n_full + [float(pred.map_tail.task_ms[0])] * n_tail
    split_sizes = [float(pred.full_split_bytes[0])] * n_full + [
        float(pred.tail_split_bytes[0])
    ] * n_tail
    order = sorted(range(len(maps)), key=lambda i: -split_sizes[i])
    n_red = int(pred.num_reducers[0])
    red_total = float(pred.reduce.task_ms[0]) if n_red else 0.0
    red_shuffle = float(pred.reduce.phase_ms["shuffle"][0]) if n_red else 0.0
    delay = cluster.heartbeat_ms + cluster.task_startup_ms
    n_maps = len(maps)
    slow_k = max(1, math.ceil(config.reduce_slowstart * n_maps)) if n_red else n_maps

    hadoop1 = config.hadoop_version == 1
    local = cluster.local_mode
    alloc = cluster.min_allocation_mb

    def rounded(mb: int) -> int:
        return int(math.ceil(mb / alloc) * alloc)

    map_mem, red_mem = rounded(config.map_container_mb), rounded(config.reduce_container_mb)
    nodes = cluster.num_nodes
    free_mem = [cluster.node_memory_mb] * nodes
    free_vc = [cluster.node_vcores] * nodes
    if not (hadoop1 or local) and cluster.am_memory_mb > 0:
        free_mem[0] -= rounded(cluster.am_memory_mb)
        free_vc[0] -= 1
    map_slots = [cluster.map_slots_per_node] * nodes
    red_slots = [cluster.reduce_slots_per_node] * nodes
    local_maps = cluster.max_concurrent_maps or 1
    local_reds = cluster.max_concurrent_reduces or 1
    total_mem = sum(free_mem)

    events: list[tuple[float, int, str, int, int]] = []  # (time, seq, kind, index, node)
    seq = 0
    pending_maps = list(order)
    pending_reds = list(range(n_red))
    running_maps = running_reds = 0
    red_mem_held = 0
    done_maps = 0
    last_map_end: float | None = None
    waiting_reds: list[tuple[int, int, float]] = []  # reducers shuffling before the last map ends
    spans: list[TaskSpan] = []

    def can_start(kind: str) -> int | None:
        if local:
            if kind == "map":
                return 0 if running_maps < local_maps else None
            return 0 if running_reds < local_reds else None
        for node in range(nodes):
            if hadoop1:
                if (map_slots if kind == "map" else red_slots)[node] > 0:
                    return node
                continue
            mem = map_mem if kind == "map" else red_mem
            vc = config.map_vcores if kind == "map" else config.reduce_vcores
            if free_mem[node] >= mem and free_vc[node] >= vc:
                return node
        return None

    def take(kind: str, node: int, sign: int) -> None:
        nonlocal running_maps, running_reds, red_mem_held
        if kind == "map":
            running_maps += sign
        else:
            running_reds += sign
        if local:
            return
        if hadoop1:
            (map_slots if kind == "map" else red_slots)[node] -= sign
            return
        mem = map_mem if kind == "map" else red_mem
        free_mem[node] -= sign * mem
        free_vc[node] -= sign * (config.map_vcores if kind == "map" else config.reduce_vcores)
        if kind == "reduce":
            red_mem_held += sign * mem

    def schedule(now: float) -> None:
        nonlocal seq
        while True:
            started = False
            reds_ok = (
                pending_reds
                and done_maps >= slow_k
                and (not local or not pending_maps and running_maps == 0)
            )
            if reds_ok and not hadoop1 and not local and pending_maps:
                reds_ok = red_mem_held + red_mem <= REDUCE_RAMPUP_LIMIT * total_mem
            if reds_ok:
                node = can_start("reduce")
                if node is not None:
                    idx = pending_reds.pop(0)
                    take("reduce", node, +1)
                    start = now + delay
                    if last_map_end is None:
                        waiting_reds.append((idx, node, start))
                    else:
                        end = start + red_total
                        spans.append(TaskSpan("reduce", idx, node, now, end, start + red_shuffle))
                        heapq.heappush(events, (end, seq, "reduce", idx, node))
                        seq += 1
                    started = True
            if not started and pending_maps:
                node = can_start("map")
                if node is not None:
                    idx = pending_maps.pop(0)
                    take("map", node, +1)
                    end = now + delay + maps[idx]
                    spans.append(TaskSpan("map", idx, node, now, end))
                    heapq.heappush(events, (end, seq, "map", idx, node))
                    seq += 1
                    started = True
            if not started:
                return

    schedule(0.0)
    while events:
        now, _, kind, idx, node = heapq.heappop(events)
        take(kind, node, -1)
        if kind == "map":
            done_maps += 1
            if done_maps == n_maps:
                last_map_end = now
                for r_idx, r_node, r_start in waiting_reds:
                    shuffle_end = max(r_start + red_shuffle, now + red_shuffle / max(n_maps, 1))
                    end = shuffle_end + (red_total - red_shuffle)
                    spans.append(
                        TaskSpan("reduce", r_idx, r_node, r_start - delay, end, shuffle_end)
                    )
                    heapq.heappush(events, (end, seq, "reduce", r_idx, r_node))
                    seq += 1
                waiting_reds.clear()
        schedule(now)

    job_ms = max((s.end_ms for s in spans), default=0.0)
    map_end = max((s.end_ms for s in spans if s.kind == "map"), default=0.0)
    gb_s = (
        sum(
            (s.end_ms - s.start_ms)
            * (config.map_container_mb if s.kind == "map" else config.reduce_container_mb)
            for s in spans
        )
        / 1024.0
        / 1000.0
    )
    total = sum(maps) + n_red * red_total
    spans.sort(key=lambda s: (s.start_ms, s.kind, s.index))
    return Schedule(
        tasks=spans,
        job_ms=job_ms,
        map_stage_end_ms=map_end,
        total_task_ms=total,
        container_gb_s=gb_s,
    )
