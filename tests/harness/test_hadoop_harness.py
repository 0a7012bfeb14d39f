"""Harness pieces that need no JVM: matrix specs, settings checks, data, records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.errors import InputError
from mrtune.harness.assemble import build_record
from mrtune.harness.datagen import ensure_input, write_records, write_zipf_text
from mrtune.harness.matrix import MatrixSpec, load_matrix
from mrtune.harness.runner import RunArtifacts, check_settings, parse_set_options
from mrtune.harness.summary import summarize
from mrtune.readers.run_records import PROJECT_JOBS, RunRecord, read_jsonl, write_jsonl

FIXTURES = Path(__file__).resolve().parents[1] / "readers" / "fixtures"
REPO = Path(__file__).resolve().parents[2]


def test_shipped_matrices_are_valid() -> None:
    fidelity = load_matrix(REPO / "mrtune" / "harness" / "matrices" / "matrix.yaml")
    entries = fidelity.entries()
    assert len(entries) >= 30
    assert {e.job for e in entries} == {"wordcount", "sort", "selectivity", "postings"}
    labels = ("sort-default", "wc-default", "sel-default", "pst-default")
    defaults = [e for e in entries if e.label in labels]
    assert len(defaults) == 4 and all(not e.settings and e.xmx_mb is None for e in defaults)
    postings = load_matrix(REPO / "mrtune" / "harness" / "matrices" / "postings.yaml")
    in_fidelity = {e.label: e for e in entries}
    assert all(in_fidelity[e.label] == e for e in postings.entries())
    generic = load_matrix(REPO / "mrtune" / "harness" / "matrices" / "generic.yaml")
    sels = {e.settings["mrtune.selectivity.percent"] for e in generic.entries()}
    assert sels == {str(p) for p in range(10, 101, 10)}


def test_grid_expansion_and_labels() -> None:
    spec = MatrixSpec.model_validate(
        {
            "name": "t",
            "inputs": {"a": {"kind": "records", "mib": 1}},
            "grids": [
                {
                    "job": "selectivity",
                    "label": "g",
                    "inputs": ["a"],
                    "settings": {
                        "mrtune.selectivity.percent": [10, 20],
                        "mapreduce.job.reduces": [1, 2],
                    },
                    "fixed": {"mapreduce.task.io.sort.mb": 5},
                }
            ],
        }
    )
    entries = spec.entries()
    assert len(entries) == 4
    assert entries[0].label == "g-a-percent=10-reduces=1"
    assert entries[0].settings == {
        "mapreduce.task.io.sort.mb": "5",
        "mrtune.selectivity.percent": "10",
        "mapreduce.job.reduces": "1",
    }


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        ([{"label": "x", "job": "sort", "input": "a"}] * 2, "duplicate label"),
        ([{"label": "x", "job": "sort", "input": "nope"}], "unknown input"),
        (
            [{"label": "x", "job": "sort", "input": "a", "settings": {"io.sort.mb": 5}}],
            "not mapped",
        ),
        (
            [{"label": "x", "job": "sort", "input": "a", "settings": {"hadoop.tmp.dir": "/t"}}],
            "harness",
        ),
    ],
)
def test_bad_matrix_entries(tmp_path: Path, runs: list, message: str) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(
        yaml.safe_dump({"name": "t", "inputs": {"a": {"kind": "records", "mib": 1}}, "runs": runs})
    )
    with pytest.raises(InputError, match=message):
        load_matrix(path)


def test_set_options() -> None:
    assert parse_set_options(["a.b=1", "c = x=y"]) == {"a.b": "1", "c": "x=y"}
    with pytest.raises(InputError, match="KEY=VALUE"):
        parse_set_options(["novalue"])
    with pytest.raises(InputError, match="mapreduce.map.sort.spill.percent"):
        check_settings({"io.sort.spill.percent": "0.5"})


def test_generators_are_deterministic(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert write_records(a, 100_050, seed=3) == 1000
    write_records(b, 100_050, seed=3)
    assert a.read_bytes() == b.read_bytes() and a.stat().st_size == 100_000
    data = a.read_bytes()
    assert min(data) >= 33 and max(data) <= 126
    n = write_zipf_text(a, 50_000, seed=1, vocabulary=500)
    write_zipf_text(b, 50_000, seed=1, vocabulary=500)
    text = a.read_bytes()
    assert text == b.read_bytes() and len(text) <= 50_000 and text.endswith(b"\n")
    words = text.split()
    assert len(words) == n
    # Zipf: the most frequent word is far more frequent than the median one
    counts = sorted((words.count(w) for w in set(words)), reverse=True)
    assert counts[0] > 10 * counts[len(counts) // 2]


def test_ensure_input_is_cached(tmp_path: Path) -> None:
    d1, m1 = ensure_input("records", 0.01, seed=2, cache_dir=tmp_path)
    mtime = (d1 / "part-00000").stat().st_mtime_ns
    d2, m2 = ensure_input("records", 0.01, seed=2, cache_dir=tmp_path)
    assert d1 == d2 and m1 == m2 and (d2 / "part-00000").stat().st_mtime_ns == mtime
    assert m1["records"] == int(0.01 * (1 << 20)) // 100


def _fixture_run(tmp_path: Path) -> RunArtifacts:
    run_dir = tmp_path / "run"
    (run_dir / "report").mkdir(parents=True)
    shutil.copy(FIXTURES / "sort-disk-fetch.log", run_dir / "job.log")
    shutil.copy(FIXTURES / "sort-disk-fetch.counters.tsv", run_dir / "report" / "counters.tsv")
    (run_dir / "report" / "timing.tsv").write_text(
        "submit_ms\t1795959140000\ndone_ms\t1795959153500\nsuccess\ttrue\n"
        "job_id\tjob_local1551908064_0001\nhadoop_version\t3.5.0\n"
    )
    (run_dir / "report" / "conf.xml").write_text(
        "<?xml version='1.0'?><configuration>"
        "<property><name>mapreduce.task.io.sort.factor</name><value>3</value></property>"
        "<property><name>mapreduce.task.io.sort.mb</name><value>100</value></property>"
        "<property><name>mrtune.report.dir</name><value>/x</value></property>"
        "<property><name>unrelated.key</name><value>1</value></property>"
        "</configuration>"
    )
    return RunArtifacts(
        run_dir=run_dir,
        job="sort",
        settings={"mapreduce.task.io.sort.factor": "3"},
        harness_settings={"mrtune.report.dir": "/x", "hadoop.tmp.dir": "/t"},
        xmx_mb=256,
        input_dir=Path("/data/in"),
        input_meta={"kind": "records", "seed": 0, "records": 167772, "bytes": 16777200},
        exit_code=0,
        wall_time_ms=14000.0,
        started_at_ms=1795959139000,
    )


def test_record_from_a_real_run_round_trips(tmp_path: Path) -> None:
    rec = build_record(_fixture_run(tmp_path), label="fx", repeat=1)
    assert rec.success and rec.job_time_ms == 13500 and rec.num_maps == 16
    assert rec.effective_conf == {
        "mapreduce.task.io.sort.factor": "3",
        "mapreduce.task.io.sort.mb": "100",
    }
    assert "mrtune.report.dir" not in rec.harness_settings
    assert rec.counter("SHUFFLED_MAPS") == 16
    assert rec.map_spilled_records + rec.reduce_spilled_records == rec.counter("SPILLED_RECORDS")
    again = RunRecord.from_json(rec.to_json())
    assert again == rec
    out = tmp_path / "runs.jsonl"
    write_jsonl([rec, rec], out)
    assert read_jsonl(out) == [rec, rec]
    single = tmp_path / "one.json"
    single.write_text(rec.model_dump_json(indent=1))
    assert read_jsonl(single) == [rec]
    (row,) = summarize([rec, again])
    assert row["fetches_to_disk"] == 16 and row["deterministic"] and row["job_time_ms"] == 13500


def test_failed_run_keeps_the_error(tmp_path: Path) -> None:
    art = _fixture_run(tmp_path)
    (art.report_dir / "timing.tsv").unlink()
    (art.run_dir / "stderr.txt").write_text(
        "Exception in thread main\njava.lang.OutOfMemoryError\n"
    )
    art.exit_code = 1
    rec = build_record(art)
    assert not rec.success and "OutOfMemoryError" in rec.error and rec.job_time_ms is None


def test_cli_rejects_a_hadoop1_name_in_one_line() -> None:
    result = CliRunner().invoke(app, ["hadoop-run", "sort", "--set", "io.sort.mb=5"])
    assert result.exit_code == 2
    assert "mapreduce.task.io.sort.mb" in result.output
    assert "Traceback" not in result.output


def test_record_schema_documents_every_field() -> None:
    schema = RunRecord.model_json_schema()
    # the project's jobs or a user's job under its own name (hadoop-run --jar)
    assert schema["properties"]["job"]["pattern"] == r"^[\w.\-]{1,100}(#[1-9]\d{0,3})?$"
    assert PROJECT_JOBS == ("wordcount", "sort", "selectivity", "postings")
    assert json.dumps(schema)  # serialisable for other tools
