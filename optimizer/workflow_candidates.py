"""Each job's candidate configurations for the workflow tuner: the workflow grid
(:func:`candidate_configs`, which spans the ``(T^M, T^R)`` trade-offs), the job's own optimum
found by a registry strategy (:func:`strategy_candidate`), and the cut to the Pareto front on
``(T^M, T^R)`` (:func:`pareto_front`).

Split from :mod:`mrtune.optimizer.workflow_tuning` by what it holds: where candidates come
from, apart from the stage search over them; ``workflow_tuning`` re-exports these names.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from pydantic import ValidationError

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import MB, HadoopConfig
from mrtune.costmodel.profile import JobProfile
from mrtune.optimizer.objective import Objective, ObjectiveKind
from mrtune.optimizer.strategies import get_strategy
from mrtune.search_spaces import SearchSpace, find_knob

# ----------------------------------------------------------------------------- candidates
#: The settings the workflow tuner varies (Hadoop 2/3 names); values depend on the job.
TUNED_PROPERTIES: tuple[str, ...] = (
    "mapreduce.job.reduces",
    "mapreduce.task.io.sort.mb",
    "mapreduce.task.io.sort.factor",
    "mapreduce.input.fileinputformat.split.minsize",
    "mapreduce.input.fileinputformat.split.maxsize",
    "mapreduce.map.output.compress",
    "mapreduce.map.output.compress.codec",
)


def candidate_configs(
    base: HadoopConfig,
    *,
    reduce_capacity: int,
    map_only: bool,
    space: SearchSpace | None = None,
) -> list[HadoopConfig]:
    """A grid of the settings that move a job's map and reduce stage durations.

    Reducers are tried in fractions and multiples of the reduce capacity (whole waves matter,
    reference §6.1); split size around the block size (fewer, longer map tasks or more, shorter
    ones); the sort buffer and merge factor (spills and merge passes, reference §2.3-2.4); and
    map-output compression (shuffle bytes vs CPU). Combinations Hadoop would reject (a sort
    buffer not below the heap) are dropped by :class:`HadoopConfig`'s own validation; with the
    job's ``space`` (:meth:`SearchSpace.for_job`), so is every candidate that breaks a limit
    ``optimize`` keeps (:func:`within_limits`), and the compression candidate uses a codec the
    cluster loads (:func:`fast_codec`; none when only the current one does).
    """
    k = max(1, reduce_capacity)
    reducers = sorted(
        {
            max(1, v)
            for v in (base.num_reducers, 1, math.ceil(k / 4), math.ceil(k / 2), k, 2 * k, 3 * k)
        }
    )
    if map_only:
        reducers = [0]
    heap_mb = base.map_heap_bytes // MB
    sort_mb = sorted({base.io_sort_mb, *(v for v in (100, 200, 400, 800) if v < heap_mb)})
    block_mb = base.dfs_blocksize // MB
    splits_mb = sorted(
        {base.split_size // MB, block_mb // 2, block_mb, block_mb * 2, block_mb * 4}
    )
    codec = "snappy" if space is None else fast_codec(space)
    compress = [(False, base.map_output_codec)] + ([(True, codec)] if codec else [])
    factors = sorted({base.io_sort_factor, 10, 50, 100})
    out: list[HadoopConfig] = []
    for r, mb, split, (comp, codec), factor in itertools.product(
        reducers, sort_mb, splits_mb, compress, factors
    ):
        split_bytes = max(1, split) * MB
        changes: dict[str, object] = {
            "mapreduce.job.reduces": r,
            "mapreduce.task.io.sort.mb": mb,
            "mapreduce.task.io.sort.factor": factor,
            "mapreduce.map.output.compress": comp,
            "mapreduce.map.output.compress.codec": codec,
            # FileInputFormat: splitSize = max(minSize, min(maxSize, blockSize))
            "mapreduce.input.fileinputformat.split.minsize": split_bytes
            if split_bytes > base.dfs_blocksize
            else 0,
            "mapreduce.input.fileinputformat.split.maxsize": split_bytes
            if split_bytes < base.dfs_blocksize
            else 2**63 - 1,
        }
        try:
            out.append(base.with_changes(changes))
        except (ValidationError, ValueError):
            continue
    return out if space is None else within_limits(space, out)


#: Map-output codecs tried for the workflow's compression candidate, cheapest CPU first.
_FAST_CODECS = ("snappy", "lz4", "default")


def fast_codec(space: SearchSpace) -> str | None:
    """The first of :data:`_FAST_CODECS` the job's cluster loads (its space offers it)."""
    knob = next((k for k in space.knobs if k.name == "mapreduce.map.output.compress.codec"), None)
    offered = knob.choices if knob is not None else ()
    return next((c for c in _FAST_CODECS if c in offered), None)


def within_limits(space: SearchSpace, configs: list[HadoopConfig]) -> list[HadoopConfig]:
    """The ``configs`` that keep the job's limits as its search space states them (the ones
    ``optimize`` keeps, issue 14): every searched setting inside its range (the task-granularity
    caps on reducers and splits) or at the job's own value, codecs the cluster loads, and the
    constraints between settings (the sort buffer within its share of the heap)."""
    if not configs or not space.knobs:
        return configs
    cur = space.base_row()
    rows = [ConfigBatch._columns_of(c) for c in configs]
    vals = {k.name: np.array([float(r[k.column]) for r in rows]) for k in space.knobs}
    ok = space.feasible(vals)
    for k in space.knobs:
        v, now = vals[k.name], float(cur[k.column])
        if k.kind == "categorical":
            inside = np.isin(v, [k.encode(c) for c in k.choices])
        elif k.kind in {"int", "float"}:
            inside = (v >= float(k.low)) & (v <= float(k.high))  # type: ignore[arg-type]
        else:
            continue
        ok &= inside | (v == now)
    return [c for c, keep in zip(configs, ok, strict=True) if keep]


#: The strategy that finds each job's own optimum over the workflow settings.
DEFAULT_JOB_STRATEGY = "exhaustive"


def strategy_candidate(
    profile: JobProfile,
    base: HadoopConfig,
    cluster: ClusterSpec,
    strategy: str,
    *,
    region: bool = False,
) -> tuple[list[HadoopConfig], str]:
    """The job's own optimum over :data:`TUNED_PROPERTIES`, found by registry ``strategy``;
    with ``region``, inside ``optimize``'s trust region (:func:`~mrtune.optimizer.trust.
    trust_region`), as ``optimize`` searches again there for the configuration it writes.

    Returns ``([config], note)``, or ``([], note)`` when none of the settings applies to the
    job (a map-only job with a fixed split, say).
    """
    names = list(dict.fromkeys(find_knob(p).name for p in TUNED_PROPERTIES))
    space = SearchSpace.for_job(profile, base, cluster, only=names)
    if region:
        from mrtune.optimizer.choose import space_current
        from mrtune.optimizer.trust import trust_region

        space = trust_region(space, space_current(space))
    if not space.knobs:
        return [], f"{strategy}: no workflow setting applies"
    strat = get_strategy(strategy)
    result = strat.optimize(
        space, Objective(space, ObjectiveKind.time), n_trials=strat.default_trials, seed=0
    )
    try:
        return [space.values_to_config(result.best_values)], f"{strategy}: {result.notes}"
    except (ValidationError, ValueError) as exc:  # a combination HadoopConfig refuses
        return [], f"{strategy}: optimum not valid as a configuration ({exc})"


def pareto_front(map_ms: np.ndarray, reduce_ms: np.ndarray, job_ms: np.ndarray) -> np.ndarray:
    """Indices of candidates not dominated on ``(T^M, T^R)``; ties broken by own job time.

    A dominated candidate (another is no longer in both stages) can never improve a flow-shop
    makespan, so dropping it loses nothing.
    """
    order = np.lexsort((job_ms, reduce_ms, map_ms))
    keep: list[int] = []
    best_r = np.inf
    for i in order:
        if reduce_ms[i] < best_r:
            keep.append(int(i))
            best_r = reduce_ms[i]
    return np.array(keep, dtype=np.intp)
