"""The map's spill thread overlapping the map function (``ClusterSpec.spill_overlap``).

``MapOutputBuffer`` spills in a background ``SpillThread`` while the map thread collects into
the free rest of the buffer, and blocks once that headroom is full; the final spill is made in
``flush``. :func:`mrtune.costmodel.map_task.hidden_spill_ns` models the time the map function hides.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile, predict_job
from mrtune.costmodel.map_task import hidden_spill_ns, map_task
from mrtune.costmodel.profile import DataflowStats


def _a(x: float) -> np.ndarray:
    return np.array([float(x)])


def test_wordcount_measurement_hand_case() -> None:
    """The local WordCount map of the fidelity matrix: 4.05 M output records, spill at 80 %
    after 2.97 M (0.74 M records of headroom), map thread 0.32 µs per record, a 2.1 s
    background spill: the map thread blocks 2.1 − 0.74 M × 0.32 µs = 1.86 s, so 0.24 s hide."""
    k, last, n = 2.97e6, 1.08e6, 4.05e6
    work = n * 320.0  # ns
    s_full, s_last = 2.1e9, 0.5e9
    hidden = hidden_spill_ns(
        _a(work), _a(s_full + s_last), _a(s_last), _a(1), _a(k), _a(last), _a(n), _a(0.8)
    )
    head = k * 0.2 / 0.8
    assert hidden[0] == pytest.approx(head * 320.0, rel=1e-12)
    assert hidden[0] / 1e9 == pytest.approx(0.2376, abs=1e-3)


def test_headroom_bounds_the_overlap() -> None:
    """A spill shorter than the headroom's worth of map work is hidden entirely; with no
    headroom (spill percent 1.0) nothing is; a single spill (the final one) is never hidden."""
    k, n = 1e6, 5e6  # 5 spills, 4 of them in the background
    work = n * 100.0
    s = 10e6  # 10 ms per spill: far less than 0.25 M records × 100 ns
    args = (_a(work), _a(5 * s), _a(s), _a(4), _a(k), _a(k), _a(n))
    assert hidden_spill_ns(*args, _a(0.8))[0] == pytest.approx(4 * s)
    assert hidden_spill_ns(*args, _a(1.0))[0] == pytest.approx(0.0, abs=1e-6)
    one = hidden_spill_ns(_a(work), _a(s), _a(s), _a(0), _a(n), _a(n), _a(n), _a(0.8))
    assert one[0] == 0.0


def _profile(combiner: bool) -> JobProfile:
    return JobProfile(
        input_bytes=2 * 128 * 2**20,
        has_combiner=combiner,
        stats=DataflowStats(
            input_pair_width=100.0,
            map_size_sel=1.2,
            map_pairs_sel=3.0,
            combine_pairs_sel=0.3,
            combine_size_sel=0.3,
        ),
    )


@settings(max_examples=60, deadline=None)
@given(
    sort_mb=st.integers(1, 300),
    spill=st.floats(0.3, 1.0),
    combiner=st.booleans(),
    map_cpu=st.floats(10.0, 5000.0),
)
def test_overlap_hides_at_most_the_background_spills(
    sort_mb: int, spill: float, combiner: bool, map_cpu: float
) -> None:
    """Overlap never changes the dataflow, never makes a map slower, and hides no more than
    the spills made before the flush (the final spill and the merge stay on the clock)."""
    prof = _profile(combiner)
    prof = prof.model_copy(update={"costs": prof.costs.model_copy(update={"map_cpu": map_cpu})})
    cfg = HadoopConfig.from_properties(
        {"mapreduce.task.io.sort.mb": sort_mb, "mapreduce.map.sort.spill.percent": spill}
    )
    batch = ConfigBatch.from_configs([cfg])
    split = np.array([128.0 * 2**20])
    serial = map_task(prof, batch, split)
    ovl = map_task(prof, batch, split, spill_overlap=True)
    assert ovl.spilled_records[0] == serial.spilled_records[0]
    assert ovl.materialized_bytes[0] == serial.materialized_bytes[0]
    hidden = float(np.asarray(ovl.hidden_spill_ms)[0])
    background = float(serial.phase_ms["spill"][0]) - float(np.asarray(serial.last_spill_ms)[0])
    assert 0.0 <= hidden <= background * (1 + 1e-9) + 1e-9
    assert float(ovl.task_ms[0]) == pytest.approx(float(serial.task_ms[0]) - hidden, rel=1e-9)
    if serial.spills[0] <= 1:
        assert hidden == 0.0


def test_every_cluster_type_overlaps() -> None:
    """Hadoop's SpillThread runs beside the map thread on every cluster type (issue 20); only
    the contention measured in local mode stays local (tests/costmodel/test_cluster_terms.py)."""
    assert ClusterSpec.local().spill_overlap
    assert ClusterSpec().spill_overlap
    prof = _profile(True)
    batch = ConfigBatch.from_configs(
        [HadoopConfig.from_properties({"mapreduce.task.io.sort.mb": 20})]
    )
    local = predict_job(prof, batch, ClusterSpec.local())
    serial = predict_job(
        prof, batch, ClusterSpec.local().model_copy(update={"spill_overlap": False})
    )
    assert local.job_ms[0] < serial.job_ms[0]
    assert local.counters["MAP_SPILLED_RECORDS"][0] == serial.counters["MAP_SPILLED_RECORDS"][0]
