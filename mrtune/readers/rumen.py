"""Read Rumen JSON job traces (Hadoop's ``TraceBuilder`` output) into :class:`JobHistory` objects.

A trace is one ``LoggedJob`` JSON object per job, written one after another (not a JSON array),
optionally gzip-compressed. Each job holds ``mapTasks``/``reduceTasks`` (``LoggedTask``) with
``attempts`` (``LoggedTaskAttempt``): ``result`` (SUCCESS/FAILED/KILLED), start and finish times,
``shuffleFinished``/``sortFinished`` for reduces, and the counters Rumen keeps as plain fields
(``hdfsBytesRead``, ``mapInputRecords``, ``spilledRecords``…; ``-1`` means "not recorded"), and
the committed heap in ``resourceUsageMetrics.heapUsage``.
Newer traces add ``jobProperties`` (the job configuration), ``jobMapMB``/``jobReduceMB`` and
``heapMegabytes``.

Rumen records no ``mapFinishTime``, so map attempts have only their total time.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mrtune.errors import InputError
from mrtune.readers import safe_io
from mrtune.readers.history import AttemptRecord, JobHistory, is_counter_value

#: ``LoggedTaskAttempt`` fields → Hadoop counter names.
ATTEMPT_COUNTERS: dict[str, str] = {
    "hdfsBytesRead": "HDFS_BYTES_READ",
    "hdfsBytesWritten": "HDFS_BYTES_WRITTEN",
    "fileBytesRead": "FILE_BYTES_READ",
    "fileBytesWritten": "FILE_BYTES_WRITTEN",
    "mapInputRecords": "MAP_INPUT_RECORDS",
    "mapInputBytes": "MAP_INPUT_BYTES",
    "mapOutputBytes": "MAP_OUTPUT_BYTES",
    "mapOutputRecords": "MAP_OUTPUT_RECORDS",
    "combineInputRecords": "COMBINE_INPUT_RECORDS",
    "reduceInputGroups": "REDUCE_INPUT_GROUPS",
    "reduceInputRecords": "REDUCE_INPUT_RECORDS",
    "reduceShuffleBytes": "REDUCE_SHUFFLE_BYTES",
    "reduceOutputRecords": "REDUCE_OUTPUT_RECORDS",
    "spilledRecords": "SPILLED_RECORDS",
}

#: ``resourceUsageMetrics.heapUsage`` is the attempt's ``COMMITTED_HEAP_BYTES`` counter (Rumen's
#: ``LoggedTaskAttempt.incorporateCounters`` sets it from that counter): read back under its name.
#: The other usage metrics (CPU, physical and virtual memory) are left out: nothing reads them
#: from a trace yet.
HEAP_USAGE_COUNTER = "COMMITTED_HEAP_BYTES"

#: JobTracker-era job ids carry the tracker's start as ``yyyyMMddHHmm`` (12 digits); YARN ids
#: carry the ResourceManager's start in epoch milliseconds (13 digits).
_JT_JOB_ID = re.compile(r"^job_\d{12}_\d+$")


#: Keys only a Rumen ``LoggedJob`` has (a JobHistory REST ``job`` has ``id``, ``mapsTotal``…).
RUMEN_JOB_KEYS = frozenset({"jobID", "mapTasks", "reduceTasks", "otherTasks"})


def is_rumen(head: str) -> bool:
    """Whether text starting with ``head`` looks like a Rumen trace: a JSON object (after an
    optional ``/* … */`` header) whose first value is a ``LoggedJob``. Decided on the parsed
    object's keys, wherever they stand in it (``jobProperties`` may come before ``jobID``); a
    prefix too short to parse falls back to looking for the keys in the text."""
    text = strip_comment_header(head, "").lstrip("\ufeff \t\r\n")
    if not text.startswith(("{", "[")):
        return False
    try:
        obj, _ = json.JSONDecoder().raw_decode(text)
    except (json.JSONDecodeError, RecursionError):  # a prefix, or hostile nesting
        return text.startswith("{") and any(f'"{k}"' in text for k in RUMEN_JOB_KEYS)
    return is_rumen_object(obj)


def is_rumen_object(obj: Any) -> bool:
    """A Rumen ``LoggedJob`` (or a JSON array whose first object is one)."""
    if isinstance(obj, list):
        obj = next((o for o in obj if isinstance(o, dict)), None)
    return isinstance(obj, dict) and bool(RUMEN_JOB_KEYS & obj.keys())


def strip_comment_header(text: str, path: str) -> str:
    """``text`` with its leading ``/* … */`` comments blanked (newlines kept, so JSON error
    positions stay right). Traces shipped in source trees carry an Apache licence header so."""
    i = len(text) - len(text.lstrip("\ufeff \t\r\n"))
    if not text.startswith("/*", i):
        return text
    out = text
    while out.startswith("/*", i):
        end = out.find("*/", i + 2)
        if end < 0:
            if not path:  # a prefix (sniffing): the header may end further on
                return out[:i]
            raise InputError("unterminated /* comment */ at the start of the file", path=path)
        blank = "".join(c if c == "\n" else " " for c in out[i : end + 2])
        out = out[:i] + blank + out[end + 2 :]
        i = len(out) - len(out.lstrip("\ufeff \t\r\n"))
    return out


def read_text(path: Path) -> str:
    """File text, gunzipped when the file starts with the gzip magic bytes."""
    return safe_io.read_text(path, gunzip=True)


def iter_json_objects(text: str, path: str) -> list[dict[str, Any]]:
    """Every top-level JSON value of ``text`` (concatenated objects, or one array of them)."""
    safe_io.check_depth(text, path)
    out: list[Any] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        try:
            obj, i = safe_io.raw_decode(text, i, path)
        except json.JSONDecodeError as exc:
            if out:
                raise InputError(
                    f"malformed JSON after {len(out)} job(s) at line {exc.lineno}, column "
                    f"{exc.colno}: {exc.msg}",
                    path=path,
                ) from None
            raise InputError(
                f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", path=path
            ) from None
        if isinstance(obj, list):
            out.extend(obj)
        else:
            out.append(obj)
    return [o for o in out if isinstance(o, dict)]


def _num(v: Any) -> float | None:
    """A non-negative finite JSON number (Rumen writes longs), else ``None``."""
    if isinstance(v, str) or safe_io.to_long(v) is None:
        return None
    return float(v) if v >= 0 else None


def _rack(location: Any) -> str | None:
    """The rack of a ``LoggedLocation`` (``{"layers": [rack, host]}``), if it names one."""
    layers = location.get("layers") if isinstance(location, dict) else None
    if isinstance(layers, list) and len(layers) >= 2 and layers[0]:
        return "/" + str(layers[0]).strip("/")
    return None


def _attempt_counters(att: dict[str, Any], source: str = "") -> dict[str, float]:
    """A successful attempt's counters. Rumen's ``LoggedTaskAttempt`` holds each as a long
    that is ``-1`` when the counter was not recorded (so is an absent field); any other value
    that is no non-negative long (``-100``, ``1e300``, text, ``null``, a fraction) is a
    damaged trace, refused in one line naming the attempt, the field and the value: dropping
    it silently left the side without the counter (one bad ``hdfsBytesRead`` made the job's
    input 1 byte per map)."""
    out: dict[str, float] = {}
    aid = att.get("attemptID")
    for field, name in ATTEMPT_COUNTERS.items():
        if field not in att:
            continue
        raw = att[field]
        if raw == -1 and not isinstance(raw, bool):
            continue  # Rumen's "not recorded"
        if not is_counter_value(raw) or raw < 0:
            raise InputError(
                f"attempt {aid}: {field} ({name}) is not a counter value",
                path=source or None,
                value=raw,
                allowed="a whole number 0 … 2^63-1, or -1 (Rumen: not recorded)",
            )
        out[name] = float(raw)
    usage = att.get("resourceUsageMetrics")
    heap = _num(usage.get("heapUsage")) if isinstance(usage, dict) else None
    if heap:  # 0: ResourceUsageMetrics' default, the counter was not recorded
        out[HEAP_USAGE_COUNTER] = heap
    return out


def job_from_rumen(obj: dict[str, Any], source: str) -> JobHistory:
    """One ``LoggedJob`` → :class:`JobHistory`: its fields, its configuration (or what the
    trace tells of it), its facts, its attempts, then each side's counters summed."""
    job_id = str(obj.get("jobID") or "job")
    h = JobHistory(source=source, source_format="rumen", job_id=job_id)
    outcome = _job_fields(h, obj, job_id)
    _job_properties(h, obj)
    for key, fact in (
        ("heapMegabytes", "task_heap_mb"),
        ("jobMapMB", "map_container_mb_job"),
        ("jobReduceMB", "reduce_container_mb_job"),
        ("clusterMapMB", "cluster_map_slot_mb"),
        ("clusterReduceMB", "cluster_reduce_slot_mb"),
    ):
        v = _num(obj.get(key))
        if v is not None and v > 0:
            h.facts[fact] = v
    for tasks_key, kind in (("mapTasks", "map"), ("reduceTasks", "reduce")):
        tasks = obj.get(tasks_key)
        if tasks is not None and not isinstance(tasks, list):
            raise InputError(
                f"job {job_id}: {tasks_key} is not a list of tasks",
                path=source,
                value=type(tasks).__name__,
                allowed="a JSON array of LoggedTask objects",
            )
        for task in tasks or []:
            if isinstance(task, dict):
                _add_task(h, task, kind)
    _side_counters(h)
    if h.status != "SUCCEEDED":
        h.warnings.append(f"{job_id}: the trace records the job's outcome as {outcome}")
    return h


def _job_fields(h: JobHistory, obj: dict[str, Any], job_id: str) -> str:
    """``LoggedJob``'s name, outcome, times and task totals; the Hadoop version from the job
    id's form. Returns the outcome as the trace writes it."""
    h.job_name = str(obj.get("jobName") or "")
    outcome = str(obj.get("outcome") or "UNKNOWN").upper()
    h.status = "SUCCEEDED" if outcome == "SUCCESS" else outcome
    h.submit_ms = int(obj["submitTime"]) if _num(obj.get("submitTime")) else None
    h.launch_ms = int(obj["launchTime"]) if _num(obj.get("launchTime")) else None
    h.finish_ms = int(obj["finishTime"]) if _num(obj.get("finishTime")) else None
    h.total_maps = int(obj["totalMaps"]) if _num(obj.get("totalMaps")) is not None else None
    h.total_reduces = (
        int(obj["totalReduces"]) if _num(obj.get("totalReduces")) is not None else None
    )
    h.hadoop_version = 1 if _JT_JOB_ID.match(job_id) else 2
    return outcome


def _job_properties(h: JobHistory, obj: dict[str, Any]) -> None:
    """``jobProperties``; without them the trace still tells the task heap and the reduces."""
    props = obj.get("jobProperties")
    if isinstance(props, dict) and props:
        h.properties = {str(k): str(v) for k, v in props.items()}
        return
    heap = _num(obj.get("heapMegabytes"))
    if heap and heap > 0:
        key = "mapred.child.java.opts" if h.hadoop_version == 1 else "mapreduce.map.java.opts"
        h.properties[key] = f"-Xmx{int(heap)}m"
        if h.hadoop_version != 1:
            h.properties["mapreduce.reduce.java.opts"] = f"-Xmx{int(heap)}m"
    if h.total_reduces is not None:
        h.properties["mapreduce.job.reduces"] = str(h.total_reduces)
    if h.properties:
        h.warnings.append(
            "the trace has no jobProperties: configuration limited to the task heap "
            "(heapMegabytes) and the number of reduces; Hadoop defaults for the rest"
        )


def _add_task(h: JobHistory, task: dict[str, Any], kind: str) -> None:
    """One ``LoggedTask``: failed tasks and failed or killed attempts are counted; each
    successful attempt becomes an :class:`AttemptRecord` (untimed when its times are not
    usable: it ran, so its counters are the job's)."""
    if str(task.get("taskStatus") or "").upper() == "FAILED":
        h.failed_tasks += 1
    attempts = task.get("attempts")
    for att in attempts if isinstance(attempts, list) else []:
        if not isinstance(att, dict):
            continue
        result = str(att.get("result") or "").upper()
        if result == "FAILED":
            h.failed_attempts += 1
            continue
        if result == "KILLED":
            h.killed_attempts += 1
            continue
        if result != "SUCCESS":
            continue
        start, finish = _num(att.get("startTime")), _num(att.get("finishTime"))
        # unusable times untime the attempt, its counters still count (profiling.task_checks)
        untimed = "no usable start/finish time" if start is None or finish is None else None
        sh, so = _num(att.get("shuffleFinished")), _num(att.get("sortFinished"))
        h.add_attempt(
            AttemptRecord(
                attempt_id=str(att.get("attemptID")),
                task_id=str(task.get("taskID") or ""),
                kind=kind,  # type: ignore[arg-type]
                start_ms=int(start or 0),
                finish_ms=int(finish or 0),
                untimed=untimed,
                shuffle_finish_ms=int(sh) if sh is not None else None,
                sort_finish_ms=int(so) if so is not None else None,
                counters=_attempt_counters(att, h.source),
                host=str(att.get("hostName")) if att.get("hostName") else None,
                rack=_rack(att.get("location")),
            )
        )


def _side_counters(h: JobHistory) -> None:
    """Rumen has no job counters: totals are sums over successful attempts, and a counter is
    kept only when every successful attempt of that side recorded it."""
    for kind in ("map", "reduce"):
        atts = h.successful(kind)  # type: ignore[arg-type]
        if not atts:
            continue
        keys = sorted(set.intersection(*(set(a.counters) for a in atts)))  # stable order
        for k in sorted(set.union(*(set(a.counters) for a in atts)) - set(keys)):
            missing = [a.attempt_id for a in atts if k not in a.counters]
            h.warnings.append(
                f"{k} is recorded by {len(atts) - len(missing)} of {len(atts)} successful "
                f"{kind} attempts (not by {missing[0]}"
                + (f" and {len(missing) - 1} more" if len(missing) > 1 else "")
                + "): the side's total is unknown, so it is left out"
            )
        side = {k: sum(a.counters[k] for a in atts) for k in keys}
        if kind == "map":
            h.map_counters = side
        else:
            h.reduce_counters = side


def load_rumen(path: str | Path) -> list[JobHistory]:
    """Every job of a Rumen trace (plain or gzip; one or several concatenated JSON objects)."""
    p = Path(path)
    text = strip_comment_header(read_text(p), str(p))
    if not text.strip():
        raise InputError("the file is empty", path=str(p))
    objs = iter_json_objects(text, str(p))
    jobs = [job_from_rumen(o, str(p)) for o in objs if "jobID" in o or "mapTasks" in o]
    if not jobs:
        raise InputError(
            "no Rumen job (an object with 'jobID' and 'mapTasks') in the file", path=str(p)
        )
    return jobs


def select_job(jobs: list[JobHistory], job_id: str | None, path: str) -> JobHistory:
    """The job named ``job_id``, or the only job, or the first successful one (with a warning)."""
    if job_id:
        for j in jobs:
            if j.job_id == job_id:
                return j
        ids = ", ".join(j.job_id for j in jobs[:10])
        raise InputError(f"job {job_id} is not in the trace", path=path, allowed=ids)
    if len(jobs) == 1:
        return jobs[0]
    ok = [j for j in jobs if j.status == "SUCCEEDED" and j.attempts] or jobs
    chosen = ok[0]
    chosen.warnings.append(
        f"{Path(path).name} holds {len(jobs)} jobs; profiled {chosen.job_id} (choose one with --job)"
    )
    return chosen
