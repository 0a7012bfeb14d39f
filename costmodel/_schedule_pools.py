"""Free containers per node for :mod:`mrtune.costmodel.scheduler` (reference §6.2).

YARN nodes (memory and vcores, ``CapacityScheduler``-style first fit from node 0), Hadoop 1
TaskTracker slots, and ``LocalJobRunner``'s fixed concurrency. Each keeps, per task kind, a heap
of the nodes that can take one more container so that a start or a finish costs O(log nodes).
"""

from __future__ import annotations

import heapq
import math

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.job import REDUCE_RAMPUP_LIMIT

MAP, REDUCE = 0, 1
KIND_NAMES = ("map", "reduce")


class YarnPool:
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


class SlotPool(YarnPool):
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


class LocalPool:
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


def make_pool(
    config: HadoopConfig, cluster: ClusterSpec
) -> tuple[YarnPool | LocalPool, int, float]:
    """The cluster's resources, the memory one reducer holds against the ramp-up limit, and
    that limit (YARN only: Hadoop 1 slots and local mode have none)."""
    if cluster.local_mode:
        return LocalPool(cluster), 0, math.inf
    nodes = cluster.num_nodes
    if config.hadoop_version == 1:
        pool: YarnPool = SlotPool(nodes, cluster)
        pool.build()
        return pool, 0, math.inf
    alloc = cluster.min_allocation_mb

    def rounded(mb: int) -> int:
        return int(math.ceil(mb / alloc) * alloc)

    mem = (rounded(config.map_container_mb), rounded(config.reduce_container_mb))
    pool = YarnPool(nodes, mem, (config.map_vcores, config.reduce_vcores), cluster)
    if cluster.am_memory_mb > 0:
        pool.free_mem[0] -= rounded(cluster.am_memory_mb)
        pool.free_vc[0] -= 1
    pool.build()
    return pool, mem[REDUCE], REDUCE_RAMPUP_LIMIT * sum(pool.free_mem)
