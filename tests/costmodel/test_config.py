"""HadoopConfig: defaults, deprecated names, validation messages, JSON round trip."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
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


# ----------------------------------------------------------------- Hadoop's own value parsing
@pytest.mark.parametrize("text", ["true", "TRUE", " True ", "false", "FALSE "])
def test_booleans_hadoop_reads(text: str) -> None:
    c = HadoopConfig.from_properties({"mapreduce.map.output.compress": text})
    assert c.map_output_compress is (text.strip().lower() == "true")


@pytest.mark.parametrize("text", ["1", "yes", "on", "0", "no", "off", "t"])
def test_booleans_hadoop_does_not_read_are_refused(text: str) -> None:
    """Configuration.getBoolean takes only true/false: '1' or 'yes' would run uncompressed."""
    with pytest.raises(ValidationError, match="allowed: true or false"):
        HadoopConfig.from_properties({"mapreduce.map.output.compress": text})
    with pytest.raises(ValidationError, match="mapreduce.output.fileoutputformat.compress"):
        HadoopConfig.from_properties({"mapreduce.output.fileoutputformat.compress": text})


def test_empty_boolean_is_hadoops_default() -> None:
    assert HadoopConfig.from_properties({"mapreduce.map.output.compress": " "}) == HadoopConfig()


@pytest.mark.parametrize("text", ["1_00", "100.0", "1e2", "١٠٠", "100 MB", "", "0x"])
def test_integers_hadoop_does_not_parse_are_refused(text: str) -> None:
    """Configuration.getInt is Integer.parseInt after trim (or 0x hex), nothing else."""
    with pytest.raises(ValidationError, match="not an integer Hadoop reads"):
        HadoopConfig.from_properties({"mapreduce.task.io.sort.mb": text})


def test_integers_in_hex_and_sizes_with_suffix_as_hadoop_reads_them() -> None:
    c = HadoopConfig.from_properties(
        {
            "mapreduce.task.io.sort.mb": " 0x40 ",
            "dfs.blocksize": "128m",
            "mapreduce.job.reduces": "+3",
        }
    )
    assert (c.io_sort_mb, c.dfs_blocksize, c.num_reducers) == (64, 128 * 2**20, 3)
    assert HadoopConfig.from_properties({"dfs.blocksize": "1G"}).dfs_blocksize == 2**30
    with pytest.raises(ValidationError, match="k/m/g/t/p/e"):
        HadoopConfig.from_properties({"dfs.blocksize": "128MB"})
    # getLong (split sizes) takes no suffix
    with pytest.raises(ValidationError, match="Long.parseLong"):
        HadoopConfig.from_properties({"mapreduce.input.fileinputformat.split.maxsize": "1g"})


@given(st.integers(min_value=-(2**31), max_value=2**31 - 1))
def test_hadoop_int_parsing_round_trips(n: int) -> None:
    from mrtune.costmodel.hadoop_values import hadoop_long

    assert hadoop_long(str(n), bits=32) == n
    assert hadoop_long(f" {'-' if n < 0 else ''}0x{abs(n):x} ", bits=32) == n


@given(st.text(max_size=12))
def test_hadoop_int_parsing_accepts_only_java_integers(text: str) -> None:
    import re

    from mrtune.costmodel.hadoop_values import hadoop_long

    s = text.strip()
    java_dec = re.fullmatch(r"[+-]?[0-9]+", s, re.ASCII)
    java_hex = re.fullmatch(r"-?0[xX][+-]?[0-9a-fA-F]+", s, re.ASCII)
    try:
        value = hadoop_long(text)
    except ValueError:
        return
    assert java_dec or java_hex
    assert -(2**63) <= value < 2**63


# ------------------------------------------------------- settings the model keeps but ignores
@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("mapreduce.job.maps", "FileInputFormat"),
        ("mapred.map.tasks", "split.maxsize"),
        ("num_maps_hint", "FileInputFormat"),
        ("mapreduce.reduce.merge.memtomem.enabled", "memory-to-memory merger"),
    ],
)
def test_not_modelled_properties_are_refused_with_the_reason(name: str, says: str) -> None:
    from mrtune.costmodel.config import check_property_name

    with pytest.raises(ValueError, match="not modelled") as info:
        check_property_name(name)
    assert says in str(info.value)


def test_internal_field_name_is_no_property() -> None:
    from mrtune.costmodel.config import check_property_name

    with pytest.raises(ValueError, match="not a setting the model reads"):
        check_property_name("other_properties")


def test_typo_hint_never_suggests_a_property_the_model_ignores() -> None:
    from mrtune.costmodel.config import check_property_name

    with pytest.raises(ValueError) as info:
        check_property_name("mapreduce.job.mapz")
    assert "mapreduce.job.maps" not in str(info.value)


def test_field_names_are_read_by_from_properties_too() -> None:
    """check_property_name accepts field names, so from_properties must not ignore them."""
    assert HadoopConfig.from_properties({"io_sort_mb": "200"}).io_sort_mb == 200


def test_a_heap_too_small_for_any_buffer_blames_the_heap() -> None:
    """mapreduce.map.memory.mb=1 with the ratio: no 'allowed 1..0' on io.sort.mb."""
    with pytest.raises(ValidationError) as info:
        HadoopConfig.from_properties({"mapreduce.map.memory.mb": "1"})
    text = str(info.value)
    assert "1..0" not in text
    assert "cannot hold any sort buffer" in text and "mapreduce.map.memory.mb" in text


def test_config_error_line_names_the_property_and_value() -> None:
    from mrtune.costmodel.config import config_error_line

    with pytest.raises(ValidationError) as info:
        HadoopConfig().with_changes({"mapreduce.map.cpu.vcores": "0"})
    line = config_error_line(info.value, "c.xml")
    assert line.startswith("c.xml: mapreduce.map.cpu.vcores=")
    assert "pydantic" not in line and "\n" not in line and "greater than or equal to 1" in line
