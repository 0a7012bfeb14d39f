"""The batch's stacked model calls (issue 18) give exactly the per-job results: the lockstep
tuner against :func:`tune_job` job by job, the cluster-wide scoring against one model call
per job."""

from __future__ import annotations

import numpy as np

from mrtune.costmodel import ClusterSpec, evaluate
from mrtune.optimizer.batch import BatchSettings, JobRef, discover, tune_job
from mrtune.optimizer.batch._catalog import SWIM
from mrtune.optimizer.batch._tune import tune_jobs
from mrtune.optimizer.batch._worker import _candidate_batch, load_ref, score_chunk, tune_chunk
from tests.optimizer.batch.conftest import swim_rows

CLUSTER = ClusterSpec(num_nodes=50)
SETTINGS = BatchSettings(cluster=CLUSTER)


def _refs(tmp_path, n: int = 60) -> list[JobRef]:
    trace = tmp_path / "t.tsv"
    trace.write_text(swim_rows(n, start=300))
    return discover([trace])


def test_lockstep_tuner_equals_tuning_each_job_alone(tmp_path) -> None:
    refs = _refs(tmp_path)
    jobs = [load_ref(r, SETTINGS) for r in refs if float(r.payload.split("\t")[3]) > 0]
    assert any(p.map_only for p, _ in jobs) and not all(p.map_only for p, _ in jobs)
    for objective in ("time", "resources"):
        together = tune_jobs(jobs, CLUSTER, objective=objective)
        alone = [tune_job(p, b, CLUSTER, objective=objective) for p, b in jobs]
        assert together == alone


def test_a_failing_job_fails_alone_in_the_lockstep_chunk(tmp_path) -> None:
    refs = _refs(tmp_path, 8)
    bad = JobRef(key="t.tsv:99", kind=SWIM, source="t.tsv", job_id="j", payload="j\t1\tx\t3\t4\t5")
    out = tune_chunk([refs[0], bad, *refs[1:]], SETTINGS)
    assert out[1]["status"] == "failed"
    alone = [tune_chunk([r], SETTINGS)[0] for r in refs]
    assert [o for i, o in enumerate(out) if i != 1] == alone


def test_stacked_cluster_scoring_equals_one_call_per_job(tmp_path) -> None:
    refs = _refs(tmp_path)
    tuned = [r for r in tune_chunk(refs, SETTINGS) if r["status"] == "tuned"]
    names = sorted(
        {n for r in tuned for n in r["best_encoded"]}
        - {"mapreduce.job.reduces", "mapreduce.input.fileinputformat.split.maxsize"}
    )
    rng = np.random.default_rng(1)
    pick = rng.choice(len(tuned), 12)
    cands = np.array(
        [
            [
                tuned[i]["best_encoded"].get(n, tuned[0]["current_encoded"].get(n, 0.0))
                for n in names
            ]
            for i in pick
        ]
    )
    by_key = {r.key: r for r in refs}
    items = [(by_key[r["key"]], r["best_encoded"]) for r in tuned]
    got = dict(score_chunk(items, SETTINGS, names, cands))
    for ref, best in items:
        profile, batch = _candidate_batch(ref, best, SETTINGS, names, cands)
        job, _ = evaluate(profile, batch, CLUSTER)
        np.testing.assert_array_equal(got[ref.key], job)
