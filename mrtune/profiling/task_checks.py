"""Screen a job history for inconsistent tasks before any statistic is computed from it.

A history can contradict itself: a damaged or hand-edited file, a clock jump on a NodeManager,
or a JobHistory server that merged two runs. Left alone, an attempt whose finish precedes its
start becomes a negative map time and a negative counter becomes a negative selectivity. Hadoop
itself never records these (``TaskAttemptImpl`` sets ``finishTime`` after ``launchTime``;
counters only increase, ``Counters.incrCounter``), so such an attempt is excluded, and the
profile's warnings say how many were excluded and why (the first few ids are named).

Checks per successful attempt:

* a start or finish time that is missing or not after the epoch (``0`` is Hadoop's "unset");
* finish before start (a negative duration);
* phase boundaries (``mapFinishTime``, ``shuffleFinishTime``, ``sortFinishTime``) outside
  [start, finish] or out of order;
* a negative counter, or counters that contradict each other: more reduce input groups than
  reduce input records (``ReduceContextImpl`` starts a group at a record), or more combine
  output than combine input records when there is no combine input at all.

Job-level counters that are negative are dropped (with a warning), and a job finish time before
its submit time is dropped, so no negative elapsed time is derived from them.
"""

from __future__ import annotations

import dataclasses

from mrtune.readers.history import AttemptRecord, JobHistory

#: How many excluded attempt ids a warning names before it says "…".
_NAMED = 3


def attempt_problem(a: AttemptRecord) -> str | None:
    """Why attempt ``a`` contradicts itself, or ``None`` when it is consistent."""
    s, f = a.start_ms, a.finish_ms
    if s is None or f is None or s <= 0 or f <= 0:
        return "no start or finish time"
    if f < s:
        return f"finishes {s - f} ms before it starts"
    bounds = (
        [a.map_finish_ms]
        if a.kind == "map"
        else [b for b in (a.shuffle_finish_ms, a.sort_finish_ms) if b is not None]
    )
    points = [s, *[b for b in bounds if b is not None], f]
    if any(later < earlier for earlier, later in zip(points, points[1:], strict=False)):
        return "phase times out of order"
    bad = sorted(k for k, v in a.counters.items() if v < 0)
    if bad:
        return f"negative counter {bad[0]}={a.counters[bad[0]]:.0f}"
    c = a.counters
    groups, records = c.get("REDUCE_INPUT_GROUPS"), c.get("REDUCE_INPUT_RECORDS")
    if groups is not None and records is not None and groups > records:
        return "more reduce input groups than records"
    if c.get("COMBINE_INPUT_RECORDS") == 0 and (c.get("COMBINE_OUTPUT_RECORDS") or 0) > 0:
        return "combine output without combine input"
    return None


def screen_history(h: JobHistory) -> JobHistory:
    """``h`` without its inconsistent attempts and negative job counters (see the module doc).

    Returns a copy when something is excluded (``h`` itself is left as read), else ``h``.
    """
    excluded: dict[str, list[str]] = {}
    kept: list[AttemptRecord] = []
    for a in h.attempts:
        why = attempt_problem(a)
        if why is None:
            kept.append(a)
        else:
            excluded.setdefault(why.split(" ", 1)[0] if "ms before" in why else why, []).append(
                a.attempt_id
            )
    negative = {
        name: sorted(k for k, v in counters.items() if v < 0)
        for name, counters in (
            ("total", h.total_counters),
            ("map", h.map_counters),
            ("reduce", h.reduce_counters),
        )
    }
    bad_finish = (
        h.finish_ms is not None
        and h.submit_ms is not None
        and (h.finish_ms < h.submit_ms or (h.launch_ms is not None and h.finish_ms < h.launch_ms))
    )
    if not excluded and not any(negative.values()) and not bad_finish:
        return h
    warnings = list(h.warnings)
    n = sum(len(ids) for ids in excluded.values())
    if n:
        reasons = "; ".join(
            f"{len(ids)} {_reason(why)} ({', '.join(ids[:_NAMED])}{', …' if len(ids) > _NAMED else ''})"
            for why, ids in excluded.items()
        )
        warnings.append(f"{n} inconsistent task attempt(s) excluded: {reasons}")
    fixed = {}
    for name, keys in negative.items():
        if keys:
            src = getattr(h, f"{name}_counters")
            fixed[f"{name}_counters"] = {k: v for k, v in src.items() if v >= 0}
            warnings.append(f"negative job {name} counter(s) dropped: {', '.join(keys[:_NAMED])}")
    if bad_finish:
        fixed["finish_ms"] = None
        warnings.append("the job's finish time precedes its submit/launch time: ignored")
    out = dataclasses.replace(h, attempts=kept, warnings=warnings, **fixed)
    out._by_id = {}
    out._by_slot = {}
    return out


def _reason(why: str) -> str:
    return "finish before start" if why == "finishes" else why
