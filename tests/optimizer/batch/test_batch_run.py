"""``run_batch`` end to end: mixed catalogs, failures, outputs, resume, Dask vs local pool."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from mrtune.costmodel import ClusterSpec
from mrtune.optimizer.batch import BatchSettings, discover, run_batch
from mrtune.optimizer.outputs import parse_site_xml
from mrtune.search_spaces import KNOBS_BY_NAME
from tests.optimizer.batch.conftest import TRUNCATED, make_catalog, swim_rows

SETTINGS = BatchSettings(cluster=ClusterSpec(num_nodes=10))


def _outputs(outdir: Path) -> dict[str, str]:
    return {
        name: (outdir / name).read_text()
        for name in ("jobs.jsonl", "jobs.csv", "summary.json", "mapred-site.xml")
    }


def test_mixed_catalog_reports_bad_jobs_and_tunes_the_rest(catalog: Path, tmp_path: Path) -> None:
    refs = discover([catalog])
    kinds = {r.kind for r in refs}
    assert kinds == {"jhist", "swim", "profile"}
    rep = run_batch([catalog], tmp_path / "out", SETTINGS, workers=1)
    s = rep.summary
    results = [json.loads(line) for line in (tmp_path / "out" / "jobs.jsonl").open()]
    assert len(results) == len(refs) == s["jobs"]
    failed = {r["key"]: r["reason"] for r in results if r["status"] == "failed"}
    # The truncated history and the impossible profile fail with their reason ...
    trunc = [k for k in failed if k.endswith(TRUNCATED)]
    assert len(trunc) == 1 and "truncated" in failed[trunc[0]]
    bad = [r for r in results if r["status"] == "failed" and r["kind"] == "profile"]
    assert len(bad) == 1 and "input_bytes" in bad[0]["reason"]
    # ... SWIM rows with no input are skipped (not failed), with their reason counted ...
    assert not [r for r in results if r["status"] == "failed" and r["kind"] == "swim"]
    swim_skipped = [r for r in results if r["status"] == "skipped"]
    assert all(r["kind"] == "swim" for r in swim_skipped)
    assert all("zero input bytes" in r["reason"] for r in swim_skipped)
    lines = (catalog / "fb2010.tsv").read_text().splitlines()
    zero = sum(1 for line in lines if float(line.split("\t")[3]) == 0)
    assert len(swim_skipped) == zero
    assert s["skipped"] == zero
    assert s["skipped_by_reason"] == ({"zero input bytes: nothing to tune": zero} if zero else {})
    # ... the failures are counted by reason ...
    assert sum(s["failed_by_reason"].values()) == s["failed"]
    assert any("input_bytes" in k for k in s["failed_by_reason"])
    # ... and every other job is tuned, whatever its kind.
    assert s["failed"] == 2
    assert s["tuned"] == len(refs) - s["failed"] - s["skipped"]
    tuned_jhist = {r["job_id"] for r in results if r["kind"] == "jhist" and r["status"] == "tuned"}
    assert tuned_jhist == {"job_1526555215992_0001", "job_1329348432655_0001"}
    for r in results:
        if r["status"] == "tuned":
            assert r["recommended_ms"] <= r["current_ms"] * (1 + 1e-9)
            assert 0.0 <= r["gain"] < 1.0
    # Outputs: CSV row per job, a site file Hadoop can read, plots.
    rows = list(csv.DictReader((tmp_path / "out" / "jobs.csv").open()))
    assert len(rows) == len(refs)
    assert {r["status"] for r in rows} == {"tuned", "failed"} | ({"skipped"} if zero else set())
    site = (tmp_path / "out" / "mapred-site.xml").read_text()
    props = parse_site_xml(site)
    assert props == s["cluster_wide"]["properties"]
    # the file's header says what its totals rest on (SWIM rows: defaulted costs only)
    basis = s["changed_by_basis"]
    assert basis.get("defaulted") and f"{basis['defaulted']:,} defaulted" in site
    assert "the model's estimate at prior costs, not a finding" in site
    for name in ("mapreduce.job.reduces", "mapreduce.input.fileinputformat.split.maxsize"):
        assert name not in props  # per-job knobs never go into the cluster-wide file
    # The site file's sort buffer fits every job's heap.
    sort_mb = float(s["cluster_wide"]["settings"]["mapreduce.task.io.sort.mb"])
    caps = [r["limits"]["mapreduce.task.io.sort.mb"] for r in results if r.get("limits")]
    assert caps and sort_mb <= min(caps)
    for png in ("gain_distribution.png", "gain_by_size.png"):
        data = (tmp_path / "out" / png).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    assert s["predicted_hours_saved"] == pytest.approx(
        s["predicted_hours_current"] - s["predicted_hours_recommended"]
    )
    assert s["predicted_hours_saved"] > 0
    assert s["settings_that_matter"], "a catalog of FB jobs has settings that matter"
    savings = [m["saving_hours"] for m in s["settings_that_matter"]]
    assert savings == sorted(savings, reverse=True)


def test_map_only_jobs_get_no_reduce_side_settings(catalog: Path, tmp_path: Path) -> None:
    run_batch([catalog], tmp_path / "out", SETTINGS, workers=1, plots=False)
    results = [json.loads(line) for line in (tmp_path / "out" / "jobs.jsonl").open()]
    map_only = [r for r in results if r["status"] == "tuned" and r["map_only"]]
    assert len(map_only) > 10
    assert any(r["changes"] for r in map_only)
    for r in map_only:
        for name in list(r["current"]) + list(r["recommended"]):
            assert KNOBS_BY_NAME[name].side != "reduce", (r["job_id"], name)
        for c in r["changes"]:
            assert KNOBS_BY_NAME[c["name"]].side != "reduce"
        for prop in r["properties"]:
            assert not prop.startswith("mapreduce.reduce."), (r["job_id"], prop)
            assert prop not in {
                "mapreduce.job.reduces",
                "mapreduce.output.fileoutputformat.compress",
            }


def test_killed_batch_resumes_to_the_same_results(catalog: Path, tmp_path: Path) -> None:
    full = run_batch([catalog], tmp_path / "full", SETTINGS, workers=1, plots=False)
    out = tmp_path / "killed"
    part = run_batch([catalog], out, SETTINGS, workers=1, stop_after=10, plots=False)
    assert part.interrupted and 10 <= part.computed < full.jobs
    assert not (out / "jobs.jsonl").exists()
    with sqlite3.connect(out / "batch.sqlite") as conn:
        stored = conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0]
    assert stored == part.computed
    # Without --resume an existing store is refused, not silently overwritten.
    from mrtune.errors import InputError

    with pytest.raises(InputError, match="--resume"):
        run_batch([catalog], out, SETTINGS, workers=1, plots=False)
    resumed = run_batch([catalog], out, SETTINGS, workers=1, resume=True, plots=False)
    assert resumed.reused == part.computed
    assert resumed.computed == full.jobs - part.computed
    assert _outputs(out) == _outputs(tmp_path / "full")
    # A finished batch re-runs from the store: nothing tuned, the cluster choice cached.
    again = run_batch([catalog], out, SETTINGS, workers=1, resume=True, plots=False)
    assert again.computed == 0 and again.cluster_cached
    assert _outputs(out) == _outputs(tmp_path / "full")
    # Resuming with other settings is refused.
    other = BatchSettings(cluster=ClusterSpec(num_nodes=20))
    with pytest.raises(InputError, match="other settings"):
        run_batch([catalog], out, other, workers=1, resume=True, plots=False)


def test_dask_cluster_gives_the_same_results_as_the_local_pool(tmp_path: Path) -> None:
    import distributed

    cat = make_catalog(tmp_path, n_swim=80)
    run_batch([cat], tmp_path / "pool", SETTINGS, workers=2, plots=False)
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            protocol="tcp://",
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
    ):
        rep = run_batch(
            [cat], tmp_path / "dask", SETTINGS, scheduler=cluster.scheduler_address, plots=False
        )
    assert "Dask" in rep.executor
    assert _outputs(tmp_path / "dask") == _outputs(tmp_path / "pool")


def test_resources_objective_minimises_gb_seconds(tmp_path: Path) -> None:
    trace = tmp_path / "fb.tsv"
    trace.write_text(swim_rows(60, start=100))
    s = BatchSettings(cluster=ClusterSpec(num_nodes=10), objective="resources")
    rep = run_batch([trace], tmp_path / "out", s, workers=1, plots=False)
    results = [json.loads(line) for line in (tmp_path / "out" / "jobs.jsonl").open()]
    tuned = [r for r in results if r["status"] == "tuned"]
    assert tuned
    for r in tuned:
        assert r["recommended_gb_s"] <= r["current_gb_s"] * (1 + 1e-9)
        assert r["gain"] == pytest.approx(1 - r["recommended_gb_s"] / r["current_gb_s"])
    assert rep.summary["objective"] == "resources"
    assert all("saving_gb_s" in m for m in rep.summary["settings_that_matter"])
