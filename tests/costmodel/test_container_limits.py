"""The largest container a cluster runs: the node, yarn.scheduler.maximum-allocation-mb, and
on one node what the MRAppMaster leaves (a recommendation must never ask for more)."""

from __future__ import annotations

import pytest

from mrtune.costmodel import ClusterSpec, HadoopConfig
from optimizer.lint_memory import container_node


def _cfg(map_mb: int, reduce_mb: int = 1024) -> HadoopConfig:
    return HadoopConfig.from_properties(
        {"mapreduce.map.memory.mb": map_mb, "mapreduce.reduce.memory.mb": reduce_mb}
    )


def test_the_maximum_allocation_caps_a_container_below_the_node() -> None:
    """yarn.scheduler.maximum-allocation-mb 1024 on 2048 MB nodes: YARN refuses 2048."""
    spec = ClusterSpec(num_nodes=4, node_memory_mb=2048, max_allocation_mb=1024)
    assert spec.container_limit_mb() == 1024
    spec.check_fits(_cfg(1024))
    with pytest.raises(ValueError, match="maximum-allocation-mb = 1024: YARN refuses"):
        spec.check_fits(_cfg(2048))


def test_one_node_keeps_room_for_the_application_master() -> None:
    """A 4096 MB node holding a 1536 MB AM (rounded to 512 MB units) runs tasks of at most
    2560 MB: a 3072 MB reduce would wait forever."""
    spec = ClusterSpec(num_nodes=1, node_memory_mb=4096, min_allocation_mb=512, am_memory_mb=1536)
    assert spec.container_limit_mb() == 2560
    with pytest.raises(ValueError, match="MRAppMaster: the task would wait forever"):
        spec.check_fits(_cfg(1024, reduce_mb=3072))
    # more nodes: the AM sits on one, a task runs on another
    assert spec.model_copy(update={"num_nodes": 2}).container_limit_mb() == 4096
    # the AM's request is rounded up to the scheduler's unit (1536 → 2048 at 1024 MB)
    coarse = spec.model_copy(update={"min_allocation_mb": 1024})
    assert coarse.container_limit_mb() == 2048


def test_the_lint_names_the_limit_it_breaks() -> None:
    spec = ClusterSpec(num_nodes=1, node_memory_mb=4096, min_allocation_mb=512, am_memory_mb=1536)
    found = {f.property: f for f in container_node(_cfg(1024, reduce_mb=3072), spec)}
    bad = found["mapreduce.reduce.memory.mb"]
    assert bad.severity.name == "ERROR" and "MRAppMaster" in bad.message
    assert found["mapreduce.map.memory.mb"].severity.name != "ERROR"


def test_local_mode_and_no_limit_stated_keep_the_node() -> None:
    assert ClusterSpec(num_nodes=3, node_memory_mb=8192).container_limit_mb() == 8192
    assert ClusterSpec.local().container_limit_mb() == ClusterSpec.local().node_memory_mb
