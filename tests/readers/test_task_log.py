"""The log parser on excerpts of real local-mode runs (Hadoop 3.5.0, captured by the harness).

Fixtures (tests/readers/fixtures/), all the sort job over 16 MiB of 100-byte records:
* sort-spills.log: io.sort.mb 1, 2 maps of 8 MiB, 12 spills each, one intermediate merge pass.
* sort-inmem-merge.log: 16 maps of 1 MiB, -Xmx256m, shuffle.input.buffer.percent 0.05: every
  fetch to MEMORY, one in-memory merge, final merge of 7 in-memory and 1 on-disk outputs.
* sort-disk-fetch.log (+ .counters.tsv): as above with shuffle.input.buffer.percent 0.002 and
  sort factor 3: every fetch to DISK, on-disk merges, intermediate passes in the final merge.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mrtune.harness.assemble import read_counters_tsv
from mrtune.readers.run_records import MapAttemptEvents
from mrtune.readers.task_log import iter_lines, parse_counter_block, parse_log

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


def _parse(fixtures: Path, name: str, with_names: bool = True):
    names = None
    tsv = fixtures / name.replace(".log", ".counters.tsv")
    if with_names and tsv.is_file():
        names = read_counters_tsv(tsv)[1]
    return parse_log((fixtures / name).read_text(), names)


def test_spill_records_and_bytes_add_up_to_map_output(fixtures: Path) -> None:
    maps, reduces = _parse(fixtures, "sort-spills.log")
    assert [m.attempt_id[-13:] for m in maps] == ["_m_000000_0", "_m_000001_0"] or len(maps) == 2
    for m in maps:
        assert m.num_spills == 12
        # display names are kept when no counters.tsv maps them
        out_recs = m.counters["Map-Reduce Framework"]["Map output records"]
        out_bytes = m.counters["Map-Reduce Framework"]["Map output bytes"]
        assert sum(s.records for s in m.spills) == out_recs
        assert sum(s.bytes for s in m.spills) == out_bytes
        assert all(s.records == 7232 for s in m.spills[:-1])
        assert [s.final for s in m.spills] == [False] * 11 + [True]
        assert [s.index for s in m.spills] == list(range(12))
    assert [m.counters["Map-Reduce Framework"]["Map output records"] for m in maps] == [
        83887,
        83885,
    ]


def test_sort_buffer_and_split(fixtures: Path) -> None:
    maps, _ = _parse(fixtures, "sort-spills.log")
    m = maps[0]
    assert m.sort_buffer.io_sort_mb == 1
    assert m.sort_buffer.buffer_bytes == 1 << 20
    assert m.sort_buffer.soft_limit_bytes == int((1 << 20) * 0.8)
    assert m.sort_buffer.max_records == (1 << 20) // 16
    assert (m.split_start, m.split_length) == (0, 8388608)
    assert maps[1].split_start == 8388608


def test_map_merge_passes(fixtures: Path) -> None:
    maps, _ = _parse(fixtures, "sort-spills.log")
    for m in maps:
        assert len(m.merges) == 1  # one reducer: one partition merged
        call = m.merges[0]
        assert call.segments == 12
        # getPassFactor: (12 - 1) mod (10 - 1) + 1 = 3 segments first, then the last 10
        assert [(p.segments, p.total_segments) for p in call.intermediate_passes] == [(3, 12)]
        assert call.last_pass_segments == 10
        assert m.intermediate_merge_passes == 1


def test_map_phase_boundaries_are_ordered(fixtures: Path) -> None:
    maps, _ = _parse(fixtures, "sort-spills.log")
    for m in maps:
        seq = [m.start_ms, m.first_spill_ms, m.flush_ms, m.merge_start_ms, m.commit_ms, m.done_ms]
        assert None not in seq
        assert seq == sorted(seq)
        for s in m.spills:
            assert s.start_ms <= s.end_ms


def test_reduce_limits_fetches_and_final_merge(fixtures: Path) -> None:
    _, reduces = _parse(fixtures, "sort-spills.log")
    (r,) = reduces
    assert r.limits is not None
    # MergeManagerImpl computes (long)(memoryLimit * 0.25f) and (long)(memoryLimit * 0.66f):
    # long x float is float (32-bit) arithmetic in Java
    mem = np.float32(r.limits.memory_limit)
    assert r.limits.max_single_shuffle_limit == int(mem * np.float32(0.25))
    assert r.limits.merge_threshold == int(mem * np.float32(0.66))
    assert r.limits.io_sort_factor == 10
    assert r.fetches_to_memory == 2 and r.fetches_to_disk == 0
    fm = r.final_merge
    assert fm is not None
    assert (fm.in_memory_outputs, fm.on_disk_outputs) == (2, 0)
    # reduce.input.buffer.percent = 0: both segments are written to disk before reduce()
    assert fm.evicted_to_disk_segments == 2
    assert fm.evicted_to_disk_bytes == sum(f.decompressed_bytes for f in r.fetches)
    assert (fm.disk_files, fm.memory_segments) == (1, 0)
    seq = [r.start_ms, r.shuffle_end_ms, r.merge_end_ms, r.commit_ms, r.done_ms]
    assert None not in seq and seq == sorted(seq)


def test_in_memory_merge(fixtures: Path) -> None:
    maps, reduces = _parse(fixtures, "sort-inmem-merge.log")
    assert len(maps) == 16 and all(m.num_spills == 1 and not m.merges for m in maps)
    (r,) = reduces
    assert r.fetches_to_memory == 16
    assert len(r.in_memory_merges) == 1
    mm = r.in_memory_merges[0]
    assert mm.segments == 9 and mm.end_ms is not None and mm.output_bytes > 0
    assert mm.trigger_commit_memory is not None
    assert mm.trigger_commit_memory >= r.limits.merge_threshold
    assert (r.final_merge.in_memory_outputs, r.final_merge.on_disk_outputs) == (7, 1)


def test_disk_fetches_and_on_disk_merges(fixtures: Path) -> None:
    maps, reduces = _parse(fixtures, "sort-disk-fetch.log")
    (r,) = reduces
    assert r.fetches_to_disk == 16 and r.fetches_to_memory == 0
    # every fetch exceeds maxSingleShuffleLimit
    assert all(f.decompressed_bytes > r.limits.max_single_shuffle_limit for f in r.fetches)
    assert r.limits.io_sort_factor == 3
    assert len(r.on_disk_merges) == 4
    assert all(od.files == 3 and od.output_bytes and od.end_ms for od in r.on_disk_merges)
    fm = r.final_merge
    assert (fm.in_memory_outputs, fm.on_disk_outputs, fm.disk_files) == (0, 8, 8)
    (call,) = fm.merger_calls
    assert call.segments == 8
    assert [p.segments for p in call.intermediate_passes] == [2, 3, 3]
    # counters are mapped to internal names through the driver's counters.tsv
    assert r.counter("SPILLED_RECORDS") is not None
    assert r.counters["org.apache.hadoop.mapreduce.TaskCounter"]["SHUFFLED_MAPS"] == 16


def test_file_byte_deltas_partition_the_cumulative_counter(fixtures: Path) -> None:
    maps, reduces = _parse(fixtures, "sort-disk-fetch.log")
    attempts = maps + reduces
    last = max(attempts, key=lambda a: a.done_ms)
    total_written = last.counter("FILE_BYTES_WRITTEN")
    assert sum(a.file_bytes_written_delta for a in attempts) == total_written
    assert all(a.file_bytes_written_delta > 0 for a in attempts)
    assert not any(a.concurrent for a in attempts)


def test_iter_lines_accepts_hadoop_default_timestamps_and_continuations() -> None:
    text = (
        "2024-05-01 10:00:00,123 INFO [main] org.apache.hadoop.mapred.Task: Final Counters "
        "for attempt_local1_0001_m_000000_0: Counters: 2\n"
        "\tMap-Reduce Framework\n"
        "\t\tMap output records=5\n"
        "\t\tSpilled Records=10\n"
        "1714557600200 INFO  [main] Job: done\n"
    )
    lines = list(iter_lines(text))
    assert len(lines) == 2
    assert lines[0].logger == "Task" and len(lines[0].continuation) == 3
    assert lines[1].ts_ms - lines[0].ts_ms == 1714557600200 - lines[0].ts_ms
    block = parse_counter_block(lines[0].continuation)
    assert block == {"Map-Reduce Framework": {"Map output records": 5, "Spilled Records": 10}}


def test_spill_wraparound_bytes_and_records() -> None:
    """A spill whose data wraps the circular buffer (bufend < bufstart)."""
    log = "\n".join(
        [
            "1714557600000 INFO  [LocalJobRunner Map Task Executor #0] LocalJobRunner: Starting task: "
            "attempt_local9_0001_m_000000_0",
            "1714557600001 INFO  [LocalJobRunner Map Task Executor #0] MapTask: Spilling map output",
            "1714557600001 INFO  [LocalJobRunner Map Task Executor #0] MapTask: bufstart = 752112; "
            "bufend = 426736; bufvoid = 1048576",
            "1714557600001 INFO  [LocalJobRunner Map Task Executor #0] MapTask: kvstart = 188024(752096); "
            "kvend = 159100(636400); length = 28925/65536",
            "1714557600005 INFO  [SpillThread] MapTask: Finished spill 0",
        ]
    )
    (m,), _ = parse_log(log)
    assert isinstance(m, MapAttemptEvents)
    (s,) = m.spills
    assert s.bytes == (1048576 - 752112) + 426736 == 7232 * 100
    assert s.records == 7232
    assert (s.start_ms, s.end_ms, s.thread) == (1714557600001, 1714557600005, "SpillThread")


@pytest.mark.parametrize(
    "name", ["sort-spills.log", "sort-inmem-merge.log", "sort-disk-fetch.log"]
)
def test_every_attempt_has_final_counters(fixtures: Path, name: str) -> None:
    maps, reduces = _parse(fixtures, name)
    assert maps and reduces
    assert all(a.counters and a.done_ms for a in maps + reduces)
