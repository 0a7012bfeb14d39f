"""A user's job run in local mode (``hadoop-run --jar``) recorded as the project's runs are.

The fixture is a real run of a user's job (SensorStats: per-sensor aggregates with a combiner,
main class ``h3.SensorStats``) over three small CSV files: its ``job.log`` (gzipped), the
``job.xml`` JobSubmitter staged (trimmed to the properties a record keeps) and the entry
:func:`mrtune.harness.any_job.run_local` returned. No Hadoop is run here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.calibration.run_profile import profile_from_run
from mrtune.cli import app
from mrtune.costmodel import ClusterSpec, ConfigBatch
from mrtune.costmodel.job import predict_job
from mrtune.errors import InputError
from mrtune.harness.any_record import build_any_records, d_settings, job_name_of
from mrtune.profiling.baseline import profile_config
from mrtune.readers.run_records import RunRecord, read_jsonl, write_jsonl

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "anyjob-sensorstats"
CONF = "job_local874019025_0001.xml"


def _run_dir(tmp_path: Path, with_conf: bool = True) -> tuple[Path, dict]:
    run_dir = tmp_path / "sensorstats-default" / "r0"
    run_dir.mkdir(parents=True)
    for name in ("job.log.gz", "client.log", *([CONF] if with_conf else [])):
        shutil.copy(FIXTURE / name, run_dir / name)
    entry = json.loads((FIXTURE / "entry.json").read_text().replace("RUN_DIR", str(run_dir)))
    return run_dir, entry


def _record(tmp_path: Path, with_conf: bool = True) -> RunRecord:
    _, entry = _run_dir(tmp_path, with_conf)
    (rec,) = build_any_records(entry, job_name_of(entry["main_class"]), 0)
    return rec


def test_a_user_jobs_local_run_becomes_a_run_record(tmp_path: Path) -> None:
    rec = _record(tmp_path)
    assert rec.job == "sensorstats" and rec.main_class == "h3.SensorStats"
    assert rec.success and rec.job_id == "job_local874019025_0001"
    assert (rec.num_maps, rec.num_reduces) == (3, 1)
    # job totals from the "Counters: N" block, under Hadoop's internal names
    assert rec.counter("MAP_INPUT_RECORDS") == 573
    assert rec.counter("COMBINE_OUTPUT_RECORDS") == 55
    assert rec.counter("SPILLED_RECORDS") == 110
    assert rec.counters["sensorstats"]["MALFORMED"] == 18  # the job's own counter, kept
    assert all(a.counter("MAP_OUTPUT_RECORDS") for a in rec.map_attempts)
    assert all(a.spills for a in rec.map_attempts)
    # the staged job.xml gives the resolved configuration, the job's classes included
    assert rec.conf_source.startswith("job.xml staged by JobSubmitter")
    assert rec.effective_conf["mapreduce.job.combine.class"] == "h3.SensorStats$MergeCombiner"
    assert rec.effective_conf["mapreduce.task.io.sort.mb"] == "100"
    # input files and sizes from the splits the maps read
    sizes = rec.input_file_sizes()
    assert sorted(sizes.values()) == [7081, 8943, 10840]
    assert (
        rec.input.bytes == sum(sizes.values()) and rec.input.path == "file:/work/scratch/h4/tiny"
    )
    # submit (Cluster.initialize's DEBUG line) to the Counters line; the job printed 4314 ms
    # from just before waitForCompletion
    assert rec.job_time_ms == 4296
    again = tmp_path / "again.jsonl"
    write_jsonl([rec], again)
    assert read_jsonl(again)[0] == rec


def test_profile_of_a_user_job_takes_its_name_and_input_files(tmp_path: Path) -> None:
    rec = _record(tmp_path)
    prof = profile_from_run(rec)
    assert prof.job_name == "sensorstats"
    assert prof.input_files == 3 and prof.input_bytes == 26864
    assert prof.provenance["input_files"].startswith("measured: 3 input files")
    assert prof.has_combiner
    # the self-check now runs on run-record profiles: three maps in the model and the run
    facts = prof.cluster_facts
    assert facts["self_check.maps.observed"] == facts["self_check.maps.model"] == 3.0
    assert not any("maps where the job ran" in w for w in prof.warnings)
    # three files of unequal size: one map class each, so each map is modelled at its own size
    sizes = sorted(c.input_bytes / c.input_files for c in prof.map_classes)
    assert sizes == [7081, 8943, 10840]
    assert "unequal size in 3 classes (one size each)" in prof.provenance["input_files"]
    pred = predict_job(prof, ConfigBatch.from_configs([profile_config(prof)]), ClusterSpec())
    assert pred.num_maps[0] == 3


def test_self_check_warns_when_the_models_maps_differ_from_the_run(tmp_path: Path) -> None:
    rec = _record(tmp_path)
    one_split = [a.model_copy(update={"split_path": "file:/x/all.csv"}) for a in rec.map_attempts]
    for i, a in enumerate(one_split):  # as if three consecutive splits of one 26,864 B file
        one_split[i] = a.model_copy(update={"split_start": 8955 * i, "split_length": 8955})
    prof = profile_from_run(rec.model_copy(update={"map_attempts": one_split}))
    assert prof.input_files == 1
    assert any("layout gives 1 maps where the job ran 3" in w for w in prof.warnings)


def test_without_a_staged_job_xml_the_log_and_settings_give_the_conf(tmp_path: Path) -> None:
    rec = _record(tmp_path, with_conf=False)
    assert rec.conf_source.startswith("no job.xml was captured")
    conf = rec.effective_conf
    assert conf["mapreduce.task.io.sort.mb"] == "100" and conf["mapreduce.job.reduces"] == "1"
    assert "mapreduce.job.combine.class" in conf
    assert profile_from_run(rec).has_combiner


def test_d_settings_and_job_names() -> None:
    args = ["-D", "a.b=1", "-Dc.d=x=y", "-D", "bad", "in", "out"]
    assert d_settings(args) == {"a.b": "1", "c.d": "x=y"}
    assert job_name_of("h3.SensorStats") == "sensorstats"
    assert job_name_of("Top$Inner") == "top_inner"
    RunRecord.model_validate({**_minimal(), "job": "sensorstats"})
    with pytest.raises(ValueError):
        RunRecord.model_validate({**_minimal(), "job": "has space"})


def _minimal() -> dict:
    return {
        "run_id": "x",
        "job": "wordcount",
        "xmx_mb": 1,
        "input": {"kind": "other", "path": "", "bytes": 1},
        "started_at_ms": 0,
        "wall_time_ms": 0.0,
        "exit_code": 0,
        "success": True,
    }


def test_cli_profile_validate_and_summary_read_the_record(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    write_jsonl([_record(tmp_path)], runs)
    r = CliRunner().invoke(app, ["profile", str(runs), "--from", "run", "--format", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["job_name"] == "sensorstats" and doc["input_files"] == 3
    assert CliRunner().invoke(app, ["hadoop-summary", str(runs)]).exit_code == 0
    r = CliRunner().invoke(app, ["validate", str(runs), "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["calibrations"][0]["job"] == "sensorstats"
    # a local run's profile asked about a cluster: --nodes is heard, not dropped
    prof = tmp_path / "prof.json"
    r = CliRunner().invoke(app, ["profile", str(runs), "--from", "run", "-o", str(prof)])
    assert r.exit_code == 0, r.output
    for nodes, want in ((None, 1), ("10", 10)):
        args = ["whatif", str(prof), "--format", "json", *(["--nodes", nodes] if nodes else [])]
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 0, r.output
        doc = json.loads(r.stdout)
        cluster = doc["cluster"].get("what_if", doc["cluster"])
        assert cluster["num_nodes"] == want
        assert cluster["local_mode"] is (nodes is None)
        # on HDFS the input is in the cluster's blocks, not the local file system's 32 MiB
        assert ("dfs.blocksize" in doc["changes"]) is (nodes is not None)
    # optimize: the cluster line says what --nodes made of it
    r = CliRunner().invoke(app, ["optimize", str(prof), "--nodes", "10", "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["cluster"]["num_nodes"] == 10


def test_validate_refusal_names_the_default_label_and_the_option(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    rec = _record(tmp_path).model_copy(update={"label": "mine"})
    write_jsonl([rec], runs)
    r = CliRunner().invoke(app, ["validate", str(runs)])
    assert r.exit_code == 2
    assert "sensorstats-default" in r.output and "--calibrate" in r.output
    assert "wc-default" not in r.output


def test_a_second_run_of_a_label_is_recorded_as_its_next_repeat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mrtune.harness.any_job as any_job
    import mrtune.harness.jars as jars

    def fake_run_local(spec, run_dir, hadoop, xmx_mb=2048, timeout_s=1800):  # noqa: ANN001
        run_dir.mkdir(parents=True)
        for name in ("job.log.gz", "client.log", CONF):
            shutil.copy(FIXTURE / name, run_dir / name)
        entry = json.loads((FIXTURE / "entry.json").read_text())
        entry.update(run_dir=str(run_dir), label=spec.label, args=spec.args)
        return entry

    monkeypatch.setattr(any_job, "run_local", fake_run_local)
    monkeypatch.setattr(jars, "find_jars", lambda _=None: None)
    keep = tmp_path / "runs"
    jar = tmp_path / "user.jar"
    jar.write_bytes(b"")
    args = ["hadoop-run", "--jar", str(jar), "--class", "h3.SensorStats", "--keep", str(keep)]
    for _ in range(2):
        r = CliRunner().invoke(app, [*args, "--format", "json", "--", "in", "out"])
        assert r.exit_code == 0, r.output
    recs = read_jsonl(keep / "runs.jsonl")
    assert [(r.label, r.repeat) for r in recs] == [("sensorstats", 0), ("sensorstats", 1)]
    assert (keep / "sensorstats" / "r1").is_dir()


def test_a_d_setting_the_driver_dropped_gives_way_to_the_staged_job_xml(tmp_path: Path) -> None:
    # the examples' WordMedian builds a new Configuration in run(): -D io.sort.mb=5 never
    # reached the job, whose staged job.xml (and task log) say 100; the profile took 5
    rec = _record(tmp_path)
    asked = rec.model_copy(update={"settings": {"mapreduce.task.io.sort.mb": "5"}})
    assert asked.ignored_settings() == {"mapreduce.task.io.sort.mb": "100"}
    assert asked.ran_with()["mapreduce.task.io.sort.mb"] == "100"
    prof = profile_from_run(asked)
    assert profile_config(prof).io_sort_mb == 100
    line = next(w for w in prof.warnings if "did not run with" in w)
    assert "-D mapreduce.task.io.sort.mb=5 (job.xml: 100)" in line
    # a record without a staged job.xml: the settings are all there is
    bare = _record(tmp_path / "bare", with_conf=False)
    assert bare.ignored_settings() == {}


def test_a_generator_job_is_refused_in_one_line(tmp_path: Path) -> None:
    # TeraGen: RangeInputFormat makes its records, no file is read (ZeroDivisionError before)
    rec = _record(tmp_path)
    gen = rec.model_copy(
        update={
            "input": rec.input.model_copy(update={"bytes": 0}),
            "map_attempts": [a.model_copy(update={"split_path": None}) for a in rec.map_attempts],
        }
    )
    with pytest.raises(InputError, match="read no input to speak of"):
        profile_from_run(gen)
    # RandomWriter, RandomTextWriter: a one-byte dummy split a map, megabytes written
    dummy = gen.model_copy(update={"input": rec.input.model_copy(update={"bytes": 3})})
    assert (dummy.counter("MAP_OUTPUT_BYTES") or 0) > 1000 * 3
    with pytest.raises(InputError, match="3 B for"):
        profile_from_run(dummy)
    runs = tmp_path / "gen.jsonl"
    write_jsonl([gen], runs)
    r = CliRunner().invoke(app, ["profile", str(runs), "--from", "run"])
    assert r.exit_code == 2 and "read no input to speak of" in r.output
    assert "Traceback" not in r.output


def test_a_run_record_is_recognised_without_from_run(tmp_path: Path) -> None:
    # hadoop-run -o writes a JSON list of records, runs.jsonl one a line: both were read as
    # REST JSON ("no successful task attempt"), and diagnose reported an empty job with exit 0
    rec = _record(tmp_path)
    listed = tmp_path / "run.json"
    listed.write_text(json.dumps([rec.model_dump(mode="json")], indent=1), encoding="utf-8")
    lines = tmp_path / "runs.jsonl"
    write_jsonl([rec], lines)
    for path in (listed, lines):
        r = CliRunner().invoke(app, ["profile", str(path), "--format", "json"])
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout)["job_name"] == "sensorstats"
    r = CliRunner().invoke(app, ["whatif", str(listed), "--set", "mapreduce.job.reduces=2"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["diagnose", str(listed), "--format", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["job_name"] == "sensorstats-default" and doc["state"] == "SUCCEEDED"
    assert doc["profiled"] is True


def test_combine_file_splits_are_read_whole_and_kept_as_packed(tmp_path: Path) -> None:
    # MultiFileWordCount: "Processing split: Paths:/in/s00:0+509791,/in/s01:0+510287" was read
    # as one file of the last chunk's size (every per-byte statistic 11.8x off)
    from mrtune.readers.task_log import P_COMBINED_SPLIT, P_SPLIT_PART

    line = "Processing split: Paths:/in/s00:0+509791,/in/s01:0+510287 Locations:host1:; "
    m = P_COMBINED_SPLIT.match(line)
    assert m is not None
    parts = [P_SPLIT_PART.match(p)[0] for p in m[1].split(",")]  # type: ignore[index]
    assert parts == ["/in/s00:0+509791", "/in/s01:0+510287"]
    rec = _record(tmp_path)
    packed = []
    for i, a in enumerate(rec.map_attempts):
        files = [(f"/in/m{i}-{j}", 0, 1000 * (i + 1)) for j in range(3)]
        packed.append(
            a.model_copy(
                update={
                    "split_path": None,
                    "split_parts": files,
                    "split_length": sum(n for *_, n in files),
                }
            )
        )
    sizes = sorted(1000 * (i + 1) * 3 for i in range(len(packed)))
    rec = rec.model_copy(
        update={
            "map_attempts": packed,
            "input": rec.input.model_copy(update={"bytes": sum(sizes)}),
        }
    )
    assert len(rec.input_file_sizes()) == 3 * len(packed)  # every file of every split
    prof = profile_from_run(rec)
    assert not prof.input_splittable and prof.input_files == len(packed)
    assert sorted(c.input_bytes for c in prof.map_classes) == sizes
    assert any("CombineFileInputFormat" in w for w in prof.warnings)


def test_a_map_only_jobs_output_is_what_it_wrote(tmp_path: Path) -> None:
    # NewDirectOutputCollector never counts MAP_OUTPUT_BYTES: RandomTextWriter's 5.1 MB of
    # output was profiled as 0 bytes, and its output compression priced at exactly nothing
    rec = _record(tmp_path)
    counters = {g: dict(v) for g, v in rec.counters.items()}
    counters["org.apache.hadoop.mapreduce.TaskCounter"]["MAP_OUTPUT_BYTES"] = 0
    written = 5_131_744
    counters["org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter"]["BYTES_WRITTEN"] = (
        written
    )
    maponly = rec.model_copy(
        update={"counters": counters, "num_reduces": 0, "reduce_attempts": []}
    )
    prof = profile_from_run(maponly)
    assert prof.map_only
    assert prof.stats.map_size_sel == pytest.approx(written / prof.input_bytes)
    assert "BYTES_WRITTEN" in prof.provenance["stats.map_size_sel"]


def test_a_jar_job_named_like_a_project_job_calibrates_on_its_own_label(tmp_path: Path) -> None:
    # the examples' WordCount is "wordcount", as the project's job is: validate looked for the
    # project's wc-default and refused the user's wordcount-default
    rec = _record(tmp_path).model_copy(
        update={
            "job": "wordcount",
            "label": "wordcount-default",
            "main_class": "org.apache.hadoop.examples.WordCount",
        }
    )
    runs = tmp_path / "runs.jsonl"
    write_jsonl([rec], runs)
    r = CliRunner().invoke(app, ["validate", str(runs), "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["calibrations"][0]["job"] == "wordcount"


def test_a_jvm_that_ends_before_a_job_says_why(tmp_path: Path) -> None:
    # Hadoop Streaming on the shaded client jars: commons-cli is missing, no job.log is left
    from mrtune.harness.any_record import started_no_job

    (tmp_path / "client.log").write_text(
        'Exception in thread "main" java.lang.NoClassDefFoundError: '
        "org/apache/commons/cli/CommandLineParser\n"
        "\tat org.apache.hadoop.streaming.HadoopStreaming.main(HadoopStreaming.java:49)\n"
    )
    why = started_no_job(tmp_path)
    assert why is not None and why.startswith("java.lang.NoClassDefFoundError: org/apache")
    assert "HADOOP_CLASSPATH" in why and "client.log" in why
    (tmp_path / "job.log").write_text("1 INFO [main] JobSubmitter: number of splits:1\n")
    assert started_no_job(tmp_path) is None


def test_hadoop_classpath_comes_between_the_jar_and_hadoops_jars(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mrtune.harness.any_job import JobSpec, job_classpath
    from mrtune.harness.jars import HadoopJars

    jar, cli = tmp_path / "job.jar", tmp_path / "commons-cli.jar"
    jars = HadoopJars("test", tmp_path, (tmp_path / "hadoop-client-api.jar",), "3.5.0")
    monkeypatch.setenv("HADOOP_CLASSPATH", f"{cli}:")
    cp = job_classpath(tmp_path, JobSpec(jar, "Main", [], "job", {}), jars).split(":")
    assert cp == [
        str(tmp_path / "conf"),
        str(jar),
        str(cli),
        str(tmp_path / "hadoop-client-api.jar"),
    ]
    monkeypatch.delenv("HADOOP_CLASSPATH")
    assert str(cli) not in job_classpath(tmp_path, JobSpec(jar, "Main", [], "job", {}), jars)
