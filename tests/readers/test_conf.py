"""Hadoop configuration XML: both provenance styles, substitution, hostile and broken XML."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.errors import InputError
from mrtune.readers.conf import load_conf, parse_conf_text, substitute

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def test_source_element_style() -> None:
    c = load_conf(DATA / "jhist" / "job_1526555215992_0001_conf.xml")
    assert c.properties["mapreduce.map.memory.mb"] == "1024"
    assert c.properties["mapreduce.task.io.sort.mb"] == "100"
    assert c.sources["mapreduce.job.maxtaskfailures.per.tracker"] == [
        "mapred-default.xml",
        "job.xml",
    ]


def test_loaded_from_comment_style() -> None:
    c = load_conf(DATA / "jhist" / "job_1329348432655_0001_conf.xml")
    assert c.properties["mapreduce.job.ubertask.enable"] == "false"
    assert c.sources["mapreduce.job.ubertask.enable"] == ["job.xml"]
    assert c.properties["mapreduce.map.memory.mb"] == "512"


def test_site_files_with_old_names() -> None:
    c = load_conf(DATA / "conf" / "sample-conf.file.xml")
    assert c.properties["mapred.child.java.opts"].startswith("-server -Xmx640m")
    site = load_conf(DATA / "conf" / "dr-elephant-mapred-site.xml")
    assert "mapreduce.jobhistory.done-dir" in site.properties


def test_variable_substitution() -> None:
    props = {"a": "x", "b": "${a}/y", "c": "${b}/z", "d": "${java.io.tmpdir}/q", "e": "${e}"}
    out = substitute(props)
    assert out["b"] == "x/y"
    assert out["c"] == "x/y/z"
    assert out["d"] == "${java.io.tmpdir}/q"  # unknown: left as Hadoop leaves it
    assert out["e"] == "${e}"


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE configuration [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<configuration><property><name>x</name><value>&lol3;</value></property></configuration>
"""
EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE configuration [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<configuration><property><name>x</name><value>&xxe;</value></property></configuration>
"""
EXTERNAL_DTD = """<?xml version="1.0"?>
<!DOCTYPE configuration SYSTEM "http://127.0.0.1:9/evil.dtd">
<configuration/>
"""


@pytest.mark.parametrize("text", [BILLION_LAUGHS, EXTERNAL_ENTITY, EXTERNAL_DTD])
def test_hostile_xml_is_refused(tmp_path: Path, text: str) -> None:
    f = tmp_path / "evil_conf.xml"
    f.write_text(text)
    with pytest.raises(InputError, match="refused") as info:
        load_conf(f)
    assert str(f) in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<configuration><property><name>x</name>", "malformed XML at line 1"),
        ("<foo/>", "root element is <foo>"),
        ("   ", "empty"),
    ],
)
def test_broken_xml(tmp_path: Path, text: str, expected: str) -> None:
    f = tmp_path / "bad.xml"
    f.write_text(text)
    with pytest.raises(InputError, match=expected):
        load_conf(f)


def test_missing_conf(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        load_conf(tmp_path / "nope_conf.xml")


def test_final_and_empty_value() -> None:
    c = parse_conf_text(
        "<configuration><property><name>a</name><value></value><final>true</final></property>"
        "<property><name>b</name></property></configuration>"
    )
    # Configuration.Parser: an empty or missing value is no value (loadProperty skips it), but
    # the final mark still blocks a later definition
    assert c.properties == {}
    assert c.final == {"a"}


def test_short_format_attributes_are_read() -> None:
    """``<property name= value= final=/>``: Hadoop's short format (handleStartProperty)."""
    c = parse_conf_text(
        '<configuration><property name="a" value="1" final="true"/>'
        '<property name="b" value="2"><value>3</value></property></configuration>'
    )
    assert c.properties == {"a": "1", "b": "3"}  # a child element overrides the attribute
    assert c.final == {"a"}


def test_final_property_is_not_overridden_and_said() -> None:
    c = parse_conf_text(
        "<configuration>"
        "<property><name>a</name><value>150</value><final>true</final></property>"
        "<property><name>a</name><value>50</value></property>"
        "<property><name>b</name><value>1</value></property>"
        "<property><name>b</name><value>2</value></property>"
        "</configuration>",
        "f.xml",
    )
    assert c.properties == {"a": "150", "b": "2"}  # a non-final one is overridden as before
    assert len(c.warnings) == 1
    assert "f.xml" in c.warnings[0] and "a='50'" in c.warnings[0] and "final" in c.warnings[0]
