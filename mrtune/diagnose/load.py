"""Everything ``diagnose`` accepts, read into :class:`~mrtune.diagnose._core.JobView` objects.

* a job history (``.jhist`` with its ``_conf.xml`` beside it, a JobHistory REST file or saved
  directory, a Rumen trace — every job of a multi-job trace);
* a profile JSON written by ``mrtune profile`` (its observed tasks are the evidence);
* run records of the project's real-Hadoop runs (``benchmarks/results/*.jsonl``): each
  successful record is profiled by :func:`mrtune.calibration.run_profile.profile_from_run`;
* a directory that is not a saved REST response: a catalog, searched recursively.

A history that cannot be profiled (a failed job, a truncated file) is still diagnosed from what
it holds: the job's state and whatever successful tasks it recorded; the reason there is no
profile goes into :attr:`JobView.problem`, so nothing of it is hidden.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from mrtune.costmodel import JobProfile
from mrtune.costmodel.profile import TaskTiming
from mrtune.diagnose._core import JobView
from mrtune.errors import InputError, MrtuneError
from mrtune.readers import JobHistory, find_conf_for, load_conf, sniff_format
from mrtune.readers.rumen import load_rumen

CATALOG_SUFFIXES = (".jhist", ".json", ".jsonl", ".gz")


def view_from_profile(profile: JobProfile, source: str, status: str = "SUCCEEDED") -> JobView:
    """A profile's observed tasks and configuration (the baseline of every what-if price)."""
    from mrtune.profiling import profile_config

    facts = profile.cluster_facts
    return JobView(
        source=source,
        job_id=profile.job_id,
        job_name=profile.job_name,
        status=status,
        tasks=list(profile.observed),
        properties=dict(profile.source_properties),
        profile=profile,
        config=profile_config(profile),
        declared_maps=_int(facts.get("num_maps")),
        declared_reduces=_int(facts.get("num_reduces")),
        warnings=list(profile.warnings),
    )


def _int(v: object) -> int | None:
    try:
        return int(float(v))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def view_from_history(history: JobHistory, conf_path: Path | None) -> JobView:
    """Profile the history if it can be; else keep its facts and tasks, with the reason."""
    from mrtune.calibration import build_profile

    conf = None
    if conf_path is None and history.source_format == "jhist":
        conf_path = find_conf_for(history.source, history.job_id)
    if conf_path is not None:
        conf = load_conf(conf_path)
    try:
        view = view_from_profile(build_profile(history, conf), history.source, history.status)
    except MrtuneError as exc:
        tasks = [
            TaskTiming(
                attempt_id=a.attempt_id,
                kind=a.kind,
                start_ms=a.start_ms,
                finish_ms=a.finish_ms,
                phases_ms=a.phases_ms(),
                counters=a.counters,
            )
            for a in history.attempts
        ]
        props = dict(history.properties) or (dict(conf.properties) if conf else {})
        view = JobView(
            history.source, history.job_id, history.job_name, history.status, tasks, props
        )
        view.problem = str(exc)
    view.declared_maps = history.total_maps
    view.declared_reduces = history.total_reduces
    view.failed_attempts = history.failed_attempts
    view.killed_attempts = history.killed_attempts
    view.failed_tasks = history.failed_tasks
    view.diagnostics = history.diagnostics
    view.warnings = list(dict.fromkeys([*history.warnings, *view.warnings]))
    return view


def _run_views(path: Path) -> list[JobView] | None:
    """Views of a file of run records, or ``None`` when the file holds something else."""
    from mrtune.calibration.run_profile import profile_from_run
    from mrtune.readers import holds_run_records
    from mrtune.readers.run_records import read_jsonl

    try:
        records = read_jsonl(path)
    except (ValidationError, ValueError):
        if holds_run_records(path):
            raise  # a run record with a bad field: its one line (file, field, value)
        return None
    views = []
    for rec in records:
        src = f"{path}:{rec.run_id}"
        if not rec.success:
            v = JobView(src, rec.run_id, rec.label or rec.job, "FAILED")
            v.problem = f"run {rec.run_id} failed"
            views.append(v)
            continue
        prof = profile_from_run(rec)
        prof = prof.model_copy(
            update={
                "job_id": rec.run_id,
                "job_name": rec.label or rec.job,
                "cluster_facts": {**prof.cluster_facts, "local_mode": 1.0},
            }
        )
        views.append(view_from_profile(prof, src))
    return views


def _profile_json(path: Path) -> list[JobView] | None:
    """A profile JSON (one object) or a JSONL of profiles; ``None`` if the file is not one."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    lines = [text] if path.suffix == ".json" else [ln for ln in text.splitlines() if ln.strip()]
    views = []
    for n, line in enumerate(lines, 1):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            return None
        if not (isinstance(data, dict) and "input_bytes" in data and "stats" in data):
            return None
        try:
            prof = JobProfile.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            where = str(path) if len(lines) == 1 else f"{path}:{n}"
            raise InputError(
                first["msg"], path=where, field=loc, value=first.get("input")
            ) from None
        views.append(view_from_profile(prof, str(path) if len(lines) == 1 else f"{path}:{n}"))
    return views


def load_file(path: Path, conf: Path | None = None) -> list[JobView]:
    """Every job of one file (or saved REST directory)."""
    if path.is_file() and path.suffix in {".json", ".jsonl"}:
        views = _profile_json(path)
        if views is None and path.suffix == ".jsonl":
            views = _run_views(path)
            if views is None:
                raise InputError(
                    "neither run records nor profiles, one JSON object a line", path=str(path)
                )
        if views is not None:
            return views
    kind = sniff_format(path)
    if kind == "run":
        views = _run_views(path)
        if views is None:
            raise InputError("not a file of run records", path=str(path))
        return views
    if kind == "rumen":
        return [view_from_history(h, conf) for h in load_rumen(path)]
    from mrtune.readers import load_history

    return [view_from_history(load_history(path, fmt=kind), conf)]  # type: ignore[arg-type]


def is_catalog(path: Path) -> bool:
    """A directory that is not one saved JobHistory REST response set."""
    if not path.is_dir():
        return False
    from mrtune.readers import load_history

    try:
        load_history(path, fmt="rest")
    except (MrtuneError, ValueError, KeyError, TypeError, OSError):
        return True
    return False


def catalog_files(path: Path, *, root: bool = True) -> list[Path]:
    """The sources of a catalog directory (sorted, recursive): history and profile files, and
    saved JobHistory REST directories, each of which is one job (its subdirectories are looked
    at again: ``rest/`` and ``rest/mr-appmaster/`` are two jobs)."""
    out: list[Path] = []
    rest_dir = not root and not is_catalog(path)
    if rest_dir:
        out.append(path)
    for p in sorted(path.iterdir()):
        if p.is_dir():
            out.extend(catalog_files(p, root=False))
            continue
        if rest_dir or not p.is_file() or p.name.endswith("_conf.xml"):
            continue
        if p.suffix == ".gz" and not p.name.endswith(".json.gz"):
            continue
        if p.suffix in CATALOG_SUFFIXES:
            out.append(p)
    return out


def iter_catalog(path: Path) -> Iterator[tuple[Path, list[JobView] | str]]:
    """Each catalog file with its jobs, or the one-line reason it could not be read."""
    for f in catalog_files(path):
        try:
            yield f, load_file(f)
        except (MrtuneError, ValidationError) as exc:
            yield f, str(exc).splitlines()[0]
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            yield f, f"{f}: unexpected content ({type(exc).__name__}: {exc})"
