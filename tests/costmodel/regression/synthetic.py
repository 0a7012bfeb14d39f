"""Synthetic phase-time data from known coefficients plus Gaussian noise.

The generator computes every driver by hand from the paper's definitions (eq. 1, 3, 6, 7, 10)
rather than through ``mrtune.costmodel.regression``, so a fit that recovers ``TRUE`` checks the
driver code as well as the regression.
"""

from __future__ import annotations

import csv
import io
import math

import numpy as np

# phase -> (intercept, {driver: coefficient}); times in ms, sizes in MB
TRUE: dict[str, tuple[float, dict[str, float]]] = {
    "read": (50.0, {"d": 2.0}),
    "collect": (20.0, {"M_d": 1.5}),
    "spill": (30.0, {"M_d": 3.0}),
    "merge": (40.0, {"M_d_log_M_d": 0.5}),
    "shuffle": (1000.0, {"S_d": 10.0, "M_t": 50.0}),
    "write": (500.0, {"R_d": 6.0}),
}
NOISE_SD: dict[str, float] = {
    "read": 15.0,
    "collect": 10.0,
    "spill": 20.0,
    "merge": 25.0,
    "shuffle": 300.0,
    "write": 150.0,
}
HEADER = [
    "Operation",
    "Duration",
    "MapSelectivity",
    "MapInputRec",
    "MapOutputRec",
    "Mappers",
    "DataSize",
    "BlockSize",
    "Reducers",
    "RunId",
    "Noise",
]


def job_drivers(data_mb: float, sel_pct: float, block_mb: float, reducers: int) -> dict:
    """Drivers of one job by the paper's definitions (hand-written, independent of the code)."""
    mappers = math.ceil(data_mb / block_mb)
    d = data_mb / mappers  # eq. 1: the (mean) split size
    m_d = d * sel_pct / 100  # eq. 3
    s_d = d * sel_pct / 100 * mappers / reducers  # eq. 7
    r_d = s_d * 1.0  # eq. 10 with R_sel = 100 %
    return {
        "d": d,
        "M_d": m_d,
        "M_d_log_M_d": m_d * math.log(m_d),
        "S_d": s_d,
        "M_t": mappers,
        "R_d": r_d,
    }


def synthetic_rows(seed: int = 0, tasks_per_job: int = 2) -> list[list[object]]:
    """Rows of the long format over the paper's generic-benchmark grid (section IV).

    Input 500...5000 MB by 500, selectivity 10...100 % by 10, block 64 and 128 MB, and one or
    two reducers; ``tasks_per_job`` task rows per phase and job. ``Noise`` is a pure-noise
    column, unrelated to any duration.
    """
    rng = np.random.default_rng(seed)
    rows: list[list[object]] = []
    run = 0
    for data_mb in range(500, 5001, 500):
        for sel in range(10, 101, 10):
            for block in (64, 128):
                reducers = 1 + run % 2
                drv = job_drivers(data_mb, sel, block, reducers)
                in_rec = data_mb * 1048576 // 100
                for phase, (b0, coefs) in TRUE.items():
                    mean = b0 + sum(c * drv[k] for k, c in coefs.items())
                    for _ in range(tasks_per_job):
                        duration = max(0.0, mean + rng.normal(0.0, NOISE_SD[phase]))
                        rows.append(
                            [
                                phase,
                                round(duration, 3),
                                sel,
                                in_rec,
                                int(in_rec * sel / 100),
                                drv["M_t"],
                                data_mb,
                                block,
                                reducers,
                                f"run{run}",
                                round(float(rng.normal(0.0, 1.0)), 6),
                            ]
                        )
                run += 1
    return rows


def to_csv(rows: list[list[object]], header: list[str] = HEADER) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()
