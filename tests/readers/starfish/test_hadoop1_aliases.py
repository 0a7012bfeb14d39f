"""Hadoop 1 names and Starfish's switch reach the right setting, in and out.

``mapred.compress.map.output`` is the on/off switch of map-output compression (Hadoop 2/3
``mapreduce.map.output.compress``), not a codec; ``starfish.use.combiner`` turns the job's
combiner off as Starfish's ``MapProfileOracle`` does (class set and flag not false).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.costmodel import HadoopConfig
from mrtune.costmodel.properties import DEPRECATED_NAMES
from mrtune.optimizer.outputs import NameStyle, rename
from mrtune.optimizer.whatif import apply_changes
from mrtune.profiling.starfish import load_starfish
from mrtune.search_spaces import KNOBS, find_knob

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _wordcount():
    return load_starfish(
        *(FIXTURES / f"wordcount_{k}.xml" for k in ("profile", "input", "cluster", "conf"))
    )


def _terasort():
    return load_starfish(
        *(FIXTURES / f"terasort_{k}.xml" for k in ("profile", "input", "cluster", "conf"))
    )


@pytest.mark.parametrize("knob", KNOBS, ids=lambda k: k.name)
def test_every_hadoop1_name_finds_its_knob(knob) -> None:
    assert find_knob(knob.hadoop1_name) is knob
    assert find_knob(knob.name) is knob


@pytest.mark.parametrize("name", ["mapred.compress.map.output", "mapreduce.map.output.compress"])
def test_map_output_switch_off_means_no_codec(name: str) -> None:
    profile, config, _ = _terasort()
    assert config.map_output_compress and config.map_output_codec == "snappy"
    off = apply_changes(config, {name: "false"}, profile)
    assert off.map_output_compress is False
    assert off.map_output_codec == "snappy"  # the codec setting itself is left as it was
    on = apply_changes(off, {name: "true"}, profile)
    assert on == config


def test_output_switch_hadoop1_name() -> None:
    profile, config, _ = _terasort()
    on = apply_changes(config, {"mapred.output.compress": "true"}, profile)
    assert on.output_compress and on.output_codec == "gzip"


def test_codec_knob_still_takes_codecs_and_none() -> None:
    profile, config, _ = _terasort()
    none = apply_changes(config, {"mapred.map.output.compression.codec": "none"}, profile)
    assert not none.map_output_compress
    gz = apply_changes(none, {"mapred.map.output.compression.codec": "GzipCodec"}, profile)
    assert gz.map_output_compress and gz.map_output_codec == "gzip"
    with pytest.raises(ValueError, match="allowed: none, default"):
        apply_changes(config, {"mapred.map.output.compression.codec": "false"}, profile)


def test_switch_writes_back_under_its_hadoop1_name() -> None:
    """The way out: Hadoop 2/3 names of the changed config → Hadoop 1 names → read back."""
    profile, config, _ = _terasort()
    off = apply_changes(config, {"mapred.compress.map.output": "false"}, profile)
    props = rename(off.to_properties(), NameStyle.hadoop1)
    assert props["mapred.compress.map.output"] == "false"
    assert "mapreduce.map.output.compress" not in props
    again = HadoopConfig.from_properties(props, hadoop_version=1)
    assert again.to_properties() == off.to_properties()
    for old, new in DEPRECATED_NAMES.items():
        if new in off.to_properties() and old in props:
            assert props[old] == off.to_properties()[new]


@pytest.mark.parametrize("value", ["false", "FALSE", " false "])
def test_starfish_use_combiner_false_turns_the_combiner_off(value: str) -> None:
    props = {"mapred.combiner.class": "my.Combiner", "starfish.use.combiner": value}
    cfg = HadoopConfig.from_properties(props, hadoop_version=1)
    assert cfg.combine_class is None and not cfg.use_combiner
    assert cfg.other_properties["starfish.use.combiner"] == value


@pytest.mark.parametrize("value", ["0", "no", "off"])
def test_starfish_use_combiner_not_a_boolean_is_the_default(value: str) -> None:
    """Starfish reads its switch with Configuration.getBoolean(.., true): only true/false are
    booleans, anything else is the default (true), so the combiner stays."""
    props = {"mapred.combiner.class": "my.Combiner", "starfish.use.combiner": value}
    cfg = HadoopConfig.from_properties(props, hadoop_version=1)
    assert cfg.combine_class == "my.Combiner"


def test_starfish_use_combiner_true_or_absent_keeps_it() -> None:
    for extra in ({}, {"starfish.use.combiner": "true"}):
        cfg = HadoopConfig.from_properties({"mapred.combiner.class": "my.Combiner", **extra})
        assert cfg.combine_class == "my.Combiner"


def test_starfish_conf_without_combiner_keeps_the_jobs_class(tmp_path: Path) -> None:
    """A Starfish conf that turns the combiner off: the model runs without it, the profile
    still names the job's combiner, and a what-if can turn it back on."""
    profile, config, cluster = _wordcount()
    conf = tmp_path / "conf.xml"
    conf.write_text(
        (FIXTURES / "wordcount_conf.xml")
        .read_text()
        .replace(
            "</configuration>",
            "  <property>\n    <name>starfish.use.combiner</name>\n    <value>false</value>\n"
            "  </property>\n</configuration>",
        )
    )
    files = [FIXTURES / f"wordcount_{k}.xml" for k in ("profile", "input", "cluster")]
    off_profile, off, _ = load_starfish(*files, conf)
    assert not off.use_combiner
    assert off_profile.has_combiner
    assert off_profile.combine_class == config.combine_class
    back = apply_changes(off, {"starfish.use.combiner": "true"}, off_profile)
    assert back.combine_class == config.combine_class
    assert apply_changes(config, {"starfish.use.combiner": "false"}, profile).combine_class is None


def test_with_changes_honours_starfish_use_combiner() -> None:
    cfg = HadoopConfig.from_properties({"mapred.combiner.class": "my.Combiner"}, hadoop_version=1)
    assert cfg.with_changes({"starfish.use.combiner": "false"}).combine_class is None
    assert cfg.with_changes({"starfish.use.combiner": "true"}).combine_class == "my.Combiner"
