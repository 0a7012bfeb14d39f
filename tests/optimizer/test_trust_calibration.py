"""A profile whose calibration failed writes no change by default (issue 14's trust rule,
issue 20's check): every gain it predicts is relative to a model that misses the job's own
observed times, so each change carries that reason and is withheld unless
``--include-low-confidence``."""

from __future__ import annotations

import pytest

from mrtune.calibration.cost_factors import fit_cost_factors
from mrtune.costmodel import ClusterSpec
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


def test_a_failed_calibration_withholds_every_change() -> None:
    ok, bad, cfg = _profiles()
    assert ok.calibration.status == "ok" and bad.calibration.status == "failed"
    assert calibration_miss(ok) is None
    reason = calibration_miss(bad)
    assert reason is not None and "reduce.merge" in reason
    kw = {"n_trials": 24, "seed": 0, "objective": ObjectiveKind.robust}
    good = recommend(ok, cfg, CLUSTER, **kw)
    assert good.changes  # the same job, calibrated, has changes worth writing
    assert all(reason not in c.trust.reasons for c in good.changes + good.withheld)
    rec = recommend(bad, cfg, CLUSTER, **kw)
    assert rec.changes == [] and rec.withheld
    assert all(reason in c.trust.reasons for c in rec.withheld)
    assert rec.calibration["status"] == "failed"
    every = recommend(bad, cfg, CLUSTER, include_low_confidence=True, **kw)
    assert every.changes  # --include-low-confidence writes them, reasons attached
    assert all(reason in c.trust.reasons for c in every.changes)


def test_batch_withholds_a_failed_calibrations_changes() -> None:
    """``mrtune batch`` applies the same rule per job: the job keeps its configuration, its
    tuned changes are listed as withheld with the reason; the flag writes them."""
    from mrtune.optimizer.batch import BatchSettings, JobRef, tune_ref

    ok, bad, _ = _profiles()
    out = {}
    for name, prof in (("ok", ok), ("bad", bad)):
        ref = JobRef(f"p:{name}", "profile", "profiles.jsonl", prof.model_dump_json())
        for low in (False, True):
            s = BatchSettings(cluster=CLUSTER, include_low_confidence=low)
            out[name, low] = tune_ref(ref, s)
    assert out["ok", False]["changes"] and not out["ok", False]["withheld_changes"]
    bad_default, bad_low = out["bad", False], out["bad", True]
    assert bad_default["status"] == "tuned" and bad_default["changes"] == []
    assert bad_default["properties"] == {} and bad_default["gain"] == 0.0
    assert bad_default["recommended_ms"] == bad_default["current_ms"]
    assert [w["name"] for w in bad_default["withheld_changes"]] == [
        c["name"] for c in bad_low["changes"]
    ]
    assert all("calibration failed" in w["reason"] for w in bad_default["withheld_changes"])
    assert bad_low["changes"] and not bad_low["withheld_changes"]


def test_an_immaterial_miss_leaves_the_changes_to_the_other_rules() -> None:
    """A failed segment whose miss is a smaller share of its task's time than the job's own
    run-to-run noise does not withhold changes; the check still says it failed."""
    from mrtune.optimizer.noise import run_noise
    from mrtune.optimizer.trust import miss_share

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
