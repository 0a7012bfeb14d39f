"""Real Hadoop (local mode) against the expected dataflow: spills and SPILLED_RECORDS exact.

Selected by ``pytest -m hadoop``; it installs nothing: the Hadoop jars must already be
available (``python -m mrtune.harness.jars fetch``, ``$HADOOP_HOME``, or an installed pyspark),
and ``java``/``javac`` on PATH. One small sort job (16 MiB of 100-byte records, two 8 MiB
splits, one reducer) at io.sort.mb 1 (12 spills per map, an intermediate merge pass) and 4
(3 spills per map, one merge pass). The expectation comes from ``expected_counters``
(tests/validation/hadoop_expectations.py), to be replaced by the project's cost model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.harness.assemble import build_record
from mrtune.harness.datagen import ensure_input
from mrtune.harness.jars import find_jars
from mrtune.harness.runner import cleanup_run_dir, run_job
from tests.harness.hadoop_expectations import expected_counters, records_in_split

pytestmark = pytest.mark.hadoop

INPUT_MIB = 16
SPLIT_BYTES = 8 << 20


@pytest.fixture(scope="module")
def hadoop_input(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    cache = tmp_path_factory.mktemp("mrtune-cache")
    return ensure_input("records", INPUT_MIB, seed=5, cache_dir=cache)


@pytest.mark.parametrize("io_sort_mb", [1, 4])
def test_spills_and_spilled_records_match_hadoop(
    io_sort_mb: int, hadoop_input: tuple[Path, dict], tmp_path: Path
) -> None:
    input_dir, meta = hadoop_input
    jars = find_jars()
    settings = {
        "mapreduce.task.io.sort.mb": str(io_sort_mb),
        "mapreduce.input.fileinputformat.split.maxsize": str(SPLIT_BYTES),
        "mapreduce.job.reduces": "1",
    }
    art = run_job(
        "sort", settings, input_dir, tmp_path / "run", jars, xmx_mb=1024, input_meta=meta
    )
    rec = build_record(art, label=f"ci-sort-{io_sort_mb}")
    cleanup_run_dir(tmp_path / "run")
    assert rec.success, rec.error

    size = meta["bytes"]
    splits = [(s, min(SPLIT_BYTES, size - s)) for s in range(0, size, SPLIT_BYTES)]
    per_map = [records_in_split(s, n) for s, n in splits]
    assert [m.counter("MAP_OUTPUT_RECORDS") for m in rec.map_attempts] == per_map

    exp = expected_counters(per_map, io_sort_mb=io_sort_mb)
    assert [m.num_spills for m in rec.map_attempts] == exp.spills_per_map
    assert [[s.records for s in m.spills] for m in rec.map_attempts] == exp.records_per_spill
    assert rec.map_spilled_records == exp.map_spilled_records
    assert rec.reduce_spilled_records == exp.reduce_spilled_records
    assert rec.counter("SPILLED_RECORDS") == exp.spilled_records
    if io_sort_mb == 1:
        assert all(m.intermediate_merge_passes == 1 for m in rec.map_attempts)

    # The project's cost model, given only the job's input and configuration, predicts the
    # same spills and SPILLED_RECORDS (map side, reduce side, job total) exactly.
    pred = model_prediction(input_dir, size, io_sort_mb)
    assert pred.counters["MAP_SPILLS"][0] == sum(m.num_spills for m in rec.map_attempts)
    assert pred.counters["MAP_SPILLED_RECORDS"][0] == rec.map_spilled_records
    assert pred.counters["REDUCE_SPILLED_RECORDS"][0] == rec.reduce_spilled_records
    assert pred.counters["SPILLED_RECORDS"][0] == rec.counter("SPILLED_RECORDS")
    assert pred.counters["MAP_OUTPUT_MATERIALIZED_BYTES"][0] == rec.counter(
        "MAP_OUTPUT_MATERIALIZED_BYTES"
    )
    assert pred.counters["REDUCE_SHUFFLE_BYTES"][0] == rec.counter("REDUCE_SHUFFLE_BYTES")
    assert pred.reduce.fetches_to_memory[0] == len(rec.map_attempts)


def model_prediction(input_dir: Path, size: int, io_sort_mb: int):  # noqa: ANN201
    """``mrtune.costmodel.predict_job`` for the sort job: 100-byte records, two 8 MiB splits."""
    from mrtune.costmodel import (
        ClusterSpec,
        ConfigBatch,
        DataflowStats,
        HadoopConfig,
        JobProfile,
        predict_job,
    )

    files = [f for f in input_dir.iterdir() if f.is_file() and not f.name.startswith((".", "_"))]
    profile = JobProfile(
        input_bytes=size, input_files=len(files), stats=DataflowStats(input_pair_width=100)
    )
    cfg = HadoopConfig.from_properties(
        {
            "mapreduce.task.io.sort.mb": io_sort_mb,
            "mapreduce.input.fileinputformat.split.maxsize": SPLIT_BYTES,
            "mapreduce.job.reduces": 1,
            "mapreduce.map.java.opts": "-Xmx1024m",
            "mapreduce.reduce.java.opts": "-Xmx1024m",
        }
    )
    return predict_job(profile, ConfigBatch.from_configs([cfg]), ClusterSpec.local())


def test_cli_hadoop_run_writes_records(tmp_path: Path) -> None:
    """``mrtune hadoop-run`` end to end: WordCount without combiner on 2 MiB of Zipf text."""
    from typer.testing import CliRunner

    from mrtune.cli import app
    from mrtune.readers.run_records import read_jsonl

    out = tmp_path / "wc.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "hadoop-run",
            "wordcount",
            "--set",
            "mrtune.wordcount.combiner=false",
            "--input-mb",
            "2",
            "--xmx",
            "512",
            "-o",
            str(out),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    (rec,) = read_jsonl(out)
    assert rec.success and rec.job == "wordcount"
    assert rec.counter("COMBINE_INPUT_RECORDS") == 0
    assert rec.counter("MAP_OUTPUT_RECORDS") == rec.input.words
    assert rec.effective_conf["mrtune.wordcount.combiner"] == "false"
    assert rec.counter("REDUCE_INPUT_RECORDS") == rec.counter("MAP_OUTPUT_RECORDS")
