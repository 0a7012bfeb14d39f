"""Stage durations: ARIA makespan bounds and waves."""

from __future__ import annotations

import heapq

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mrtune.costmodel.workflow import (
    JobTasks,
    bounds_from_durations,
    makespan_bounds,
    stage_durations_batch,
    wave_time,
)

task_times = st.lists(
    st.floats(min_value=0.0, max_value=1e5, allow_nan=False, allow_infinity=False),
    min_size=1,
    max_size=60,
)


def greedy_makespan(durations: list[float], slots: int) -> float:
    """Each task, in order, on the first slot to become free (what the bounds bound)."""
    free = [0.0] * slots
    for d in durations:
        heapq.heappush(free, heapq.heappop(free) + d)
    return max(free)


@given(task_times, st.integers(1, 40), st.booleans())
def test_bounds_are_ordered_and_bracket_greedy_assignment(
    durs: list[float], k: int, floor: bool
) -> None:
    b = bounds_from_durations(durs, k, floor_at_longest=floor)
    assert b.lower <= b.average <= b.upper
    tol = 1e-9 * (1 + sum(durs))
    assert b.lower - tol <= greedy_makespan(durs, k) <= b.upper + tol


def test_hand_computed_bounds() -> None:
    # 10 tasks, mean 6 s, longest 15 s, 4 slots: lower 10*6/4 = 15, upper 9*6/4 + 15 = 28.5.
    b = makespan_bounds(10, 6.0, 15.0, 4)
    assert float(b.lower) == 15.0
    assert float(b.upper) == 28.5
    assert float(b.average) == 21.75
    # One 40 s reducer on 64 slots: the seed's lower bound is 40/64 = 0.625 s, the average
    # 20.3125 s; raised to the longest task the lower bound is 40 s and so is the average.
    seed = makespan_bounds(1, 40.0, 40.0, 64, floor_at_longest=False)
    assert (float(seed.lower), float(seed.upper), float(seed.average)) == (0.625, 40.0, 20.3125)
    floored = makespan_bounds(1, 40.0, 40.0, 64)
    assert (float(floored.lower), float(floored.upper)) == (40.0, 40.0)


@given(st.integers(1, 200), st.floats(0.1, 1e5), st.integers(1, 64))
def test_equal_tasks(n: int, t: float, k: int) -> None:
    # With max == avg the seed's gap (upper - lower) is t (1 - 1/k); with the lower bound
    # raised to the longest task it is t min(n - 1, k - 1) / k. Either way the exact wave time
    # lies between the bounds, and they collapse onto it on one slot (and, floored, for one task).
    tol = 1e-9 * n * t
    seed = makespan_bounds(n, t, t, k, floor_at_longest=False)
    assert float(seed.upper - seed.lower) == pytest.approx(t * (1 - 1 / k), abs=tol)
    floored = makespan_bounds(n, t, t, k)
    assert float(floored.upper - floored.lower) == pytest.approx(
        t * min(n - 1, k - 1) / k, abs=tol
    )
    waves = float(wave_time(n, t, k))
    for b in (seed, floored):
        assert b.lower - tol <= waves <= b.upper + tol
    for b in (makespan_bounds(n, t, t, 1), makespan_bounds(n, t, t, 1, floor_at_longest=False)):
        assert float(b.lower) == pytest.approx(float(b.upper), rel=1e-12)
        assert float(b.average) == pytest.approx(n * t)
    single = makespan_bounds(1, t, t, k)
    assert float(single.lower) == float(single.upper) == t


def test_spread_widens_the_gap() -> None:
    equal = makespan_bounds(20, 10.0, 10.0, 5)
    skewed = makespan_bounds(20, 10.0, 30.0, 5)
    assert float(skewed.lower) == float(equal.lower)
    assert float(skewed.upper - equal.upper) == 20.0


def test_no_tasks_is_zero_and_vectorised() -> None:
    b = makespan_bounds(np.array([0, 4, 8]), 10.0, 10.0, 4)
    np.testing.assert_array_equal(b.lower, [0.0, 10.0, 20.0])
    np.testing.assert_array_equal(b.upper, [0.0, 17.5, 27.5])
    np.testing.assert_array_equal(wave_time([0, 4, 5], 10.0, 4), [0.0, 10.0, 20.0])


@pytest.mark.parametrize(
    "args",
    [(-1, 1.0, 1.0, 1), (1, -1.0, 1.0, 1), (1, 2.0, 1.0, 1), (1, 1.0, 1.0, 0)],
)
def test_invalid_bounds_arguments(args: tuple) -> None:
    with pytest.raises(ValueError):
        makespan_bounds(*args)


def test_job_tasks_estimates() -> None:
    # 10 maps of 6 s on 4 slots: waves ceil(10/4) * 6 = 18; bounds 15 .. 9*6/4+6 = 19.5.
    # 3 reduces of 20 s on 2 slots: waves 40; bounds 30 .. 2*20/2+20 = 40.
    job = JobTasks("j", 10, 3, 6.0, 20.0, map_slots=4, reduce_slots=2)
    assert job.stage_durations("waves") == (18.0, 40.0)
    assert job.stage_durations("lower") == (15.0, 30.0)
    assert job.stage_durations("upper") == (19.5, 40.0)
    assert job.stage_durations("average") == (17.25, 35.0)
    with pytest.raises(ValueError, match="unknown estimate"):
        job.stage_durations("median")
    m, r = stage_durations_batch(
        np.array([10, 20]), np.array([3, 3]), np.array([6.0, 3.0]), np.array([20.0, 20.0]), 4, 2
    )
    np.testing.assert_allclose(m, [17.25, (15 + 19 * 3 / 4 + 3) / 2])
    np.testing.assert_allclose(r, [35.0, 35.0])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_maps": 0},
        {"n_reduces": -1},
        {"map_slots": 0},
        {"map_task_ms": -1.0},
    ],
)
def test_job_tasks_rejects_bad_values(kwargs: dict) -> None:
    base = dict(
        name="j",
        n_maps=1,
        n_reduces=1,
        map_task_ms=1.0,
        reduce_task_ms=1.0,
        map_slots=1,
        reduce_slots=1,
    )
    with pytest.raises(ValueError):
        JobTasks(**{**base, **kwargs})
