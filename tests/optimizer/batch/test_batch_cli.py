"""``mrtune batch`` through the CLI: text and JSON output, user errors, a real kill + resume."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from mrtune.cli import app
from tests.optimizer.batch.conftest import swim_rows

runner = CliRunner()


def test_cli_batch_json_and_text(catalog: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["batch", str(catalog), "-o", str(out), "--workers", "1", "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["failed"] >= 2 and data["tuned"] > 100
    assert Path(data["files"]["mapred_site"]).is_file()
    res = runner.invoke(app, ["batch", str(catalog), "-o", str(out), "--resume", "--no-plots"])
    assert res.exit_code == 0, res.output
    assert "0 computed" in res.stdout and "Settings that matter most" in res.stdout


def test_cli_batch_user_errors(catalog: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["batch", str(catalog), "-o", str(tmp_path), "--objective", "cost"])
    assert res.exit_code == 2 and "allowed: time, resources" in res.output
    res = runner.invoke(app, ["batch", str(tmp_path / "nope"), "-o", str(tmp_path / "o")])
    assert res.exit_code == 2 and "no such file" in res.output
    bad = tmp_path / "base.json"
    bad.write_text('{"input_bytes": -1}')
    res = runner.invoke(
        app, ["batch", str(catalog), "-o", str(tmp_path / "o2"), "--base-profile", str(bad)]
    )
    assert res.exit_code == 2 and "input_bytes" in res.output
    res = runner.invoke(
        app,
        ["batch", str(catalog), "-o", str(tmp_path / "o3"), "--workers", "2", "--scheduler", "x"],
    )
    assert res.exit_code == 2 and "not both" in res.output


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=1) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def test_killed_cli_process_resumes_to_the_same_results(tmp_path: Path) -> None:
    from mrtune.cli._inputs import DEFAULT_NODES
    from mrtune.costmodel import ClusterSpec
    from mrtune.optimizer.batch import BatchSettings, run_batch

    n = 200
    trace = tmp_path / "fb.tsv"
    trace.write_text(swim_rows(n))
    # The uninterrupted reference, in-process (same settings as the CLI's defaults).
    settings = BatchSettings(cluster=ClusterSpec(num_nodes=DEFAULT_NODES))
    run_batch([trace], tmp_path / "full", settings, workers=1, plots=False)
    cmd = [sys.executable, "-m", "mrtune", "batch", str(trace), "--workers", "1"]
    cmd += ["--no-plots", "--format", "json"]
    env = dict(os.environ)
    out = tmp_path / "killed"
    proc = subprocess.Popen(cmd + ["-o", str(out)], env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _count(out / "batch.sqlite") == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)  # as a crash or `kill -9` would
    proc.wait()
    committed = _count(out / "batch.sqlite")
    assert 0 < committed < n, "the kill must land mid-batch"
    assert not (out / "jobs.jsonl").exists()
    res = subprocess.run(cmd + ["-o", str(out), "--resume"], env=env, capture_output=True)
    assert res.returncode == 0, res.stderr.decode()
    data = json.loads(res.stdout)
    assert data["reused"] == committed and data["computed"] == n - committed
    for name in ("jobs.jsonl", "jobs.csv", "summary.json", "mapred-site.xml"):
        assert (out / name).read_text() == (tmp_path / "full" / name).read_text()


def test_batch_says_which_cluster_it_priced_every_job_on(tmp_path: Path) -> None:
    # a SWIM row records no cluster: the assumed 10 nodes were said nowhere
    tsv = tmp_path / "t.tsv"
    tsv.write_text(swim_rows(3))
    out = tmp_path / "o"
    args = ["batch", str(tsv), "-o", str(out), "--workers", "1", "--no-plots", "--nodes", "7"]
    r = CliRunner().invoke(app, [*args, "--format", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["cluster"]["num_nodes"] == 7 and "--nodes" in doc["cluster"]["origin"]
    r = CliRunner().invoke(app, [*args, "--overwrite"])
    assert "cluster: 7 nodes" in r.output


def test_a_swim_row_beyond_a_java_long_fails_at_read_without_warnings(tmp_path: Path) -> None:
    """1e308 bytes had run into the model: 18 numpy RuntimeWarnings, then "the job's current
    configuration is infeasible"; the row is now refused as it is read, naming the file, the
    row, the field, the value and the range, and the other rows are tuned."""
    import warnings

    tsv = tmp_path / "huge.tsv"
    tsv.write_text("j1\t10\t10\t1e308\t1e308\t1e308\nj4\t1\t1\t5000000\t5000\t5000\n")
    out = tmp_path / "o"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        r = runner.invoke(app, ["batch", str(tsv), "-o", str(out), "--workers", "1", "--no-plots"])
    assert r.exit_code == 0, r.output
    rows = {d["job_id"]: d for d in map(json.loads, (out / "jobs.jsonl").read_text().splitlines())}
    assert rows["j4"]["status"] == "tuned"
    assert rows["j1"]["status"] == "failed"
    assert rows["j1"]["reason"] == (
        f"InputError: {tsv}:1: map_input_bytes: beyond a Java long (got '1e308') allowed: 0 to "
        "9223372036854775807 bytes (a Java long, as Hadoop counts bytes)"
    )


def test_batch_errors_come_alone_and_skipped_files_are_named(tmp_path: Path) -> None:
    """A batch error was preceded by an empty line on stderr (the progress display, stopped
    before any stage); a directory's .json that batch does not take is named in a note."""
    empty = tmp_path / "empty.tsv"
    empty.write_text("")
    res = runner.invoke(app, ["batch", str(empty), "-o", str(tmp_path / "o")])
    assert res.exit_code == 2 and res.stderr.startswith(f"error: {empty}: no jobs found")
    cat = tmp_path / "cat"
    cat.mkdir()
    (cat / "report.json").write_text('{"a": 1}\n')
    res = runner.invoke(app, ["batch", str(cat), "-o", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    text = " ".join(res.stderr.split())
    assert text.startswith(f"note: {cat / 'report.json'}: skipped: JSON that is neither")
    assert f"error: {cat}: no jobs found" in text
