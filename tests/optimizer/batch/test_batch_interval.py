"""Each batch job read from a history or a profile carries its gain's interval (issue 14:
every prediction says how sure it is); a SWIM row, whose every factor is a prior, carries
its basis instead."""

from __future__ import annotations

import pytest

from mrtune.costmodel import ClusterSpec
from mrtune.optimizer.batch import BatchSettings, JobRef, tune_ref
from mrtune.optimizer.batch._report import csv_row
from tests.optimizer.test_trust_calibration import _profiles

CLUSTER = ClusterSpec(num_nodes=4)


@pytest.mark.parametrize(
    ("objective", "cur", "rec"),
    [("time", "current_ms", "recommended_ms"), ("resources", "current_gb_s", "recommended_gb_s")],
)
def test_a_profiled_job_has_the_interval_of_what_it_writes(
    objective: str, cur: str, rec: str
) -> None:
    ok, _, _ = _profiles()
    ref = JobRef("p:ok", "profile", "profiles.jsonl", ok.model_dump_json())
    r = tune_ref(ref, BatchSettings(cluster=CLUSTER, objective=objective))
    assert r["status"] == "tuned" and r["properties"]
    iv = r["interval"]
    sp, model = iv["speedup"], iv["speedup_model"]
    # the point is the written configuration's own prediction: what is written was scored
    assert sp["point"] == pytest.approx(r[cur] / r[rec], rel=1e-9)
    assert sp["low"] <= model["low"] <= sp["point"] <= model["high"] <= sp["high"]
    assert sp["high"] > sp["low"] and iv["samples"] == 32 and iv["measured_factors"]
    assert iv["of"] == ("GB·s" if objective == "resources" else "job time")
    assert csv_row(r)["gain_p10_p90"] == f"x{sp['low']:.3g}-x{sp['high']:.3g}"


def test_a_swim_row_has_a_basis_not_an_interval() -> None:
    line = "j\t0\t0\t400000000000\t100000\t100000"
    r = tune_ref(JobRef("j", "swim", "fb.tsv", line), BatchSettings(cluster=CLUSTER))
    assert r["changes"] and r["interval"] is None and r["basis"] == "defaulted"
    assert csv_row(r)["gain_p10_p90"] == ""
