"""The in-memory merge threshold knob (issue 16, item 5).

Hadoop 1's ``ReduceCopier`` starts an in-memory merge once ``mapred.inmem.merge.threshold``
map outputs are closed in memory; Hadoop 2/3's ``MergeManagerImpl`` never reads
``mapreduce.reduce.merge.inmem.threshold`` (its in-memory merge starts on bytes only,
``closeInMemoryFile``; a real local TeraSort at threshold 5 merged nothing in memory). So the
knob is searched in Hadoop 1 mode, and a what-if of it on a Hadoop 2/3 job is refused in one
line, as every setting the job's Hadoop never reads is (it had been accepted as "no change").
"""

from __future__ import annotations

import pytest

from mrtune.costmodel import (
    ClusterSpec,
    ConfigBatch,
    DataflowStats,
    HadoopConfig,
    JobProfile,
    predict_job,
)
from mrtune.optimizer.whatif import what_if
from mrtune.search_spaces import SearchSpace, find_knob

MB = 2**20
NAME = "mapreduce.reduce.merge.inmem.threshold"
#: 400 maps of 16 MB each, one reducer: 400 small segments, which the byte trigger alone
#: merges about 40 at a time under a 2 GB heap.
JOB = JobProfile(
    job_id="many-small-maps",
    input_bytes=400 * 16 * MB,
    input_files=400,
    stats=DataflowStats(input_pair_width=100, map_size_sel=0.5, map_pairs_sel=0.5),
)
CLUSTER = ClusterSpec(num_nodes=4, node_memory_mb=8192, node_vcores=8)


def _config(version: int, threshold: int) -> HadoopConfig:
    return HadoopConfig(
        hadoop_version=version,
        num_reducers=1,
        reduce_java_opts="-Xmx2048m",
        child_java_opts="-Xmx2048m",
        dfs_blocksize=16 * MB,
        inmem_merge_threshold=threshold,
    )


def _inmem_merges(version: int, thresholds: list[int]) -> list[float]:
    batch = ConfigBatch.from_configs([_config(version, t) for t in thresholds])
    pred = predict_job(JOB, batch, CLUSTER)
    return [float(x) for x in pred.reduce.inmem_merges]


def test_hadoop1_merges_every_threshold_segments() -> None:
    merges = _inmem_merges(1, [1000, 10, 0])
    # 10 segments a merge: 400 // 10 = 40 merges; the byte trigger alone merges far fewer.
    assert merges[1] == 40.0
    assert merges[0] < merges[1]
    assert merges[2] == merges[0]  # 0 = no count limit, as in ReduceCopier


def test_hadoop3_ignores_it() -> None:
    merges = _inmem_merges(3, [1000, 10, 0])
    assert merges[0] == merges[1] == merges[2]


@pytest.mark.parametrize(("version", "searched"), [(1, True), (2, False), (3, False)])
def test_searched_in_hadoop1_mode_only(version: int, searched: bool) -> None:
    space = SearchSpace.for_job(JOB, _config(version, 1000), CLUSTER)
    assert (NAME in space.names) is searched
    knob = find_knob("mapred.inmem.merge.threshold")
    assert (knob.low, knob.high) == (10, 1000)  # Starfish's range (ParamSpaceUtils)


def test_whatif_accepts_and_writes_it_for_hadoop1() -> None:
    base = _config(1, 1000)
    out = what_if(JOB, base, CLUSTER, {"mapred.inmem.merge.threshold": "10"})
    assert out["changes"][NAME] == {"from": "1000", "to": "10"}
    assert out["what_if"]["job_ms"] != out["current"]["job_ms"]


@pytest.mark.parametrize("name", [NAME, "mapred.inmem.merge.threshold"])
def test_whatif_refuses_it_for_hadoop3(name: str) -> None:
    from mrtune.errors import InputError

    with pytest.raises(InputError, match="read by Hadoop 1 only; this job's Hadoop 3 ignores"):
        what_if(JOB, _config(3, 1000), CLUSTER, {name: "10"})
