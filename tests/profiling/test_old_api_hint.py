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
from mrtune.profiling.old_api_hint import old_api_maps_hint

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


def test_the_hint_is_read_off_the_bytes_the_maps_read() -> None:
    """Maps of 1 MiB (a little more: the line a reader finishes) in 1 MiB blocks are the
    default hint's splits; twelve half-MiB maps of a 6 MiB file are a driver's 12; a 3.5 and a
    0.5 MiB file give 5 maps under the default (4 + 1), which equal files would not."""
    props = {"mapred.mapper.new-api": "false"}
    cfg = HadoopConfig(**{"dfs.blocksize": MIB, "mapreduce.job.maps": 6})
    b1 = [1_052_757.0] * 5 + [757_201.0]
    assert old_api_maps_hint(props, cfg, 6.0 * MIB, b1, 1)[0] == 2
    twelve = cfg.model_copy(update={"num_maps_hint": 12})
    assert old_api_maps_hint(props, twelve, 6.0 * MIB, [MIB / 2] * 12, 1)[0] == 12
    five = cfg.model_copy(update={"num_maps_hint": 5})
    unequal = [MIB, MIB, MIB, MIB / 2, MIB / 2]
    assert old_api_maps_hint(props, five, 4.0 * MIB, unequal, 2)[0] == 2
    assert old_api_maps_hint(props, five, 4.0 * MIB, unequal, None)[0] == 2
    # many small files, each one map, are the default's too; one map of a whole file is not
    small = cfg.model_copy(update={"num_maps_hint": 40, "dfs_blocksize": 128 * MIB})
    assert old_api_maps_hint(props, small, 40.0 * MIB, [MIB] * 40, 40)[0] == 2
    one = cfg.model_copy(update={"num_maps_hint": 1})
    assert old_api_maps_hint(props, one, 0.5 * MIB, [MIB / 2], 1)[0] == 1
    assert old_api_maps_hint({}, cfg, 6.0 * MIB, b1, 1) is None  # the new API reads no hint
