"""Parse a local-mode Hadoop 3 run log into per-attempt events (:mod:`mrtune.readers.run_records`).

The messages parsed are those of Hadoop's own classes (``MapTask.MapOutputBuffer``,
``Merger``, ``MergeManagerImpl``, ``LocalFetcher``, ``Task``, ``LocalJobRunner``); their exact
text is quoted next to each pattern. Lines are expected as the harness's log4j2 layout writes
them, ``<epoch-ms> <LEVEL> [<thread>] <logger>: <message>``; Hadoop's usual
``yyyy-MM-dd HH:mm:ss,SSS`` timestamp is accepted too. Lines without a timestamp continue the
previous message (the multi-line "Final Counters" blocks).

Attribution: a line from a task's executor thread belongs to the attempt that thread is
running (from "Starting task: <attempt>"). Lines from helper threads (``SpillThread``,
``localfetcher#N``, the in-memory and on-disk merger threads) belong to the most recently
started running attempt of the matching kind; a "Finished spill N" goes to the running map
attempt whose spill N is open. With the local default of one map and one reduce at a time
this is exact; overlapping attempts are flagged ``concurrent``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from mrtune.errors import InputError
from mrtune.readers.run_records import (
    Counters,
    FinalMerge,
    InMemoryMerge,
    IntermediatePass,
    MapAttemptEvents,
    MemToMemMerge,
    MergeCall,
    MergeManagerLimits,
    OnDiskMerge,
    ReduceAttemptEvents,
    ShuffleFetch,
    SpillEvent,
    TaskAttemptBase,
)

_LINE = re.compile(
    r"^(?P<ts>\d{10,16}|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[,.]\d{3})\s+"
    r"(?P<level>[A-Z]+)\s+\[(?P<thread>[^\]]*)\]\s+(?P<logger>[\w.$]+):\s?(?P<msg>.*)$"
)


@dataclass
class LogLine:
    ts_ms: int
    level: str
    thread: str
    logger: str
    msg: str
    continuation: list[str]


def _to_ms(ts: str) -> int:
    if ts.isdigit():
        return int(ts)
    try:
        dt = datetime.strptime(ts.replace("T", " ").replace(".", ","), "%Y-%m-%d %H:%M:%S,%f")
    except ValueError:  # "2020-99-99 …": not a timestamp Log4j writes
        raise InputError(
            "not a log timestamp", value=ts, allowed="yyyy-MM-dd HH:mm:ss,SSS"
        ) from None
    return int(dt.timestamp() * 1000)


def iter_lines(text: str | Iterable[str]) -> Iterator[LogLine]:
    """Split a log into messages (a message owns the untimestamped lines that follow it)."""
    lines = text.splitlines() if isinstance(text, str) else text
    current: LogLine | None = None
    for raw in lines:
        raw = raw.rstrip("\n")
        m = _LINE.match(raw)
        if m:
            if current is not None:
                yield current
            current = LogLine(
                _to_ms(m["ts"]),
                m["level"],
                m["thread"],
                m["logger"].rsplit(".", 1)[-1],
                m["msg"],
                [],
            )
        elif current is not None:
            current.continuation.append(raw)
    if current is not None:
        yield current


# --- patterns, each with the Hadoop message it matches -----------------------------------------
_ATTEMPT = r"(attempt_[\w]+_[mr]_\d+_\d+)"
P_START_TASK = re.compile(r"^Starting task: " + _ATTEMPT)  # LocalJobRunner
P_FINISH_TASK = re.compile(r"^Finishing task: " + _ATTEMPT)  # LocalJobRunner
P_SPLIT = re.compile(r"^Processing split: (.+):(\d+)\+(\d+)\s*$")  # MapTask
#: ``CombineFileSplit.toString``: ``Paths:p1:s1+l1,p2:s2+l2[ Locations:…]``
P_COMBINED_SPLIT = re.compile(r"^Processing split: Paths:(.*?)(?:\s+Locations:.*)?$")
P_SPLIT_PART = re.compile(r"^(.+):(\d+)\+(\d+)$")
P_SORT_MB = re.compile(r"^mapreduce\.task\.io\.sort\.mb: (\d+)")  # MapTask.init
P_SOFT_LIMIT = re.compile(r"^soft limit at (\d+)")
P_INIT_BUF = re.compile(r"^bufstart = (\d+); bufvoid = (\d+)$")
P_INIT_KV = re.compile(r"^kvstart = (\d+); length = (\d+)$")
P_SPILLING = re.compile(r"^Spilling map output$")  # startSpill / flush
P_SPILL_BUF = re.compile(r"^bufstart = (\d+); bufend = (\d+); bufvoid = (\d+)$")
P_SPILL_KV = re.compile(r"^kvstart = (\d+)\(\d+\); kvend = (\d+)\(\d+\); length = (\d+)/(\d+)$")
P_FINISHED_SPILL = re.compile(r"^Finished spill (\d+)$")  # sortAndSpill
P_FLUSH = re.compile(r"^Starting flush of map output$")  # MapOutputBuffer.flush
P_MERGING = re.compile(r"^Merging (\d+) sorted segments$")  # Merger.MergeQueue.merge
P_INTERMEDIATE = re.compile(r"^Merging (\d+) intermediate segments out of a total of (\d+)$")
P_LAST_PASS = re.compile(
    r"^Down to the last merge-pass, with (\d+) segments left of total size: (-?\d+) bytes$"
)
P_COMMITTING = re.compile(r"^Task:" + _ATTEMPT + r" is done\. And is in the process of committing")
P_TASK_DONE = re.compile(r"^Task '" + _ATTEMPT + r"' done\.")  # Task.done
P_FINAL_COUNTERS = re.compile(r"^Final Counters for " + _ATTEMPT + r": Counters: (\d+)")
P_LIMITS = re.compile(
    r"^MergerManager: memoryLimit=(\d+), maxSingleShuffleLimit=(\d+), mergeThreshold=(\d+), "
    r"ioSortFactor=(\d+), memToMemMergeOutputsThreshold=(\d+)"
)
P_FETCH = re.compile(
    r"^(\S+) about to shuffle output of map "
    + _ATTEMPT
    + r" decomp: (\d+) len: (\d+) to (MEMORY|DISK)"
)
P_INMEM_TRIGGER = re.compile(r"^Starting inMemoryMerger's merge since commitMemory=(\d+)")
P_INMEM_START = re.compile(r"^Initiating in-memory merge with (\d+) segments")
P_INMEM_END = re.compile(
    r"Merge of the (\d+) files in-memory complete\. Local file is \S+ of size (\d+)"
)
P_M2M_START = re.compile(
    r"^Initiating Memory-to-Memory merge with (\d+) segments of total-size: (\d+)"
)
P_M2M_END = re.compile(r"Memory-to-Memory merge of the (\d+) files in-memory complete")
P_ONDISK_START = re.compile(
    r"^OnDiskMerger: We have\s+(\d+) map outputs on disk\. Triggering merge"
)
P_ONDISK_END = re.compile(
    r"Finished merging (\d+) map output files on disk of total-size (\d+)\. "
    r"Local output file is \S+ of size (\d+)"
)
P_FINAL_MERGE = re.compile(
    r"^finalMerge called with (\d+) in-memory map-outputs and (\d+) on-disk map-outputs"
)
P_EVICTED = re.compile(
    r"^Merged (\d+) segments, (\d+) bytes to disk to satisfy reduce memory limit"
)
P_KEEPING = re.compile(
    r"^Keeping (\d+) segments, (\d+) bytes in memory for intermediate, on-disk merge"
)
P_FROM_DISK = re.compile(r"^Merging (\d+) files, (\d+) bytes from disk")
P_FROM_MEM = re.compile(r"^Merging (\d+) segments, (\d+) bytes from memory into reduce")
P_COPIED = re.compile(r"^(\d+) / (\d+) copied\.")  # LocalJobRunner reduce status update

_COUNTER_LINE = re.compile(r"^\t\t(.+?)=(-?\d+)\s*$")
_GROUP_LINE = re.compile(r"^\t([^\t].*?)\s*$")


def _task_index(attempt: str) -> int:
    return int(attempt.rsplit("_", 2)[-2])


def parse_counter_block(
    lines: list[str], names: dict[tuple[str, str], tuple[str, str]] | None = None
) -> Counters:
    """Parse the lines of a ``Counters.toString()`` block.

    ``names`` maps (group display name, counter display name) to (group name, counter name),
    as dumped by the driver for the job totals; unmapped entries keep their display names.
    """
    out: Counters = {}
    group = ""
    for line in lines:
        m = _COUNTER_LINE.match(line)
        if m:
            disp = m[1].strip()
            gname, cname = (names or {}).get((group, disp), (group, disp))
            out.setdefault(gname, {})[cname] = int(m[2])
            continue
        g = _GROUP_LINE.match(line)
        if g:
            group = g[1].strip()
    return out


class _State:
    """Parser state: attempts by id, executor thread → attempt, running attempts."""

    def __init__(self) -> None:
        self.maps: dict[str, MapAttemptEvents] = {}
        self.reduces: dict[str, ReduceAttemptEvents] = {}
        self.thread_attempt: dict[str, str] = {}
        self.running: list[str] = []  # in start order
        self.open_spill: dict[str, SpillEvent] = {}  # attempt -> spill being described/run
        self.pending_spills: dict[str, list[SpillEvent]] = {}
        self.open_merge: dict[tuple[str, str], MergeCall] = {}  # (attempt, thread) -> call
        self.open_inmem: dict[str, InMemoryMerge] = {}
        self.open_ondisk: dict[str, OnDiskMerge] = {}
        self.open_m2m: dict[str, MemToMemMerge] = {}
        self.inmem_trigger: dict[str, int] = {}
        self.after_final_merge: set[str] = set()

    def attempt_of_thread(self, thread: str) -> str | None:
        return self.thread_attempt.get(thread)

    def latest_running(self, kind: str) -> str | None:
        for att in reversed(self.running):
            if f"_{kind}_" in att:
                return att
        return None


def parse_log(
    text: str | Iterable[str],
    counter_names: dict[tuple[str, str], tuple[str, str]] | None = None,
) -> tuple[list[MapAttemptEvents], list[ReduceAttemptEvents]]:
    """Parse a run log into map and reduce attempt events (each list in task order)."""
    st = _State()
    for line in iter_lines(text):
        _dispatch(st, line, counter_names)
    maps = sorted(st.maps.values(), key=lambda a: (a.task_index, a.attempt_id))
    reduces = sorted(st.reduces.values(), key=lambda a: (a.task_index, a.attempt_id))
    _check_times([*maps, *reduces])
    _mark_concurrency(maps)
    _mark_concurrency(reduces)
    _file_deltas([*maps, *reduces])
    return maps, reduces


def _check_times(attempts: Sequence[TaskAttemptBase]) -> None:
    """An attempt that is done before it starts, or a spill that ends before it begins, means
    the log's timestamps are damaged: one clear error, never a negative duration."""
    for a in attempts:
        if (a.duration_ms or 0) < 0:
            raise InputError(
                "the log's timestamps are out of order (done before started)",
                field=a.attempt_id,
                value=f"{a.duration_ms} ms",
            )
        for s in getattr(a, "spills", ()) or ():
            if (s.duration_ms or 0) < 0:
                raise InputError(
                    "the log's timestamps are out of order (a spill ends before it starts)",
                    field=a.attempt_id,
                    value=f"{s.duration_ms} ms",
                )


def _mark_concurrency(attempts: Sequence[TaskAttemptBase]) -> None:
    spans = [(a.start_ms, a.done_ms or a.commit_ms, a) for a in attempts if a.start_ms]
    for s1, e1, a in spans:
        for s2, e2, b in spans:
            if a is not b and e1 is not None and e2 is not None and s1 < e2 and s2 < e1:
                a.concurrent = True


def _file_deltas(attempts: Sequence[TaskAttemptBase]) -> None:
    """Per-attempt FILE_BYTES_* from the JVM-cumulative values, in completion order."""
    done = sorted((a for a in attempts if a.done_ms is not None), key=lambda a: a.done_ms)
    prev_r = prev_w = 0
    for a in done:
        r = a.counter("FILE_BYTES_READ")
        w = a.counter("FILE_BYTES_WRITTEN")
        if r is None or w is None:
            continue
        a.file_bytes_read_delta = r - prev_r
        a.file_bytes_written_delta = w - prev_w
        prev_r, prev_w = r, w


def _dispatch(
    st: _State, ln: LogLine, names: dict[tuple[str, str], tuple[str, str]] | None
) -> None:
    msg = ln.msg.strip()
    # ---- task lifecycle
    if m := P_START_TASK.match(msg):
        att = m[1]
        st.thread_attempt[ln.thread] = att
        st.running.append(att)
        if "_m_" in att:
            st.maps[att] = MapAttemptEvents(
                attempt_id=att, task_index=_task_index(att), thread=ln.thread, start_ms=ln.ts_ms
            )
        else:
            st.reduces[att] = ReduceAttemptEvents(
                attempt_id=att, task_index=_task_index(att), thread=ln.thread, start_ms=ln.ts_ms
            )
        return
    if m := P_FINISH_TASK.match(msg):
        if m[1] in st.running:
            st.running.remove(m[1])
        return
    if m := P_COMMITTING.match(msg):
        a = st.maps.get(m[1]) or st.reduces.get(m[1])
        if a is not None:
            a.commit_ms = ln.ts_ms
        return
    if m := P_TASK_DONE.match(msg):
        a = st.maps.get(m[1]) or st.reduces.get(m[1])
        if a is not None:
            a.done_ms = ln.ts_ms
        return
    if m := P_FINAL_COUNTERS.match(msg):
        a = st.maps.get(m[1]) or st.reduces.get(m[1])
        if a is not None:
            a.counters = parse_counter_block(ln.continuation, names)
        return

    own = st.attempt_of_thread(ln.thread)
    # ---- map side
    if ln.logger == "MapTask":
        _map_line(st, ln, msg, own)
        return
    if ln.logger == "Merger":
        _merger_line(st, ln, msg, own)
        return
    # ---- reduce side
    if ln.logger in ("MergeManagerImpl", "LocalFetcher", "Fetcher", "LocalJobRunner"):
        _reduce_line(st, ln, msg, own)


def _map_attempt(st: _State, own: str | None) -> MapAttemptEvents | None:
    if own is not None and own in st.maps:
        return st.maps[own]
    latest = st.latest_running("m")
    return st.maps.get(latest) if latest else None


def _map_line(st: _State, ln: LogLine, msg: str, own: str | None) -> None:
    if m := P_FINISHED_SPILL.match(msg):
        idx = int(m[1])
        target = None
        if own is not None and own in st.maps:
            target = st.maps[own]
        else:  # SpillThread: the running map whose spill idx is open
            for att in reversed(st.running):
                pend = st.pending_spills.get(att, [])
                if any(s.index == idx for s in pend):
                    target = st.maps.get(att)
                    break
            if target is None:
                target = _map_attempt(st, None)
        if target is None:
            return
        pend = st.pending_spills.setdefault(target.attempt_id, [])
        spill = next((s for s in pend if s.index == idx), None)
        if spill is None:
            spill = SpillEvent(index=idx)
            target.spills.append(spill)
        else:
            pend.remove(spill)
        spill.end_ms = ln.ts_ms
        spill.thread = ln.thread
        return
    a = _map_attempt(st, own)
    if a is None:
        return
    if m := P_COMBINED_SPLIT.match(msg):
        # several files in one split (CombineFileInputFormat): P_SPLIT took the last one
        parts = [P_SPLIT_PART.match(p.strip()) for p in m[1].split(",") if p.strip()]
        a.split_parts = [(q[1], int(q[2]), int(q[3])) for q in parts if q is not None]
        a.split_length = sum(n for _, _, n in a.split_parts)
    elif m := P_SPLIT.match(msg):
        a.split_path, a.split_start, a.split_length = m[1], int(m[2]), int(m[3])
    elif m := P_SORT_MB.match(msg):
        a.sort_buffer.io_sort_mb = int(m[1])
    elif m := P_SOFT_LIMIT.match(msg):
        a.sort_buffer.soft_limit_bytes = int(m[1])
    elif m := P_INIT_BUF.match(msg):
        a.sort_buffer.buffer_bytes = int(m[2])
    elif m := P_INIT_KV.match(msg):
        a.sort_buffer.max_records = int(m[2])
    elif P_SPILLING.match(msg):
        spill = SpillEvent(index=len(a.spills), start_ms=ln.ts_ms, final=a.flush_ms is not None)
        a.spills.append(spill)
        st.open_spill[a.attempt_id] = spill
        st.pending_spills.setdefault(a.attempt_id, []).append(spill)
    elif m := P_SPILL_BUF.match(msg):
        spill = st.open_spill.get(a.attempt_id)
        if spill is not None:
            bs, be, bv = int(m[1]), int(m[2]), int(m[3])
            spill.bufstart, spill.bufend, spill.bufvoid = bs, be, bv
            spill.bytes = be - bs if be >= bs else (bv - bs) + be
    elif m := P_SPILL_KV.match(msg):
        spill = st.open_spill.pop(a.attempt_id, None)
        if spill is not None:
            ks, ke, _length, max_rec = int(m[1]), int(m[2]), int(m[3]), int(m[4])
            cap = 4 * max_rec
            spill.kvstart, spill.kvend = ks, ke
            spill.records = ((ks - ke) % cap) // 4 + 1
    elif P_FLUSH.match(msg):
        a.flush_ms = ln.ts_ms


def _merger_line(st: _State, ln: LogLine, msg: str, own: str | None) -> None:
    """Merger messages: route to the map's merges, or to the reduce merge they belong to."""
    if own is not None and own in st.maps:
        attempt, owner = own, ("map", own)
    elif own is not None and own in st.reduces:
        attempt, owner = own, ("final", own)
    else:  # a reduce-side merger thread
        attempt = st.latest_running("r") or ""
        if attempt not in st.reduces:
            return
        if "InMemoryMerger" in ln.thread and "Memory-to-Memory" not in ln.thread:
            owner = ("inmem", attempt)
        elif "OnDiskMerger" in ln.thread:
            owner = ("ondisk", attempt)
        else:
            owner = ("other", attempt)
    key = (attempt, ln.thread)
    if m := P_MERGING.match(msg):
        call = MergeCall(start_ms=ln.ts_ms, segments=int(m[1]), thread=ln.thread)
        st.open_merge[key] = call
        if owner[0] == "map":
            st.maps[attempt].merges.append(call)
        elif owner[0] == "final":
            fm = st.reduces[attempt].final_merge
            if fm is not None:
                fm.merger_calls.append(call)
        return
    call = st.open_merge.get(key)
    if call is None:
        return
    if m := P_INTERMEDIATE.match(msg):
        call.intermediate_passes.append(
            IntermediatePass(ts_ms=ln.ts_ms, segments=int(m[1]), total_segments=int(m[2]))
        )
    elif m := P_LAST_PASS.match(msg):
        call.last_pass_ms = ln.ts_ms
        call.last_pass_segments = int(m[1])
        call.last_pass_bytes = int(m[2])


def _reduce_line(st: _State, ln: LogLine, msg: str, own: str | None) -> None:
    att = own if own in st.reduces else st.latest_running("r")
    r = st.reduces.get(att) if att else None
    if r is None:
        return
    if m := P_LIMITS.match(msg):
        r.limits = MergeManagerLimits(
            memory_limit=int(m[1]),
            max_single_shuffle_limit=int(m[2]),
            merge_threshold=int(m[3]),
            io_sort_factor=int(m[4]),
            mem_to_mem_merge_outputs_threshold=int(m[5]),
        )
    elif m := P_FETCH.match(msg):
        r.fetches.append(
            ShuffleFetch(
                ts_ms=ln.ts_ms,
                fetcher=m[1],
                map_attempt_id=m[2],
                destination=m[5],  # type: ignore[arg-type]
                decompressed_bytes=int(m[3]),
                compressed_bytes=int(m[4]),
            )
        )
    elif m := P_INMEM_TRIGGER.match(msg):
        st.inmem_trigger[r.attempt_id] = int(m[1])
    elif m := P_INMEM_START.match(msg):
        mm = InMemoryMerge(
            start_ms=ln.ts_ms,
            segments=int(m[1]),
            trigger_commit_memory=st.inmem_trigger.pop(r.attempt_id, None),
        )
        r.in_memory_merges.append(mm)
        st.open_inmem[r.attempt_id] = mm
    elif m := P_INMEM_END.search(msg):
        mm = st.open_inmem.pop(r.attempt_id, None)
        if mm is not None:
            mm.end_ms, mm.output_bytes = ln.ts_ms, int(m[2])
    elif m := P_M2M_START.match(msg):
        m2 = MemToMemMerge(start_ms=ln.ts_ms, segments=int(m[1]), total_bytes=int(m[2]))
        r.mem_to_mem_merges.append(m2)
        st.open_m2m[r.attempt_id] = m2
    elif m := P_M2M_END.search(msg):
        m2 = st.open_m2m.pop(r.attempt_id, None)
        if m2 is not None:
            m2.end_ms = ln.ts_ms
    elif m := P_ONDISK_START.match(msg):
        od = OnDiskMerge(start_ms=ln.ts_ms, files=int(m[1]))
        r.on_disk_merges.append(od)
        st.open_ondisk[r.attempt_id] = od
    elif m := P_ONDISK_END.search(msg):
        od = st.open_ondisk.pop(r.attempt_id, None)
        if od is not None:
            od.end_ms, od.input_bytes, od.output_bytes = ln.ts_ms, int(m[2]), int(m[3])
    elif m := P_FINAL_MERGE.match(msg):
        r.final_merge = FinalMerge(
            ts_ms=ln.ts_ms, in_memory_outputs=int(m[1]), on_disk_outputs=int(m[2])
        )
        r.shuffle_end_ms = ln.ts_ms
        st.after_final_merge.add(r.attempt_id)
    elif (m := P_EVICTED.match(msg)) and r.final_merge is not None:
        r.final_merge.evicted_to_disk_segments = int(m[1])
        r.final_merge.evicted_to_disk_bytes = int(m[2])
    elif (m := P_KEEPING.match(msg)) and r.final_merge is not None:
        r.final_merge.kept_in_memory_for_disk_merge_segments = int(m[1])
        r.final_merge.kept_in_memory_for_disk_merge_bytes = int(m[2])
    elif (m := P_FROM_DISK.match(msg)) and r.final_merge is not None:
        r.final_merge.disk_files, r.final_merge.disk_bytes = int(m[1]), int(m[2])
    elif (m := P_FROM_MEM.match(msg)) and r.final_merge is not None:
        r.final_merge.memory_segments, r.final_merge.memory_bytes = int(m[1]), int(m[2])
    elif P_COPIED.match(msg) and own == r.attempt_id:
        # ReduceTask's status update when the sort (merge) phase ends and reduce() starts is
        # the first "n / n copied." after finalMerge.
        if r.attempt_id in st.after_final_merge and r.merge_end_ms is None:
            r.merge_end_ms = ln.ts_ms
