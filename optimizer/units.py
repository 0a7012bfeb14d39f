"""Parsing of human sizes and durations given on the command line."""

from __future__ import annotations

import math
import re

_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?\d+)?)\s*([kKmMgGtTpP]?)(i?)([bB]?)\s*$")
_POW = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}


#: Largest size accepted: a Java ``long`` of bytes (Hadoop counts bytes in longs, 8 EiB).
MAX_SIZE_BYTES = float((1 << 63) - 1)
_FORMS = "a number with a unit B, K, M, G, T or P (binary, e.g. 2TB, 500GiB, 128M, 4096B)"


def parse_size(text: str, *, unit_required: bool = True) -> float:
    """Bytes from ``"2TB"``, ``"500 GiB"``, ``"1.5e9B"``, ``"128m"`` (binary multiples, as Hadoop).

    A bare number is refused unless ``unit_required`` is false (where the setting itself is in
    bytes, e.g. ``mapreduce.input.fileinputformat.split.maxsize``): ``--input-size 500`` is far
    more often a forgotten ``GB`` than 500 bytes. The result is finite, at least one byte and at
    most a Java ``long`` (``Long.MAX_VALUE`` bytes). Raises ``ValueError`` naming the value and
    the accepted forms.
    """
    m = _SIZE.match(str(text))
    if not m:
        raise ValueError(f"size {text!r} is not valid; allowed: {_FORMS}")
    if unit_required and not (m.group(2) or m.group(4)):
        raise ValueError(f"size {text!r} has no unit; allowed: {_FORMS}")
    try:
        value = float(m.group(1)) * 1024 ** _POW[m.group(2).lower()]
    except OverflowError:
        value = math.inf
    if not math.isfinite(value) or value > MAX_SIZE_BYTES:
        raise ValueError(f"size {text!r} is larger than the 8 EiB a Hadoop byte counter holds")
    if value < 1:
        raise ValueError(f"size {text!r} must be at least 1 byte")
    return value


def format_bytes(value: float) -> str:
    """``1536`` → ``'1.5 KiB'``."""
    v = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(v) < 1024 or unit == "PiB":
            return f"{v:,.0f} {unit}" if unit == "B" else f"{v:,.1f} {unit}"
        v /= 1024
    return f"{v:.1f} PiB"


def format_ms(ms: float) -> str:
    """Milliseconds as a readable duration: ``'950 ms'``, ``'12.4 s'``, ``'3 min 05 s'``, ``'2 h 04 min'``."""
    ms = float(ms)
    if abs(ms) < 1000:
        return f"{ms:,.0f} ms"
    s = ms / 1000
    if abs(s) < 120:
        return f"{s:,.1f} s"
    if abs(s) < 7200:
        return f"{int(s // 60)} min {int(s % 60):02d} s"
    return f"{int(s // 3600)} h {int((s % 3600) // 60):02d} min"
