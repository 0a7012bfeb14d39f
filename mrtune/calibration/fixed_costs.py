"""How the calibration fit treats the cluster-scale fixed costs (issue 20, item 5).

A history's phase times price a fixed cost (per task, spill or fetch) only where its count
varies across the rows: one spill per map, every reduce fetching every map, or a read
intercept in the same first phase as the task's fixed time leave them collinear with
``task_overhead_ms``. Then the fit keeps the documented prior
(:meth:`~mrtune.costmodel.cluster.ClusterSpec.cost_priors`), never more than the history's
own segments allow (:mod:`mrtune.calibration.prior_caps`), or lets the task's fixed time
carry a per-attempt constant, so neither collapses to a 0 bound. ``spill_write`` (the spill's
disk cost apart from the merge's) is tied to ``local_write`` where no segment separates them.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mrtune.calibration.rows import UNIT_FACTORS, _Obs
from mrtune.costmodel.cluster import YARN_COST_PRIORS
from mrtune.readers.history import AttemptRecord, JobHistory

F64 = NDArray[np.float64]

#: Columns selected only after every other one (and the task's fixed time), so they are fitted
#: only where the rows still separate them, else keep their prior: ``spill_write`` splits the
#: local writes (tied to local_write then); a per-spill or per-fetch cost is a constant per
#: task whenever every task spills or fetches alike (one spill per map, issue 20's README
#: job: it took the whole 5.7 s fixed time as 2 s per spill).
LATE_COLUMNS: tuple[str, ...] = (
    "spill_write",
    "spill_file_ns",
    "fetch_ns",
    "read_fixed_ms",
    "shuffle_floor_ms",
    "merge_floor_ms",
    "commit_ms",
)
#: Fixed costs (per task, spill, fetch or segment): left out of a segment's volume share when
#: deciding whether it is fixed time (:func:`_stack`), so a prior of them cannot make a
#: segment of fixed time look priced by volumes.
FIXED_COST_COLUMNS: tuple[str, ...] = (
    "spill_file_ns",
    "segment_seek_ns",
    "fetch_ns",
    "read_fixed_ms",
    "shuffle_floor_ms",
    "merge_floor_ms",
    "commit_ms",
)
#: Per-attempt constants of an attempt's first segment (ms): where the rows cannot separate
#: them from ``task_overhead_ms`` they are absorbed by it rather than kept at their prior.
FIRST_SEGMENT_CONSTANTS: tuple[str, ...] = ("read_fixed_ms", "shuffle_floor_ms")

#: Segments that time the spills apart from the merge (a phase table's spill, a task log's
#: spills): only with one of them can ``spill_write`` be told from ``local_write``.
SPILL_SEGMENTS = ("map.spill", "map.spill_full", "map.spill_last")
_SW, _LW = UNIT_FACTORS.index("spill_write"), UNIT_FACTORS.index("local_write")


def tie_spill_write(obs: dict[str, _Obs], force: bool = False) -> bool:
    """Price spilled bytes at ``local_write`` when no segment times the spills apart.

    A ``.jhist`` cuts a map at ``mapFinishTime``: spills and the merge share segments, and a
    map's spilled bytes are proportional to its merged bytes, so the two disk factors are
    collinear; a separate ``spill_write`` would also take the per-spill fixed cost's place
    (spill count ∝ bytes). Tied, the spill volume joins ``local_write``'s column and
    ``spill_write`` takes its fitted value (:func:`untie_spill_write`)."""
    if not force and any(obs.get(s) is not None and obs[s].y for s in SPILL_SEGMENTS):
        return False
    for o in obs.values():
        for row in o.rows:
            row[_LW] += row[_SW]
            row[_SW] = 0.0
    return True


def untie_spill_write(fit: Any) -> None:  # noqa: ANN401 - solve._Fit (no import cycle)
    """``spill_write`` takes local_write's fitted value; its provenance says so, measured or
    defaulted as local_write is."""
    fit.theta[_SW] = fit.theta[_LW]
    lw = fit.prov.get("costs.local_write", "defaulted: its phase was not observed")
    head = "measured" if lw.startswith("measured") else "defaulted"
    fit.prov["costs.spill_write"] = (
        f"{head}: tied to local_write, since these phase times do not separate the spills' "
        f"disk cost from the merge's (or from the per-spill and sort terms); local_write {lw}"
    )


def split_fixed(
    theta: F64, consts: list[int], columns: list[str], prov: dict[str, str]
) -> tuple[float, str]:
    """The task's fixed time as the part of the maps' and the reduces' first-phase constants
    they share (container launch and JVM start are the same for both); the read intercept
    and the shuffle floor keep the rest of each. The rows identify only the two sums."""
    common = float(min(theta[consts[0]], theta[consts[1]]))
    for i in consts:
        theta[i] -= common
        prov[f"costs.{columns[i]}"] = (
            f"measured: {prov.get(f'costs.{columns[i]}', '')[len('measured: ') :]} less the "
            "fixed time common to maps and reduces (task_overhead_ms)"
        )
    how = (
        "measured: the part of the maps' and reduces' first-phase fixed times they share "
        "(container launch, JVM start); the rest is read_fixed_ms / shuffle_floor_ms"
    )
    return common, how


# ---- cluster-level fixed costs measured from a YARN history's task timeline (issue 21)


def _running_steps(history: JobHistory) -> list[tuple[int, int]]:
    """(time, task containers running from then on), one step per attempt start or end."""
    events = sorted(
        [(a.start_ms, 1) for a in history.attempts] + [(a.finish_ms, -1) for a in history.attempts]
    )
    steps, running = [], 0
    for t, d in events:
        running += d
        if steps and steps[-1][0] == t:
            steps[-1] = (t, running)
        else:
            steps.append((t, running))
    return steps


def attempt_stretch(history: JobHistory, cores: float, busy: float = 1.0) -> dict[str, float]:
    """Each attempt's mean CPU stretch over its life: the time average of
    ``max(1, running containers × busy / cores)`` (:meth:`ClusterSpec.cpu_stretch`).

    The timeline is the history's own (every attempt's launch and finish), so a user's
    ``.jhist`` gives it; ``cores`` are the cores the containers shared, ``busy`` the cores
    one container keeps busy alone (``ClusterSpec.container_cores``)."""
    cores = cores / min(busy, cores)
    steps = _running_steps(history)
    out = {}
    for a in history.attempts:
        span = a.finish_ms - a.start_ms
        if span <= 0:
            out[a.attempt_id] = 1.0
            continue
        acc = 0.0
        for (t0, k), (t1, _) in zip(steps, steps[1:] + [(a.finish_ms, 0)], strict=True):
            lo, hi = max(t0, a.start_ms), min(t1, a.finish_ms)
            if hi > lo:
                acc += (hi - lo) * max(1.0, k / cores)
        out[a.attempt_id] = max(1.0, acc / span)
    return out


def without_contention(history: JobHistory, cores: float, busy: float = 1.0) -> JobHistory:
    """The history as its attempts would have run with a core each: every phase boundary of
    an attempt moved toward its start by the attempt's stretch (:func:`attempt_stretch`).

    A profile fitted on these times holds uncontended costs; the job model stretches them
    again for the containers a configuration runs at once (``ClusterSpec.cpu_stretch``), so
    a run with fewer concurrent containers (bigger containers, fewer splits or reduces) is
    predicted faster, as measured."""
    stretch = attempt_stretch(history, cores, busy)

    def shrink(a: AttemptRecord) -> AttemptRecord:
        s = stretch.get(a.attempt_id, 1.0)

        def at(t: int | None) -> int | None:
            return None if t is None else a.start_ms + int(round((t - a.start_ms) / s))

        return replace(
            a,
            finish_ms=at(a.finish_ms) or a.start_ms,
            map_finish_ms=at(a.map_finish_ms),
            shuffle_finish_ms=at(a.shuffle_finish_ms),
            sort_finish_ms=at(a.sort_finish_ms),
        )

    return replace(history, attempts=[shrink(a) for a in history.attempts])


def without_reduce_fixed(history: JobHistory, fixed_ms: float) -> JobHistory:
    """The history with ``fixed_ms`` of each reduce attempt's reduce phase (sort finish →
    finish) taken out: the wall time ``ClusterSpec.reduce_fixed_ms`` books apart (HDFS
    output create/close, the task commit), so the profile's per-record reduce and write costs
    hold only what scales with the records. At most the phase itself is taken (a reduce
    whose phase is shorter kept no per-record time to price)."""
    if fixed_ms <= 0:
        return history

    def trim(a: AttemptRecord) -> AttemptRecord:
        if not str(a.kind).upper().endswith("REDUCE") or a.sort_finish_ms is None:
            return a
        cut = int(round(min(fixed_ms, max(a.finish_ms - a.sort_finish_ms, 0))))
        return replace(a, finish_ms=a.finish_ms - cut)

    return replace(history, attempts=[trim(a) for a in history.attempts])


#: The prior of ``ClusterSpec.reduce_fixed_ms`` (the earlier YARN studies' term,
#: ``benchmarks/yarn_rank_study.py``) where one history cannot separate it (ms): the same
#: ``canCommit`` poll as the profile's ``commit_ms`` prior. ``Task.commit``
#: (org.apache.hadoop.mapred.Task) sends ``commitPending`` and then polls
#: ``umbilical.canCommit`` with ``Thread.sleep(1000)`` between polls until the AM grants the
#: commit; the grant goes through the AM's asynchronous dispatcher (TA_COMMIT_PENDING), so the
#: first poll, made at once, usually loses the race and the reduce waits one full interval.
#: Add DFSOutputStream's create/close and FileOutputCommitter's rename (tens of ms on a
#: mini-cluster). Maps of a job with reduces commit nothing, so only reduces pay it.
REDUCE_COMMIT_POLL_MS = YARN_COST_PRIORS["commit_ms"]
#: Reduces needed, and the spread of their input records (largest ÷ smallest), before the
#: intercept of their reduce phases against their records is taken as measured: equal
#: partitions (hash partitioning of many keys) leave the intercept an extrapolation.
FIXED_FIT_MIN_REDUCES = 3
FIXED_FIT_MIN_SPREAD = 1.5


def _reduce_phases(history: JobHistory, cores: float, busy: float) -> list[tuple[float, float]]:
    """(records, reduce-phase ms) per successful reduce attempt: sort finish → finish, its
    per-record part taken as CPU and so divided by the attempt's contention stretch."""
    stretch = attempt_stretch(history, cores, busy)
    out = []
    for a in history.attempts:
        if not str(a.kind).upper().endswith("REDUCE") or a.sort_finish_ms is None:
            continue
        phase = float(a.finish_ms - a.sort_finish_ms)
        recs = float((a.counters or {}).get("REDUCE_INPUT_RECORDS") or 0.0)
        if phase >= 0:
            out.append((recs * stretch.get(a.attempt_id, 1.0), phase))
    return out


def reduce_fixed_from_history(
    history: JobHistory, cores: float, busy: float = 1.0
) -> tuple[float, str]:
    """``ClusterSpec.reduce_fixed_ms`` from ONE history, and its provenance.

    Measured when the history can separate it: the intercept of the reduces' reduce phases
    (sort finish → finish, ``ReduceAttemptFinishedEvent``) against their input records
    (stretched by the contention each attempt ran under, :func:`attempt_stretch`), given
    :data:`FIXED_FIT_MIN_REDUCES` reduces whose records differ by at least
    :data:`FIXED_FIT_MIN_SPREAD` times, a slope ≥ 0 and an intercept inside every phase.
    Else the prior :data:`REDUCE_COMMIT_POLL_MS` (one ``canCommit`` poll), never more than
    the history's shortest reduce phase: the fixed part cannot exceed the phase that holds
    it. 0 without reduces."""
    pts = _reduce_phases(history, cores, busy)
    if not pts:
        return 0.0, "defaulted: the history has no reduce with its sort finish time"
    shortest = min(y for _, y in pts)
    xs = np.array([x for x, _ in pts])
    ys = np.array([y for _, y in pts])
    if len(pts) >= FIXED_FIT_MIN_REDUCES and xs.min() > 0:
        if xs.max() / xs.min() >= FIXED_FIT_MIN_SPREAD:
            slope, icpt = np.polyfit(xs, ys, 1)
            if slope >= 0 and 0 <= icpt <= shortest:
                return float(icpt), (
                    f"measured: intercept of {len(pts)} reduces' reduce phases against "
                    f"their input records (records {xs.min():.0f}-{xs.max():.0f})"
                )
    value = min(REDUCE_COMMIT_POLL_MS, shortest)
    why = (
        f"{len(pts)} reduce(s) with input records within {FIXED_FIT_MIN_SPREAD:g}x of each "
        "other do not separate it"
        if len(pts) > 1
        else "one reduce does not separate it from its per-record time"
    )
    capped = value < REDUCE_COMMIT_POLL_MS
    cap = f", capped at the shortest reduce phase {shortest:.0f} ms" if capped else ""
    return float(value), (
        f"prior: Task.commit's canCommit poll ({REDUCE_COMMIT_POLL_MS:.0f} ms){cap}; {why}"
    )


def reduce_ramp_ms(history: JobHistory, slowstart: float) -> float | None:
    """Median delay from the moment a reduce could have a container to its launch.

    ``RMContainerAllocator`` ramps reduces up once ``ceil(slowstart × maps)`` maps are done;
    the request goes out at the AM's next heartbeat
    (``yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms``), the scheduler allocates it at
    a NodeManager heartbeat, the AM takes it at the following one and launches the container.
    A reduce could start at the later of that slow-start instant and the first instant a
    container was free (fewer attempts running than the history's peak). None without
    reduces or maps."""
    maps = sorted(a.finish_ms for a in history.attempts if str(a.kind).upper().endswith("MAP"))
    reds = [a for a in history.attempts if str(a.kind).upper().endswith("REDUCE")]
    if not maps or not reds:
        return None
    k = max(1, math.ceil(slowstart * len(maps)))
    t_slow = maps[min(k, len(maps)) - 1]
    steps = _running_steps(history)
    peak = max(n for _, n in steps)
    at_slow = next((n for t, n in reversed(steps) if t <= t_slow), 0)
    free = (
        t_slow
        if at_slow < peak
        else next((t for t, n in steps if t > t_slow and n < peak), t_slow)
    )
    gaps = [a.start_ms - free for a in reds if a.start_ms >= free]
    return float(statistics.median(gaps)) if gaps else None


def container_cores(history: JobHistory, starts: dict[str, float], cores: float) -> float | None:
    """Cores one container keeps busy alone (``ClusterSpec.container_cores``), from the
    calibration run's own container starts (:mod:`mrtune.harness.container_start`).

    A map's and a reduce's container start are the same work (NodeManager launch, JVM start,
    ``YarnChild`` set-up), done beside different numbers of other containers: their ratio is
    the stretch of the map wave over the reduces' (:meth:`ClusterSpec.cpu_stretch`), so with
    ``k`` maps at once and the reduces unstretched ``busy = ratio × cores / k``, within
    ``[1, cores]``. None without both kinds' starts, or when the reduces ran as crowded as
    the maps (nothing to compare). A user's history has no container logs: the prior 1
    stands there."""
    need = ("map_jvm_ms", "map_init_ms", "reduce_jvm_ms", "reduce_init_ms")
    if any(starts.get(k) is None for k in need):
        return None
    red = starts["reduce_jvm_ms"] + starts["reduce_init_ms"]
    if red <= 0:
        return None
    ratio = (starts["map_jvm_ms"] + starts["map_init_ms"]) / red
    k_map = _peak(history, "MAP")
    k_red = _peak(history, "REDUCE")
    if k_map <= k_red or ratio <= 1.0:
        return None
    busy = min(max(ratio * cores / k_map, 1.0), cores)
    if k_red * busy > cores:
        return None  # the reduces were crowded too: the ratio is k_map / k_red at any busy
    return float(busy)


def _peak(history: JobHistory, kind: str) -> int:
    events = sorted(
        [(a.start_ms, 1) for a in history.attempts if str(a.kind).upper().endswith(kind)]
        + [(a.finish_ms, -1) for a in history.attempts if str(a.kind).upper().endswith(kind)]
    )
    running = peak = 0
    for _, d in events:
        running += d
        peak = max(peak, running)
    return peak
