"""A cold JVM's extra time is an unknown of its own only where a warm attempt beside the cold
one tells it from the per-record costs (local mode: one JVM runs every task, the first
attempt of each kind runs cold). Issue 21's held-out job had one reduce: its 9 s reduce
function went 8.4 s into "warm-up", which no prediction uses, so every configuration's reduce
was predicted at 2 s; four reduces then showed it to be per-record work."""

from __future__ import annotations

import numpy as np

from mrtune.calibration.solve_ridge import _ridge_problem
from mrtune.costmodel import CostFactors


def _warm_segments(segments: list[str], warm_prior: dict[str, float]) -> list[str]:
    """The segments :func:`_ridge_problem` gives a warm-up unknown, for rows of ``segments``
    (the first row of each segment is its cold attempt)."""
    n = len(segments)
    segk = np.array(segments)
    ww = np.array([1.0 if segments.index(s) == i else 0.0 for i, s in enumerate(segments)])
    V = np.ones((n, 1))
    rows = (V, np.full(n, 100.0), np.zeros(n), np.zeros(n), np.ones(n), ww)
    mean_of = dict.fromkeys(segments, 100.0)
    _, warm = _ridge_problem(
        rows, segk, mean_of, np.ones(1), np.array([0]), ["reduce_cpu"], (), CostFactors(),
        warm_prior, sorted(set(segments)),
    )  # fmt: skip
    return warm


def test_a_segment_of_one_attempt_has_no_warm_up_unknown() -> None:
    """One reduce (cold), four maps (one cold, three warm): only the maps' segment can tell
    a warm-up from its costs."""
    segs = ["map.map"] * 4 + ["reduce.reduce"]
    assert _warm_segments(segs, {}) == ["map.map"]


def test_the_machine_benchmark_gives_a_lone_attempt_its_warm_up() -> None:
    """Measured elsewhere (the machine benchmark's cold attempts), a warm-up needs no warm
    attempt in this run to be told apart: it is given, strongly."""
    segs = ["map.map"] * 4 + ["reduce.reduce"]
    assert _warm_segments(segs, {"reduce.reduce": 800.0}) == ["map.map", "reduce.reduce"]
