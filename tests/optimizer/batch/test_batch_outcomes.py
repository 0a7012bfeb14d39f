"""Batch outcomes (issues 15 and 18): skipped zero-input jobs, failures counted by reason, a
non-zero exit and no cluster-wide file when nothing was tuned, a clean error for an output
path that is a file."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import ClusterSpec
from mrtune.optimizer.batch import BatchSettings, JobRef, tune_ref
from mrtune.optimizer.batch._catalog import SWIM
from tests.optimizer.batch.conftest import swim_rows

runner = CliRunner()
SETTINGS = BatchSettings(cluster=ClusterSpec(num_nodes=10))


def _swim_ref(line: str) -> JobRef:
    return JobRef(key="t.tsv:1", kind=SWIM, source="t.tsv", job_id="job9", payload=line)


def test_zero_input_job_is_skipped_with_its_reason() -> None:
    r = tune_ref(_swim_ref("job9\t1\t1\t0\t0\t10"), SETTINGS)
    assert r["status"] == "skipped"
    assert r["reason"] == r["reason_kind"] == "zero input bytes: nothing to tune"


def test_failure_reasons_drop_what_is_particular_to_the_job() -> None:
    a = tune_ref(_swim_ref("job1\t1\t2\tx\t4\t5"), SETTINGS)
    b = tune_ref(_swim_ref("job2\t7\t9\ty\t4\t5"), SETTINGS)
    assert a["status"] == b["status"] == "failed"
    assert a["reason_kind"] == b["reason_kind"]
    assert "non-numeric" in a["reason_kind"]


def test_garbage_catalog_exits_non_zero_without_a_site_file(tmp_path: Path) -> None:
    trace = tmp_path / "garbage.tsv"
    trace.write_text("".join(f"job{i}\tnot a number\t1\t2\t3\t4\n" for i in range(30)))
    out = tmp_path / "out"
    out.mkdir()
    (out / "mapred-site.xml").write_text("<configuration/>")  # left by an earlier run
    res = runner.invoke(
        app, ["batch", str(trace), "-o", str(out), "--workers", "1", "--format", "json"]
    )
    assert res.exit_code == 2, res.output
    data = json.loads(res.stdout)
    assert data["tuned"] == 0 and data["failed"] == 30
    assert list(data["failed_by_reason"].values()) == [30]
    assert "no job could be tuned" in res.stderr and "30 failed: 30 ×" in res.stderr
    assert "Traceback" not in res.output
    assert not (out / "mapred-site.xml").exists()
    assert (out / "jobs.csv").is_file()


def test_only_zero_input_jobs_exit_non_zero(tmp_path: Path) -> None:
    trace = tmp_path / "empty.tsv"
    trace.write_text("".join(f"job{i}\t1\t1\t0\t0\t10\n" for i in range(5)))
    res = runner.invoke(app, ["batch", str(trace), "-o", str(tmp_path / "o"), "--workers", "1"])
    assert res.exit_code == 2
    assert "5 skipped: 5 × zero input bytes" in res.stderr


def test_output_path_that_is_a_file_is_one_clean_line(tmp_path: Path) -> None:
    trace = tmp_path / "t.tsv"
    trace.write_text(swim_rows(3))
    target = tmp_path / "file.txt"
    target.write_text("x")
    res = runner.invoke(app, ["batch", str(trace), "-o", str(target)])
    assert res.exit_code == 2
    assert "is a file, not a directory" in res.stderr and "-o/--outdir" in res.stderr
    assert "Traceback" not in res.output and len(res.stderr.strip().splitlines()) == 1
    res = runner.invoke(app, ["batch", str(trace), "-o", str(target / "sub")])
    assert res.exit_code == 2 and "is a file" in res.stderr and "Traceback" not in res.output
