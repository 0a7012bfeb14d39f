"""HadoopConfig: defaults, deprecated names, validation messages, JSON round trip."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile
from mrtune.costmodel.config import parse_xmx


def test_defaults_are_hadoop_3_3() -> None:
    c = HadoopConfig()
    assert (c.io_sort_mb, c.sort_spill_percent, c.io_sort_factor) == (100, 0.80, 10)
    assert (c.num_reducers, c.reduce_slowstart, c.combine_min_spills) == (1, 0.05, 3)
    assert (c.shuffle_input_buffer_percent, c.shuffle_merge_percent) == (0.70, 0.66)
    assert c.shuffle_memory_limit_percent == 0.25 and c.reduce_input_buffer_percent == 0.0
    # Hadoop 3: memory.mb unset and no -Xmx -> 1024 MB containers, -Xmx820m (reference §8.3)
    assert c.map_container_mb == 1024 and c.map_heap_bytes == 820 * 2**20
    assert c.split_size == 128 * 2**20


def test_deprecated_names_map_and_unknown_are_kept() -> None:
    c = HadoopConfig.from_properties(
        {
            "io.sort.mb": "200",
            "mapred.reduce.tasks": "7",
            "mapred.compress.map.output": "true",
            "mapred.map.output.compression.codec": "org.apache.hadoop.io.compress.SnappyCodec",
            "mapred.child.java.opts": "-Xmx2g -XX:+UseG1GC",
            "my.custom.thing": "x",
        }
    )
    assert c.io_sort_mb == 200 and c.num_reducers == 7
    assert c.map_output_compress and c.map_output_codec == "snappy"
    assert c.map_heap_bytes == 2 * 2**30
    assert c.map_container_mb == 2560  # ceil(2048 / 0.8), Hadoop 3 JobConf.getMemoryRequired
    assert c.other_properties == {"my.custom.thing": "x"}
    assert c.to_properties()["mapreduce.task.io.sort.mb"] == "200"


def test_contradictory_duplicates_are_an_error() -> None:
    with pytest.raises(ValueError, match="io.sort.mb='200' and mapreduce.task.io.sort.mb='100'"):
        HadoopConfig.from_properties({"io.sort.mb": "200", "mapreduce.task.io.sort.mb": "100"})
    # the same value twice is fine
    c = HadoopConfig.from_properties({"io.sort.mb": "200", "mapreduce.task.io.sort.mb": "200"})
    assert c.io_sort_mb == 200


@pytest.mark.parametrize(
    ("props", "field", "allowed"),
    [
        (
            {"mapreduce.map.sort.spill.percent": "1.5"},
            "sort_spill_percent",
            "less than or equal to 1",
        ),
        ({"mapreduce.task.io.sort.mb": "4096"}, "io_sort_mb", "less than or equal to 2047"),
        ({"mapreduce.task.io.sort.mb": "0"}, "io_sort_mb", "greater than or equal to 1"),
        ({"hadoop_version": "4"}, "hadoop_version", "1, 2 or 3"),
        ({"mapreduce.job.reduces": "-1"}, "num_reducers", "greater than or equal to 0"),
        ({"mapreduce.task.io.sort.factor": "1"}, "io_sort_factor", "greater than or equal to 2"),
    ],
)
def test_bad_values_name_field_and_range(props: dict, field: str, allowed: str) -> None:
    with pytest.raises(ValidationError) as info:
        HadoopConfig.from_properties(props)
    text = str(info.value)
    assert field in text
    assert allowed in text


def test_sort_buffer_must_fit_heap_and_shuffle_limits() -> None:
    with pytest.raises(ValidationError, match="below the map task heap"):
        HadoopConfig.from_properties({"mapreduce.task.io.sort.mb": "900"})  # heap 820 MB
    with pytest.raises(ValidationError, match="memory.limit.percent must be below"):
        HadoopConfig.from_properties({"mapreduce.reduce.shuffle.memory.limit.percent": "0.7"})


def test_negative_profile_sizes_rejected() -> None:
    with pytest.raises(ValidationError, match="input_bytes"):
        JobProfile(input_bytes=-5)
    with pytest.raises(ValidationError, match="map_size_sel"):
        JobProfile.model_validate({"input_bytes": 10, "stats": {"map_size_sel": -1}})


def test_json_round_trip_and_schema() -> None:
    c = HadoopConfig.from_properties({"io.sort.mb": "150", "foo": "bar"})
    assert HadoopConfig.model_validate_json(c.model_dump_json()) == c
    p = JobProfile(input_bytes=1e9, has_combiner=True, combine_class="C")
    assert JobProfile.model_validate_json(p.model_dump_json()) == p
    for model in (HadoopConfig, JobProfile, ClusterSpec):
        schema = model.model_json_schema()
        assert schema["type"] == "object" and schema["properties"]
        json.dumps(schema)


def test_parse_xmx() -> None:
    assert parse_xmx("-Xms1g -Xmx1536m") == 1536 * 2**20
    assert parse_xmx("-Xmx2G") == 2 * 2**30
    assert parse_xmx("-server") is None
