"""Intervals of a tuned workflow (issue 14: every prediction says how sure it is): the
evidence of each profiled job sampled, the workflow evaluated per sample, each job's basis."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.optimizer.workflow_confidence import workflow_confidence
from mrtune.optimizer.workflow_tuning import tune_workflow
from mrtune.readers.workflow_file import load_workflow

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / "mrtune" / "examples" / "workflows"
WORDCOUNT = REPO / "mrtune" / "examples" / "profiles" / "wordcount-rumen.json"


def test_profiled_example_intervals_hold_their_points_and_say_defaulted() -> None:
    spec = load_workflow(WORKFLOWS / "tpch-q5-like.yaml")
    tuning = tune_workflow(spec)
    c = workflow_confidence(spec, tuning, samples=16)
    for model, ev in (("refined", c.refined), ("basic", c.basic)):
        cur = getattr(tuning.current.result, f"{model}_ms")
        new = getattr(tuning.tuned.result, f"{model}_ms")
        assert ev["current_ms"].point == cur and ev["tuned_ms"].point == new
        for iv in ev.values():
            assert iv.low <= iv.point <= iv.high and iv.low > 0
        assert ev["speedup"].point == cur / new
        # the measurement band only widens the model's own interval
        assert ev["speedup"].low <= ev["speedup_model"].low
        assert ev["speedup"].high >= ev["speedup_model"].high
    # the example's profiles were written by hand: no factor measured, every prior sampled
    assert {b.label for b in c.jobs.values()} == {"defaulted"} and c.rests_on_defaults
    # the priors move the times: the interval is not a point
    assert c.refined["current_ms"].high > 1.05 * c.refined["current_ms"].low
    again = workflow_confidence(spec, tuning, samples=16)
    assert again.to_json() == c.to_json()  # seeded


def test_task_times_are_given_not_sampled() -> None:
    spec = load_workflow(WORKFLOWS / "concurrent3-tasks.yaml")
    tuning = tune_workflow(spec)
    c = workflow_confidence(spec, tuning, samples=8)
    assert {b.label for b in c.jobs.values()} == {"given task times"}
    iv = c.refined["current_ms"]
    assert iv.low == iv.high == iv.point == 150_000.0
    assert not c.rests_on_defaults and c.noise_band == 0.0


def test_a_job_with_measured_factors_says_so(tmp_path: Path) -> None:
    (tmp_path / "wf.yaml").write_text(
        "name: two\ncapacity: {map_slots: 8, reduce_slots: 4}\njobs:\n"
        f"  - name: wc\n    profile: {WORDCOUNT}\n"
        f"  - name: agg\n    profile: {WORKFLOWS / 'profiles' / 'lineitem_agg.json'}\n"
        "    depends_on: [wc]\n",
        encoding="utf-8",
    )
    spec = load_workflow(tmp_path / "wf.yaml")
    c = workflow_confidence(spec, tune_workflow(spec), samples=8)
    assert c.jobs["wc"].label == "partly measured"
    assert "task_overhead_ms" in c.jobs["wc"].measured
    assert c.jobs["agg"].label == "defaulted" and not c.rests_on_defaults
    assert c.noise_band > 0  # the jobs' run-to-run noise widens the speedup


def test_cli_json_and_text_carry_the_intervals() -> None:
    path = str(WORKFLOWS / "concurrent3.yaml")
    res = CliRunner().invoke(app, ["workflow", path, "--optimize", "--format", "json"])
    assert res.exit_code == 0, res.output
    conf = json.loads(res.output)["confidence"]
    assert conf["rests_on_defaults"] is True and conf["samples"] == 32
    sp = conf["refined"]["speedup"]
    assert sp["low"] <= sp["point"] <= sp["high"]
    text = CliRunner().invoke(app, ["workflow", path, "--optimize"], env={"COLUMNS": "80"})
    assert text.exit_code == 0, text.output
    assert "p10-p90" in text.output and "not a finding" in text.output
