"""``mrtune profile --from starfish`` shows a factor's map-side and reduce-side values apart,
and saves both in ``profile.json`` (issue 16)."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import JobProfile

FIXTURES = Path(__file__).resolve().parents[1] / "readers" / "starfish" / "fixtures"
runner = CliRunner()


def _profile_xml(tmp_path: Path) -> Path:
    root = ET.parse(FIXTURES / "terasort_profile.xml").getroot()
    el = root.find("reduce_profile/cost_factors/cost_factor[@key='MERGE_CPU_COST']")
    el.set("value", "18234.7")
    path = tmp_path / "profile.xml"
    ET.ElementTree(root).write(path)
    return path


def test_profile_shows_both_sides_and_saves_them(tmp_path: Path) -> None:
    out = tmp_path / "profile.json"
    args = ["profile", str(_profile_xml(tmp_path)), "--from", "starfish"]
    args += ["--cluster", str(FIXTURES / "terasort_cluster.xml")]
    r = runner.invoke(app, [*args, "-o", str(out)], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    map_row = next(ln for ln in lines if "merge_cpu (map)" in ln)
    red_row = next(ln for ln in lines if "merge_cpu (reduce)" in ln)
    assert "114.6" in map_row and "1.823e+04" in red_row
    saved = JobProfile.model_validate(json.loads(out.read_text()))
    assert saved.costs.merge_cpu == 114.6
    assert saved.costs.reduce_side == {"merge_cpu": 18234.7}
    j = runner.invoke(app, [*args, "--format", "json"])
    assert j.exit_code == 0, j.output
    assert json.loads(j.stdout)["costs"]["reduce_side"] == {"merge_cpu": 18234.7}


def test_a_bad_reduce_side_value_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "profile.json"
    r = runner.invoke(
        app, ["profile", str(_profile_xml(tmp_path)), "--from", "starfish", "-o", str(out)]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    data["costs"]["reduce_side"] = {"map_cpu": 5.0}
    out.write_text(json.dumps(data))
    bad = runner.invoke(app, ["whatif", str(out), "--samples", "0"])
    assert bad.exit_code == 2, bad.output
    lines = [ln for ln in bad.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "reduce_side" in lines[0] and "map_cpu" in lines[0], bad.stderr
    assert "Traceback" not in bad.output
