"""Recommendation outputs: ``mapred-site.xml`` (only the changed properties), ``-D`` flags,
Hive and Pig ``set`` lines, JSON. Property names can be written in Hadoop 2/3 or Hadoop 1 form.

What is written is what was scored (issue 14): :func:`changed_properties` is the one place that
turns a scored configuration into the properties to write, and it raises
:class:`UnwritableChange` for a change no property can express (a property the base sets and the
recommendation removes, e.g. a combiner class: ``Configuration`` has no "unset" a site file or
``-D`` flag could carry). Every emitter raises the same error for a value its format cannot
carry, instead of dropping or mangling it; ``tests/optimizer/test_written_equals_scored.py``
reads every format back through :func:`mrtune.readers.conf.parse_conf_text` /
``HadoopConfig.from_properties`` and compares it with the scored configuration.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from enum import StrEnum

import defusedxml.ElementTree as SafeET

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.properties import HADOOP1_NAMES


class UnwritableChange(ValueError):
    """A scored change that this output cannot express as a Hadoop property."""


def changed_properties(
    base: HadoopConfig, config: HadoopConfig, *, combiner_switch: str | None = None
) -> dict[str, str]:
    """The properties that turn ``base`` into ``config``, as a site file or ``-D`` flags would.

    Raises :class:`UnwritableChange` when ``config`` drops a property ``base`` sets: a
    configuration layered over the job's (``Configuration.addResource``, ``-D``) can set a
    value but never unset one, so writing only the others would deploy a configuration
    different from the one scored. The one exception is the combiner where the target has a
    switch for it (``combiner_switch``: Starfish's ``starfish.use.combiner``, which its
    ``MapProfileOracle`` and mrtune's reader honour): dropping the class is written as the
    switch ``false``, adding it back also writes ``true``.
    """
    before, after = base.to_properties(), config.to_properties()
    switch: dict[str, str] = {}
    if combiner_switch is not None:
        cls = HadoopConfig.model_fields["combine_class"].alias
        assert cls is not None
        if cls in before and cls not in after:
            before = {k: v for k, v in before.items() if k != cls}
            switch = {combiner_switch: "false"}
        elif cls in after and before.get(cls) != after[cls]:
            switch = {combiner_switch: "true"}
    dropped = sorted(k for k in before if k not in after)
    if dropped:
        raise UnwritableChange(
            f"{', '.join(dropped)}: the recommendation removes a setting, which no property "
            "can express (a site file or -D flag can only set values)"
        )
    return {**{k: v for k, v in after.items() if before.get(k) != v}, **switch}


def _check_values(props: Mapping[str, str], fmt: str, forbidden: str = "") -> None:
    """Raise :class:`UnwritableChange` for a value ``fmt`` cannot carry unchanged.

    An empty value reads back as unset or as a different default (``Configuration.get`` trims
    and many readers treat ``""`` as absent), so it is never written; ``forbidden`` are the
    characters that end or break a statement in ``fmt``.
    """
    for name, value in props.items():
        if not isinstance(value, str) or not value.strip():
            raise UnwritableChange(f"{name}={value!r}: {fmt} cannot carry an empty value")
        if value != value.strip() or any(c in value for c in forbidden + "\n\r"):
            raise UnwritableChange(f"{name}={value!r}: {fmt} cannot carry this value unchanged")


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
    _check_values(props, "mapred-site.xml")
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

    _check_values(props, "-D flags")
    return " ".join(f"-D {shlex.quote(f'{k}={v}')}" for k, v in props.items())


def hive_set_lines(props: Mapping[str, str]) -> str:
    """Hive ``SET name=value;`` lines (Hive ends a statement at ``;``)."""
    _check_values(props, "Hive SET", ";")
    return "\n".join(f"SET {k}={v};" for k, v in props.items())


def pig_set_lines(props: Mapping[str, str]) -> str:
    """Pig ``set name 'value';`` lines (a quote inside the value would end it)."""
    _check_values(props, "Pig set", "'")
    return "\n".join(f"set {k} '{v}';" for k, v in props.items())
