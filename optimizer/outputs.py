"""Recommendation outputs: ``mapred-site.xml`` (only the changed properties), ``-D`` flags,
Hive and Pig ``set`` lines, JSON. Property names can be written in Hadoop 2/3 or Hadoop 1 form.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from enum import StrEnum

import defusedxml.ElementTree as SafeET

from mrtune.costmodel.properties import HADOOP1_NAMES


class NameStyle(StrEnum):
    """``hadoop2``: Hadoop 2/3 property names; ``hadoop1``: Hadoop 0.20 names (Starfish users)."""

    hadoop2 = "hadoop2"
    hadoop1 = "hadoop1"


def rename(props: Mapping[str, str], style: NameStyle = NameStyle.hadoop2) -> dict[str, str]:
    if style == NameStyle.hadoop1:
        return {HADOOP1_NAMES.get(k, k): v for k, v in props.items()}
    return dict(props)


def mapred_site_xml(
    props: Mapping[str, str],
    reasons: Mapping[str, str] | None = None,
    *,
    header: str | None = None,
) -> str:
    """A valid Hadoop configuration file holding ``props`` (with a description per property)."""
    root = ET.Element("configuration")
    for name, value in props.items():
        prop = ET.SubElement(root, "property")
        ET.SubElement(prop, "name").text = name
        ET.SubElement(prop, "value").text = value
        if reasons and reasons.get(name):
            ET.SubElement(prop, "description").text = reasons[name]
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    comment = f"<!-- {header.replace('--', '-')} -->\n" if header else ""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<?xml-stylesheet type="text/xsl" href="configuration.xsl"?>\n'
        f"{comment}{body}\n"
    )


def parse_site_xml(text: str) -> dict[str, str]:
    """Read back a configuration file written by :func:`mapred_site_xml` (defusedxml)."""
    root = SafeET.fromstring(text)
    out = {}
    for prop in root.iter("property"):
        name = prop.findtext("name")
        if name is not None:
            out[name.strip()] = (prop.findtext("value") or "").strip()
    return out


def d_flags(props: Mapping[str, str]) -> str:
    """``-D name=value`` flags for ``hadoop jar … -D …`` (values shell-quoted when needed)."""
    import shlex

    return " ".join(f"-D {shlex.quote(f'{k}={v}')}" for k, v in props.items())


def hive_set_lines(props: Mapping[str, str]) -> str:
    return "\n".join(f"SET {k}={v};" for k, v in props.items())


def pig_set_lines(props: Mapping[str, str]) -> str:
    return "\n".join(f"set {k} '{v}';" for k, v in props.items())
