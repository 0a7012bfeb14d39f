"""The white-box side of the held-out comparison (issue 8, section 5) on committed real runs."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from benchmarks.compare_predictors import (
    RECORD_PHASES,
    compare,
    held_out_folds,
    held_out_whitebox_predictions,
    whitebox_run_times,
)
from mrtune.calibration.run_profile import local_cluster, profile_from_run, run_config
from mrtune.costmodel import ConfigBatch, predict_job
from mrtune.readers.run_records import read_jsonl

GENERIC = Path(__file__).resolve().parents[3] / "benchmarks" / "results" / "runs-generic.jsonl"
pytestmark = pytest.mark.skipif(
    not GENERIC.exists(), reason="benchmarks/results/runs-generic.jsonl not recorded"
)


@pytest.fixture(scope="module")
def records() -> list:
    """Ten runs spread over the grid (every 8th: all four sizes, both split sizes)."""
    return [r for r in read_jsonl(GENERIC) if r.success][::8]


def test_folds_hold_out_every_run_once_and_never_calibrate_on_it(records: list) -> None:
    folds = held_out_folds(records, folds=5, seed=0)
    held = [r.run_id for _, test in folds for r in test]
    assert sorted(held) == sorted(r.run_id for r in records)
    preds, calibrations = held_out_whitebox_predictions(records, folds=5, seed=0)
    for (train, test), cal in zip(folds, calibrations, strict=True):
        assert cal in {r.run_id for r in train}
        assert cal not in {r.run_id for r in test}
    assert sorted(p.run_id for p in preds) == sorted(held)
    for p in preds:
        assert set(p.phases_ms) == set(RECORD_PHASES)
        assert all(math.isfinite(v) and v >= 0 for v in p.phases_ms.values())
        assert p.job_ms is not None and math.isfinite(p.job_ms) and p.job_ms > 0


def test_phase_mapping_loses_no_model_time(records: list) -> None:
    """The mapped phases of a task add up to the model's own mean map and reduce task times."""
    rec = records[-1]
    profile = profile_from_run(rec)
    pred = predict_job(profile, ConfigBatch.from_configs([run_config(rec)]), local_cluster(rec))
    times = whitebox_run_times(profile, rec, local_cluster(rec), overhead_ms=123.0)
    ph = times.phases_ms
    assert ph["map"] + ph["spill"] + ph["merge"] == pytest.approx(float(pred.map_task_ms[0]))
    assert ph["shuffle"] + ph["sort"] + ph["write"] == pytest.approx(float(pred.reduce_task_ms[0]))
    assert times.job_ms == pytest.approx(float(pred.job_ms[0]) + 123.0)


def test_comparison_scores_both_predictors_on_every_phase_and_the_job(records: list) -> None:
    errors, _ = compare(records, folds=5, seed=0)
    assert set(errors) == {"regression", "regression+overhead", "white-box"}
    for name in ("regression", "white-box"):
        e = errors[name]
        assert set(e.phases) == set(RECORD_PHASES)
        for stats in (*e.phases.values(), e.job):
            assert stats.n == len(records)
            values = (stats.rmse_ms, stats.mae_ms, stats.mape_pct, stats.bias_ms)
            assert np.all(np.isfinite(values))
            assert stats.rmse_ms >= stats.mae_ms >= abs(stats.bias_ms) - 1e-9
    # the overhead variant differs from the regression only in its job time
    assert errors["regression+overhead"].phases == errors["regression"].phases
    assert errors["regression+overhead"].job.bias_ms != errors["regression"].job.bias_ms
