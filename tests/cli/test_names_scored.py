"""``--names`` renames, it does not re-score: another Hadoop generation's names are refused
(a Hadoop 1 job's io.sort.record.percent means nothing to Hadoop 2/3, MAPREDUCE-64)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mrtune.cli import app


def test_names_of_another_generation_are_refused(shared_data: Path, tmp_path: Path) -> None:
    trace = shared_data / "rumen" / "wordcount-rumen.json"  # Hadoop 1
    out = tmp_path / "w.xml"
    res = CliRunner().invoke(
        app, ["optimize", str(trace), "--names", "hadoop2", "--trials", "4", "-o", str(out)]
    )
    assert res.exit_code == 2
    line = " ".join(res.output.split())
    assert "--names" in line and "renaming is not re-scoring" in line and "hadoop1" in line
    assert not out.exists()
    own = CliRunner().invoke(
        app, ["optimize", str(trace), "--names", "hadoop1", "--trials", "4", "--samples", "8"]
    )
    assert own.exit_code == 0, own.output
