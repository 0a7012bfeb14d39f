"""The vectorised merge plans equal Hadoop's ``Merger`` simulated (reference §3, §7).

The job model's hot path uses closed forms (:func:`mrtune.costmodel.merge_plans.spill_merge_plan`,
:func:`mrtune.costmodel.merge_plans.reduce_disk_plan_arrays`); the per-key simulations they
replaced (:mod:`mrtune.costmodel.merger`) stay as the reference here, over wide ranges (N up to 10^5 and beyond, F 2..500, files up to 5000),
at the edges where float logarithms could slip (N + dummies an exact power of F), and as whole
arrays of mixed configurations at once.
"""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mrtune.costmodel.merge_plans import (
    reduce_disk_plan_arrays,
    shuffle_disk_merge_arrays,
    shuffle_final_files,
    spill_merge_plan,
)
from mrtune.costmodel.merger import (
    _shuffle_disk_merges,
    _spill_plan_simulated,
    interm_merge_spills,
    num_merge_passes,
    reduce_disk_plan,
    simulate_merge,
)


def _plan(n: int, f: int) -> tuple[int, int, int]:
    passes, a, b = spill_merge_plan(np.array([n]), np.array([f]))
    return int(passes[0]), int(a[0]), int(b[0])


def _reference(n: int, f: int) -> tuple[int, int, int]:
    """The exact plan: the cached bulk simulation beyond F², the §2.4 closed forms below."""
    if n > f * f:
        return _spill_plan_simulated(n, f)
    s = interm_merge_spills(n, f)
    return (num_merge_passes(n, f), max(s - 1, 0), int(s > 0))


@settings(max_examples=400, deadline=None)
@given(f=st.integers(2, 500), data=st.data())
@example(f=2, data=None)
def test_spill_plan_equals_bulk_simulation(f: int, data: st.DataObject | None) -> None:
    """N > F² (where the model used to simulate), N up to 10^5 or F² + 10^5 for large F."""
    lo = f * f + 1
    hi = max(100_000, lo + 100_000 if lo > 100_000 else 100_000)
    n = hi if data is None else data.draw(st.integers(lo, hi))
    assert _plan(n, f) == _spill_plan_simulated(n, f)


@settings(max_examples=300, deadline=None)
@given(f=st.integers(2, 500), k=st.integers(1, 42), delta=st.integers(-3, 3))
@example(f=2, k=42, delta=0)
@example(f=10, k=12, delta=-1)
def test_spill_plan_exact_near_powers_of_f(f: int, k: int, delta: int) -> None:
    """N (+ dummies) at or next to F^k, up to 2^42: where ``log N / log F`` is nearly integral."""
    n = min(f**k, 2**42) + delta
    assert _plan(n, f) == _reference(n, f)


@settings(max_examples=200, deadline=None)
@given(
    f=st.integers(2, 40),
    n=st.integers(1, 1500),
    last=st.floats(0.01, 0.99),
    recs=st.floats(1.0, 1e4),
)
def test_spill_plan_equals_merger_simulation(f: int, n: int, last: float, recs: float) -> None:
    """Against the segment-by-segment ``Merger`` simulation with a smaller last spill."""
    segs = [(1.0, recs)] * (n - 1) + [(last, last * recs)]
    r = simulate_merge(segs, f)
    passes, a, b = _plan(n, f)
    assert passes == r.passes
    assert np.isclose(a + b * last, r.intermediate_read_bytes, rtol=1e-12)
    assert np.isclose((a + b * last) * recs, r.intermediate_read_records, rtol=1e-12)


@settings(max_examples=300, deadline=None)
@given(f=st.integers(2, 60), data=st.data())
def test_spill_plan_equals_section_2_4_closed_forms(f: int, data: st.DataObject) -> None:
    n = data.draw(st.integers(1, f * f))
    passes, a, b = _plan(n, f)
    assert passes == num_merge_passes(n, f)
    assert a + b == interm_merge_spills(n, f)


def test_spill_plan_on_mixed_arrays() -> None:
    """One call over many (N, F) pairs gives each pair's answer (no cross-row leakage)."""
    rng = np.random.default_rng(7)
    f = rng.integers(2, 501, 3000)
    n = np.where(rng.random(3000) < 0.5, rng.integers(0, 100_001, 3000), rng.integers(0, 60, 3000))
    passes, a, b = spill_merge_plan(n, f)
    for i in range(len(n)):
        assert (passes[i], a[i], b[i]) == _reference(int(n[i]), int(f[i]))


@settings(max_examples=300, deadline=None)
@given(f=st.integers(2, 500), files=st.integers(0, 5000))
@example(f=2, files=5000)
@example(f=10, files=19)
def test_shuffle_disk_merges_equal_simulation(f: int, files: int) -> None:
    sizes, merges, units = _shuffle_disk_merges(files, f)
    m, u, (v1, c1, v2, c2, v3, c3) = shuffle_disk_merge_arrays(np.array([files]), np.array([f]))
    left = sorted(
        [int(v1[0])] * int(c1[0]) + [int(v2[0])] * int(c2[0]) + [int(v3[0])] * int(c3[0])
    )
    assert (int(m[0]), int(u[0]), tuple(left)) == (merges, units, sizes)
    assert shuffle_final_files(np.array([files]), np.array([f]))[0] == len(sizes)


@settings(max_examples=300, deadline=None)
@given(
    f=st.integers(2, 500),
    files=st.integers(0, 5000),
    in_mem=st.integers(0, 300),
    mem_ratio=st.floats(0.0, 50.0),
)
@example(f=10, files=15, in_mem=4, mem_ratio=0.5)
@example(f=3, files=4, in_mem=1, mem_ratio=0.0)
def test_reduce_disk_plan_equals_simulation(
    f: int, files: int, in_mem: int, mem_ratio: float
) -> None:
    """Every field of the plan, for any in-memory segment count and size ratio."""
    p = reduce_disk_plan(files, f, in_mem, round(mem_ratio, 2))
    got = reduce_disk_plan_arrays(np.array([files]), np.array([f]), np.array([in_mem]))
    expected = (
        p.shuffle_merges,
        p.shuffle_units,
        p.final_files,
        p.final_passes,
        p.interm_read_d,
        p.interm_read_m,
        p.interm_written_d,
        p.interm_written_m,
        p.final_disk_d,
        p.final_disk_m,
    )
    assert tuple(int(g[0]) for g in got) == expected


def test_reduce_disk_plan_on_mixed_arrays() -> None:
    rng = np.random.default_rng(11)
    f = rng.integers(2, 501, 2000)
    files = np.where(
        rng.random(2000) < 0.5, rng.integers(0, 5001, 2000), rng.integers(0, 40, 2000)
    )
    in_mem = rng.integers(0, 50, 2000)
    got = np.stack(reduce_disk_plan_arrays(files, f, in_mem), axis=1)
    for i in range(len(f)):
        p = reduce_disk_plan(int(files[i]), int(f[i]), int(in_mem[i]))
        assert tuple(got[i]) == (
            p.shuffle_merges,
            p.shuffle_units,
            p.final_files,
            p.final_passes,
            p.interm_read_d,
            p.interm_read_m,
            p.interm_written_d,
            p.interm_written_m,
            p.final_disk_d,
            p.final_disk_m,
        )
