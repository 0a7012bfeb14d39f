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
* **a live server**: :func:`fetch_jhs` with ``--jhs http://host:19888 --job job_…``, using
  a total deadline per request and a response-size cap; every failure is one :class:`~mrtune.errors.InputError` line.

The REST API has no ``mapFinishTime``: map attempts give only their total time.
"""

from __future__ import annotations

import contextlib
import http.client
import math
import re
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
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
DEFAULT_TIMEOUT_S = 10.0
#: Whole-fetch deadline of :func:`fetch_jhs` (job, counters, conf, every task's attempts).
DEFAULT_DEADLINE_S = 300.0
DEFAULT_MAX_TASKS = 2000


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
    return history_from_payloads(payloads, str(p), job_id=job_id)


def _counter_groups(groups: Any, value_key: str) -> dict[str, float]:
    return flatten_counter_groups(
        groups or [], group_key="counterGroupName", counts_key="counter", value_key=value_key
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
    """Combine REST responses (each ``{key: payload}``) into one :class:`JobHistory`."""
    h = JobHistory(source=source, source_format="rest", hadoop_version=2)
    job: dict[str, Any] | None = None
    tasks: dict[str, dict[str, Any]] = {}
    attempts: dict[str, dict[str, Any]] = {}
    attempt_counters: dict[str, dict[str, float]] = {}
    task_counters: dict[str, dict[str, float]] = {}
    for pl in payloads:
        ((key, val),) = pl.items()
        if key == "job" and isinstance(val, dict):
            if job_id and val.get("id") not in (None, job_id):
                continue
            job = val
        elif key == "jobs":
            for j in _as_list(val, "job"):
                if job is None and (not job_id or j.get("id") == job_id):
                    job = j
        elif key == "jobCounters" and isinstance(val, dict):
            groups = val.get("counterGroup")
            h.total_counters = _counter_groups(groups, "totalCounterValue")
            m = _counter_groups(groups, "mapCounterValue")
            r = _counter_groups(groups, "reduceCounterValue")
            # Some servers (and the documentation's examples) report 0 for every map and
            # reduce value: then the split is unknown, not zero.
            if any(m.values()) or any(r.values()):
                h.map_counters, h.reduce_counters = m, r
        elif key == "conf" and isinstance(val, dict):
            for prop in _as_list(val, "property"):
                if "name" in prop:
                    h.properties[str(prop["name"])] = str(prop.get("value", ""))
        elif key in ("tasks", "task"):
            for t in _as_list(val, "task") if key == "tasks" else [val]:
                if isinstance(t, dict) and "id" in t:
                    tasks[str(t["id"])] = t
        elif key in ("taskAttempts", "taskAttempt"):
            for a in _as_list(val, "taskAttempt") if key == "taskAttempts" else [val]:
                if isinstance(a, dict) and "id" in a:
                    attempts[str(a["id"])] = a
        elif key == "jobTaskAttemptCounters" and isinstance(val, dict) and "id" in val:
            attempt_counters[str(val["id"])] = _counter_groups(
                val.get("taskAttemptCounterGroup"), "value"
            )
        elif key == "jobTaskCounters" and isinstance(val, dict) and "id" in val:
            task_counters[str(val["id"])] = _counter_groups(val.get("taskCounterGroup"), "value")

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

    counted_from_job = job is not None
    covered_tasks: set[str] = set()
    for aid, a in attempts.items():
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
        if start is None or not finish or finish < start:
            continue
        task_id = _task_of(aid)
        covered_tasks.add(task_id)
        h.add_attempt(
            AttemptRecord(
                attempt_id=aid,
                task_id=task_id,
                kind=kind,  # type: ignore[arg-type]
                start_ms=start,
                finish_ms=finish,
                shuffle_finish_ms=_int(a.get("shuffleFinishTime")) or None,
                sort_finish_ms=_int(a.get("mergeFinishTime")) or None,
                counters=attempt_counters.get(aid) or task_counters.get(task_id, {}),
                container_id=_text(a.get("assignedContainerId")),
                host=_text(a.get("nodeHttpAddress")),
                rack=_text(a.get("rack")),
            )
        )
    # Tasks whose attempts were not saved: use the task's own times (they include the wait
    # for a container, so they overstate the attempt).
    task_level = []
    for tid, t in tasks.items():
        if tid in covered_tasks or str(t.get("state") or "").upper() != "SUCCEEDED":
            continue
        start, finish = _int(t.get("startTime")), _int(t.get("finishTime"))
        if start is None or not finish or finish < start:
            continue
        kind = "map" if str(t.get("type") or "").upper() == "MAP" else "reduce"
        rec = AttemptRecord(
            attempt_id=str(t.get("successfulAttempt") or tid),
            task_id=tid,
            kind=kind,  # type: ignore[arg-type]
            start_ms=start,
            finish_ms=finish,
            counters=task_counters.get(tid, {}),
        )
        h.add_attempt(rec)
        task_level.append(tid)
    if task_level:
        h.warnings.append(
            f"{len(task_level)} task(s) without saved attempts ({', '.join(task_level[:3])}"
            f"{'…' if len(task_level) > 3 else ''}): task start/finish used as attempt times"
        )
    # One reduce without attempt detail: the job's average shuffle/merge times are its own.
    reds = h.successful("reduce")
    if (
        len(reds) == 1
        and reds[0].shuffle_finish_ms is None
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
    return h


def _task_of(attempt_id: str) -> str:
    """``attempt_1_2_m_000000_0`` → ``task_1_2_m_000000``."""
    body = attempt_id.removeprefix("attempt_")
    return "task_" + body.rsplit("_", 1)[0] if "_" in body else attempt_id


# ---------------------------------------------------------------------------------------- live
Fetcher = Callable[[str], Any]


def _base_url(url: str) -> str:
    u = url.strip().rstrip("/")
    parsed = urllib.parse.urlparse(u)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise InputError(
            "not an http(s) URL",
            field="JobHistory server URL",
            value=url,
            allowed="http://host:19888",
        )
    if "/ws/v1/" in u:
        u = u.split("/ws/v1/", 1)[0]
    return u


def _http_json(url: str, timeout: float) -> Any:
    """GET ``url`` as JSON, finished within ``timeout`` seconds in TOTAL and capped in size.

    A socket timeout bounds each read only: a server that drips one byte every second never
    trips it. So a watchdog timer shuts the socket down at the deadline (a blocked read then
    returns), and the body is read in chunks against :func:`safe_io.max_input_bytes`, so an
    endless stream stops at the cap instead of filling memory.
    """
    parsed = urllib.parse.urlsplit(url)
    conn_cls = (
        http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
    )
    conn = conn_cls(parsed.hostname or "", parsed.port, timeout=timeout)
    expired = threading.Event()

    def _abort() -> None:
        expired.set()
        sock = conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(timeout, _abort)
    timer.daemon = True
    timer.start()
    late = InputError(f"no complete answer within {timeout:g} s (total deadline)", path=url)
    try:
        target = parsed.path + (f"?{parsed.query}" if parsed.query else "")
        conn.request("GET", target or "/", headers={"Accept": "application/json"})
        resp = conn.getresponse()
        if resp.status >= 300:
            where = resp.getheader("Location")
            moved = f" (redirected to {where}: give that URL)" if where else ""
            raise InputError(f"HTTP {resp.status} {resp.reason}{moved}", path=url)
        data = _read_capped(resp, url, expired)
    except InputError:
        raise
    except TimeoutError:
        raise late from None
    except (OSError, http.client.HTTPException) as exc:
        if expired.is_set():
            raise late from None
        reason = getattr(exc, "strerror", None) or exc
        raise InputError(f"cannot connect: {reason}", path=url) from None
    finally:
        timer.cancel()
        conn.close()
    if expired.is_set():
        raise late
    return safe_io.json_loads(data, url, where="the server's answer is not JSON")


def _read_capped(resp: http.client.HTTPResponse, url: str, expired: threading.Event) -> bytes:
    cap = safe_io.max_input_bytes()
    length = resp.getheader("Content-Length")
    if length and length.strip().isdigit() and int(length) > cap:
        raise InputError(
            f"the answer is {int(length) / safe_io.MIB:,.1f} MiB, more than the "
            f"{cap / safe_io.MIB:,.0f} MiB input limit (raise it with --max-input-mb)",
            path=url,
        )
    buf = bytearray()
    while not expired.is_set():
        chunk = resp.read1(1 << 16)
        if not chunk:
            break
        buf += chunk
        if len(buf) > cap:
            raise InputError(
                f"the answer exceeds the {cap / safe_io.MIB:,.0f} MiB input limit "
                "(raise it with --max-input-mb)",
                path=url,
            )
    return bytes(buf)


def fetch_jhs(
    base_url: str,
    job_id: str,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_tasks: int = DEFAULT_MAX_TASKS,
    fetch: Fetcher | None = None,
    deadline: float = DEFAULT_DEADLINE_S,
) -> JobHistory:
    """Read one job from a live JobHistory server (job, counters, conf, tasks, attempts).

    Each request must complete within ``timeout`` seconds in total, and the whole fetch within
    ``deadline`` seconds: past it, the attempts not yet read are skipped with a warning. The job
    and its counters are required; a failing per-task request becomes a warning and the profile
    is built from what was read. At most ``max_tasks`` tasks are read in detail.
    """
    if not _JOB_ID.match(job_id or ""):
        raise InputError("not a job id", field="job id", value=job_id, allowed="job_<cluster>_<n>")
    if not (math.isfinite(timeout) and timeout > 0):
        raise InputError("not a positive time in seconds", field="timeout", value=timeout)
    base = _base_url(base_url)
    t_end = time.monotonic() + max(deadline, timeout)

    def _get(u: str) -> Any:
        left = t_end - time.monotonic()
        if left <= 0:
            raise InputError(f"the fetch's {deadline:g} s deadline has passed", path=u)
        return _http_json(u, min(timeout, left))

    get = fetch or _get
    root = f"{base}/ws/v1/history/mapreduce/jobs/{job_id}"
    payloads: list[dict[str, Any]] = []
    payloads.extend(_payloads_of(get(root)))
    payloads.extend(_payloads_of(get(f"{root}/counters")))
    warnings: list[str] = []
    try:
        payloads.extend(_payloads_of(get(f"{root}/conf")))
    except InputError as exc:
        warnings.append(f"configuration not read: {exc}")
    tasks_obj = get(f"{root}/tasks")
    payloads.extend(_payloads_of(tasks_obj))
    tasks_payload = _unwrap_envelope(tasks_obj)
    task_list = _as_list(
        tasks_payload.get("tasks") if isinstance(tasks_payload, dict) else None, "task"
    )
    ok_tasks = [t for t in task_list if str(t.get("state", "")).upper() == "SUCCEEDED"]
    if len(ok_tasks) > max_tasks:
        warnings.append(
            f"{len(ok_tasks)} successful tasks: attempts read for the first {max_tasks} only"
        )
        ok_tasks = ok_tasks[:max_tasks]
    for done, t in enumerate(ok_tasks):
        tid = str(t.get("id"))
        if time.monotonic() > t_end:
            warnings.append(
                f"the {deadline:g} s deadline passed: attempts of {len(ok_tasks) - done} "
                "task(s) not read"
            )
            break
        try:
            att_obj = get(f"{root}/tasks/{tid}/attempts")
        except InputError as exc:
            warnings.append(f"attempts of {tid} not read: {exc}")
            continue
        payloads.extend(_payloads_of(att_obj))
        att_payload = _unwrap_envelope(att_obj)
        for a in _as_list(
            att_payload.get("taskAttempts") if isinstance(att_payload, dict) else None,
            "taskAttempt",
        ):
            if str(a.get("state", "")).upper() != "SUCCEEDED":
                continue
            aid = str(a.get("id"))
            try:
                payloads.extend(_payloads_of(get(f"{root}/tasks/{tid}/attempts/{aid}/counters")))
            except InputError as exc:
                warnings.append(f"counters of {aid} not read: {exc}")
    h = history_from_payloads(payloads, root, job_id=job_id)
    h.warnings.extend(warnings)
    if not h.total_counters:
        raise InputError("the server returned no job counters", path=f"{root}/counters")
    return h


__all__ = [
    "counter_key",
    "fetch_jhs",
    "history_from_payloads",
    "is_rest_payload",
    "load_rest_saved",
]
