"""``mrtune fit`` and ``mrtune predict-regression`` through Typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app

from .synthetic import synthetic_rows, to_csv

runner = CliRunner()


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One task row per phase and job (200 rows a phase), to keep the comparison quick."""
    path = tmp_path_factory.mktemp("fitcli") / "phases.csv"
    path.write_text(to_csv(synthetic_rows(seed=1, tasks_per_job=1)))
    return path


def test_fit_compares_algorithms_on_shuffle_and_write(tmp_path: Path) -> None:
    """The paper's Table I: four learners scored by 10-fold CV on the shuffle and write phases."""
    rows = [r for r in synthetic_rows(seed=1, tasks_per_job=1) if r[0] in ("shuffle", "write")]
    path = tmp_path / "reduce-side.csv"
    path.write_text(to_csv(rows))
    result = runner.invoke(app, ["fit", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    phases = json.loads(result.stdout)["report"]["phases"]
    assert set(phases) == {"shuffle", "write"}
    for phase in phases.values():
        cv = phase["cv"]
        assert set(cv) == {"linear", "svm", "random_forest", "decision_tree"}
        # data are linear plus noise, so the linear model is the best out-of-fold predictor
        assert min(cv, key=lambda a: cv[a]["rmse_ms"]) == "linear"
        assert all(score["folds"] == 10 for score in cv.values())


def test_fit_writes_model_report_and_plots_and_predicts(small_csv: Path, tmp_path: Path) -> None:
    model_path = tmp_path / "model.json"
    report_dir = tmp_path / "report"
    result = runner.invoke(
        app,
        [
            "fit",
            str(small_csv),
            "--no-compare",
            "-o",
            str(model_path),
            "--report",
            str(report_dir),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["rows"] == 1200
    phases = out["report"]["phases"]
    assert set(phases) == {"read", "collect", "spill", "merge", "shuffle", "write"}
    assert phases["shuffle"]["cv"]["linear"]["r2"] > 0.99
    for phase in phases:
        png = report_dir / f"residuals-{phase}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads(model_path.read_text())
    assert saved["phases"]["write"]["coefficients"]["R_d"] == pytest.approx(6.0, rel=0.01)

    inputs = "data_size_mb=1024,block_size_mb=128,map_selectivity_pct=50,reducers=2,containers=4"
    pred = runner.invoke(
        app, ["predict-regression", str(model_path), "--inputs", inputs, "--format", "json"]
    )
    assert pred.exit_code == 0, pred.output
    job = json.loads(pred.stdout)["prediction"]
    # 8 maps on 4 containers = 2 waves; 2 reduces on 4 containers = 0.5 wave (fractional)
    assert job["map_waves"] == 2.0 and job["reduce_waves"] == 0.5
    assert job["total_ms"] == pytest.approx(2 * job["map_task_ms"] + 0.5 * job["reduce_task_ms"])


def test_fit_text_output_has_the_tables(small_csv: Path) -> None:
    result = runner.invoke(app, ["fit", str(small_csv), "--no-compare"])
    assert result.exit_code == 0, result.output
    assert "Phase models" in result.stdout and "CV RMSE" in result.stdout
    assert "Algorithm comparison" not in result.stdout
    assert "M_d_log_M_d" in result.stdout


def test_predict_with_preset_and_json_inputs_file(tmp_path: Path) -> None:
    inputs = tmp_path / "table3.json"
    inputs.write_text(
        json.dumps(
            {
                "D": 19584,
                "M_t": 153,
                "R_t": 11,
                "T_map": 33069,
                "T_reduce": 286257,
                "M_d": 128,
                "M_sel": 100,
                "S_d": 19584,
                "R_d": 19584,
                "N_c": 8,
            }
        )
    )
    result = runner.invoke(app, ["predict-regression", "ceesay2019", "--inputs", str(inputs)])
    assert result.exit_code == 0, result.output
    assert "1,631,600.3" in result.stdout  # see test_paper_preset for the arithmetic


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["predict-regression", "nosuch", "--inputs", "D=1"], "MODEL: neither a model file"),
        (["predict-regression", "ceesay2019", "--inputs", "D=1,M_t"], "expected KEY=VALUE"),
        (
            ["predict-regression", "ceesay2019", "--inputs", "D=-1,M_t=1,M_sel=1,R_t=1,N_c=1"],
            "D: Input should be greater than 0",
        ),
    ],
)
def test_predict_errors_are_one_line(args: list[str], expected: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert expected in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_fit_refuses_a_phase_with_too_few_rows(tmp_path: Path) -> None:
    rows = [r for r in synthetic_rows(seed=2, tasks_per_job=1) if r[0] != "write"]
    rows += [r for r in synthetic_rows(seed=2, tasks_per_job=1) if r[0] == "write"][:4]
    path = tmp_path / "few-writes.csv"
    path.write_text(to_csv(rows))
    result = runner.invoke(app, ["fit", str(path), "--no-compare"])
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    assert str(path) in line and "Operation" in line and "'write'" in line
    assert "4 rows" in line


def test_fit_reports_negative_duration_with_file_line_column(tmp_path: Path) -> None:
    text = to_csv(synthetic_rows(seed=2, tasks_per_job=1)).splitlines()
    fields = text[5].split(",")
    fields[1] = "-12.5"
    text[5] = ",".join(fields)
    path = tmp_path / "negative.csv"
    path.write_text("\n".join(text) + "\n")
    result = runner.invoke(app, ["fit", str(path)])
    assert result.exit_code == 2
    assert f"{path}:6: Duration: must be >= 0 (got -12.5)" in result.stderr


def test_form_option_offers_extra_drivers_and_names_unknown_ones(small_csv: Path) -> None:
    result = runner.invoke(
        app,
        ["fit", str(small_csv), "--no-compare", "--form", "read=d+Noise", "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    read = json.loads(result.stdout)["report"]["phases"]["read"]
    assert read["candidates"] == ["d", "Noise"]
    assert [t["name"] for t in read["terms"]] == ["d"]
    assert [d["name"] for d in read["dropped"]] == ["Noise"]

    bad = runner.invoke(app, ["fit", str(small_csv), "--no-compare", "--form", "merge=Bogus"])
    assert bad.exit_code == 2
    assert "unknown driver 'Bogus'" in bad.stderr


def test_predict_names_a_bad_model_file(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text(
        json.dumps({"name": "x", "phases": {"read": {"phase": "read", "intercept": "a"}}})
    )
    result = runner.invoke(
        app, ["predict-regression", str(path), "--inputs", "D=1,M_t=1,M_sel=1,R_t=1,N_c=1"]
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: {path}: not a regression model: phases.read.intercept"
    )


def test_fit_says_a_directory_is_not_a_data_file(tmp_path: Path) -> None:
    """An existing empty directory was "cannot read: no such file"."""
    empty = tmp_path / "adir"
    empty.mkdir()
    result = runner.invoke(app, ["fit", str(empty)], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {empty}: an empty directory, not a file: fit reads ")
    assert ".csv" in line and "runs.jsonl" in line and "no such file" not in line
    (empty / "runs.jsonl").write_text("")
    result = runner.invoke(app, ["fit", str(empty)], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {empty}: a directory, not a file")
    assert "name the files (e.g. DIR/*.jsonl)" in result.stderr
