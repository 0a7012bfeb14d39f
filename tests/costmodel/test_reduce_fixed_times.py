"""A reduce's fixed times after its shuffle (issue 20 item 5, issue 21): the merge phase's
floor (``merge_floor_ms``) and the task commit's ``canCommit`` poll (``commit_ms``).

Both are CostFactors of the profile, so ``mrtune profile`` on a user's history fits them
(documented YARN priors, capped by what the history's own phases leave over the per-record
work at its prior costs) and every command and the YARN referee use the same numbers.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.calibration import build_profile
from mrtune.calibration.prior_caps import prior_caps
from mrtune.calibration.rows import _Obs
from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile, predict_job
from mrtune.costmodel.profile import CostFactors, DataflowStats
from mrtune.readers import load_history
from mrtune.readers.conf import load_conf
from tests.calibration.test_prior_caps import _fit_of, _row

MB = 2**20
YARN = ClusterSpec(num_nodes=4)
R4 = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "yarn-r4"


def _profile(costs: CostFactors) -> JobProfile:
    return JobProfile(
        input_bytes=512 * MB,
        has_combiner=False,
        stats=DataflowStats(input_pair_width=100.0, map_size_sel=1.0, map_pairs_sel=1.0),
        costs=costs,
    )


def test_default_costs_leave_the_model_as_it_was() -> None:
    """0 by default (local mode, stored profiles); the YARN priors are 200 ms and 1 s."""
    assert CostFactors().merge_floor_ms == 0.0 and CostFactors().commit_ms == 0.0
    yarn = YARN.cost_priors()
    assert (yarn.merge_floor_ms, yarn.commit_ms) == (200.0, 1000.0)
    local = ClusterSpec.local().cost_priors()
    assert (local.merge_floor_ms, local.commit_ms) == (0.0, 0.0)


@settings(max_examples=25, deadline=None)
@given(
    reduces=st.integers(1, 64),
    factor=st.integers(2, 100),
    shuffle_pct=st.floats(0.05, 0.9),
    floor=st.floats(0.0, 2000.0),
    commit=st.floats(0.0, 5000.0),
)
def test_each_lands_once_per_reduce_in_its_phase_whatever_the_settings(
    reduces: int, factor: int, shuffle_pct: float, floor: float, commit: float
) -> None:
    """The floor is in the merge phase and the commit in the write phase, exactly once per
    reduce under any configuration: neither scales with the data nor with a setting."""
    batch = ConfigBatch.from_configs(
        [
            HadoopConfig.from_properties(
                {
                    "mapreduce.job.reduces": reduces,
                    "mapreduce.task.io.sort.factor": factor,
                    "mapreduce.reduce.shuffle.input.buffer.percent": shuffle_pct,
                }
            )
        ]
    )
    base = CostFactors()
    p0 = predict_job(_profile(base), batch, YARN)
    p1 = predict_job(
        _profile(base.model_copy(update={"merge_floor_ms": floor, "commit_ms": commit})),
        batch,
        YARN,
    )
    ph0, ph1 = p0.reduce.phase_ms, p1.reduce.phase_ms
    assert ph1["merge"][0] - ph0["merge"][0] == pytest.approx(floor, abs=1e-6)
    assert ph1["write"][0] - ph0["write"][0] == pytest.approx(commit, abs=1e-6)
    for k in ("shuffle", "reduce"):
        assert ph1[k][0] == ph0[k][0]
    assert np.array_equal(p1.counters["REDUCE_INPUT_RECORDS"], p0.counters["REDUCE_INPUT_RECORDS"])


def test_the_cap_leaves_the_per_record_work_its_prior_cost() -> None:
    """An 804 ms reduce phase holding 315 k records (157 ms at the 500 ns prior) and 1 MB of
    output (60 ms at the HDFS prior): the 1 s commit prior is capped at the 587 ms the work
    leaves, not at the whole phase (which would price the records at 0)."""
    recs, out_bytes = 314848.0, 1e6
    row = _row(reduce_cpu=recs * 1e-6, hdfs_write=out_bytes * 1e-6, commit_ms=1.0)
    obs = {"reduce.reduce": _Obs(y=[804.0], rows=[row], offset=[0.0], fixed_w=[0.0], ids=["r"])}
    fit, prior = _fit_of(obs)
    caps = {c.factor: c for c in prior_caps(obs, fit, prior)}
    work = recs * prior.reduce_cpu * 1e-6 + out_bytes * prior.hdfs_write * 1e-6
    assert caps["commit_ms"].value == pytest.approx(804.0 - work)
    assert "less its other terms at prior costs" in caps["commit_ms"].provenance("")


def test_a_phase_shorter_than_its_work_at_prior_costs_caps_at_zero() -> None:
    row = _row(reduce_cpu=4.0, commit_ms=1.0)  # 4 M records: 2 s at the prior
    obs = {"reduce.reduce": _Obs(y=[900.0], rows=[row], offset=[0.0], fixed_w=[0.0], ids=["r"])}
    fit, prior = _fit_of(obs)
    caps = {c.factor: c for c in prior_caps(obs, fit, prior)}
    assert caps["commit_ms"].value == 0.0


def _history(label: str) -> tuple[Path, Path]:
    """The committed YARN round 4's first repeat of ``label`` (gzipped .jhist and conf)."""
    run = R4 / f"{label}.r0"
    return next(run.glob("*.jhist.gz")), next(run.glob("*_conf.xml.gz"))


def test_a_yarn_history_calibrates_without_pricing_its_records_at_zero(tmp_path: Path) -> None:
    """WordCount's default run on the mini-cluster, through the user's path: before these
    terms the 1 s commit prior capped at the whole 987 ms reduce phase left reduce_cpu
    "measured" at its 0 bound and the merge phase 90% under; now the check passes, the
    commit takes what the phase leaves over the records at their prior cost, and the
    records keep that cost (said to be the prior, not a measurement)."""
    jhist, conf = _history("wc-default")
    plain = tmp_path / "job.jhist"
    plain.write_bytes(gzip.decompress(jhist.read_bytes()))
    p = build_profile(load_history(plain), load_conf(conf))
    assert p.calibration is not None and p.calibration.status == "ok", p.calibration
    seg = {s.segment: s for s in p.calibration.segments}
    assert 0.0 < p.costs.commit_ms < seg["reduce.reduce"].observed_ms
    assert p.costs.reduce_cpu == pytest.approx(CostFactors().reduce_cpu, rel=1e-9)
    assert p.provenance["costs.reduce_cpu"].startswith("defaulted: prior kept; commit_ms")
    assert p.costs.merge_floor_ms > 0.0
