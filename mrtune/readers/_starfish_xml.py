"""XML helpers shared by the Starfish readers (:mod:`mrtune.readers.starfish`,
:mod:`mrtune.readers.starfish_cluster`): safe parsing and attribute checks that name the file
and the element in every error."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from mrtune.errors import InputError


def _parse(path: Path, root_tag: str | tuple[str, ...] | None) -> Element:
    """Parse ``path`` with defusedxml (no entities, no DTDs) and check the root element."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=str(path)) from None
    try:
        root = SafeET.fromstring(data)
    except ParseError as exc:
        raise InputError(f"not well-formed XML: {exc}", path=str(path)) from None
    except DefusedXmlException as exc:
        raise InputError(
            f"unsafe XML refused ({type(exc).__name__}): entity and DTD declarations are "
            "not allowed",
            path=str(path),
        ) from None
    if root_tag is not None:
        tags = (root_tag,) if isinstance(root_tag, str) else root_tag
        if root.tag not in tags:
            raise InputError(
                f"root element is <{root.tag}>",
                path=str(path),
                field="/",
                allowed=" or ".join(f"<{t}>" for t in tags),
            )
    return root


def _number(
    raw: str | None, path: Path, where: str, *, integer: bool = False, minimum: float = 0.0
) -> float:
    if raw is None or not raw.strip():
        raise InputError("missing value", path=str(path), field=where)
    try:
        value = float(raw.strip())
    except ValueError:
        raise InputError("not a number", path=str(path), field=where, value=raw) from None
    if not math.isfinite(value):
        raise InputError("not a finite number", path=str(path), field=where, value=raw)
    if value < minimum:
        raise InputError(
            f"must be >= {minimum:g}", path=str(path), field=where, value=raw, allowed=None
        )
    if integer:
        if not value.is_integer():
            raise InputError("must be a whole number", path=str(path), field=where, value=raw)
        return float(int(value))
    return value


def _bool(raw: str | None, path: Path, where: str) -> bool:
    s = (raw or "").strip().lower()
    if s in {"true", "1", "yes"}:
        return True
    if s in {"false", "0", "no", ""}:
        return False
    raise InputError("not a boolean", path=str(path), field=where, value=raw, allowed="true|false")


def _unknown_attributes(
    el: Element, known: Iterable[str], path: Path, where: str, warnings: list[str]
) -> dict[str, str]:
    extra = {k: v for k, v in el.attrib.items() if k not in set(known)}
    for k, v in extra.items():
        warnings.append(f"{path}: {where}: unknown attribute {k}={v!r} ignored")
    return extra
