"""An output a command could not write is refused in one line before any work (it was an
internal error after the search, exit 1, the result lost)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.cli.example import examples


@pytest.mark.parametrize(
    "args",
    [
        ["optimize", "{E}", "-o", "{missing}/rec.xml"],
        ["whatif", "{E}", "--set", "mapreduce.job.reduces=2", "--timeline", "{missing}/t.png"],
        ["profile", "{E}", "-o", "{missing}/p.json"],
        ["example", "wordcount-rumen", "-o", "{missing}/a.json"],
        ["optimize", "{E}", "-o", "{tmp}"],
    ],
)
def test_an_unwritable_output_is_refused_before_any_work(tmp_path: Path, args: list[str]) -> None:
    fill = {"E": str(examples()["wordcount-rumen"][1]), "missing": str(tmp_path / "no" / "such")}
    fill["tmp"] = str(tmp_path)
    started = time.perf_counter()
    r = CliRunner().invoke(app, [a.format(**fill) for a in args])
    assert r.exit_code == 2, r.output
    assert "cannot write here" in r.output or "is a directory" in r.output
    assert "internal error" not in r.output and "Traceback" not in r.output
    assert time.perf_counter() - started < 30  # no search ran first


def test_validate_names_what_it_was_given_instead_of_run_records(tmp_path: Path) -> None:
    # a profile gave "30 validation errors for RunRecord"
    profile = str(examples()["wordcount-rumen"][1])
    r = CliRunner().invoke(app, ["validate", profile])
    assert r.exit_code == 2 and "a job profile, not run records" in r.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"run_id": 3}\n')
    r = CliRunner().invoke(app, ["validate", str(bad)])
    assert r.exit_code == 2 and "not a file of run records" in r.output


def test_a_flat_sweep_marks_no_best_row() -> None:
    # every one of 25 rows was marked "best" on a setting that does not move the job
    args = ["sweep", str(examples()["wordcount-rumen"][1]), "--range", "1:50", "--steps", "5"]
    flat = CliRunner().invoke(app, [*args, "--param", "mapreduce.reduce.shuffle.parallelcopies"])
    assert flat.exit_code == 0, flat.output
    text = " ".join(flat.output.split())
    assert "◀ best" not in text and "does not change it here" in text
    moving = CliRunner().invoke(app, [*args, "--param", "mapreduce.job.reduces"])
    assert moving.output.count("◀ best") == 1
