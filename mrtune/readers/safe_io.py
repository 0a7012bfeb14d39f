"""Bounded, strict reading of user files: size cap, UTF-8, JSON/YAML depth, finite numbers.

Every reader goes through here so that a hostile or damaged file ends in one
:class:`~mrtune.errors.InputError` line instead of a MemoryError, RecursionError,
UnicodeDecodeError or a silently infinite number:

- **Size**: a file larger than :func:`max_input_bytes` (default :data:`DEFAULT_MAX_INPUT_MB`
  MiB; raise it with ``mrtune --max-input-mb N`` or ``MRTUNE_MAX_INPUT_MB``) is refused from
  its ``stat`` size, before a byte is parsed; gzip is decompressed in chunks against the same cap
  (a gzip bomb stops at the cap). The largest real ``.jhist`` files of 10^5-task jobs are a few
  hundred MB; parsing one costs several times its size in memory, hence the default.
- **Encoding**: Hadoop writes every history, configuration and trace in UTF-8
  (``JobHistoryEventHandler`` / ``Configuration.writeXml`` use UTF-8). Anything else is refused
  in one line naming the first bad byte, never decoded with replacement characters.
- **JSON**: nesting deeper than :data:`MAX_DEPTH` is refused before parsing (the C decoder
  recurses); ``NaN``/``Infinity``, numbers that overflow a double (``1e999``) and integers
  outside a Java ``long`` (Hadoop parses every counter and timestamp with ``Long.parseLong``)
  are refused where they are read.
- **YAML**: ``yaml.safe_load`` only (no Python objects), the same depth limit, and a cap on the
  number of values the document expands to, so an alias bomb cannot hang validation.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import re
import zlib
from itertools import accumulate
from pathlib import Path
from typing import Any

from mrtune.errors import InputError

MIB = 1 << 20
#: Default largest input file, in MiB (``--max-input-mb`` / ``MRTUNE_MAX_INPUT_MB`` raise it).
DEFAULT_MAX_INPUT_MB = 256
MAX_INPUT_ENV = "MRTUNE_MAX_INPUT_MB"
#: Deepest JSON/YAML nesting accepted. Hadoop's deepest document (REST ``jobAttempts`` /
#: Rumen ``attempts[].location.layers``) nests 6 levels; 64 leaves room for wrappers.
MAX_DEPTH = 64
#: Most values a YAML document may expand to through aliases.
MAX_YAML_VALUES = 1_000_000
#: Java ``long`` range: what ``Long.parseLong`` accepts for counters and timestamps.
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1

_RAISE_HINT = f"raise it with --max-input-mb or {MAX_INPUT_ENV}"


def max_input_bytes() -> int:
    """The size cap in bytes: ``MRTUNE_MAX_INPUT_MB`` within the bounds of ``--max-input-mb``,
    which sets it ([1, 2^30] MiB: 0.2 had been read as "the 0 MiB input limit"), or the default."""
    raw = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_INPUT_MB * MIB
    try:
        mb = float(raw)
    except ValueError:
        mb = math.nan
    if not 1 <= mb <= 1 << 30:  # NaN fails too
        raise InputError(
            "not an input limit in MiB",
            field=MAX_INPUT_ENV,
            value=raw,
            allowed="a number in [1, 2^30], as --max-input-mb",
        )
    return int(mb * MIB)


def _too_big(path: str, size: int, limit: int, what: str = "the file is") -> InputError:
    cap = f"{limit / MIB:,.2f}".rstrip("0").rstrip(".")  # 1.5 MiB is not "2 MiB"
    return InputError(
        f"{what} {size / MIB:,.1f} MiB, more than the {cap} MiB input limit ({_RAISE_HINT})",
        path=path,
    )


def check_size(path: str | Path) -> int:
    """The file's size; :class:`InputError` when it is above the cap or cannot be read."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except FileNotFoundError:
        raise InputError("file not found", path=str(p)) from None
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=str(p)) from None
    limit = max_input_bytes()
    if size > limit:
        raise _too_big(str(p), size, limit)
    return size


def read_bytes(path: str | Path, *, gunzip: bool = False) -> bytes:
    """The file's bytes, size-capped; with ``gunzip``, a gzip file is decompressed (capped)."""
    p = Path(path)
    check_size(p)
    try:
        with p.open("rb") as fh:
            data = fh.read()
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", path=str(p)) from None
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=str(p)) from None
    if gunzip and data[:2] == b"\x1f\x8b":
        return _gunzip(data, str(p))
    return data


def _gunzip(data: bytes, path: str) -> bytes:
    """Decompress in 1 MiB steps, stopping at the cap (a gzip bomb never fills memory)."""
    import io

    limit = max_input_bytes()
    out = bytearray()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
            while chunk := gz.read(MIB):
                out += chunk
                if len(out) > limit:
                    raise _too_big(path, len(out), limit, "decompressed, the file is over")
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(
            f"cannot read the gzip data (damaged or truncated): {exc}", path=path
        ) from None
    return bytes(out)


def decode_utf8(data: bytes, path: str) -> str:
    """Strict UTF-8 (a UTF-8 byte-order mark is dropped); anything else is one clear line."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or data[:4] == b"\x00\x00\xfe\xff":
        kind = "UTF-32" if data[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff") else "UTF-16"
        raise InputError(
            f"the file is {kind}; Hadoop writes UTF-8", path=path, allowed="UTF-8 (iconv -t UTF-8)"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        raise InputError(
            f"not UTF-8 text: byte 0x{bad} at offset {exc.start} cannot be decoded",
            path=path,
            allowed="UTF-8 (convert with iconv -t UTF-8)",
        ) from None


def read_text(path: str | Path, *, gunzip: bool = False) -> str:
    """The file's text: size-capped, strict UTF-8, gunzipped on request."""
    return decode_utf8(read_bytes(path, gunzip=gunzip), str(path))


# ------------------------------------------------------------------------------------- JSON
class _BadNumber(Exception):
    """A number the JSON hooks refuse (carries the message for :class:`InputError`)."""


def _parse_float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise _BadNumber(f"the number {text[:40]} overflows a double")
    return v


def _parse_int(text: str) -> int:
    if len(text) > 20:
        raise _BadNumber(f"the integer {text[:24]}… is outside a Java long")
    v = int(text)
    if not LONG_MIN <= v <= LONG_MAX:
        raise _BadNumber(f"the integer {text} is outside a Java long (±2^63)")
    return v


def _parse_constant(text: str) -> float:
    raise _BadNumber(f"{text} is not a number JSON allows")


#: A decoder that refuses NaN, infinities and out-of-range integers (``raw_decode`` for
#: concatenated documents such as Rumen traces).
DECODER = json.JSONDecoder(
    parse_float=_parse_float, parse_int=_parse_int, parse_constant=_parse_constant
)

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_depth(text: str) -> int:
    """Deepest bracket nesting of JSON (or flow-style YAML) text, strings ignored."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if not brackets:
        return 0
    return max(accumulate(_STEP[c] for c in brackets))


def check_depth(text: str, path: str) -> None:
    """:class:`InputError` when ``text`` nests deeper than :data:`MAX_DEPTH`."""
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise InputError(
            f"nesting {depth} levels deep, more than the {MAX_DEPTH} any Hadoop document needs",
            path=path,
        )


def json_loads(text: str | bytes, path: str, *, where: str = "") -> Any:
    """Parse JSON strictly (depth, finite numbers, long integers); errors name ``path``."""
    if isinstance(text, bytes):
        text = decode_utf8(text, path)
    check_depth(text, path)
    at = f"{where}: " if where else ""
    try:
        return DECODER.decode(text.removeprefix("\ufeff"))
    except _BadNumber as exc:
        raise InputError(f"{at}{exc}", path=path, allowed="finite numbers") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{at}malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", path=path
        ) from None
    except RecursionError:
        raise InputError(f"{at}JSON nested too deeply", path=path) from None


def raw_decode(text: str, pos: int, path: str) -> tuple[Any, int]:
    """One JSON value of ``text`` from ``pos`` (strict numbers); JSONDecodeError passes through."""
    try:
        return DECODER.raw_decode(text, pos)
    except _BadNumber as exc:
        raise InputError(str(exc), path=path, allowed="finite numbers") from None
    except RecursionError:
        raise InputError("JSON nested too deeply", path=path) from None


# ------------------------------------------------------------------------------------- YAML
def yaml_loads(text: str, path: str) -> Any:
    """``yaml.safe_load`` with the depth limit and an alias-expansion cap."""
    import yaml

    check_depth(text, path)
    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    except yaml.YAMLError as exc:
        raise InputError(f"not valid YAML/JSON: {exc}".replace("\n", " "), path=path) from None
    except RecursionError:
        raise InputError("YAML nested too deeply", path=path) from None
    _check_tree(data, path)
    return data


def _check_tree(data: Any, path: str) -> None:
    """Walk the loaded document (aliases expanded) against the depth and value caps."""
    stack: list[tuple[Any, int, str]] = [(data, 0, "")]
    seen = 0
    while stack:
        node, depth, at = stack.pop()
        seen += 1
        if seen > MAX_YAML_VALUES:
            raise InputError(
                f"the document expands to more than {MAX_YAML_VALUES:,} values (alias bomb?)",
                path=path,
            )
        if depth > MAX_DEPTH:
            raise InputError(f"nesting deeper than {MAX_DEPTH} levels", path=path)
        if isinstance(node, dict):
            stack.extend((v, depth + 1, f"{at}.{k}" if at else str(k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, depth + 1, f"{at}[{i}]") for i, v in enumerate(node))
        elif isinstance(node, float) and not math.isfinite(node):
            raise InputError(
                "a number is NaN or infinite",
                path=path,
                field=at or None,
                value=node,
                allowed="finite numbers",
            )


# ---------------------------------------------------------------------------------- numbers
def to_long(v: Any) -> int | None:
    """A Java ``long`` from a JSON/Avro value, or ``None`` when it is not one.

    Hadoop reads counters and timestamps with ``Long.parseLong``: booleans, fractions that are
    not whole, NaN, infinities and values beyond ±2^63 are not longs, so they are treated as
    missing (and the caller decides whether a missing value is an error).
    """
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, float):
        if not math.isfinite(v):
            return None
        n = int(v)
    elif isinstance(v, int):
        n = v
    elif isinstance(v, str) and 0 < len(v) <= 20:
        try:
            n = int(v.strip())
        except ValueError:
            return None
    else:
        return None
    return n if LONG_MIN <= n <= LONG_MAX else None


def _bad_number(obj: Any, where: str, *, nonneg: bool) -> str | None:
    """Path and value of the first NaN/infinite (or, with ``nonneg``, negative) number."""
    stack: list[tuple[Any, str]] = [(obj, where)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, f"{at}.{k}") for k, v in node.items())
        elif isinstance(node, list | tuple):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(node))
        elif isinstance(node, int | float) and not isinstance(node, bool):
            if not math.isfinite(node) or (nonneg and node < 0):
                return f"{at}={node!r}"
    return None


def check_profile_numbers(profile: Any, path: str) -> None:
    """A profile read from a file holds no NaN, infinity or negative time, size or counter.

    Pydantic accepts ``inf`` for a float field and the profile model bounds only some fields,
    so a hand-edited profile could otherwise carry a negative counter or an infinite cost into
    every prediction made from it.
    """
    d = profile.model_dump(mode="python")
    checks = [
        (d.get("input_bytes"), "input_bytes", True),
        (d.get("stats"), "stats", True),
        (d.get("costs"), "costs", True),
        (d.get("codecs"), "codecs", True),
        (d.get("observed"), "observed", True),
        (d.get("observed_counters"), "observed_counters", True),
        (d.get("cluster_facts"), "cluster_facts", False),
    ]
    # cluster facts are counts, sizes and times too, except the checks' signed relative errors
    facts = d.get("cluster_facts") or {}
    unsigned = {k: v for k, v in facts.items() if not str(k).endswith(".error")}
    checks.append((unsigned, "cluster_facts", True))
    for value, where, nonneg in checks:
        bad = _bad_number(value, where, nonneg=nonneg)
        if bad is not None:
            field, _, shown = bad.partition("=")
            raise InputError(
                "not a finite, non-negative number",
                path=path,
                field=field,
                value=shown,
                allowed="finite numbers >= 0",
            )
    check_volumes(profile, path)
    for t in d.get("observed") or []:
        if t.get("finish_ms", 0) < t.get("start_ms", 0):
            raise InputError(
                "the task finishes before it starts",
                path=path,
                field=f"observed.{t.get('attempt_id')}",
            )


def check_finite_tree(obj: Any, path: str, where: str = "") -> None:
    """Every number of a validated document is finite and fits a Java long (pydantic accepts
    ``"inf"`` for a float and any size of int, neither of which a Hadoop quantity can be)."""
    stack: list[tuple[Any, str]] = [(obj, where)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, f"{at}.{k}" if at else str(k)) for k, v in node.items())
        elif isinstance(node, list | tuple):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(node))
        elif isinstance(node, float) and not math.isfinite(node):
            raise InputError("not a finite number", path=path, field=at, value=node)
        elif (
            isinstance(node, int)
            and not isinstance(node, bool)
            and not LONG_MIN <= node <= LONG_MAX
        ):
            raise InputError("integer outside a Java long (±2^63)", path=path, field=at)


def check_volumes(profile: Any, path: str | None = None, field: str = "input_bytes") -> None:
    """The job's input, map output and reduce output each fit a Java long of bytes.

    Hadoop counts every volume in a ``long`` counter (``FileSystemCounter.BYTES_READ``,
    ``MAP_OUTPUT_BYTES``…); a profile whose input times its selectivities exceeds one describes
    no job that can run, and would overflow the model to infinities.
    """
    ib = float(profile.input_bytes)
    stats = profile.stats
    map_out = ib * float(getattr(stats, "map_size_sel", 1.0) or 0.0)
    red_out = map_out * float(getattr(stats, "reduce_size_sel", 1.0) or 0.0)
    for what, v in (("input", ib), ("map output", map_out), ("reduce output", red_out)):
        if not (math.isfinite(v) and v <= LONG_MAX):
            raise InputError(
                f"the job's {what} would be {v:.3g} bytes, beyond the 8 EiB a Hadoop byte "
                "counter holds",
                path=path,
                field=field,
            )
