"""Hadoop's Merger: hand-computed cases and closed forms = simulation (reference §2.4, §3)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.costmodel.merge_plans import spill_merge_plan
from mrtune.costmodel.merger import (
    final_merge_spills,
    first_pass_size,
    interm_merge_spills,
    num_merge_passes,
    reduce_disk_plan,
    simulate_merge,
)


def test_26_spills_factor_5_starfish_check() -> None:
    r = simulate_merge([(1024.0, 10.0)] * 26, 5)
    assert r.passes == 7
    assert r.intermediate_read_bytes / 1024 == 28
    assert (r.intermediate_read_bytes + r.final_read_bytes) / 1024 == 54
    assert r.intermediate_read_bytes + r.final_read_bytes == 55_296
    assert r.intermediate_written_bytes == 28 * 1024
    # 54 spill-units read over all passes × 10 records per spill (reference §3.2)
    assert r.intermediate_read_records + r.final_read_records == 540


def test_28_spills_factor_10() -> None:
    assert first_pass_size(28, 10) == 10
    assert interm_merge_spills(28, 10) == 20
    assert final_merge_spills(28, 10) == 10
    assert num_merge_passes(28, 10) == 3
    r = simulate_merge([(1.0, 1.0)] * 28, 10)
    assert (r.passes, r.intermediate_read_bytes, r.final_segments) == (3, 20, 10)


@settings(max_examples=300, deadline=None)
@given(f=st.integers(2, 30), data=st.data())
def test_closed_forms_equal_simulation_for_n_up_to_f_squared(f: int, data: st.DataObject) -> None:
    n = data.draw(st.integers(1, f * f))
    r = simulate_merge([(1.0, 1.0)] * n, f)
    assert r.passes == num_merge_passes(n, f)
    assert r.intermediate_read_bytes == interm_merge_spills(n, f)
    if n > 1:
        assert r.final_segments == final_merge_spills(n, f)


@settings(max_examples=300, deadline=None)
@given(f=st.integers(2, 12), n=st.integers(1, 400), last=st.floats(0.01, 1.0))
def test_vectorised_plan_equals_simulation_with_smaller_last_spill(
    f: int, n: int, last: float
) -> None:
    segs = [(1.0, 1.0)] * (n - 1) + [(last, last)]
    r = simulate_merge(segs, f)
    passes, a, b = spill_merge_plan(np.array([n]), np.array([f]))
    assert passes[0] == r.passes
    assert np.isclose(a[0] + b[0] * last, r.intermediate_read_bytes)


def test_reduce_disk_plan_triggers_at_2f_minus_1() -> None:
    assert reduce_disk_plan(18, 10, 0).shuffle_merges == 0
    p = reduce_disk_plan(19, 10, 0)
    assert p.shuffle_merges == 1 and p.shuffle_units == 10 and p.final_files == 10
    # files left for the final merge never exceed 2F - 2
    for files in range(1, 200):
        assert reduce_disk_plan(files, 5, 0).final_files <= 2 * 5 - 2
