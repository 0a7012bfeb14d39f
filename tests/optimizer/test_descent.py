"""The lean grid descent as a registry strategy, and the Jacobi descent of the TPE polish."""

from __future__ import annotations

import numpy as np
import pytest

from mrtune.costmodel import HadoopConfig
from mrtune.optimizer.batch import tune_job
from mrtune.optimizer.batch._tune import _Evaluator
from mrtune.optimizer.objective import Objective
from mrtune.optimizer.strategies import STRATEGIES, get_strategy
from mrtune.optimizer.strategies._base import as_values, current_row, grid_of, take
from mrtune.optimizer.strategies._grid_tools import evaluate_feasible, jacobi_descent
from mrtune.search_spaces import SearchSpace
from tests.optimizer.test_strategies import CLUSTER, combiner_job


@pytest.fixture(scope="module")
def space() -> SearchSpace:
    return SearchSpace.for_job(combiner_job(), HadoopConfig(num_reducers=1), CLUSTER)


def _drive(steps, evaluator):
    try:
        x = next(steps)
        while True:
            x = steps.send(evaluator(x))
    except StopIteration as done:
        return done.value


def test_descent_is_registered_and_stepwise() -> None:
    cls = STRATEGIES["descent"]
    assert cls.stepwise and not cls.uses_storage and not cls.multi_objective
    assert [n for n, c in STRATEGIES.items() if c.stepwise] == ["descent"]


def test_optimize_and_steps_find_the_same_point(space: SearchSpace) -> None:
    """``optimize`` (through the Objective) and the stepwise route (the batch's evaluator)
    end at the same configuration, which gains over the current one."""
    strat = get_strategy("descent")
    res = strat.optimize(space, Objective(space), n_trials=12, seed=None)
    found = _drive(strat.steps(space, n_trials=12), _Evaluator(space, "time"))
    assert {n: float(found.x[j]) for j, n in enumerate(space.names)} == res.best_values
    assert res.best_cost == pytest.approx(found.at[0], rel=1e-12)
    assert res.best_cost < found.at0[0]
    assert res.history == sorted(res.history, reverse=True)


def test_batch_tuner_runs_any_registry_strategy(space: SearchSpace) -> None:
    """A strategy that is not stepwise runs through its own ``optimize``; the pruned result
    keeps only changes worth 1% and is never slower than the current configuration."""
    prof, base, cluster = space.profile, space.base, space.cluster
    lean = tune_job(prof, base, cluster)
    other = tune_job(prof, base, cluster, strategy="tpe-plain", max_rounds=40)
    for t in (lean, other):
        assert t.best_ms <= t.current_ms
        assert all(g >= 0.01 for g in t.marginal_gain.values())
    with pytest.raises(ValueError, match="unknown strategy"):
        tune_job(prof, base, cluster, strategy="nope")


def test_jacobi_descent_ends_where_no_block_move_gains(space: SearchSpace) -> None:
    """Every start ends at a point no move of any block improves (checked move by move)."""
    obj = Objective(space)
    grids = grid_of(space)
    rng = np.random.default_rng(4)
    starts = {n: g[rng.integers(0, len(g), size=5)] for n, g in grids.items()}
    starts = space.repair(starts)
    cost, ok = evaluate_feasible(space, obj, starts)
    starts, cost = take(starts, ok), cost[ok]
    names = [n for n in space.names if len(grids[n]) > 1]
    blocks = [{n: grids[n]} for n in names]
    blocks.append({names[0]: grids[names[0]], names[1]: grids[names[1]]})
    end, end_cost, cycles = jacobi_descent(space, obj, starts, cost, blocks)
    assert cycles >= 1 and np.all(end_cost <= cost)
    for i in range(len(end_cost)):
        row = {n: float(v[i]) for n, v in end.items()}
        for block in blocks:
            mesh = np.meshgrid(*block.values(), indexing="ij")
            cand = {n: np.full(mesh[0].size, row[n]) for n in row}
            for n, m in zip(block, mesh, strict=True):
                cand[n] = m.ravel()
            c, _ = evaluate_feasible(space, obj, cand)
            assert c.min() >= end_cost[i] * (1 - 1e-9)


def test_the_polish_gains_over_the_current_configuration(space: SearchSpace) -> None:
    from mrtune.optimizer.strategies._polish import screen_and_polish

    obj = Objective(space)
    rows, evaluations = screen_and_polish(space, obj, n_screen=300, n_keep=4, seed=1)
    costs = obj(as_values(rows))
    base = obj(as_values([current_row(space)]))[0]
    assert costs[0] == costs.min() and costs[0] < base
    assert all(space.feasible(as_values(rows)))
    assert 0 < evaluations < 400_000


def test_batch_settings_name_their_strategy() -> None:
    """The default strategy keeps the stored fingerprint; another one changes it (so a resumed
    batch never mixes results of two strategies)."""
    from mrtune.optimizer.batch import BatchSettings

    default = BatchSettings(cluster=CLUSTER)
    assert default.strategy == "descent"
    assert (
        BatchSettings(cluster=CLUSTER, strategy="descent").fingerprint() == default.fingerprint()
    )
    assert BatchSettings(cluster=CLUSTER, strategy="tpe").fingerprint() != default.fingerprint()


def test_jacobi_descent_with_nothing_to_move_returns_the_starts(space: SearchSpace) -> None:
    """A space whose knobs each have one value (e.g. a reducer count capped at 1) has no
    block to move: the starts come back as they are, without a model call."""
    obj = Objective(space)
    starts = as_values([current_row(space)])
    cost = obj(starts)
    end, end_cost, cycles = jacobi_descent(space, obj, starts, cost, [])
    assert cycles == 0 and end_cost.tolist() == cost.tolist()
    assert {n: v.tolist() for n, v in end.items()} == {n: v.tolist() for n, v in starts.items()}


def _combined_loop(cand, which, c, i, cx):
    """The combined move as the descent first wrote it: one knob at a time."""
    combined = cand[i].copy()
    for j in range(cand.shape[1]):
        sel = which == j
        if sel.any():
            k = int(np.argmin(np.where(sel, c, np.inf)))
            if c[k] < cx * (1.0 - 1e-9) and j != which[i]:
                combined[j] = cand[k, j]
    return combined


def test_vectorised_combined_move_equals_the_knob_by_knob_loop() -> None:
    """Random rounds laid out as _moves lays them (single moves knob by knob, then joint
    moves, then the combined row), with ties, infeasible (inf) knobs, all-inf knobs and NaN."""
    from mrtune.optimizer.strategies._descent import combined_move

    rng = np.random.default_rng(7)
    for _ in range(400):
        d = int(rng.integers(1, 8))
        counts = rng.integers(0, 5, d)
        which = np.concatenate(
            [np.repeat(np.arange(d), counts), np.full(int(rng.integers(0, 6)), -1)]
        )
        if rng.random() < 0.3:
            which = np.concatenate([which, [-2]])
        if not len(which):
            continue
        cand = rng.integers(0, 4, (len(which), d)).astype(float)
        c = rng.integers(0, 6, len(which)).astype(float)
        c[rng.random(len(c)) < 0.25] = np.inf
        if rng.random() < 0.1:
            c[rng.integers(0, len(c))] = np.nan
        i = int(rng.integers(0, len(which)))
        cx = float(rng.integers(1, 7))
        np.testing.assert_array_equal(
            combined_move(cand, which, c, i, cx), _combined_loop(cand, which, c, i, cx)
        )
        shuffled = rng.permutation(len(which))  # not laid out by knob: the loop's answer
        np.testing.assert_array_equal(
            combined_move(cand[shuffled], which[shuffled], c[shuffled], i, cx),
            _combined_loop(cand[shuffled], which[shuffled], c[shuffled], i, cx),
        )


def test_grid_product_equals_meshgrid() -> None:
    from mrtune.optimizer.strategies._descent import _product

    rng = np.random.default_rng(3)
    for k in (2, 3):
        for _ in range(50):
            arrays = [rng.random(int(rng.integers(1, 6))) for _ in range(k)]
            mesh = [m.ravel() for m in np.meshgrid(*arrays, indexing="ij")]
            for got, want in zip(_product(arrays), mesh, strict=True):
                np.testing.assert_array_equal(got, want)
