"""An old-API history's ``mapreduce.job.maps`` is JobSubmitter's split count, not the hint.

Real YARN runs (Hadoop's mini-cluster, ``mrtune hadoop-run --mode yarn``) of Hadoop
Streaming (``-mapper cat -reducer 'uniq -c'``, the old mapred API) over one 6 MB text file,
at a 1 MiB block (6 maps) and at a 2 MiB block (3 maps): the driver's hint was
mapred-default's 2 both times, but each job's configuration says ``mapreduce.job.maps`` 6 and
3. Read back as the hint, 6 pinned the 1 MiB run's split at input / 6 whatever the block, so
a what-if of the 2 MiB block kept 6 maps where Hadoop ran 3.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.costmodel import ClusterSpec, HadoopConfig
from mrtune.optimizer.whatif import what_if
from mrtune.profiling.baseline import profile_config
from mrtune.profiling.old_api_hint import old_api_maps, old_api_maps_hint

RUNS = Path(__file__).parent / "fixtures" / "streaming-yarn-blocks"
MIB = 1 << 20


def _profile(run: str):
    from mrtune.calibration.profiles import load_profile_source

    return load_profile_source(next((RUNS / run).glob("*.jhist.gz")))


@pytest.mark.parametrize(
    ("run", "maps", "other", "other_maps"), [("b1", 6, 2, 3), ("b2", 3, 1, 6)]
)
def test_a_block_change_gives_the_maps_hadoop_ran(
    run: str, maps: int, other: int, other_maps: int
) -> None:
    p = _profile(run)
    assert p.old_api_splits and p.source_properties["mapreduce.job.maps"] == str(maps)
    assert p.cluster_facts["old_api_maps_hint"] == 2.0
    assert "split count JobSubmitter wrote" in p.provenance["cluster_facts.old_api_maps_hint"]
    cfg = profile_config(p)
    assert cfg.num_maps_hint == 2
    out = what_if(p, cfg, ClusterSpec(), {"dfs.blocksize": str(other * MIB)})
    assert out["current"]["num_maps"] == maps
    assert out["what_if"]["num_maps"] == other_maps  # the other run's, as Hadoop cut it


def test_a_driver_that_asked_for_more_maps_keeps_its_count() -> None:
    """12 maps of a 6 MiB file in 1 MiB blocks: the default hint gives 6, so the driver
    asked for about 12; a run the default explains gets the default."""
    props = {"mapred.mapper.new-api": "false"}
    cfg = HadoopConfig(**{"dfs.blocksize": MIB, "mapreduce.job.maps": 12})
    assert old_api_maps(6.0 * MIB, 1, 2, cfg) == 6
    assert old_api_maps_hint(props, cfg, 6.0 * MIB, 1, 12)[0] == 12
    assert old_api_maps_hint(props, cfg, 6.0 * MIB, 1, 6)[0] == 2
    assert old_api_maps_hint({}, cfg, 6.0 * MIB, 1, 6) is None  # the new API reads no hint
