"""What one YARN run measured, read off its ``.jhist`` (and its container logs, when kept).

The YARN report (:mod:`mrtune.harness.yarn_fidelity`) compares these with the model: the
record and byte counters and the waves (:func:`mrtune.harness.yarn_check.measured_figures`),
the job time (JobHistory's launch → finish), the :data:`~mrtune.harness.yarn_summary.PHASES`
from the successful attempts, the AM's set-up and the job commit around the tasks, and the
containers' JVM start (:mod:`mrtune.harness.container_start`). :func:`measure` reads the
history once for all of them; repeats of a label are then combined by
:func:`mrtune.harness.yarn_repeats.combine`.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

from mrtune.harness.yarn_check import measured_figures
from mrtune.harness.yarn_summary import PHASES
from mrtune.readers import load_history
from mrtune.readers.history import JobHistory


def job_ms(history: JobHistory) -> float:
    """The job time as JobHistory shows it: launch (else submit) → finish."""
    return float((history.finish_ms or 0) - (history.launch_ms or history.submit_ms or 0))


def phases_of(h: JobHistory) -> dict[str, float]:
    """The :data:`PHASES` of one history, from its successful attempts."""
    maps = [a for a in h.attempts if str(a.kind).upper().endswith("MAP")]
    reds = [a for a in h.attempts if str(a.kind).upper().endswith("REDUCE")]
    nan = math.nan
    if not maps:
        return dict.fromkeys(PHASES, nan)
    first = min(a.start_ms for a in h.attempts)
    last_map = max(a.finish_ms for a in maps)
    out = {
        "map_task": statistics.fmean(a.finish_ms - a.start_ms for a in maps),
        "map_stage": float(last_map - first),
    }
    parts = [
        (a.shuffle_finish_ms - max(a.start_ms, last_map), a.sort_finish_ms - a.shuffle_finish_ms,
         a.finish_ms - a.sort_finish_ms)
        for a in reds
        if a.shuffle_finish_ms and a.sort_finish_ms
    ]  # fmt: skip
    for i, name in enumerate(("shuffle_tail", "merge", "reduce")):
        out[name] = statistics.fmean(p[i] for p in parts) if parts else nan
    return out


def measured_phases(jhist: Path) -> dict[str, float]:
    """The :data:`PHASES` of the history at ``jhist``."""
    return phases_of(load_history(jhist))


def job_ends(h: JobHistory) -> dict[str, float]:
    """The job's own fixed times around its tasks: the AM's set-up (job launch → first
    container launch: job setup, the first container requests and allocations) and the job
    commit (last attempt's end → job finish). In the model they are part of the calibration
    run's job overhead."""
    if not h.attempts or h.launch_ms is None or h.finish_ms is None:
        return {}
    first = min(a.start_ms for a in h.attempts)
    last = max(a.finish_ms for a in h.attempts)
    return {"am_setup_ms": float(first - h.launch_ms), "job_commit_ms": float(h.finish_ms - last)}


def container_start(jhist: Path, h: JobHistory | None = None) -> dict[str, float]:
    """Per-container JVM start and task init (:mod:`mrtune.harness.container_start`), when
    the launcher's work folder with the NodeManagers' logs is still there, or the run's
    archived container logs sit beside its history (:mod:`mrtune.harness.yarn_pack`)."""
    from mrtune.harness.container_start import container_starts

    h = h if h is not None else load_history(jhist)
    for work in (jhist.parent, jhist.parent.parent, jhist.parent.parent.parent):
        found = container_starts(h, work)
        if found:
            return found
    return {}


def measure(jhist: Path) -> dict[str, Any]:
    """Everything the report compares for one run, from one read of its history."""
    h = load_history(jhist)
    out: dict[str, Any] = measured_figures(h)
    out["job_ms"] = job_ms(h)
    out["phases"] = phases_of(h)
    out["container_start"] = container_start(jhist, h)
    out.update(job_ends(h))
    return out
