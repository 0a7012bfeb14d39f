"""Read a Hadoop configuration XML file (``*_conf.xml``, ``job.xml``, ``mapred-site.xml``).

Hadoop writes two styles of per-property provenance, both accepted:

* Hadoop 2.x+ ``Configuration.writeXml``: ``<property><name/><value/><source>mapred-default.xml
  </source><source>job.xml</source></property>``;
* Hadoop 0.23/early 2.x: ``<property><!--Loaded from job.xml--><name/><value/></property>``.

A property is read as ``Configuration.Parser`` reads it: ``name``, ``value``, ``final`` and
``source`` as child elements or, in Hadoop's short format, as attributes of ``<property>``
(``<property name="k" value="v" final="true"/>``, "First test for short format configuration"
in ``handleStartProperty``); a property without a value (none, or an empty one) is not set
(``loadProperty`` skips a null value); and once a property was marked ``final`` a later
definition in the file does not override it (``checkForOverride`` logs "Attempt to override
final parameter" and ignores it; recorded here in :attr:`ConfFile.warnings`).

``${var}`` references are expanded from the same file and Java system-property-like names are
left as they are, as ``Configuration.substituteVars`` does (at most 20 rounds).

User XML is parsed with :mod:`defusedxml` with DTDs forbidden: entity-expansion bombs, external
entities and external DTDs are refused with an :class:`~mrtune.errors.InputError` (DESIGN
decision 9). Hadoop's own files never carry a DTD.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import defusedxml
import defusedxml.ElementTree as DET

from mrtune.errors import InputError
from mrtune.readers import safe_io

_VAR = re.compile(r"\$\{([^}$\s]+)\}")
_LOADED_FROM = re.compile(r"^\s*Loaded from\s+(.+?)\s*$")
MAX_SUBST = 20


@dataclass
class ConfFile:
    """The properties of one configuration file and where each came from."""

    path: str
    properties: dict[str, str] = field(default_factory=dict)
    sources: dict[str, list[str]] = field(default_factory=dict)
    final: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)


def _text(el: ET.Element | None) -> str:
    return "".join(el.itertext()).strip() if el is not None else ""


def substitute(props: dict[str, str]) -> dict[str, str]:
    """Expand ``${name}`` from ``props`` (Hadoop ``Configuration.substituteVars``)."""
    out = dict(props)
    for key, value in out.items():
        v = value
        for _ in range(MAX_SUBST):
            m = _VAR.search(v)
            if not m:
                break
            name = m.group(1)
            if name not in props or name == key:
                # unknown (e.g. a Java system property): leave this and later refs as they are
                break
            v = v[: m.start()] + props[name] + v[m.end() :]
        out[key] = v
    return out


#: Encodings an XML declaration may name: Hadoop's ``Configuration.writeXml`` writes UTF-8.
_XML_ENCODINGS = {"utf-8", "utf8", "us-ascii", "ascii"}
_XML_DECL = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([^\"'>]{0,64})")


def _utf8_xml(text: str | bytes, path: str) -> bytes:
    """The XML as UTF-8 bytes; any other declared or actual encoding is refused in one line."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    m = _XML_DECL.match(data[:1024])
    if m and m.group(1).decode("ascii", "replace").lower() not in _XML_ENCODINGS:
        raise InputError(
            "unsupported XML encoding",
            path=path,
            value=m.group(1).decode("ascii", "replace"),
            allowed="UTF-8 (Hadoop writes its configuration in UTF-8)",
        )
    safe_io.decode_utf8(data, path)
    return data


def parse_conf_text(text: str | bytes, path: str = "<conf>") -> ConfFile:
    """Parse configuration XML (see the module doc); ``path`` names it in errors."""
    text = _utf8_xml(text, path)
    parser = DET.DefusedXMLParser(target=ET.TreeBuilder(insert_comments=True), forbid_dtd=True)
    try:
        parser.feed(text)
        root = parser.close()
    except (defusedxml.DTDForbidden, defusedxml.EntitiesForbidden) as exc:
        raise InputError(
            f"refused: the XML declares a DTD or entities ({type(exc).__name__}); Hadoop "
            "configuration files never do, and such XML can expand without bound or read local files",
            path=path,
        ) from None
    except LookupError as exc:  # an encoding expat does not know (declared past the check)
        raise InputError(f"unsupported XML encoding ({exc})", path=path, allowed="UTF-8") from None
    except defusedxml.ExternalReferenceForbidden:
        raise InputError("refused: the XML references an external entity", path=path) from None
    except ET.ParseError as exc:
        line, col = getattr(exc, "position", (None, None))
        where = f" at line {line}, column {col}" if line else ""
        raise InputError(f"malformed XML{where}", path=path) from None
    if root.tag != "configuration":
        raise InputError(
            f"not a Hadoop configuration file: the root element is <{root.tag}>",
            path=path,
            allowed="<configuration>",
        )
    conf = ConfFile(path=path)
    for prop in root.iter("property"):
        name, value, final = _property(prop)
        if not name:
            continue
        if name in conf.final:
            if value is not None and value != conf.properties.get(name):
                conf.warnings.append(
                    f"{path}: {name}={value!r} ignored: an earlier definition "
                    f"({conf.properties.get(name)!r}) is final (Hadoop Configuration: "
                    "'Attempt to override final parameter')"
                )
            continue
        if value is None:
            if final:  # a final property with no value still blocks later definitions
                conf.final.add(name)
            continue
        conf.properties[name] = value
        srcs = [_text(s) for s in prop.findall("source") if _text(s)]
        if prop.get("source"):
            srcs.insert(0, prop.get("source", ""))
        for child in prop:
            if child.tag is ET.Comment:
                m = _LOADED_FROM.match(child.text or "")
                if m:
                    srcs.append(m.group(1))
        if srcs:
            conf.sources[name] = srcs
        if final:
            conf.final.add(name)
    conf.properties = substitute(conf.properties)
    return conf


def _property(prop: ET.Element) -> tuple[str, str | None, bool]:
    """``(name, value, final)`` of one ``<property>``, as ``Configuration.Parser`` reads it:
    attributes first (the short format), then child elements override them; an empty value is
    ``None`` (not set), and ``final`` is exactly ``true``. Name and value are trimmed (every
    getter the model's properties go through reads the value trimmed, ``getTrimmed``)."""
    name = (prop.get("name") or "").strip()
    value = prop.get("value") or None
    final = prop.get("final") == "true"
    name_el, value_el, final_el = prop.find("name"), prop.find("value"), prop.find("final")
    if name_el is not None and _text(name_el):
        name = _text(name_el)
    if value_el is not None:
        raw = "".join(value_el.itertext())
        if raw:
            value = raw.strip()
    if final_el is not None:
        final = "".join(final_el.itertext()) == "true"
    return name, value, final


def load_conf(path: str | Path) -> ConfFile:
    """Read and parse one configuration file."""
    p = Path(path)
    if not p.exists():
        raise InputError("configuration file not found", path=str(p))
    data = safe_io.read_bytes(p, gunzip=True)  # an archived _conf.xml.gz: capped gunzip
    if not data.strip():
        raise InputError("the configuration file is empty", path=str(p))
    return parse_conf_text(data, str(p))


def find_conf_for(history_path: str | Path, job_id: str | None) -> Path | None:
    """The ``<job id>_conf.xml`` that the JobHistory server stores next to a ``.jhist``
    (or its gzipped archive ``<job id>_conf.xml.gz`` next to a ``.jhist.gz``)."""
    p = Path(history_path)
    candidates = []
    ids = [job_id] if job_id else []
    prefix = p.name.split("-", 1)[0]
    if prefix.startswith("job_"):
        ids.append(prefix)
    for jid in ids:
        candidates += [p.with_name(f"{jid}_conf.xml"), p.with_name(f"{jid}_conf.xml.gz")]
    for c in candidates:
        if c.is_file():
            return c
    return None
