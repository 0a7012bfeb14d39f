"""The YARN referee's pieces that need no Hadoop: options, command line, process sweep, waves."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.harness.minicluster import LAUNCHER_CLASS, POM, MiniClusterJars
from mrtune.harness.yarn_check import cluster_spec, max_concurrent
from mrtune.harness.yarn_run import MiniCluster, launcher_command, leftover_processes
from mrtune.readers.history import AttemptRecord, JobHistory


def test_pom_names_the_unshaded_minicluster_at_the_client_version() -> None:
    text = POM.read_text()
    assert "<artifactId>hadoop-minicluster</artifactId>" in text
    assert "<hadoop.version>3.5.0</hadoop.version>" in text


def test_cluster_settings_state_containers_and_json_histories() -> None:
    s = MiniCluster(map_memory_mb=384, task_heap_mb=250).cluster_settings()
    assert s["mapreduce.map.memory.mb"] == "384"
    assert s["mapreduce.map.java.opts"] == "-Xmx250m"
    assert s["mapreduce.jobhistory.jhist.format"] == "json"
    assert s["mapreduce.map.speculative"] == "false"


def test_launcher_command_carries_the_cluster(tmp_path: Path, monkeypatch) -> None:
    import mrtune.harness.yarn_run as yr

    monkeypatch.setattr(yr, "compile_launcher", lambda jars: tmp_path / "l.jar")
    cmd = launcher_command(
        MiniClusterJars(tmp_path),
        MiniCluster(nodemanagers=3, block_size=1 << 20),
        tmp_path / "run",
        tmp_path / "job.jar",
        "x.Main",
        ["-D", "a=b", "/in", "/out"],
        {tmp_path / "data": "/in"},
        60,
    )
    assert LAUNCHER_CLASS in cmd
    assert cmd[cmd.index("--nodemanagers") + 1] == "3"
    assert cmd[cmd.index("--block-size") + 1] == str(1 << 20)
    assert cmd[-5:] == ["--", "-D", "a=b", "/in", "/out"]
    assert f"{tmp_path / 'data'}=/in" in cmd


def test_leftover_processes_finds_a_process_working_in_the_run_dir(tmp_path: Path) -> None:
    proc = subprocess.Popen(["sleep", "30"], cwd=tmp_path)
    try:
        time.sleep(0.1)
        assert proc.pid in leftover_processes(tmp_path)
    finally:
        proc.kill()
        proc.wait()
    assert proc.pid not in leftover_processes(tmp_path)


def _attempt(i: int, start: int, finish: int) -> AttemptRecord:
    return AttemptRecord(f"a_m_{i}", f"t_m_{i}", "MAP", start, finish)


def test_waves_from_the_timeline_and_from_container_packing() -> None:
    h = JobHistory(source="x", source_format="jhist", total_maps=5)
    h.attempts = [_attempt(0, 0, 10), _attempt(1, 0, 10), _attempt(2, 1, 9)]
    h.attempts += [_attempt(3, 10, 20), _attempt(4, 11, 20)]
    assert max_concurrent(h, "MAP") == 3  # a finish at 10 frees the slot a start at 10 takes
    spec = cluster_spec(MiniCluster())
    assert (spec.num_nodes, spec.node_memory_mb, spec.am_memory_mb) == (2, 1024, 512)


def test_hadoop_run_errors_are_one_line() -> None:
    r = CliRunner().invoke(app, ["hadoop-run"])
    assert r.exit_code == 2 and "Traceback" not in r.output
    r = CliRunner().invoke(app, ["hadoop-run", "--jar", "nope.jar", "--", "a"])
    assert r.exit_code == 2 and "--class" in r.output
    r = CliRunner().invoke(
        app, ["hadoop-run", "--jar", "x.jar", "--class", "A", "--mode", "yarn", "--put", "bad"]
    )
    assert r.exit_code == 2 and "--put" in r.output


def test_history_index_is_recognised_and_bad_lines_are_one_error(tmp_path: Path) -> None:
    import json

    import pytest

    from mrtune.errors import InputError
    from mrtune.harness.yarn_fidelity import is_history_index, load_history_runs

    idx = tmp_path / "runs.jsonl"
    idx.write_text(json.dumps({"label": "a", "mode": "yarn", "jhist": None}) + "\n")
    assert is_history_index(idx)
    with pytest.raises(InputError, match="no successful YARN run"):
        load_history_runs(idx)
    idx.write_text(
        json.dumps({"label": "a", "mode": "yarn", "success": True, "jhist": "x.jhist"}) + "\n"
    )
    with pytest.raises(InputError, match="runs.jsonl:1"):
        load_history_runs(idx)
    other = tmp_path / "records.jsonl"
    other.write_text(json.dumps({"run_id": "x"}) + "\n")
    assert not is_history_index(other)


def test_a_jar_runs_group_is_its_main_class() -> None:
    # --jar runs carry no "job": all of them were one group, calibrated on the first job's run
    from mrtune.harness.yarn_fidelity import _group_of

    assert _group_of({"main_class": "org.apache.hadoop.examples.terasort.TeraSort"}) == "terasort"
    assert _group_of({"job": "wordcount", "main_class": None}) == "wordcount"
    assert _group_of({}) == ""


def test_each_job_group_takes_its_own_calibration_label() -> None:
    from mrtune.harness.yarn_fidelity import HistoryRun, _group_label

    def run(label: str, group: str) -> HistoryRun:
        return HistoryRun(label, Path(f"{label}.jhist"), Path("c.xml"), MiniCluster(), None, group)

    runs = [run("sort-default", "sort"), run("sort-r4", "sort")]
    runs += [run("wc-default", "wc"), run("wc-big", "wc")]
    assert _group_label(runs, "sort", ["wc-big", "sort-r4"]) == "sort-r4"
    assert _group_label(runs, "wc", ["wc-big", "sort-r4"]) == "wc-big"
    assert _group_label(runs, "wc", []) == "wc-default"
    assert MiniCluster().host_cores >= 1


def _one_error_line(r) -> str:  # noqa: ANN001 - a click Result
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and "Traceback" not in r.output, r.output
    return lines[0]


def test_a_yarn_run_index_is_refused_by_name_where_local_records_are_read(
    tmp_path: Path,
) -> None:
    """``hadoop-run --mode yarn``'s runs.jsonl given to fit, hadoop-summary or
    calibrate-machine was "not a file of run records (mrtune hadoop-run's runs.jsonl)"."""
    import json

    idx = tmp_path / "runs.jsonl"
    entry = {"label": "wc", "mode": "yarn", "success": True, "jhist": "wc/r0/j.jhist"}
    idx.write_text(json.dumps(entry) + "\n")
    for args in (
        ["hadoop-summary", str(idx)],
        ["calibrate-machine", str(idx), "-o", str(tmp_path / "m.json")],
        ["fit", str(idx)],
    ):
        r = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
        line = _one_error_line(r)
        assert line.startswith(f"error: {idx}: a YARN run index"), line
        assert f"`mrtune {args[0]}` does not take" in line and "`mrtune validate`" in line
        assert "not a file of run records" not in line


def test_a_container_yarn_cannot_grant_is_refused_before_the_cluster_starts(
    tmp_path: Path, monkeypatch
) -> None:
    """``--container-mb 2048 --nm-memory-mb 1024`` started the mini-cluster (~40 CPU-s) and
    then failed with "see client.log"; now one line names the option, its value and the
    largest allowed, and nothing is compiled or launched."""
    import mrtune.cli._hadoop_any as hany
    import mrtune.harness.any_job as any_job
    from mrtune.errors import InputError

    def launched(*_a, **_k):  # noqa: ANN202
        raise InputError("launched")

    monkeypatch.setattr(any_job, "run_yarn", launched)
    monkeypatch.setattr(hany, "_project_spec", lambda *a: pytest.fail("compiled the job"))
    jar = ["--jar", str(tmp_path / "x.jar"), "--class", "A", "--keep", str(tmp_path / "k")]
    for opts, option, value in (
        (["--container-mb", "2048", "--nm-memory-mb", "1024"], "--container-mb", 2048),
        (["--nm-memory-mb", "300"], "--nm-memory-mb", 300),
        (["--nodemanagers", "1", "--container-mb", "600"], "--container-mb", 600),
    ):
        for job in (jar, ["wordcount"]):
            r = CliRunner().invoke(app, ["hadoop-run", *job, "--mode", "yarn", *opts, "--", "a"])
            line = _one_error_line(r)
            assert line.startswith(f"error: {option}: ") and f"(got {value}) allowed: at" in line
    line = _one_error_line(
        CliRunner().invoke(app, ["hadoop-run", *jar, "--mode", "yarn", "--container-mb", "2048"])
    )
    assert "(got 2048) allowed: at most 1024 (--nm-memory-mb)" in line
    # a container that fits reaches the launcher
    r = CliRunner().invoke(app, ["hadoop-run", *jar, "--mode", "yarn", "--container-mb", "1024"])
    assert r.exit_code == 2 and r.stderr.splitlines()[-1] == "error: launched", r.output


def test_a_jobs_own_container_sizes_are_checked_before_the_cluster_starts(
    tmp_path: Path, monkeypatch
) -> None:
    """A user job's ``-D mapreduce.map.memory.mb=2048`` on 1024 MiB NodeManagers had started
    the mini-cluster and then failed on YARN's maximum allocation; now one line names the -D
    setting, its value and the largest allowed. Sizes that fit reach the launcher."""
    import mrtune.harness.any_job as any_job
    from mrtune.errors import InputError

    def launched(*_a, **_k):  # noqa: ANN202
        raise InputError("launched")

    monkeypatch.setattr(any_job, "run_yarn", launched)
    jar = ["hadoop-run", "--jar", str(tmp_path / "x.jar"), "--class", "A", "--mode", "yarn"]
    jar += ["--keep", str(tmp_path / "k")]
    for args, field, value in (
        (["-D", "mapreduce.map.memory.mb=2048", "in", "out"], "mapreduce.map.memory.mb", 2048),
        (["-Dmapreduce.reduce.memory.mb=1500", "in"], "mapreduce.reduce.memory.mb", 1500),
        (
            ["-D", "yarn.app.mapreduce.am.resource.mb=4096"],
            "yarn.app.mapreduce.am.resource.mb",
            4096,
        ),
    ):
        line = _one_error_line(CliRunner().invoke(app, [*jar, "--", *args]))
        assert line.startswith(f"error: -D {field}: "), line
        assert f"(got {value}) allowed: at most 1024 (--nm-memory-mb)" in line, line
    line = _one_error_line(
        CliRunner().invoke(app, [*jar, "--", "-D", "mapreduce.map.memory.mb=lots", "in"])
    )
    assert "-D mapreduce.map.memory.mb" in line and "not a whole number of MiB" in line
    # what Hadoop does not apply or check is not refused: a -D after the job's own arguments
    # (GenericOptionsParser stops there), a size of -1 (Hadoop 3: from the heap), the reduce
    # container of a map-only job; a Hadoop 1 name and Streaming's -jobconf are read
    for args in (
        ["-D", "mapreduce.map.memory.mb=512", "in", "out"],
        ["in", "out", "-D", "mapreduce.map.memory.mb=4096"],
        ["-D", "mapreduce.map.memory.mb=-1", "in"],
        ["-D", "mapreduce.job.reduces=0", "-D", "mapreduce.reduce.memory.mb=4096", "in"],
    ):
        r = CliRunner().invoke(app, [*jar, "--", *args])
        assert r.exit_code == 2 and r.stderr.splitlines()[-1] == "error: launched", args
    for args, field in (
        (["-Dmapred.job.map.memory.mb=4096", "in"], "mapred.job.map.memory.mb"),
        (["-input", "i", "-jobconf", "mapreduce.map.memory.mb=4096"], "mapreduce.map.memory.mb"),
    ):
        line = _one_error_line(CliRunner().invoke(app, [*jar, "--", *args]))
        assert line.startswith(f"error: -D {field}: "), line
    one = [*jar, "--nodemanagers", "1", "--", "-D", "yarn.app.mapreduce.am.resource.mb=900"]
    line = _one_error_line(CliRunner().invoke(app, one))
    assert line.startswith("error: -D yarn.app.mapreduce.am.resource.mb: "), line
    assert "(got 900) allowed: at most 768" in line, line
