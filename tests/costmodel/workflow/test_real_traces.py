"""The makespan bounds against real task timings (Rumen traces in ../shared/data/rumen).

For every map and reduce stage with two or more successful attempts, the capacity ``k`` is
the largest number of attempts the trace shows running at once. Then ``n·avg/k`` and the
longest task are true lower bounds of the measured stage span (first start to last finish), so
the (floored) lower bound must hold on every stage. The upper bound assumes a task starts as
soon as a slot frees up; real schedulers leave gaps (heartbeats, stragglers launched late), so it
is checked on the majority of stages only, and the per-trace counts are printed.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from mrtune.costmodel.workflow import bounds_from_durations


def _objects(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        text = fh.read()
    decoder = json.JSONDecoder()
    out, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        obj, i = decoder.raw_decode(text, i)
        out.append(obj)


def _stages(job: dict) -> list[np.ndarray]:
    stages = []
    for kind in ("mapTasks", "reduceTasks"):
        spans = [
            (a["startTime"], a["finishTime"])
            for task in job.get(kind) or []
            for a in task.get("attempts", [])
            if a.get("result") == "SUCCESS"
            and a.get("startTime", -1) > 0
            and a.get("finishTime", -1) >= a.get("startTime", -1)
        ]
        if len(spans) >= 2:
            stages.append(np.array(spans, dtype=np.float64))
    return stages


def _max_concurrency(spans: np.ndarray) -> int:
    events = sorted([(s, 1) for s in spans[:, 0]] + [(f, -1) for f in spans[:, 1]])
    running = peak = 0
    for _, step in events:  # a finish at the same instant as a start frees the slot first
        running += step
        peak = max(peak, running)
    return peak


@pytest.mark.parametrize("name", ["folder-input-trace.json.gz", "zombie-input-trace.json"])
def test_bounds_against_measured_stage_spans(shared_data: Path, name: str) -> None:
    jobs = _objects(shared_data / "rumen" / name)
    checked = within = 0
    for job in jobs:
        for spans in _stages(job):
            durations = spans[:, 1] - spans[:, 0]
            k = _max_concurrency(spans)
            span = spans[:, 1].max() - spans[:, 0].min()
            b = bounds_from_durations(durations, k)
            seed = bounds_from_durations(durations, k, floor_at_longest=False)
            assert seed.lower <= b.lower <= span + 1e-6, (job["jobID"], k, span)
            checked += 1
            within += bool(span <= b.upper + 1e-6)
    print(f"{name}: {checked} stages, {within} within [lower, upper]")
    assert checked >= 2
    assert within >= checked / 2
