"""JobHistory Server (and MapReduce ApplicationMaster) REST JSON → :class:`JobHistory`.

The JobHistory server answers under ``/ws/v1/history/mapreduce/jobs/{jobid}`` (Hadoop's
``HistoryServerRest`` documentation): the job (``job``), its counters (``jobCounters``, with
total, map and reduce values per counter), its configuration (``conf``), its tasks (``tasks``),
each task's attempts (``taskAttempts``: reduce attempts carry ``shuffleFinishTime`` and
``mergeFinishTime``) and each attempt's counters (``jobTaskAttemptCounters``).

Two ways in:

* **saved responses**: a directory of JSON files, one response each, or one file holding one
  response or a list of them. A file may wrap the response in an envelope
  ``{"_example_request", "_source", "response": {...}}`` (the shape of ``shared/data/rest``).
  Files are recognised by the payload's top-level key, not by their names.
* **a live server**: :func:`~mrtune.readers.rest_client.fetch_jhs` with ``--jhs
  http://host:19888 --job job_…``, using a total deadline per request and a response-size
  cap; every failure is one :class:`~mrtune.errors.InputError` line. The client is its own
  module (``rest_client.py``): the answers it reads are the responses parsed here.

The REST API has no ``mapFinishTime``: map attempts give only their total time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mrtune.errors import InputError
from mrtune.readers import safe_io
from mrtune.readers.history import AttemptRecord, JobHistory, counter_key, flatten_counter_groups

#: Payload keys that identify a saved REST response.
PAYLOAD_KEYS = (
    "job",
    "jobCounters",
    "conf",
    "tasks",
    "task",
    "taskAttempts",
    "taskAttempt",
    "jobTaskAttemptCounters",
    "jobTaskCounters",
    "jobAttempts",
    "jobs",
    "historyInfo",
    "info",
)
_JOB_ID = re.compile(r"^job_[0-9]+(_[0-9]+)+$")
#: Responses that describe the server (``/ws/v1/history/info``, the AM's ``/info``) or the
#: job's ApplicationMaster attempts (``jobattempts``): alone, no job to profile or diagnose.
NOT_A_JOB = frozenset({"historyInfo", "info", "jobAttempts"})


def _unwrap_envelope(obj: Any) -> Any:
    if (
        isinstance(obj, dict)
        and "response" in obj
        and ("_example_request" in obj or "_source" in obj or len(obj) == 1)
    ):
        return obj["response"]
    return obj


def is_rest_payload(obj: Any) -> bool:
    obj = _unwrap_envelope(obj)
    if isinstance(obj, list):
        return any(is_rest_payload(o) for o in obj)
    return isinstance(obj, dict) and any(k in obj for k in PAYLOAD_KEYS)


def _read_json(path: Path) -> Any:
    text = safe_io.read_text(path)
    if not text.strip():
        raise InputError("the file is empty", path=str(path))
    return safe_io.json_loads(text, str(path))


def _payloads_of(obj: Any) -> list[dict[str, Any]]:
    obj = _unwrap_envelope(obj)
    if isinstance(obj, list):
        out: list[dict[str, Any]] = []
        for o in obj:
            out.extend(_payloads_of(o))
        return out
    if isinstance(obj, dict):
        return [{k: v} for k, v in obj.items() if k in PAYLOAD_KEYS]
    return []


def load_rest_saved(path: str | Path, job_id: str | None = None) -> JobHistory:
    """Saved REST responses (a directory or one file) → :class:`JobHistory`."""
    p = Path(path)
    payloads: list[dict[str, Any]] = []
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() == ".json")
        if not files:
            raise InputError("no .json files in the directory", path=str(p))
        for f in files:
            payloads.extend(_payloads_of(_read_json(f)))
    else:
        payloads = _payloads_of(_read_json(p))
    if not payloads:
        raise InputError(
            "no JobHistory REST response in the file",
            path=str(p),
            allowed="JSON with one of the keys " + ", ".join(PAYLOAD_KEYS[:9]),
        )
    kinds = sorted({k for pl in payloads for k in pl})
    if not set(kinds) - NOT_A_JOB:
        what = "the ApplicationMaster's attempts" if kinds == ["jobAttempts"] else "the server"
        raise InputError(
            f"a '{', '.join(kinds)}' REST response describes {what}, not a job's tasks or "
            "counters: nothing to profile",
            path=str(p),
            allowed="a directory of the job's saved responses (job, tasks, taskAttempts, "
            "counters) or its .jhist",
        )
    return history_from_payloads(payloads, str(p), job_id=job_id)


def _counter_groups(
    groups: Any, value_key: str, source: str | None = None, owner: str = ""
) -> dict[str, float]:
    return flatten_counter_groups(
        groups or [],
        group_key="counterGroupName",
        counts_key="counter",
        value_key=value_key,
        source=source,
        owner=owner,
    )


def _int(v: Any) -> int | None:
    if isinstance(v, str):
        return None
    return safe_io.to_long(v)


def _text(value: Any) -> str | None:
    """A REST string field (container id, host, rack) or ``None``: a JSON list, object or
    number where the REST API writes a string is ignored, never carried into the history."""
    return value if isinstance(value, str) and value else None


def _as_list(container: Any, key: str) -> list[dict[str, Any]]:
    if isinstance(container, dict):
        items = container.get(key)
        if isinstance(items, list):
            return [i for i in items if isinstance(i, dict)]
        if isinstance(items, dict):
            return [items]
    return []


def history_from_payloads(
    payloads: list[dict[str, Any]], source: str, *, job_id: str | None = None
) -> JobHistory:
    """Combine REST responses (each ``{key: payload}``) into one :class:`JobHistory`: the
    responses sorted by endpoint, then the job's facts, the attempts, the tasks whose
    attempts were not saved, and a lone reduce's phase times from the job's averages."""
    h = JobHistory(source=source, source_format="rest", hadoop_version=2)
    got = _collect(payloads, h, job_id)
    _refuse_maps_alone(got, source)
    _job_facts(h, got.job, source, job_id)
    covered = _add_attempts(h, got, counted_from_job=got.job is not None)
    _add_task_level(h, got, covered)
    _lone_reduce_from_averages(h)
    return h


def _refuse_maps_alone(got: _Responses, source: str) -> None:
    """Map tasks without the job's own response say nothing of its reduces: a lone map task
    (``GET .../tasks/{taskid}``) had been profiled as a map-only job. Such responses are
    refused; with the job's response (``reducesTotal``) or a reduce task they are read."""
    tasks = [*got.tasks.values(), *got.attempts.values()]
    if got.job is not None or not tasks:
        return
    if any(str(t.get("type", "")).upper() == "REDUCE" for t in tasks):
        return
    raise InputError(
        "map tasks without the job's own response: whether the job had reduces is unknown "
        "(a lone map task is no map-only job)",
        path=source,
        allowed="the job's response (GET …/jobs/{jobid}) saved beside its tasks and attempts, "
        "or a directory of the job's responses",
    )


@dataclass
class _Responses:
    """The REST responses of one job, by endpoint (the job, its tasks and attempts by id,
    and the per-attempt and per-task counters)."""

    job: dict[str, Any] | None = None
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    attempts: dict[str, dict[str, Any]] = field(default_factory=dict)
    attempt_counters: dict[str, dict[str, float]] = field(default_factory=dict)
    task_counters: dict[str, dict[str, float]] = field(default_factory=dict)


def _collect(payloads: list[dict[str, Any]], h: JobHistory, job_id: str | None) -> _Responses:
    """Sort each response by its top-level key; job counters and conf go straight into ``h``.
    With ``job_id``, a ``job`` response of another job is skipped."""
    got = _Responses()
    for pl in payloads:
        ((key, val),) = pl.items()
        if key == "job" and isinstance(val, dict):
            if job_id and val.get("id") not in (None, job_id):
                continue
            got.job = val
        elif key == "jobs":
            for j in _as_list(val, "job"):
                if got.job is None and (not job_id or j.get("id") == job_id):
                    got.job = j
        elif key == "jobCounters" and isinstance(val, dict):
            _job_counters(h, val.get("counterGroup"))
        elif key == "conf" and isinstance(val, dict):
            for prop in _as_list(val, "property"):
                if "name" in prop:
                    h.properties[str(prop["name"])] = str(prop.get("value", ""))
        elif key in ("tasks", "task"):
            for t in _as_list(val, "task") if key == "tasks" else [val]:
                if isinstance(t, dict) and "id" in t:
                    got.tasks[str(t["id"])] = t
        elif key in ("taskAttempts", "taskAttempt"):
            for a in _as_list(val, "taskAttempt") if key == "taskAttempts" else [val]:
                if isinstance(a, dict) and "id" in a:
                    got.attempts[str(a["id"])] = a
        elif key == "jobTaskAttemptCounters" and isinstance(val, dict) and "id" in val:
            got.attempt_counters[str(val["id"])] = _counter_groups(
                val.get("taskAttemptCounterGroup"), "value", h.source, str(val["id"])
            )
        elif key == "jobTaskCounters" and isinstance(val, dict) and "id" in val:
            got.task_counters[str(val["id"])] = _counter_groups(
                val.get("taskCounterGroup"), "value", h.source, str(val["id"])
            )
    return got


def _job_counters(h: JobHistory, groups: Any) -> None:
    """``jobCounters``: total, map and reduce values per counter."""
    h.total_counters = _counter_groups(groups, "totalCounterValue", h.source, "the job")
    m = _counter_groups(groups, "mapCounterValue", h.source, "the job (map side)")
    r = _counter_groups(groups, "reduceCounterValue", h.source, "the job (reduce side)")
    # Some servers (and the documentation's examples) report 0 for every map and
    # reduce value: then the split is unknown, not zero.
    if any(m.values()) or any(r.values()):
        h.map_counters, h.reduce_counters = m, r


def _job_facts(h: JobHistory, job: dict[str, Any] | None, source: str, job_id: str | None) -> None:
    """The ``job`` response's facts (times, task totals, failed and killed attempts, the
    average phase times); without one, a warning and the requested job id."""
    if job is not None:
        h.job_id = str(job.get("id") or h.job_id)
        h.job_name = str(job.get("name") or "")
        h.status = str(job.get("state") or "UNKNOWN").upper()
        h.submit_ms = _int(job.get("submitTime"))
        h.launch_ms = _int(job.get("startTime"))
        h.finish_ms = _int(job.get("finishTime")) or None
        h.total_maps = _int(job.get("mapsTotal"))
        h.total_reduces = _int(job.get("reducesTotal"))
        h.uberized = bool(job.get("uberized") or False)
        h.diagnostics = str(job.get("diagnostics") or "")
        h.failed_attempts += sum(
            _int(job.get(k)) or 0 for k in ("failedMapAttempts", "failedReduceAttempts")
        )
        h.killed_attempts += sum(
            _int(job.get(k)) or 0 for k in ("killedMapAttempts", "killedReduceAttempts")
        )
        for k in ("avgMapTime", "avgShuffleTime", "avgMergeTime", "avgReduceTime"):
            v = _int(job.get(k))
            if v is not None:
                h.facts[k] = float(v)
    else:
        h.warnings.append(f"{Path(source).name}: no 'job' response: job facts unknown")
        if job_id:
            h.job_id = job_id
    if h.status not in ("SUCCEEDED", "UNKNOWN"):
        h.complete = h.status not in ("RUNNING", "NEW", "INITED")


def _add_attempts(h: JobHistory, got: _Responses, *, counted_from_job: bool) -> set[str]:
    """Each successful attempt, with its counters (or its task's); failed
    and killed ones are counted here only when no ``job`` response counted them. Returns the
    tasks an attempt covered."""
    covered_tasks: set[str] = set()
    for aid, a in got.attempts.items():
        state = str(a.get("state") or "").upper()
        kind = "map" if str(a.get("type") or "").upper() == "MAP" else "reduce"
        if state != "SUCCEEDED":
            if not counted_from_job:
                if state == "FAILED":
                    h.failed_attempts += 1
                elif state == "KILLED":
                    h.killed_attempts += 1
            continue
        start, finish = _int(a.get("startTime")), _int(a.get("finishTime"))
        task_id = _task_of(aid)
        covered_tasks.add(task_id)
        h.add_attempt(
            AttemptRecord(
                attempt_id=aid,
                task_id=task_id,
                kind=kind,  # type: ignore[arg-type]
                start_ms=start or 0,
                finish_ms=finish or 0,
                untimed=_untimed(start, finish),
                shuffle_finish_ms=_int(a.get("shuffleFinishTime")) or None,
                sort_finish_ms=_int(a.get("mergeFinishTime")) or None,
                counters=got.attempt_counters.get(aid) or got.task_counters.get(task_id, {}),
                container_id=_text(a.get("assignedContainerId")),
                host=_text(a.get("nodeHttpAddress")),
                rack=_text(a.get("rack")),
            )
        )
    return covered_tasks


def _add_task_level(h: JobHistory, got: _Responses, covered_tasks: set[str]) -> None:
    """Tasks whose attempts were not saved: use the task's own times (they include the wait
    for a container, so they overstate the attempt)."""
    task_level = []
    for tid, t in got.tasks.items():
        if tid in covered_tasks or str(t.get("state") or "").upper() != "SUCCEEDED":
            continue
        start, finish = _int(t.get("startTime")), _int(t.get("finishTime"))
        kind = "map" if str(t.get("type") or "").upper() == "MAP" else "reduce"
        rec = AttemptRecord(
            attempt_id=str(t.get("successfulAttempt") or tid),
            task_id=tid,
            kind=kind,  # type: ignore[arg-type]
            start_ms=start or 0,
            finish_ms=finish or 0,
            untimed=_untimed(start, finish),
            counters=got.task_counters.get(tid, {}),
        )
        h.add_attempt(rec)
        task_level.append(tid)
    if task_level:
        h.warnings.append(
            f"{len(task_level)} task(s) without saved attempts ({', '.join(task_level[:3])}"
            f"{'…' if len(task_level) > 3 else ''}): task start/finish used as attempt times"
        )


def _lone_reduce_from_averages(h: JobHistory) -> None:
    """One reduce without attempt detail: the job's average shuffle/merge times are its own."""
    reds = h.successful("reduce")
    if (
        len(reds) == 1
        and reds[0].shuffle_finish_ms is None
        and reds[0].untimed is None
        and "avgShuffleTime" in h.facts
        and "avgMergeTime" in h.facts
        and (h.total_reduces or 1) == 1
    ):
        r = reds[0]
        sh = r.start_ms + int(h.facts["avgShuffleTime"])
        so = sh + int(h.facts["avgMergeTime"])
        if so <= r.finish_ms:
            r.shuffle_finish_ms, r.sort_finish_ms = sh, so
            h.warnings.append(
                f"{r.attempt_id}: shuffle and merge times taken from the job's averages "
                "(the only reduce)"
            )


def _untimed(start: int | None, finish: int | None) -> str | None:
    """Why a successful attempt's times are unusable (``None`` when the task screen is to
    judge them): it ran all the same, so it is kept for its counters, untimed
    (:mod:`mrtune.profiling.task_checks`). A running attempt's ``finishTime`` is 0."""
    return "no usable start/finish time" if start is None or not finish else None


def _task_of(attempt_id: str) -> str:
    """``attempt_1_2_m_000000_0`` → ``task_1_2_m_000000``."""
    body = attempt_id.removeprefix("attempt_")
    return "task_" + body.rsplit("_", 1)[0] if "_" in body else attempt_id


__all__ = [
    "counter_key",
    "history_from_payloads",
    "is_rest_payload",
    "load_rest_saved",
]
