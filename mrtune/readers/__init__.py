"""Readers of what real clusters record: every file format mrtune takes in.

Readers (each returns a :class:`~mrtune.readers.history.JobHistory`): :func:`load_jhist` (``.jhist``),
:func:`load_rest_saved` / :func:`fetch_jhs` (JobHistory REST: saved responses in ``rest``, the
live client in ``rest_client``), :func:`load_rumen` (Rumen traces); :func:`load_conf` reads ``*_conf.xml``. :func:`load_history` reads any of them from a
path, sniffing its format. Turning a history into a profile is :mod:`mrtune.profiling` (statistics)
and :mod:`mrtune.calibration` (cost factors).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mrtune.errors import InputError

if TYPE_CHECKING:
    from mrtune.readers.conf import ConfFile, find_conf_for, load_conf, parse_conf_text
    from mrtune.readers.history import AttemptRecord, JobHistory
    from mrtune.readers.jhist import load_jhist
    from mrtune.readers.rest import load_rest_saved
    from mrtune.readers.rest_client import fetch_jhs
    from mrtune.readers.rumen import load_rumen, select_job

#: Where each reader lives: a reader's module (and what it imports: XML, HTTP, Avro) is loaded
#: only when that reader is used, so reading a saved profile pays for none of them (issue 13).
_WHERE = {
    "ConfFile": "conf",
    "find_conf_for": "conf",
    "load_conf": "conf",
    "parse_conf_text": "conf",
    "AttemptRecord": "history",
    "JobHistory": "history",
    "load_jhist": "jhist",
    "fetch_jhs": "rest_client",
    "load_rest_saved": "rest",
    "load_rumen": "rumen",
    "select_job": "rumen",
}


def __getattr__(name: str) -> Any:
    """PEP 562: the readers are imported on first use (see :data:`_WHERE`)."""
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


SourceFormat = Literal["auto", "jhist", "rest", "rumen"]
FORMATS: tuple[str, ...] = ("jhist", "rest", "rumen")


#: How a run record of ``mrtune hadoop-run`` starts (``RunRecord.model_dump_json``: a record,
#: a list of them, or one a line).
RUN_RECORD_HEAD = re.compile(r'\[?\s*\{\s*"schema_version"\s*:\s*\d+\s*,\s*"run_id"\s*:')


def holds_run_records(path: str | Path) -> bool:
    """Whether ``path``'s content starts as run records do (:data:`RUN_RECORD_HEAD`), whatever
    their fields: a damaged record is then reported as one, not as some other kind of file."""
    try:
        head = _head(Path(path))
    except InputError:
        return False
    return bool(RUN_RECORD_HEAD.match(head.lstrip("\ufeff \t\r\n")))


def sniff_format(path: str | Path) -> str:
    """``jhist``, ``rest``, ``rumen`` or ``run`` (a run record of ``mrtune hadoop-run``) from a
    file's content (a directory is REST).

    A ``.jhist`` is known by its first line (``Avro-Json``, or ``Avro-Binary`` as Hadoop 3
    writes by default; its binary events are never decoded as text here). JSON is told apart
    by the keys of its first parsed value, not by a prefix: a Rumen ``LoggedJob`` may put a long
    ``jobProperties`` before ``jobID``, and may start with a ``/* … */`` licence header.
    """
    p = Path(path)
    if p.is_dir():
        return "rest"
    if not p.exists():
        raise InputError("file not found", path=str(p))
    from mrtune.readers.safe_io import check_size

    check_size(p)
    head = _head(p)
    if not head.strip():
        raise InputError("the file is empty", path=str(p))
    from mrtune.readers.jhist import is_jhist
    from mrtune.readers.rumen import is_rumen, read_text, strip_comment_header

    if is_jhist(head):
        return "jhist"
    if RUN_RECORD_HEAD.match(head.lstrip("\ufeff \t\r\n")):
        return "run"
    head = strip_comment_header(head, "")
    if head.lstrip("\ufeff \t\r\n").startswith(("{", "[")) and is_rumen(
        strip_comment_header(read_text(p), "")
    ):
        return "rumen"
    stripped = head.lstrip("\ufeff \t\r\n")
    if stripped.startswith(("{", "[")):
        return "rest"
    if stripped.startswith("<"):
        raise InputError(
            "this is XML: give a job history (.jhist, REST JSON, Rumen JSON) and pass the "
            "configuration with --conf",
            path=str(p),
        )
    first = stripped.splitlines()[0] if stripped else ""
    if len(first.split("\t")) == 6:  # SWIM's row: id, submit, gap, input, shuffle, output
        raise InputError(
            "a SWIM trace (a catalog of job sizes, one row a job, no task times): "
            "tune it with `mrtune batch FILE -o DIR`",
            path=str(p),
        )
    raise InputError(
        "unrecognised format",
        path=str(p),
        allowed=".jhist (Avro-Json, Avro-Binary), JobHistory REST JSON, Rumen JSON",
    )


def _head(p: Path, n: int = 4096) -> str:
    try:
        with p.open("rb") as fh:
            data = fh.read(n)
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=str(p)) from None
    if data[:2] == b"\x1f\x8b":
        import gzip
        import zlib

        try:  # only the first bytes: a gzip bomb is never expanded here
            return gzip.GzipFile(p).read(n).decode("utf-8", errors="replace")
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"damaged gzip data: {exc}", path=str(p)) from None
    if data.startswith(b"Avro-Binary\n"):  # binary events may follow a short schema line
        return data.decode("utf-8", errors="replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start < len(data) - 4:  # not a character cut at the end of the head
            from mrtune.readers.safe_io import decode_utf8

            decode_utf8(data, str(p))  # raises the one-line encoding error at exc.start
        return data.decode("utf-8", errors="replace")


def load_history(
    path: str | Path, *, fmt: SourceFormat = "auto", job: str | None = None
) -> JobHistory:
    """Read one job's history from ``path`` in format ``fmt`` (``auto`` sniffs it)."""
    kind = sniff_format(path) if fmt == "auto" else fmt
    if kind == "jhist":
        from mrtune.readers.jhist import load_jhist

        return load_jhist(path)
    if kind == "rest":
        from mrtune.readers.rest import load_rest_saved

        return load_rest_saved(path, job_id=job)
    if kind == "rumen":
        from mrtune.readers.rumen import load_rumen, select_job

        return select_job(load_rumen(path), job, str(path))
    if kind == "run":
        raise InputError(
            "a run record of mrtune hadoop-run, not a job history: read it with "
            "`mrtune profile FILE --from run`",
            path=str(path),
        )
    raise InputError(
        "unknown format", field="source format", value=fmt, allowed=", ".join(FORMATS)
    )


__all__ = [
    "FORMATS",
    "AttemptRecord",
    "ConfFile",
    "JobHistory",
    "fetch_jhs",
    "find_conf_for",
    "load_conf",
    "load_history",
    "load_jhist",
    "load_rest_saved",
    "load_rumen",
    "parse_conf_text",
    "select_job",
    "holds_run_records",
    "sniff_format",
]
