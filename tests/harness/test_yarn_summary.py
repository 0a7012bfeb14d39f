"""The YARN report's counter figures (issue 21): records equal (the goal), bytes equal and
bytes within 0.1% apart, each equal figure an integer count."""

from __future__ import annotations

import pytest

from mrtune.harness.yarn_summary import PHASES, counter_fields, summarize


def _row(meas: dict[str, float], pred: dict[str, float], calibration: bool = False) -> dict:
    return {
        "label": "x",
        "calibration": calibration,
        "measured": {**meas, "phases": {}, "job_ms": 1000.0},
        "predicted": {**pred, "phases": {}, "job_ms": 1000.0},
        **counter_fields(meas, pred),
        "waves_equal": True,
        "job_time_error": 0.0,
        "phase_errors": dict.fromkeys(PHASES, 0.0),
    }


def test_records_and_bytes_are_counted_apart_and_rounded_to_whole_counts() -> None:
    meas = {
        "MAP_INPUT_RECORDS": 100.0,
        "MAP_OUTPUT_RECORDS": 1000.0,
        "SPILLED_RECORDS": 2000.0,
        "REDUCE_INPUT_RECORDS": 500.0,
        "MAP_OUTPUT_BYTES": 10_000.0,
        "MAP_OUTPUT_MATERIALIZED_BYTES": 2_000_000.0,
        "REDUCE_SHUFFLE_BYTES": 2_000_000.0,
    }
    pred = dict(meas)
    pred["REDUCE_INPUT_RECORDS"] = 499.6  # rounds to 500: equal
    pred["SPILLED_RECORDS"] = 2003.0  # off by 3 records
    pred["MAP_OUTPUT_MATERIALIZED_BYTES"] = 1_999_999.3  # 0.7 byte short: unequal, near
    pred["REDUCE_SHUFFLE_BYTES"] = 1_990_000.0  # -0.5%: neither
    f = counter_fields(meas, pred)
    assert (f["records_equal"], f["records"]) == (3, 4)
    assert (f["bytes_equal"], f["bytes"], f["bytes_near"]) == (1, 3, 2)
    assert f["counter_misses"]["SPILLED_RECORDS"] == pytest.approx(3.0)
    s = summarize([_row(meas, pred), _row(meas, meas, calibration=True)])
    assert s["records_equal_share"] == 0.75
    assert s["bytes_equal_share"] == pytest.approx(1 / 3)
    assert s["bytes_within_0.1pct_share"] == pytest.approx(2 / 3)
    assert s["goals_met"]["records_equal_share"] is False
    assert any("SPILLED_RECORDS +0.15% (+3)" in m for m in s["counter_mismatches"])
