"""Seeds (the real files of ``../shared/data``) and the mutations the fuzz suite applies to them.

A mutation is a function ``(data: bytes, rng) -> bytes``. They cover what the issue lists:
byte flips, truncation, field deletion and duplication, type swaps, numeric extremes,
encodings and nesting, plus XML attacks for configuration files. Structural mutations parse
the seed (JSON, or one JSON event line of a ``.jhist``), change one node and re-serialise, so
they reach the code behind the parser instead of stopping at a syntax error.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("MRTUNE_SHARED_DATA") or REPO / ".." / "shared" / "data").resolve()
EXAMPLES = REPO / "mrtune" / "examples"

Mutator = Callable[[bytes, random.Random], bytes]

#: The authors' long format (ExtractDataFromLogs.java), a few rows of two runs.
PHASE_CSV = (
    b"Operation,Duration,MapSelectivity,MapInputRec,MapOutputRec,Mappers,DataSize,BlockSize,RunId\n"
    b"read,1200,50,1000000,500000,8,1024,128,r1\nmap,3400,50,1000000,500000,8,1024,128,r1\n"
    b"spill,800,50,1000000,500000,8,1024,128,r1\nshuffle,2100,50,1000000,500000,8,1024,128,r1\n"
    b"read,2300,100,2000000,2000000,16,2048,128,r2\nmap,6100,100,2000000,2000000,16,2048,128,r2\n"
    b"spill,1900,100,2000000,2000000,16,2048,128,r2\nwrite,700,100,2000000,2000000,16,2048,128,r2\n"
)


@dataclass(frozen=True)
class Seed:
    """One real input file and the reader family it feeds."""

    name: str
    kind: str  # jhist, conf, rest, rumen, swim, profile, workflow, phase, tasklog
    suffix: str
    data: bytes


def _head_lines(path: Path, n: int) -> bytes:
    with path.open("rb") as fh:
        return b"".join(fh.readline() for _ in range(n))


def load_seeds() -> list[Seed]:
    """Every seed, in a fixed order (so a fixed rng seed replays the same cases)."""
    if not DATA.is_dir():
        raise FileNotFoundError(f"../shared/data is missing (expected at {DATA})")
    seeds: list[Seed] = []
    for p in sorted((DATA / "jhist").glob("*.jhist")):
        seeds.append(Seed(p.name, "jhist", ".jhist", p.read_bytes()))
    for p in sorted((DATA / "jhist").glob("*_conf.xml")) + sorted((DATA / "conf").glob("*.xml")):
        seeds.append(Seed(p.name, "conf", ".xml", p.read_bytes()))
    for p in sorted((DATA / "rest").glob("*.json")):
        seeds.append(Seed(p.name, "rest", ".json", p.read_bytes()))
    for name in ("wordcount-rumen.json", "zombie-input-trace.json"):
        seeds.append(Seed(name, "rumen", ".json", (DATA / "rumen" / name).read_bytes()))
    gz = DATA / "rumen" / "folder-input-trace.json.gz"
    seeds.append(Seed(gz.name, "rumen", ".json.gz", gz.read_bytes()))
    for p in sorted((DATA / "swim").glob("*.tsv")):
        seeds.append(Seed(p.name, "swim", ".tsv", _head_lines(p, 40)))
    for p in sorted((EXAMPLES / "profiles").glob("*.json")):
        seeds.append(Seed(p.name, "profile", ".json", p.read_bytes()))
    for p in sorted((EXAMPLES / "workflows").glob("*.yaml")):
        seeds.append(Seed(p.name, "workflow", ".yaml", p.read_bytes()))
    seeds.append(Seed("phases.csv", "phase", ".csv", PHASE_CSV))
    for p in sorted((REPO / "tests" / "readers" / "fixtures").glob("*.log")):
        seeds.append(Seed(p.name, "tasklog", ".log", p.read_bytes()))
    return seeds


# ------------------------------------------------------------------------------ byte level
def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if b:
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(max(len(data), 1))]


def delete_span(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(max(len(data), 1))
    return data[:i] + data[i + rng.randint(1, 200) :]


def duplicate_span(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(max(len(data), 1))
    span = data[i : i + rng.randint(1, 400)]
    return data[:i] + span * rng.randint(2, 4) + data[i:]


def insert_junk(data: bytes, rng: random.Random) -> bytes:
    junk = rng.choice(
        [b"\x00", b"\xff\xfe", b"[/]", b"[bold]", b"\xe9", b"\r", b"{", b"]", b"\t\t", b"%s%n"]
    )
    i = rng.randrange(max(len(data), 1))
    return data[:i] + junk * rng.randint(1, 5) + data[i:]


# -------------------------------------------------------------------------------- encodings
def latin1(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8", "replace")
    i = rng.randrange(max(len(text), 1))
    return (text[:i] + "café Zürich " + text[i:]).encode("latin-1", "replace")


def utf16(data: bytes, rng: random.Random) -> bytes:
    return data.decode("utf-8", "replace").encode(rng.choice(["utf-16", "utf-16-le", "utf-32"]))


def bad_utf8(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(max(len(data), 1))
    return (
        data[:i] + rng.choice([b"\xc3\x28", b"\xa0\xa1", b"\xed\xa0\x80", b"\xf8\x88"]) + data[i:]
    )


# ---------------------------------------------------------------------------------- nesting
def nesting_bomb(data: bytes, rng: random.Random) -> bytes:
    depth = rng.choice([100, 5000, 200_000])
    opener = rng.choice([b"[", b'{"a":', b"- "])
    i = rng.randrange(max(len(data), 1))
    return data[:i] + opener * depth + data[i:]


# ------------------------------------------------------------------------ structured JSON
EXTREMES: list[Any] = [
    float("inf"),
    float("-inf"),
    float("nan"),
    1e308,
    -1,
    -1.5,
    0,
    2**63,
    2**64 + 7,
    -(2**63) - 1,
    10**30,
    0.5,
    "-5",
    "1e999",
    "",
    True,
]
SWAPS: list[Any] = [None, "x", [], {}, [1, 2], {"a": 1}, False, "[/]"]


def _nodes(obj: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
    out = [(path, obj)]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.extend(_nodes(v, (*path, k)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:50]):
            out.extend(_nodes(v, (*path, i)))
    return out


def _mutate_obj(obj: Any, rng: random.Random) -> Any:
    """One structural change at a random node: delete, duplicate, swap type, extreme number."""
    nodes = _nodes(obj)
    path, node = rng.choice(nodes)
    if not path:
        return rng.choice([[obj, obj], None, [], "x"]) if rng.random() < 0.1 else obj
    parent = obj
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    op = rng.choice(["delete", "duplicate", "swap", "extreme", "extreme"])
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        op = rng.choice(["extreme", "extreme", "swap", "delete"])
    if op == "delete":
        if isinstance(parent, dict):
            parent.pop(last, None)
        else:
            parent.pop(last)
    elif op == "duplicate":
        if isinstance(parent, list):
            parent.insert(last, json.loads(json.dumps(node)))
        else:
            parent[f"{last}"] = node  # same key: JSON keeps the last; add a sibling copy too
            parent[f"{last}_copy"] = node
    elif op == "swap":
        parent[last] = rng.choice(SWAPS)
    else:
        parent[last] = rng.choice(EXTREMES)
    return obj


def _dump(obj: Any, rng: random.Random) -> str:
    text = json.dumps(obj, allow_nan=True)
    if rng.random() < 0.3:  # JSON has no NaN/Infinity literals; some writers emit 1e999
        text = text.replace("Infinity", "1e999")
    return text


def json_structural(data: bytes, rng: random.Random) -> bytes:
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return flip_bytes(data, rng)
    return _dump(_mutate_obj(obj, rng), rng).encode()


def jhist_event(data: bytes, rng: random.Random) -> bytes:
    """Change one event of a ``.jhist`` (one JSON line after the schema)."""
    lines = data.split(b"\n")
    idx = [i for i, ln in enumerate(lines[2:], 2) if ln.strip().startswith(b"{")]
    for _ in range(rng.randint(1, 3)):
        if not idx:
            break
        i = rng.choice(idx)
        try:
            obj = json.loads(lines[i])
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            continue
        lines[i] = _dump(_mutate_obj(obj, rng), rng).encode()
    return b"\n".join(lines)


_NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def numeric_text(data: bytes, rng: random.Random) -> bytes:
    """Replace numbers in the text with extremes (works for CSV, TSV, XML and JSON alike)."""
    found = list(_NUMBER.finditer(data))
    if not found:
        return flip_bytes(data, rng)
    out = data
    for m in sorted(
        rng.sample(found, min(len(found), rng.randint(1, 4))), key=lambda m: -m.start()
    ):
        rep = rng.choice(
            [b"1e999", b"-1", b"nan", b"inf", b"9223372036854775808", b"1" + b"0" * 400, b"-0.5"]
        )
        out = out[: m.start()] + rep + out[m.end() :]
    return out


def swim_fields(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    parts = lines[i].split(b"\t")
    op = rng.choice(["drop", "dup", "swap"])
    if op == "drop" and parts:
        parts.pop(rng.randrange(len(parts)))
    elif op == "dup" and parts:
        parts.insert(rng.randrange(len(parts)), parts[rng.randrange(len(parts))])
    else:
        parts = [
            rng.choice([b"x", b"", b"1e999", b"-3", b"NaN"]) if rng.random() < 0.4 else p
            for p in parts
        ]
    lines[i] = b"\t".join(parts)
    return b"\n".join(lines)


# ------------------------------------------------------------------------------------ XML
XML_ATTACKS = {
    "billion_laughs": b'<?xml version="1.0"?><!DOCTYPE c [<!ENTITY a "aaaaaaaaaa">'
    + b"".join(
        b'<!ENTITY a%d "%s">' % (i, (b"&a%d;" % (i - 1) if i > 1 else b"&a;") * 10)
        for i in range(1, 10)
    )
    + b"]><configuration><property><name>x</name><value>&a9;</value></property></configuration>",
    "quadratic": b'<?xml version="1.0"?><!DOCTYPE c [<!ENTITY a "'
    + b"x" * 50_000
    + b'">]><configuration><property><name>x</name><value>'
    + b"&a;" * 50_000
    + b"</value></property></configuration>",
    "external_entity": b'<?xml version="1.0"?><!DOCTYPE c [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
    b"<configuration><property><name>x</name><value>&e;</value></property></configuration>",
    "external_dtd": b'<?xml version="1.0"?><!DOCTYPE configuration SYSTEM "http://127.0.0.1:9/x.dtd">'
    b"<configuration/>",
    "parameter_entity": b'<?xml version="1.0"?><!DOCTYPE c [<!ENTITY % p SYSTEM "http://127.0.0.1:9/p">%p;]>'
    b"<configuration/>",
    "unknown_encoding": b'<?xml version="1.0" encoding="x-klingon"?><configuration/>',
    "latin1_declared": b'<?xml version="1.0" encoding="ISO-8859-1"?><configuration><property>'
    b"<name>a</name><value>caf\xe9</value></property></configuration>",
}


def xml_attack(data: bytes, rng: random.Random) -> bytes:
    return XML_ATTACKS[rng.choice(sorted(XML_ATTACKS))]


def xml_structural(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8", "replace")
    tags = list(re.finditer(r"<(name|value|property|final|source)>", text))
    if not tags:
        return flip_bytes(data, rng)
    m = rng.choice(tags)
    op = rng.choice(["drop_open", "dup", "encoding"])
    if op == "drop_open":
        text = text[: m.start()] + text[m.end() :]
    elif op == "dup":
        text = text[: m.start()] + m.group(0) * 2 + text[m.start() :]
    else:
        text = re.sub(
            r'encoding="[^"]*"',
            'encoding="' + rng.choice(["latin-1", "bogus", "UTF-16"]) + '"',
            text,
            count=1,
        )
    return text.encode()


BYTE_MUTATORS: list[Mutator] = [
    flip_bytes,
    truncate,
    delete_span,
    duplicate_span,
    insert_junk,
    latin1,
    utf16,
    bad_utf8,
    nesting_bomb,
    numeric_text,
]

#: Mutators per seed kind (byte-level ones apply to every kind).
BY_KIND: dict[str, list[Mutator]] = {
    "jhist": [jhist_event, jhist_event, jhist_event],
    "rest": [json_structural, json_structural, json_structural],
    "rumen": [json_structural, json_structural],
    "profile": [json_structural, json_structural, json_structural],
    "conf": [xml_attack, xml_structural, xml_structural],
    "swim": [swim_fields, swim_fields],
    "workflow": [numeric_text],
    "phase": [numeric_text, swim_fields],
    "tasklog": [numeric_text],
}


def mutate(seed: Seed, rng: random.Random) -> tuple[str, bytes]:
    """One mutated copy of ``seed``: ``(mutator names, bytes)``; gzip seeds are re-gzipped."""
    data = seed.data
    gz = seed.suffix.endswith(".gz")
    if gz:
        data = gzip.decompress(data)
    names = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        m = rng.choice(BY_KIND.get(seed.kind, []) + BYTE_MUTATORS)
        data = m(data, rng)
        names.append(m.__name__)
    if gz and rng.random() < 0.8:
        data = gzip.compress(data, mtime=0)
    return "+".join(names), data
