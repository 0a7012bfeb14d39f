"""The i.i.d. Zipf key law of the combiner (``mrtune.costmodel.combiner.zipf_distinct``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.costmodel import DataflowStats
from mrtune.costmodel.combiner import (
    combined_records,
    distinct_keys,
    zipf_distinct,
    zipf_distinct_exact,
)


def _exact(n: list[float], vocabulary: int, exponent: float) -> np.ndarray:
    """Σ_i 1 − (1 − p_i)^n over every rank (no bins, no table)."""
    i = np.arange(1, vocabulary + 1, dtype=np.float64)
    p = i**-exponent
    p /= p.sum()
    lp = np.log1p(-p)
    return np.array([np.sum(-np.expm1(x * lp)) for x in n])


@settings(max_examples=25, deadline=None)
@given(vocabulary=st.integers(10, 400_000), exponent=st.floats(0.0, 2.5))
def test_table_and_bins_match_the_exact_sum(vocabulary: int, exponent: float) -> None:
    n = [1.0, 37.0, 5e3, 3e5, 4.05e6, 1e9]
    want = _exact(n, vocabulary, exponent)
    assert zipf_distinct_exact(np.array(n), vocabulary, exponent) == pytest.approx(want, rel=3e-4)
    assert zipf_distinct(np.array(n), vocabulary, exponent) == pytest.approx(want, rel=5e-4)


@settings(max_examples=25, deadline=None)
@given(vocabulary=st.integers(2, 10**7), exponent=st.floats(0.0, 3.0))
def test_distinct_keys_grow_and_saturate(vocabulary: int, exponent: float) -> None:
    """More records never show fewer distinct keys, never more than records or vocabulary."""
    n = np.geomspace(1.0, 1e13, 60)
    d = zipf_distinct(n, vocabulary, exponent)
    assert np.all(np.diff(d) >= -1e-9 * d[1:])
    assert np.all(d <= n * (1 + 1e-6))
    assert np.all(d <= vocabulary * (1 + 1e-6))


def test_wordcount_text_hand_values() -> None:
    """The project's WordCount input is Zipf text over 100 k words with s = 1.1; the law gives
    what Hadoop counted on it (fidelity matrix): 94,979 distinct words in one 4,051,416-record
    spill, 82,855 in 2,025,885 records, REDUCE_INPUT_GROUPS 99,411 over 8,103,540."""
    d = zipf_distinct(np.array([4_051_416.0, 2_025_885.0, 8_103_540.0]), 100_000, 1.1)
    assert d == pytest.approx([94_979, 82_855, 99_411], rel=5e-4)


def test_combiner_uses_the_key_law_when_known() -> None:
    stats = DataflowStats(key_vocabulary=100_000, key_zipf_exponent=1.1, key_law_scale=1.0)
    n = np.array([4_051_416.0, 10.0, 0.0])
    out = combined_records(n, n, stats)
    assert out[0] == pytest.approx(94_986, rel=5e-4)
    assert out[1] <= 10.0 and out[2] == 0.0


def test_key_law_knots_interpolate_and_fade_to_the_law() -> None:
    """``knot_factor``: through the knots, linear in log n between them, back to 1 within a
    factor of 2 outside; the fit reproduces each observation (three knots, three sums)."""
    from mrtune.costmodel.combiner import knot_factor
    from mrtune.profiling.combine_fit import fit_key_law_knots

    knots = ((1e5, 1.01), (1e6, 0.99))
    f = knot_factor(np.array([1e5, np.sqrt(1e5 * 1e6), 1e6, 2e6, 5e4, 1e3, 1e9]), knots)
    np.testing.assert_allclose(f, [1.01, 1.0, 0.99, 1.0, 1.0, 1.0, 1.0], atol=1e-12)

    def law(n: np.ndarray) -> np.ndarray:
        return zipf_distinct(n, 100_000, 1.1)

    obs = [
        ([3e5, 1.2e5], 1.002 * float(law(np.array([3e5, 1.2e5])).sum())),
        ([5e5], 0.997 * float(law(np.array([5e5]))[0])),
        ([4e6], 1.001 * float(law(np.array([4e6]))[0])),
    ]
    got = fit_key_law_knots(obs, law)
    assert got is not None
    fitted, worst = got
    assert worst < 1e-12
    stats = DataflowStats(key_vocabulary=100_000, key_zipf_exponent=1.1, key_law_knots=fitted)
    for sizes, d in obs:
        assert float(distinct_keys(np.array(sizes), stats).sum()) == pytest.approx(d, rel=1e-12)
