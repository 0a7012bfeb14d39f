"""A driver that chains MapReduce jobs, recorded as one run record (or index entry) per job.

The fixture is a real local run of the examples' Grep (hadoop-mapreduce-examples 3.4.2) over
15 MB of Zipf words: a search job (2 maps, a LongSumReducer combiner, 1 reduce) writing a
sequence file, then a sort of that output (1 map, 1 reduce, set by Grep's code). Its
``job.log`` (gzipped), the two ``job.xml`` JobSubmitter staged (trimmed to the properties a
record keeps) and the entry :func:`mrtune.harness.any_job.run_local` returned. No Hadoop is
run here.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from mrtune.calibration.fidelity import default_label
from mrtune.cli import app
from mrtune.harness.any_record import build_any_records, per_job_entries
from mrtune.harness.yarn_run import history_pairs
from mrtune.readers.run_records import RunRecord, read_jsonl, write_jsonl

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "anyjob-grep"
JOB1, JOB2 = "job_local767243868_0001", "job_local342693991_0002"


def _entry(tmp_path: Path, log: str | None = None, rc: int = 0) -> dict:
    run_dir = tmp_path / "grep-default" / "r0"
    run_dir.mkdir(parents=True)
    for f in FIXTURE.iterdir():
        shutil.copy(f, run_dir / f.name)
    if log is not None:
        (run_dir / "job.log.gz").unlink()
        (run_dir / "job.log").write_text(log)
    entry = json.loads((FIXTURE / "entry.json").read_text().replace("RUN_DIR", str(run_dir)))
    entry["exit_code"] = rc
    return entry


def _log() -> str:
    return gzip.decompress((FIXTURE / "job.log.gz").read_bytes()).decode()


def test_each_job_of_a_chain_is_its_own_record(tmp_path: Path) -> None:
    one, two = build_any_records(_entry(tmp_path), "grep", 0)
    assert [(r.label, r.job, r.job_id) for r in (one, two)] == [
        ("grep-default#1", "grep#1", JOB1),
        ("grep-default#2", "grep#2", JOB2),
    ]
    # each job's own attempts, counters and staged job.xml
    assert (one.num_maps, one.num_reduces, two.num_maps, two.num_reduces) == (2, 1, 1, 1)
    assert {a.attempt_id.split("_")[2] for a in [*two.map_attempts, *two.reduce_attempts]} == {
        "0002"
    }
    assert one.counter("MAP_INPUT_RECORDS") == 310956
    # the sort reads exactly what the search wrote
    assert two.counter("MAP_INPUT_RECORDS") == one.counter("REDUCE_OUTPUT_RECORDS") == 11110
    assert one.effective_conf["mapreduce.job.combine.class"].endswith("LongSumReducer")
    assert "mapreduce.job.combine.class" not in two.effective_conf
    assert two.fixed_by_job == ["mapreduce.job.reduces"]  # Grep's sort sets 1 reduce itself
    assert one.input.path == "file:/data/in1" and "grep-temp-" in two.input.path
    # times are each job's own: the JVM's wall and CPU time span both
    assert (one.job_time_ms, two.job_time_ms) == (6507, 1272)
    assert one.wall_time_ms == 6507 and two.wall_time_ms == 1272
    assert one.cpu_time_ms is None and two.cpu_time_ms is None
    assert one.success and two.success
    out = tmp_path / "runs.jsonl"
    write_jsonl([one, two], out)
    assert read_jsonl(out) == [one, two]


def test_a_single_job_keeps_its_label_and_the_jvm_times(tmp_path: Path) -> None:
    text = _log()
    cut = text.index("Cluster: Trying ClientProtocolProvider", text.index("Counters: 37"))
    only_first = text[: text.rfind("\n", 0, cut) + 1]
    (rec,) = build_any_records(_entry(tmp_path, only_first), "grep", 0)
    assert (rec.label, rec.job, rec.job_id) == ("grep-default", "grep", JOB1)
    assert rec.wall_time_ms == 10000 and rec.cpu_time_ms == 10300


def test_a_failed_second_job_fails_only_its_own_record(tmp_path: Path) -> None:
    text = _log().replace(
        f"Job {JOB2} completed successfully", f"Job {JOB2} failed with state FAILED due to: x"
    )
    one, two = build_any_records(_entry(tmp_path, text, rc=1), "grep", 0)
    assert one.success and not two.success


@pytest.mark.parametrize("name", ["grep#1", "grep#12", "word-count.v2#3"])
def test_a_chained_jobs_name_is_a_job_name(name: str, tmp_path: Path) -> None:
    one, _ = build_any_records(_entry(tmp_path), "grep", 0)
    assert RunRecord.model_validate({**one.model_dump(), "job": name}).job == name


@pytest.mark.parametrize("name", ["grep#0", "grep#", "grep#x", "grep#1#2", "#1"])
def test_other_hashes_are_not_job_names(name: str, tmp_path: Path) -> None:
    one, _ = build_any_records(_entry(tmp_path), "grep", 0)
    with pytest.raises(ValidationError):
        RunRecord.model_validate({**one.model_dump(), "job": name})


def test_each_job_is_calibrated_on_its_own_default_label(tmp_path: Path) -> None:
    assert default_label("grep#2", project=False) == "grep-default#2"
    assert default_label("wordcount", project=True) == "wc-default"
    one, two = build_any_records(_entry(tmp_path), "grep", 0)
    # a second configuration of the chain: the same runs under another label (plumbing only)
    again = [
        r.model_copy(update={"label": f"grep-again#{k}", "run_id": f"again-{k}"})
        for k, r in ((1, one), (2, two))
    ]
    runs = tmp_path / "runs.jsonl"
    write_jsonl([one, two, *again], runs)
    r = CliRunner().invoke(app, ["validate", str(runs), "--format", "json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert {(c["job"], c["run_id"].split("-r0")[0]) for c in report["calibrations"]} == {
        ("grep#1", "grep-default#1"),
        ("grep#2", "grep-default#2"),
    }


def test_profile_says_which_job_of_a_chain_it_took(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    write_jsonl(build_any_records(_entry(tmp_path), "grep", 0), runs)
    out = tmp_path / "p.json"
    r = CliRunner().invoke(app, ["profile", str(runs), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "holds 2 jobs; profiled grep-default#1" in json.loads(out.read_text())["warnings"][-1]
    r = CliRunner().invoke(app, ["profile", str(runs), "--job", "grep-default#2", "-o", str(out)])
    assert r.exit_code == 0, r.output
    prof = json.loads(out.read_text())
    assert prof["job_name"] == "grep#2"
    assert not any("holds 2 jobs" in w for w in prof["warnings"])


def test_history_pairs_follow_the_clients_order(tmp_path: Path) -> None:
    a, b = "job_17966_0001", "job_17966_0002"
    files = [
        tmp_path / f"{b}-1796-root-grep-sort-1796-1-1-SUCCEEDED-default-1796.jhist",
        tmp_path / f"{a}_conf.xml",
        tmp_path / f"{b}_conf.xml",
        tmp_path / f"{a}-1796-root-grep-search-1796-2-1-SUCCEEDED-default-1796.jhist",
        tmp_path / "job_17966_0003_conf.xml",  # no .jhist: left out
    ]
    pairs = history_pairs(files, [a, b])
    assert [(p["job_id"], p["jhist"].name.split("-")[0], p["conf_xml"].name) for p in pairs] == [
        (a, a, f"{a}_conf.xml"),
        (b, b, f"{b}_conf.xml"),
    ]
    # without the client's ids: by the ids' sequence numbers
    assert [p["job_id"] for p in history_pairs(files, None)] == [a, b]
    assert [p["job_id"] for p in history_pairs(files, [b, a])] == [b, a]


def test_a_yarn_chain_is_one_index_entry_per_job() -> None:
    entry = {
        "label": "grep-r3",
        "mode": "yarn",
        "main_class": "org.apache.hadoop.examples.Grep",
        "jhist": "h/a.jhist",
        "conf_xml": "h/a_conf.xml",
        "jobs": [
            {"job_id": "job_1_0001", "jhist": "h/a.jhist", "conf_xml": "h/a_conf.xml"},
            {"job_id": "job_1_0002", "jhist": "h/b.jhist", "conf_xml": "h/b_conf.xml"},
        ],
    }
    one, two = per_job_entries(entry)
    assert (one["label"], one["job"], one["jhist"]) == ("grep-r3#1", "grep#1", "h/a.jhist")
    assert (two["label"], two["job"], two["conf_xml"]) == ("grep-r3#2", "grep#2", "h/b_conf.xml")
    single = {**entry, "jobs": entry["jobs"][:1]}
    assert per_job_entries(single) == [single]


def test_a_yarn_run_on_other_files_is_predicted_on_its_own_input() -> None:
    """The input is the job's, not its configuration's: a chain's second job reads as many
    files as the first job had reducers, and the history says how many were listed."""
    from mrtune.harness.yarn_fidelity import with_own_input
    from mrtune.profiling.build import build_statistics
    from mrtune.readers import load_history
    from mrtune.readers.conf import load_conf

    run = Path(__file__).resolve().parents[2] / "benchmarks/results/yarn-r4/wc-default.r0"
    prof, _ = build_statistics(
        load_history(next(run.glob("*.jhist.gz"))), load_conf(next(run.glob("*_conf.xml.gz")))
    )
    assert with_own_input(prof, prof) is prof
    # a split change re-reads a few bytes past each split's end: the same input
    nudged = prof.model_copy(update={"input_bytes": prof.input_bytes * (1 + 1e-4)})
    assert with_own_input(prof, nudged) is prof
    three = prof.model_copy(update={"input_files": prof.input_files + 2})
    moved = with_own_input(prof, three)
    assert moved.input_files == prof.input_files + 2 and moved.stats == prof.stats
    bigger = prof.model_copy(update={"input_bytes": prof.input_bytes * 1.5})
    assert with_own_input(prof, bigger).input_bytes == prof.input_bytes * 1.5


def test_a_yarn_chains_jobs_are_calibrated_on_their_own_default_runs() -> None:
    from mrtune.harness.yarn_fidelity import HistoryRun, _group_label
    from mrtune.harness.yarn_run import MiniCluster

    def run(label: str, group: str) -> HistoryRun:
        return HistoryRun(label, Path("x.jhist"), Path("x_conf.xml"), MiniCluster(), None, group)

    runs = [run("grep-r3#2", "grep#2"), run("grep-default#2", "grep#2"), run("wc-s5", "wordcount")]
    runs.append(run("wc-default", "wordcount"))
    assert _group_label(runs, "grep#2", []) == "grep-default#2"
    assert _group_label(runs, "wordcount", []) == "wc-default"
    assert _group_label(runs, "grep#2", ["grep-r3#2"]) == "grep-r3#2"
