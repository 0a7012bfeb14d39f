"""Decode the events of a binary job history (``Avro-Binary``), Hadoop 3's default.

Hadoop 3 writes ``.jhist`` files in binary unless ``mapreduce.jobhistory.jhist.format`` is
``json``. The framing (``org.apache.hadoop.mapreduce.jobhistory.EventWriter`` with
``WriteMode.BINARY``): the bytes ``Avro-Binary\\n``, the schema of ``Event`` as one line of JSON
and ``\\n``, then every event Avro-binary encoded with that schema, one datum after another —
no block headers, no sync markers, no count. ``EventReader`` reads datums with a binary decoder
until end of file, so the only end marker is EOF.

Each datum is decoded with :func:`fastavro.schemaless_reader` against the file's own schema.
The payload is read into memory (size-capped by :mod:`mrtune.readers.safe_io`) and decoded
from a :class:`io.BytesIO`: a damaged length prefix then reads only the bytes that exist
instead of asking the OS for an exabyte. Without framing, a datum cut short or damaged leaves
the rest of the file undecodable, so any decoding failure is one :class:`InputError` naming
the event number and byte offset; a file cut exactly between two events is a well-formed
(incomplete) history, which :func:`mrtune.readers.jhist.load_jhist` reports as such.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from mrtune.errors import InputError
from mrtune.readers import safe_io

BINARY_MAGIC = "Avro-Binary"


def _payload_start(data: bytes, p: Path) -> int:
    """Byte offset just after the schema line (line 2) of a binary history."""
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first >= 0 else -1
    if second < 0:
        raise InputError("truncated binary job history: the schema line never ends", path=str(p))
    return second + 1


def _parsed_schema(schema: Any, p: Path) -> Any:
    """The fastavro form of the file's ``Event`` schema; a bad schema is one clear line.

    Hadoop's ``Event`` record (``Events.avpr``) has the fields ``type`` (the ``EventType``
    enum) and ``event`` (a union of the event records); a schema without them cannot give
    events, whatever its datums decode to.
    """
    import fastavro

    fields = schema.get("fields") if isinstance(schema, dict) else None
    names = (
        {f.get("name") for f in fields if isinstance(f, dict)}
        if isinstance(fields, list)
        else set()
    )
    if not {"type", "event"} <= names:
        raise InputError(
            "line 2 is not the schema of Hadoop's Event record (no 'type' and 'event' fields)",
            path=str(p),
        )
    try:
        return fastavro.parse_schema(schema)
    except Exception as exc:  # noqa: BLE001 - fastavro raises several types for bad schemas
        raise InputError(
            f"line 2 is not a valid Avro schema: {str(exc).splitlines()[0][:120]}", path=str(p)
        ) from None


def _corrupt(p: Path, index: int, offset: int, exc: BaseException) -> InputError:
    what = "the file ends inside it" if isinstance(exc, EOFError) else type(exc).__name__
    return InputError(
        f"truncated or corrupt binary job history: event {index + 1} (at byte {offset}) "
        f"cannot be decoded ({what})",
        path=str(p),
        allowed="a complete Avro-Binary .jhist as Hadoop's EventWriter writes it",
    )


def read_binary_events(path: str | Path, schema: Any) -> list[tuple[str, dict[str, Any]]]:
    """All ``(event type, event body)`` pairs of an ``Avro-Binary`` history.

    ``schema`` is the already-parsed JSON of line 2 (checked by the caller). Raises
    :class:`InputError` for a file over the size cap, a schema fastavro rejects, and any datum
    that cannot be decoded (truncation, flipped bytes, trailing junk).
    """
    import fastavro

    p = Path(path)
    parsed = _parsed_schema(schema, p)
    data = safe_io.read_bytes(p, gunzip=True)  # a .jhist.gz archive: capped gunzip
    start = _payload_start(data, p)
    buf = io.BytesIO(data)
    buf.seek(start)
    end = len(data)
    events: list[tuple[str, dict[str, Any]]] = []
    while (offset := buf.tell()) < end:
        try:
            record = fastavro.schemaless_reader(buf, parsed, None)
        except Exception as exc:  # noqa: BLE001 - EOFError, IndexError, UnicodeDecodeError, …
            raise _corrupt(p, len(events), offset, exc) from None
        if not isinstance(record.get("event"), dict | None):
            raise InputError(
                f"event {len(events) + 1} (at byte {offset}) is not a record: the schema's "
                "'event' field is not Hadoop's union of event records",
                path=str(p),
            )
        events.append((str(record.get("type")), dict(record.get("event") or {})))
    return events
