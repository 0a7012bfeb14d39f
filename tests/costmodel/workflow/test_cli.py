"""``mrtune workflow`` from the command line (typer's CliRunner on the real app)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app

runner = CliRunner()

EXAMPLE_FILES = ["concurrent3-tasks.yaml", "concurrent3.yaml", "tpch-q5-like.yaml"]


def run_json(*args: str) -> dict:
    result = runner.invoke(app, ["workflow", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_examples_run_as_text(examples: Path, name: str) -> None:
    result = runner.invoke(app, ["workflow", str(examples / name)])
    assert result.exit_code == 0, result.output
    assert "Workflow completion time: basic" in result.stdout
    assert "Timeline, refined model" in result.stdout


def test_tasks_example_numbers(examples: Path) -> None:
    out = run_json(str(examples / "concurrent3-tasks.yaml"))
    assert out["totals"]["basic_ms"] == 205_000.0
    assert out["totals"]["refined_ms"] == 150_000.0
    (stage,) = out["stages"]
    assert stage["best_order"] == ["J2", "J1", "J3"]
    assert stage["best_order_refined_ms"] == 135_000.0
    assert stage["order_method"] == "exhaustive search over 6 orders"
    j2 = next(j for j in out["jobs"] if j["name"] == "J2")
    assert j2["refined"] == {
        "map_start_ms": 40_000.0,
        "map_end_ms": 65_000.0,
        "reduce_start_ms": 70_000.0,
        "reduce_end_ms": 130_000.0,
    }
    assert j2["basic"]["map_start_ms"] == 70_000.0
    assert j2["map_stage"]["waves_ms"] == 25_000.0


def test_model_and_order_options(examples: Path) -> None:
    path = str(examples / "concurrent3-tasks.yaml")
    basic = run_json(path, "--model", "basic")
    assert set(basic["totals"]) == {"basic_ms"}
    assert "refined" not in basic["jobs"][0]
    refined = run_json(path, "--model", "refined", "--order", "best")
    assert set(refined["totals"]) == {"refined_ms"}
    assert refined["stages"][0]["order"] == ["J2", "J1", "J3"]
    assert refined["totals"]["refined_ms"] == 135_000.0
    lower = run_json(path, "--estimate", "lower")  # equal tasks in whole waves: lower == waves
    assert lower["totals"]["basic_ms"] == 205_000.0
    # jobs given by tasks have no job-model split: "model" falls back to waves
    assert run_json(path, "--estimate", "model")["totals"]["basic_ms"] == 205_000.0
    upper = run_json(path, "--estimate", "upper")
    assert upper["totals"]["basic_ms"] > 205_000.0


def test_tpch_example_with_baseline_optimize_and_plot(examples: Path, tmp_path: Path) -> None:
    png = tmp_path / "timeline.png"
    out = run_json(str(examples / "tpch-q5-like.yaml"), "--optimize", "--plot", str(png))
    assert [len(s["jobs"]) for s in out["stages"]] == [3, 1, 1, 1, 1]
    assert out["totals"]["refined_ms"] < out["totals"]["basic_ms"]
    assert out["baseline"]["fitted_on"] == "model (refined)"
    assert out["baseline"]["model_refined_ms"] == pytest.approx(out["totals"]["refined_ms"])
    tuning = out["tuning"]
    assert tuning["workflow_tuned_refined_ms"] < tuning["current_refined_ms"]
    assert tuning["current_refined_ms"] == pytest.approx(out["totals"]["refined_ms"])
    assert tuning["changes"]["order_by"] == {}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out["plot"] == str(png)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("jobs: []\n", "jobs"),
        (
            "capacity: {map_slots: 2, reduce_slots: 1}\njobs:\n  - name: a\n"
            "    tasks: {maps: 1, reduces: 0, map_task_ms: 5}\n    depends_on: [a]\n",
            "itself",
        ),
    ],
)
def test_bad_file_is_one_line_and_exit_2(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "wf.yaml"
    path.write_text(text)
    result = runner.invoke(app, ["workflow", str(path)])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_unwritable_plot_is_an_input_error(examples: Path, tmp_path: Path) -> None:
    target = tmp_path / "missing-dir" / "t.png"
    result = runner.invoke(
        app, ["workflow", str(examples / "concurrent3-tasks.yaml"), "--plot", str(target)]
    )
    assert result.exit_code == 2
    assert "cannot write the plot" in result.output


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_task_times_beyond_a_java_long_are_refused_at_read(tmp_path: Path, fmt: str) -> None:
    """1e308 ms had printed "inf s" and "nan% below basic" with numpy's RuntimeWarnings in
    text (JSON refused the non-finite number): both now refuse the file in one line."""
    path = tmp_path / "inf.yaml"
    path.write_text(
        "capacity: {map_slots: 4, reduce_slots: 2}\njobs:\n  - {name: a, tasks: {maps: 10, "
        "reduces: 1, map_task_ms: 1.0e+308, reduce_task_ms: 1.0e+308}}\n"
    )
    result = runner.invoke(app, ["workflow", str(path), "--format", fmt])
    assert result.exit_code == 2, result.output
    (line,) = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert str(path) in line and "jobs.0.tasks.map_task_ms" in line and "1e+308" in line
    assert "allowed: 0 to 9.22337e+18 ms" in line
    assert "inf" not in result.output.replace("inf.yaml", "") and "Warning" not in result.output
