"""Run-to-run noise in the intervals, and a gain inside the noise is not a finding (issue 14)."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from mrtune.costmodel import HadoopConfig, JobProfile
from mrtune.costmodel.profile import TaskTiming
from mrtune.optimizer.confidence import LEVEL, Interval, gather_evidence, prediction_intervals
from mrtune.optimizer.noise import (
    MIN_REPEATS,
    NOISE_FLOOR,
    PAIRS,
    RunNoise,
    Z,
    repeat_facts,
    run_noise,
    task_dispersion,
    widen,
)
from mrtune.optimizer.trust import MIN_GAIN
from tests.optimizer.test_confidence import BASE, CLUSTER, SORT_MB, _sort_mb_rec, spilly


def _maps(times: list[float], split: float = 64 * 2**20, local: bool = False) -> JobProfile:
    """A profile whose observed attempts are maps of equal input taking ``times`` ms."""
    obs, t0 = [], 0
    for i, t in enumerate(times):
        obs.append(
            TaskTiming(
                attempt_id=f"m{i}",
                kind="map",
                start_ms=t0,
                finish_ms=t0 + int(t),
                phases_ms={"total": t},
                counters={"HDFS_BYTES_READ": split},
            )
        )
        t0 += int(t)
    facts = {"source_format": "local-run-record"} if local else {}
    return spilly(set()).model_copy(update={"observed": obs, "cluster_facts": facts})


def test_z_is_the_quantile_of_the_interval_level() -> None:
    assert Z == pytest.approx(NormalDist().inv_cdf(LEVEL[1] / 100.0), rel=1e-9)


def test_repeats_measure_the_noise_when_there_are_enough() -> None:
    times = [8114.0, 7890.0, 8225.0]
    facts = repeat_facts(times)
    assert facts["repeat_runs"] == MIN_REPEATS
    assert facts["repeat_job_time_cv"] == pytest.approx(np.std(np.log(times), ddof=1))
    prof = spilly(set()).model_copy(update={"cluster_facts": facts})
    n = run_noise(prof)
    assert n.sigma == pytest.approx(facts["repeat_job_time_cv"]) and "3 repeats" in n.source
    # two repeats are not enough: the floor holds
    two = spilly(set()).model_copy(update={"cluster_facts": repeat_facts(times[:2])})
    assert run_noise(two).sigma == NOISE_FLOOR and run_noise(two).source.startswith("defaulted")


def test_task_dispersion_scales_to_the_job_as_independent_tasks() -> None:
    rng = np.random.default_rng(3)
    times = list(1000.0 * rng.lognormal(0.0, 0.4, 12))
    prof = _maps(times)
    s, n = task_dispersion(prof)
    expect = np.std(np.log(times), ddof=1) * math.sqrt(sum(t * t for t in times)) / sum(times)
    assert n == 12 and s == pytest.approx(expect)
    assert s > NOISE_FLOOR and run_noise(prof).source.startswith("measured: dispersion")


def test_the_cold_first_attempt_and_unlike_inputs_are_left_out() -> None:
    # local mode: the first attempt runs cold (JIT); a slow first attempt must not count
    prof = _maps([5000.0, 1000.0, 1001.0, 999.0], local=True)
    s, n = task_dispersion(prof)
    assert n == 3 and s < 0.001
    # quiet tasks: the dispersion is below the floor, which holds
    assert run_noise(prof).sigma == NOISE_FLOOR
    # too few like attempts: no dispersion at all
    assert task_dispersion(_maps([1000.0, 1100.0])) is None


def test_widen_adds_the_band_in_quadrature_on_each_side() -> None:
    iv = Interval(1.05, 1.10, 1.20, 1.10)
    w = widen(iv, 0.05)
    assert w.point == iv.point and w.median == iv.median
    assert math.log(iv.point / w.low) == pytest.approx(math.hypot(math.log(1.10 / 1.05), 0.05))
    assert math.log(w.high / iv.point) == pytest.approx(math.hypot(math.log(1.20 / 1.10), 0.05))
    assert widen(iv, 0.0) == iv


def test_speedup_band_shrinks_with_the_pairs_measured() -> None:
    n = RunNoise(0.03, "t")
    assert n.speedup_sigma(1) == pytest.approx(math.sqrt(2) * 0.03 * math.sqrt(math.pi / 2))
    assert n.speedup_sigma(4) == pytest.approx(n.speedup_sigma(1) / 2)
    # the recorded repeat spread (σ ≈ 3%) over 5 pairs: a gain under ~3% is not a finding
    band = math.expm1(n.band(PAIRS))
    assert band > 0.025
    assert band < 0.035


def _noisy_history(cv: float) -> JobProfile:
    return spilly(set()).model_copy(
        update={"cluster_facts": {"repeat_runs": 5.0, "repeat_job_time_cv": cv}}
    )


def test_a_gain_inside_the_noise_is_withheld_and_written_only_on_request() -> None:
    quiet = _sort_mb_rec(_noisy_history(0.002))
    assert [c.name for c in quiet.changes] == [SORT_MB]
    gain = quiet.changes[0].trust.gain
    assert gain.low > 1.0  # a real gain, well measured
    assert gain.point < 1.5
    # the same gain on a history whose repeats vary by 30%: within the noise
    loud = _sort_mb_rec(_noisy_history(0.30))
    assert not loud.changes and [c.name for c in loud.withheld] == [SORT_MB]
    # what tells them apart is the noise band taken from each history's repeats, not the gain
    held = loud.withheld[0].trust
    assert held.gain.point == pytest.approx(gain.point)
    assert held.noise_band > 5 * quiet.changes[0].trust.noise_band
    assert any("noise" in r for r in held.reasons)
    reasons = loud.withheld[0].trust.reasons
    assert any("within the run-to-run noise" in r for r in reasons)
    assert SORT_MB not in loud.properties and loud.config == BASE
    kept = _sort_mb_rec(_noisy_history(0.30), include_low_confidence=True)
    assert [c.name for c in kept.changes] == [SORT_MB] and SORT_MB in kept.properties


def test_prediction_intervals_carry_the_noise_and_keep_the_model_interval() -> None:
    prof = _noisy_history(0.05)
    ev = gather_evidence(prof, BASE, samples=16)
    iv = prediction_intervals(ev, CLUSTER, BASE, HadoopConfig(io_sort_mb=400, num_reducers=40))
    sp, model = iv["speedup"], iv["speedup_model"]
    band = run_noise(prof).band()
    assert sp.low < model.low and sp.high > model.high and sp.point == model.point
    assert math.log(sp.point / sp.low) == pytest.approx(
        math.hypot(math.log(model.point / model.low), band)
    )
    cur, cur_model = iv["current_ms"], iv["current_ms_model"]
    assert math.log(cur.high / cur.point) == pytest.approx(
        math.hypot(math.log(cur_model.high / cur_model.point), Z * 0.05)
    )
    assert ev.to_json()["run_noise"]["run_sigma"] == pytest.approx(0.05)


def test_the_recommendation_runs_take_the_noise_from_the_calibration_repeats() -> None:
    import importlib.util
    from pathlib import Path

    from mrtune.readers.run_records import read_jsonl

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "run_recommendations", root / "benchmarks" / "hadoop" / "run_recommendations.py"
    )
    rr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rr)
    recs = read_jsonl(rr.MATRIX)
    cal = rr.calibration_run(recs, "wc-default")
    prof = rr.local_profile(cal, recs)
    times = [float(r.job_time_ms) for r in recs if r.label == "wc-default" and r.success]
    n = run_noise(prof)
    assert prof.cluster_facts["repeat_runs"] == len(times) >= MIN_REPEATS
    assert n.sigma == pytest.approx(np.std(np.log(times), ddof=1))
    assert n.source.startswith("measured: spread of")


def _cv_for_low_end(gain: Interval, low: float) -> float:
    """The repeat spread whose measurement band widens ``gain`` to a low end of ``low``."""
    band = math.sqrt(math.log(gain.point / low) ** 2 - math.log(gain.point / gain.low) ** 2)
    return band / RunNoise(1.0, "unit").band(PAIRS)


def test_a_gain_whose_measured_low_end_misses_the_minimum_gain_is_withheld() -> None:
    """The noise rule asks the widened low end to clear the 1% a change must bring (the
    pruning's threshold), not merely to stay above no gain."""
    gain = _sort_mb_rec(_noisy_history(0.002)).changes[0].trust.gain
    assert gain.low > 1.0 + 2 * MIN_GAIN  # room for both cases below
    under = _sort_mb_rec(_noisy_history(_cv_for_low_end(gain, 1.0 + MIN_GAIN / 2)))
    assert not under.changes and [c.name for c in under.withheld] == [SORT_MB]
    low = widen(under.withheld[0].trust.gain, under.withheld[0].trust.noise_band).low
    assert low > 1.0  # above no gain …
    assert low < 1.0 + MIN_GAIN  # … but under the minimum a change must bring
    assert any("a change must bring" in r for r in under.withheld[0].trust.reasons)
    over = _sort_mb_rec(_noisy_history(_cv_for_low_end(gain, 1.0 + 2 * MIN_GAIN)))
    assert [c.name for c in over.changes] == [SORT_MB]
