"""A fixed-cost prior the history contradicts is capped by what it observed (issue 20, item 5).

* the shared QuasiMonteCarlo histories (one spill per map, a 58-69 ms sort/spill segment)
  keep the YARN per-spill prior capped at that segment, calibrate their map segments within
  tolerance, and what still misses is flagged with the right reason;
* a constructed history where the cap binds (the factor fitted beside it sees the capped
  value) and one where it does not (the profile unchanged bit for bit);
* which segment bounds which cost, and how many of it the segment holds (:data:`BOUNDS`);
* the check's reason says which way a segment of fixed time misses: above, a prior larger
  than this cluster shows; below, fixed time the model has no term for.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

from mrtune.calibration.check import MissHint, check_calibration
from mrtune.calibration.cost_factors import fit_cost_factors
from mrtune.calibration.prior_caps import BOUNDS, prior_caps
from mrtune.calibration.profiles import load_profile_source
from mrtune.calibration.rows import _Obs, fit_columns
from mrtune.calibration.stacking import _Fit
from mrtune.costmodel import ClusterSpec, CostFactors, HadoopConfig, JobProfile
from tests.calibration.synthetic import TRUTH, synthetic_job

YARN = ClusterSpec(num_nodes=8)
#: each QuasiMonteCarlo history's one map: its sort/spill segment (mapFinishTime -> finish, ms)
QMC_SORT_MS = {"0001": 66, "0002": 58, "0004": 69}


@contextmanager
def caps_off() -> Iterator[None]:
    """The fit as it was before the cap: no kept prior is found contradicted."""
    with mock.patch("mrtune.calibration.prior_caps.prior_caps", return_value=[]):
        yield


def _qmc(shared_data: Path, n: str) -> JobProfile:
    jhist = next((shared_data / "jhist").glob(f"job_1526555215992_{n}-*.jhist"))
    return load_profile_source(jhist, shared_data / "jhist" / f"job_1526555215992_{n}_conf.xml")


@pytest.mark.parametrize("n", sorted(QMC_SORT_MS))
def test_qmc_histories_cap_the_spill_prior_at_their_sort_segment(shared_data, n) -> None:
    p = _qmc(shared_data, n)
    ms = QMC_SORT_MS[n]
    assert p.costs.spill_file_ns == ms * 1e6
    how = p.provenance["costs.spill_file_ns"]
    assert how.startswith(
        f"defaulted: prior 300 ms per spill capped at the observed {ms} ms "
        "(map sort/spill (mapFinishTime→finish), "
        f"attempt_1526555215992_{n}_m_000000_0"
    ), how
    assert "MapOutputBuffer.flush" in how
    check = p.calibration
    assert check is not None
    seg = {s.segment: s for s in check.segments}
    assert seg["map.sort"].ok and seg["map.map"].ok and seg["reduce.shuffle"].ok
    # the reduce's fixed times after its shuffle (the merge's floor, the task commit's
    # canCommit poll) are capped the same way, net of the per-record work at its prior: the
    # whole history calibrates
    assert check.status == "ok", check.reason
    assert seg["reduce.merge"].ok and seg["reduce.reduce"].ok
    commit = p.provenance["costs.commit_ms"]
    assert commit.startswith("defaulted: prior 1000 ms per reduce capped at the observed"), commit
    assert "less its other terms at prior costs" in commit and "canCommit" in commit
    assert 0 < p.costs.commit_ms <= seg["reduce.reduce"].observed_ms
    assert 0 < p.costs.merge_floor_ms <= seg["reduce.merge"].observed_ms
    # the fit's warning says the spill's fixed cost prices the segment now
    assert any("its fixed costs give the rest (" in w for w in p.warnings), p.warnings


def test_qmc_without_the_cap_says_the_prior_is_too_large(shared_data) -> None:
    """Before the cap (issue 20's finding): the model is ABOVE the 66 ms segment; the
    reason names the prior, not missing fixed time."""
    with caps_off():
        p = _qmc(shared_data, "0001")
    assert p.costs.spill_file_ns == 300e6
    seg = {s.segment: s for s in p.calibration.segments}
    assert not seg["map.sort"].ok and seg["map.sort"].predicted_ms > seg["map.sort"].observed_ms
    assert seg["map.sort"].reason == (
        "the model's volume terms give 0.0% of it at prior costs: a fixed-cost prior larger "
        "than this cluster shows (spill_file_ns 300 ms)"
    )
    # the commit poll's 1 s prior, above the 212 ms reduce phase, is named the same way
    assert not seg["reduce.reduce"].ok
    assert seg["reduce.reduce"].reason.endswith("commit_ms 1000 ms)"), seg["reduce.reduce"].reason
    assert any(
        "more than the rest: priors larger than this cluster shows" in w for w in p.warnings
    )


def _equal_maps(truth: CostFactors, jitter_ms: float = 0.0) -> tuple[JobProfile, HadoopConfig]:
    """Eight equal maps of one spill each (the per-spill cost is not separable from the
    spill's volume terms), their sort segments spread by ``jitter_ms`` steps."""
    prof, cfg = synthetic_job(truth, splits_mib=(4,) * 8)
    observed = []
    for j, t in enumerate(prof.observed):
        if t.kind == "map":
            t = t.model_copy(update={"phases_ms": {**t.phases_ms}})
            t.phases_ms["sort"] += j * jitter_ms
        observed.append(t)
    return prof.model_copy(update={"observed": observed}), cfg


def test_a_binding_cap_is_the_shortest_segment_and_the_refit_sees_it() -> None:
    truth = TRUTH.model_copy(update={"spill_file_ns": 4e7})
    prof, cfg = _equal_maps(truth, jitter_ms=6.0)
    shortest = min(t.phases_ms["sort"] for t in prof.observed if t.kind == "map")
    assert shortest < 300.0  # the YARN prior is more than any sort segment observed
    res = fit_cost_factors(prof, cfg, prior=YARN.cost_priors(), spill_overlap=True)
    with caps_off():
        old = fit_cost_factors(prof, cfg, prior=YARN.cost_priors(), spill_overlap=True)
    c, how = res.profile.costs, res.profile.provenance["costs.spill_file_ns"]
    assert c.spill_file_ns == pytest.approx(shortest * 1e6, rel=1e-12)
    assert how.startswith(
        f"defaulted: prior 300 ms per spill capped at the observed {shortest:.4g}"
    )
    assert "attempt_synthetic_0001_m_000000_0" in how and "not separable" in how
    # the disk cost fitted beside it (spills tied to local_write: a .jhist cannot time them
    # apart) sees the capped value: it prices what the capped prior leaves of the segment,
    # toward its true value, and the reduce merge it also prices misses less
    lw = truth.local_write
    assert abs(c.local_write - lw) < abs(old.profile.costs.local_write - lw) / 2
    new_err, old_err = ({s.segment: abs(s.error) for s in r.check.segments} for r in (res, old))
    assert new_err["map.sort"] < 0.3 < old_err["map.sort"]
    # (the merge floor prices what the merge's volume terms leave, capped or not)
    assert new_err["reduce.merge"] < max(old_err["reduce.merge"] / 2, 1e-9)
    old_sort = next(s for s in old.check.segments if s.segment == "map.sort")
    assert not old_sort.ok and old_sort.predicted_ms > old_sort.observed_ms
    assert old_sort.reason.startswith(
        "fixed-cost prior(s) larger than this cluster shows (spill_file_ns 300 ms); "
    )


@pytest.mark.parametrize("spill_ms", [350.0, 3000.0])
def test_a_cap_that_does_not_bind_leaves_the_profile_bit_for_bit(spill_ms: float) -> None:
    prof, cfg = _equal_maps(TRUTH.model_copy(update={"spill_file_ns": spill_ms * 1e6}), 6.0)
    assert min(t.phases_ms["sort"] for t in prof.observed if t.kind == "map") > 300.0
    new = fit_cost_factors(prof, cfg, prior=YARN.cost_priors(), spill_overlap=True).profile
    with caps_off():
        old = fit_cost_factors(prof, cfg, prior=YARN.cost_priors(), spill_overlap=True).profile
    assert new.costs.spill_file_ns == 300e6
    assert new.model_dump_json() == old.model_dump_json()


def test_a_real_history_the_cap_does_not_bind_on_is_unchanged(shared_data) -> None:
    """The Hadoop 0.20 Rumen trace: nothing it observed is shorter than a prior."""
    src = shared_data / "rumen" / "zombie-input-trace.json"
    new = load_profile_source(src)
    with caps_off():
        old = load_profile_source(src)
    assert new.model_dump_json() == old.model_dump_json()


def test_the_readme_trace_caps_only_its_merge_floor(shared_data) -> None:
    """The README's WordCount trace (Hadoop 1): its 184 ms merge phase is less than the
    200 ms floor prior plus the merge's work at prior costs, so that one prior is capped (net
    of the work) and nothing else moves; its 2.6 s reduce phase is more than the commit
    poll's 1 s prior, which stays."""
    src = shared_data / "rumen" / "wordcount-rumen.json"
    new = load_profile_source(src)
    with caps_off():
        old = load_profile_source(src)
    moved = {f for f in CostFactors.model_fields if getattr(new.costs, f) != getattr(old.costs, f)}
    assert moved == {"merge_floor_ms"}
    assert 0 < new.costs.merge_floor_ms < 184.0 < old.costs.merge_floor_ms
    assert new.costs.commit_ms == old.costs.commit_ms == 1000.0


# ---- which segment bounds which cost (unit level)


def _fit_of(obs: dict[str, _Obs], prov: dict[str, str] | None = None) -> tuple[_Fit, CostFactors]:
    prior = YARN.cost_priors()
    cols = fit_columns(prior)
    theta = np.array([getattr(prior, f) for f in cols], dtype=np.float64)
    fit = _Fit(theta, cols, 0.0, "", dict(prov or {}), [], obs, list(obs))
    return fit, prior


def _row(**vol: float) -> np.ndarray:
    cols = fit_columns(YARN.cost_priors())
    r = np.zeros(len(cols))
    for f, v in vol.items():
        r[cols.index(f)] = v
    return r


def _obs(ys: list[float], rows: list[np.ndarray], ids: list[str]) -> _Obs:
    n = len(ys)
    return _Obs(
        y=ys, rows=rows, offset=[0.0] * n, fixed_w=[0.0] * n, attempt=list(range(n)), ids=ids
    )


def test_a_fetch_cost_is_bounded_by_the_shuffle_over_its_fetches() -> None:
    """8 map outputs fetched in a 40 ms shuffle: at most 5 ms a fetch (the 10 ms prior is
    capped); the floor, one per reduce, at most the shortest shuffle (its 600 ms prior is
    capped at 40 ms)."""
    rows = [_row(fetch_ns=8e-6, shuffle_floor_ms=1.0), _row(fetch_ns=8e-6, shuffle_floor_ms=1.0)]
    obs = {"reduce.shuffle": _obs([40.0, 90.0], rows, ["r0", "r1"])}
    fit, prior = _fit_of(obs)
    caps = {c.factor: c for c in prior_caps(obs, fit, prior)}
    assert caps["fetch_ns"].value == pytest.approx(5e6)
    assert (caps["fetch_ns"].count, caps["fetch_ns"].attempt) == (pytest.approx(8.0), "r0")
    assert "it holds 8" in caps["fetch_ns"].provenance("defaulted: not separable")
    assert caps["shuffle_floor_ms"].value == 40.0 and caps["shuffle_floor_ms"].count == 1.0
    assert set(caps) == {"fetch_ns", "shuffle_floor_ms"}


def test_a_read_intercept_is_bounded_by_the_map_phase_once_per_map() -> None:
    """Under spill overlap a map phase's row may hold less than 1 of the intercept (the
    blocked time's linear form); the map thread still ran it whole: one per map."""
    rows = [_row(read_fixed_ms=0.8), _row(read_fixed_ms=1.0)]
    obs = {"map.map": _obs([120.0, 400.0], rows, ["m0", "m1"])}
    fit, prior = _fit_of(obs)
    (cap,) = prior_caps(obs, fit, prior)
    assert (cap.factor, cap.value, cap.segment) == ("read_fixed_ms", 120.0, "map.map")


def test_measured_factors_and_unbounding_segments_are_never_capped() -> None:
    """A measured factor is the history's own value; the map phase does not bound the
    per-spill cost (its background spills overlap the map function in part)."""
    rows = [_row(spill_file_ns=2e-6, read_fixed_ms=1.0)]
    obs = {"map.map": _obs([50.0], rows, ["m0"])}
    fit, prior = _fit_of(obs, {"costs.read_fixed_ms": "measured: exact fit"})
    assert prior_caps(obs, fit, prior) == []
    assert "map.map" not in BOUNDS["spill_file_ns"][0]


def test_a_task_logs_final_spill_and_a_phase_tables_spills_bound_the_spill_cost() -> None:
    obs = {
        "map.spill_last": _obs([90.0], [_row(spill_file_ns=1e-6)], ["m0"]),
        "map.spill": _obs([200.0], [_row(spill_file_ns=4e-6)], ["m1"]),
    }
    fit, prior = _fit_of(obs)
    (cap,) = prior_caps(obs, fit, prior)
    assert (cap.segment, cap.attempt, cap.value) == ("map.spill", "m1", pytest.approx(50e6))
    assert cap.count == pytest.approx(4.0)


def test_the_reason_follows_the_side_of_the_miss() -> None:
    hint = MissHint(above="a prior too large", below="no term for it")
    prof, cfg = synthetic_job(TRUTH)
    prof = prof.model_copy(update={"costs": TRUTH})
    # every segment reproduced exactly at the true costs; move the observations either way
    for scale, want in ((0.5, "a prior too large"), (2.0, "no term for it")):
        observed = [
            t.model_copy(update={"phases_ms": {k: v * scale for k, v in t.phases_ms.items()}})
            if t.kind == "reduce"
            else t
            for t in prof.observed
        ]
        chk = check_calibration(
            prof.model_copy(update={"observed": observed}), cfg, hints={"reduce.merge": hint}
        )
        merge = next(s for s in chk.segments if s.segment == "reduce.merge")
        assert not merge.ok and merge.reason == want
