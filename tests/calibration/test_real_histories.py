"""Every real history calibrates within tolerance of its own phase times, or says why not.

Real local runs (unmodified Hadoop 3.5.0, ``benchmarks/results``) with map output compressed
by each codec local mode can run (DefaultCodec, GzipCodec, BZip2Codec, SnappyCodec, Lz4Codec;
ZStandardCodec needs a libhadoop built with zstd, which the pyspark jars lack), and the shared
traces (``../shared/data``: jhist, REST, Rumen) from real clusters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.calibration.profiles import load_profile_source
from mrtune.costmodel import JobProfile
from mrtune.errors import InputError
from mrtune.readers.rumen import load_rumen
from mrtune.readers.run_records import read_jsonl

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def _assert_checked(p: JobProfile) -> None:
    check = p.calibration
    assert check is not None and check.status in ("ok", "failed")
    assert check.segments
    for s in check.segments:
        assert s.ok == (abs(s.predicted_ms - s.observed_ms) <= max(0.15 * s.observed_ms, 50.0))
        assert s.ok or s.reason, s.segment
    if check.status == "failed":
        assert check.reason and "\n" not in check.summary()
    else:
        assert all(s.ok for s in check.segments)


def _codec_runs() -> list:
    out, seen = [], set()
    for name in ("runs-matrix.jsonl", "runs-codecs.jsonl"):
        for r in read_jsonl(RESULTS / name):
            ec = r.effective_conf
            if r.success and str(ec.get("mapreduce.map.output.compress")).lower() == "true":
                codec = ec["mapreduce.map.output.compress.codec"].rsplit(".", 1)[-1]
                if (r.job, codec) not in seen:
                    seen.add((r.job, codec))
                    out.append(pytest.param(r, id=f"{r.job}-{codec}"))
    return out


@pytest.mark.parametrize("rec", _codec_runs())
def test_local_runs_with_compressed_map_output_calibrate(rec, calibrated_run) -> None:  # noqa: ANN001
    p = calibrated_run(rec)
    _assert_checked(p)
    codec = p.source_properties["mapreduce.map.output.compress.codec"]
    name = {"DefaultCodec": "default", "GzipCodec": "gzip", "BZip2Codec": "bzip2"}.get(
        codec.rsplit(".", 1)[-1], codec.rsplit(".", 1)[-1].removesuffix("Codec").lower()
    )
    assert p.codecs[name].source.startswith("measured")
    # the codec's CPU is fitted with the job, so these runs reproduce their own phases
    assert p.calibration is not None and p.calibration.status == "ok", p.calibration.reason


def test_every_codec_is_covered_by_a_real_run() -> None:
    ids = {p.id.split("-", 1)[1] for p in _codec_runs()}
    assert {"DefaultCodec", "GzipCodec", "BZip2Codec", "SnappyCodec", "Lz4Codec"} <= ids


def _shared_jobs(root: Path) -> list[tuple[Path, str | None]]:
    jobs: list[tuple[Path, str | None]] = [
        (p, None) for p in sorted((root / "jhist").glob("*.jhist"))
    ]
    jobs += [(root / "rest", None), (root / "rest" / "mr-appmaster", None)]
    for f in sorted((root / "rumen").glob("*.json*")):
        jobs += [(f, h.job_id) for h in load_rumen(f)]
    return jobs


def test_shared_histories_calibrate_or_say_why(shared_data: Path) -> None:
    statuses: dict[str, str] = {}
    for path, job in _shared_jobs(shared_data):
        try:
            p = load_profile_source(path, job=job)
        except InputError as exc:  # failed / killed jobs: nothing to calibrate, said so
            assert "no successful task attempt" in str(exc) or "truncated" in str(exc)
            continue
        _assert_checked(p)
        assert p.calibration is not None
        statuses[f"{path.name}:{p.job_id}"] = p.calibration.status
    assert len(statuses) >= 60
    # the Sleep job's phases are pure fixed time: flagged, with that reason
    sleep = next(k for k in statuses if k.startswith("job_1329348432655_0001"))
    assert statuses[sleep] == "failed"
    assert statuses["2jobs2min-rumen-jh.json:job_1369942127770_1205"] == "ok"
