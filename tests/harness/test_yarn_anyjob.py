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
    from mrtune.cli import app
    from mrtune.harness.compile import DRIVER_CLASS, compile_jobs
    from mrtune.harness.datagen import write_records
    from mrtune.harness.jars import find_jars

    jar = compile_jobs(find_jars())
    data = tmp_path / "in"
    data.mkdir()
    n = write_records(data / "part-0", 2 << 20)
    keep = tmp_path / "runs"
    args = ["hadoop-run", "--jar", str(jar), "--class", DRIVER_CLASS, "--label", "my-sort"]
    args += ["--keep", str(keep), "--xmx", "512", "--format", "json", "--"]
    args += ["sort", "-D", "mapreduce.job.reduces=1", str(data), str(tmp_path / "out")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (entry,) = [json.loads(x) for x in (keep / "runs.jsonl").read_text().splitlines()]
    assert entry["label"] == "my-sort" and entry["mode"] == "local" and entry["success"]
    assert Path(entry["run_dir"]) == keep / "my-sort" / "r0"
    log = Path(entry["log"]).read_text()
    assert "Final Counters for attempt_" in log
    assert f"Map input records={n}" in log
    # the per-run site files took effect: Hadoop made its local dirs under the run's tmp dir
    assert (keep / "my-sort" / "r0" / "tmp" / "mapred").is_dir()
