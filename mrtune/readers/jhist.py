"""Read a Hadoop 2/3 job history file (``.jhist``) into a :class:`JobHistory`.

Both encodings ``EventWriter`` writes are read: ``Avro-Json`` (described here) and
``Avro-Binary`` (Hadoop 3's default, ``mapreduce.jobhistory.jhist.format=binary``; decoded by
:mod:`mrtune.readers.jhist_binary`). Both give the same events, hence the same history.

Format (Hadoop ``EventWriter``/``EventReader``): line 1 is ``Avro-Json``, line 2 the Avro schema
of ``org.apache.hadoop.mapreduce.jobhistory.Event``, then one JSON-encoded event per line (blank
lines may separate them). The events are decoded with :func:`fastavro.json_reader` against the
file's own schema, which turns Avro-JSON unions (``{"string": "x"}``) into plain values. Files
that do not match their schema exactly (older writers, hand-edited or truncated files) are read
again with a tolerant JSON decoder that unwraps unions itself and skips what it cannot read, with
a warning for each skipped line.

Which events matter (``JobHistoryParser.handleEvent``): ``JOB_SUBMITTED``/``JOB_INITED`` (job
facts, declared maps and reduces, uber mode), ``*_ATTEMPT_STARTED`` (start time, container),
``MAP_ATTEMPT_FINISHED`` (``mapFinishTime``), ``REDUCE_ATTEMPT_FINISHED`` (``shuffleFinishTime``,
``sortFinishTime``), ``*_ATTEMPT_FAILED``/``KILLED`` (counted, excluded), ``TASK_FAILED``,
``JOB_FINISHED`` (``totalCounters``, ``mapCounters``, ``reduceCounters``) and
``JOB_FAILED``/``JOB_KILLED`` (``JobUnsuccessfulCompletion``, with diagnostics).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mrtune.errors import InputError
from mrtune.readers import safe_io
from mrtune.readers.gzip_stream import CappedGzip, is_gzip
from mrtune.readers.history import AttemptRecord, JobHistory, flatten_counter_groups
from mrtune.readers.jhist_binary import BINARY_MAGIC, read_binary_events

MAGIC = "Avro-Json"

#: Avro primitive type names that may wrap a union value in Avro-JSON.
_AVRO_PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


def is_jhist(head: str) -> bool:
    """Whether text starting with ``head`` looks like a ``.jhist`` file (JSON or binary)."""
    return head.lstrip("\ufeff").startswith((MAGIC, BINARY_MAGIC))


def _unwrap(value: Any) -> Any:
    """Undo Avro-JSON union encoding: ``{"string": "x"}`` → ``"x"``, recursively.

    A one-key object whose key is a primitive type name or a namespaced record name
    (``org.apache…JobFinished``) is a union branch; other objects (maps such as ``acls``,
    records such as ``counters``) are kept, with their values unwrapped.
    """
    if isinstance(value, dict):
        if len(value) == 1:
            ((k, v),) = value.items()
            if k in _AVRO_PRIMITIVES or "." in k or k in {"array", "map"}:
                return _unwrap(v)
        return {k: _unwrap(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    return value


#: Longest line read (a Hadoop 3 schema line is ~30 KB, a JOB_FINISHED event with every
#: counter group ~100 KB): a file without newlines never becomes one giant string.
MAX_LINE_BYTES = 16 << 20
#: Unreadable event lines tolerated (while they outnumber the readable events): a damaged
#: history has a few; a file of junk after a valid header must not become a warning per line.
MAX_BAD_LINES = 1000


def _lines(p: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every line, streamed, each bounded and strictly UTF-8; a
    gzipped history (``.jhist.gz``, how histories are archived) is decompressed as it streams,
    its decompressed size capped (:class:`~mrtune.readers.gzip_stream.CappedGzip`)."""
    try:
        with CappedGzip(p) if is_gzip(p) else p.open("rb") as fh:
            no = 0
            while raw := fh.readline(MAX_LINE_BYTES + 1):
                no += 1
                if len(raw) > MAX_LINE_BYTES:
                    raise InputError(
                        f"line {no} is longer than {MAX_LINE_BYTES >> 20} MiB: not a job history",
                        path=str(p),
                    )
                yield no, safe_io.decode_utf8(raw, f"{p}:{no}").rstrip("\r\n")
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=str(p)) from None


def _event_lines(p: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines after the schema, each checked for nesting depth."""
    for no, line in _lines(p):
        if no > 2 and line.strip():
            safe_io.check_depth(line, f"{p}: line {no}")
            yield no, line


def _header(p: Path) -> tuple[str, Any]:
    """Check line 1 (``Avro-Json`` or ``Avro-Binary``); return it and the schema of line 2."""
    size = safe_io.check_size(p)
    head = list(itertools.islice(_lines(p), 2))
    if size == 0 or (size <= 4096 and not "".join(ln for _, ln in head).strip()):
        raise InputError("the file is empty", path=str(p))
    first = head[0][1] if head else ""
    if not is_jhist(first):
        raise InputError(
            f"not a job history file: line 1 is {first[:40]!r}, expected {MAGIC!r} or "
            f"{BINARY_MAGIC!r}",
            path=str(p),
        )
    if len(head) < 2 or not head[1][1].strip():
        raise InputError("truncated job history: no schema on line 2", path=str(p))
    magic = BINARY_MAGIC if first.lstrip("\ufeff").startswith(BINARY_MAGIC) else MAGIC
    return magic, safe_io.json_loads(head[1][1], str(p), where="line 2 (the Avro schema)")


def read_events(path: str | Path) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """All ``(event type, event body)`` pairs of a ``.jhist`` file, and warnings.

    An Avro-Json file is streamed line by line (never held whole as bytes or text). Raises
    :class:`InputError` for an empty file, a file that is not a job history, a schema line that
    is not JSON, a line nested too deeply, or text that is not UTF-8. An Avro-Binary file is
    decoded by :func:`~mrtune.readers.jhist_binary.read_binary_events` (no warnings: binary
    data either decodes against its schema or the file is refused).
    """
    p = Path(path)
    magic, schema = _header(p)
    if magic == BINARY_MAGIC:
        return read_binary_events(p, schema), []
    try:
        import fastavro

        reader = fastavro.json_reader((line for _, line in _event_lines(p)), schema)
        events = [(str(r["type"]), dict(r["event"] or {})) for r in reader]
        return events, []
    except InputError:
        raise
    except Exception:  # noqa: BLE001 - any schema mismatch: fall back to tolerant parsing
        pass

    events = []
    warnings: list[str] = []
    for no, line in _event_lines(p):
        try:
            obj = safe_io.json_loads(line, str(p), where=f"line {no}")
        except InputError as exc:
            if "malformed JSON" not in str(exc):
                raise  # a nesting bomb or a non-finite number: refuse the file
            warnings.append(f"{p.name}: line {no}: unreadable event skipped (malformed JSON)")
            if len(warnings) > MAX_BAD_LINES and len(warnings) > len(events):
                raise InputError(
                    f"more than {MAX_BAD_LINES} unreadable event lines (the first at "
                    f"{warnings[0].split(': ', 2)[1]}): not a job history",
                    path=str(p),
                ) from None
            continue
        if not isinstance(obj, dict) or "type" not in obj:
            warnings.append(f"{p.name}: line {no}: not an event (no 'type') skipped")
            continue
        body_obj = _unwrap(obj.get("event"))
        events.append((str(obj["type"]), body_obj if isinstance(body_obj, dict) else {}))
    return events, warnings


def _counters(obj: Any, source: str | None = None, owner: str = "") -> dict[str, float]:
    if isinstance(obj, dict):
        return flatten_counter_groups(obj.get("groups") or [], source=source, owner=owner)
    return {}


def _int(v: Any) -> int | None:
    return safe_io.to_long(v)


def load_jhist(path: str | Path) -> JobHistory:
    """Parse one ``.jhist`` file (see the module doc) independently of the order of its events.

    ``EventWriter`` appends events as they happen, but a file re-sorted by a tool is the same
    history, and nothing in an event depends on where it stands: ``JobHistoryParser`` keys
    each attempt event by its ``attemptId`` (``TaskAttemptInfo``), and the job events set
    disjoint facts. So the file is read whole first: job facts and failure counts
    (:func:`_job_event`, before any attempt, since ``JOB_INITED``'s uber mode decides what a
    duplicate is), every ``*_ATTEMPT_STARTED`` by attempt id, the attempts that failed or were
    killed (:data:`_UNSUCCESSFUL`), and the finish events; then each
    finish is paired with its attempt's start (:func:`_attempt_finished`), in attempt-id order,
    so a reordered file gives the same history; the end checks the history is whole
    (:func:`_check_end`)."""
    p = Path(path)
    events, warnings = read_events(p)
    if not events:
        raise InputError("no events after the schema (truncated job history)", path=str(p))
    h = JobHistory(source=str(p), source_format="jhist", hadoop_version=2)
    h.warnings.extend(warnings)
    starts: dict[str, dict[str, Any]] = {}
    finishes: list[tuple[str, dict[str, Any]]] = []
    ended: set[str] = set()  # attempts with a FAILED/KILLED event
    finished_job = False
    for etype, ev in events:
        if etype in _UNSUCCESSFUL:
            ended.add(str(ev.get("attemptId")))
        if etype in ("MAP_ATTEMPT_STARTED", "REDUCE_ATTEMPT_STARTED"):
            aid = str(ev.get("attemptId"))
            if aid not in starts or _start_key(ev) < _start_key(starts[aid]):
                starts[aid] = ev
        elif etype in ("MAP_ATTEMPT_FINISHED", "REDUCE_ATTEMPT_FINISHED"):
            finishes.append((etype, ev))
        elif _job_event(h, etype, ev):
            finished_job = True
    for etype, ev in sorted(finishes, key=_finish_key):
        if str(ev.get("attemptId")) not in ended:
            _attempt_finished(h, etype, ev, starts)
    _check_end(h, finished_job, p.name)
    return h


#: Events that end an attempt unsuccessfully. A succeeded attempt can still fail or be killed
#: (``TaskAttemptImpl``: too many fetch failures, its node lost, and the map runs again), never
#: the reverse: so an attempt with such an event is not successful, wherever the event stands
#: (``JobHistoryParser`` lets the later event win, which in a file in order is this one).
_UNSUCCESSFUL = frozenset(
    f"{k}_ATTEMPT_{e}" for k in ("MAP", "REDUCE") for e in ("FAILED", "KILLED")
)


def _start_key(ev: dict[str, Any]) -> tuple[int, str]:
    """Of two start events for one attempt the earlier is kept, whichever comes first."""
    t = _int(ev.get("startTime"))
    return (t if t is not None else 2**63, str(ev.get("containerId") or ""))


def _finish_key(item: tuple[str, dict[str, Any]]) -> tuple[str, int, str]:
    """Finish events in attempt-id order (then time): the file's order never decides which
    of two duplicated executions is kept (:meth:`JobHistory.add_attempt`)."""
    etype, ev = item
    t = _int(ev.get("finishTime"))
    return (str(ev.get("attemptId")), t if t is not None else -1, etype)


def _attempt_finished(
    h: JobHistory, etype: str, ev: dict[str, Any], starts: dict[str, dict[str, Any]]
) -> None:
    """A successful ``*_ATTEMPT_FINISHED`` with its start event → one :class:`AttemptRecord`
    (TaskAttemptFinishedEvent / MapAttemptFinishedEvent / ReduceAttemptFinishedEvent).

    Without a start event, or with a time that is not a long, the attempt is kept *untimed*:
    it ran and its output was shuffled, so its counters are the job's; the task screen
    (:mod:`mrtune.profiling.task_checks`) leaves it out of the timing and counts it."""
    aid = str(ev.get("attemptId"))
    status = str(ev.get("taskStatus") or "SUCCEEDED").upper()
    if status not in ("SUCCEEDED", "SUCCESS"):
        return
    st = starts.get(aid)
    finish = _int(ev.get("finishTime"))
    start = _int(st.get("startTime")) if st is not None else None
    untimed = None
    if st is None:
        untimed = "no ATTEMPT_STARTED event"
    elif finish is None or start is None:
        which, raw = (
            ("finishTime", ev.get("finishTime"))
            if finish is None
            else ("startTime", st.get("startTime"))
        )
        untimed = f"{which} {raw!r} is not a time (a Java long)"
    container = st.get("containerId") if st is not None else None
    h.add_attempt(
        AttemptRecord(
            attempt_id=aid,
            task_id=str(ev.get("taskid") or ""),
            kind="map" if etype.startswith("MAP") else "reduce",
            start_ms=start or 0,
            finish_ms=finish or 0,
            map_finish_ms=_int(ev.get("mapFinishTime")),
            shuffle_finish_ms=_int(ev.get("shuffleFinishTime")),
            sort_finish_ms=_int(ev.get("sortFinishTime")),
            counters=_counters(ev.get("counters"), h.source, aid),
            container_id=str(container) if container else None,
            host=str(ev.get("hostname")) if ev.get("hostname") else None,
            rack=str(ev.get("rackname")) if ev.get("rackname") else None,
            untimed=untimed,
        )
    )


def _job_event(h: JobHistory, etype: str, ev: dict[str, Any]) -> bool:
    """Job submitted/inited/finished events and the failure counts; True for an event that
    ends the job (JOB_FINISHED, JOB_FAILED, JOB_KILLED, JOB_ERROR)."""
    if etype == "JOB_SUBMITTED":
        h.job_id = str(ev.get("jobid") or h.job_id)
        h.job_name = str(ev.get("jobName") or "")
        h.submit_ms = _int(ev.get("submitTime"))
    elif etype == "JOB_INITED":
        h.launch_ms = _int(ev.get("launchTime"))
        h.total_maps = _int(ev.get("totalMaps"))
        h.total_reduces = _int(ev.get("totalReduces"))
        h.uberized = bool(ev.get("uberized") or False)
    elif etype in ("MAP_ATTEMPT_FAILED", "REDUCE_ATTEMPT_FAILED"):
        status = str(ev.get("status") or "FAILED").upper()
        if status == "KILLED":
            h.killed_attempts += 1
        else:
            h.failed_attempts += 1
    elif etype in ("MAP_ATTEMPT_KILLED", "REDUCE_ATTEMPT_KILLED"):
        h.killed_attempts += 1
    elif etype == "TASK_FAILED":
        h.failed_tasks += 1
    elif etype == "JOB_FINISHED":
        h.status = "SUCCEEDED"
        h.finish_ms = _int(ev.get("finishTime"))
        h.total_counters = _counters(
            ev.get("totalCounters"), h.source, "JOB_FINISHED.totalCounters"
        )
        h.map_counters = _counters(ev.get("mapCounters"), h.source, "JOB_FINISHED.mapCounters")
        h.reduce_counters = _counters(
            ev.get("reduceCounters"), h.source, "JOB_FINISHED.reduceCounters"
        )
        return True
    elif etype in ("JOB_FAILED", "JOB_KILLED", "JOB_ERROR"):
        h.status = str(ev.get("jobStatus") or etype.removeprefix("JOB_")).upper()
        h.finish_ms = _int(ev.get("finishTime"))
        h.diagnostics = str(ev.get("diagnostics") or "")
        return True
    return False


def _check_end(h: JobHistory, finished_job: bool, name: str) -> None:
    """A history without a job-end event is truncated; more successful reduces than the job
    declares is said (duplicates already dropped are not counted twice)."""
    if not finished_job:
        h.complete = False
        h.status = "INCOMPLETE"
        h.warnings.append(
            f"{name}: truncated job history (no JOB_FINISHED event): job counters are summed "
            "from the finished attempts"
        )
    if h.total_reduces is not None and h.uberized is False:
        extra = len(h.successful("reduce")) - h.total_reduces
        if extra > 0 and h.duplicates_dropped == 0:
            h.warnings.append(
                f"{name}: {extra} more successful reduce attempts than the {h.total_reduces} "
                "the job declares"
            )
