"""Property values read the way Hadoop's ``org.apache.hadoop.conf.Configuration`` reads them.

A value Hadoop would read differently from Python (``"yes"`` as a boolean, ``"1_00"`` or
``"1e2"`` as an integer) must not be predicted as if Hadoop took it: the job would run with
something else, or fail. These parsers accept exactly what ``Configuration`` accepts and raise
``ValueError`` for the rest; the caller says which property it was.

* ``getBoolean``: the trimmed value, ``true``/``false`` in any case; anything else is the
  default (Hadoop logs ``Invalid value for boolean``).
* ``getInt``/``getLong``: ``Integer.parseInt``/``Long.parseLong`` of the trimmed value, or of
  its digits after ``0x``/``0X`` as hex (``Configuration.getHexDigits``), with an optional
  sign. No underscores, fractions or exponents.
* ``getLongBytes`` (``dfs.blocksize``): ``StringUtils.TraditionalBinaryPrefix.string2long``, a
  long with an optional ``k/m/g/t/p/e`` suffix (powers of 1024, case-insensitive).
* ``getFloat``: ``Float.parseFloat`` of the trimmed value (an optional ``f``/``d`` suffix).
"""

from __future__ import annotations

import re

from mrtune.costmodel.properties import LONG_MAX

_DEC = re.compile(r"[+-]?[0-9]+", re.ASCII)
_HEX_DIGITS = re.compile(r"[+-]?[0-9a-fA-F]+", re.ASCII)
_FLOAT = re.compile(
    r"[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?)", re.ASCII
)
_PREFIX = {c: 1 << (10 * (i + 1)) for i, c in enumerate("kmgtpe")}

BOOLEAN_ALLOWED = "true or false (Configuration.getBoolean reads anything else as the default)"
INT_ALLOWED = "a whole number in decimal or 0x hex (Configuration.getInt: Integer.parseInt)"
LONG_ALLOWED = "a whole number in decimal or 0x hex (Configuration.getLong: Long.parseLong)"
BYTES_ALLOWED = "a whole number of bytes, optionally with a k/m/g/t/p/e suffix (getLongBytes)"
FLOAT_ALLOWED = "a decimal number (Configuration.getFloat: Float.parseFloat)"


def hadoop_bool(text: str) -> bool | None:
    """``Configuration.getBoolean``: ``True``/``False``, or ``None`` where Hadoop would read the
    default instead (an empty value, or anything but ``true``/``false``)."""
    s = text.strip().lower()
    if s == "true":
        return True
    if s == "false":
        return False
    return None


def hadoop_long(text: str, *, bits: int = 64) -> int:
    """``Configuration.getLong`` (``bits=64``) or ``getInt`` (``bits=32``) of ``text``."""
    s = text.strip()
    negative = s.startswith("-")
    body = s[1:] if negative else s
    if body[:2] in ("0x", "0X"):  # Configuration.getHexDigits, then parseInt(hex, 16)
        digits = ("-" if negative else "") + body[2:]
        if not _HEX_DIGITS.fullmatch(digits):
            raise ValueError(f"{text!r} is not a {bits}-bit integer")
        value = int(digits, 16)
    elif _DEC.fullmatch(s):
        value = int(s)
    else:
        raise ValueError(f"{text!r} is not a {bits}-bit integer")
    limit = 2 ** (bits - 1)
    if not -limit <= value < limit:
        raise ValueError(f"{text!r} is outside a Java {'int' if bits == 32 else 'long'}")
    return value


def hadoop_long_bytes(text: str) -> int:
    """``Configuration.getLongBytes``: a long with an optional binary-prefix suffix."""
    s = text.strip()
    if not s:
        raise ValueError("empty value")
    last = s[-1].lower()
    if last in _PREFIX:
        num = s[:-1]
        if not _DEC.fullmatch(num):  # string2long: Long.parseLong of what precedes the suffix
            raise ValueError(f"{text!r} is not a size")
        value = int(num) * _PREFIX[last]
    elif _DEC.fullmatch(s):
        value = int(s)
    else:
        raise ValueError(f"{text!r} is not a size")
    if not -LONG_MAX - 1 <= value <= LONG_MAX:
        raise ValueError(f"{text!r} does not fit in a Long")
    return value


def hadoop_float(text: str) -> float:
    """``Configuration.getFloat``: ``Float.parseFloat`` of the trimmed value."""
    s = text.strip()
    if not _FLOAT.fullmatch(s):
        raise ValueError(f"{text!r} is not a number")
    return float(s.rstrip("fFdD").replace("Infinity", "inf"))
