"""Workflow evaluation through the cost model, the baseline, and per-job tuning for makespan."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.costmodel import ConfigBatch, predict_job
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.workflow import refined_stage_ms
from mrtune.optimizer.workflow_tuning import (
    RESOURCE_WEIGHT,
    candidate_configs,
    evaluate_workflow,
    extrapolation_baseline,
    job_config,
    pareto_front,
    tune_stage,
    tune_workflow,
)
from mrtune.readers.workflow_file import load_workflow


def test_tasks_example_hand_numbers(examples: Path) -> None:
    # The numbers worked out in the file's header comment.
    spec = load_workflow(examples / "concurrent3-tasks.yaml")
    ev = evaluate_workflow(spec)
    assert {n: (j.map_ms, j.reduce_ms) for n, j in ev.jobs.items()} == {
        "J1": (40_000.0, 30_000.0),
        "J2": (25_000.0, 60_000.0),
        "J3": (30_000.0, 20_000.0),
    }
    assert ev.result.basic_ms == 205_000.0
    assert ev.result.refined_ms == 150_000.0
    stage = ev.result.stages[0]
    assert stage.best_jobs == ("J2", "J1", "J3")
    assert stage.best.stage_ms == 135_000.0
    assert evaluate_workflow(spec, order="best").result.refined_ms == 135_000.0
    # The seed's bounds average: J1 maps 256 x 20 s on 128: lower 40, upper 255*20/128 + 20.
    avg = evaluate_workflow(spec, estimate="average")
    assert avg.jobs["J1"].map_ms == pytest.approx((40_000 + 255 * 20_000 / 128 + 20_000) / 2)


def test_model_estimate_adds_up_the_job_models_times(examples: Path) -> None:
    # With the job model's own split, the basic model is the sum of predict_job's job times.
    spec = load_workflow(examples / "tpch-q5-like.yaml")
    ev = evaluate_workflow(spec, estimate="model")
    expected = 0.0
    for job in spec.jobs:
        cfg = job_config(spec, job.name)
        res = predict_job(job.profile, ConfigBatch.from_configs([cfg]), spec.cluster)
        expected += float(res.job_ms[0])
        assert ev.jobs[job.name].tasks.n_maps == int(res.num_maps[0])
        assert ev.jobs[job.name].tasks.n_reduces == int(res.num_reducers[0])
    assert ev.result.basic_ms == pytest.approx(expected)
    assert ev.result.refined_ms <= ev.result.basic_ms


def test_profile_example_is_consistent(examples: Path) -> None:
    spec = load_workflow(examples / "tpch-q5-like.yaml")
    ev = evaluate_workflow(spec)
    # the file's capacity is what the jobs run on
    assert {j.tasks.map_slots for j in ev.jobs.values()} == {128}
    assert {j.tasks.reduce_slots for j in ev.jobs.values()} == {64}
    # only the concurrent first stage gains from the refined model; the chain after it does not
    gains = [s.basic_ms - s.refined_ms for s in ev.result.stages]
    assert gains[0] > 0
    assert gains[1:] == pytest.approx([0.0] * 4)
    # the configuration overrides reach the cost model
    assert ev.jobs["cust_orders_join"].properties["mapreduce.task.io.sort.mb"] == "200"
    assert ev.jobs["order_by"].tasks.n_reduces == 1


def test_linear_extrapolation_with_measured_times(tmp_path: Path) -> None:
    path = tmp_path / "wf.yaml"
    path.write_text(
        "capacity: {map_slots: 4, reduce_slots: 2}\n"
        "baseline: {scales: [1, 2], measured_ms: [10000, 16000], target_scale: 4,"
        " measured_target_ms: 40000}\n"
        "jobs:\n  - name: a\n"
        "    tasks: {maps: 4, reduces: 2, map_task_ms: 1000, reduce_task_ms: 2000}\n"
    )
    spec = load_workflow(path)
    b = extrapolation_baseline(spec)
    assert b is not None
    # line through (1, 10 s) and (2, 16 s): 6 s per unit + 4 s -> 28 s at 4, 30% below 40 s
    assert b.extrapolated_ms == pytest.approx(28_000.0)
    assert b.error(b.extrapolated_ms) == pytest.approx(-0.3)
    # the model at scale 4 (16 maps of 1 s on 4 slots, 2 reduces of 8 s on 2 slots), default
    # estimate = bounds average: maps (4 + 15/4 + 1) / 2 = 4.375 s, reduces (8 + 8/2 + 8) / 2 = 10 s
    assert b.model_basic_ms == pytest.approx(14_375.0)
    # in waves: 4 x 1 s + 1 x 8 s
    waves = extrapolation_baseline(spec, estimate="waves")
    assert waves is not None
    assert waves.model_basic_ms == pytest.approx(12_000.0)


def test_linear_extrapolation_from_the_model(examples: Path) -> None:
    spec = load_workflow(examples / "tpch-q5-like.yaml")
    b = extrapolation_baseline(spec)
    assert b is not None and b.fitted_on == "model (refined)"
    for scale, ms in zip(b.scales, b.fitted_ms, strict=True):
        assert ms == pytest.approx(evaluate_workflow(spec, scale=scale).result.refined_ms)
    assert b.model_refined_ms == pytest.approx(evaluate_workflow(spec).result.refined_ms)
    slope = (b.fitted_ms[1] - b.fitted_ms[0]) / (b.scales[1] - b.scales[0])
    assert b.extrapolated_ms == pytest.approx(b.fitted_ms[1] + slope * (1.0 - b.scales[1]))


def test_workflow_tuning_beats_tuning_each_job_alone() -> None:
    # J1 can run as (map 5, reduce 5) -- the best job alone, 10 -- or (10, 1), 11.
    # J2 has one setting, (1, 10). In Johnson's order J2 runs first and its 10 s reduce hides
    # J1's maps: with J1 = (5, 5) the stage takes 16, with J1 = (10, 1) only 12.
    picks, refined, method = tune_stage(
        [np.array([5.0, 10.0]), np.array([1.0])],
        [np.array([5.0, 1.0]), np.array([10.0])],
        order="best",
    )
    assert picks == [1, 0]
    assert refined == 12.0
    assert method.startswith("exhaustive")
    alone = float(refined_stage_ms([1.0, 5.0], [10.0, 5.0]))
    assert alone == 16.0


def _score(ms: list[np.ndarray], rs: list[np.ndarray], picks: tuple[int, ...]) -> float:
    m = np.array([ms[j][p] for j, p in enumerate(picks)])
    r = np.array([rs[j][p] for j, p in enumerate(picks)])
    return float(refined_stage_ms(m, r)) + RESOURCE_WEIGHT * float(np.sum(m + r))


candidates = st.lists(
    st.lists(st.tuples(st.integers(1, 50), st.integers(0, 50)), min_size=1, max_size=4),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(candidates)
def test_exhaustive_is_optimal_and_descent_never_worse_than_its_start(
    jobs: list[list[tuple[int, int]]],
) -> None:
    ms = [np.array([c[0] for c in job], dtype=float) for job in jobs]
    rs = [np.array([c[1] for c in job], dtype=float) for job in jobs]
    brute = min(_score(ms, rs, p) for p in itertools.product(*(range(len(j)) for j in jobs)))
    picks, _, _ = tune_stage(ms, rs, order="given")
    assert _score(ms, rs, tuple(picks)) == pytest.approx(brute)
    start = [int(np.argmin(m + r)) for m, r in zip(ms, rs, strict=True)]
    descent, _, method = tune_stage(ms, rs, order="given", exhaustive_limit=0)
    assert method.startswith("coordinate descent")
    assert brute - 1e-9 <= _score(ms, rs, tuple(descent)) <= _score(ms, rs, tuple(start)) + 1e-9


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=1, max_size=30))
def test_pareto_front(points: list[tuple[int, int]]) -> None:
    m = np.array([p[0] for p in points], dtype=float)
    r = np.array([p[1] for p in points], dtype=float)
    front = set(pareto_front(m, r, m + r).tolist())
    for i in range(len(points)):
        dominated_by_front = any(m[j] <= m[i] and r[j] <= r[i] for j in front)
        assert dominated_by_front  # every candidate is matched or beaten by a kept one
        if i in front:  # and no kept candidate is strictly beaten by another candidate
            assert not any(
                m[j] <= m[i] and r[j] <= r[i] and (m[j] < m[i] or r[j] < r[i])
                for j in range(len(points))
            )


def test_candidate_configs_are_valid_and_respect_the_heap() -> None:
    base = HadoopConfig.from_properties(
        {"mapreduce.job.reduces": "8", "mapreduce.map.java.opts": "-Xmx300m"}
    )
    grid = candidate_configs(base, reduce_capacity=16, map_only=False)
    assert grid
    assert all(c.io_sort_mb < 300 for c in grid)
    assert {c.num_reducers for c in grid} == {1, 4, 8, 16, 32, 48}
    assert {c.split_size for c in grid} == {2**26, 2**27, 2**28, 2**29}
    assert {c.map_output_compress for c in grid} == {False, True}
    only_maps = candidate_configs(base, reduce_capacity=16, map_only=True)
    assert {c.num_reducers for c in only_maps} == {0}


def test_tune_workflow_on_the_examples(examples: Path) -> None:
    spec = load_workflow(examples / "concurrent3.yaml")
    t = tune_workflow(spec, order="best")

    def score(ev) -> float:  # noqa: ANN001
        return ev.result.refined_ms + RESOURCE_WEIGHT * ev.result.basic_ms

    assert score(t.tuned) <= score(t.alone) + 1e-6
    assert score(t.tuned) <= score(t.current) + 1e-6
    assert t.tuned.result.refined_ms < t.current.result.refined_ms
    assert all(m.startswith("exhaustive") for m in t.stage_methods)
    # the recorded changes are what the tuned evaluation ran with
    for job, changes in t.changes.items():
        for key, (_, new) in changes.items():
            assert t.tuned.jobs[job].properties[key] == new


def test_tasks_jobs_and_untuned_jobs_keep_their_settings(examples: Path) -> None:
    tasks = tune_workflow(load_workflow(examples / "concurrent3-tasks.yaml"))
    assert tasks.changes == {}
    assert tasks.tuned.result.refined_ms == tasks.current.result.refined_ms == 150_000.0
    tpch = tune_workflow(load_workflow(examples / "tpch-q5-like.yaml"))
    assert tpch.changes["order_by"] == {}
    assert tpch.candidates["order_by"] == 1
