"""Searches on clusters that grant less than the job runs with (found by a re-audit): no
configuration fits at all → one line before any search; a job whose own -Xmx the model could
not use → no container offered for that side (a new one would keep that heap)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.calibration import load_profile_source
from mrtune.costmodel import ClusterSpec
from mrtune.errors import InputError
from mrtune.optimizer.recommend import recommend
from mrtune.profiling import profile_config
from mrtune.search_spaces import SearchSpace

CONF = """<?xml version="1.0"?>
<configuration>
  <property><name>mapreduce.map.memory.mb</name><value>1024</value></property>
  <property><name>mapreduce.map.java.opts</name><value>-Xmx1400m</value></property>
  <property><name>mapreduce.reduce.java.opts</name><value>-Xmx700m</value></property>
</configuration>
"""


def _qmc(shared_data: Path, conf: Path | None = None):  # noqa: ANN202
    jhist = next((shared_data / "jhist").glob("job_1526555215992_0001-*.jhist"))
    default_conf = shared_data / "jhist" / "job_1526555215992_0001_conf.xml"
    return load_profile_source(jhist, conf or default_conf)


@pytest.mark.parametrize("allow_memory", [False, True])
def test_a_cluster_granting_no_container_the_search_can_offer_is_refused_at_once(
    shared_data: Path, allow_memory: bool
) -> None:
    prof = _qmc(shared_data)
    tiny = ClusterSpec(
        num_nodes=4, node_memory_mb=2048, min_allocation_mb=128, max_allocation_mb=256
    )
    with pytest.raises(InputError, match="no configuration the search can offer runs"):
        recommend(prof, profile_config(prof), tiny, allow_memory=allow_memory, n_trials=4)


def test_an_unusable_own_heap_keeps_its_side_out_of_the_container_search(
    shared_data: Path, tmp_path: Path
) -> None:
    conf = tmp_path / "conf.xml"
    conf.write_text(CONF)
    prof = _qmc(shared_data, conf)
    assert any("mapreduce.map.java.opts" in w for w in prof.warnings)  # dropped as unusable
    space = SearchSpace.for_job(prof, profile_config(prof), ClusterSpec(), allow_memory=True)
    names = {k.name for k in space.knobs}
    assert "mapreduce.map.memory.mb" not in names
    assert "mapreduce.reduce.memory.mb" in names  # its -Xmx700m is read: the heap follows
