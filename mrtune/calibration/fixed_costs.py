"""How the calibration fit treats the cluster-scale fixed costs (issue 20, item 5).

A history's phase times price a fixed cost (per task, spill or fetch) only where its count
varies across the rows: one spill per map, every reduce fetching every map, or a read
intercept in the same first phase as the task's fixed time leave them collinear with
``task_overhead_ms``. Then the fit keeps the documented prior
(:meth:`~mrtune.costmodel.cluster.ClusterSpec.cost_priors`) or lets the task's fixed time
carry a per-attempt constant, so neither collapses to a 0 bound. ``spill_write`` (the spill's
disk cost apart from the merge's) is tied to ``local_write`` where no segment separates them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from mrtune.calibration.rows import UNIT_FACTORS, _Obs

F64 = NDArray[np.float64]

#: Columns selected only after every other one (and the task's fixed time), so they are fitted
#: only where the rows still separate them, else keep their prior: ``spill_write`` splits the
#: local writes (tied to local_write then); a per-spill or per-fetch cost is a constant per
#: task whenever every task spills or fetches alike (one spill per map, issue 20's README
#: job: it took the whole 5.7 s fixed time as 2 s per spill).
LATE_COLUMNS: tuple[str, ...] = (
    "spill_write",
    "spill_file_ns",
    "fetch_ns",
    "read_fixed_ms",
    "shuffle_floor_ms",
)
#: Fixed costs (per task, spill, fetch or segment): left out of a segment's volume share when
#: deciding whether it is fixed time (:func:`_stack`), so a prior of them cannot make a
#: segment of fixed time look priced by volumes.
FIXED_COST_COLUMNS: tuple[str, ...] = (
    "spill_file_ns",
    "segment_seek_ns",
    "fetch_ns",
    "read_fixed_ms",
    "shuffle_floor_ms",
)
#: Per-attempt constants of an attempt's first segment (ms): where the rows cannot separate
#: them from ``task_overhead_ms`` they are absorbed by it rather than kept at their prior.
FIRST_SEGMENT_CONSTANTS: tuple[str, ...] = ("read_fixed_ms", "shuffle_floor_ms")
#: Per-attempt constants of an attempt's first segment (ms): where the rows cannot separate
#: them from ``task_overhead_ms`` they are absorbed by it rather than kept at their prior.
FIRST_SEGMENT_CONSTANTS: tuple[str, ...] = ("read_fixed_ms", "shuffle_floor_ms")

#: Segments that time the spills apart from the merge (a phase table's spill, a task log's
#: spills): only with one of them can ``spill_write`` be told from ``local_write``.
SPILL_SEGMENTS = ("map.spill", "map.spill_full", "map.spill_last")
_SW, _LW = UNIT_FACTORS.index("spill_write"), UNIT_FACTORS.index("local_write")


def tie_spill_write(obs: dict[str, _Obs], force: bool = False) -> bool:
    """Price spilled bytes at ``local_write`` when no segment times the spills apart.

    A ``.jhist`` cuts a map at ``mapFinishTime``: spills and the merge share segments, and a
    map's spilled bytes are proportional to its merged bytes, so the two disk factors are
    collinear; a separate ``spill_write`` would also take the per-spill fixed cost's place
    (spill count ∝ bytes). Tied, the spill volume joins ``local_write``'s column and
    ``spill_write`` takes its fitted value (:func:`untie_spill_write`)."""
    if not force and any(obs.get(s) is not None and obs[s].y for s in SPILL_SEGMENTS):
        return False
    for o in obs.values():
        for row in o.rows:
            row[_LW] += row[_SW]
            row[_SW] = 0.0
    return True


def untie_spill_write(fit: Any) -> None:  # noqa: ANN401 - solve._Fit (no import cycle)
    """``spill_write`` takes local_write's fitted value; its provenance says so, measured or
    defaulted as local_write is."""
    fit.theta[_SW] = fit.theta[_LW]
    lw = fit.prov.get("costs.local_write", "defaulted: its phase was not observed")
    head = "measured" if lw.startswith("measured") else "defaulted"
    fit.prov["costs.spill_write"] = (
        f"{head}: tied to local_write, since these phase times do not separate the spills' "
        f"disk cost from the merge's (or from the per-spill and sort terms); local_write {lw}"
    )


def split_fixed(
    theta: F64, consts: list[int], columns: list[str], prov: dict[str, str]
) -> tuple[float, str]:
    """The task's fixed time as the part of the maps' and the reduces' first-phase constants
    they share (container launch and JVM start are the same for both); the read intercept
    and the shuffle floor keep the rest of each. The rows identify only the two sums."""
    common = float(min(theta[consts[0]], theta[consts[1]]))
    for i in consts:
        theta[i] -= common
        prov[f"costs.{columns[i]}"] = (
            f"measured: {prov.get(f'costs.{columns[i]}', '')[len('measured: ') :]} less the "
            "fixed time common to maps and reduces (task_overhead_ms)"
        )
    how = (
        "measured: the part of the maps' and reduces' first-phase fixed times they share "
        "(container launch, JVM start); the rest is read_fixed_ms / shuffle_floor_ms"
    )
    return common, how
