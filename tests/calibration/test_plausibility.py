"""A factor fitted far outside its prior range is labelled implausible, not measured."""

from __future__ import annotations

from mrtune.calibration.plausibility import IMPLAUSIBLE, flag_implausible
from mrtune.costmodel import CostFactors, DataflowStats, JobProfile
from mrtune.optimizer.priors import is_measured

PRIOR = CostFactors()


def _fitted(**values: float) -> JobProfile:
    prov = {f"costs.{f}": "measured: least squares on 8 phase times" for f in values}
    return JobProfile(
        job_id="j",
        input_bytes=1e6,
        stats=DataflowStats(),
        costs=PRIOR.with_factors(values),
        provenance=prov,
    )


def test_a_factor_far_beyond_its_prior_is_not_counted_as_measured() -> None:
    # the examples' TeraSort on the mini-cluster: segment_seek_ns at 6.0 s (x2,980 its 2 ms)
    seek = PRIOR.segment_seek_ns * 2980
    p = flag_implausible(_fitted(segment_seek_ns=seek, map_cpu=PRIOR.map_cpu * 3), PRIOR)
    assert p.provenance["costs.segment_seek_ns"].startswith(IMPLAUSIBLE)
    assert "the most it can physically be" in p.provenance["costs.segment_seek_ns"]
    # a real cluster's 300 ms a spill (issue 20, x600 the prior) is a measurement
    spill = flag_implausible(_fitted(spill_file_ns=3e8), PRIOR)
    assert is_measured(spill, "spill_file_ns")
    fat = flag_implausible(_fitted(hdfs_read=PRIOR.hdfs_read * 100), PRIOR)
    assert "x100 its prior" in fat.provenance["costs.hdfs_read"].replace("×", "x")
    assert not is_measured(p, "segment_seek_ns")
    assert is_measured(p, "map_cpu")  # x3: within its range
    assert p.costs.segment_seek_ns == seek  # the value stays: it reproduces the phase times


def test_a_rate_at_zero_is_implausible_a_fixed_cost_at_zero_is_not() -> None:
    p = flag_implausible(_fitted(hdfs_write=0.0, task_overhead_ms=0.0), PRIOR)
    assert p.provenance["costs.hdfs_write"].startswith(IMPLAUSIBLE)
    assert p.provenance["costs.task_overhead_ms"].startswith("measured")  # local mode: none


def test_a_starved_cpu_is_named_beside_fixed_time() -> None:
    from mrtune.calibration.check import MissHint
    from mrtune.calibration.fit_result import cpu_share, with_starved_cpu
    from mrtune.costmodel.profile import TaskTiming

    def attempt(cpu: float) -> TaskTiming:
        return TaskTiming(
            attempt_id=f"a{cpu}", kind="map", start_ms=0, finish_ms=10_000,
            phases_ms={"total": 10_000.0}, counters={"CPU_MILLISECONDS": cpu},
        )  # fmt: skip

    hints = {"map.sort": MissHint(above="a", below="fixed time it has no term for")}
    starved = _fitted().model_copy(update={"observed": [attempt(1_800.0), attempt(2_200.0)]})
    assert cpu_share(starved) == 0.2
    got = with_starved_cpu(hints, starved)["map.sort"]
    assert "used 20% of a CPU" in got.below and got.above == "a"  # type: ignore[union-attr]
    busy = starved.model_copy(update={"observed": [attempt(9_000.0)]})
    assert with_starved_cpu(hints, busy) is hints
