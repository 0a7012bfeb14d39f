"""Codec ratios for YARN predictions come from other runs of the same job and data."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.calibration.run_profile import (
    flat_counters,
    local_cluster,
    profile_from_run,
    run_config,
)
from mrtune.costmodel import ConfigBatch, predict_job
from mrtune.errors import InputError
from mrtune.harness.yarn_codecs import load_codec_runs, same_data_runs, with_codecs_from

MATRIX = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "runs-matrix.jsonl"


@pytest.fixture(scope="module")
def records():
    return load_codec_runs([MATRIX])


def _width(rec) -> float:
    c = flat_counters(rec.counters)
    return c["MAP_OUTPUT_BYTES"] / c["MAP_OUTPUT_RECORDS"]


def _run(records, label: str):
    return next(r for r in records if r.label == label and r.repeat == 0)


def test_same_data_runs_match_job_and_width_and_leave_the_label_out(records) -> None:
    sort = _run(records, "sort-default")
    got = same_data_runs("sort", _width(sort), records, "sort-codec-lz4")
    labels = {r.label for r in got}
    assert "sort-tuned" in labels and "sort-codec-snappy" in labels
    assert "sort-codec-lz4" not in labels
    assert all(r.job == "sort" or r.job == "selectivity" for r in got)
    # the YARN group name of WordCount is its label prefix; a different width is other data
    wc = _run(records, "wc-default")
    assert {r.job for r in same_data_runs("wc", _width(wc), records, "x")} == {"wordcount"}
    assert same_data_runs("sort", _width(sort) * 1.05, records, "x") == []


def test_ratio_from_another_label_predicts_the_compressed_run(records) -> None:
    """The default run's profile, with LZ4's ratio measured on sort-tuned (LZ4 among other
    settings), predicts sort-codec-lz4's materialized bytes; the prior misses them by far."""
    cal, target = _run(records, "sort-default"), _run(records, "sort-codec-lz4")
    base = profile_from_run(cal)
    profile, sources = with_codecs_from(base, "sort", _width(cal), records, "sort-codec-lz4")
    assert sources and not any("sort-codec-lz4" in s for s in sources)
    meas = flat_counters(target.counters)["MAP_OUTPUT_MATERIALIZED_BYTES"]

    def momb(p) -> float:
        pred = predict_job(
            p, ConfigBatch.from_configs([run_config(target)]), local_cluster(target)
        )
        return float(pred.counters["MAP_OUTPUT_MATERIALIZED_BYTES"][0])

    assert abs(momb(profile) - meas) / meas < 0.01
    assert abs(momb(base) - meas) / meas > 0.1


def test_a_bad_codec_runs_file_is_one_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_codec_runs([bad])
    assert "x.jsonl" in str(exc.value) and "--codec-runs" in str(exc.value)


def test_validate_options_for_histories_fail_in_one_line(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from mrtune.cli import app

    index = tmp_path / "runs.jsonl"
    index.write_text(json.dumps({"jhist": "x.jhist", "mode": "yarn"}) + "\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["validate", str(index), "--codec-runs", str(tmp_path / "no")])
    assert r.exit_code == 2 and "Traceback" not in r.output and "--codec-runs" in r.output
    r = CliRunner().invoke(app, ["validate", str(index), "--reduce-fixed-ms", "-1"])
    assert r.exit_code == 2 and "--reduce-fixed-ms" in r.output
