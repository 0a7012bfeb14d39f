"""The live JobHistory REST client: :func:`fetch_jhs` reads one job from a running server
(``--jhs http://host:19888 --job job_…``), bounded by a total deadline per request, a deadline
for the whole fetch and a response-size cap; every failure is one
:class:`~mrtune.errors.InputError` line.

Split from :mod:`mrtune.readers.rest` (the saved-response format, which this module's
answers are turned into) so that the HTTP, socket and thread code is loaded only for a live
fetch. Endpoints follow Hadoop's ``HistoryServerRest`` documentation.
"""

from __future__ import annotations

import contextlib
import http.client
import math
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from mrtune.errors import InputError
from mrtune.readers import safe_io
from mrtune.readers.history import JobHistory
from mrtune.readers.rest import (
    _JOB_ID,
    _as_list,
    _payloads_of,
    _unwrap_envelope,
    history_from_payloads,
)

DEFAULT_TIMEOUT_S = 10.0
#: Whole-fetch deadline of :func:`fetch_jhs` (job, counters, conf, every task's attempts).
DEFAULT_DEADLINE_S = 300.0
DEFAULT_MAX_TASKS = 2000

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
    ok_tasks = _successful_tasks(tasks_obj, max_tasks, warnings)
    for done, t in enumerate(ok_tasks):
        if time.monotonic() > t_end:
            warnings.append(
                f"the {deadline:g} s deadline passed: attempts of {len(ok_tasks) - done} "
                "task(s) not read"
            )
            break
        payloads.extend(_task_attempts(get, root, str(t.get("id")), warnings))
    h = history_from_payloads(payloads, root, job_id=job_id)
    h.warnings.extend(warnings)
    if not h.total_counters:
        raise InputError("the server returned no job counters", path=f"{root}/counters")
    return h


def _successful_tasks(tasks_obj: Any, max_tasks: int, warnings: list[str]) -> list[dict[str, Any]]:
    """The ``tasks`` answer's successful tasks, at most ``max_tasks`` (with a warning)."""
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
    return ok_tasks


def _task_attempts(get: Fetcher, root: str, tid: str, warnings: list[str]) -> list[dict[str, Any]]:
    """One task's attempts and each successful attempt's counters; a failing request is a
    warning, and the profile is built from what was read."""
    payloads: list[dict[str, Any]] = []
    try:
        att_obj = get(f"{root}/tasks/{tid}/attempts")
    except InputError as exc:
        warnings.append(f"attempts of {tid} not read: {exc}")
        return payloads
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
    return payloads


__all__ = ["DEFAULT_DEADLINE_S", "DEFAULT_MAX_TASKS", "DEFAULT_TIMEOUT_S", "fetch_jhs"]
