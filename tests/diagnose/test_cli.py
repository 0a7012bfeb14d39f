"""``mrtune diagnose`` and ``mrtune report`` through Typer's CliRunner: 80 columns, JSON, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import COMMANDS, app

runner = CliRunner()


@pytest.fixture
def eighty(monkeypatch: pytest.MonkeyPatch) -> None:
    """An 80-column terminal. rich fixes a console's width when it is created (from COLUMNS),
    so the shared console's width is set directly and restored after the test."""
    from mrtune.cli.console import console

    monkeypatch.setattr(console, "_width", 80)


def _sleep(shared: Path) -> Path:
    return next((shared / "jhist").glob("job_1329348432655_0001-*SUCCEEDED*.jhist"))


def _fits(text: str, width: int = 80) -> None:
    too_long = [ln for ln in text.splitlines() if len(ln) > width]
    assert not too_long, too_long


def test_diagnose_one_job_fits_80_columns_and_wraps_names(shared_data: Path, eighty: None) -> None:
    result = runner.invoke(app, ["diagnose", str(_sleep(shared_data)), "--all"])
    assert result.exit_code == 0, result.output
    _fits(result.stdout)
    text = result.stdout
    for name in ("Mapper time skew", "Mapper GC", "Shuffle and sort", "Reduce slow-start"):
        assert name.split()[0] in text
    assert "…" not in text  # wrapped, never truncated
    assert "thresholds (Dr. Elephant default thresholds)" in text
    assert " ms" in text and " MB" in text  # units on numbers


def test_diagnose_json_has_evidence_and_prices(shared_data: Path) -> None:
    result = runner.invoke(
        app, ["diagnose", str(_sleep(shared_data)), "--format", "json", "--resamples", "5"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["job_id"] == "job_1329348432655_0001" and data["profiled"] is True
    by = {f["key"]: f for f in data["findings"]}
    assert by["map_gc"]["evidence"]["tasks"] == "10 tasks"
    price = by["map_spill"]["price"]
    assert price["basis"] == "what-if model" and price["unit"] == "ms"
    assert by["map_time_skew"]["price"]["basis"].startswith("observed bound")


def test_diagnose_catalog_table(shared_data: Path, eighty: None) -> None:
    result = runner.invoke(app, ["diagnose", str(shared_data / "jhist"), "--resamples", "2"])
    assert result.exit_code == 0, result.output
    _fits(result.stdout)
    assert "9 jobs × findings" in result.stdout
    # a catalog of one cluster's jobs shows each id's own part, its shared prefix once
    trace = shared_data / "rumen" / "2jobs2min-rumen-jh.json"
    res = runner.invoke(app, ["diagnose", str(trace), "--resamples", "0"])
    assert res.exit_code == 0, res.output
    _fits(res.stdout)
    rows = [ln.split()[0] for ln in res.stdout.splitlines() if ln.startswith("…_")]
    assert rows == ["…_1205", "…_1206", "…_1207"]
    assert "job ids: job_1369942127770…" in res.stdout
    out = runner.invoke(
        app, ["diagnose", str(shared_data / "jhist"), "--resamples", "0", "--format", "json"]
    )
    data = json.loads(out.stdout)
    states = {j["job_id"]: j["state"] for j in data["jobs"]}
    assert states["job_1410289045532_259974"] == "INCOMPLETE"
    assert sum(s == "FAILED" for s in states.values()) == 4


def test_failed_history_is_a_clean_partial_diagnosis(shared_data: Path, eighty: None) -> None:
    result = runner.invoke(
        app,
        ["diagnose", str(shared_data / "jhist" / "job_0.23.9-FAILED.jhist")],
    )
    assert result.exit_code == 0, result.output
    assert "partial diagnosis" in result.stdout and "Traceback" not in result.output
    _fits(result.stdout)


def test_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "x.jhist"
    bad.write_text("not a history\n")
    for args in (["diagnose", str(bad)], ["diagnose", str(tmp_path / "missing.jhist")]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and "error:" in lines[0], result.stderr


def test_an_empty_directory_is_refused_as_batch_refuses_it(tmp_path: Path) -> None:
    """``diagnose`` of an empty directory exited 0 with "0 jobs × findings"."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "README").write_text("no jobs here\n")
    for name, says in (("empty", "an empty directory"), ("docs", "no job file in this")):
        result = runner.invoke(app, ["diagnose", str(tmp_path / name)])
        assert result.exit_code == 2, result.output
        lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith(f"error: {tmp_path / name}: {says}")
        assert "jobs ×" not in result.stdout


def test_commands_are_registered_with_their_docstring_line() -> None:
    from mrtune.cli import diagnose, report

    for name, mod in (("diagnose", diagnose), ("report", report)):
        fn = mod.app.registered_commands[0].callback
        assert COMMANDS[name].short_help == fn.__doc__.splitlines()[0]
