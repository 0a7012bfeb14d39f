"""Readers of what real clusters record, and profile building (``mrtune profile``).

Readers (each returns a :class:`~profiler.history.JobHistory`): :func:`load_jhist` (``.jhist``),
:func:`load_rest_saved` / :func:`fetch_jhs` (JobHistory REST), :func:`load_rumen` (Rumen
traces); :func:`load_conf` reads ``*_conf.xml``. :func:`build_profile` turns a history into a
:class:`costmodel.JobProfile`; :func:`load_profile_source` does both for a path, sniffing its
format.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from mrtune.errors import InputError
from profiler.build import build_profile, profile_config
from profiler.confxml import ConfFile, find_conf_for, load_conf, parse_conf_text
from profiler.history import AttemptRecord, JobHistory
from profiler.jhist import load_jhist
from profiler.rest import fetch_jhs, load_rest_saved
from profiler.rumen import load_rumen, select_job

SourceFormat = Literal["auto", "jhist", "rest", "rumen"]
FORMATS: tuple[str, ...] = ("jhist", "rest", "rumen")


def sniff_format(path: str | Path) -> str:
    """``jhist``, ``rest`` or ``rumen`` from a file's first bytes (a directory is REST)."""
    p = Path(path)
    if p.is_dir():
        return "rest"
    if not p.exists():
        raise InputError("file not found", path=str(p))
    from profiler.rumen import read_text

    head = read_text(p)[:4096] if p.suffix == ".gz" else _head(p)
    if not head.strip():
        raise InputError("the file is empty", path=str(p))
    from profiler.jhist import is_jhist
    from profiler.rumen import is_rumen

    if is_jhist(head):
        return "jhist"
    if is_rumen(head):
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
    raise InputError(
        "unrecognised format",
        path=str(p),
        allowed=".jhist (Avro-Json), JobHistory REST JSON, Rumen JSON",
    )


def _head(p: Path, n: int = 4096) -> str:
    try:
        with p.open("rb") as fh:
            data = fh.read(n)
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=str(p)) from None
    if data[:2] == b"\x1f\x8b":
        from profiler.rumen import read_text

        return read_text(p)[:n]
    return data.decode("utf-8", errors="replace")


def load_history(
    path: str | Path, *, fmt: SourceFormat = "auto", job: str | None = None
) -> JobHistory:
    """Read one job's history from ``path`` in format ``fmt`` (``auto`` sniffs it)."""
    kind = sniff_format(path) if fmt == "auto" else fmt
    if kind == "jhist":
        return load_jhist(path)
    if kind == "rest":
        return load_rest_saved(path, job_id=job)
    if kind == "rumen":
        return select_job(load_rumen(path), job, str(path))
    raise InputError("unknown format", field="--from", value=fmt, allowed=", ".join(FORMATS))


def load_profile_source(
    path: str | Path,
    conf: str | Path | ConfFile | None = None,
    *,
    fmt: SourceFormat = "auto",
    job: str | None = None,
    find_conf: bool = True,
):  # -> costmodel.JobProfile
    """A :class:`~costmodel.JobProfile` from a history file (and optionally its configuration).

    Without ``conf``, a ``<job id>_conf.xml`` next to a ``.jhist`` is used when present
    (``find_conf``), as the JobHistory server stores them side by side.
    """
    history = load_history(path, fmt=fmt, job=job)
    conf_file: ConfFile | None
    if isinstance(conf, ConfFile):
        conf_file = conf
    elif conf is not None:
        conf_file = load_conf(conf)
    else:
        conf_file = None
        if find_conf and history.source_format == "jhist":
            found = find_conf_for(path, history.job_id)
            if found is not None:
                conf_file = load_conf(found)
    return build_profile(history, conf_file)


__all__ = [
    "FORMATS",
    "AttemptRecord",
    "ConfFile",
    "JobHistory",
    "build_profile",
    "fetch_jhs",
    "find_conf_for",
    "load_conf",
    "load_history",
    "load_jhist",
    "load_profile_source",
    "load_rest_saved",
    "load_rumen",
    "parse_conf_text",
    "profile_config",
    "sniff_format",
]
