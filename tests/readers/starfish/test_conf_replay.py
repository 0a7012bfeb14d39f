"""``mrtune whatif PROFILE.json --conf FILE.xml`` replays a whole configuration (issue 16).

A saved profile carries its configuration, so ``--conf`` there is the configuration to
predict: never ignored. Replayed this way, a Starfish recommendation must predict exactly what
profiling the job with that configuration predicts, and any Hadoop-valid value is taken, also
outside mrtune's search ranges.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app

FIX = Path(__file__).parent / "fixtures"
OUTSIDE = FIX / "wordcount_starfish_outside_ranges.xml"


def _profile(tmp_path: Path, conf: str) -> Path:
    out = tmp_path / f"{Path(conf).stem}.json"
    args = ["profile", "--from", "starfish", str(FIX / "wordcount_profile.xml")]
    args += ["--input", str(FIX / "wordcount_input.xml")]
    args += ["--cluster", str(FIX / "wordcount_cluster.xml")]
    args += ["--conf", str(FIX / conf), "-o", str(out), "--format", "json"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    return out


def _whatif(profile: Path, *extra: str) -> dict:
    r = CliRunner().invoke(app, ["whatif", str(profile), "--format", "json", *extra])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


@pytest.mark.parametrize("conf", ["wordcount_recommended_conf.xml", OUTSIDE.name])
def test_replay_equals_profiling_with_that_conf(tmp_path: Path, conf: str) -> None:
    base = _profile(tmp_path, "wordcount_conf.xml")
    replayed = _whatif(base, "--conf", str(FIX / conf))["what_if"]
    profiled = _whatif(_profile(tmp_path, conf))["current"]
    assert replayed["job_ms"] == pytest.approx(profiled["job_ms"], rel=1e-12)
    assert replayed["map_phases_ms"] == pytest.approx(profiled["map_phases_ms"], rel=1e-12)
    assert replayed["reduce_phases_ms"] == pytest.approx(profiled["reduce_phases_ms"], rel=1e-12)
    assert replayed["dataflow"] == pytest.approx(profiled["dataflow"], rel=1e-12)


def test_values_outside_the_search_ranges_are_taken(tmp_path: Path) -> None:
    out = _whatif(_profile(tmp_path, "wordcount_conf.xml"), "--conf", str(OUTSIDE))
    to = {k: v["to"] for k, v in out["changes"].items()}
    assert to["mapreduce.map.sort.spill.percent"] == "0.277"
    assert to["mapreduce.map.combine.minspills"] == "9999"
    assert to["mapreduce.reduce.merge.inmem.threshold"] == "17"
    assert to["mapreduce.job.reduces"] == "7"
    assert out["not_modelled"] == ["starfish.job.optimizer.type"]
    # min.num.spills.for.combine=9999: the map-side merge never combines, the reduce side does.
    assert out["what_if"]["dataflow"]["spills_per_map"] > 1
    assert out["what_if"]["job_ms"] != out["current"]["job_ms"]


def test_zero_reducers_and_set_on_top(tmp_path: Path) -> None:
    out = _whatif(
        _profile(tmp_path, "wordcount_conf.xml"),
        "--conf",
        str(OUTSIDE),
        "--set",
        "mapred.reduce.tasks=0",
    )
    assert out["changes"]["mapreduce.job.reduces"]["to"] == "0"
    assert out["what_if"]["num_reducers"] == 0
    assert out["what_if"]["reduce_phases_ms"] == {}
    assert out["what_if"]["job_ms"] > 0


def test_switch_false_wins_over_a_named_codec(tmp_path: Path) -> None:
    """The recommended profile compresses map output; the replayed file names DefaultCodec
    but sets mapred.compress.map.output=false, which Hadoop runs uncompressed."""
    rec = _profile(tmp_path, "wordcount_recommended_conf.xml")
    out = _whatif(rec, "--conf", str(OUTSIDE))
    assert out["changes"]["mapreduce.map.output.compress"] == {"from": "true", "to": "false"}
    d = out["what_if"]["dataflow"]
    assert d["map_output_materialized_bytes"] == pytest.approx(d["shuffle_bytes"])
    # starfish.use.combiner=true turns the profiled job's combiner back on
    assert out["what_if"]["dataflow"]["combine_input_records"] > 0
    assert out["current"]["dataflow"]["combine_input_records"] == 0


def test_a_value_hadoop_refuses_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text(
        "<configuration><property><name>io.sort.spill.percent</name><value>1.7</value>"
        "</property></configuration>",
        encoding="utf-8",
    )
    r = CliRunner().invoke(
        app, ["whatif", str(_profile(tmp_path, "wordcount_conf.xml")), "--conf", str(bad)]
    )
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1, r.output
    assert "bad.xml" in lines[0] and "io.sort.spill.percent" in lines[0] and "1.7" in lines[0]
