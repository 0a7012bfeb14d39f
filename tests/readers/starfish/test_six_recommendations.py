"""Every Starfish-style recommendation replays through ``mrtune whatif`` (issue 16, Checks).

Issue 16 found that none of the six recommendations Starfish's optimizer made on its three
samples (RRS and smart RRS on co-occurrence, TeraSort, WordCount) went through ``whatif``:
``mapred.compress.map.output=false`` was read as a codec, values outside mrtune's search ranges
(spill percent 0.277, ``min.num.spills.for.combine=9999``, ``mapred.reduce.tasks=0``) were
refused, ``starfish.use.combiner`` and unknown keys were ignored without a word, and
``whatif --conf`` was ignored on a JSON profile. Each recommendation below is written the way
Starfish writes one (every parameter it tunes, Hadoop 0.20 names, its own keys) and carries
those values. Each must replay, through the CLI, both as ``--set`` changes on the job's
Starfish profile and as ``--conf FILE`` on its saved JSON profile, with the same prediction,
every value taken as written, and Starfish's own bookkeeping key reported as not modelled.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app

from .kinds import KINDS, write_case

FIX = Path(__file__).parent / "fixtures"

#: Starfish 0.2.0's tuned parameters (jobopt.params.HadoopParameter), as its optimizer writes.
_COMMON = {
    "io.sort.mb": "117",
    "io.sort.record.percent": "0.3384",
    "io.sort.factor": "73",
    "mapred.inmem.merge.threshold": "17",
    "mapred.job.shuffle.input.buffer.percent": "0.2113",
    "mapred.job.shuffle.merge.percent": "0.8791",
    "mapred.job.reduce.input.buffer.percent": "0.0512",
    "mapred.output.compress": "false",
}
RECOMMENDATIONS: dict[str, tuple[str, dict[str, str]]] = {
    "terasort rrs": (
        "terasort",
        {
            **_COMMON,
            "io.sort.spill.percent": "0.277",
            "mapred.reduce.tasks": "9",
            "mapred.compress.map.output": "false",
            "starfish.job.optimizer.type": "full_rrs",
        },
    ),
    "terasort smart-rrs": (
        "terasort",
        {
            **_COMMON,
            "io.sort.spill.percent": "0.8",
            "mapred.reduce.tasks": "0",
            "mapred.compress.map.output": "true",
            "mapred.map.output.compression.codec": "org.apache.hadoop.io.compress.DefaultCodec",
            "starfish.job.optimizer.type": "smart_rrs",
        },
    ),
    "wordcount rrs": (
        "wordcount",
        {
            **_COMMON,
            "io.sort.spill.percent": "0.277",
            "min.num.spills.for.combine": "9999",
            "mapred.reduce.tasks": "7",
            "starfish.use.combiner": "true",
            "mapred.compress.map.output": "false",
            "starfish.job.optimizer.type": "full_rrs",
        },
    ),
    "wordcount smart-rrs": (
        "wordcount",
        {
            **_COMMON,
            "io.sort.spill.percent": "0.6",
            "min.num.spills.for.combine": "3",
            "mapred.reduce.tasks": "3",
            "starfish.use.combiner": "false",
            "mapred.compress.map.output": "false",
            "starfish.job.optimizer.type": "smart_rrs",
        },
    ),
    "cooccurrence rrs": (
        "cooccurrence",
        {
            **_COMMON,
            "io.sort.spill.percent": "0.277",
            "min.num.spills.for.combine": "9999",
            "mapred.reduce.tasks": "0",
            "starfish.use.combiner": "true",
            "mapred.compress.map.output": "false",
            "starfish.job.optimizer.type": "full_rrs",
        },
    ),
    "cooccurrence smart-rrs": (
        "cooccurrence",
        {
            **_COMMON,
            "io.sort.spill.percent": "0.95",
            "min.num.spills.for.combine": "2",
            "mapred.reduce.tasks": "20",
            "starfish.use.combiner": "false",
            "mapred.compress.map.output": "true",
            "mapred.map.output.compression.codec": "org.apache.hadoop.io.compress.DefaultCodec",
            "starfish.job.optimizer.type": "smart_rrs",
        },
    ),
}
#: Hadoop 0.20 name -> the Hadoop 2/3 name ``whatif`` reports the change under.
NEW_NAMES = {
    "io.sort.spill.percent": "mapreduce.map.sort.spill.percent",
    "min.num.spills.for.combine": "mapreduce.map.combine.minspills",
    "mapred.reduce.tasks": "mapreduce.job.reduces",
    "mapred.inmem.merge.threshold": "mapreduce.reduce.merge.inmem.threshold",
    "io.sort.factor": "mapreduce.task.io.sort.factor",
    "mapred.compress.map.output": "mapreduce.map.output.compress",
}


def _starfish_files(job: str, tmp_path: Path) -> list[str]:
    if job in KINDS:
        files = write_case(KINDS[job], tmp_path / job)
        return [str(files[k]) for k in ("profile", "input", "cluster", "conf")]
    return [str(FIX / f"{job}_{k}.xml") for k in ("profile", "input", "cluster", "conf")]


def _run(args: list[str]) -> dict:
    r = CliRunner().invoke(app, [*args, "--format", "json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def _conf_xml(path: Path, props: dict[str, str]) -> Path:
    body = "".join(
        f"<property><name>{k}</name><value>{v}</value></property>" for k, v in props.items()
    )
    path.write_text(f"<configuration>{body}</configuration>", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", list(RECOMMENDATIONS))
def test_each_starfish_recommendation_replays_through_whatif(tmp_path: Path, name: str) -> None:
    job, props = RECOMMENDATIONS[name]
    profile_xml, input_xml, cluster_xml, conf_xml = _starfish_files(job, tmp_path)
    saved = tmp_path / "profile.json"
    _run(
        ["profile", "--from", "starfish", profile_xml, "--input", input_xml]
        + ["--cluster", cluster_xml, "--conf", conf_xml, "-o", str(saved)]
    )
    sets = [a for k, v in props.items() for a in ("--set", f"{k}={v}")]
    by_set = _run(["whatif", str(saved), *sets, "--allow-unknown"])
    by_conf = _run(["whatif", str(saved), "--conf", str(_conf_xml(tmp_path / "rec.xml", props))])
    # the same prediction both ways, and a real one
    for key in ("job_ms", "num_reducers", "map_phases_ms", "reduce_phases_ms", "dataflow"):
        assert by_set["what_if"][key] == pytest.approx(by_conf["what_if"][key], rel=1e-12), key
    assert by_conf["what_if"]["job_ms"] > 0
    # every value is taken as Starfish wrote it (also outside mrtune's search ranges)
    changes = by_conf["changes"]
    for old, new in NEW_NAMES.items():
        if old in props and new in changes:
            assert changes[new]["to"] == props[old], new
    reducers = int(props["mapred.reduce.tasks"])
    assert by_conf["what_if"]["num_reducers"] == reducers
    if reducers == 0:
        assert by_conf["what_if"]["reduce_phases_ms"] == {}
    if props["mapred.compress.map.output"] == "false":
        d = by_conf["what_if"]["dataflow"]  # no map-output codec: nothing compressed
        assert d["map_output_materialized_bytes"] == pytest.approx(d["shuffle_bytes"])
    if "starfish.use.combiner" in props and reducers > 0:
        on = by_conf["what_if"]["dataflow"]["combine_input_records"] > 0
        assert on == (props["starfish.use.combiner"] == "true")
    # Starfish's own bookkeeping key is reported, never dropped without a word
    assert by_conf["not_modelled"] == ["starfish.job.optimizer.type"]


def test_an_unknown_key_set_alone_is_refused_in_one_line(tmp_path: Path) -> None:
    """``--set`` of a key the model does not read says so (``--allow-unknown`` passes it)."""
    saved = tmp_path / "profile.json"
    profile_xml, input_xml, cluster_xml, conf_xml = _starfish_files("wordcount", tmp_path)
    _run(
        ["profile", "--from", "starfish", profile_xml, "--input", input_xml]
        + ["--cluster", cluster_xml, "--conf", conf_xml, "-o", str(saved)]
    )
    r = CliRunner().invoke(app, ["whatif", str(saved), "--set", "starfish.job.optimizer.type=x"])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "starfish.job.optimizer.type" in lines[0], r.output
