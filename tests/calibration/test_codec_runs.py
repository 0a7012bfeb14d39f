"""Issue 20, Deliver 1: calibration on real local runs whose map output is compressed, one
per codec the harness has (DefaultCodec, SnappyCodec, Lz4Codec) and per job, passes its own
segment check: the codec's CPU and ratio enter the base time, which the fit must not take for
a volume (the collapse of the Rumen Hive trace)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.readers.run_records import read_jsonl

RUNS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "runs-matrix.jsonl"


def _codec_runs():
    return [
        r
        for r in read_jsonl(RUNS)
        if r.success
        and r.repeat == 0
        and r.settings.get("mapreduce.map.output.compress") == "true"
    ]


def test_every_codec_and_job_is_covered() -> None:
    runs = _codec_runs()
    codecs = {r.settings["mapreduce.map.output.compress.codec"].rsplit(".", 1)[-1] for r in runs}
    assert {"DefaultCodec", "SnappyCodec", "Lz4Codec"} <= codecs
    assert {r.job for r in runs} >= {"sort", "wordcount", "selectivity"}


@pytest.mark.parametrize("run", _codec_runs(), ids=lambda r: r.label)
def test_compressed_map_output_calibrates_within_tolerance(run, calibrated_run) -> None:  # noqa: ANN001
    check = calibrated_run(run).calibration
    assert check is not None
    assert check.status == "ok", check.summary()
    measured = [s for s in check.segments if s.observed_ms > check.floor_ms]
    assert measured, "no segment above the floor: the check would be vacuous"
