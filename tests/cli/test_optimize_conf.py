"""``mrtune optimize PROFILE.json --conf FILE.xml`` starts from the replayed file (issue 16).

A saved profile carries the configuration it ran with; ``--conf`` there is the configuration to
start from and compare with, replayed as ``whatif --conf`` replays it (it used to be ignored
without a word). A history's ``--conf`` stays its own configuration.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app

FIX = Path(__file__).resolve().parents[1] / "readers" / "starfish" / "fixtures"
RECOMMENDED = FIX / "wordcount_recommended_conf.xml"
runner = CliRunner()


def _saved(tmp_path: Path) -> Path:
    out = tmp_path / "wordcount.json"
    args = ["profile", "--from", "starfish", str(FIX / "wordcount_profile.xml")]
    args += ["--input", str(FIX / "wordcount_input.xml")]
    args += ["--cluster", str(FIX / "wordcount_cluster.xml")]
    args += ["--conf", str(FIX / "wordcount_conf.xml"), "-o", str(out)]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    return out


def _json(*args: str) -> dict:
    r = runner.invoke(app, [*args, "--format", "json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


OPT = ("--strategy", "descent", "--samples", "16", "--objective", "time")


def test_optimize_starts_from_the_replayed_conf(tmp_path: Path) -> None:
    saved = _saved(tmp_path)
    plain = _json("optimize", str(saved), *OPT)
    replayed = _json("optimize", str(saved), "--conf", str(RECOMMENDED), *OPT)
    whatif = _json("whatif", str(saved), "--conf", str(RECOMMENDED), "--samples", "0")
    assert plain["start_conf"] is None
    assert replayed["start_conf"] == {"path": str(RECOMMENDED), "not_modelled": []}
    # "current" is the replayed file, exactly as whatif predicts it
    assert replayed["current"]["job_ms"] == pytest.approx(whatif["what_if"]["job_ms"], rel=1e-12)
    assert replayed["current"]["job_ms"] != pytest.approx(plain["current"]["job_ms"], rel=1e-3)
    assert replayed["current"]["num_reducers"] == 5
    # changes are relative to the file: "current" is the file's value
    in_file = {
        "mapreduce.task.io.sort.mb": "150",
        "mapreduce.map.sort.spill.percent": "0.9",
        "mapreduce.task.io.sort.factor": "40",
        "mapreduce.job.reduces": "5",
        "mapreduce.map.output.compress.codec": "default",
    }
    seen = [ch for ch in replayed["changes"] if ch["name"] in in_file]
    assert seen
    for ch in seen:
        assert str(ch["current"]) == in_file[ch["name"]], ch["name"]
    assert replayed["recommended"]["job_ms"] <= replayed["current"]["job_ms"]


def test_the_start_is_said_in_text(tmp_path: Path) -> None:
    saved = _saved(tmp_path)
    r = runner.invoke(
        app,
        ["optimize", str(saved), "--conf", str(RECOMMENDED), *OPT],
        env={"COLUMNS": "200"},
    )
    assert r.exit_code == 0, r.output
    assert f"current configuration: {RECOMMENDED} replayed over the saved profile" in r.stdout


def test_a_refused_value_in_the_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text(
        "<configuration><property><name>io.sort.spill.percent</name>"
        "<value>1.5</value></property></configuration>"
    )
    r = runner.invoke(app, ["optimize", str(_saved(tmp_path)), "--conf", str(bad), *OPT])
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "bad.xml" in lines[0], r.stderr
