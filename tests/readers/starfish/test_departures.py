"""The departures from Starfish in docs/starfish-differences.md point the way the document says.

The figures are produced by :func:`.departures.measure` (mrtune's model against the reference
equations with Starfish's quirks switched on); these tests pin the direction and rough size of
each one, so a model change that alters them shows up here and in the document's table.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from .departures import Row, doc_line, measure
from .reproduction import table as reproduction_table

DOC = Path(__file__).resolve().parents[3] / "docs" / "starfish-differences.md"


@pytest.fixture(scope="module")
def rows() -> list[Row]:
    return measure()


def _pick(rows: list[Row], topic: str, scenario: str, quantity: str) -> Row:
    found = [
        r for r in rows if r.topic == topic and scenario in r.scenario and quantity in r.quantity
    ]
    assert len(found) == 1, (topic, scenario, quantity, found)
    return found[0]


def test_sort_log_base(rows: list[Row]) -> None:
    sort = _pick(rows, "sort log base", "sort term only", "sort ms")
    # Starfish's ln on a log2-calibrated cost under-charges by ln 2 (n/R = 53,333 > 10 here).
    assert sort.starfish / sort.mrtune == pytest.approx(math.log(2), rel=1e-3)


def test_averaged_spills(rows: list[Row]) -> None:
    for scenario in ("io.sort.mb=20", "io.sort.factor=2"):
        merge = _pick(rows, "averaged spills", scenario, "map Merge ms")
        spill = _pick(rows, "averaged spills", scenario, "map Spill ms")
        # Hadoop merges the small last spill in the first pass: fewer bytes re-merged.
        assert -6.0 < merge.pct < -1.0
        assert abs(spill.pct) < 0.1
    full = _pick(rows, "averaged spills", "full-buffer", "map Spill ms")
    assert full.pct < -15.0  # the report's form charges three full buffers for 2.44 of data


def test_combiner_law(rows: list[Row]) -> None:
    prod = _pick(rows, "combiner law", "io.sort.record.percent", "plain product")
    sf = _pick(rows, "combiner law", "io.sort.record.percent", "Starfish ln")
    # mrtune: combining all 2,000,000 map output records leaves the keys the profile measured.
    assert prod.mrtune == pytest.approx(2_000_000 * 0.1)
    assert prod.starfish == pytest.approx(prod.mrtune * 0.1)  # selectivity applied twice
    assert prod.starfish < sf.starfish < sf.mrtune
    ours = _pick(rows, "combiner law", "real WordCount", "mrtune vs measured")
    star = _pick(rows, "combiner law", "real WordCount", "Starfish vs measured")
    assert abs(ours.pct) < abs(star.pct)


def test_evicted_segments(rows: list[Row]) -> None:
    bug = _pick(rows, "evicted segments", "3 segments evicted", "reduce input records")
    fixed = _pick(rows, "evicted segments", "corrected reference", "reduce input records")
    assert bug.mrtune - bug.starfish == pytest.approx(3 * 160_000, rel=1e-3)  # 3 segments
    assert fixed.pct == pytest.approx(0.0, abs=0.01)


def test_scheduler(rows: list[Row]) -> None:
    delays = _pick(rows, "scheduler delays", "wordcount", "job ms")
    assert delays.mrtune < delays.starfish
    # 3 s a task (1.5 s before, 1.5 s inside) against 1 s: 2 s for each of the 4 map waves
    # (48 maps, 12 slots); the one reduce wave's delay hides under the map stage, because its
    # shuffle waits for the last map (BasicFIFOScheduler's first-wave rule, and mrtune's).
    assert delays.starfish - delays.mrtune == pytest.approx(2000.0 * 4, rel=1e-9)


def test_document_has_no_row_the_code_does_not_produce(rows: list[Row]) -> None:
    """Every "| topic |" row of the summary table is a topic :func:`measure` produces, except
    the ones the document says are not measured by it."""
    topics = {r.topic.lower() for r in rows}
    summary = DOC.read_text().split("## Summary", 1)[1]
    for line in summary.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 3 or cells[0] in {"topic", "---"} or set(cells[0]) <= {"-"}:
            continue
        topic = cells[0].split(" (")[0].lower()
        assert topic in topics or "not measured here" in line, line


def test_ifile_overhead_raises_task_times(rows: list[Row]) -> None:
    for name in ("terasort", "wordcount"):
        for what in ("map task ms", "reduce task ms"):
            assert _pick(rows, "IFile overhead", name, what).pct > 0


def test_final_merge_charge(rows: list[Row]) -> None:
    ts = _pick(rows, "final-merge charge", "terasort", "reduce Reduce ms")
    wc = _pick(rows, "final-merge charge", "wordcount", "reduce Reduce ms")
    assert ts.pct > 50  # compressed: the final merge's decompression dominates
    assert 5 < wc.pct < 7  # uncompressed: MERGE_CPU_COST / REDUCE_CPU_COST = 80 / 1200


def test_document_lists_every_topic(rows: list[Row]) -> None:
    text = DOC.read_text()
    for topic in {r.topic for r in rows}:
        assert topic.lower() in text.lower(), topic


def test_shuffle_time_disk_merges_move_work_between_phases(rows: list[Row]) -> None:
    shuffle = _pick(rows, "shuffle-time disk merges", "196 maps", "reduce Shuffle ms")
    merge = _pick(rows, "shuffle-time disk merges", "196 maps", "reduce Merge ms")
    total = _pick(rows, "shuffle-time disk merges", "196 maps", "Shuffle + Merge")
    assert shuffle.pct > 10 and merge.mrtune < merge.starfish
    assert total.pct == pytest.approx(0.0, abs=0.5)


def test_hadoop1_inmemory_merge_trigger(rows: list[Row]) -> None:
    """Hadoop 1's stalled-fetch floor(T/u): mrtune's Hadoop 1 mode and the reference agree."""
    k = _pick(rows, "in-memory merge trigger", "3 reducers", "segments per in-memory merge")
    assert (k.mrtune, k.starfish) == (6.0, 6.0)
    for what in ("reduce Shuffle ms", "reduce Merge ms"):
        assert abs(_pick(rows, "in-memory merge trigger", "3 reducers", what).pct) < 0.01


def test_document_shows_the_measured_figures(rows: list[Row]) -> None:
    """Every figure of :func:`measure` is in the document, as :func:`.departures.doc_line`
    writes it; ``python -m tests.readers.starfish.departures`` prints them."""
    lines = {line.strip() for line in DOC.read_text().splitlines()}
    missing = [doc_line(r) for r in rows if doc_line(r) not in lines]
    assert not missing, "\n".join(missing)


def test_document_shows_the_reproduction_table() -> None:
    lines = {line.strip() for line in DOC.read_text().splitlines()}
    missing = [line for line in reproduction_table() if line not in lines]
    assert not missing, "\n".join(missing)
