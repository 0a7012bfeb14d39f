"""The basic (eq. 3.17) and refined (eqs. 3.19-3.23) stage models, with hand-computed numbers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mrtune.costmodel.workflow import (
    basic_schedule,
    basic_stage_ms,
    estimate_workflow,
    pig_stages,
    refined_schedule,
    refined_stage_ms,
)

durations = st.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False)
stage_jobs = st.lists(st.tuples(durations, durations), min_size=1, max_size=9)


def test_two_concurrent_jobs_hand_computed() -> None:
    # J1 = (map 4, reduce 2), J2 = (map 3, reduce 5).
    # Basic: (4 + 2) + (3 + 5) = 14.
    # Refined: J2's maps run 4..7 while J1 reduces 4..6; J2 reduces max(7, 6)..12 -> 12
    # = 4 + max(2, 3) + 5.
    assert basic_stage_ms([4, 3], [2, 5]) == 14.0
    assert refined_stage_ms([4, 3], [2, 5]) == 12.0
    sched = refined_schedule([4, 3], [2, 5])
    np.testing.assert_array_equal(sched.map_start, [0, 4])
    np.testing.assert_array_equal(sched.map_end, [4, 7])
    np.testing.assert_array_equal(sched.reduce_start, [4, 7])
    np.testing.assert_array_equal(sched.reduce_end, [6, 12])


def test_three_concurrent_jobs_like_figure_3_20() -> None:
    # (4,2), (3,5), (2,1): maps end at 4, 7, 9; reduces run 4..6, max(7,6)=7..12, max(9,12)=12..13.
    sched = refined_schedule([4, 3, 2], [2, 5, 1])
    np.testing.assert_array_equal(sched.reduce_start, [4, 7, 12])
    np.testing.assert_array_equal(sched.reduce_end, [6, 12, 13])
    assert float(sched.stage_ms) == 13.0
    assert basic_stage_ms([4, 3, 2], [2, 5, 1]) == 17.0
    basic = basic_schedule([4, 3, 2], [2, 5, 1])
    np.testing.assert_array_equal(basic.map_start, [0, 6, 14])
    np.testing.assert_array_equal(basic.reduce_end, [6, 14, 17])


@given(durations, durations)
def test_one_job_both_models_agree(m: float, r: float) -> None:
    assert refined_stage_ms([m], [r]) == basic_stage_ms([m], [r]) == m + r


@given(stage_jobs)
def test_refined_never_above_basic(jobs: list[tuple[float, float]]) -> None:
    m, r = np.array(jobs).T
    refined = float(refined_stage_ms(m, r))
    basic = float(basic_stage_ms(m, r))
    assert refined <= basic * (1 + 1e-12) + 1e-9
    # and never below what either resource needs on its own, nor below any single job
    assert refined >= max(m.sum(), r.sum(), (m + r).max()) * (1 - 1e-12) - 1e-9


@given(stage_jobs)
def test_refined_schedule_satisfies_eqs_3_22_and_3_23(jobs: list[tuple[float, float]]) -> None:
    m, r = np.array(jobs).T
    s = refined_schedule(m, r)
    np.testing.assert_allclose(s.map_start[1:], s.map_end[:-1])  # eq. 3.22
    assert np.all(s.reduce_start >= s.map_end - 1e-9)  # condition 1
    assert np.all(s.reduce_start[1:] >= s.reduce_end[:-1] - 1e-9)  # condition 2
    # and the reduce starts at the later of the two (eq. 3.23), not later
    expected = np.maximum(s.map_end[1:], s.reduce_end[:-1])
    np.testing.assert_allclose(s.reduce_start[1:], expected)


@given(st.lists(stage_jobs, min_size=1, max_size=4))
def test_batch_axis_matches_row_by_row(rows: list[list[tuple[float, float]]]) -> None:
    n = min(len(r) for r in rows)
    arr = np.array([r[:n] for r in rows])  # (batch, n_jobs, 2)
    batch = refined_stage_ms(arr[..., 0], arr[..., 1])
    one_by_one = [float(refined_stage_ms(a[:, 0], a[:, 1])) for a in arr]
    np.testing.assert_allclose(batch, one_by_one)


@given(st.lists(st.tuples(durations, durations), min_size=1, max_size=8))
def test_chain_gains_nothing_from_the_refined_model(jobs: list[tuple[float, float]]) -> None:
    names = [f"j{i}" for i in range(len(jobs))]
    deps = {name: ([names[i - 1]] if i else []) for i, name in enumerate(names)}
    stages = pig_stages(deps)
    assert all(len(s) == 1 for s in stages)
    est = estimate_workflow(stages, dict(zip(names, jobs, strict=True)))
    assert est.refined_ms == pytest.approx(est.basic_ms)
    assert est.basic_ms == pytest.approx(sum(m + r for m, r in jobs))


def test_workflow_total_is_sum_over_stages() -> None:
    # stage 1: a=(4,2), b=(3,5) -> basic 14, refined 12; stage 2: c=(1,1) -> 2 and 2.
    deps = {"a": [], "b": [], "c": ["a", "b"]}
    est = estimate_workflow(pig_stages(deps), {"a": (4, 2), "b": (3, 5), "c": (1, 1)})
    assert [s.basic_ms for s in est.stages] == [14.0, 2.0]
    assert [s.refined_ms for s in est.stages] == [12.0, 2.0]
    assert est.basic_ms == 16.0
    assert est.refined_ms == 14.0
    # the second stage starts where the first one ends, under each model
    c_refined = est.stages[1].refined_timeline[0]
    c_basic = est.stages[1].basic_timeline[0]
    assert (c_refined.map_start, c_refined.reduce_end) == (12.0, 14.0)
    assert (c_basic.map_start, c_basic.reduce_end) == (14.0, 16.0)


def test_best_order_policy_reorders_the_timeline() -> None:
    # b before a: maps 0..3, 3..7; b reduces 3..8; a reduces max(7, 8)..10 -> 10 < 12.
    est = estimate_workflow([("a", "b")], {"a": (4, 2), "b": (3, 5)}, order="best")
    stage = est.stages[0]
    assert stage.order == ("b", "a")
    assert stage.refined_ms == 10.0
    assert stage.given_refined_ms == 12.0
    assert est.stages[0].refined_timeline[1].reduce_end == 10.0


def test_map_only_job_in_a_stage() -> None:
    # A map-only job (T^R = 0) after a long reduce still ends at the later reduce end (eq. 3.23).
    assert refined_stage_ms([2, 1], [10, 0]) == 12.0


@pytest.mark.parametrize(
    ("m", "r"),
    [([-1.0], [1.0]), ([1.0], [-1.0]), (1.0, 1.0)],
)
def test_invalid_inputs_raise(m: object, r: object) -> None:
    with pytest.raises(ValueError):
        refined_stage_ms(m, r)


def test_unknown_order_policy_and_missing_job() -> None:
    with pytest.raises(ValueError, match="order policy"):
        estimate_workflow([("a",)], {"a": (1, 1)}, order="random")
    with pytest.raises(ValueError, match="no stage durations"):
        estimate_workflow([("a", "b")], {"a": (1, 1)})
