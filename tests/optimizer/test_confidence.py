"""Intervals from the evidence, per-change confidence and what is withheld from the written file
(issue 14, item 4 "Confidence")."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from mrtune.calibration.cost_factors import fit_cost_factors
from mrtune.calibration.profiles import cluster_fit_setup
from mrtune.calibration.resample import refit_resamples, resample_observed, with_bootstrap
from mrtune.costmodel import ClusterSpec, CostFactors, DataflowStats, HadoopConfig, JobProfile
from mrtune.optimizer.confidence import (
    PRIORS,
    RESAMPLES,
    SAMPLES,
    defaulted_factors,
    gather_evidence,
    ratio_interval,
    sample_times,
)
from mrtune.optimizer.objective import ObjectiveKind
from mrtune.optimizer.outputs import mapred_site_xml
from mrtune.optimizer.priors import latin_hypercube
from mrtune.optimizer.recommend import recommend
from mrtune.optimizer.whatif import what_if
from mrtune.readers.conf import parse_conf_text
from tests.calibration.synthetic import synthetic_job

CLUSTER = ClusterSpec(num_nodes=10)
FOUR = ClusterSpec(num_nodes=4)
#: 40 reducers: the job time is the maps', so io.sort.mb's fewer spills show (+17% at 400 MB)
BASE = HadoopConfig(num_reducers=40)
SORT_MB = "mapreduce.task.io.sort.mb"
#: what the io.sort.mb gain of a spilling job is made of: spill files, merge passes, sorting
SPILL_FACTORS = {
    "local_write",
    "local_read",
    "merge_cpu",
    "sort_cpu",
    "spill_file_ns",
    "segment_seek_ns",
    "sort_cache_slowdown",
    "sort_cache_bytes",
    "spill_contention",
}


def spilly(defaulted: set[str]) -> JobProfile:
    """A job that spills several times per map at io.sort.mb 100, whose cost factors are all
    marked measured except ``defaulted`` (no observed attempts: measured factors are held)."""
    prov = {
        f"costs.{f}": ("defaulted: test" if f in defaulted else "measured: test")
        for f in CostFactors.model_fields
    }
    return JobProfile(
        job_id="spilly",
        input_bytes=40 * 2**30,
        input_files=40,
        stats=DataflowStats(input_pair_width=100, map_size_sel=1.0, map_pairs_sel=1.0),
        provenance=prov,
        source_properties={"mapreduce.job.reduces": "40"},  # = BASE, for the commands
    )


def noisy(prof: JobProfile, sigma: float, seed: int) -> JobProfile:
    rng = np.random.default_rng(seed)
    obs = [
        t.model_copy(
            update={"phases_ms": {k: v * rng.lognormal(0, sigma) for k, v in t.phases_ms.items()}}
        )
        for t in prof.observed
    ]
    return prof.model_copy(update={"observed": obs})


@functools.cache
def measured_job(n_maps: int) -> tuple[JobProfile, HadoopConfig]:
    """A synthetic job (tests/calibration/synthetic.py) of ``n_maps`` maps of varied sizes,
    per-phase times with 10% noise, fitted: most factors measured.

    Cached: several tests start from the same fitted job, which no test modifies (each fit
    is a least-squares calibration, the costly part of this module's setup)."""
    rng = np.random.default_rng(5)
    prof, cfg = synthetic_job(
        splits_mib=tuple(rng.uniform(4, 256, n_maps)),
        reduce_records=tuple(rng.uniform(1e6, 6e6, max(3, n_maps // 8))),
        per_phase=True,
    )
    return fit_cost_factors(noisy(prof, 0.1, 1), cfg).profile, cfg


# ------------------------------------------------------------------ sampling
def test_latin_hypercube_has_one_point_per_stratum_on_every_axis() -> None:
    u = latin_hypercube(50, 7, seed=3)
    assert u.shape == (50, 7) and (u >= 0).all() and (u < 1).all()
    for j in range(7):
        assert sorted(np.floor(u[:, j] * 50).astype(int)) == list(range(50))


def test_priors_cover_every_sampled_factor_and_hold_the_default() -> None:
    d = CostFactors()
    for name, p in PRIORS.items():
        assert name in CostFactors.model_fields and p.why
        if p.relative:
            assert p.low < 1 < p.high
        else:
            assert p.low <= getattr(d, name) <= p.high


def test_the_row_bootstrap_equals_a_refit_of_the_resampled_profile() -> None:
    prof, cfg = measured_job(12)
    fast = refit_resamples(prof, cfg, 4, seed=9)
    rng = np.random.default_rng(9)
    prior, overlap = cluster_fit_setup(prof)
    assert not overlap  # per-phase attempts: the exact case (the _Rows docstring)
    for q in fast.samples:
        slow = fit_cost_factors(resample_observed(prof, rng), cfg, prior=prior).profile.costs
        assert q.costs == slow


def test_evidence_is_deterministic_with_a_seed() -> None:
    prof, cfg = measured_job(12)
    a = gather_evidence(prof, cfg, samples=16, seed=4)
    b = gather_evidence(prof, cfg, samples=16, seed=4)
    c = gather_evidence(prof, cfg, samples=16, seed=5)
    assert [p.costs for p in a.samples] == [p.costs for p in b.samples]
    assert [p.costs for p in a.samples] != [p.costs for p in c.samples]
    assert a.n_refits == 16


def test_the_refits_kept_with_a_profile_give_the_same_samples_as_refitting() -> None:
    """A calibrated profile keeps its bootstrap refits (``profile.bootstrap``); the samples
    drawn from them are exactly the ones a refit gives, so ``whatif`` and ``optimize`` need not
    refit (nor import ``scipy.optimize``) on every start."""
    prof, cfg = measured_job(12)
    kept = with_bootstrap(prof, cfg)
    assert kept.bootstrap is not None and kept.bootstrap.count == RESAMPLES
    assert kept.model_copy(update={"bootstrap": None}) == prof
    a = gather_evidence(kept, cfg, samples=SAMPLES, seed=0)
    b = gather_evidence(prof, cfg, samples=SAMPLES, seed=0)
    assert [q.costs for q in a.samples] == [q.costs for q in b.samples]
    assert a.n_refits == b.n_refits == SAMPLES
    # another seed or another number of resamples is refitted, not read from the kept ones
    c = gather_evidence(kept, cfg, samples=16, seed=0)
    d = gather_evidence(prof, cfg, samples=16, seed=0)
    assert [q.costs for q in c.samples] == [q.costs for q in d.samples]
    e = gather_evidence(kept, cfg, samples=SAMPLES, seed=3)
    assert [q.costs for q in e.samples] != [q.costs for q in a.samples]
    # the kept refits survive a save and a load
    again = JobProfile.model_validate_json(kept.model_dump_json())
    assert again.bootstrap == kept.bootstrap


def test_the_example_profile_keeps_its_refits() -> None:
    from mrtune.cli.example import examples

    prof = JobProfile.model_validate_json(examples()["wordcount-rumen"][1].read_text())
    assert prof.bootstrap is not None and prof.bootstrap.seed == 0
    assert prof.bootstrap.requested == RESAMPLES


def test_defaulted_factors_are_sampled_across_their_prior_measured_ones_are_not() -> None:
    ev = gather_evidence(spilly({"local_write"}), HadoopConfig(), samples=32)
    lw = np.array([p.costs.local_write for p in ev.samples]) / CostFactors().local_write
    assert lw.min() < 0.4 and lw.max() > 2.5  # across ×0.25–×4
    assert {p.costs.map_cpu for p in ev.samples} == {CostFactors().map_cpu}
    assert ev.defaulted == ["local_write"]


# ------------------------------------------------------------------ intervals
def test_many_measured_tasks_give_a_narrow_interval() -> None:
    """The bootstrap's spread shrinks with the evidence: 200 maps vs 6 (priors held)."""
    widths = {}
    for n in (6, 200):
        prof, cfg = measured_job(n)
        ev = gather_evidence(prof, cfg, samples=48, priors=False)
        s, p = sample_times(ev, [cfg, cfg.with_changes({"mapreduce.job.reduces": 16})], FOUR)
        iv = ratio_interval(s[:, 0], s[:, 1], p[0], p[1])
        widths[n] = iv.high / iv.low
    assert widths[200] < 1.02
    assert widths[200] - 1 < (widths[6] - 1) / 3


def test_the_interval_contains_the_point_prediction() -> None:
    prof, cfg = measured_job(24)
    ev = gather_evidence(prof, cfg, samples=64)
    s, p = sample_times(ev, [cfg, cfg.with_changes({"mapreduce.job.reduces": 16})], CLUSTER)
    for col in (0, 1):
        lo, hi = np.percentile(s[:, col], [10, 90])  # the raw percentiles, not widened
        assert lo <= p[col] <= hi
    ratio = s[:, 0] / s[:, 1]
    lo, hi = np.percentile(ratio, [10, 90])
    assert lo <= p[0] / p[1] <= hi
    # ... and the ratio of one sample is tighter than the two independent intervals
    t0, t1 = (np.percentile(s[:, c], [10, 90]) for c in (0, 1))
    assert hi / lo < (t0[1] / t1[0]) / (t0[0] / t1[1])


def test_whatif_carries_the_interval_of_the_speedup() -> None:
    prof = spilly({"local_write", "merge_cpu"})
    ev = gather_evidence(prof, HadoopConfig(), samples=32)
    r = what_if(prof, HadoopConfig(), CLUSTER, {"io.sort.mb": "400"}, evidence=ev)
    iv = r["interval"]
    assert iv["speedup"]["low"] <= r["speedup"] <= iv["speedup"]["high"]
    assert iv["speedup"]["point"] == pytest.approx(r["speedup"], rel=1e-9)
    assert iv["speedup"]["high"] > iv["speedup"]["low"]
    sized = what_if(
        prof, HadoopConfig(), CLUSTER, {}, input_bytes=4 * prof.input_bytes, evidence=ev
    )
    assert sized["interval"]["current_ms"]["point"] == pytest.approx(sized["current"]["job_ms"])


# ------------------------------------------------------------------ per change
def _sort_mb_rec(prof: JobProfile, **kw: object) -> object:
    return recommend(
        prof,
        BASE,
        CLUSTER,
        strategy="exhaustive",
        only=[SORT_MB],
        confidence=True,
        samples=32,
        **kw,
    )


def test_a_gain_resting_on_defaulted_factors_is_low_confidence_and_not_written() -> None:
    rec = _sort_mb_rec(spilly(SPILL_FACTORS))
    assert not rec.changes and [c.name for c in rec.withheld] == [SORT_MB]
    trust = rec.withheld[0].trust
    assert trust.low and trust.defaulted_share > 0.5
    assert set(trust.defaulted) <= SPILL_FACTORS and not set(trust.measured) & SPILL_FACTORS
    assert SORT_MB not in rec.properties and rec.config == BASE
    xml = mapred_site_xml(rec.properties, header="t")
    assert SORT_MB not in parse_conf_text(xml, "mapred-site.xml").properties
    # written = scored: the prediction reported is that of the configuration written
    assert rec.recommended["job_ms"] == pytest.approx(rec.current["job_ms"])
    assert rec.to_json()["withheld_changes"][0]["confidence"] == "low"


def test_include_low_confidence_writes_it() -> None:
    rec = _sort_mb_rec(spilly(SPILL_FACTORS), include_low_confidence=True)
    assert [c.name for c in rec.changes] == [SORT_MB] and rec.changes[0].low_confidence
    assert SORT_MB in rec.properties and rec.recommended["job_ms"] < rec.current["job_ms"]


def test_the_same_gain_on_measured_factors_is_written() -> None:
    rec = _sort_mb_rec(spilly({"map_cpu", "reduce_cpu"}))  # defaulted, but not what it rests on
    assert [c.name for c in rec.changes] == [SORT_MB] and not rec.withheld
    t = rec.changes[0].trust
    assert not t.low and t.defaulted_share < 0.5 and set(t.measured) & SPILL_FACTORS
    assert t.gain.low > 1 and t.gain.contains(t.gain.point)
    assert SORT_MB in rec.properties


def test_a_setting_far_outside_the_history_is_low_confidence() -> None:
    base = HadoopConfig(io_sort_mb=25, num_reducers=40)
    rec = recommend(
        spilly(set()),
        base,
        CLUSTER,
        strategy="exhaustive",
        only=[SORT_MB],
        confidence=True,
        samples=16,
    )
    (c,) = rec.withheld
    assert int(c.recommended) > 100  # ×4 the 25 MB the history ran with
    assert any("history ran with" in r for r in c.trust.reasons)


def test_the_far_move_names_the_replayed_file_it_measured_from() -> None:
    """``optimize --conf FILE`` on a saved profile starts from the file: the far-move rule
    measures from the file's value and says so (issue 16)."""
    start = HadoopConfig(io_sort_mb=25, num_reducers=40)
    rec = recommend(
        spilly(set()),
        start,
        CLUSTER,
        strategy="exhaustive",
        only=[SORT_MB],
        confidence=True,
        samples=16,
        ran_with=HadoopConfig(io_sort_mb=100, num_reducers=40),
        start_label="the replayed --conf start.xml",
    )
    (c,) = rec.withheld
    far = [r for r in c.trust.reasons if "moves the setting" in r]
    assert far and "from its value in the replayed --conf start.xml" in far[0]
    assert not any("history" in r for r in c.trust.reasons)


def test_defaulted_factors_of_the_example_profile() -> None:
    import json
    from pathlib import Path

    path = Path(__file__).parents[2] / "mrtune/examples/profiles/wordcount-rumen.json"
    prof = JobProfile.model_validate(json.loads(path.read_text()))
    assert len(defaulted_factors(prof)) == len(PRIORS) - 1  # task_overhead_ms measured


def test_the_robust_objective_is_no_worse_at_its_percentile() -> None:
    prof = spilly({"local_write", "spill_file_ns"})
    kw = dict(
        strategy="exhaustive",
        only=[SORT_MB, "mapreduce.task.io.sort.factor"],
        samples=32,
        include_low_confidence=True,
    )
    rob = recommend(prof, HadoopConfig(), CLUSTER, objective=ObjectiveKind.robust, **kw)
    pt = recommend(
        prof, HadoopConfig(), CLUSTER, objective=ObjectiveKind.time, confidence=True, **kw
    )
    assert rob.objective == "robust" and rob.evidence is not None
    ev = gather_evidence(prof, BASE, samples=32)
    s, _ = sample_times(ev, [rob.config, pt.config], CLUSTER)
    p90 = np.percentile(s, 90, axis=0)
    assert p90[0] <= p90[1] * (1 + 1e-9)


# ------------------------------------------------------------------ the commands
def test_cli_whatif_and_optimize_carry_the_intervals(tmp_path) -> None:  # noqa: ANN001
    import json

    from typer.testing import CliRunner

    from mrtune.cli import app

    prof = tmp_path / "p.json"
    prof.write_text(spilly(SPILL_FACTORS).model_dump_json())
    runner = CliRunner()
    r = runner.invoke(app, ["whatif", str(prof), "--set", "io.sort.mb=400", "--format", "json"])
    assert r.exit_code == 0, r.output
    iv = json.loads(r.output)["interval"]["speedup"]
    assert iv["low"] <= iv["point"] <= iv["high"]
    out = tmp_path / "site.xml"
    args = ["optimize", str(prof), "--strategy", "exhaustive", "--only", SORT_MB, "-o", str(out)]
    r = runner.invoke(app, [*args, "--samples", "16", "--format", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["objective"] == "robust"
    assert data["withheld_changes"][0]["name"] == SORT_MB and not data["changes"]
    assert data["confidence"]["evidence"]["samples"] == 16
    assert SORT_MB not in out.read_text()
    r = runner.invoke(app, [*args, "--samples", "16", "--include-low-confidence"])
    assert r.exit_code == 0, r.output
    assert SORT_MB in out.read_text() and "low" in r.output


def test_a_well_measured_job_gets_confident_changes_written() -> None:
    prof, cfg = measured_job(64)
    rec = recommend(prof, cfg, FOUR, objective=ObjectiveKind.robust, samples=32)
    assert rec.changes and not any(c.low_confidence for c in rec.changes)
    assert all(c.trust.defaulted_share < 0.5 and c.trust.gain.low > 1 for c in rec.changes)
    assert all(c.trust.reasons for c in rec.withheld)
    sp = rec.intervals["speedup"]
    # 64 measured maps: a sure gain, and a narrow interval (the raw p10–p90 within ±12%)
    assert sp.low > 1.0
    assert sp.high / sp.low < 1.25
    assert sp.point == pytest.approx(rec.current["job_ms"] / rec.recommended["job_ms"])

    # the width comes from the evidence: the same change on the job measured on 8 maps is
    # less sure
    def width(p: JobProfile, c: HadoopConfig) -> float:
        s, pt = sample_times(gather_evidence(p, c, samples=32), [c, rec.config], FOUR)
        iv = ratio_interval(s[:, 0], s[:, 1], float(pt[0]), float(pt[1]))
        return iv.high / iv.low

    assert width(prof, cfg) < width(*measured_job(8))


def test_a_machine_benchmarked_factor_is_sampled_in_a_narrower_range() -> None:
    prof = spilly({"local_write"})
    prov = {**prof.provenance, "costs.local_write": "machine benchmark (machine-costs.json)"}
    ev = gather_evidence(prof.model_copy(update={"provenance": prov}), BASE, samples=32)
    lw = np.array([p.costs.local_write for p in ev.samples]) / CostFactors().local_write
    assert 2 / 3 <= lw.min() < 0.75 and 1.35 < lw.max() <= 1.5
    assert "local_write" in ev.defaulted  # not measured on this job
