"""A map-only job's output codec is a searched knob (issue 16).

With 0 reduces the maps write the job's output to HDFS through its OutputFormat, so
``mapreduce.output.fileoutputformat.compress`` / ``.codec`` (Hadoop 1:
``mapred.output.compress`` / ``mapred.output.compression.codec``) compress what the maps
write; the model charges the codec in the map task's write phase (HDFS bytes × ratio, compress
CPU per uncompressed byte), and the codec availability rules limit it as for any codec knob.
"""

from __future__ import annotations

import numpy as np
import pytest

from mrtune.costmodel import (
    ClusterSpec,
    CodecStats,
    ConfigBatch,
    CostFactors,
    DataflowStats,
    HadoopConfig,
    JobProfile,
    predict_job,
)
from mrtune.optimizer.recommend import recommend
from mrtune.search_spaces import SearchSpace
from mrtune.search_spaces.knobs import Role

GB = 2**30
OUT_CODEC = "mapreduce.output.fileoutputformat.compress.codec"
CLUSTER = ClusterSpec(num_nodes=4, node_memory_mb=8192, node_vcores=8)


def _map_only(**facts: object) -> JobProfile:
    return JobProfile(
        job_id="grep",
        input_bytes=8 * GB,
        map_only=True,
        stats=DataflowStats(input_pair_width=100, map_size_sel=0.8, map_pairs_sel=1.0),
        costs=CostFactors(hdfs_write=400.0),  # a slow, 3-replica write: compression pays
        codecs={
            "gzip": CodecStats(ratio=0.3, compress_ns_per_byte=20.0, uncompress_ns_per_byte=5)
        },
        cluster_facts=dict(facts),
    )


def _codec_knob(space: SearchSpace):  # noqa: ANN202
    return next(k for k in space.knobs if k.role == Role.output_codec)


def test_map_only_space_offers_the_output_codec_within_the_codec_rules() -> None:
    base = HadoopConfig(hadoop_version=2, num_reducers=0)
    space = SearchSpace.for_job(_map_only(hadoop_version="2.7.3"), base, CLUSTER)
    knob = _codec_knob(space)
    assert knob.name == OUT_CODEC
    assert "gzip" in knob.choices and "none" in knob.choices
    assert "zstd" not in knob.choices  # not shipped before 2.9.0 (HADOOP-13578)
    assert any(w.startswith("zstd") for w in space.withheld)
    h1 = SearchSpace.for_job(_map_only(), HadoopConfig(hadoop_version=1, num_reducers=0), CLUSTER)
    assert _codec_knob(h1).hadoop1_name == "mapred.output.compression.codec"
    assert not {"snappy", "lz4", "zstd"} & set(_codec_knob(h1).choices)  # 0.20


def test_the_model_charges_the_map_only_output_codec() -> None:
    """The write phase is HDFS bytes × ratio × hdfs_write plus compress CPU per byte."""
    prof = _map_only()
    plain = HadoopConfig(hadoop_version=2, num_reducers=0)
    gz = plain.with_changes(
        {
            "mapreduce.output.fileoutputformat.compress": "true",
            OUT_CODEC: "org.apache.hadoop.io.compress.GzipCodec",
        }
    )
    pred = predict_job(prof, ConfigBatch.from_configs([plain, gz]), CLUSTER)
    out_bytes = pred.counters["HDFS_BYTES_WRITTEN"]
    assert out_bytes[1] == pytest.approx(0.3 * out_bytes[0])
    write = pred.map_phase_ms["write"]
    per_map = out_bytes[0] / float(pred.num_maps[0])
    expect_plain = per_map * 400.0 / 1e6
    expect_gz = (per_map * 0.3 * 400.0 + per_map * 20.0) / 1e6
    np.testing.assert_allclose(write, [expect_plain, expect_gz], rtol=1e-9)
    assert pred.job_ms[1] < pred.job_ms[0]


def test_optimize_compresses_a_map_only_jobs_output() -> None:
    prof = _map_only(hadoop_version="2.7.3")
    base = HadoopConfig(hadoop_version=2, num_reducers=0)
    rec = recommend(prof, base, CLUSTER, strategy="exhaustive", confidence=False)
    assert rec.config.output_compress and rec.config.output_codec == "gzip"
    assert rec.properties["mapreduce.output.fileoutputformat.compress"] == "true"
