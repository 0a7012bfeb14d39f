"""The batch's stacked model calls (issue 18) give exactly the per-job results: the lockstep
tuner against :func:`tune_job` job by job, the cluster-wide scoring against one model call
per job."""

from __future__ import annotations

import numpy as np

from mrtune.costmodel import ClusterSpec, evaluate
from mrtune.optimizer.batch import BatchSettings, JobRef, discover, tune_job
from mrtune.optimizer.batch._catalog import SWIM
from mrtune.optimizer.batch._score import _candidate_batch, score_chunk
from mrtune.optimizer.batch._tune import tune_jobs
from mrtune.optimizer.batch._worker import load_ref, tune_chunk
from tests.optimizer.batch.conftest import as_written, swim_rows

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


def alone_changes(alone, profile, base) -> dict[str, object]:
    """The property changes that realise a tuning's changed knobs."""
    from mrtune.search_spaces import find_knob, knob_to_properties

    changes: dict[str, object] = {}
    for name in alone.changed:
        knob = find_knob(name)
        changes.update(knob_to_properties(knob, knob.decode(alone.best[name]), base, profile))
    return changes


def _spread_refs(tmp_path, n: int) -> list[JobRef]:
    """``n`` FB-2010 jobs from across the whole trace (every k-th row)."""
    lines = swim_rows(30_000).splitlines(keepends=True)
    step = max(1, len(lines) // n)
    trace = tmp_path / "spread.tsv"
    trace.write_text("".join(lines[::step][:n]))
    return discover([trace])


def test_fb2010_chunked_recommendations_equal_the_per_job_path(tmp_path) -> None:
    """300 real FB-2010 jobs (map-only and with reducers, 3,000 nodes): the chunk's
    vectorised rounds (ChunkJobs: one feasibility pass, one batch and one model call per
    round) recommend exactly what each job's own tuner recommends, property by property."""
    from mrtune.optimizer.batch._properties import changed_properties

    settings = BatchSettings(cluster=ClusterSpec(num_nodes=3000))
    refs = _spread_refs(tmp_path, 300)
    out = []
    for i in range(0, len(refs), 64):
        out.extend(tune_chunk(refs[i : i + 64], settings))
    by_key = {o["key"]: o for o in out}
    tuned = 0
    for ref in refs:
        got = by_key[ref.key]
        if float(ref.payload.split("\t")[3]) == 0:
            assert got["status"] == "skipped"
            continue
        profile, base = load_ref(ref, settings)
        alone = as_written(tune_job(profile, base, settings.cluster), got)
        assert got["status"] == "tuned"
        assert got["best_encoded"] == alone.best and got["current_encoded"] == alone.current
        assert (got["recommended_ms"], got["current_ms"]) == (alone.best_ms, alone.current_ms)
        assert got["evaluations"] == alone.evaluations
        props, _, _ = changed_properties(alone, profile, base)
        assert got["properties"] == props
        # the diff formats only changed fields: the same as diffing every property
        new = base.with_changes(dict(alone_changes(alone, profile, base))).to_properties()
        old = base.to_properties()
        assert props == {k: v for k, v in new.items() if old.get(k) != v}
        tuned += 1
    assert tuned > 250
    assert any(o.get("map_only") for o in out) and not all(o.get("map_only") for o in out)


def test_fb2010_cluster_scoring_equals_job_by_job(tmp_path) -> None:
    """The cluster-wide stage's vectorised scoring (jobs × candidates as arrays, candidates a
    job cannot tell apart costed once) against each job's own batch and model call, on
    descent-like candidates (single-knob moves, most of them invisible to map-only jobs)."""
    from mrtune.optimizer.batch._score import _scored_alone

    settings = BatchSettings(cluster=ClusterSpec(num_nodes=3000))
    refs = _spread_refs(tmp_path, 200)
    tuned = [r for r in tune_chunk(refs, settings) if r["status"] == "tuned"]
    names = sorted(
        {n for r in tuned for n in r["best_encoded"]}
        - {"mapreduce.job.reduces", "mapreduce.input.fileinputformat.split.maxsize"}
    )
    # the candidates move one knob from a valid configuration: the first job that has every
    # setting (a map-only job's current holds only its output codec; zeros in place of the
    # others would be a spill percent of 0, which MapTask refuses)
    base = next(r for r in tuned if set(names) <= set(r["current_encoded"]))
    x = np.array([base["current_encoded"][n] for n in names])
    rows = [x]
    for j, n in enumerate(names):
        for r in tuned[:40]:
            v = r["best_encoded"].get(n)
            if v is not None and v != x[j]:
                row = x.copy()
                row[j] = v
                rows.append(row)
    cands = np.unique(np.array(rows), axis=0)
    by_key = {r.key: r for r in refs}
    items = [(by_key[r["key"]], r["best_encoded"]) for r in tuned]
    for objective in ("time", "resources"):
        s = BatchSettings(cluster=settings.cluster, objective=objective)
        got = dict(score_chunk(items, s, names, cands))
        want = _scored_alone(items, s, names, cands, s.fingerprint())
        assert set(want) == {ref.key for ref, _ in items}
        for key, costs in want.items():
            np.testing.assert_array_equal(got[key], costs)
