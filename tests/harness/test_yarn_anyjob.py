"""``mrtune hadoop-run --jar … --class … -- ARGS`` in local mode (marker ``hadoop``).

Any jar, recorded under its own label: the project's jobs jar stands in for a user's jar, run
through the generic (jar, class, args) path rather than the project-job shortcut.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytestmark = pytest.mark.hadoop


def test_any_jar_runs_locally_under_its_own_label(tmp_path: Path) -> None:
    """Two runs of one label over two input files: each a RunRecord (repeats 0 and 1) that
    ``profile --from run`` reads under the job's own name, with the run's two files."""
    from mrtune.cli import app
    from mrtune.harness.compile import DRIVER_CLASS, compile_jobs
    from mrtune.harness.datagen import write_records
    from mrtune.harness.jars import find_jars
    from mrtune.readers.run_records import read_jsonl

    jar = compile_jobs(find_jars())
    data = tmp_path / "in"
    data.mkdir()
    n = write_records(data / "part-0", 1 << 20) + write_records(data / "part-1", 1 << 20)
    keep = tmp_path / "runs"
    args = ["hadoop-run", "--jar", str(jar), "--class", DRIVER_CLASS, "--label", "my-sort"]
    args += ["--keep", str(keep), "--xmx", "512", "--repeat", "2", "--format", "json", "--"]
    args += ["sort", "-D", "mapreduce.job.reduces=1", str(data), "out"]  # in each run folder
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    recs = read_jsonl(keep / "runs.jsonl")
    assert [(r.label, r.repeat, r.job) for r in recs] == [("my-sort", 0, "driver")] * 1 + [
        ("my-sort", 1, "driver")
    ]
    rec = recs[0]
    assert rec.success and rec.num_maps == 2 and rec.counter("MAP_INPUT_RECORDS") == n
    assert rec.settings == {"mapreduce.job.reduces": "1"}
    assert rec.conf_source.startswith("job.xml staged by JobSubmitter")
    assert rec.effective_conf["mapreduce.job.reduces"] == "1"
    assert rec.job_time_ms is not None and 0 < rec.job_time_ms < rec.wall_time_ms
    assert (keep / "my-sort" / "r1" / "job.log").is_file()
    # the per-run site files took effect: Hadoop made its local dirs under the run's tmp dir
    assert (keep / "my-sort" / "r0" / "tmp" / "mapred").is_dir()
    out = tmp_path / "p.json"
    r = CliRunner().invoke(
        app, ["profile", str(keep / "runs.jsonl"), "--from", "run", "-o", str(out)]
    )
    assert r.exit_code == 0, r.output
    prof = json.loads(out.read_text())
    assert prof["job_name"] == "driver" and prof["input_files"] == 2
    assert prof["cluster_facts"]["self_check.maps.model"] == 2.0
