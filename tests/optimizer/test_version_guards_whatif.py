"""A what-if answers only with settings the job's Hadoop reads, by names it reads (audit D6).

The bundled Hadoop 1 (0.20) wordcount priced ``mapreduce.map.memory.mb=512`` with an invented
``-Xmx409m`` (Hadoop 1 has slots, not containers; the heap following the container is Hadoop 3's
MAPREDUCE-5785), priced ``mapreduce.map.java.opts`` (a Hadoop 2/3 name Hadoop 1 never reads),
dropped ``mapreduce.reduce.shuffle.memory.limit.percent`` without a word (Hadoop 1's
``ReduceCopier`` hard-codes 0.25) and priced ``lz4`` (no Hadoop 1.x ships Lz4Codec, HADOOP-7657).
Each is now one line, exit 2; a replayed file lists what the job's Hadoop does not read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile
from mrtune.errors import InputError
from mrtune.optimizer.whatif import apply_changes, replay_conf, what_if
from mrtune.profiling import profile_config

EXAMPLE = Path(__file__).resolve().parents[2] / "mrtune" / "examples" / "profiles"
WORDCOUNT = EXAMPLE / "wordcount-rumen.json"
runner = CliRunner()


def _h1(release: str | None = None) -> tuple[JobProfile, HadoopConfig]:
    prof = JobProfile.model_validate_json(WORDCOUNT.read_text())
    base = profile_config(prof)
    assert base.hadoop_version == 1
    if release is not None:  # the release a history names ("1.0" here: the 1.x line)
        facts = {**prof.cluster_facts, "hadoop_version": release}
        prof = prof.model_copy(update={"cluster_facts": facts})
    return prof, base


def _refused(changes: dict[str, str], match: str, release: str | None = None) -> str:
    prof, base = _h1(release)
    with pytest.raises(InputError, match=match) as info:
        apply_changes(base, changes, prof)
    return str(info.value)


# ------------------------------------------------------------------ Hadoop 1: no containers
def test_a_container_size_is_refused_on_hadoop1_not_priced_with_an_invented_heap() -> None:
    line = _refused({"mapreduce.map.memory.mb": "512"}, "Hadoop 1 has no containers")
    assert "mapred.child.java.opts" in line and "MAPREDUCE-5785" in line
    _refused({"mapred.job.reduce.memory.mb": "2048"}, "Hadoop 1 has no containers")
    prof, base = _h1()
    same = apply_changes(base, {"mapreduce.map.memory.mb": "-1"}, prof)  # Hadoop 1's default
    assert same.map_heap_bytes == base.map_heap_bytes and same.map_java_opts is None


# ------------------------------------------------------------------ heap names Hadoop 1 reads
def test_the_hadoop2_heap_name_is_refused_naming_what_hadoop1_reads() -> None:
    line = _refused({"mapreduce.map.java.opts": "-Xmx4g"}, "Hadoop 1 does not read")
    assert "mapred.map.child.java.opts" in line and "mapred.child.java.opts" in line
    prof, base = _h1()
    for key in ("mapred.child.java.opts", "mapred.map.child.java.opts"):  # 1.x reads both
        cfg = apply_changes(base, {key: "-Xmx2g"}, prof)
        assert cfg.map_heap_bytes == 2 * 2**30


def test_a_release_before_mapreduce_478_reads_mapred_child_java_opts_only() -> None:
    line = _refused({"mapreduce.reduce.java.opts": "-Xmx2g"}, "does not read", "0.20.2")
    assert "mapred.reduce.child.java.opts" not in line and "mapred.child.java.opts" in line
    _refused({"mapred.map.child.java.opts": "-Xmx2g"}, "MAPREDUCE-478", "0.20.2")
    _refused({"mapred.map.child.java.opts": "-Xmx2g"}, "MAPREDUCE-478", "1")  # line only: 0.20.0
    prof, base = _h1("0.20.2")
    assert apply_changes(base, {"mapred.child.java.opts": "-Xmx2g"}, prof).map_heap_bytes


def test_a_value_no_hadoop_takes_is_named_before_the_version() -> None:
    prof, base = _h1()
    with pytest.raises(ValueError, match="not a heap size the JVM accepts"):
        apply_changes(base, {"mapreduce.map.java.opts": "-Xmx"}, prof)


# ------------------------------------------------------------------ properties Hadoop 1 lacks
@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("mapreduce.reduce.shuffle.memory.limit.percent", "0.1", "ReduceCopier hard-codes"),
        ("mapreduce.map.cpu.vcores", "4", "slots"),
        ("mapreduce.job.heap.memory-mb.ratio", "0.5", "MAPREDUCE-5785"),
    ],
)
def test_a_property_hadoop1_does_not_have_is_refused(key: str, value: str, says: str) -> None:
    line = _refused({key: value}, "ignores it")
    assert says in line and "allowed:" in line


def test_the_heap_ratio_is_hadoop3_only() -> None:
    with pytest.raises(InputError, match="read by Hadoop 3 only"):
        apply_changes(
            HadoopConfig(hadoop_version=2), {"mapreduce.job.heap.memory-mb.ratio": "0.5"}
        )
    three = apply_changes(HadoopConfig(), {"mapreduce.job.heap.memory-mb.ratio": "0.5"})
    assert three.map_heap_bytes == 512 * 2**20


@pytest.mark.parametrize(
    "args",
    [
        ["--set", "mapreduce.reduce.shuffle.memory.limit.percent=0.1"],
        ["--set", "mapreduce.map.memory.mb=512"],
        ["--set", "mapreduce.map.java.opts=-Xmx4g"],
        ["--set", "mapreduce.map.output.compress.codec=lz4"],
    ],
)
def test_cli_refuses_in_one_line(args: list[str]) -> None:
    r = runner.invoke(app, ["whatif", str(WORDCOUNT), "--samples", "0", *args])
    assert r.exit_code == 2, r.output
    errors = [ln for ln in r.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and args[1].split("=")[0] in errors[0], r.output


# ------------------------------------------------------------------ codecs the release ships
def test_a_codec_the_release_does_not_ship_is_refused() -> None:
    line = _refused({"mapreduce.map.output.compress.codec": "lz4"}, "no Hadoop 1.x release")
    assert "HADOOP-7657" in line and "allowed: default, gzip, bzip2" in line
    _refused({"mapred.output.compression.codec": "ZStandardCodec"}, "no Hadoop 1.x release")
    _refused({"mapreduce.map.output.compress.codec": "snappy"}, "not shipped before 1.0.2")
    prof, base = _h1("1.2.1")
    snappy = apply_changes(base, {"mapreduce.map.output.compress.codec": "snappy"}, prof)
    assert snappy.map_output_compress and snappy.map_output_codec == "snappy"
    assert apply_changes(base, {"mapreduce.map.output.compress.codec": "gzip"}, prof)


def test_a_codec_is_checked_against_the_release_on_yarn_too() -> None:
    zstd = {"mapreduce.map.output.compress": "true", "mapreduce.map.output.compress.codec": "zstd"}
    with pytest.raises(InputError, match="not shipped before 2.9.0"):
        apply_changes(HadoopConfig(hadoop_version=2), zstd)
    assert apply_changes(HadoopConfig(), zstd).map_output_codec == "zstd"


# ------------------------------------------------------------------ replay of a whole file
def test_replay_lists_what_hadoop1_does_not_read_and_prices_the_rest() -> None:
    prof, base = _h1()
    props = {
        "mapreduce.reduce.shuffle.memory.limit.percent": "0.1",
        "mapreduce.map.java.opts": "-Xmx4g",
        "mapreduce.map.memory.mb": "4096",
        "io.sort.mb": "50",
    }
    cfg, unread = replay_conf(base, props, prof, source="c.xml")
    assert unread == [k for k in props if k != "io.sort.mb"]
    assert cfg.io_sort_mb == 50 and cfg.map_heap_bytes == base.map_heap_bytes
    out = what_if(prof, base, ClusterSpec(), replay=props, replay_source="c.xml")
    assert set(out["not_read_by_version"]) == set(unread)
    assert "ReduceCopier" in out["not_read_by_version"][unread[0]]
    assert set(out["changes"]) == {"mapreduce.task.io.sort.mb"}


def test_replay_still_refuses_a_bad_value_and_an_unshipped_codec() -> None:
    prof, base = _h1()
    with pytest.raises(InputError, match="c.xml: mapreduce.map.cpu.vcores=.*greater than"):
        replay_conf(base, {"mapreduce.map.cpu.vcores": "0"}, prof, source="c.xml")
    lz4 = {"mapred.compress.map.output": "true", "mapred.map.output.compression.codec": "lz4"}
    with pytest.raises(InputError, match="c.xml: .*no Hadoop 1.x release ships it"):
        replay_conf(base, lz4, prof, source="c.xml")
    off = {**lz4, "mapred.compress.map.output": "false"}  # a codec never loaded is no error
    assert not replay_conf(base, off, prof, source="c.xml")[0].map_output_compress


def test_cli_replay_shows_what_the_version_does_not_read(tmp_path: Path) -> None:
    conf = tmp_path / "c.xml"
    conf.write_text(
        '<?xml version="1.0"?>\n<configuration>\n'
        '<property name="mapreduce.reduce.shuffle.memory.limit.percent" value="0.1"/>\n'
        '<property name="io.sort.mb" value="50"/>\n</configuration>\n'
    )
    r = runner.invoke(
        app, ["whatif", str(WORDCOUNT), "--conf", str(conf), "--samples", "0", "--format", "json"]
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["not_modelled"] == ["mapreduce.reduce.shuffle.memory.limit.percent"]
    assert "Hadoop 2 and 3 only" in out["not_read_by_version"][out["not_modelled"][0]]
