"""The job's own fixed time (``CostFactors.job_overhead_ms``): measured from the history, added
to every configuration's job time, and never part of a speedup's gain."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mrtune.calibration.job_overhead import measured_job_overhead_ms, with_job_overhead
from mrtune.calibration.profiles import load_profile_source
from mrtune.calibration.run_profile import job_overhead_ms, run_config
from mrtune.costmodel import ClusterSpec, ConfigBatch, predict_job
from mrtune.readers.run_records import read_jsonl

RUNS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "runs-matrix.jsonl"


def _sort_default():
    return next(r for r in read_jsonl(RUNS) if r.label == "sort-default" and r.repeat == 0)


def test_a_run_records_driver_time_becomes_the_profiles_job_overhead(calibrated_run) -> None:
    rec = _sort_default()
    p = calibrated_run(rec)
    want = job_overhead_ms(rec)
    assert want is not None and want > 500.0  # LocalJobRunner's submission and commit
    assert p.costs.job_overhead_ms == pytest.approx(want)
    assert p.provenance["costs.job_overhead_ms"].startswith("measured")


def test_the_overhead_is_added_to_every_configuration_once(calibrated_run) -> None:
    p = calibrated_run(_sort_default())
    base = run_config(_sort_default())
    cfgs = [
        base,
        base.model_copy(update={"io_sort_mb": 20}),
        base.model_copy(update={"num_reducers": 4}),
    ]
    cluster = ClusterSpec.local()
    batch = ConfigBatch.from_configs(cfgs)
    with_ovh = predict_job(p, batch, cluster).job_ms
    none = p.model_copy(update={"costs": p.costs.model_copy(update={"job_overhead_ms": 0.0})})
    without = predict_job(none, batch, cluster).job_ms
    np.testing.assert_allclose(with_ovh - without, p.costs.job_overhead_ms, rtol=0, atol=1e-6)
    # the same constant on both sides shrinks every ratio towards 1: a speedup measured on
    # the job's duration, not on its task span
    faster = int(np.argmin(without))
    slower = int(np.argmax(without))
    if faster != slower:
        assert with_ovh[slower] / with_ovh[faster] < without[slower] / without[faster]


def test_a_history_measures_duration_minus_task_span(shared_data: Path) -> None:
    jhist = sorted((shared_data / "jhist").glob("*.jhist"))
    measured = 0
    for path in jhist:
        try:
            p = load_profile_source(path)
        except Exception:  # noqa: BLE001 - failed jobs have no profile (tested elsewhere)
            continue
        job_ms = p.cluster_facts.get("job_ms")
        if not isinstance(job_ms, float) or not p.observed:
            assert p.costs.job_overhead_ms == 0.0
            continue
        span = max(o.finish_ms for o in p.observed) - min(o.start_ms for o in p.observed)
        assert p.costs.job_overhead_ms == pytest.approx(max(job_ms - span, 0.0))
        # the self-check compares the job duration with the model's, which now holds it
        model = p.cluster_facts["self_check.job.model_ms"]
        tasks = p.cluster_facts["self_check.tasks.model_ms"]
        assert model - tasks == pytest.approx(p.costs.job_overhead_ms)
        # the stages are inside the task span: the overhead is in neither (it was booked in
        # the reduce stage: the examples' WordMean's 0.7 s showed as 5.7 s, +699%)
        stages = p.cluster_facts["self_check.map_stage.model_ms"]
        if "self_check.reduce_stage.model_ms" in p.cluster_facts:
            stages += p.cluster_facts["self_check.reduce_stage.model_ms"]
            assert stages == pytest.approx(tasks)
        measured += 1
    assert measured >= 3


def test_no_timing_leaves_the_profile_unchanged(calibrated_run) -> None:
    p = calibrated_run(_sort_default())
    facts = {k: v for k, v in p.cluster_facts.items() if k not in ("job_overhead_ms", "job_ms")}
    bare = p.model_copy(update={"cluster_facts": facts})
    assert measured_job_overhead_ms(bare) is None
    assert with_job_overhead(bare) is bare


def test_clock_skew_never_gives_a_negative_overhead(calibrated_run) -> None:
    p = calibrated_run(_sort_default())
    facts = {k: v for k, v in p.cluster_facts.items() if k != "job_overhead_ms"}
    facts["job_ms"] = 1.0  # a duration shorter than the task span
    skewed = p.model_copy(update={"cluster_facts": facts})
    assert measured_job_overhead_ms(skewed) == 0.0


def test_the_factor_is_validated() -> None:
    from pydantic import ValidationError

    from mrtune.costmodel import CostFactors

    with pytest.raises(ValidationError):
        CostFactors(job_overhead_ms=-1.0)
