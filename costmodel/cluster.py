"""``ClusterSpec``: the machines a job runs on (YARN containers, or Hadoop 1 slots)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, field_validator

from mrtune.costmodel.profile import CostFactors

MB = float(2**20)

#: Documented priors of the cluster-scale cost terms on a YARN cluster (issue 20), for a
#: history that cannot separate them. Figures from Ceesay et al.'s 8-node Hadoop 3.0.2 cluster
#: (the generic benchmark, 100-byte records; per-phase medians over 190 configurations, as
#: analysed in issue 20) unless stated.
YARN_COST_PRIORS: dict[str, float] = {
    # container launch + JVM start + task commit (the StartContainers → first status gap of a
    # NodeManager on HDD nodes); CostFactors' own default
    "task_overhead_ms": 1000.0,
    # the read phase's intercept: ~160 ms per task at any split size
    "read_fixed_ms": 160.0,
    # ~300 ms per spill beyond its bytes (a new spill file and its index, the SpillThread
    # hand-off and, in a fresh JVM, the sort code's first compilation)
    "spill_file_ns": 300e6,
    # one ShuffleHandler request per map output: the index lookup, a seek in file.out on a
    # 7200-rpm disk (~8 ms) and a LAN round trip
    "fetch_ns": 10e6,
    # a 0.5–0.7 s floor per reduce: Fetcher start-up and the EventFetcher's first poll
    "shuffle_floor_ms": 600.0,
    # a merge's heap compares keys with the same RawComparator as the spill's sort
    "merge_cmp_cpu": 30.0,
    # a reduce's merge (sort) phase with next to nothing to merge: the SORT status update,
    # finalMerge's new local file and the merge code's first run in a fresh JVM. Measured on
    # this project's YARN mini-cluster (round 3, WordCount and postings: 132–219 ms over the
    # model's merge at 1 reduce) and on the shared histories (the Hadoop 2 Sleep job: 55 ms,
    # the Hadoop 1 WordCount Rumen trace: 184 ms); capped by each history's own merge phases
    "merge_floor_ms": 200.0,
    # Task.commit: commitPending, then canCommit polled with Thread.sleep(1000) until the AM's
    # dispatcher grants it; the first poll, made at once, usually loses that race, so a reduce
    # waits one interval; capped by the reduce phases
    "commit_ms": 1000.0,
}
#: LocalJobRunner: tasks are threads of one JVM (no container, no JVM start), the "shuffle" is
#: a local file copy, and the other terms keep CostFactors' (local-mode) defaults.
LOCAL_COST_PRIORS: dict[str, float] = {"task_overhead_ms": 0.0}


class ClusterSpec(BaseModel):
    """A virtual cluster for the job-level model (reference §6).

    Under YARN (Hadoop 2/3) a node runs as many containers as its memory and vcores allow
    (``yarn.nodemanager.resource.*``, containers rounded up to ``min_allocation_mb``); under
    Hadoop 1 it has fixed map and reduce slots. ``local_mode`` describes Hadoop's
    ``LocalJobRunner``: one JVM, ``max_concurrent_maps`` maps and ``max_concurrent_reduces``
    reduces at a time, reduces only after every map, a local-file shuffle.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    num_nodes: int = Field(1, ge=1, le=100_000)
    node_memory_mb: int = Field(8192, ge=256, description="yarn.nodemanager.resource.memory-mb")
    node_vcores: int = Field(8, ge=1, description="yarn.nodemanager.resource.cpu-vcores")
    min_allocation_mb: int = Field(1024, ge=1, description="yarn.scheduler.minimum-allocation-mb")
    am_memory_mb: int = Field(1536, ge=0, description="yarn.app.mapreduce.am.resource.mb")
    max_allocation_mb: int | None = Field(
        None,
        ge=1,
        description="yarn.scheduler.maximum-allocation-mb: the largest container the "
        "ResourceManager grants (None: the node's memory)",
    )
    map_slots_per_node: int = Field(2, ge=1, description="Hadoop 1 map slots per TaskTracker")
    reduce_slots_per_node: int = Field(
        2, ge=1, description="Hadoop 1 reduce slots per TaskTracker"
    )
    task_startup_ms: float = Field(
        0.0,
        ge=0,
        description="extra delay per task on this cluster (ms), on top of the profile's "
        "task_overhead_ms (which already holds container launch and JVM start)",
    )
    heartbeat_ms: float = Field(
        0.0, ge=0, description="scheduling delay before each task starts (Starfish: 1500 ms)"
    )
    node_cores: float | None = Field(
        None,
        gt=0,
        le=1 << 20,
        description="physical cores a node's containers share (None: no CPU contention term, "
        "the YARN vcores are cores). A mini-cluster's NodeManagers share one host: its cores "
        "divided by the NodeManagers (issue 21)",
    )
    container_cores: float = Field(
        1.0,
        ge=1.0,
        le=1 << 20,
        description="cores one container keeps busy while it runs beside no other (its task "
        "thread plus the JVM's JIT compiler and GC threads: a container's start can use every "
        "core of a small host); with node_cores, the CPU contention term (issue 21)",
    )
    reduce_ramp_ms: float = Field(
        0.0,
        ge=0,
        description="YARN: slow-start met (or a container freed) to the reduce container's "
        "launch: RMContainerAllocator asks at its next heartbeat, the scheduler allocates at a "
        "NodeManager heartbeat, the AM picks it up at the next one (~3 heartbeats, issue 21)",
    )
    reduce_fixed_ms: float = Field(
        0.0,
        ge=0,
        description="YARN: wall time every reduce attempt spends after its merge whatever its "
        "input: DFSOutputStream create and close (the replication pipeline's set-up and last "
        "acks), FileOutputCommitter's task commit and the umbilical round trips "
        "(Task.commit, Task.done). Not CPU, so not stretched by contention; 0: no such term "
        "(issue 21, measured on other runs: benchmarks/yarn_rank_study.py)",
    )
    local_mode: bool = False
    spill_overlap: bool = Field(
        True,
        description="map spills run in Hadoop's SpillThread, overlapping the map function, "
        "and the map thread stalls (booked as collect) only when the buffer's headroom fills "
        "during a running spill (costmodel.map_task); on for every cluster type (issue 20). "
        "False: serial phases, the reference's §2.3 assumption",
    )
    replication: int = Field(3, ge=1, le=512, description="dfs.replication of the input files")
    block_size_mb: float = Field(
        128.0,
        gt=0,
        le=2**20,
        description="HDFS block size of the input files as written (the job's own "
        "dfs.blocksize applies to its output only); Hadoop 2/3's default 128 MB",
    )
    max_concurrent_maps: int | None = Field(None, ge=1)
    max_concurrent_reduces: int | None = Field(None, ge=1)

    @field_validator("task_startup_ms", "heartbeat_ms", "reduce_ramp_ms", "reduce_fixed_ms")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("must be a finite number of milliseconds")
        return v

    @field_validator(
        "node_memory_mb", "node_vcores", "min_allocation_mb", "am_memory_mb", "max_allocation_mb"
    )
    @classmethod
    def _node_size(cls, v: int | None) -> int | None:
        # 2^31 MB (2 PiB) or vcores: far beyond any NodeManager, and still exact in float64
        if v is not None and v > 1 << 31:
            raise ValueError("larger than any YARN node (at most 2^31)")
        return v

    def container_limit_mb(self) -> int:
        """The largest task container that can run on this cluster (MB).

        Not above ``yarn.scheduler.maximum-allocation-mb`` (the ResourceManager refuses a
        larger request: ``SchedulerUtils.normalizeAndValidateRequest``) nor a node's memory;
        on a one-node cluster not above what the MRAppMaster's container leaves of the node
        either: the AM holds its container for the whole job, so a task that does not fit
        beside it waits forever (the job hangs, it does not fail)."""
        limit = self.node_memory_mb
        if self.max_allocation_mb is not None:
            limit = min(limit, self.max_allocation_mb)
        if self.num_nodes == 1 and self.am_memory_mb > 0 and not self.local_mode:
            alloc = max(self.min_allocation_mb, 1)
            am = -(-self.am_memory_mb // alloc) * alloc
            limit = min(limit, self.node_memory_mb - am)
        return max(limit, 0)

    def container_limit_reason(self) -> str:
        """Which limit :meth:`container_limit_mb` is, in Hadoop's words."""
        limit = self.container_limit_mb()
        if self.max_allocation_mb is not None and limit == self.max_allocation_mb:
            return f"yarn.scheduler.maximum-allocation-mb = {self.max_allocation_mb}: YARN refuses"
        if limit < min(self.node_memory_mb, self.max_allocation_mb or self.node_memory_mb):
            return (
                f"the one {self.node_memory_mb} MB node also holds the "
                f"{self.am_memory_mb} MB MRAppMaster: the task would wait forever"
            )
        return (
            f"a node has {self.node_memory_mb} MB (yarn.nodemanager.resource.memory-mb): YARN "
            "refuses"
        )

    def check_fits(self, config: Any) -> None:
        """``ValueError`` when ``config``'s containers cannot run on this cluster's nodes.

        YARN refuses a request above the node's resources (``InvalidResourceRequestException``
        from ``SchedulerUtils.normalizeAndValidateRequest``: memory or vcores above
        ``yarn.scheduler.maximum-allocation-*``, which cannot exceed a node), so the job would
        never start; a task that fits no node beside the AM never starts either
        (:meth:`container_limit_mb`). The model would otherwise quietly give it one slot.
        """
        if self.local_mode or getattr(config, "hadoop_version", 3) == 1:
            return
        limit = self.container_limit_mb()
        if limit < self.min_allocation_mb:
            raise ValueError(
                f"no task container fits on this cluster: the one {self.node_memory_mb} MB node "
                f"holds the {self.am_memory_mb} MB MRAppMaster (yarn.app.mapreduce.am.resource.mb,"
                f" in units of {self.min_allocation_mb} MB) and nothing else; allowed: more "
                "nodes or memory (--nodes, --cluster), or a smaller AM container"
            )
        for side in ("map", "reduce"):
            mb = int(getattr(config, f"{side}_container_mb"))
            vc = int(getattr(config, f"{side}_vcores"))
            if mb > limit:
                raise ValueError(
                    f"a {side} container of {mb} MB cannot run: "
                    f"{self.container_limit_reason()}; allowed: mapreduce.{side}.memory.mb up "
                    f"to {limit} (or describe the cluster with --cluster)"
                )
            if vc > self.node_vcores:
                raise ValueError(
                    f"mapreduce.{side}.cpu.vcores={vc} is more than a node's {self.node_vcores} "
                    f"vcores (yarn.nodemanager.resource.cpu-vcores): YARN refuses the request; "
                    f"allowed: 1..{self.node_vcores}"
                )

    def local_block_share(self) -> float:
        """Share of a split's non-first blocks with a replica on the map's node.

        The scheduler places a map on a node holding its split's first block (node-local,
        ``FileInputFormat.getSplitHosts``); ``BlockPlacementPolicyDefault`` spreads each later
        block's ``replication`` replicas over the cluster, so another block is on that node
        with probability ``min(1, replication / nodes)``. LocalJobRunner reads local files.
        """
        if self.local_mode:
            return 1.0
        return min(1.0, self.replication / self.num_nodes)

    def remote_read_bytes(self, split_bytes: NDArray[np.float64]) -> NDArray[np.float64] | float:
        """Bytes of each split read from a remote DataNode (issue 20, data locality): its
        bytes beyond the first block times the share of blocks without a local replica."""
        remote = 1.0 - self.local_block_share()
        if remote <= 0.0:
            return 0.0
        beyond = np.maximum(
            np.asarray(split_bytes, dtype=np.float64) - self.block_size_mb * MB, 0.0
        )
        return beyond * remote

    @property
    def stretches(self) -> bool:
        """Whether :meth:`cpu_stretch` can be above 1: the cluster states its cores and is not
        local mode (else every task runs at its own speed, and the model skips the term)."""
        return self.node_cores is not None and not self.local_mode

    def cpu_stretch(self, containers: NDArray[np.float64] | float) -> NDArray[np.float64] | float:
        """How much longer a task takes when ``containers`` run at once on the cluster's cores.

        A container's work (JVM start, class loading, the map and sort CPU) is CPU time; once
        more containers run than the nodes have cores, the kernel shares the cores among them
        and each task's elapsed time stretches by ``containers × container_cores / cores``
        (balanced nodes; a container alone is never stretched: container_cores ≤ cores).
        YARN packs by memory (DefaultResourceCalculator) or vcores, neither of which is the
        host's cores: a mini-cluster's NodeManagers all run on one machine. 1 without
        ``node_cores`` and in local mode (its threads are timed as they ran)."""
        if not self.stretches:
            return 1.0
        cores = self.num_nodes * self.node_cores
        busy = min(self.container_cores, cores)
        return np.maximum(1.0, np.asarray(containers, dtype=np.float64) * busy / cores)

    def cost_priors(self, base: CostFactors | None = None) -> CostFactors:
        """``base`` (default: CostFactors' defaults) with this cluster type's documented priors
        of the fixed costs (:data:`YARN_COST_PRIORS`, :data:`LOCAL_COST_PRIORS`): what a
        calibration keeps for a term its history cannot separate."""
        base = base or CostFactors()
        priors = LOCAL_COST_PRIORS if self.local_mode else YARN_COST_PRIORS
        return base.model_copy(update=priors)

    @classmethod
    def local(cls, maps: int = 1, reduces: int = 1) -> ClusterSpec:
        """Hadoop's LocalJobRunner (``mapreduce.local.{map,reduce}.tasks.maximum``).

        One task at a time on a multi-core host leaves the map's spill thread a core of its
        own: ``spill_overlap`` is on.
        """
        return cls(
            num_nodes=1,
            local_mode=True,
            spill_overlap=True,
            max_concurrent_maps=maps,
            max_concurrent_reduces=reduces,
            task_startup_ms=0.0,
            am_memory_mb=0,
        )
