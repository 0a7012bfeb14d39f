"""How long a YARN task container takes to start its JVM and reach its task (issue 21).

A ``.jhist`` stamps an attempt's start when the AM launches its container; the task's own
``syslog`` (written by the container JVM through the NodeManager's log dir) stamps when the JVM
began logging and when the task reached its work: ``MapTask: Processing split`` for a map,
``ReduceTask: Using ShuffleConsumerPlugin`` (the shuffle about to start) for a reduce. Their differences are the
per-container start the local referee cannot show: container localisation and ``java``
start-up (``jvm_ms``), then YarnChild's task setup (umbilical, credentials, ``Task.initialize``:
``init_ms``). The mini-cluster keeps the NodeManagers' log dirs under the launcher's work folder
(``target/…/application_<id>/container_<id>/syslog``).

Log timestamps are the JVM's local wall clock with millisecond resolution
(``yyyy-MM-dd HH:mm:ss,SSS``, log4j's default layout here); they are read in this machine's
local time zone, the same clock the history's epoch milliseconds come from.
"""

from __future__ import annotations

import gzip
import re
import statistics
import zlib
from datetime import datetime
from pathlib import Path

from mrtune.readers.history import JobHistory

_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ")
TASK_REACHED = ("MapTask: Processing split", "ReduceTask: Using ShuffleConsumerPlugin")


def _epoch_ms(stamp: str) -> int:
    return int(datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp() * 1000)


def _syslog_times(path: Path) -> tuple[int | None, int | None]:
    """(first logged line, first line of the task's own work), as epoch ms."""
    first = reached = None
    try:
        opened = (
            gzip.open(path, "rt", encoding="utf-8", errors="replace")
            if path.suffix == ".gz"
            else path.open(encoding="utf-8", errors="replace")
        )
        with opened as fh:
            for line in fh:
                m = _STAMP.match(line)
                if not m:
                    continue
                if first is None:
                    first = _epoch_ms(m.group(1))
                if any(k in line for k in TASK_REACHED):
                    reached = _epoch_ms(m.group(1))
                    break
    except (OSError, EOFError, zlib.error):
        return None, None
    return first, reached


def container_logs(work: Path, job_id: str) -> dict[str, Path]:
    """``container id → syslog`` of the job's application under a launcher work folder, or
    in a run's archived copy (``<run>/<application>/container_*/syslog.gz``,
    :mod:`mrtune.harness.yarn_pack`)."""
    app = job_id.replace("job_", "application_", 1)
    out = {}
    for syslog in work.glob(f"target/**/{app}/container_*/syslog"):
        out[syslog.parent.name] = syslog
    for syslog in work.glob(f"{app}/container_*/syslog.gz"):
        out.setdefault(syslog.parent.name, syslog)
    return out


def container_starts(history: JobHistory, work: Path) -> dict[str, float]:
    """Median ``jvm_ms`` and ``init_ms`` of the job's task containers (maps and reduces
    apart), from its history and the container logs under ``work``; empty when the logs
    are gone."""
    logs = container_logs(work, history.job_id)
    samples: dict[str, list[float]] = {}
    for a in history.attempts:
        log = logs.get(a.container_id or "")
        if log is None:
            continue
        first, reached = _syslog_times(log)
        kind = "map" if str(a.kind).upper().endswith("MAP") else "reduce"
        if first is not None and first >= a.start_ms:
            samples.setdefault(f"{kind}_jvm_ms", []).append(first - a.start_ms)
            if reached is not None and reached >= first:
                samples.setdefault(f"{kind}_init_ms", []).append(reached - first)
    return {k: float(statistics.median(v)) for k, v in sorted(samples.items())}
