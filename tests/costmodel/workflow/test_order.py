"""Order of concurrent jobs in a stage: exhaustive search and Johnson's rule."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.costmodel.workflow import (
    best_order,
    exhaustive_order,
    johnson_order,
    johnson_stage_ms,
    refined_stage_ms,
)

times = st.integers(min_value=0, max_value=100).map(float)
instances = st.lists(st.tuples(times, times), min_size=2, max_size=7)


def test_textbook_instance() -> None:
    # Jobs (map, reduce): A(3,6) B(5,2) C(1,2) D(6,6) E(7,5).
    # Johnson: M < R -> C(1), A(3) by increasing map; the rest by decreasing reduce: D(6), E(5), B(2).
    m = [3, 5, 1, 6, 7]
    r = [6, 2, 2, 6, 5]
    order = johnson_order(m, r)
    assert order.tolist() == [2, 0, 3, 4, 1]
    # maps end 1, 4, 10, 17, 22; reduces: C 1..3, A 4..10, D 10..16, E 17..22, B 22..24.
    assert float(refined_stage_ms(np.array(m)[order], np.array(r)[order])) == 24.0
    assert exhaustive_order(m, r).stage_ms == 24.0


@settings(max_examples=200, deadline=None)
@given(instances)
def test_johnson_matches_exhaustive_search(jobs: list[tuple[float, float]]) -> None:
    m, r = np.array(jobs).T
    exhaustive = exhaustive_order(m, r)
    johnson = johnson_order(m, r)
    # Johnson's rule is optimal for the two-machine flow shop the refined model describes.
    assert float(refined_stage_ms(m[johnson], r[johnson])) == exhaustive.stage_ms
    assert float(johnson_stage_ms(m, r)) == exhaustive.stage_ms
    if len(jobs) <= 5:  # the vectorised search against a plain loop over every order
        brute = min(
            float(refined_stage_ms(m[list(p)], r[list(p)]))
            for p in itertools.permutations(range(len(jobs)))
        )
        assert exhaustive.stage_ms == brute


def test_exhaustive_keeps_the_given_order_on_ties() -> None:
    assert exhaustive_order([2, 2, 2], [2, 2, 2]).order == (0, 1, 2)


def test_best_order_method_depends_on_stage_size() -> None:
    rng = np.random.default_rng(7)
    m, r = rng.integers(1, 50, size=(2, 10)).astype(float)
    large = best_order(m, r, exhaustive_limit=8)
    assert large.method == "johnson"
    assert "Johnson" in large.description
    small = best_order(m[:5], r[:5])
    assert small.method == "exhaustive"
    assert small.description == "exhaustive search over 120 orders"
    assert best_order([3.0], [4.0]).method == "single"
    # Johnson on the large stage beats (or ties) every one of 2000 random orders.
    for _ in range(2000):
        p = rng.permutation(10)
        assert large.stage_ms <= float(refined_stage_ms(m[p], r[p]))


def test_johnson_stage_ms_is_vectorised() -> None:
    rng = np.random.default_rng(3)
    m = rng.uniform(1, 100, size=(50, 4))
    r = rng.uniform(1, 100, size=(50, 4))
    batch = johnson_stage_ms(m, r)
    rows = [exhaustive_order(m[i], r[i]).stage_ms for i in range(50)]
    np.testing.assert_allclose(batch, rows)
