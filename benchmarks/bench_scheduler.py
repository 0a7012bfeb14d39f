"""Per-task cost of :func:`mrtune.costmodel.scheduler.simulate_schedule` (issue 18).

Prints, for clusters of 100, 1,000 and 10,000 nodes, the CPU time (``time.process_time``)
per simulated task of a job large enough to fill the cluster several times over, then the
CPU time of one job of 1,000,000 tasks (goals: ≤ 5 µs per task at every size, 1,000,000
tasks in ≤ 10 s). The machine's load average is printed beside each figure, since other
work on a shared machine slows even CPU time (caches, frequency).

Run: ``python benchmarks/bench_scheduler.py``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile  # noqa: E402
from mrtune.costmodel.scheduler import simulate_schedule  # noqa: E402

SPLIT = 128 * 2**20
GOAL_US = 5.0
GOAL_MILLION_S = 10.0


def job(maps: int, reducers: int) -> tuple[JobProfile, HadoopConfig]:
    profile = JobProfile(input_bytes=float(maps * SPLIT), input_files=maps)
    config = HadoopConfig.from_properties(
        {
            "mapreduce.job.reduces": str(reducers),
            "mapreduce.input.fileinputformat.split.maxsize": str(SPLIT),
        }
    )
    return profile, config


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(nodes: int, maps: int, reducers: int) -> tuple[float, int]:
    profile, config = job(maps, reducers)
    cluster = ClusterSpec(num_nodes=nodes)
    simulate_schedule(*job(10, 2), cluster)  # warm up (imports, caches)
    t0 = time.process_time()
    sched = simulate_schedule(profile, config, cluster)
    dt = time.process_time() - t0
    return dt, len(sched.tasks)


def main() -> None:
    for nodes in (100, 1_000, 10_000):
        # ~6 containers per node: 10 map waves and 2 reduce waves
        maps, reducers = 60 * nodes, 12 * nodes
        dt, tasks = measure(nodes, maps, reducers)
        per = 1e6 * dt / tasks
        flag = "ok" if per <= GOAL_US else "MISSED"
        print(
            f"nodes={nodes:>6,}: {tasks:>9,} tasks, {dt:6.2f} s CPU, {per:5.2f} µs/task "
            f"(goal ≤ {GOAL_US} µs: {flag}; {load()})"
        )
    dt, tasks = measure(1_000, 900_000, 100_000)
    flag = "ok" if dt <= GOAL_MILLION_S else "MISSED"
    print(
        f"one job of {tasks:,} tasks on 1,000 nodes: {dt:.2f} s CPU, "
        f"{1e6 * dt / tasks:.2f} µs/task (goal ≤ {GOAL_MILLION_S:.0f} s: {flag}; {load()})"
    )


if __name__ == "__main__":
    main()
