"""Repeats in the YARN report (:mod:`mrtune.harness.yarn_repeats`): the calibration repeat,
the medians, the flagged disagreements, and the noise ceiling a perfect model meets."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from mrtune.harness.yarn_repeats import (
    by_label,
    combine,
    disagreements,
    median_repeat,
    noise_ceiling,
    noise_sigma,
    parse_calibration,
    spread,
)


@dataclass
class _Run:
    label: str
    repeat: int
    ms: float


def test_calibration_spec_names_a_label_and_maybe_a_repeat() -> None:
    assert parse_calibration("sort-default") == ("sort-default", None)
    assert parse_calibration("sort-default:2") == ("sort-default", 2)
    assert parse_calibration("odd:label") == ("odd:label", None)


def test_the_median_repeat_calibrates_and_labels_keep_their_order() -> None:
    runs = [_Run("b", 1, 9.0), _Run("a", 0, 5.0), _Run("b", 0, 7.0), _Run("b", 2, 8.0)]
    grouped = by_label(runs)
    assert list(grouped) == ["b", "a"]
    assert [r.repeat for r in grouped["b"]] == [0, 1, 2]
    assert median_repeat(grouped["b"], lambda r: r.ms).repeat == 2
    two = [_Run("c", 0, 4.0), _Run("c", 1, 3.0)]
    assert median_repeat(two, lambda r: r.ms).repeat == 1  # of two: the faster


def _meas(job_ms: float, spilled: float = 10.0, waves: int = 2) -> dict:
    return {
        "SPILLED_RECORDS": spilled,
        "map_waves": waves,
        "num_maps": 6,
        "job_ms": job_ms,
        "am_setup_ms": job_ms / 10,
        "phases": {"map_task": job_ms / 2, "merge": math.nan},
        "container_start": {"map_jvm_ms": job_ms / 100},
    }


def test_times_are_medians_counters_the_first_repeats_and_disagreements_flagged() -> None:
    each = [_meas(30.0, spilled=10.0), _meas(10.0, spilled=11.0), _meas(20.0)]
    m = combine(each)
    assert m["job_ms"] == 20.0 and m["am_setup_ms"] == 2.0
    assert m["phases"]["map_task"] == 10.0 and math.isnan(m["phases"]["merge"])
    assert m["container_start"] == {"map_jvm_ms": 0.2}
    assert m["SPILLED_RECORDS"] == 10.0 and m["repeat_job_ms"] == [30.0, 10.0, 20.0]
    assert disagreements(each) == {"SPILLED_RECORDS": [10.0, 11.0, 10.0]}
    assert disagreements([_meas(1.0), _meas(2.0)]) == {}
    assert spread([30.0, 10.0, 20.0]) == pytest.approx(1.0) and spread([5.0]) == 0.0


def _rows(times: dict[str, list[float]], predicted: dict[str, float]) -> list[dict]:
    """Report rows of one job: d is the default label, its repeat 0 the calibration run."""
    rows = [
        {
            "label": "d",
            "job": "j",
            "calibration": True,
            "measured": {"repeat_job_ms": times["d"][:1]},
            "predicted": {"job_ms": times["d"][0]},
        },
        {
            "label": "d",
            "job": "j",
            "calibration": False,
            "measured": {"repeat_job_ms": times["d"][1:]},
            "predicted": {"job_ms": times["d"][0]},
        },
    ]
    for k, v in times.items():
        if k != "d":
            rows.append(
                {
                    "label": k,
                    "job": "j",
                    "calibration": False,
                    "measured": {"repeat_job_ms": v},
                    "predicted": {"job_ms": predicted[k]},
                }
            )
    return rows


def test_the_pooled_noise_and_the_ceiling_it_sets() -> None:
    times = {
        "d": [100.0, 110.0, 90.0],
        "a": [200.0, 220.0, 180.0],
        "b": [300.0, 330.0, 270.0],
        "c": [400.0, 440.0, 360.0],
        "e": [500.0, 550.0, 450.0],
    }
    sigma, labels = noise_sigma(_rows(times, {k: v[0] for k, v in times.items()}))
    logs = [math.log(x) for x in (100.0, 110.0, 90.0)]
    mean = sum(logs) / 3
    assert labels == 5
    assert sigma == pytest.approx(math.sqrt(sum((x - mean) ** 2 for x in logs) / 2))
    pred = {k: v[0] for k, v in times.items()}
    c = noise_ceiling(_rows(times, pred), draws=2000)
    assert c["labels_with_repeats"] == 5
    # every repeat keeps the settings' order: one repeat ranks another perfectly
    assert c["spearman_repeat_vs_repeat"] == pytest.approx(1.0)
    perfect = c["perfect_model_on_measured_medians"]
    # settings 2x apart under ~10% noise: the order survives, the errors are the noise's
    assert perfect["spearman"]["median"] == pytest.approx(1.0)
    assert perfect["job_time_median_error"] > 0.0
    assert perfect["job_time_median_error"] < 0.15
    assert perfect["job_time_p90_error"] >= perfect["job_time_median_error"]
    # settings 1% apart under the same noise: the order is a coin toss
    close = {
        k: [x * (1 + 0.01 * i) / v[0] * 100 for x in v] for i, (k, v) in enumerate(times.items())
    }
    c2 = noise_ceiling(_rows(close, {k: v[0] for k, v in close.items()}), draws=2000)
    assert c2["perfect_model_on_measured_medians"]["spearman"]["median"] < 0.6


def test_no_repeats_no_ceiling() -> None:
    times = {k: [float(i + 1)] for i, k in enumerate("dabc")}
    rows = _rows(times, {k: v[0] for k, v in times.items()})
    assert noise_ceiling(rows) == {}
