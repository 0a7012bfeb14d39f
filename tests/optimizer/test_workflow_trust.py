"""``workflow --optimize`` keeps ``optimize``'s trust rules (audit h3, section 5): the trust
region (a size or count moved beyond ×4 of the value it starts from is not a tuned setting)
and the failed calibration's miss (a change whose gain could be the miss is withheld). The
workflow had presented 20 → 2 reducers as the tuned setting of a job whose calibration
failed, where ``optimize`` on the same profile wrote nothing
(:mod:`mrtune.optimizer.workflow_trust`)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import JobProfile
from mrtune.optimizer.trust import FAR, calibration_miss
from mrtune.optimizer.workflow_tuning import tune_workflow
from mrtune.readers.workflow_file import WorkflowSpec
from tests.optimizer.test_trust_calibration import _failed_by, _profiles
from tests.optimizer.test_trust_region import MIB, tiny_splits

MINSIZE = "mapreduce.input.fileinputformat.split.minsize"


def _spec(profile: JobProfile, config: dict | None = None, **extra: object) -> WorkflowSpec:
    job = {"name": "j", "profile": profile, "config": config or {}}
    return WorkflowSpec.model_validate(
        {"capacity": {"map_slots": 8, "reduce_slots": 4}, "jobs": [job], **extra}
    )


def _split_mib(props: dict[str, str]) -> float:
    return max(int(props.get(MINSIZE, "0")), 4 * MIB) / MIB


def test_a_far_optimum_is_not_the_tuned_setting() -> None:
    """4 MiB splits paying a 3 s launch each: the job's own optimum is a split ×18 larger;
    the tuned (and each-job-alone) setting stays within ×4, the far one is said."""
    t = tune_workflow(_spec(tiny_splits(), cluster={"num_nodes": 2}))
    for ev in (t.tuned, t.alone):
        assert 4 < _split_mib(ev.jobs["j"].properties) <= 4 * FAR
    (note,) = t.trust_notes["j"]
    assert "beyond the trust region" in note and "re-profile" in note
    assert t.tuned.result.refined_ms < t.current.result.refined_ms  # the in-region step


def test_a_change_its_failed_calibration_could_explain_is_withheld() -> None:
    """2 → 3 reducers gains ×1.4 in job time: it stands on the calibrated profile, and is
    withheld where the calibration misses 60% of the reduce task, with the reason."""
    ok, bad, _ = _profiles()
    config = {
        "mapreduce.job.reduces": 2,
        "mapreduce.input.fileinputformat.split.maxsize": 64 * MIB,
    }
    good = tune_workflow(_spec(ok, config, cluster={"num_nodes": 4}))
    assert good.changes["j"] and not good.trust_notes
    missed = _failed_by(bad, 0.6)
    t = tune_workflow(_spec(missed, config, cluster={"num_nodes": 4}))
    assert t.changes["j"] == {} and t.alone_changes["j"] == {}
    assert t.tuned.result.refined_ms == t.current.result.refined_ms
    (note,) = t.trust_notes["j"]
    assert note.startswith("mapreduce.job.reduces 2→3 withheld: ")
    assert calibration_miss(missed) in note and "could be that miss" in note


def test_the_cli_says_the_far_move_and_does_not_show_it_as_tuned(tmp_path: Path) -> None:
    prof = tmp_path / "tiny.json"
    prof.write_text(tiny_splits().model_dump_json())
    wf = tmp_path / "wf.yaml"
    wf.write_text(
        "capacity: {map_slots: 8, reduce_slots: 4}\ncluster: {num_nodes: 2}\n"
        f"jobs:\n  - {{name: j, profile: {prof}}}\n"
    )
    runner = CliRunner()
    r = runner.invoke(app, ["workflow", str(wf), "--optimize"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "low confidence, not tuned: j: its own optimum moves" in r.output
    r = runner.invoke(app, ["workflow", str(wf), "--optimize", "--format", "json"])
    assert r.exit_code == 0, r.output
    tuning = json.loads(r.output[r.output.index("{") :])["tuning"]
    assert "beyond the trust region" in tuning["low_confidence"]["j"][0]
    tuned = int(tuning["changes"]["j"][MINSIZE]["to"]) / MIB
    assert tuned <= 4 * FAR
