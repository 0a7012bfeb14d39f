"""The JSON record of one real local-mode Hadoop run: what other packages read.

One :class:`RunRecord` per run (one line of a ``.jsonl`` file, or one ``.json``). The profiler
builds local-mode profiles from it (issue 5, Deliver 2), the fidelity report compares the cost
model with it (Deliver 3), and ``mrtune fit`` derives Ceesay-style phase-time rows from it
(issue 8). The schema is versioned by :data:`SCHEMA_VERSION`; fields are only ever added.

Conventions:

* Times are epoch milliseconds (``*_ms`` fields that are instants) taken from the run log's
  timestamps (log4j2 ``%d{UNIX_MILLIS}``), or durations in milliseconds (``*_time_ms`` /
  ``duration_ms``). An instant is ``None`` when the log lacks the line (e.g. no spill).
* Byte sizes are bytes; ``records`` are key/value pairs.
* Counter names are Hadoop's internal names (``SPILLED_RECORDS``, ``FILE_BYTES_READ``) under
  Hadoop's group names (``org.apache.hadoop.mapreduce.TaskCounter``, …), as in a ``.jhist``.

Local-mode caveats recorded here rather than hidden (``shared/spec/real-hadoop.md``):
``FILE_BYTES_READ/WRITTEN`` (job totals and per attempt) are JVM-wide cumulative statistics,
so :attr:`TaskAttemptBase.file_bytes_read_delta` gives each attempt's own share when tasks
ran one at a time; CPU, memory and GC counters are whole-process figures.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from mrtune.errors import InputError

SCHEMA_VERSION = 1

TASK_COUNTER_GROUP = "org.apache.hadoop.mapreduce.TaskCounter"
FS_COUNTER_GROUP = "org.apache.hadoop.mapreduce.FileSystemCounter"

Counters = dict[str, dict[str, int]]
"""Counter group name → counter name → value."""

#: The project's own jobs (``mrtune/harness/java``); any other name is a user's job recorded by
#: ``mrtune hadoop-run --jar`` (issue 21), which the profile and validate paths treat alike.
PROJECT_JOBS: tuple[str, ...] = ("wordcount", "sort", "selectivity", "postings")

Ms = Annotated[int, Field(ge=0)]
"""An instant (epoch ms) or a duration (ms): never negative. A negative job time had been
accepted and printed (``validate``: a job of -5.0 s; ``profile``: a job overhead of -13 s)."""
MsFloat = Annotated[float, Field(ge=0, le=(1 << 63) - 1, allow_inf_nan=False)]
"""A duration in ms measured by Python (wall and CPU time): finite, never negative, and within
a Java ``long`` of ms like the instants Hadoop logs."""
Bytes = Annotated[int, Field(ge=0)]
"""A split's start or length: ``FileSplit`` holds them as non-negative longs."""

JobName = Annotated[str, StringConstraints(pattern=r"^[\w.\-]{1,100}(#[1-9]\d{0,3})?$")]
"""A job's name: a project job, or the label-like name of a user's job (letters, digits, '.',
'_', '-'), as ``hadoop-run --label`` allows; ``#k`` names the k-th job of a driver that ran
several (:func:`mrtune.harness.any_record.build_any_records`)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


def find_counter(counters: Counters, name: str, group: str | None = None) -> int | None:
    """Value of counter ``name`` (in ``group`` if given, else in the first group having it)."""
    if group is not None:
        return counters.get(group, {}).get(name)
    for values in counters.values():
        if name in values:
            return values[name]
    return None


TimePair = tuple[str, int | None, str, int | None]
"""``(earlier name, its instant, later name, its instant)``: two log instants in Hadoop's order."""


def _chain(*named: tuple[str, int | None]) -> Iterator[TimePair]:
    """Consecutive pairs of the instants present, for instants logged in this order."""
    present = [(n, v) for n, v in named if v is not None]
    for (first, a), (then, b) in zip(present, present[1:], strict=False):
        yield first, a, then, b


def _order_error(who: str, pair: TimePair) -> PydanticCustomError:
    first, a, then, b = pair
    why = " (a start after its end)" if (first, then) == ("start_ms", "done_ms") else ""
    return PydanticCustomError(
        "time_order",
        "{detail}",
        {
            "detail": f"{who}: {first} {a} is after {then} {b}{why}",
            "allowed": f"{first} <= {then}",
        },
    )


# ----------------------------------------------------------------------------------- map side


class SortBufferInfo(_Model):
    """The map-side sort buffer as ``MapTask.MapOutputBuffer.init`` logged it."""

    io_sort_mb: int | None = None
    """``mapreduce.task.io.sort.mb`` as the task read it ("mapreduce.task.io.sort.mb: N")."""
    buffer_bytes: int | None = None
    """kvbuffer length: io.sort.mb·2^20 rounded down to a multiple of 16 (initial bufvoid)."""
    soft_limit_bytes: int | None = None
    """Spill threshold: (int)(buffer_bytes × spill percent) ("soft limit at N")."""
    max_records: int | None = None
    """Metadata capacity in records: buffer_bytes / 16 ("kvstart = …; length = N")."""


class SpillEvent(_Model):
    """One spill of the map output buffer (``MapTask.sortAndSpill``)."""

    index: int
    """Spill number N of "Finished spill N" (0-based, in order)."""
    start_ms: Ms | None = None
    """When "Spilling map output" was logged (collection reached the soft limit, or flush)."""
    end_ms: Ms | None = None
    """When "Finished spill N" was logged (sorted and written)."""
    records: int | None = None
    """Records in the spill: ((kvstart − kvend) mod capacity) / 4 + 1 from the
    "kvstart = …; kvend = …" line (metadata indices are ints, 4 per record)."""
    bytes: int | None = None
    """Serialized key+value bytes in the spill (before IFile framing or compression):
    bufend − bufstart, or (bufvoid − bufstart) + bufend when the data wraps."""
    final: bool = False
    """True for the spill done by the map thread during "Starting flush of map output"."""
    thread: str | None = None
    """Thread that finished the spill ("SpillThread" or the map executor thread)."""
    bufstart: int | None = None
    bufend: int | None = None
    bufvoid: int | None = None
    kvstart: int | None = None
    kvend: int | None = None

    @property
    def duration_ms(self) -> int | None:
        if self.start_ms is None or self.end_ms is None:
            return None
        return self.end_ms - self.start_ms


class IntermediatePass(_Model):
    """ "Merging k intermediate segments out of a total of n": one pass that writes a file."""

    ts_ms: Ms
    segments: int
    """k: segments merged by this pass."""
    total_segments: int
    """n: segments left (originals plus earlier pass outputs) when the pass started."""


class MergeCall(_Model):
    """One call of ``org.apache.hadoop.mapred.Merger`` that logged "Merging N sorted segments".

    On the map side there is one call per reduce partition (``MapTask.mergeParts``); none at
    all when the map spilled once (the spill file is renamed). On the reduce side, calls are
    made by the in-memory merger, the on-disk merger and the final merge.
    """

    start_ms: Ms
    segments: int
    """N of "Merging N sorted segments" (non-empty segments handed to the merge)."""
    intermediate_passes: list[IntermediatePass] = Field(default_factory=list)
    last_pass_ms: Ms | None = None
    """When "Down to the last merge-pass" was logged (the final pass starts streaming)."""
    last_pass_segments: int | None = None
    """Segments left for the final pass."""
    last_pass_bytes: int | None = None
    """"of total size: N bytes" of the final pass (Merger's sum of segment lengths)."""
    thread: str | None = None


class TaskAttemptBase(_Model):
    """Fields shared by map and reduce attempts."""

    attempt_id: str
    task_index: int
    """The task number of the attempt id (``…_m_000003_0`` → 3)."""
    thread: str | None = None
    """Executor thread that ran the task."""
    start_ms: Ms | None = None
    """"LocalJobRunner: Starting task: <attempt>"."""
    commit_ms: Ms | None = None
    """"Task:<attempt> is done. And is in the process of committing" (task body finished)."""
    done_ms: Ms | None = None
    """"Task '<attempt>' done." (after the commit)."""
    counters: Counters = Field(default_factory=dict)
    """The attempt's "Final Counters for <attempt>" block, mapped to internal counter names.
    FILE_BYTES_* here are JVM-cumulative (see module docstring)."""
    file_bytes_read_delta: int | None = None
    """This attempt's own FILE_BYTES_READ: its cumulative value minus that of the attempt that
    finished just before it; valid when attempts ran one at a time (the local default)."""
    file_bytes_written_delta: int | None = None
    """As :attr:`file_bytes_read_delta`, for FILE_BYTES_WRITTEN."""
    concurrent: bool = False
    """True when another attempt of the same kind overlapped this one; log lines from helper
    threads (spill, fetch, merge) are then attributed to the most recently started attempt
    and may be misassigned."""

    @property
    def duration_ms(self) -> int | None:
        if self.start_ms is None or self.done_ms is None:
            return None
        return self.done_ms - self.start_ms

    def counter(self, name: str) -> int | None:
        return find_counter(self.counters, name)

    ORDER: ClassVar[tuple[str, ...]] = ("start_ms", "commit_ms", "done_ms")
    """The attempt's own instants in the order its task thread logs them (``Task.done`` logs
    "is in the process of committing" before ``LocalJobRunner``'s "Task … done.")."""

    def time_pairs(self) -> Iterator[TimePair]:
        """Every two instants the phase times subtract, earlier first."""
        yield "start_ms", self.start_ms, "done_ms", self.done_ms
        yield from _chain(*((n, getattr(self, n)) for n in self.ORDER))

    @model_validator(mode="after")
    def _times_in_order(self) -> TaskAttemptBase:
        """Refuse an attempt whose instants go backwards (a damaged or edited record).

        One thread logs them in order, so this never happens in a real log; its phase times
        (:mod:`mrtune.calibration.run_record`) would be negative, and the cost-factor fit had
        crashed on them ("Initial guess is outside of provided bounds"). The ``.jhist`` reader
        drops such attempts and counts them; a run record is one run's log, refused whole.
        """
        for first, a, then, b in self.time_pairs():
            if a is not None and b is not None and b < a:
                raise _order_error(f"attempt {self.attempt_id}", (first, a, then, b))
        return self


class MapAttemptEvents(TaskAttemptBase):
    """What one map attempt logged, in order.

    Phase boundaries: ``start_ms`` → (map function, collect, spills in the background) →
    ``flush_ms`` ("Starting flush of map output": map() returned; the final spill follows) →
    ``merge_start_ms`` (first Merger call, only when spills > 1) → ``commit_ms`` → ``done_ms``.
    """

    split_path: str | None = None
    """File of the split ("Processing split: <path>:<start>+<length>")."""
    split_start: Bytes | None = None
    split_length: Bytes | None = None
    split_parts: list[tuple[str, Bytes, Bytes]] | None = None
    """A CombineFileSplit's files ``(path, start, length)`` ("Processing split: Paths:…"):
    one map reads several files (``split_path`` None, ``split_length`` their sum)."""
    sort_buffer: SortBufferInfo = Field(default_factory=SortBufferInfo)
    spills: list[SpillEvent] = Field(default_factory=list)
    flush_ms: Ms | None = None
    """"Starting flush of map output": end of the map function's input (map-phase end)."""
    merges: list[MergeCall] = Field(default_factory=list)
    """Merger calls of ``mergeParts`` (one per partition; empty when only one spill)."""

    ORDER: ClassVar[tuple[str, ...]] = ("start_ms", "flush_ms", "commit_ms", "done_ms")
    """``MapTask.runNewMapper``: map() ends in ``output.close()``, whose flush logs "Starting
    flush of map output", before ``Task.done``."""

    def time_pairs(self) -> Iterator[TimePair]:
        """The attempt's own instants, then each spill's: "Spilling map output" and "Finished
        spill N" of ``MapOutputBuffer`` come after the task's start, in that order."""
        yield from super().time_pairs()
        for i, sp in enumerate(self.spills):
            at = f"spills[{i}]"
            yield from _chain(
                ("start_ms", self.start_ms),
                (f"{at}.start_ms", sp.start_ms),
                (f"{at}.end_ms", sp.end_ms),
            )

    @property
    def num_spills(self) -> int:
        return len(self.spills)

    @property
    def first_spill_ms(self) -> int | None:
        return self.spills[0].start_ms if self.spills else None

    @property
    def merge_start_ms(self) -> int | None:
        return self.merges[0].start_ms if self.merges else None

    @property
    def intermediate_merge_passes(self) -> int:
        """Intermediate passes summed over partitions (files written and re-read)."""
        return sum(len(m.intermediate_passes) for m in self.merges)


# -------------------------------------------------------------------------------- reduce side


class MergeManagerLimits(_Model):
    """The reduce-side ``MergeManagerImpl`` limits line ("MergerManager: memoryLimit=…")."""

    memory_limit: int
    """Shuffle buffer: heap × mapreduce.reduce.shuffle.input.buffer.percent."""
    max_single_shuffle_limit: int
    """Largest map output fetched to memory: memory_limit × shuffle.memory.limit.percent."""
    merge_threshold: int
    """In-memory merge trigger: memory_limit × mapreduce.reduce.shuffle.merge.percent."""
    io_sort_factor: int
    mem_to_mem_merge_outputs_threshold: int


class ShuffleFetch(_Model):
    """One map output copied by a fetcher ("… about to shuffle output of map … to MEMORY")."""

    ts_ms: Ms
    fetcher: str
    map_attempt_id: str
    destination: Literal["MEMORY", "DISK"]
    decompressed_bytes: int
    """"decomp: N": the raw (uncompressed) IFile size of the segment."""
    compressed_bytes: int
    """"len: N": bytes read from the map output file (what REDUCE_SHUFFLE_BYTES adds up)."""


class InMemoryMerge(_Model):
    """An in-memory merge to disk by the InMemoryMerger thread (merge threshold reached)."""

    start_ms: Ms
    segments: int
    end_ms: Ms | None = None
    output_bytes: int | None = None
    """Size of the file written ("Local file is … of size N")."""
    trigger_commit_memory: int | None = None
    """commitMemory of the "Starting inMemoryMerger's merge since commitMemory=…" line."""


class MemToMemMerge(_Model):
    """A memory-to-memory merge (only with mapreduce.reduce.merge.memtomem.enabled)."""

    start_ms: Ms
    segments: int
    total_bytes: int
    end_ms: Ms | None = None


class OnDiskMerge(_Model):
    """An on-disk merge by the OnDiskMerger thread (2·factor−1 files on disk)."""

    start_ms: Ms
    files: int
    end_ms: Ms | None = None
    input_bytes: int | None = None
    """"of total-size N" (file lengths plus checksum allowance)."""
    output_bytes: int | None = None


class FinalMerge(_Model):
    """``MergeManagerImpl.finalMerge``: what is evicted, kept and merged before reduce()."""

    ts_ms: Ms
    in_memory_outputs: int
    on_disk_outputs: int
    evicted_to_disk_segments: int | None = None
    """"Merged N segments, B bytes to disk to satisfy reduce memory limit"."""
    evicted_to_disk_bytes: int | None = None
    kept_in_memory_for_disk_merge_segments: int | None = None
    """"Keeping N segments, B bytes in memory for intermediate, on-disk merge"."""
    kept_in_memory_for_disk_merge_bytes: int | None = None
    disk_files: int | None = None
    """"Merging N files, B bytes from disk"."""
    disk_bytes: int | None = None
    memory_segments: int | None = None
    """"Merging N segments, B bytes from memory into reduce"."""
    memory_bytes: int | None = None
    merger_calls: list[MergeCall] = Field(default_factory=list)
    """Merger calls made by the reduce thread during the final merge."""


class ReduceAttemptEvents(TaskAttemptBase):
    """What one reduce attempt logged.

    Phase boundaries: ``start_ms`` → shuffle (fetches, in-memory and on-disk merges) →
    ``shuffle_end_ms`` ("finalMerge called with …") → final merge →
    ``merge_end_ms`` (status update when the sort phase ends and reduce() starts) →
    ``commit_ms`` (reduce() and output written) → ``done_ms``.
    """

    limits: MergeManagerLimits | None = None
    fetches: list[ShuffleFetch] = Field(default_factory=list)
    in_memory_merges: list[InMemoryMerge] = Field(default_factory=list)
    mem_to_mem_merges: list[MemToMemMerge] = Field(default_factory=list)
    on_disk_merges: list[OnDiskMerge] = Field(default_factory=list)
    final_merge: FinalMerge | None = None
    shuffle_end_ms: Ms | None = None
    merge_end_ms: Ms | None = None

    ORDER: ClassVar[tuple[str, ...]] = (
        "start_ms",
        "shuffle_end_ms",
        "merge_end_ms",
        "commit_ms",
        "done_ms",
    )
    """``ReduceTask.run``: the shuffle ends in ``MergeManagerImpl.finalMerge``, whose merge
    ends before reduce() runs, before ``Task.done``."""

    def time_pairs(self) -> Iterator[TimePair]:
        """The attempt's own instants, then the final merge's Merger calls (the merge's end
        when ``merge_end_ms`` is missing): after finalMerge is called, before the task ends."""
        yield from super().time_pairs()
        calls = self.final_merge.merger_calls if self.final_merge is not None else []
        for i, c in enumerate(calls):
            at = f"final_merge.merger_calls[{i}]"
            yield from _chain(
                ("shuffle_end_ms", self.shuffle_end_ms),
                (f"{at}.start_ms", c.start_ms),
                (f"{at}.last_pass_ms", c.last_pass_ms),
                ("done_ms", self.done_ms),
            )

    @property
    def fetches_to_memory(self) -> int:
        return sum(f.destination == "MEMORY" for f in self.fetches)

    @property
    def fetches_to_disk(self) -> int:
        return sum(f.destination == "DISK" for f in self.fetches)


# --------------------------------------------------------------------------------- the record


class InputDescription(_Model):
    """The generated input the job read."""

    kind: Literal["text", "records", "other"]
    path: str
    bytes: int
    seed: int | None = None
    records: int | None = None
    """100-byte records in the input (kind ``records``)."""
    words: int | None = None
    """Words in the input (kind ``text``)."""
    generator: dict[str, float | int | str] = Field(default_factory=dict)
    """Other generator parameters (Zipf exponent, vocabulary, words per line)."""


#: How :attr:`RunRecord.conf_source` starts when the configuration is the staged job.xml.
STAGED_JOB_XML = "job.xml staged by JobSubmitter"


class RunRecord(_Model):
    """One run of one job on real Hadoop (local mode)."""

    schema_version: int = SCHEMA_VERSION
    run_id: str
    """Unique id: ``<label or job>-r<repeat>-<start time>``."""
    label: str | None = None
    """Name of the matrix entry this run belongs to (repeats share it)."""
    repeat: int = 0
    """0-based repeat index within the label."""
    job: JobName
    """The job: one of :data:`PROJECT_JOBS`, or a user's job under its own name (``hadoop-run
    --jar``: the main class's simple name, lower-cased); runs of one job share it."""
    main_class: str | None = None
    """The job's main class, for a ``hadoop-run --jar`` run (None: a project job)."""
    jar: str | None = None
    """The job's jar, for a ``hadoop-run --jar`` run (None: a project job)."""
    conf_source: str | None = None
    """Where ``effective_conf`` comes from when the driver did not write it (``hadoop-run
    --jar``: the job.xml JobSubmitter staged, or Hadoop's defaults with the run's -D settings
    and what the log says). None: the project's driver wrote the resolved configuration."""
    settings: dict[str, str] = Field(default_factory=dict)
    """The ``-D`` settings asked for (Hadoop properties and the jobs' own ``mrtune.*`` keys:
    ``mrtune.wordcount.combiner``, ``mrtune.sort.partitioner``, ``mrtune.selectivity.percent``)."""
    harness_settings: dict[str, str] = Field(default_factory=dict)
    """``-D`` settings the harness added (per-run temp folders, 50 ms poll intervals)."""
    xmx_mb: int
    """JVM max heap (-Xmx) in MiB; the reduce memory limit derives from it."""
    hadoop_version: str | None = None
    input: InputDescription
    started_at_ms: Ms
    """When the JVM was launched (epoch ms)."""
    wall_time_ms: MsFloat
    """JVM launch to exit, measured by Python (includes JVM start-up, ~0.5 s)."""
    cpu_time_ms: MsFloat | None = None
    """User + system CPU time of the JVM process (all its threads), measured by Python."""
    nice: int | None = None
    """Scheduling niceness the JVM ran at (None: inherited). Matrix runs use a raised priority
    (negative niceness) because the host is shared with other work."""
    load_avg_1m: float | None = None
    """The host's 1-minute load average when the run started: other work on the machine
    (a 2-core host shared with other processes) slows runs; use it to spot disturbed runs."""
    job_time_ms: Ms | None = None
    """``waitForCompletion`` duration measured by the driver (submit → job complete)."""
    job_start_ms: Ms | None = None
    """Driver's submit instant (epoch ms)."""
    exit_code: int
    success: bool
    error: str | None = None
    """Last lines of stderr when the run failed."""
    job_id: str | None = None
    effective_conf: dict[str, str] = Field(default_factory=dict)
    """The job's configuration as Hadoop resolved it (written by the driver after the run),
    restricted to the properties that shape the dataflow and to every key in ``settings``."""
    fixed_by_job: list[str] = Field(default_factory=list)
    """Job-level properties the job's code set itself (the staged job.xml's
    ``<source>programmatically</source>``, :func:`mrtune.profiling.job_fixed.fixed_by_code`):
    a -D or site value of them is overridden (the examples' Sort ``-r 1``)."""
    counters: Counters = Field(default_factory=dict)
    """Job-total counters (``Job.getCounters()``). FILE_BYTES_* are JVM-cumulative sums here."""
    num_maps: int = 0
    num_reduces: int = 0
    map_attempts: list[MapAttemptEvents] = Field(default_factory=list)
    reduce_attempts: list[ReduceAttemptEvents] = Field(default_factory=list)

    def counter(self, name: str, group: str | None = None) -> int | None:
        """A job-total counter by internal name, e.g. ``record.counter("SPILLED_RECORDS")``."""
        return find_counter(self.counters, name, group)

    @property
    def map_spilled_records(self) -> int:
        """SPILLED_RECORDS summed over map attempts (the map side's share of the total)."""
        return sum(a.counter("SPILLED_RECORDS") or 0 for a in self.map_attempts)

    @property
    def reduce_spilled_records(self) -> int:
        return sum(a.counter("SPILLED_RECORDS") or 0 for a in self.reduce_attempts)

    @property
    def conf_from_staged_xml(self) -> bool:
        """Whether ``effective_conf`` is the job.xml JobSubmitter staged: what the job ran
        with, whatever the command line asked."""
        return (self.conf_source or "").startswith(STAGED_JOB_XML)

    def ran_with(self) -> dict[str, str]:
        """The properties the job ran with. A staged job.xml is the job's own record of its
        configuration and wins over the ``-D`` settings: a driver that builds a new
        ``Configuration`` in ``run()`` (the examples' WordMedian) drops them. Otherwise the
        settings complete the resolved configuration."""
        if self.conf_from_staged_xml:
            return dict(self.effective_conf)
        return {**self.effective_conf, **self.settings}

    def ignored_settings(self) -> dict[str, str | None]:
        """``-D`` settings the job did not run with (key → the staged job.xml's value, None
        when it has none), by the staged job.xml; empty without one."""
        if not self.conf_from_staged_xml:
            return {}
        conf = self.effective_conf
        return {
            k: conf.get(k)
            for k, v in self.settings.items()
            if (conf.get(k) or "").strip() != v.strip()
        }

    def input_file_sizes(self) -> dict[str, int]:
        """Each input file's size (:func:`split_file_sizes` of the map attempts)."""
        return split_file_sizes(self.map_attempts)

    def to_json(self) -> str:
        """One line of JSON (for ``.jsonl``)."""
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str) -> RunRecord:
        return cls.model_validate_json(text)


def split_file_sizes(maps: list[MapAttemptEvents]) -> dict[str, int]:
    """Each input file's size from the splits the maps read ("Processing split:
    path:start+length"): its farthest split end, since ``FileInputFormat.getSplits`` gives
    every byte of a file to exactly one split. Empty when no split was logged."""
    sizes: dict[str, int] = {}
    for a in maps:
        parts = a.split_parts or []
        if a.split_path is not None and a.split_length is not None:
            parts = [(a.split_path, int(a.split_start or 0), int(a.split_length))]
        for path, start, length in parts:
            sizes[path] = max(sizes.get(path, 0), start + length)
    return sizes


def write_jsonl(records: list[RunRecord], path: Path, append: bool = False) -> None:
    """Write records one per line."""
    with open(path, "a" if append else "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(rec.to_json() + "\n")


def read_jsonl(path: Path) -> list[RunRecord]:
    """Read a ``.jsonl`` of records, or a ``.json`` holding one record or a list of them.

    A record that does not validate is refused in one line (:func:`record_error`)."""
    from mrtune.readers import safe_io

    where = str(path)
    text = safe_io.read_text(path)
    stripped = text.lstrip()
    if stripped.startswith("["):
        items = safe_io.json_loads(text, where)
        return [_validated(d, where, f"record {i}") for i, d in enumerate(items)]
    if where.endswith(".json"):
        return [_validated(safe_io.json_loads(text, where), where, "")]
    return [
        _validated(safe_io.json_loads(line, where, where=f"line {no}"), where, f"line {no}")
        for no, line in enumerate(text.splitlines(), 1)
        if line.strip()
    ]


def _validated(data: object, path: str, at: str) -> RunRecord:
    try:
        return RunRecord.model_validate(data)
    except ValidationError as exc:
        raise record_error(exc, path, at) from None


#: pydantic error type → (what is wrong, what is allowed) for a run record's fields.
_ERROR_TEXT: dict[str, tuple[str, str]] = {
    "int_type": ("not an integer", "an integer"),
    "int_parsing": ("not an integer", "an integer"),
    "int_from_float": ("not a whole number", "an integer"),
    "int_parsing_size": ("too large", "an integer within a Java long (Long.parseLong)"),
    "float_type": ("not a number", "a finite number"),
    "float_parsing": ("not a number", "a finite number"),
    "finite_number": ("not a finite number", "a finite number"),
    "bool_type": ("not a boolean", "true or false"),
    "bool_parsing": ("not a boolean", "true or false"),
    "string_type": ("not a string", "a string"),
    "dict_type": ("not an object", "a JSON object"),
    "model_type": ("not an object", "a JSON object (one run record)"),
    "list_type": ("not a list", "a JSON list"),
    "tuple_type": ("not a list", "a JSON list [path, start, length]"),
    "missing": ("missing", "a value: every run record of mrtune hadoop-run has it"),
    "extra_forbidden": ("not a run-record field", f"the fields of schema {SCHEMA_VERSION}"),
    "string_pattern_mismatch": ("not a job name", "1-100 letters, digits, '.', '_' or '-'"),
}


def record_error(exc: ValidationError, path: str, at: str = "") -> InputError:
    """One line for a run record that does not validate: the file, the record (``line N``),
    the field path, the value and what is allowed, instead of pydantic's multi-line text
    (``[type=int_parsing_size, input_value=1e+300, …]``). The first problem is named; the
    count of the others follows."""
    errors = exc.errors(include_url=False)
    err = errors[0]
    loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
    kind, ctx = err["type"], err.get("ctx") or {}
    msg, allowed = _ERROR_TEXT.get(kind, (err["msg"], ""))
    if kind == "time_order":
        msg, allowed = err["msg"], str(ctx.get("allowed", ""))
    elif kind in ("greater_than_equal", "less_than_equal"):
        msg = "negative" if ctx.get("ge") == 0 else "too small" if "ge" in ctx else "too large"
        unit = " ms" if loc.endswith("_ms") else " bytes" if "split_" in loc else ""
        allowed = f">= {ctx['ge']:g}{unit}" if "ge" in ctx else f"<= {ctx.get('le'):g}{unit}"
    elif kind == "literal_error":
        msg, allowed = "not an allowed value", str(ctx.get("expected", ""))
    if len(errors) > 1:
        msg += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    value = err.get("input")
    shown = None if isinstance(value, dict | list) or kind == "missing" else value
    return InputError(
        msg,
        path=path,
        field=": ".join(x for x in (at, loc) if x) or None,
        value=_short(shown),
        allowed=allowed or None,
    )


def _short(value: object, limit: int = 60) -> object:
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 1] + "…"
    return value
