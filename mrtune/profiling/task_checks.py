"""Screen a job history for inconsistent tasks before any statistic is computed from it.

A history can contradict itself: a damaged or hand-edited file, a clock jump on a NodeManager,
or a JobHistory server that merged two runs. Left alone, an attempt whose finish precedes its
start becomes a negative map time and a negative counter becomes a negative selectivity. Hadoop
itself never records these (``TaskAttemptImpl`` sets ``finishTime`` after ``launchTime``;
counters only increase, ``Counters.incrCounter``).

Times and counters are judged apart, because they are recorded apart: the times by the
ApplicationMaster's clock (``TaskAttemptImpl``), the counters by the task itself
(``Task.updateCounters``, sent with its final status). An attempt whose *times* alone are
impossible still ran, and its output was shuffled (the reduces' ``REDUCE_SHUFFLE_BYTES`` hold
it), so its counters stay in the dataflow; it is only left out of the timing (the observed task
times the cost factors are fitted to, peaks of concurrency). An attempt whose *counters*
contradict is excluded altogether. Each case is said in one warning line that counts the
attempts and says why (the first few ids are named); the counts are also in the history's
facts (``untimed_attempts``, ``inconsistent_attempts_excluded``).

Times, per successful attempt (untimed when):

* a start or finish time that is missing or not after the epoch (``0`` is Hadoop's "unset"),
  or that a reader could not use (no ``*_ATTEMPT_STARTED`` event, a time that is not a long);
* finish before start (a negative duration);
* phase boundaries (``mapFinishTime``, ``shuffleFinishTime``, ``sortFinishTime``) outside
  [start, finish] or out of order.

Counters (excluded when): a negative counter; counters that contradict each other: more reduce
input groups than reduce input records (``ReduceContextImpl`` starts a group at a record), or
combine output records when there is no combine input at all; two finish events of one
attempt with different counters (:meth:`~mrtune.readers.history.JobHistory.add_attempt`).

Job-level counters that are negative are dropped (with a warning), and a job finish time before
its submit time is dropped, so no negative elapsed time is derived from them.
"""

from __future__ import annotations

import dataclasses

from mrtune.readers.history import AttemptRecord, JobHistory

#: How many excluded attempt ids a warning names before it says "…".
_NAMED = 3


def time_problem(a: AttemptRecord) -> str | None:
    """Why the times of attempt ``a`` cannot be used, or ``None`` when they can."""
    if a.untimed:
        return a.untimed
    s, f = a.start_ms, a.finish_ms
    if s is None or f is None or s <= 0 or f <= 0:
        return "no start or finish time"
    if f < s:
        return "finish before start"
    bounds = (
        [a.map_finish_ms]
        if a.kind == "map"
        else [b for b in (a.shuffle_finish_ms, a.sort_finish_ms) if b is not None]
    )
    points = [s, *[b for b in bounds if b is not None], f]
    if any(later < earlier for earlier, later in zip(points, points[1:], strict=False)):
        return "phase times out of order"
    return None


def counter_problem(a: AttemptRecord) -> str | None:
    """Why the counters of attempt ``a`` contradict themselves, or ``None`` when they do not."""
    if a.conflict:
        return a.conflict
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


def attempt_problem(a: AttemptRecord) -> str | None:
    """Why attempt ``a`` contradicts itself (its counters first, then its times), or ``None``."""
    return counter_problem(a) or time_problem(a)


def screen_history(h: JobHistory) -> JobHistory:
    """``h`` without its inconsistent attempts and negative job counters, its attempts with
    unusable times marked untimed (see the module doc).

    Returns a copy when something is excluded or untimed (``h`` itself is left as read), else
    ``h``.
    """
    excluded: dict[str, list[str]] = {}
    untimed: dict[str, list[str]] = {}
    kept: list[AttemptRecord] = []
    for a in h.attempts:
        why = counter_problem(a)
        if why is not None:
            excluded.setdefault(why, []).append(a.attempt_id)
            continue
        late = time_problem(a)
        if late is not None:
            untimed.setdefault(late, []).append(a.attempt_id)
            a = a if a.untimed else dataclasses.replace(a, untimed=late)
        kept.append(a)
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
    if not excluded and not untimed and not any(negative.values()) and not bad_finish:
        return h
    warnings = list(h.warnings)
    facts = dict(h.facts)
    n = sum(len(ids) for ids in excluded.values())
    if n:
        warnings.append(f"{n} inconsistent task attempt(s) excluded: {_reasons(excluded)}")
        facts["inconsistent_attempts_excluded"] = float(n)
    n_untimed = sum(len(ids) for ids in untimed.values())
    if n_untimed:
        warnings.append(
            f"{n_untimed} task attempt(s) not timed: {_reasons(untimed)}; their counters are kept "
            "for the dataflow (the attempts ran and their output was shuffled), their times "
            "are left out of the observed timings and the cost fit"
        )
        facts["untimed_attempts"] = float(n_untimed)
    fixed = {}
    for name, keys in negative.items():
        if keys:
            src = getattr(h, f"{name}_counters")
            fixed[f"{name}_counters"] = {k: v for k, v in src.items() if v >= 0}
            warnings.append(f"negative job {name} counter(s) dropped: {', '.join(keys[:_NAMED])}")
    if bad_finish:
        fixed["finish_ms"] = None
        warnings.append("the job's finish time precedes its submit/launch time: ignored")
    out = dataclasses.replace(h, attempts=kept, warnings=warnings, facts=facts, **fixed)
    out._by_id = {}
    out._by_slot = {}
    return out


def _reasons(by_why: dict[str, list[str]]) -> str:
    """``1 finish before start (attempt_…); 2 negative counter X=-1 (attempt_…, attempt_…)``."""
    return "; ".join(
        f"{len(ids)} {why} ({', '.join(ids[:_NAMED])}{', …' if len(ids) > _NAMED else ''})"
        for why, ids in by_why.items()
    )
