"""``ClusterSpec``: the machines a job runs on (YARN containers, or Hadoop 1 slots)."""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


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
    local_mode: bool = False
    spill_overlap: bool = Field(
        False,
        description="map spills run on a free core, overlapping the map function "
        "(costmodel.map_task); off by default (every core runs a task, reference §2.3)",
    )
    max_concurrent_maps: int | None = Field(None, ge=1)
    max_concurrent_reduces: int | None = Field(None, ge=1)

    @field_validator("task_startup_ms", "heartbeat_ms")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("must be a finite number of milliseconds")
        return v

    @field_validator("node_memory_mb", "node_vcores", "min_allocation_mb", "am_memory_mb")
    @classmethod
    def _node_size(cls, v: int) -> int:
        # 2^31 MB (2 PiB) or vcores: far beyond any NodeManager, and still exact in float64
        if v > 1 << 31:
            raise ValueError("larger than any YARN node (at most 2^31)")
        return v

    def check_fits(self, config: Any) -> None:
        """``ValueError`` when ``config``'s containers cannot run on this cluster's nodes.

        YARN refuses a request above the node's resources (``InvalidResourceRequestException``
        from ``SchedulerUtils.normalizeAndValidateRequest``: memory or vcores above
        ``yarn.scheduler.maximum-allocation-*``, which cannot exceed a node), so the job would
        never start; the model would otherwise quietly give it one slot.
        """
        if self.local_mode or getattr(config, "hadoop_version", 3) == 1:
            return
        for side in ("map", "reduce"):
            mb = int(getattr(config, f"{side}_container_mb"))
            vc = int(getattr(config, f"{side}_vcores"))
            if mb > self.node_memory_mb:
                raise ValueError(
                    f"a {side} container of {mb} MB does not fit on a node of "
                    f"{self.node_memory_mb} MB (yarn.nodemanager.resource.memory-mb): YARN "
                    f"refuses the request; allowed: mapreduce.{side}.memory.mb up to "
                    f"{self.node_memory_mb} (or describe the cluster with --cluster)"
                )
            if vc > self.node_vcores:
                raise ValueError(
                    f"mapreduce.{side}.cpu.vcores={vc} is more than a node's {self.node_vcores} "
                    f"vcores (yarn.nodemanager.resource.cpu-vcores): YARN refuses the request; "
                    f"allowed: 1..{self.node_vcores}"
                )

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
