"""A workflow file's settings take ``whatif``'s per-profile checks (audit h3, section 4).

``mrtune workflow`` had exited 0 with the results of the file without the setting for reducers
or a sort buffer given to a map-only profile and for ``io.sort.record.percent`` on a Hadoop 3
job, all of which ``whatif --set`` refuses. A job's own ``config:`` is now refused in one line
naming the file, the job, the property, the value and what is allowed; a ``defaults:`` entry a
map-only job cannot use is not applied to it, and a note says so
(:mod:`mrtune.optimizer.workflow_checks`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrtune.costmodel import JobProfile
from tests.cli.test_hostile_settings import LINEITEM, refused, run


def _map_only(tmp_path: Path) -> Path:
    """The example's lineitem scan profiled as a map-only run (reducers 0)."""
    data = json.loads(LINEITEM.read_text())
    props = {**data.get("source_properties", {}), "mapreduce.job.reduces": "0"}
    prof = JobProfile.model_validate({**data, "map_only": True, "source_properties": props})
    p = tmp_path / "maponly.json"
    p.write_text(prof.model_dump_json())
    return p


def _file(tmp_path: Path, jobs: str, defaults: str = "", head: str = "") -> Path:
    p = tmp_path / "wf.yaml"
    text = head + "capacity: {map_slots: 8, reduce_slots: 4}\n"
    if defaults:
        text += f"defaults: {{{defaults}}}\n"
    p.write_text(text + "jobs:\n" + jobs)
    return p


@pytest.mark.parametrize(
    ("config", "key", "says"),
    [
        ("mapreduce.job.reduces: 3", "mapreduce.job.reduces", "map-only run"),
        ("mapreduce.task.io.sort.mb: 300", "mapreduce.task.io.sort.mb", "no effect on a map-only"),
    ],
)
def test_a_map_only_jobs_own_config_asking_a_reduce_side_is_refused(
    tmp_path: Path, config: str, key: str, says: str
) -> None:
    mo = _map_only(tmp_path)
    p = _file(tmp_path, f"  - {{name: scan, profile: {mo}, config: {{{config}}}}}\n")
    line = refused(*run("workflow", str(p)))
    assert str(p) in line and f"jobs.scan.config.{key}" in line and says in line
    assert "allowed:" in line and "(got '" in line


@pytest.mark.parametrize("where", ["config", "defaults"])
def test_a_setting_hadoop_3_does_not_read_is_refused(tmp_path: Path, where: str) -> None:
    setting = "io.sort.record.percent: 0.2"
    if where == "config":
        p = _file(tmp_path, f"  - {{name: agg, profile: {LINEITEM}, config: {{{setting}}}}}\n")
        field = "jobs.agg.config.io.sort.record.percent"
    else:
        p = _file(tmp_path, f"  - {{name: agg, profile: {LINEITEM}}}\n", defaults=setting)
        field = "defaults.io.sort.record.percent (for job agg)"
    line = refused(*run("workflow", str(p)))
    assert str(p) in line and field in line and "Hadoop 1 only" in line
    assert "io.sort.record.percent=0.2" in line and "allowed:" in line
    # on a workflow that runs Hadoop 1 the same setting is read, and answered
    p.write_text("hadoop_version: 1\n" + p.read_text())
    code, out = run("workflow", str(p))
    assert code == 0, out


def test_a_default_a_map_only_job_cannot_use_is_not_applied_and_said(tmp_path: Path) -> None:
    """``defaults:`` speaks for every job: the map-only scan is not given its reducers and
    sort buffer (a note says so), the aggregation after it is."""
    mo = _map_only(tmp_path)
    jobs = (
        f"  - {{name: scan, profile: {mo}}}\n"
        f"  - {{name: agg, profile: {LINEITEM}, depends_on: [scan]}}\n"
    )
    p = _file(tmp_path, jobs, defaults="mapreduce.job.reduces: 3, mapreduce.task.io.sort.mb: 90")
    code, out = run("workflow", str(p))
    assert code == 0, out
    note = next(ln for ln in out.splitlines() if ln.startswith("note: job scan"))
    assert "mapreduce.job.reduces=3" in out and "not applied" in out and "map-only" in note
    code, out = run("workflow", str(p), "--format", "json")
    assert code == 0, out
    doc = json.loads(out[out.index("{") :])
    assert len(doc["notes"]) == 1 and doc["notes"][0].startswith("job scan: defaults")
    reduces = {j["name"]: j["reduces"] for j in doc["jobs"]}
    assert reduces == {"scan": 0, "agg": 3}
