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
execution: the first is kept and the rest counted in :attr:`JobHistory.duplicates_dropped`.
Repeated events for the same attempt id are merged the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
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

    # ------------------------------------------------------------------ attempts
    def add_attempt(self, attempt: AttemptRecord) -> bool:
        """Add a successful attempt unless it repeats one already recorded (see module doc)."""
        if len(self._by_id) != len(self.attempts):  # attempts was edited directly: re-index
            self._by_id = {a.attempt_id: i for i, a in enumerate(self.attempts)}
            self._by_slot = {
                (a.container_id, a.kind, a.start_ms): a.attempt_id
                for a in self.attempts
                if a.container_id
            }
        i = self._by_id.get(attempt.attempt_id)
        if i is not None:
            # the same attempt reported twice: keep what the later event adds
            old = self.attempts[i]
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
            )
            self.duplicates_dropped += 1
            self.warnings.append(f"{attempt.attempt_id} reported twice: counted once")
            return False
        slot = (attempt.container_id, attempt.kind, attempt.start_ms)
        if not self.uberized and attempt.container_id and slot in self._by_slot:
            self.duplicates_dropped += 1
            self.warnings.append(
                f"{attempt.attempt_id} ran in the same container ({attempt.container_id}) at the "
                f"same time as {self._by_slot[slot]}: counted once (duplicated attempt event)"
            )
            return False
        self._by_id[attempt.attempt_id] = len(self.attempts)
        if attempt.container_id:
            self._by_slot[slot] = attempt.attempt_id
        self.attempts.append(attempt)
        return True

    def successful(self, kind: TaskKind) -> list[AttemptRecord]:
        return [a for a in self.attempts if a.kind == kind]

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
