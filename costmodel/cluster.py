"""``ClusterSpec``: the machines a job runs on (YARN containers, or Hadoop 1 slots)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


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
