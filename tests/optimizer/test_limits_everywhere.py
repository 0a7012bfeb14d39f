"""Issue 14's limits on the paths besides ``optimize`` and ``batch`` (the audit of item 3 of the
lead's follow-up): the workflow tuner's candidates, diagnose's priced fixes.

Before: the workflow grid offered ``io.sort.mb`` 800 in an 819 MB heap, SnappyCodec on a
cluster with no native library, and reducers at 3× the capacity for a 3.6 MB shuffle."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mrtune.costmodel import ClusterSpec, DataflowStats, HadoopConfig, JobProfile
from mrtune.costmodel.config import MB
from mrtune.optimizer.workflow_candidates import candidate_configs
from mrtune.optimizer.workflow_tuning import tune_workflow
from mrtune.readers.workflow_file import load_workflow
from mrtune.search_spaces import SearchSpace
from mrtune.search_spaces.constraints import (
    SORT_BUFFER_HEAP_SHARE,
    map_output_bytes,
    max_reducers_for,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "mrtune" / "examples" / "workflows"
NATIVE_BEFORE_331 = {"snappy", "lz4", "zstd"}


def small_job(**facts: object) -> JobProfile:
    """3.6 MB of input (one reducer's worth of shuffle) on a Hadoop 3 cluster."""
    return JobProfile(
        job_id="small",
        input_bytes=3.6e6,
        input_files=1,
        stats=DataflowStats(input_pair_width=100, map_size_sel=1.0, map_pairs_sel=1.0),
        cluster_facts=dict(facts),
    )


def test_workflow_candidates_keep_optimizes_limits() -> None:
    base = HadoopConfig(num_reducers=1)
    space = SearchSpace.for_job(small_job(), base, ClusterSpec(num_nodes=60))
    grid = candidate_configs(base, reduce_capacity=120, map_only=False, space=space)
    assert grid
    cap = np.floor(SORT_BUFFER_HEAP_SHARE * base.map_heap_bytes / MB)
    assert all(c.io_sort_mb <= cap for c in grid)
    most = max_reducers_for(map_output_bytes(small_job()))
    assert all(c.num_reducers <= most for c in grid)  # not 3 × 120 for 3.6 MB
    codecs = {c.map_output_codec for c in grid if c.map_output_compress}
    assert codecs and not codecs & NATIVE_BEFORE_331  # a pure-Java codec instead
    # the same grid on a cluster that states its native library offers Snappy again
    native = SearchSpace.for_job(small_job(native_codecs=1.0), base, ClusterSpec(num_nodes=60))
    flagged = candidate_configs(base, reduce_capacity=120, map_only=False, space=native)
    assert "snappy" in {c.map_output_codec for c in flagged if c.map_output_compress}


def test_workflow_tuning_picks_only_configurations_within_the_limits() -> None:
    spec = load_workflow(EXAMPLES / "concurrent3.yaml")
    t = tune_workflow(spec, order="best")
    for name, job in t.tuned.jobs.items():
        props = job.properties
        heap = HadoopConfig.from_properties(props).map_heap_bytes / MB
        sort_mb = int(props.get("mapreduce.task.io.sort.mb", 100))
        now = int(t.current.jobs[name].properties.get("mapreduce.task.io.sort.mb", 100))
        assert sort_mb <= max(np.floor(SORT_BUFFER_HEAP_SHARE * heap), now), name
        if props.get("mapreduce.map.output.compress") == "true":
            codec = props["mapreduce.map.output.compress.codec"].rsplit(".", 1)[-1].lower()
            assert not any(n in codec for n in NATIVE_BEFORE_331), (name, codec)


def test_diagnose_prices_the_in_region_step_of_a_far_fix() -> None:
    """A finding fixed by the split size, on the job whose optimum is a far split move
    (tests/optimizer/test_trust_region.py): the price is that of the step inside the trust
    region, the far value named in its note, as optimize would write it."""
    from mrtune.diagnose._core import Finding, JobView, Severity
    from mrtune.diagnose.price import price_findings
    from tests.optimizer.test_trust_region import BASE, CLUSTER, MIB, REPROFILE, SPLIT, tiny_splits

    view = JobView(
        source="test", job_id="tiny-splits", profile=tiny_splits(), config=BASE, cluster=CLUSTER
    )
    f = Finding(
        "map_time", "Mapper time", "map", Severity.SEVERE, "short maps", fix_knobs=(SPLIT,)
    )
    price_findings(view, [f], resamples=0)
    assert f.price is not None and f.price.saving > 0
    fixed = HadoopConfig.from_properties({**BASE.to_properties(), **f.price.settings})
    assert 4 * MIB < fixed.split_size <= 16 * MIB  # not the far 24 MiB optimum
    assert REPROFILE in f.price.note
