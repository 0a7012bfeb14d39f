"""The calibrator on cluster-scale fixed costs (issue 20, item 5).

Phase tables made by the model itself at known factors, with the new fixed costs (read
intercept, per spill, per fetch, shuffle floor) and a spill disk cost apart from the merge's:
the fit recovers what the rows identify, keeps the documented prior for what they cannot,
and says which.
"""

from __future__ import annotations

import pytest

from mrtune.calibration.cost_factors import fit_cost_factors, fit_costs_dict, solve_runs
from mrtune.costmodel import ClusterSpec, CostFactors, HadoopConfig
from tests.calibration.synthetic import TRUTH, synthetic_job

CLUSTER_TRUTH = TRUTH.model_copy(
    update={
        "read_fixed_ms": 210.0,
        "shuffle_floor_ms": 540.0,
        "fetch_ns": 1.2e7,
        "spill_file_ns": 2.6e8,
        "spill_write": 33.0,
    }
)
YARN = ClusterSpec(num_nodes=8)


def test_per_phase_table_with_fixed_costs_recovers_them_or_their_sums() -> None:
    """One run, per-phase table: per-byte and per-spill costs come back; the task's fixed
    time, the read intercept, the shuffle floor and (every reduce fetching every map) the
    per-fetch cost are each one constant per attempt of their segment, so only their sums
    per first segment are identified: the per-fetch cost keeps its YARN prior, the constant
    the task's fixed time is the part the maps' and reduces' constants share (and says so),
    and the sums come back exactly."""
    # one run cannot tell the spill's disk cost from its sort (both scale with the spilled
    # records): here they are equal to local_write; the next test separates them
    t = CLUSTER_TRUTH.model_copy(update={"spill_write": CLUSTER_TRUTH.local_write})
    prof, cfg = synthetic_job(t, per_phase=True)
    res = fit_cost_factors(prof, cfg, prior=YARN.cost_priors())
    assert res.check is not None and res.check.status == "ok", res.check.summary()
    c, prov = res.profile.costs, res.profile.provenance
    for f in ("hdfs_read", "map_cpu", "sort_cpu", "spill_file_ns", "hdfs_write", "network"):
        assert getattr(c, f) == pytest.approx(getattr(t, f), rel=0.02), f
        assert prov[f"costs.{f}"].startswith("measured"), f
    assert c.task_overhead_ms + c.read_fixed_ms == pytest.approx(
        t.task_overhead_ms + t.read_fixed_ms, rel=1e-3
    )
    maps = 8.0  # every reduce fetches all 8 maps: the per-fetch cost is per reduce here
    assert c.task_overhead_ms + c.shuffle_floor_ms + maps * c.fetch_ns / 1e6 == pytest.approx(
        t.task_overhead_ms + t.shuffle_floor_ms + maps * t.fetch_ns / 1e6, rel=1e-3
    )
    # the per-fetch cost keeps its prior (a history with other map counts would scale it)
    assert "not separable" in prov["costs.fetch_ns"]
    assert c.fetch_ns == YARN.cost_priors().fetch_ns
    # the task's fixed time is the part of the two first-phase constants they share
    assert min(c.read_fixed_ms, c.shuffle_floor_ms) == pytest.approx(0.0, abs=1e-6)
    assert prov["costs.task_overhead_ms"].startswith("measured: the part")
    assert max(abs(s.error) for s in res.check.segments) < 1e-3


def test_several_runs_separate_spill_disk_from_merge_disk_and_per_spill_cost() -> None:
    """Two runs of the job at different sort buffers (per-phase tables): spill counts differ
    at the same bytes, so the per-spill cost, the spill's disk factor and the merge's disk
    factor are all identified (issue 20: matching the spill through local_write made the
    merge +92%)."""
    runs = [
        synthetic_job(
            CLUSTER_TRUTH,
            per_phase=True,
            cfg=HadoopConfig(io_sort_mb=mb, num_reducers=3),
        )
        for mb in (12, 30, 90)
    ]
    fit = solve_runs(runs, YARN.cost_priors(), None)
    costs, prov = fit_costs_dict(fit)
    for f in ("spill_write", "local_write", "spill_file_ns", "sort_cpu", "hdfs_read"):
        assert costs[f] == pytest.approx(getattr(CLUSTER_TRUTH, f), rel=0.02), (
            f,
            prov[f"costs.{f}"],
        )


def test_map_sort_cut_ties_spill_disk_to_local_write() -> None:
    """A .jhist's map/sort cut cannot time the spills apart from the merge: spill_write then
    takes local_write's fitted value, and says so, instead of its own default."""
    prof, cfg = synthetic_job(TRUTH)
    res = fit_cost_factors(prof, cfg)
    c = res.profile.costs
    assert c.spill_write == c.local_write
    assert "tied to local_write" in res.profile.provenance["costs.spill_write"]
    assert res.check is not None and res.check.status == "ok"


def test_local_fit_ignores_the_cluster_terms() -> None:
    """From CostFactors' defaults (the local-mode priors) the new fixed terms are 0: nothing
    for the fit to price, so a local calibration is what it was."""
    prof, cfg = synthetic_job(TRUTH)
    res = fit_cost_factors(prof, cfg, prior=CostFactors())
    c = res.profile.costs
    assert c.read_fixed_ms == 0.0 and c.shuffle_floor_ms == 0.0 and c.merge_cmp_cpu == 0.0


def test_maps_alone_fixed_time_carries_the_read_intercept() -> None:
    """Maps only in the rows: the read intercept and the task's fixed time are one constant
    per map; the fixed time carries it (the intercept is 0 and says why), whatever the
    prior, so a prior larger than the observed constant cannot push the fit to its 0 bound."""
    from mrtune.calibration.cost_factors import _collect_map, _Obs
    from mrtune.calibration.solve import _solve

    t = CLUSTER_TRUTH.model_copy(
        update={"task_overhead_ms": 90.0, "read_fixed_ms": 0.0, "merge_cmp_cpu": 30.0}
    )
    t = t.model_copy(update={"spill_write": t.local_write})
    prof, cfg = synthetic_job(t)
    obs: dict[str, _Obs] = {}
    _collect_map(prof, cfg, obs)
    fit = _solve(obs, YARN.cost_priors(), None, "")
    costs, prov = fit_costs_dict(fit)
    assert costs["read_fixed_ms"] == 0.0
    assert "task_overhead_ms carries it" in prov["costs.read_fixed_ms"]
    assert costs["task_overhead_ms"] == pytest.approx(90.0, rel=0.02)
