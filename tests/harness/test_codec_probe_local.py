"""Real Hadoop (local mode): the codec probe gives every codec's exact map output bytes.

Selected by ``pytest -m hadoop``. One probe run of WordCount at defaults over 2 MiB of Zipf
text, then real runs compressed with LZ4 (combiner on) and with Gzip and no combiner: each
run's MAP_OUTPUT_MATERIALIZED_BYTES must equal the probe's compressed IFile bytes of the same
stage (``final`` is the combined output, ``emitted`` the raw pairs), to the byte. The probe
also times every codec on the map thread's CPU clock: those figures must exist, be positive
and finite, and become the profile's codec CPU ("measured by probe").
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mrtune.calibration.run_profile import flat_counters, profile_from_run
from mrtune.harness.assemble import build_record
from mrtune.harness.datagen import ensure_input
from mrtune.harness.jars import find_jars
from mrtune.harness.runner import cleanup_run_dir, run_job
from mrtune.profiling.codecs import MEASURED_BY_PROBE_CPU, PROBE_CODECS, PROBE_GROUP
from mrtune.readers.run_records import RunRecord

pytestmark = pytest.mark.hadoop

COMPRESS = "mapreduce.map.output.compress"


def _run(name: str, settings: dict[str, str], inp: tuple[Path, dict], tmp: Path) -> RunRecord:
    art = run_job("wordcount", settings, inp[0], tmp / name, find_jars(), 1024, inp[1], nice=10)
    rec = build_record(art, label=name)
    cleanup_run_dir(tmp / name)
    assert rec.success, rec.error
    return rec


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunRecord]:
    inp = ensure_input("text", 2, seed=5, cache_dir=tmp_path_factory.mktemp("mrtune-cache"))
    tmp = tmp_path_factory.mktemp("runs")
    cases = {
        "probe": {"mrtune.codec.probe": "true"},
        "lz4": {COMPRESS: "true", f"{COMPRESS}.codec": "org.apache.hadoop.io.compress.Lz4Codec"},
        "nocombiner-gzip": {
            COMPRESS: "true",
            f"{COMPRESS}.codec": "org.apache.hadoop.io.compress.GzipCodec",
            "mrtune.wordcount.combiner": "false",
        },
        "cal": {},
    }
    return {k: _run(k, v, inp, tmp) for k, v in cases.items()}


def test_probe_bytes_equal_the_compressed_runs(runs: dict[str, RunRecord]) -> None:
    probe = runs["probe"].counters[PROBE_GROUP]
    lz4 = flat_counters(runs["lz4"].counters)["MAP_OUTPUT_MATERIALIZED_BYTES"]
    assert probe["final.Lz4Codec.COMPRESSED_BYTES"] == lz4
    gz = flat_counters(runs["nocombiner-gzip"].counters)["MAP_OUTPUT_MATERIALIZED_BYTES"]
    assert probe["emitted.GzipCodec.COMPRESSED_BYTES"] == gz
    # the uncompressed stream: the probe run's own materialized bytes less 4 B per segment
    J = flat_counters(runs["probe"].counters)
    assert (
        probe["final.RAW_BYTES"]
        == J["MAP_OUTPUT_MATERIALIZED_BYTES"] - 4 * probe["final.SEGMENTS"]
    )
    assert probe["emitted.RECORDS"] == J["MAP_OUTPUT_RECORDS"]


def test_profile_with_the_probe_predicts_the_compressed_bytes(runs: dict[str, RunRecord]) -> None:
    from mrtune.calibration.fidelity import build_report

    report = build_report(list(runs.values()), ["cal"])
    labels = {r.label: r for r in report.runs}
    assert "probe" not in labels  # counters only: never scored
    for label in ("lz4", "nocombiner-gzip"):
        r = labels[label]
        assert r.codec_source.startswith("measured by probe")
        got = r.predicted["MAP_OUTPUT_MATERIALIZED_BYTES"]
        want = r.measured["MAP_OUTPUT_MATERIALIZED_BYTES"]
        assert abs(got - want) <= 0.01 * want, (label, got, want)
    prof = profile_from_run(runs["cal"], calibrate=False, codec_runs=[runs["probe"]])
    assert prof.codecs["lz4"].ratio_uncombined is not None


def test_probe_cpu_figures_exist_and_are_positive(runs: dict[str, RunRecord]) -> None:
    probe = runs["probe"].counters[PROBE_GROUP]
    timed = [j for j in PROBE_CODECS if f"final.{j}.COMPRESSED_BYTES" in probe]
    assert {"DefaultCodec", "GzipCodec", "Lz4Codec", "SnappyCodec"} <= set(timed)
    assert "final.ROUNDTRIP_MISMATCH" not in probe  # every copy read back whole
    for key in ("final.IFILE.WRITE_CPU_NS", "final.IFILE.READ_CPU_NS"):
        assert 0 < probe[key] < math.inf, key
    for java in timed:
        for kind in ("COMPRESS", "UNCOMPRESS"):
            v = probe[f"final.{java}.{kind}_CPU_NS"]
            assert 0 < v < math.inf, (java, kind, v)
    # zlib does far more work per byte than the codec-less pass; so it must cost more
    assert probe["final.DefaultCodec.COMPRESS_CPU_NS"] > probe["final.IFILE.WRITE_CPU_NS"]
    prof = profile_from_run(runs["cal"], calibrate=False, codec_runs=[runs["probe"]])
    for name in ("default", "gzip", "lz4", "snappy"):
        c = prof.codecs[name]
        assert MEASURED_BY_PROBE_CPU in c.source, c.source
        assert math.isfinite(c.compress_ns_per_byte) and c.compress_ns_per_byte >= 0
        assert math.isfinite(c.uncompress_ns_per_byte) and c.uncompress_ns_per_byte >= 0
    assert prof.codecs["default"].compress_ns_per_byte > 0
