"""Codec ratios from the harness's probe counters (issue 20, ``CodecProbeCollector``).

The figures below are a real probe run's (WordCount, 2 MiB of Zipf text, one segment), whose
compressed IFile bytes equalled the compressed runs' MAP_OUTPUT_MATERIALIZED_BYTES to the byte
(tests/harness/test_codec_probe_local.py checks that on Hadoop itself).
"""

from __future__ import annotations

import pytest

from mrtune.profiling.codecs import PROBE_GROUP, codecs_from_probe, is_probe_run

PROBE = {
    "final.SEGMENTS": 1,
    "final.RECORDS": 30712,
    "final.RAW_BYTES": 443881,
    "final.Lz4Codec.COMPRESSED_BYTES": 322186,
    "final.GzipCodec.COMPRESSED_BYTES": 194034,
    "emitted.SEGMENTS": 1,
    "emitted.RECORDS": 245184,
    "emitted.RAW_BYTES": 3568192,
    "emitted.Lz4Codec.COMPRESSED_BYTES": 369639,
    "emitted.GzipCodec.COMPRESSED_BYTES": 216816,
    "ZStandardCodec.UNAVAILABLE": 1,
}


def test_ratios_net_of_the_segment_checksums() -> None:
    got = codecs_from_probe({PROBE_GROUP: PROBE}, "wc-codec-probe-r0", w := [])
    assert w == []
    assert set(got) == {"lz4", "gzip"}  # zstd did not load: left on its prior
    assert got["lz4"].ratio == pytest.approx((322186 - 4) / 443881)
    assert got["lz4"].ratio_uncombined == pytest.approx((369639 - 4) / 3568192)
    assert got["gzip"].ratio_uncombined == pytest.approx((216816 - 4) / 3568192)
    assert got["lz4"].source.startswith("measured by probe: run wc-codec-probe-r0")
    # the model's bytes: raw IFile stream × ratio + 4 B per segment gives the counter back
    assert 443881 * got["lz4"].ratio + 4 == pytest.approx(322186)


def test_no_probe_counters_no_codecs() -> None:
    assert codecs_from_probe({"other": {"x": 1}}, "r", []) == {}


def test_a_job_without_a_combiner_has_one_stage() -> None:
    final = {k: v for k, v in PROBE.items() if not k.startswith("emitted")}
    got = codecs_from_probe({PROBE_GROUP: final}, "r", [])
    assert got["lz4"].ratio_uncombined is None


def test_an_impossible_ratio_is_refused_with_a_warning() -> None:
    bad = {**PROBE, "final.Lz4Codec.COMPRESSED_BYTES": 10 * 443881}
    got = codecs_from_probe({PROBE_GROUP: bad}, "r", w := [])
    assert "lz4" not in got and "gzip" in got
    assert len(w) == 1 and "Lz4Codec" in w[0] and "outside (0, 1.5]" in w[0]


def test_probe_runs_are_recognised_by_their_setting() -> None:
    assert is_probe_run({"mrtune.codec.probe": "true"})
    assert is_probe_run({"mrtune.codec.probe": " True "})
    assert not is_probe_run({"mrtune.codec.probe": "false"})
    assert not is_probe_run({})


def test_a_skipped_emitted_stage_is_not_used() -> None:
    got = codecs_from_probe({PROBE_GROUP: {**PROBE, "emitted.SKIPPED": 1}}, "r", [])
    assert got["lz4"].ratio_uncombined is None
    assert got["lz4"].ratio == pytest.approx((322186 - 4) / 443881)


#: A probe run's timing counters (thread CPU ns of each IFile pass on stage "final").
TIMED = {
    **PROBE,
    "final.IFILE.WRITE_CPU_NS": 9_924_472,
    "final.IFILE.READ_CPU_NS": 6_627_600,
    "final.Lz4Codec.COMPRESS_CPU_NS": 28_859_829,
    "final.Lz4Codec.UNCOMPRESS_CPU_NS": 22_955_232,
    "final.GzipCodec.COMPRESS_CPU_NS": 98_599_884,
    "final.GzipCodec.UNCOMPRESS_CPU_NS": 22_676_691,
}


def test_cpu_per_byte_net_of_the_codec_less_pass() -> None:
    got = codecs_from_probe({PROBE_GROUP: TIMED}, "r", w := [])
    assert w == []
    lz4 = got["lz4"]
    assert lz4.compress_ns_per_byte == pytest.approx((28_859_829 - 9_924_472) / 443881)
    assert lz4.uncompress_ns_per_byte == pytest.approx((22_955_232 - 6_627_600) / (322186 - 4))
    assert "CPU costs measured by probe (thread CPU of Lz4Codec" in lz4.source
    assert got["gzip"].compress_ns_per_byte > lz4.compress_ns_per_byte


def test_without_timing_counters_the_cpu_stays_on_the_prior() -> None:
    from mrtune.costmodel.profile import CODEC_PRIORS

    got = codecs_from_probe({PROBE_GROUP: PROBE}, "r", [])
    assert got["lz4"].compress_ns_per_byte == CODEC_PRIORS["lz4"].compress_ns_per_byte
    assert "measured by probe (thread" not in got["lz4"].source


def test_a_codec_cheaper_than_the_codec_less_pass_costs_zero_not_less() -> None:
    fast = {**TIMED, "final.Lz4Codec.UNCOMPRESS_CPU_NS": 1_000_000}
    got = codecs_from_probe({PROBE_GROUP: fast}, "r", [])
    assert got["lz4"].uncompress_ns_per_byte == 0.0
    assert got["lz4"].compress_ns_per_byte > 0


def test_probe_cpu_needs_every_timing_counter() -> None:
    from mrtune.profiling.codecs import probe_cpu

    partial = {k: v for k, v in TIMED.items() if k != "final.IFILE.READ_CPU_NS"}
    assert probe_cpu(partial, "Lz4Codec") is None
    assert probe_cpu(TIMED, "SnappyCodec") is None
