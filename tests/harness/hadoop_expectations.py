"""What Hadoop 2/3 must report for the sort job, computed independently of the run's log.

``expected_counters`` is the referee the ``hadoop``-marked test compares a real run with. It
is written as a plain function of the job's inputs so that it can later be replaced by the
project's cost model (issue 5, Deliver 5) without touching the test.

Rules (``shared/spec/cost-model-reference.md`` §2–3, ``MapTask.MapOutputBuffer``, ``Merger``):

* The sort buffer is io.sort.mb·2^20 bytes rounded down to a multiple of 16; the soft limit
  is S = (int)(buffer × spill percent); each record costs w serialized bytes plus 16 bytes of
  metadata.
* Spill count per map (the issue's formula): ceil(records / floor(S / (w + 16))).
* Records per spill, exactly: ``collect`` starts a spill at the first record for which
  n·(w + 16) + 16 ≥ S, so a full spill holds ceil((S − 16) / (w + 16)) records (the floor
  formula above is one lower whenever frac(S / (w + 16)) > 16 / (w + 16); the spill count
  agrees, the records per spill — which the merge passes depend on — do not).
  A later spill starts at the equator MapOutputBuffer sets when the previous spill begins;
  with r = equator mod 16 it holds ceil((S − 16 − r) / (w + 16)) records, i.e. possibly one
  fewer (:func:`simulate_spill_sizes` follows the equators; :func:`spill_sizes` is the
  simple r = 0 version). The difference matters only when an intermediate merge pass picks
  those spills (with spills ≤ sort factor, SPILLED_RECORDS = 2 × records anyway).
* Map-side SPILLED_RECORDS = every spill's records + every intermediate merge pass's output
  + the final merged output (no merge, hence no final output, after a single spill).
* Reduce side with the defaults (reduce.input.buffer.percent = 0) and segments that fit the
  shuffle buffer: the final merge writes the in-memory segments to one disk file to satisfy
  the reduce memory limit, adding the reducer's records once.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

METASIZE = 16


def soft_limit(io_sort_mb: int, spill_percent: float) -> int:
    buffer = (io_sort_mb << 20) // METASIZE * METASIZE
    return int(buffer * spill_percent)


def spills_by_formula(records: int, io_sort_mb: int, spill_percent: float, w: int) -> int:
    """The issue's spill-count formula."""
    if records == 0:
        return 0
    per = soft_limit(io_sort_mb, spill_percent) // (w + METASIZE)
    return math.ceil(records / per)


def records_per_full_spill(io_sort_mb: int, spill_percent: float, w: int) -> int:
    """Records in a full spill: ceil((S − 16) / (w + 16))."""
    return -(-(soft_limit(io_sort_mb, spill_percent) - METASIZE) // (w + METASIZE))


def spill_sizes(records: int, io_sort_mb: int, spill_percent: float, w: int) -> list[int]:
    """Records of each spill: full spills, then the remainder."""
    per = records_per_full_spill(io_sort_mb, spill_percent, w)
    full, rest = divmod(records, per)
    return [per] * full + ([rest] if rest else [])


def simulate_spill_sizes(
    records: int,
    io_sort_mb: int,
    spill_percent: float,
    key_bytes: int = 10,
    value_bytes: int = 90,
) -> list[int]:
    """Records of each spill, following ``MapOutputBuffer`` position by position.

    For fixed-size records (serialized key then value). Each spill's records are collected
    from an *equator* e: the first metadata slot sits at aligned(e) − 16 with
    aligned(e) = e − e mod 16, so the bytes in use after n records are
    bUsed = (e mod 16) + 16 + n·(w + 16), plus the void left at the buffer's end when a key
    would wrap and ``shiftBufferedKey`` moves it to offset 0. ``collect`` starts a spill at
    the first record for which bUsed ≥ S; the next equator is set past the last record by
    max(31, min(free / 2, free / (16 + avg record) × 16)) bytes (``collect``), free being
    the distance from the data's end to the next metadata slot. Valid when the previous
    spill finishes before the buffer reaches the soft limit again (spill percent ≥ 0.5).
    """
    length = (io_sort_mb << 20) // METASIZE * METASIZE
    soft = int(length * spill_percent)
    w = key_bytes + value_bytes
    sizes: list[int] = []
    left = records
    equator = 0
    while left > 0:
        aligned = equator - equator % METASIZE
        used = equator % METASIZE + METASIZE
        pos = equator  # start of the next record (may be >= length before wrapping)
        n = 0
        while left - n > 0 and used < soft:
            start = pos % length
            if start + key_bytes > length:  # key would wrap: moved to 0, tail becomes void
                used += length - start
                start = 0
                pos = 0
            used += w + METASIZE
            pos = start + w
            n += 1
        sizes.append(n)
        left -= n
        if left <= 0:
            break
        end = pos % length
        kv_next = (aligned - METASIZE - METASIZE * n) % length
        free = (kv_next - end) % length
        gap = max(2 * METASIZE - 1, min(free // 2, free // (METASIZE + w) * METASIZE))
        equator = (end + gap) % length
    return sizes


def merge_intermediate_records(segments: list[int], factor: int) -> tuple[int, int]:
    """(intermediate passes, records written by them) of ``Merger.MergeQueue.merge``.

    Segments are ordered by size (records here, as every record has the same size); the
    first pass merges just enough segments that every later pass is full
    (``getPassFactor``); the merge stops writing when the remaining segments fit one pass.
    """
    heap = list(segments)
    heapq.heapify(heap)
    passes = written = 0
    pass_no = 1
    while True:
        n = len(heap)
        if pass_no > 1 or n <= factor or factor == 1:
            f = factor
        else:
            mod = (n - 1) % (factor - 1)
            f = factor if mod == 0 else mod + 1
        if n <= f:
            return passes, written
        merged = sum(heapq.heappop(heap) for _ in range(f))
        heapq.heappush(heap, merged)
        written += merged
        passes += 1
        pass_no += 1


@dataclass(frozen=True)
class Expected:
    spills_per_map: list[int]
    records_per_spill: list[list[int]]
    map_spilled_records: int
    reduce_spilled_records: int

    @property
    def spilled_records(self) -> int:
        return self.map_spilled_records + self.reduce_spilled_records


def expected_counters(
    records_per_map: list[int],
    io_sort_mb: int,
    spill_percent: float = 0.80,
    sort_factor: int = 10,
    w: int = 100,
) -> Expected:
    """Expected spills and SPILLED_RECORDS of the sort job with one reducer and default
    reduce-side settings (segments fetched to memory, then evicted to disk at the final merge).
    """
    spills, sizes = [], []
    map_spilled = 0
    for n in records_per_map:
        segs = simulate_spill_sizes(n, io_sort_mb, spill_percent, 10, w - 10)
        spills.append(spills_by_formula(n, io_sort_mb, spill_percent, w))
        sizes.append(segs)
        map_spilled += sum(segs)
        if len(segs) > 1:
            _, inter = merge_intermediate_records(segs, sort_factor)
            map_spilled += inter + n
    return Expected(spills, sizes, map_spilled, sum(records_per_map))


def records_in_split(start: int, length: int, record_bytes: int = 100) -> int:
    """Records whose first byte lies in [start, start + length) (RecordInputFormat's rule)."""
    first = -(-start // record_bytes)
    end = -(-(start + length) // record_bytes)
    return end - first
