"""Search strategies: the shared contract (every strategy), exactness of the exhaustive search,
Optuna storage and resume, the NSGA-II front, and Starfish's RRS constants."""

from __future__ import annotations

import math

import numpy as np
import optuna
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.costmodel import ClusterSpec, DataflowStats, HadoopConfig, JobProfile
from mrtune.optimizer.objective import Objective, ObjectiveKind
from mrtune.optimizer.strategies import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    BaseStrategy,
    ExhaustiveStrategy,
    SearchResult,
    StudyError,
    get_strategy,
)
from mrtune.optimizer.strategies._base import as_values, grid_of, snap_to_grid
from mrtune.optimizer.strategies._grid_tools import iter_product
from mrtune.optimizer.strategies._rrs import recursive_random_search
from mrtune.search_spaces import SearchSpace

GB = 2**30

#: Small budgets so that the whole contract suite stays fast.
BUDGET = {
    "tpe": 24,
    "tpe-plain": 24,
    "cmaes": 30,
    "nsga2": 30,
    "grid": 30,
    "de": 120,
    "dual-annealing": 60,
    "rrs": 150,
    "smart-rrs": 150,
    "exhaustive": 1,
    "descent": 12,
}
SMALL_SETTINGS = {
    "tpe": {"n_screen": 400, "n_warm": 3},
    "nsga2": {"population_size": 10},
    "exhaustive": {"n_screen": 500, "n_starts": 2, "block_limit": 5_000},
}

MAP_KNOBS = [
    "mapreduce.task.io.sort.mb",
    "mapreduce.map.sort.spill.percent",
    "mapreduce.job.combine.class",
    "mapreduce.map.combine.minspills",
    "mapreduce.map.output.compress.codec",
    "mapreduce.output.fileoutputformat.compress.codec",
]
REDUCE_KNOBS = [
    "mapreduce.job.reduces",
    "mapreduce.reduce.shuffle.input.buffer.percent",
    "mapreduce.reduce.shuffle.merge.percent",
    "mapreduce.reduce.shuffle.memory.limit.percent",
]


def combiner_job() -> JobProfile:
    return JobProfile(
        job_id="wc",
        input_bytes=8 * GB,
        has_combiner=True,
        stats=DataflowStats(
            input_pair_width=70,
            map_pairs_sel=8,
            map_size_sel=1.6,
            combine_pairs_sel=0.1,
            combine_size_sel=0.12,
            combine_profiled_input_records=1e6,
            reduce_pairs_sel=0.3,
            reduce_size_sel=0.3,
        ),
    )


def shuffle_job() -> JobProfile:
    return JobProfile(
        job_id="sort",
        input_bytes=20 * GB,
        stats=DataflowStats(input_pair_width=100),
    )


CLUSTER = ClusterSpec(num_nodes=4, node_memory_mb=8192, node_vcores=8)


@pytest.fixture(scope="module")
def map_space() -> SearchSpace:
    return SearchSpace.for_job(
        combiner_job(), HadoopConfig(num_reducers=8), CLUSTER, only=MAP_KNOBS
    )


@pytest.fixture(scope="module")
def reduce_space() -> SearchSpace:
    return SearchSpace.for_job(
        shuffle_job(), HadoopConfig(num_reducers=4), CLUSTER, only=REDUCE_KNOBS
    )


@pytest.fixture(scope="module")
def full_space() -> SearchSpace:
    return SearchSpace.for_job(combiner_job(), HadoopConfig(num_reducers=8), CLUSTER)


def brute_force(space: SearchSpace, kind: ObjectiveKind = ObjectiveKind.time) -> float:
    """The minimum over the raw product of every knob's grid (no reductions), feasible only."""
    obj = Objective(space, kind)
    best = math.inf
    for chunk in iter_product(grid_of(space), 100_000):
        ok = space.feasible(chunk)
        if ok.any():
            best = min(best, float(obj({n: v[ok] for n, v in chunk.items()}).min()))
    return best


# ---------------------------------------------------------------------- contract suite
class StrategyContract:
    """What every strategy must do (style: optuna's ``BasicSamplerTestCase``).

    Subclasses provide the ``strategy_name`` fixture; every test runs on each strategy.
    """

    @pytest.fixture
    def strategy(self, strategy_name: str) -> BaseStrategy:
        return get_strategy(strategy_name, **SMALL_SETTINGS.get(strategy_name, {}))

    def run(
        self, strategy: BaseStrategy, space: SearchSpace, seed: int | None = 3
    ) -> SearchResult:
        return strategy.optimize(
            space, Objective(space), n_trials=BUDGET[strategy.name], seed=seed
        )

    def test_result_satisfies_every_constraint(
        self, strategy: BaseStrategy, full_space: SearchSpace
    ) -> None:
        res = self.run(strategy, full_space)
        assert set(res.best_values) == set(full_space.names)
        assert full_space.feasible(as_values([res.best_values]))[0]
        for k in full_space.knobs:
            v = res.best_values[k.name]
            if k.kind in {"int", "float"}:
                assert k.low <= v <= k.high
            if k.kind == "int":
                assert v == round(v)
        # values_to_config builds a HadoopConfig, which validates Hadoop's own limits
        cfg = full_space.values_to_config(res.best_values)
        assert cfg.io_sort_mb <= cfg.map_heap_bytes / 2**20

    def test_result_bookkeeping(self, strategy: BaseStrategy, reduce_space: SearchSpace) -> None:
        obj = Objective(reduce_space)
        res = strategy.optimize(reduce_space, obj, n_trials=BUDGET[strategy.name], seed=5)
        assert res.strategy == strategy.name
        assert res.n_evaluations == obj.evaluations > 0
        assert res.wall_time_s > 0
        assert res.best_cost == pytest.approx(
            float(Objective(reduce_space)(as_values([res.best_values]))[0])
        )
        h = np.asarray(res.history)
        assert len(h) >= 1 and np.all(np.diff(h) <= 0)
        assert res.notes

    def test_seeded_runs_are_reproducible(
        self, strategy: BaseStrategy, map_space: SearchSpace
    ) -> None:
        a = self.run(strategy, map_space, seed=11)
        b = self.run(strategy, map_space, seed=11)
        assert a.best_values == b.best_values
        assert a.best_cost == b.best_cost
        assert a.history == b.history

    def test_snapped_result_never_beats_the_exhaustive_optimum(
        self, strategy: BaseStrategy, map_space: SearchSpace
    ) -> None:
        """ "On the same grid": the strategy's answer moved to the nearest grid point."""
        res = self.run(strategy, map_space)
        exact = ExhaustiveStrategy().optimize(map_space, Objective(map_space), n_trials=1, seed=0)
        snapped = map_space.repair(as_values([snap_to_grid(map_space, res.best_values)]))
        assert map_space.feasible(snapped)[0]
        assert float(Objective(map_space)(snapped)[0]) >= exact.best_cost * (1 - 1e-12)

    def test_bad_arguments(self, strategy: BaseStrategy, map_space: SearchSpace) -> None:
        with pytest.raises(ValueError, match="n_trials"):
            strategy.optimize(map_space, Objective(map_space), n_trials=0, seed=0)
        name = strategy.name
        if not strategy.uses_storage:
            with pytest.raises(ValueError, match="cannot resume"):
                get_strategy(name, resume=True)
            with pytest.raises(ValueError, match="cannot store"):
                get_strategy(name, storage="sqlite:///x.db")
        else:
            with pytest.raises(ValueError, match="resume needs a storage"):
                get_strategy(name, resume=True)


@pytest.mark.parametrize("strategy_name", list(STRATEGIES))
class TestEveryStrategy(StrategyContract):
    pass


# ---------------------------------------------------------------------- registry
def test_registry_names_and_default() -> None:
    assert list(STRATEGIES) == [
        "tpe",
        "tpe-plain",
        "cmaes",
        "nsga2",
        "grid",
        "de",
        "dual-annealing",
        "rrs",
        "smart-rrs",
        "exhaustive",
        "descent",
    ]
    assert DEFAULT_STRATEGY == "tpe"
    for name, cls in STRATEGIES.items():
        assert cls.name == name
        assert issubclass(cls, BaseStrategy)
        assert cls.__doc__ and len(cls.__doc__) > 40


def test_listing_the_strategies_imports_none_of_them() -> None:
    """The names a help text lists come without importing Optuna or scipy.optimize (issue 13:
    ``whatif`` and ``--help`` must not pay for a search they never run)."""
    import subprocess
    import sys

    code = (
        "import sys; from mrtune.optimizer.strategies import STRATEGY_NAMES, resolve_strategy;"
        "resolve_strategy(None, 'time');"
        "print(list(STRATEGY_NAMES), 'optuna' in sys.modules, 'scipy.optimize' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("]")[1].split() == ["False", "False"]
    from mrtune.optimizer.strategies import STRATEGY_NAMES

    assert list(STRATEGY_NAMES) == list(STRATEGIES)


def test_unknown_strategy_lists_the_allowed_names() -> None:
    with pytest.raises(ValueError, match="allowed: tpe, tpe-plain"):
        get_strategy("annealing")


# ---------------------------------------------------------------------- exhaustive
@pytest.mark.parametrize("which", ["map_space", "reduce_space"])
def test_exhaustive_equals_brute_force_on_small_grids(which: str, request) -> None:
    """Exact mode (with its codec and minspills reductions) = min over the raw product."""
    space = request.getfixturevalue(which)
    res = ExhaustiveStrategy().optimize(space, Objective(space), n_trials=1, seed=0)
    assert "exact" in res.notes
    assert res.best_cost == pytest.approx(brute_force(space), rel=1e-12)


def test_exhaustive_exact_for_the_resources_objective(map_space: SearchSpace) -> None:
    obj = Objective(map_space, ObjectiveKind.resources)
    res = ExhaustiveStrategy().optimize(map_space, obj, n_trials=1, seed=0)
    assert res.best_cost == pytest.approx(
        brute_force(map_space, ObjectiveKind.resources), rel=1e-12
    )


@pytest.mark.parametrize("which", ["map_space", "reduce_space"])
def test_exhaustive_block_mode_finds_the_grid_optimum_on_small_grids(which: str, request) -> None:
    """Block descent (forced by max_product=0) reaches the brute-force optimum here."""
    space = request.getfixturevalue(which)
    res = ExhaustiveStrategy(max_product=0, n_screen=500).optimize(
        space, Objective(space), n_trials=1, seed=0
    )
    assert "block-coordinate" in res.notes
    assert res.best_cost == pytest.approx(brute_force(space), rel=1e-12)


def test_grid_strategy_never_beats_exhaustive(reduce_space: SearchSpace) -> None:
    exact = ExhaustiveStrategy().optimize(
        reduce_space, Objective(reduce_space), n_trials=1, seed=0
    )
    grid = get_strategy("grid").optimize(
        reduce_space, Objective(reduce_space), n_trials=64, seed=1
    )
    assert grid.best_cost >= exact.best_cost * (1 - 1e-12)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_no_grid_point_beats_exhaustive(data: st.DataObject) -> None:
    space = SearchSpace.for_job(
        combiner_job(), HadoopConfig(num_reducers=8), CLUSTER, only=MAP_KNOBS
    )
    exact = _exact_cost(space)
    grids = grid_of(space)
    row = {n: float(data.draw(st.sampled_from(list(g)), label=n)) for n, g in grids.items()}
    values = as_values([row])
    if space.feasible(values)[0]:
        assert float(Objective(space)(values)[0]) >= exact * (1 - 1e-12)


_EXACT_CACHE: dict[str, float] = {}


def _exact_cost(space: SearchSpace) -> float:
    if "map" not in _EXACT_CACHE:
        _EXACT_CACHE["map"] = (
            ExhaustiveStrategy().optimize(space, Objective(space), n_trials=1, seed=0).best_cost
        )
    return _EXACT_CACHE["map"]


def test_exhaustive_keeps_current_values_on_ties(map_space: SearchSpace) -> None:
    """Settings the model gives no effect (e.g. minspills with the combiner off, or when it
    does not change the combine decision) stay at their current value."""
    res = ExhaustiveStrategy().optimize(map_space, Objective(map_space), n_trials=1, seed=0)
    cur = map_space.current_values()
    knob = "mapreduce.map.combine.minspills"
    if res.best_values[knob] != cur[knob]:
        moved = dict(res.best_values, **{knob: float(cur[knob])})
        assert float(Objective(map_space)(as_values([moved]))[0]) > res.best_cost


def test_exhaustive_on_a_map_only_job() -> None:
    job = JobProfile(
        job_id="scan",
        input_bytes=30 * GB,
        map_only=True,
        stats=DataflowStats(input_pair_width=200, map_pairs_sel=0.2, map_size_sel=0.2),
    )
    space = SearchSpace.for_job(job, HadoopConfig(num_reducers=0), CLUSTER)
    assert not any(k.side == "reduce" and "compress" not in k.name for k in space.knobs)
    res = ExhaustiveStrategy().optimize(space, Objective(space), n_trials=1, seed=0)
    assert "exact" in res.notes
    assert res.best_cost == pytest.approx(brute_force(space), rel=1e-12)


# ---------------------------------------------------------------------- default strategy
def test_default_is_at_least_as_good_as_the_grid_optimum_on_small_grids(
    map_space: SearchSpace, reduce_space: SearchSpace
) -> None:
    for space in (map_space, reduce_space):
        exact = ExhaustiveStrategy().optimize(space, Objective(space), n_trials=1, seed=0)
        res = get_strategy(DEFAULT_STRATEGY).optimize(space, Objective(space), n_trials=16, seed=0)
        assert res.best_cost <= exact.best_cost * 1.01


# ---------------------------------------------------------------------- storage and resume
def test_resume_continues_a_stored_study(tmp_path, map_space: SearchSpace) -> None:
    db = tmp_path / "studies.db"
    url = f"sqlite:///{db}"
    strat = get_strategy("tpe-plain", storage=url, study_name="wc")
    first = strat.optimize(map_space, Objective(map_space), n_trials=8, seed=1)
    assert len(first.history) == 8
    obj = Objective(map_space)
    more = get_strategy("tpe-plain", storage=url, study_name="wc", resume=True).optimize(
        map_space, obj, n_trials=13, seed=1
    )
    assert "resumed at 8 trials" in more.notes
    study = optuna.load_study(study_name="wc", storage=url)
    assert len(study.trials) == 13
    assert more.history[:8] == first.history
    assert more.best_cost <= first.best_cost
    # only the 5 new trials (and the final check) were evaluated
    assert obj.evaluations == 5 + 1
    assert study.user_attrs["knobs"] == map_space.names


def test_storage_path_default_names_and_explicit_name_clash(
    tmp_path, map_space: SearchSpace
) -> None:
    path = str(tmp_path / "plain-path.db")  # a file path is taken as SQLite
    strat = get_strategy("cmaes", storage=path)
    for _ in range(2):
        strat.optimize(map_space, Objective(map_space), n_trials=6, seed=0)
    names = sorted(optuna.get_all_study_names(f"sqlite:///{path}"))
    assert names == ["mrtune-wc-cmaes-time", "mrtune-wc-cmaes-time-2"]
    res = get_strategy("cmaes", storage=path, resume=True).optimize(
        map_space, Objective(map_space), n_trials=9, seed=0
    )
    assert "'mrtune-wc-cmaes-time-2' resumed at 6 trials" in res.notes
    with pytest.raises(StudyError, match="already exists"):
        get_strategy("cmaes", storage=path, study_name="mrtune-wc-cmaes-time").optimize(
            map_space, Objective(map_space), n_trials=3, seed=0
        )


def test_resume_refuses_a_study_over_other_knobs(
    tmp_path, map_space: SearchSpace, reduce_space: SearchSpace
) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    get_strategy("grid", storage=url, study_name="x").optimize(
        map_space, Objective(map_space), n_trials=4, seed=0
    )
    with pytest.raises(StudyError, match="other knobs"):
        get_strategy("grid", storage=url, study_name="x", resume=True).optimize(
            reduce_space, Objective(reduce_space), n_trials=4, seed=0
        )


def test_non_optuna_strategies_refuse_a_storage(tmp_path) -> None:
    """A strategy that keeps no study says so at construction instead of ignoring it."""
    with pytest.raises(ValueError, match="keeps no study.*allowed: tpe, tpe-plain, cmaes"):
        get_strategy("rrs", storage=str(tmp_path / "a.db"))
    assert not (tmp_path / "a.db").exists()
    # the neutral values are accepted by every strategy, so callers need not know which store
    assert get_strategy("rrs", storage=None, study_name=None, resume=False).name == "rrs"


def test_search_keeps_its_study_in_memory_by_default(tmp_path, monkeypatch, map_space) -> None:
    monkeypatch.chdir(tmp_path)
    res = get_strategy("tpe-plain").optimize(map_space, Objective(map_space), n_trials=5, seed=0)
    assert "(in memory)" in res.notes
    assert res.study is not None and len(res.study.trials) == 5
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["tpe", "cmaes", "grid", "nsga2"])
def test_stored_study_shows_real_knob_names_values_and_distributions(
    tmp_path, map_space: SearchSpace, name: str
) -> None:
    """What optuna-dashboard reads (optuna.load_study): Hadoop names, codec names, booleans,
    numbers in the knobs' own ranges; the trials decode to the configurations scored."""
    url = f"sqlite:///{tmp_path / 'dash.db'}"
    kwargs = dict(SMALL_SETTINGS.get(name, {}))
    kind = ObjectiveKind.pareto if name == "nsga2" else ObjectiveKind.time
    get_strategy(name, storage=url, study_name="dash", **kwargs).optimize(
        map_space, Objective(map_space, kind), n_trials=BUDGET[name], seed=0
    )
    study = optuna.load_study(study_name="dash", storage=url)
    assert study.user_attrs["job_id"] == "wc"
    assert study.metric_names[0] == "job_ms"
    trials = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert trials
    by_name = {k.name: k for k in map_space.knobs}
    for t in trials:
        assert set(t.params) == set(map_space.names)
        for pname, value in t.params.items():
            knob = by_name[pname]
            if knob.kind == "categorical":
                assert value in knob.choices  # "snappy", not an integer code
            elif knob.kind == "bool":
                assert isinstance(value, bool)
            elif knob.kind == "int":
                assert isinstance(value, int) and knob.low <= value <= knob.high
            else:
                assert isinstance(value, float) and knob.low <= value <= knob.high
    codec = "mapreduce.map.output.compress.codec"
    dist = trials[0].distributions[codec]
    assert isinstance(dist, optuna.distributions.CategoricalDistribution)
    assert "gzip" in dist.choices  # snappy needs --allow-native-codecs (issue 14)
    sort_mb = trials[0].distributions["mapreduce.task.io.sort.mb"]
    if name != "grid":  # the grid strategy asks over the grid's values
        assert isinstance(sort_mb, optuna.distributions.IntDistribution) and sort_mb.log


# ---------------------------------------------------------------------- NSGA-II
def test_nsga2_returns_a_non_dominated_front(full_space: SearchSpace) -> None:
    obj = Objective(full_space, ObjectiveKind.pareto)
    res = get_strategy("nsga2", population_size=12).optimize(full_space, obj, n_trials=60, seed=2)
    assert res.pareto
    t = np.array([p[1] for p in res.pareto])
    g = np.array([p[2] for p in res.pareto])
    assert np.all(np.diff(t) >= 0)
    for i in range(len(t)):
        dominated = (t <= t[i]) & (g <= g[i]) & ((t < t[i]) | (g < g[i]))
        assert not dominated.any()
    values = as_values([p[0] for p in res.pareto])
    assert full_space.feasible(values).all()
    t_chk, g_chk = Objective(full_space).both(values)
    np.testing.assert_allclose(t_chk, t, rtol=1e-12)
    np.testing.assert_allclose(g_chk, g, rtol=1e-12)
    assert res.best_cost == pytest.approx(t.min())


def test_nsga2_resources_objective_picks_the_cheapest_front_point(
    reduce_space: SearchSpace,
) -> None:
    obj = Objective(reduce_space, ObjectiveKind.resources)
    res = get_strategy("nsga2", population_size=10).optimize(
        reduce_space, obj, n_trials=40, seed=0
    )
    assert res.best_cost == pytest.approx(min(p[2] for p in res.pareto))


# ---------------------------------------------------------------------- RRS
def test_rrs_uses_starfish_defaults_and_respects_the_budget() -> None:
    calls: list[int] = []

    def sphere(u: np.ndarray) -> np.ndarray:
        calls.append(len(u))
        return np.sum((u - 0.3) ** 2, axis=1)

    x, fx, used = recursive_random_search(sphere, 3, 400, np.random.default_rng(0))
    assert calls[0] == round(math.log(0.01) / math.log(0.9)) == 44  # exploration batch
    assert used == sum(calls) <= 400
    assert fx < 1e-2 and np.allclose(x, 0.3, atol=0.1)


def test_rrs_stops_by_starfish_rule_before_a_large_budget() -> None:
    x, fx, used = recursive_random_search(
        lambda u: np.sum(u**2, axis=1), 2, 10**6, np.random.default_rng(1)
    )
    assert used <= math.ceil(150 * 2**1.2)


def test_rrs_rejects_parameters_outside_the_unit_interval() -> None:
    with pytest.raises(ValueError, match="p must be in"):
        get_strategy("rrs", p=1.0)


def test_smart_rrs_searches_the_map_side_first(full_space: SearchSpace) -> None:
    res = get_strategy("smart-rrs").optimize(
        full_space, Objective(full_space), n_trials=300, seed=0
    )
    assert res.notes.index("map side") < res.notes.index("reduce side")


def test_grid_strategy_covers_a_small_grid_and_stops_there() -> None:
    job = JobProfile(
        job_id="scan",
        input_bytes=30 * GB,
        map_only=True,
        stats=DataflowStats(input_pair_width=200, map_pairs_sel=0.2, map_size_sel=0.2),
    )
    space = SearchSpace.for_job(job, HadoopConfig(num_reducers=0), CLUSTER)
    size = int(np.prod([len(g) for g in grid_of(space).values()]))
    res = get_strategy("grid").optimize(space, Objective(space), n_trials=size + 40, seed=0)
    assert len(res.history) == size
    assert f"capped at the {size} points" in res.notes
    assert res.best_cost == pytest.approx(brute_force(space), rel=1e-12)


@pytest.mark.parametrize("name", ["tpe-plain", "rrs", "exhaustive"])
def test_objective_reports_progress_for_every_strategy(map_space: SearchSpace, name: str) -> None:
    """One hook on the objective shows the progress of any strategy (the CLI's status line)."""
    seen: list[tuple[int, float]] = []
    obj = Objective(map_space, on_evaluate=lambda n, best: seen.append((n, best)))
    res = get_strategy(name, **SMALL_SETTINGS.get(name, {})).optimize(
        map_space, obj, n_trials=BUDGET[name], seed=0
    )
    assert seen and seen[-1][0] == obj.evaluations == res.n_evaluations
    counts = [n for n, _ in seen]
    bests = [b for _, b in seen]
    assert counts == sorted(counts) and bests == sorted(bests, reverse=True)
    assert bests[-1] <= res.best_cost
