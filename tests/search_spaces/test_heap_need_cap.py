"""The sort buffer's cap leaves the map function its observed heap (issue 14, Deliver 1):
``cap(heap) = min(share·heap, heap − 1.25·need)``, never looser than the documented share, the
job's own value kept in its own heap; in the space's repair, grids and recommendation."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from mrtune.costmodel import ClusterSpec, DataflowStats, HadoopConfig, JobProfile
from mrtune.costmodel.profile import MapHeapUse
from mrtune.optimizer.recommend import recommend
from mrtune.optimizer.strategies._base import current_row
from mrtune.search_spaces import SearchSpace, find_knob
from mrtune.search_spaces.constraints import (
    HEAP_NEED_HEADROOM,
    SORT_BUFFER_HEAP_SHARE,
    sort_buffer_cap,
)

MB = 2**20
SORT_MB = "mapreduce.task.io.sort.mb"
CLUSTER = ClusterSpec(num_nodes=10)
BASE = HadoopConfig(num_reducers=20)  # -Xmx820m (1024 MB x 0.8), io.sort.mb 100


def use(need_mb: float, heap_mb: float = 820.0) -> MapHeapUse:
    return MapHeapUse(
        need_mb=need_mb,
        committed_mb=need_mb + 100,
        sort_mb=100,
        heap_mb=heap_mb,
        attempts=160,
        source="constructed",
    )


def big_maps(need_mb: float | None) -> JobProfile:
    """20 GB whose maps each emit 2.5x their split: a job that wants a large sort buffer."""
    return JobProfile(
        job_id="big-maps",
        input_bytes=20e9,
        stats=DataflowStats(input_pair_width=100, map_size_sel=2.5, map_pairs_sel=1.0),
        map_heap_use=None if need_mb is None else use(need_mb),
    )


@given(
    heap=st.floats(16, 16384),
    need=st.floats(0, 16384),
    current=st.none() | st.floats(1, 2047),
)
def test_cap_never_exceeds_the_share_and_leaves_the_need(heap, need, current) -> None:  # noqa: ANN001
    ctx = {"map_heap_need_mb": need, "map_heap_mb": heap + 1.0}  # another heap: not kept
    if current is not None:
        ctx["current_sort_mb"] = current
    cap = float(sort_buffer_cap(np.array([heap]), ctx)[0])
    share = max(math.floor(SORT_BUFFER_HEAP_SHARE * heap), 1)
    assert cap >= 1  # never below one megabyte
    assert cap <= share  # the evidence only tightens the documented share
    if cap < share and cap > 1:  # the need binds: it is left free, with its headroom
        assert heap - cap >= HEAP_NEED_HEADROOM * need
        assert heap - (cap + 1) < HEAP_NEED_HEADROOM * need  # and no more than that
    without = float(sort_buffer_cap(np.array([heap]), {})[0])
    assert cap <= without


@given(need=st.floats(0, 2000), now=st.integers(1, 819))
def test_the_jobs_own_value_is_kept_in_its_own_heap(need: float, now: int) -> None:
    ctx = {"map_heap_need_mb": need, "map_heap_mb": 820.0, "current_sort_mb": float(now)}
    cap = float(sort_buffer_cap(np.array([820.0]), ctx)[0])
    assert cap >= now


def test_the_space_repairs_and_grids_below_the_need() -> None:
    space = SearchSpace.for_job(big_maps(500), BASE, CLUSTER)
    cap = math.floor(820 - HEAP_NEED_HEADROOM * 500)  # 195, below half the heap (410)
    assert space.sort_buffer_cap_mb() == cap
    vals = {n: np.repeat(float(v), 3) for n, v in current_row(space).items()}
    vals[SORT_MB] = np.array([150.0, 300.0, 410.0])
    fixed = space.repair(vals)
    assert fixed[SORT_MB].tolist() == [150.0, cap, cap]
    assert space.feasible(fixed).all()
    assert cap in space.grid(find_knob(SORT_MB))  # the largest buffer allowed is offered
    unbound = SearchSpace.for_job(big_maps(100), BASE, CLUSTER)  # 820 - 125 > 410
    assert unbound.sort_buffer_cap_mb() == 410


def test_a_recommendation_that_went_above_heap_less_need_no_longer_does() -> None:
    """Without the figure the optimizer takes half the heap (410 MB); with maps that took
    500 MB beside their buffer it stays at or below 820 - 1.25 x 500 = 195 MB."""
    free = recommend(big_maps(None), BASE, CLUSTER, samples=0)
    assert free.config.io_sort_mb > 820 - HEAP_NEED_HEADROOM * 500
    held = recommend(big_maps(500), BASE, CLUSTER, samples=0)
    assert held.config.io_sort_mb <= 820 - HEAP_NEED_HEADROOM * 500
    assert held.config.map_heap_bytes / MB == 820
