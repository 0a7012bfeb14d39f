"""A Starfish recommendation replays through ``mrtune whatif``, both ways it can be given.

``wordcount_recommended_conf.xml`` is the wordcount configuration with every parameter Starfish's
optimizer tunes set as one of its recommendations would set them (Hadoop 0.20 names,
``starfish.use.combiner=false``, ``mapred.compress.map.output=true``). Replayed as a whole
configuration (``mrtune profile --from starfish --conf`` then ``mrtune whatif``) and as
``whatif --set`` changes on the job's own profile, it must give the same prediction.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app

from .cases import STARFISH_RECOMMENDATION

FIX = Path(__file__).parent / "fixtures"


def _profile(tmp_path: Path, name: str, conf: str) -> Path:
    out = tmp_path / f"{name}.json"
    args = ["profile", "--from", "starfish", str(FIX / "wordcount_profile.xml")]
    args += ["--input", str(FIX / "wordcount_input.xml")]
    args += ["--cluster", str(FIX / "wordcount_cluster.xml")]
    args += ["--conf", str(FIX / conf), "-o", str(out), "--format", "json"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    return out


def _whatif(profile: Path, sets: dict[str, str]) -> dict:
    args = ["whatif", str(profile), "--format", "json"]
    for k, v in sets.items():
        args += ["--set", f"{k}={v}"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_starfish_recommendation_replays_as_set_and_as_conf(tmp_path: Path) -> None:
    base = _profile(tmp_path, "base", "wordcount_conf.xml")
    rec = _profile(tmp_path, "rec", "wordcount_recommended_conf.xml")
    by_set = _whatif(base, STARFISH_RECOMMENDATION)
    by_conf = _whatif(rec, {})["current"]
    new = by_set["what_if"]
    assert new["job_ms"] == pytest.approx(by_conf["job_ms"], rel=1e-12)
    assert new["map_phases_ms"] == pytest.approx(by_conf["map_phases_ms"], rel=1e-12)
    assert new["reduce_phases_ms"] == pytest.approx(by_conf["reduce_phases_ms"], rel=1e-12)
    # Each Starfish setting took effect: no combiner, 5 reducers, compressed map output.
    assert new["num_reducers"] == 5
    assert new["dataflow"]["combine_input_records"] == 0.0
    assert by_set["current"]["dataflow"]["combine_input_records"] > 0.0
    mat, raw = (new["dataflow"][k] for k in ("map_output_materialized_bytes", "shuffle_bytes"))
    assert mat == pytest.approx(raw)
    changes = by_set["changes"]
    assert changes["mapreduce.job.combine.class"]["to"] is None
    assert changes["mapreduce.map.output.compress"] == {"from": "false", "to": "true"}
    assert changes["mapreduce.reduce.merge.inmem.threshold"]["to"] == "395"
    assert changes["io.sort.record.percent"]["to"] == "0.25"


@pytest.mark.parametrize(
    ("name", "value", "field", "expected"),
    [
        ("mapred.compress.map.output", "true", "mapreduce.map.output.compress", "true"),
        ("starfish.use.combiner", "false", "mapreduce.job.combine.class", None),
    ],
)
def test_single_starfish_settings_replay(
    tmp_path: Path, name: str, value: str, field: str, expected: str | None
) -> None:
    base = _profile(tmp_path, "base", "wordcount_conf.xml")
    out = _whatif(base, {name: value})
    assert out["changes"][field]["to"] == expected
    assert out["what_if"]["job_ms"] != out["current"]["job_ms"]
