"""A common in-memory form of one job's history, whatever file or server it came from.

Every reader (``.jhist``, JobHistory REST, Rumen) fills a :class:`JobHistory`; profile building
(:mod:`mrtune.profiling.build`) reads only this. It keeps what the cost model can use:

* job facts (id, name, final state, declared maps and reduces, submit/launch/finish times);
* **successful** attempts with their start and finish times, the phase boundaries Hadoop records
  (``mapFinishTime``; ``shuffleFinishTime`` and ``sortFinishTime``, the JobHistory server's
  ``mergeFinishTime``) and their counters;
* job-level counters (totals, and the map and reduce sides when the source has them);
* how many attempts failed or were killed (excluded from the profile, as Starfish's profiler
  only uses successful attempts), and how many duplicated attempt events were dropped.

Duplicates: a history can record the same execution twice (the Sleep job in Hadoop's own test
resources has two ``REDUCE_ATTEMPT_FINISHED`` events, for two task ids, in one container with the
same start time, for a job that declares one reduce). A YARN container runs exactly one task
attempt (unless the job is *uberized*, when every task runs inside the AM's container), so two
successful attempts of one kind in one container that start at the same millisecond are one
execution: the first added is kept and the rest counted in :attr:`JobHistory.duplicates_dropped`.
Repeated events for the same attempt id are merged the same way, unless their counters
disagree: Hadoop writes one ``*_ATTEMPT_FINISHED`` per attempt (``TaskAttemptImpl`` logs it once,
with the attempt's final ``Counters``), so two different counter sets for one attempt are a
contradiction, and the attempt is marked (:attr:`AttemptRecord.conflict`) for the task screen
(:mod:`mrtune.profiling.task_checks`) to exclude and count.

Times and counters are judged apart: an attempt whose times are unusable (no start event, a
time that is not a long, a finish before its start) still ran and its output was shuffled, so
its counters count in the dataflow; it is only left out of what is fitted to task times
(:attr:`AttemptRecord.untimed`, :meth:`JobHistory.timed`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from mrtune.errors import InputError
from mrtune.readers.safe_io import to_long

TaskKind = Literal["map", "reduce"]

#: Hadoop 1 counter display names (Rumen, old REST) → the Hadoop 2/3 enum names used here.
COUNTER_ALIASES: dict[str, str] = {
    "Map input records": "MAP_INPUT_RECORDS",
    "Map output records": "MAP_OUTPUT_RECORDS",
    "Map output bytes": "MAP_OUTPUT_BYTES",
    "Map input bytes": "MAP_INPUT_BYTES",
    "Map output materialized bytes": "MAP_OUTPUT_MATERIALIZED_BYTES",
    "Combine input records": "COMBINE_INPUT_RECORDS",
    "Combine output records": "COMBINE_OUTPUT_RECORDS",
    "Reduce input records": "REDUCE_INPUT_RECORDS",
    "Reduce input groups": "REDUCE_INPUT_GROUPS",
    "Reduce output records": "REDUCE_OUTPUT_RECORDS",
    "Reduce shuffle bytes": "REDUCE_SHUFFLE_BYTES",
    "Spilled Records": "SPILLED_RECORDS",
}

#: FileInputFormat / FileOutputFormat counter groups: their ``BYTES_READ``/``BYTES_WRITTEN``
#: are kept under these names so they do not clash with other groups' counters.
_GROUP_PREFIXED = {
    "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter": "INPUT_FORMAT_",
    "org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter": "OUTPUT_FORMAT_",
    "org.apache.hadoop.mapred.FileInputFormat$Counter": "INPUT_FORMAT_",
    "org.apache.hadoop.mapred.FileOutputFormat$Counter": "OUTPUT_FORMAT_",
    "FileInputFormatCounters": "INPUT_FORMAT_",
    "FileOutputFormatCounters": "OUTPUT_FORMAT_",
}


#: Counter-name prefixes (and extra names) that belong to one side only.
_SIDE_PREFIXES = {"map": ("MAP_", "INPUT_FORMAT_"), "reduce": ("REDUCE_", "OUTPUT_FORMAT_")}
_SIDE_EXTRA = {
    "map": {"SPLIT_RAW_BYTES", "HDFS_BYTES_READ"},
    "reduce": {"SHUFFLED_MAPS", "MERGED_MAP_OUTPUTS", "FAILED_SHUFFLE", "HDFS_BYTES_WRITTEN"},
}


def counter_key(group: str | None, name: str) -> str:
    """The flat key one counter is stored under (``BYTES_READ`` of FileInputFormat → ``INPUT_FORMAT_BYTES_READ``)."""
    name = COUNTER_ALIASES.get(name, name)
    prefix = _GROUP_PREFIXED.get(group or "", "")
    return prefix + name


def flatten_counter_groups(
    groups: Iterable[Mapping[str, object]],
    *,
    group_key: str = "name",
    counts_key: str = "counts",
    value_key: str = "value",
    source: str | None = None,
    owner: str = "",
) -> dict[str, float]:
    """``[{name, counts: [{name, value}]}]`` (the ``.jhist`` and REST shapes) → ``{KEY: value}``.

    Hadoop counters are Java longs (Avro ``JhCounter.value: long``; ``Counters.incrCounter``):
    a value that is null, a boolean, text, a fraction, NaN or beyond ±2^63 is a damaged
    history. It is refused in one line naming ``source``, ``owner`` (the attempt or the job's
    counter set), the counter and the value, rather than dropped: a dropped counter silently
    became a default selectivity. (Negative longs pass: the profile's task screen excludes
    such an attempt and says so.)
    """
    out: dict[str, float] = {}
    for g in groups if isinstance(groups, list) else ():
        if not isinstance(g, Mapping):
            continue
        gname = g.get(group_key)
        counts = g.get(counts_key)
        for c in counts if isinstance(counts, list) else ():
            if not isinstance(c, Mapping) or "name" not in c:
                continue
            v = c.get(value_key)
            key = counter_key(str(gname) if gname is not None else None, str(c["name"]))
            if not is_counter_value(v):
                raise InputError(
                    f"counter {key} of {owner or 'the job'} is not a Java long",
                    path=source,
                    value=v,
                    allowed=COUNTER_ALLOWED,
                )
            out[key] = float(v)  # type: ignore[arg-type]
    return out


#: What a counter may hold, for error lines.
COUNTER_ALLOWED = "a whole number within a Java long (Hadoop counters are longs)"


def is_counter_value(v: object) -> bool:
    """Whether ``v`` (a decoded JSON/Avro value) is a long, as every Hadoop counter is."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return False
    if isinstance(v, float) and not (math.isfinite(v) and v.is_integer()):
        return False
    return to_long(v) is not None


@dataclass
class AttemptRecord:
    """One successful task attempt (times in ms since the epoch, as Hadoop records them)."""

    attempt_id: str
    task_id: str
    kind: TaskKind
    start_ms: int
    finish_ms: int
    map_finish_ms: int | None = None
    shuffle_finish_ms: int | None = None
    sort_finish_ms: int | None = None
    counters: dict[str, float] = field(default_factory=dict)
    container_id: str | None = None
    host: str | None = None
    rack: str | None = None
    #: why the times cannot be used (no start event, a time that is not a long; the task
    #: screen adds finish-before-start and phases out of order): counters kept, not timed
    untimed: str | None = None
    #: why the attempt contradicts itself across events (two finish events whose counters
    #: differ): the task screen excludes it and counts it
    conflict: str | None = None

    @property
    def elapsed_ms(self) -> int:
        return self.finish_ms - self.start_ms

    def phases_ms(self) -> dict[str, float]:
        """Observed phase times: map = start→mapFinishTime (``map``) →finish (``sort``);
        reduce = start→shuffleFinishTime (``shuffle``) →sortFinishTime (``merge``) →finish
        (``reduce``). A boundary that is missing or out of order leaves only ``total``."""
        out: dict[str, float] = {"total": float(self.elapsed_ms)}
        s, f = self.start_ms, self.finish_ms
        if self.kind == "map":
            m = self.map_finish_ms
            if m is not None and s <= m <= f:
                out["map"] = float(m - s)
                out["sort"] = float(f - m)
        else:
            sh, so = self.shuffle_finish_ms, self.sort_finish_ms
            if sh is not None and so is not None and s <= sh <= so <= f:
                out["shuffle"] = float(sh - s)
                out["merge"] = float(so - sh)
                out["reduce"] = float(f - so)
        return out


@dataclass
class JobHistory:
    """What one job's history tells, in one shape for every source format."""

    source: str
    source_format: str
    job_id: str = "job"
    job_name: str = ""
    status: str = "UNKNOWN"
    submit_ms: int | None = None
    launch_ms: int | None = None
    finish_ms: int | None = None
    total_maps: int | None = None
    total_reduces: int | None = None
    uberized: bool = False
    hadoop_version: int | None = None
    diagnostics: str = ""
    #: job-level counters: ``total`` always when known, ``map``/``reduce`` when the source splits
    total_counters: dict[str, float] = field(default_factory=dict)
    map_counters: dict[str, float] = field(default_factory=dict)
    reduce_counters: dict[str, float] = field(default_factory=dict)
    attempts: list[AttemptRecord] = field(default_factory=list)
    failed_attempts: int = 0
    killed_attempts: int = 0
    failed_tasks: int = 0
    duplicates_dropped: int = 0
    complete: bool = True
    properties: dict[str, str] = field(default_factory=dict)
    facts: dict[str, float | str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    _by_id: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    _by_slot: dict[tuple[str | None, str, int], str] = field(
        default_factory=dict, repr=False, compare=False
    )
    _by_task: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ attempts
    def add_attempt(self, attempt: AttemptRecord) -> bool:
        """Add a successful attempt unless it repeats one already recorded (see module doc)."""
        if len(self._by_id) != len(self.attempts):  # attempts was edited directly: re-index
            self._by_id = {a.attempt_id: i for i, a in enumerate(self.attempts)}
            self._by_slot = {
                (a.container_id, a.kind, a.start_ms): a.attempt_id
                for a in self.attempts
                if a.container_id and a.untimed is None and a.start_ms > 0
            }
            self._by_task = {a.task_id: i for i, a in enumerate(self.attempts) if a.task_id}
        i = self._by_id.get(attempt.attempt_id)
        if i is not None:
            self._merge(i, attempt)
            return False
        j = self._by_task.get(attempt.task_id) if attempt.task_id else None
        if j is not None:
            self._second_success(j, attempt)
            return False
        slot = (attempt.container_id, attempt.kind, attempt.start_ms)
        timed = attempt.untimed is None and attempt.start_ms > 0
        if not self.uberized and attempt.container_id and timed and slot in self._by_slot:
            self.duplicates_dropped += 1
            self.warnings.append(
                f"{attempt.attempt_id} ran in the same container ({attempt.container_id}) at the "
                f"same time as {self._by_slot[slot]}: counted once (duplicated attempt event)"
            )
            return False
        self._by_id[attempt.attempt_id] = len(self.attempts)
        if attempt.task_id:
            self._by_task[attempt.task_id] = len(self.attempts)
        if attempt.container_id and timed:
            self._by_slot[slot] = attempt.attempt_id
        self.attempts.append(attempt)
        return True

    def _merge(self, i: int, attempt: AttemptRecord) -> None:
        """The same attempt reported twice: keep what the later event adds; counters that
        disagree make the attempt a contradiction (module doc), not a duplicate."""
        old = self.attempts[i]
        differ = sorted(
            k
            for k in set(old.counters) | set(attempt.counters)
            if old.counters.get(k) != attempt.counters.get(k)
        )
        conflict = old.conflict
        if old.counters and attempt.counters and differ:
            # said once, by the task screen's count of excluded attempts (not a duplicate)
            k = differ[0]
            conflict = conflict or (
                f"finish reported twice with different counters ({len(differ)} differ: {k} "
                f"{_count(old.counters.get(k))} vs {_count(attempt.counters.get(k))})"
            )
        else:
            self.warnings.append(f"{attempt.attempt_id} reported twice: counted once")
            self.duplicates_dropped += 1
        self.attempts[i] = AttemptRecord(
            attempt_id=old.attempt_id,
            task_id=old.task_id,
            kind=old.kind,
            start_ms=old.start_ms or attempt.start_ms,
            finish_ms=max(old.finish_ms, attempt.finish_ms),
            map_finish_ms=old.map_finish_ms or attempt.map_finish_ms,
            shuffle_finish_ms=old.shuffle_finish_ms or attempt.shuffle_finish_ms,
            sort_finish_ms=old.sort_finish_ms or attempt.sort_finish_ms,
            counters=old.counters or attempt.counters,
            container_id=old.container_id or attempt.container_id,
            host=old.host or attempt.host,
            rack=old.rack or attempt.rack,
            untimed=old.untimed or attempt.untimed,
            conflict=conflict,
        )

    def _second_success(self, j: int, attempt: AttemptRecord) -> None:
        """A second successful attempt of a task already recorded: Hadoop commits one attempt
        a task (``TaskImpl`` keeps one ``successfulAttempt``; ``canCommit`` refuses the rest,
        which are killed), so this is the same execution logged twice (counted once), or,
        when the counters differ, a contradiction the task screen excludes."""
        old = self.attempts[j]
        differ = sorted(
            k
            for k in set(old.counters) | set(attempt.counters)
            if old.counters.get(k) != attempt.counters.get(k)
        )
        if old.counters and attempt.counters and differ:
            k = differ[0]
            self.attempts[j] = replace(
                old,
                conflict=old.conflict
                or (
                    f"a second successful attempt of its task ({attempt.attempt_id}) with "
                    f"different counters ({k} {_count(old.counters.get(k))} vs "
                    f"{_count(attempt.counters.get(k))})"
                ),
            )
            return
        self.duplicates_dropped += 1
        self.warnings.append(
            f"{attempt.attempt_id} is a second successful attempt of {attempt.task_id} "
            f"(Hadoop commits one attempt a task): counted once ({old.attempt_id} kept)"
        )

    def successful(self, kind: TaskKind) -> list[AttemptRecord]:
        """Every successful attempt of one kind (what ran: the dataflow counts all of them)."""
        return [a for a in self.attempts if a.kind == kind]

    def timed(self, kind: TaskKind | None = None) -> list[AttemptRecord]:
        """The successful attempts whose times can be used (not :attr:`AttemptRecord.untimed`):
        what task timings, peaks and the cost fit are taken from."""
        return [a for a in self.attempts if a.untimed is None and kind in (None, a.kind)]

    @property
    def num_maps(self) -> int:
        n = len(self.successful("map"))
        return n if n else int(self.total_maps or 0)

    @property
    def num_reduces(self) -> int:
        n = len(self.successful("reduce"))
        return n if n else int(self.total_reduces or 0)

    def side_counters(self, kind: TaskKind) -> dict[str, float]:
        """Job counters of one side: the source's own split, else the sum over its attempts;
        counters that belong to one side by name (``MAP_*``, ``REDUCE_*``…) are taken from the
        job totals when the side lacks them (a REST server may not split counters by side)."""
        own = self.map_counters if kind == "map" else self.reduce_counters
        out = dict(own) if own else sum_counters(a.counters for a in self.successful(kind))
        totals = self.total_counters
        if kind == "map" and (self.total_reduces == 0 and not self.successful("reduce")):
            side_keys = set(totals)  # a map-only job: every counter is the maps'
        else:
            side_keys = {k for k in totals if k.startswith(_SIDE_PREFIXES[kind])}
            side_keys |= _SIDE_EXTRA[kind] & set(totals)
        for k in side_keys:
            out.setdefault(k, totals[k])
        return out

    def job_counters(self) -> dict[str, float]:
        """Job totals: the source's, else map side + reduce side."""
        if self.total_counters:
            return dict(self.total_counters)
        out = self.side_counters("map")
        for k, v in self.side_counters("reduce").items():
            out[k] = out.get(k, 0.0) + v
        return out


def sum_counters(counter_dicts: Iterable[Mapping[str, float]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for d in counter_dicts:
        for k, v in d.items():
            out[k] = out.get(k, 0.0) + float(v)
    return out


def _count(v: float | None) -> str:
    """A counter value for a warning (``none`` when the event did not record it)."""
    return "none" if v is None else f"{v:.0f}"
