"""The converter on the real-Hadoop harness's records in ``benchmarks/results`` (when present)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.readers.phase_data import parse_run_records, rows_from_run_record

RESULTS = Path(__file__).resolve().parents[3] / "benchmarks" / "results"
FILES = sorted(RESULTS.glob("runs-*.jsonl"))


@pytest.mark.skipif(not FILES, reason="no benchmarks/results/runs-*.jsonl recorded yet")
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_phases_of_every_task_add_up_to_its_duration(path: Path) -> None:
    """Map: map + spill + merge = start → done; reduce: shuffle + sort + write = start → done.

    The converter cuts each attempt at consecutive log instants, so nothing is lost or counted
    twice; this holds for every successful run with complete boundaries.
    """
    records = [r for r in parse_run_records(path.read_text(), str(path)) if r.success]
    assert records
    checked = 0
    for record in records:
        rows = rows_from_run_record(record)
        assert all(r.duration_ms >= 0 for r in rows)
        maps = [r for r in rows if r.operation in ("map", "spill", "merge")]
        reduces = [r for r in rows if r.operation in ("shuffle", "sort", "write")]
        complete_maps = [
            a for a in record.map_attempts if a.flush_ms and a.spills and a.done_ms and a.start_ms
        ]
        if len(maps) == 3 * len(record.map_attempts) == 3 * len(complete_maps):
            total = sum(r.duration_ms for r in maps)
            assert total == sum(a.done_ms - a.start_ms for a in complete_maps)
            checked += 1
        if reduces and len(reduces) == 3 * len(record.reduce_attempts):
            total = sum(r.duration_ms for r in reduces)
            assert total == sum(a.done_ms - a.start_ms for a in record.reduce_attempts)
            checked += 1
    assert checked > 0
