"""The referee of the hadoop-marked test, checked against reference values and a real run."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from mrtune.readers.task_log import parse_log
from tests.harness.hadoop_expectations import (
    expected_counters,
    merge_intermediate_records,
    records_in_split,
    records_per_full_spill,
    simulate_spill_sizes,
    spill_sizes,
    spills_by_formula,
)

FIXTURES = Path(__file__).resolve().parents[1] / "readers" / "fixtures"


def test_merger_reference_case() -> None:
    """cost-model-reference.md §3.2: 26 unit spills, factor 5 → 6 intermediate passes
    (2, 5, 5, 5, 5, 5 segments) writing 2+5+5+5+5+(4+2)=28 units, then the final pass."""
    passes, written = merge_intermediate_records([1] * 26, 5)
    assert (passes, written) == (6, 28)


def test_no_intermediate_pass_up_to_factor() -> None:
    assert merge_intermediate_records([7, 7, 3], 10) == (0, 0)
    assert merge_intermediate_records([5] * 10, 10) == (0, 0)


@given(
    n=st.integers(min_value=2, max_value=300),
    factor=st.integers(min_value=2, max_value=50),
)
def test_merge_ends_with_at_most_factor_segments(n: int, factor: int) -> None:
    passes, written = merge_intermediate_records([1] * n, factor)
    if n <= factor:
        assert passes == 0
    else:
        # every pass turns f segments into one; the final pass then merges <= factor
        assert passes >= 1 and written >= 2
        assert written <= passes * n


@given(
    sort_mb=st.integers(min_value=1, max_value=64),
    pct=st.sampled_from([0.5, 0.66, 0.8, 0.9, 0.99]),
    records=st.integers(min_value=1, max_value=2_000_000),
)
def test_exact_spill_size_gives_the_formula_spill_count_almost_always(
    sort_mb: int, pct: float, records: int
) -> None:
    """The floor formula and the exact per-spill size differ by one record per spill, so the
    spill counts differ by at most one."""
    per = records_per_full_spill(sort_mb, pct, 100)
    exact = -(-records // per)
    assert abs(exact - spills_by_formula(records, sort_mb, pct, 100)) <= 1


def test_split_records() -> None:
    assert records_in_split(0, 8388608) == 83887
    assert records_in_split(8388608, 8388592) == 83885
    assert records_in_split(0, 100) == 1 and records_in_split(1, 99) == 0


def test_expectation_matches_a_real_run() -> None:
    """sort-spills.log: io.sort.mb 1, two 8 MiB splits of 16 MiB of 100-byte records."""
    maps, reduces = parse_log((FIXTURES / "sort-spills.log").read_text())
    exp = expected_counters([83887, 83885], io_sort_mb=1)
    assert exp.spills_per_map == [m.num_spills for m in maps] == [12, 12]
    assert exp.records_per_spill == [[s.records for s in m.spills] for m in maps]
    spilled = [m.counters["Map-Reduce Framework"]["Spilled Records"] for m in maps]
    assert exp.map_spilled_records == sum(spilled)
    (r,) = reduces
    assert exp.reduce_spilled_records == r.counters["Map-Reduce Framework"]["Spilled Records"]


def test_equator_alignment_makes_a_later_spill_one_record_smaller() -> None:
    """Observed (Hadoop 3.5.0, io.sort.mb 4, 83887 records): spills of 28927, 28926, 26034.
    The second spill's equator is 3008380 ≡ 12 (mod 16), so it holds
    ceil((3355443 − 16 − 12) / 116) = 28926 records."""
    assert simulate_spill_sizes(83887, 4, 0.8) == [28927, 28926, 26034]
    assert spill_sizes(83887, 4, 0.8, 100) == [28927, 28927, 26033]


@given(
    records=st.integers(min_value=1, max_value=60_000),
    sort_mb=st.integers(min_value=1, max_value=3),
    pct=st.sampled_from([0.5, 0.8, 0.99]),
)
def test_simulated_spills_partition_the_records(records: int, sort_mb: int, pct: float) -> None:
    sizes = simulate_spill_sizes(records, sort_mb, pct)
    assert sum(sizes) == records and min(sizes) >= 1
    full = records_per_full_spill(sort_mb, pct, 100)
    assert sizes[0] == min(full, records)
    assert all(full - 1 <= n <= full for n in sizes[:-1])
