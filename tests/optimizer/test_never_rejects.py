"""The optimizer never builds a configuration that it then rejects (issue 14, Deliver 1).

Over random jobs, base configurations (heap from ``-Xmx`` or derived from the container,
container sizes, Hadoop 1/2/3, node memory) and random points of the search space, the
repaired point is feasible, builds a valid :class:`HadoopConfig`, fits the cluster's nodes,
can be written as properties, lints clean of errors, and keeps its sort buffer within half its
heap and clear of the maps' observed heap (drawn for some jobs); and every registered
strategy's answer does the same.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from mrtune.costmodel import (
    ClusterSpec,
    ConfigBatch,
    DataflowStats,
    HadoopConfig,
    JobProfile,
    predict_job,
)
from mrtune.costmodel.profile import MapHeapUse
from mrtune.optimizer.lint import lint_config
from mrtune.optimizer.objective import Objective, ObjectiveKind
from mrtune.optimizer.outputs import changed_properties
from mrtune.optimizer.strategies import STRATEGIES, get_strategy
from mrtune.optimizer.strategies._base import as_values
from mrtune.search_spaces import SearchSpace

GB = 2**30

#: Small budgets and settings, so that every strategy runs in about a second.
BUDGET = {"exhaustive": 1, "de": 60, "dual-annealing": 40, "rrs": 60, "smart-rrs": 60}
SETTINGS = {
    "tpe": {"n_screen": 200, "n_warm": 2},
    "nsga2": {"population_size": 8},
    "exhaustive": {"n_screen": 300, "n_starts": 1, "block_limit": 2_000},
}


@st.composite
def jobs(draw: st.DrawFn) -> tuple[JobProfile, HadoopConfig, ClusterSpec]:
    version = draw(st.sampled_from([1, 2, 3]))
    node_mb = draw(st.sampled_from([2048, 4096, 8192, 65536]))
    container = draw(st.sampled_from([-1, 512, 1024, 1536, 2048]))
    assume(container <= node_mb)
    explicit = draw(st.booleans())
    opts = None
    if explicit:
        box = container if container > 0 else 1024
        heap = draw(st.integers(200, box if version >= 2 else 4096))
        opts = f"-Xmx{heap}m"
    # without -Xmx: Hadoop 1 and 2 run -Xmx200m, Hadoop 3 derives it from the container
    heap_mb = (int(opts[4:-1]) if opts else None) or (
        200 if version <= 2 else int(np.ceil((container if container > 0 else 1024) * 0.8))
    )
    sort_mb = draw(st.integers(1, max(1, min(2047, heap_mb - 1))))
    base = HadoopConfig(
        hadoop_version=version,
        io_sort_mb=sort_mb,
        num_reducers=draw(st.integers(0, 50)),
        map_memory_mb=container if version >= 2 else -1,
        reduce_memory_mb=container if version >= 2 else -1,
        map_java_opts=opts if version >= 2 else None,
        reduce_java_opts=opts if version >= 2 else None,
        child_java_opts=opts if version == 1 else None,
    )
    has_combiner = draw(st.booleans())
    need = draw(st.none() | st.floats(0, 2.0 * heap_mb))  # the maps' observed heap, if any
    use = None
    if need is not None:
        use = MapHeapUse(
            need_mb=need,
            committed_mb=need + sort_mb,
            sort_mb=sort_mb,
            heap_mb=heap_mb,
            attempts=1,
            source="drawn",
        )
    profile = JobProfile(
        job_id="random",
        map_heap_use=use,
        input_bytes=draw(st.floats(1e5, 5e11)),
        has_combiner=has_combiner,
        combine_class="org.example.Combiner" if has_combiner else None,
        stats=DataflowStats(
            input_pair_width=draw(st.floats(10, 1000)),
            map_size_sel=draw(st.floats(0.05, 3.0)),
            map_pairs_sel=draw(st.floats(0.1, 10.0)),
        ),
    )
    cluster = ClusterSpec(
        num_nodes=draw(st.integers(1, 60)),
        node_memory_mb=node_mb,
        am_memory_mb=draw(st.sampled_from([512, 1024, 1536])),
    )
    # the job as it ran must run on the cluster: its containers beside the AM on one node
    assume(cluster.container_limit_mb() >= max(base.map_container_mb, base.reduce_container_mb))
    return profile, base, cluster


def _accepted(space: SearchSpace, row: dict[str, float]) -> None:
    """What Hadoop and the writers would check, all of it: nothing raises, no lint error."""
    cfg = space.values_to_config(row)  # HadoopConfig validation (heap, sort buffer, merge)
    space.cluster.check_fits(cfg)  # YARN's request validation
    props = changed_properties(space.base, cfg)
    report = lint_config(space.profile, cfg, space.cluster, base=space.base, emitted=set(props))
    assert not report.errors, [f.line() for f in report.errors]
    _leaves_the_observed_heap(space, cfg)


def _leaves_the_observed_heap(space: SearchSpace, cfg: HadoopConfig) -> None:
    """The sort buffer built is within half its heap and leaves 1.25x the maps' observed heap
    beside it (issue 14), unless it is at most the job's own value in the job's own heap."""
    heap = cfg.map_heap_bytes / 2**20
    kept = heap == space.base.map_heap_bytes / 2**20 and cfg.io_sort_mb <= space.base.io_sort_mb
    cap = math.floor(0.5 * heap)
    use = space.profile.map_heap_use
    if use is not None:
        cap = min(cap, math.floor(heap - 1.25 * use.need_mb))
    assert kept or cfg.io_sort_mb <= max(cap, 1), (cfg.io_sort_mb, heap, use)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(job=jobs(), memory=st.booleans(), seed=st.integers(0, 2**16))
def test_random_search_points_are_accepted(job, memory: bool, seed: int) -> None:  # noqa: ANN001
    profile, base, cluster = job
    space = SearchSpace.for_job(profile, base, cluster, allow_memory=memory)
    assume(space.knobs)
    u = np.random.default_rng(seed).random((8, len(space.knobs)))
    values = space.repair(space.from_unit(u))
    assert space.feasible(values).all()
    for i in range(u.shape[0]):
        _accepted(space, {n: float(v[i]) for n, v in values.items()})


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(job=jobs(), memory=st.booleans())
def test_every_strategy_returns_an_accepted_configuration(job, memory: bool) -> None:  # noqa: ANN001
    profile, base, cluster = job
    space = SearchSpace.for_job(profile, base, cluster, allow_memory=memory)
    assume(space.knobs)
    for name in STRATEGIES:
        strategy = get_strategy(name, **SETTINGS.get(name, {}))
        res = strategy.optimize(
            space, Objective(space), n_trials=BUDGET.get(name, 24), seed=0
        )  # finalize_row raises AssertionError on an infeasible answer
        _accepted(space, res.best_values)
        for values, _, _ in res.pareto or []:
            _accepted(space, values)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    job=jobs(),
    memory=st.booleans(),
    objective=st.sampled_from([ObjectiveKind.time, ObjectiveKind.resources, ObjectiveKind.pareto]),
)
@example(
    job=(
        JobProfile(
            job_id="found-by-hypothesis",
            input_bytes=225e9,
            has_combiner=True,
            combine_class="org.example.Combiner",
            stats=DataflowStats(input_pair_width=10.0, map_size_sel=2.03, map_pairs_sel=9.13),
        ),
        HadoopConfig(num_reducers=41, map_memory_mb=512, reduce_memory_mb=512),
        ClusterSpec(num_nodes=1, node_memory_mb=2048, am_memory_mb=512, min_allocation_mb=512),
    ),
    memory=True,
    objective=ObjectiveKind.pareto,
)  # a front point simplified by reverting the map container under a 744 MB sort buffer
def test_recommend_writes_what_it_scored(job, memory: bool, objective: ObjectiveKind) -> None:  # noqa: ANN001
    """The recommendation's pruning and Pareto simplification revert changes one by one: each
    reverted row is repaired before it is kept, so the configuration written is the one
    scored, and Hadoop accepts it."""
    from mrtune.optimizer.recommend import recommend

    profile, base, cluster = job
    rec = recommend(
        profile,
        base,
        cluster,
        objective=objective,
        n_trials=16,
        allow_memory=memory,
        strategy="nsga2" if objective == ObjectiveKind.pareto else "rrs",
    )
    cluster.check_fits(rec.config)
    space = SearchSpace.for_job(profile, base, cluster, allow_memory=memory)
    t, g = Objective(space).both(as_values([rec.search.best_values]))  # a sanity anchor
    assert np.isfinite(t).all() and np.isfinite(g).all()
    pred = predict_job(profile, ConfigBatch.from_configs([rec.config]), cluster)
    assert float(pred.job_ms[0]) == pytest.approx(rec.recommended["job_ms"], rel=1e-9)
    if rec.pareto is not None:
        chosen = rec.pareto.chosen
        assert float(pred.job_ms[0]) == pytest.approx(chosen.job_ms, rel=1e-9)
        assert float(pred.container_gb_s[0]) == pytest.approx(chosen.gb_s, rel=1e-9)
