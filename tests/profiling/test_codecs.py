"""Codecs identified and measured (issue 20, item 2).

Every Hadoop codec class and hadoop-lzo's two are recognised with a documented prior; an
unknown class becomes the stated fast-codec prior with a warning, never zlib; the intermediate
compression ratio is measured from MAP_OUTPUT_MATERIALIZED_BYTES, or from REDUCE_SHUFFLE_BYTES
when a trace has only that, net of IFile's checksums and EOF markers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrtune.calibration.profiles import build_profile, load_profile_source
from mrtune.costmodel import HadoopConfig
from mrtune.costmodel.profile import CODEC_PRIORS
from mrtune.costmodel.properties import CODEC_CLASSES, codec_name
from mrtune.profiling.build import profiled_config
from mrtune.profiling.codecs import (
    IFILE_CHECKSUM_BYTES,
    IFILE_EOF_BYTES,
    measure_map_output_codec,
    recognise_codecs,
)
from mrtune.readers import sniff_format
from mrtune.readers.rumen import job_from_rumen

CLASSES = {
    "org.apache.hadoop.io.compress.DefaultCodec": "default",
    "org.apache.hadoop.io.compress.GzipCodec": "gzip",
    "org.apache.hadoop.io.compress.BZip2Codec": "bzip2",
    "org.apache.hadoop.io.compress.SnappyCodec": "snappy",
    "org.apache.hadoop.io.compress.Lz4Codec": "lz4",
    "org.apache.hadoop.io.compress.ZStandardCodec": "zstd",
    "com.hadoop.compression.lzo.LzoCodec": "lzo",
    "com.hadoop.compression.lzo.LzopCodec": "lzop",
}


@pytest.mark.parametrize(("cls", "name"), CLASSES.items())
def test_each_codec_class_is_recognised_with_a_documented_prior(cls: str, name: str) -> None:
    assert codec_name(cls) == name
    assert CODEC_CLASSES[name] == cls
    prior = CODEC_PRIORS[name]
    assert prior.source.startswith("prior: ") and len(prior.source) > 30
    cfg = HadoopConfig.from_properties(
        {"mapreduce.map.output.compress": "true", "mapreduce.map.output.compress.codec": cls}
    )
    assert cfg.map_output_codec == name


def test_unknown_class_gets_the_fast_codec_prior_and_a_warning_never_zlib() -> None:
    warnings: list[str] = []
    props = {
        "mapreduce.map.output.compress": "true",
        "mapreduce.map.output.compress.codec": "com.example.io.FancyCodec",
    }
    cfg = profiled_config(props, 3, warnings)
    assert cfg.map_output_codec == "unknown" != "default"
    assert any("com.example.io.FancyCodec" in w and "fast codec" in w for w in warnings)
    fast = CODEC_PRIORS["unknown"]
    assert fast.compress_ns_per_byte < CODEC_PRIORS["default"].compress_ns_per_byte / 5
    assert fast.ratio >= max(CODEC_PRIORS[c].ratio for c in ("snappy", "lz4", "lzo"))
    # the history's own properties keep the class; only the model's copy is replaced
    assert props["mapreduce.map.output.compress.codec"] == "com.example.io.FancyCodec"


def test_recognise_codecs_leaves_known_classes_alone() -> None:
    props = dict.fromkeys(("mapreduce.map.output.compress.codec",), CLASSES_LIST[0])
    assert recognise_codecs(props, w := []) == {} and w == []


CLASSES_LIST = list(CLASSES)


def _counters(ratio: float, records: float, width: float, parts: int, maps: int):  # noqa: ANN202
    raw = records * (width + 2.0) + IFILE_EOF_BYTES * parts * maps
    stored = ratio * raw + IFILE_CHECKSUM_BYTES * parts * maps
    return raw, stored


@pytest.mark.parametrize("counter", ["MAP_OUTPUT_MATERIALIZED_BYTES", "REDUCE_SHUFFLE_BYTES"])
def test_ratio_measured_net_of_ifile_overhead(counter: str) -> None:
    _, stored = _counters(0.4123, 1e6, 37.0, 16, 54)
    side = {counter: stored}
    M, R = (side, {}) if counter.startswith("MAP") else ({}, side)
    got = measure_map_output_codec("lzop", (M, R, {}), 1e6, 37.0, 16, 54, w := [])
    assert got["lzop"].ratio == pytest.approx(0.4123, rel=1e-12)
    assert got["lzop"].source.startswith(f"measured: ratio = ({counter}")
    assert got["lzop"].compress_ns_per_byte == CODEC_PRIORS["lzop"].compress_ns_per_byte
    assert w == []


def test_ratio_not_measurable_says_so() -> None:
    assert measure_map_output_codec("snappy", ({}, {}, {}), 1e6, 37.0, 1, 1, w := []) == {}
    assert "not measurable" in w[0] and "prior" in w[0]
    # a counter that cannot be a compressed size (ratio > 1.5) is rejected, with the numbers
    assert (
        measure_map_output_codec(
            "snappy", ({"MAP_OUTPUT_MATERIALIZED_BYTES": 1e12}, {}, {}), 10.0, 5.0, 1, 1, w := []
        )
        == {}
    )
    assert "outside (0, 1.5]" in w[0]


def _lzop_rumen(shared_data: Path) -> dict:
    """The shared WordCount trace as a production Rumen file writes it: ``jobProperties`` first
    (long enough that ``jobID`` is past the first 4 KiB), LzopCodec map output."""
    obj = json.loads((shared_data / "rumen" / "wordcount-rumen.json").read_text())
    props = {f"hive.some.setting.{i}": "x" * 40 for i in range(120)}
    props |= {
        "mapreduce.map.output.compress": "true",
        "mapreduce.map.output.compress.codec": "com.hadoop.compression.lzo.LzopCodec",
    }
    return {"jobProperties": props, **obj}


def test_lzop_rumen_trace_with_licence_header(shared_data: Path, tmp_path: Path) -> None:
    f = tmp_path / "hive-job.json"
    header = "/*\n * Licensed to the Apache Software Foundation (ASF) under one\n */\n"
    f.write_text(header + json.dumps(_lzop_rumen(shared_data), indent=1))
    assert f.read_text().index('"jobID"') > 4096
    assert sniff_format(f) == "rumen"
    p = load_profile_source(f)
    lzop = p.codecs["lzop"]
    assert lzop.source.startswith("measured: ratio = (REDUCE_SHUFFLE_BYTES")
    assert not any("not usable" in w and "codec" in w for w in p.warnings)
    # REDUCE_SHUFFLE_BYTES was all the trace had: half the bytes (whole bytes: a counter is a
    # long), half the ratio (net of the 4-byte checksum of each of the maps × reduces segments)
    half = _lzop_rumen(shared_data)
    for task in half["reduceTasks"]:
        for att in task["attempts"]:
            if att.get("reduceShuffleBytes", -1) > 0:
                att["reduceShuffleBytes"] //= 2
    h = job_from_rumen(half, "half")
    h_full = job_from_rumen(_lzop_rumen(shared_data), "full")
    segments = 4.0 * h.total_maps * h.total_reduces
    other = build_profile(h).codecs["lzop"].ratio
    shuffled = h.reduce_counters["REDUCE_SHUFFLE_BYTES"]
    full = h_full.reduce_counters["REDUCE_SHUFFLE_BYTES"]
    assert other / lzop.ratio == pytest.approx((shuffled - segments) / (full - segments))
    assert p.calibration is not None


def test_lzop_profile_is_priced_as_lzop_not_zlib(shared_data: Path) -> None:
    p = build_profile(job_from_rumen(_lzop_rumen(shared_data), "x"))
    assert "default" not in p.codecs and "lzop" in p.codecs
