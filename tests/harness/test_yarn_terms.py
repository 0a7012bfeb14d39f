"""Cost priors given from other runs (:mod:`mrtune.harness.yarn_terms`): the calibration keeps
a given value for what its history cannot separate, and says where it came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.errors import InputError
from mrtune.harness.yarn_fidelity import calibration_profile, load_history_runs
from mrtune.harness.yarn_terms import fit_profile
from mrtune.readers import load_history
from mrtune.readers.conf import load_conf

ROUND = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "yarn-r3"


@pytest.fixture(scope="module")
def cal():
    runs = load_history_runs(ROUND / "runs.jsonl")
    return next(r for r in runs if r.label == "sort-default" and r.repeat == 1)


def test_a_given_spill_cost_replaces_the_prior_the_fit_keeps(cal) -> None:
    plain, _ = calibration_profile(cal)
    given, _ = calibration_profile(cal, priors={"spill_file_ns": 20e6})
    # the YARN prior (one spill per map: not separable), capped at the shortest final spill
    # this history observed (mrtune.calibration.prior_caps: 123 ms, its attempts' times
    # without the host's CPU contention)
    assert plain.costs.spill_file_ns == 123e6
    assert (
        "prior 300 ms per spill capped at the observed 123 ms"
        in (plain.provenance["costs.spill_file_ns"])
    )
    assert given.costs.spill_file_ns == 20e6
    assert (
        "measured on other runs (spill_file_ns=2e+07)" in given.provenance["costs.spill_file_ns"]
    )
    # the spill phase's write cost takes up what the fixed spill cost no longer holds
    assert given.costs.local_write > plain.costs.local_write


def test_no_priors_is_the_users_path_and_unknown_factors_are_refused(cal) -> None:
    h, conf = load_history(cal.jhist), load_conf(cal.conf_xml)
    assert fit_profile(h, conf, {}).costs == fit_profile(h, conf, None).costs
    with pytest.raises(InputError, match="not a cost factor"):
        fit_profile(h, conf, {"spill_fil_ns": 1.0})
