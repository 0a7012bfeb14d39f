"""A real local-mode run record read as the cost model needs it: configuration, cluster,
counters and phase times (split from :mod:`mrtune.calibration.run_profile`).

A local run (``LocalJobRunner``) writes no ``.jhist``; the harness's
:class:`mrtune.readers.run_records.RunRecord` holds instead every attempt's "Final Counters"
block and the per-task events of the log. Local-mode specifics (``shared/spec/real-hadoop.md``):
FILE_BYTES_READ/WRITTEN are JVM-cumulative, so each attempt's counters carry its own delta
(:attr:`~mrtune.readers.run_records.TaskAttemptBase.file_bytes_read_delta`); a map's input is
the records it read times the input pair width (``FileInputFormatCounter.BYTES_READ``
includes the read-ahead past the split end, so it is not the split's share of the file).
"""

from __future__ import annotations

import numpy as np

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_task import IFILE_CHECKSUM_BYTES, IFILE_EOF_BYTES
from mrtune.costmodel.profile import TaskTiming
from mrtune.errors import InputError
from mrtune.readers.run_records import (
    FS_COUNTER_GROUP,
    TASK_COUNTER_GROUP,
    Counters,
    MapAttemptEvents,
    ReduceAttemptEvents,
    RunRecord,
)

#: ``fs.local.block.size`` default (``LocalFileSystem``): the split size of a local run.
LOCAL_BLOCK_SIZE = 32 * 2**20
#: ``IFile.Writer.close``: two -1 vints (EOF) and a 4-byte CRC32 per partition segment.
IFILE_SEGMENT_BYTES = IFILE_EOF_BYTES + IFILE_CHECKSUM_BYTES
#: IFile's per-record framing for keys and values shorter than 128 bytes (two 1-byte vints).
IFILE_SMALL_RECORD_OVERHEAD = 2.0
_INPUT_FMT_GROUP = "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter"
_OUTPUT_FMT_GROUP = "org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter"
#: Harness-only or job-only keys: not Hadoop properties the model reads.
_NOT_MODEL_PREFIXES = ("mrtune.",)


# ----------------------------------------------------------------------------- configuration


def hadoop_memory_limit(total_bytes: int, percent: float) -> int:
    """``MergeManagerImpl.memoryLimit``: ``(long)(maxMemory * shuffle.input.buffer.percent)``.

    The percent is a Java ``float`` (``jobConf.getFloat``), so the product is computed in single
    precision: with -Xmx2048m and 0.70 it is 1,503,238,528, not the 1,503,238,553 of double
    arithmetic. ``Runtime.maxMemory()`` equals -Xmx on this JVM (G1): every logged limit of
    the matrix satisfies this formula with ``total_bytes`` = -Xmx.
    """
    return int(np.float32(np.float32(total_bytes) * np.float32(percent)))


def model_props(rec: RunRecord) -> dict[str, str]:
    props = rec.ran_with()
    return {k: v for k, v in props.items() if not k.startswith(_NOT_MODEL_PREFIXES)}


def run_config(rec: RunRecord) -> HadoopConfig:
    """The configuration the run had, as the cost model reads it.

    Every task runs in the driver's JVM, so both task heaps are its ``-Xmx`` (making
    ``HadoopConfig.reduce_heap_bytes`` the JVM's max heap, which is ``Runtime.maxMemory()``
    here: the model's shuffle limits then equal MergeManagerImpl's logged ones to the byte,
    see :func:`hadoop_memory_limit`), and splits follow the local file system's 32 MiB block
    size.
    """
    props = model_props(rec)
    xmx = f"-Xmx{int(rec.xmx_mb)}m"
    props["mapreduce.map.java.opts"] = xmx
    props["mapreduce.reduce.java.opts"] = xmx
    props.setdefault("dfs.blocksize", str(int(props.get("fs.local.block.size", LOCAL_BLOCK_SIZE))))
    props.pop("fs.local.block.size", None)
    try:
        cfg = HadoopConfig.from_properties(props, hadoop_version=3, source=rec.run_id)
    except ValueError as exc:
        raise InputError(f"run {rec.run_id}: configuration not usable: {exc}") from exc
    if cfg.combine_class is None and (rec.counter("COMBINE_INPUT_RECORDS") or 0) > 0:
        # a combiner the kept configuration does not name (an old-API job's
        # mapred.combiner.class in a record made before that key was kept: Hadoop Streaming's
        # -combiner) still ran: its counters say so, as for a history (profiling.dataflow)
        from mrtune.profiling.baseline import UNKNOWN_COMBINER

        cfg = cfg.model_copy(update={"combine_class": UNKNOWN_COMBINER})
    return cfg


def local_cluster(rec: RunRecord | None = None) -> ClusterSpec:
    """Local mode as a cluster: one node, ``mapreduce.local.{map,reduce}.tasks.maximum`` tasks
    at a time (default 1 each), reduces after all maps, a local-file shuffle
    (``ClusterSpec.local``)."""
    conf = rec.ran_with() if rec is not None else {}
    maps = int(conf.get("mapreduce.local.map.tasks.maximum", 1))
    reduces = int(conf.get("mapreduce.local.reduce.tasks.maximum", 1))
    return ClusterSpec.local(maps=maps, reduces=reduces)


# ---------------------------------------------------------------------------------- counters


def flat_counters(
    counters: Counters, *, file_read: int | None = None, file_written: int | None = None
) -> dict[str, float]:
    """Counter name → value over all groups, with the format counters renamed as the profiler
    names them and FILE_BYTES_* replaced by the attempt's own deltas when given."""
    out: dict[str, float] = {}
    for group, values in counters.items():
        for name, v in values.items():
            if group == _INPUT_FMT_GROUP and name == "BYTES_READ":
                out["INPUT_FORMAT_BYTES_READ"] = float(v)
            elif group == _OUTPUT_FMT_GROUP and name == "BYTES_WRITTEN":
                out["OUTPUT_FORMAT_BYTES_WRITTEN"] = float(v)
            elif group in (TASK_COUNTER_GROUP, FS_COUNTER_GROUP):
                out[name] = float(v)
            else:
                out.setdefault(name, float(v))
    if file_read is not None:
        out["FILE_BYTES_READ"] = float(file_read)
    if file_written is not None:
        out["FILE_BYTES_WRITTEN"] = float(file_written)
    return out


def counter_value(counters: Counters, name: str) -> float:
    return float(counters.get(TASK_COUNTER_GROUP, {}).get(name, 0) or 0)


def map_split_bytes(rec: RunRecord, width: float) -> np.ndarray:
    """Each map's input in bytes as the model counts it: records read × input pair width.

    ``rint(bytes / width)`` then gives the map's exact record count (see the module doc).
    """
    return np.array(
        [counter_value(a.counters, "MAP_INPUT_RECORDS") * width for a in rec.map_attempts]
    )


# ----------------------------------------------------------------------------------- timings


def map_timing(a: MapAttemptEvents) -> TaskTiming | None:
    """``map`` = start → flush (map function, collect and the spills done meanwhile),
    ``sort`` = flush → done (the final spill and the merge of spill files)."""
    if a.start_ms is None or a.done_ms is None:
        return None
    phases: dict[str, float] = {"total": float(a.done_ms - a.start_ms)}
    if a.flush_ms is not None:
        phases["map"] = float(a.flush_ms - a.start_ms)
        phases["sort"] = float(a.done_ms - a.flush_ms)
    # each spill's own time (SpillThread "Spilling map output" → "Finished spill N")
    done = [s for s in a.spills if s.start_ms is not None and s.end_ms is not None]
    early = [s.end_ms - s.start_ms for s in done if not s.final]
    final = [s.end_ms - s.start_ms for s in done if s.final]
    if early:
        phases["spill_full"] = float(np.mean(early))
        phases["fill"] = float(done[0].start_ms - a.start_ms)
    if final:
        phases["spill_last"] = float(final[-1])
    return _timing(a, "map", phases)


def reduce_timing(a: ReduceAttemptEvents) -> TaskTiming | None:
    """``shuffle`` = start → finalMerge, ``merge`` = finalMerge → reduce() starts,
    ``reduce`` = reduce() start → done."""
    if a.start_ms is None or a.done_ms is None:
        return None
    phases: dict[str, float] = {"total": float(a.done_ms - a.start_ms)}
    merge_end = reduce_merge_end_ms(a)
    if a.shuffle_end_ms is not None and merge_end is not None:
        phases["shuffle"] = float(a.shuffle_end_ms - a.start_ms)
        phases["merge"] = float(merge_end - a.shuffle_end_ms)
        phases["reduce"] = float(a.done_ms - merge_end)
    return _timing(a, "reduce", phases)


def _timing(
    a: MapAttemptEvents | ReduceAttemptEvents, kind: str, phases: dict[str, float]
) -> TaskTiming:
    """One attempt's timing record: its span, ``phases`` and its counters with the file bytes
    its own attempt read and wrote (the deltas the run record logs per attempt)."""
    return TaskTiming(
        attempt_id=a.attempt_id,
        kind=kind,
        start_ms=a.start_ms,
        finish_ms=a.done_ms,
        phases_ms=phases,
        counters=flat_counters(
            a.counters, file_read=a.file_bytes_read_delta, file_written=a.file_bytes_written_delta
        ),
    )


def reduce_merge_end_ms(a: ReduceAttemptEvents) -> int | None:
    """When the final merge hands over to reduce(): the record's ``merge_end_ms`` (the first
    status line after finalMerge), else the last final-merge Merger call's "Down to the last
    merge-pass" (a long merge replaces that status line by "reduce > sort" lines, so the
    harness finds none; the two instants are a few ms apart where both exist)."""
    if a.merge_end_ms is not None:
        return a.merge_end_ms
    if a.final_merge is not None and a.final_merge.merger_calls:
        last = a.final_merge.merger_calls[-1]
        return last.last_pass_ms if last.last_pass_ms is not None else last.start_ms
    return None


def run_timings(rec: RunRecord) -> list[TaskTiming]:
    """Observed phase times of every attempt (maps first, in start order)."""
    out = [t for a in rec.map_attempts if (t := map_timing(a)) is not None]
    out += [t for a in rec.reduce_attempts if (t := reduce_timing(a)) is not None]
    return out


def job_overhead_ms(rec: RunRecord) -> float | None:
    """Driver time outside every task: ``job_time_ms`` − (first task start → last task done).

    Job submission (staging, splits), the job's setup and commit and the client's polling
    happen in the driver; the cost model has no term for them. ``Job.waitForCompletion``
    returns only after ``LocalJobRunner`` has run every task, and both instants come from the
    one JVM's clock, so a task span longer than the job time is a damaged or edited record:
    refused (:class:`InputError`), never a negative overhead (an edited record had given
    -13 s) nor a clipped one.
    """
    starts = [a.start_ms for a in [*rec.map_attempts, *rec.reduce_attempts] if a.start_ms]
    ends = [a.done_ms for a in [*rec.map_attempts, *rec.reduce_attempts] if a.done_ms]
    if rec.job_time_ms is None or not starts or not ends:
        return None
    span = max(ends) - min(starts)
    if span > rec.job_time_ms:
        raise InputError(
            f"run {rec.run_id}: the attempts span {span} ms (first start {min(starts)}, last "
            f"end {max(ends)}), longer than the job",
            field="job_time_ms",
            value=rec.job_time_ms,
            allowed="at least the attempts' span: LocalJobRunner runs every task inside the job",
        )
    return float(rec.job_time_ms - span)
