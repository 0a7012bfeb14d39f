"""A profile whose calibration failed writes no change its miss could explain (issue 14's
trust rule, issue 20's check, :mod:`mrtune.optimizer.model_miss`): every gain it predicts is
relative to a model that misses the job's own observed times by a share of a task, so each
interval is widened by that share, and a change whose widened gain could vanish carries the
reason and is withheld unless ``--include-low-confidence``. A gain far larger than the miss
stands."""

from __future__ import annotations

import pytest

from mrtune.calibration.cost_factors import fit_cost_factors
from mrtune.costmodel import ClusterSpec, JobProfile
from mrtune.optimizer.model_miss import miss_share
from mrtune.optimizer.objective import ObjectiveKind
from mrtune.optimizer.recommend import recommend
from mrtune.optimizer.trust import calibration_miss
from tests.calibration.synthetic import TRUTH, synthetic_job

CLUSTER = ClusterSpec(num_nodes=4)


def _profiles():  # noqa: ANN202
    prof, cfg = synthetic_job()
    ok = fit_cost_factors(prof, cfg).profile
    slow = [  # a reduce merge 3x what the other phases allow (test_check's failing case)
        t.model_copy(update={"phases_ms": {**t.phases_ms, "merge": 3 * t.phases_ms["merge"]}})
        if t.kind == "reduce"
        else t
        for t in prof.observed
    ]
    bad = fit_cost_factors(
        prof.model_copy(update={"observed": slow}),
        cfg,
        prior=TRUTH,
        refit=("task_overhead_ms", "map_cpu"),
    ).profile
    return ok, bad, cfg


def _explained(reason: str, reasons: list[str]) -> bool:
    return any(r.startswith(reason) and "could be that miss" in r for r in reasons)


def test_a_failed_calibration_withholds_the_gains_its_miss_could_explain() -> None:
    ok, bad, cfg = _profiles()
    assert ok.calibration.status == "ok" and bad.calibration.status == "failed"
    assert calibration_miss(ok) is None
    reason = calibration_miss(bad)
    assert reason is not None and "reduce.merge" in reason
    kw = {"n_trials": 24, "seed": 0, "objective": ObjectiveKind.robust}
    good = recommend(ok, cfg, CLUSTER, **kw)
    assert good.changes  # the same job, calibrated, has changes worth writing
    assert all(reason not in r for c in good.changes + good.withheld for r in c.trust.reasons)
    rec = recommend(bad, cfg, CLUSTER, **kw)
    assert rec.changes == [] and rec.withheld
    # the 3x reduce merge misses 14% of the reduce task: every gain whose own interval does
    # not already reach no gain could be that miss
    assert all(_explained(reason, c.trust.reasons) for c in rec.withheld if c.trust.gain.low > 1)
    assert rec.calibration["status"] == "failed"
    every = recommend(bad, cfg, CLUSTER, include_low_confidence=True, **kw)
    assert every.changes  # --include-low-confidence writes them, reasons attached
    assert all(_explained(reason, c.trust.reasons) for c in every.changes if c.trust.gain.low > 1)


def _failed_by(profile: JobProfile, share: float) -> JobProfile:
    """``profile`` with its check failed on the reduce merge by ``share`` of the reduce task
    (the attempts' phases summed: no total is recorded), every other segment passing."""
    check = profile.calibration
    times = [sum(t.phases_ms.values()) for t in profile.observed if t.kind == "reduce"]
    reduce_ms = sum(times) / len(times)
    miss = share * reduce_ms
    segments = [
        s.model_copy(
            update={
                "observed_ms": 50.0,
                "predicted_ms": 50.0 + miss,
                "error": miss / 50.0,
                "ok": False,
            }
        )
        if s.segment == "reduce.merge"
        else s.model_copy(update={"ok": True})
        for s in check.segments
    ]
    failed = check.model_copy(update={"status": "failed", "segments": segments})
    return profile.model_copy(update={"calibration": failed})


def test_a_gain_larger_than_the_miss_stands_with_its_interval_widened() -> None:
    """A material miss (twice the job's noise) widens every interval by it; the changes whose
    gain it cannot explain are written, the others withheld with the miss as the reason."""
    import math

    from mrtune.optimizer.model_miss import miss_band
    from mrtune.optimizer.noise import run_noise

    ok, _, cfg = _profiles()
    share = 2 * run_noise(ok).sigma
    missed = _failed_by(ok, share)
    assert miss_share(missed) == pytest.approx(share)
    assert miss_band(missed) == pytest.approx(math.log1p(share))
    kw = {"n_trials": 24, "seed": 0, "objective": ObjectiveKind.robust}
    good, rec = recommend(ok, cfg, CLUSTER, **kw), recommend(missed, cfg, CLUSTER, **kw)
    reason = calibration_miss(missed)
    assert reason is not None
    kept = {c.name for c in rec.changes}
    assert kept and kept < {c.name for c in good.changes}  # the large gains stand, not all
    for c in rec.changes:
        measured = c.trust.to_json()["gain_ratio_measured"]
        assert measured["low"] > 1.01 and c.trust.miss_band == pytest.approx(math.log1p(share))
    for c in rec.withheld:
        assert c.trust.gain.low <= 1 or any(r.startswith(reason) for r in c.trust.reasons)
    g, r = good.intervals["speedup_model"], rec.intervals["speedup_model"]
    if r.point == g.point:  # the same configuration: its measured interval is wider
        assert rec.intervals["speedup"].low < good.intervals["speedup"].low


def test_batch_withholds_the_gain_a_failed_calibrations_miss_could_explain() -> None:
    """``mrtune batch`` applies the same rule per job, to the job's whole change: its interval
    is widened by the miss; where the widened gain could vanish the job keeps its
    configuration and its tuned changes are listed as withheld with the ``calibration_miss``
    rule; a gain larger than the miss is written with the widened interval; the flag writes
    every one."""
    from mrtune.optimizer.batch import BatchSettings, JobRef, tune_ref

    ok, bad, _ = _profiles()
    out = {}
    for name, prof in (("ok", ok), ("bad", bad), ("huge", _failed_by(bad, 0.6))):
        ref = JobRef(f"p:{name}", "profile", "profiles.jsonl", prof.model_dump_json())
        for low in (False, True):
            s = BatchSettings(cluster=CLUSTER, include_low_confidence=low)
            out[name, low] = tune_ref(ref, s)
    assert out["ok", False]["changes"] and not out["ok", False]["withheld_changes"]
    assert out["ok", False]["interval"]["calibration_miss_band"] == 0.0
    # the 3x merge misses 14% of the reduce task; the job's x1.46 keeps x1.2 at its low end
    bad_default = out["bad", False]
    assert bad_default["changes"] and not bad_default["withheld_changes"]
    assert bad_default["interval"]["calibration_miss_band"] == pytest.approx(miss_share(bad))
    assert bad_default["interval"]["speedup"]["low"] > 1.01
    # a miss of 60% of the reduce task could be the whole gain
    huge, huge_low = out["huge", False], out["huge", True]
    assert huge["status"] == "tuned" and huge["changes"] == []
    assert huge["properties"] == {} and huge["gain"] == 0.0
    assert huge["recommended_ms"] == huge["current_ms"]
    assert [w["name"] for w in huge["withheld_changes"]] == [
        c["name"] for c in huge_low["changes"]
    ]
    assert all(w["rule"] == "calibration_miss" for w in huge["withheld_changes"])
    assert all("calibration failed" in w["reason"] for w in huge["withheld_changes"])
    assert huge["withheld_interval"]["speedup"]["low"] <= 1.01
    assert huge_low["changes"] and not huge_low["withheld_changes"]


def test_an_immaterial_miss_leaves_the_changes_to_the_other_rules() -> None:
    """A failed segment whose miss is a smaller share of its task's time than the job's own
    run-to-run noise does not withhold changes; the check still says it failed."""
    from mrtune.optimizer.noise import run_noise

    _, bad, _ = _profiles()
    share, noise = miss_share(bad), run_noise(bad).sigma
    assert share > noise  # the 3x reduce merge: material
    check = bad.calibration
    times = [sum(t.phases_ms.values()) for t in bad.observed if t.kind == "reduce"]
    reduce_ms = sum(times) / len(times)  # no total recorded: the attempts' phases summed
    small = check.model_copy(
        update={
            "segments": [
                s.model_copy(
                    update={
                        "observed_ms": 50.0,
                        "predicted_ms": 50.0 + 0.5 * noise * reduce_ms,
                        "ok": False,
                    }
                )
                if s.segment == "reduce.merge"
                else s.model_copy(update={"ok": True})
                for s in check.segments
            ]
        }
    )
    slight = bad.model_copy(update={"calibration": small})
    assert slight.calibration_failed  # still said to have failed
    assert miss_share(slight) == pytest.approx(0.5 * noise)
    assert calibration_miss(slight) is None
    assert f"more than the job's {noise:.0%} run-to-run noise" in (calibration_miss(bad) or "")
