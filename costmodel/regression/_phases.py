"""Phase names and the model forms of Ceesay et al. (eqs. 1-11).

The paper names six framework phases (section III): read, collect, spill and merge in a map
task, shuffle and write in a reduce task. Two more phases exist for data that cannot be split
the paper's way, and a model without them simply has no such terms:

* ``map``: read + the user's map() + collect as one interval. A map task's single thread
  interleaves the three record by record, and unmodified Hadoop logs no boundary between them
  (the paper added its own counters to Hadoop to separate them); the project's real-Hadoop
  harness therefore measures task start -> "Starting flush of map output" (Hadoop's MAP phase,
  ``mapFinishTime`` in a job history). Its form is the sum of eq. 1, 2 and 4:
  ``b0 + b1 d + b3 M_d`` (the user's map() time is inside it, so ``T_map`` is then 0).
* ``sort``: the reduce-side merge between the end of the copy and the start of reduce()
  (Hadoop's ``shuffleFinishTime`` -> ``sortFinishTime``), a merge-sort like eq. 6.
"""

from __future__ import annotations

MAP_PHASES: tuple[str, ...] = ("read", "map", "collect", "spill", "merge")
"""Framework phases of a map task, in execution order (eq. 12 without the user's map())."""

REDUCE_PHASES: tuple[str, ...] = ("shuffle", "sort", "write")
"""Framework phases of a reduce task, in execution order (eq. 13 without the user's reduce())."""

PHASES: tuple[str, ...] = MAP_PHASES + REDUCE_PHASES

DEFAULT_FORMS: dict[str, tuple[str, ...]] = {
    # eq. 1: T_read = b0 + b1 d, d the size of the task's input split (MB)
    "read": ("d",),
    # not in the paper: read + map() + collect as one interval, eq. 1 + eq. 2 + eq. 4
    "map": ("d", "M_d"),
    # eq. 4: T_collect = b0 + b3 M_d, M_d = d * M_sel the task's map output (eq. 3)
    "collect": ("M_d",),
    # eq. 5: T_spill = b0 + b4 M_d
    "spill": ("M_d",),
    # eq. 6: T_merge = b0 + b5 M_d log M_d (merge-sort is n log n)
    "merge": ("M_d_log_M_d",),
    # eq. 8: T_shuffle = b0 + b6 S_d + b7 M_t, S_d the data one reducer receives (eq. 7)
    "shuffle": ("S_d", "M_t"),
    # not in the paper: the reduce-side merge, merge-sort of the reducer's input like eq. 6
    "sort": ("S_d_log_S_d",),
    # eq. 11: T_write = b0 + b8 R_d, R_d = S_d * R_sel (eq. 10)
    "write": ("R_d",),
}
"""Candidate drivers of each phase before backward elimination; the intercept is always kept."""


def phase_side(phase: str) -> str:
    """``"map"`` or ``"reduce"``: which bracket of eq. 17 the phase's time belongs to."""
    if phase in MAP_PHASES:
        return "map"
    if phase in REDUCE_PHASES:
        return "reduce"
    raise ValueError(f"unknown phase {phase!r}; known phases: {', '.join(PHASES)}")


def normalise_operation(name: str) -> str | None:
    """Map an ``Operation`` value to a phase name, or ``None`` if it names no known phase.

    The paper's own CSV files spell phases ``read_SC``, ``spill_SC`` ... (a suffix after an
    underscore names the cluster setup); case and the suffix are ignored.
    """
    base = name.strip().lower().split("_", 1)[0]
    return base if base in PHASES else None
