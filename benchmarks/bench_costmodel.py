"""Configurations per second of the analytic job model: vectorised path vs a scalar loop.

Prints one figure a line as ``<path>: <number> configs/s`` for 1, 10^3, 10^5 and 10^6 random
valid configurations of one profile (CPU time of this process, so other load on the machine
distorts the figures less). Run: ``python benchmarks/bench_costmodel.py``.
"""

from __future__ import annotations

import time

import numpy as np

from mrtune.costmodel import (
    ClusterSpec,
    DataflowStats,
    HadoopConfig,
    JobProfile,
    evaluate,
    predict_job,
)
from mrtune.search_spaces import SearchSpace

SIZES = (1, 1_000, 100_000, 1_000_000)
SCALAR_CALLS = 300


def main() -> None:
    profile = JobProfile(
        input_bytes=50e9,
        input_files=20,
        has_combiner=True,
        combine_class="Combiner",
        stats=DataflowStats(
            input_pair_width=80,
            map_size_sel=1.3,
            map_pairs_sel=8.0,
            combine_pairs_sel=0.2,
            combine_size_sel=0.25,
            combine_profiled_input_records=5e5,
        ),
    )
    cluster = ClusterSpec(num_nodes=20)
    space = SearchSpace.for_job(profile, HadoopConfig(combine_class="Combiner"), cluster)
    rng = np.random.default_rng(0)
    for n in SIZES:
        values = space.repair(space.from_unit(rng.random((n, len(space.knobs)))))
        batch = space.to_batch(values, repair=False)
        evaluate(profile, batch.take(slice(0, min(n, 64))), cluster)  # warm caches
        t0 = time.process_time()
        job_ms, _ = evaluate(profile, batch, cluster)
        dt = max(time.process_time() - t0, 1e-9)
        assert np.all(np.isfinite(job_ms))
        print(f"vectorised n={n}: {n / dt:,.0f} configs/s")
    m = SCALAR_CALLS
    batches = [
        space.to_batch({k: v[i : i + 1] for k, v in values.items()}, repair=False)
        for i in range(m)
    ]
    t0 = time.process_time()
    for b in batches:
        predict_job(profile, b, cluster).job_ms  # noqa: B018
    dt = time.process_time() - t0
    print(f"scalar loop n={m}: {m / dt:,.0f} configs/s")


if __name__ == "__main__":
    main()
