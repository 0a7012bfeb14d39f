"""Starfish's cost factors → :class:`~mrtune.costmodel.profile.CostFactors` (reference Table 3).

A factor is read from the profile that measures it (``_COST_OWNER``). One both the map and
the reduce profile carry (local I/O, merge, combine, the intermediate codec) keeps the map
profile's value and, when the reduce profile's differs, files that one as the reduce task's
own (``CostFactors.reduce_side``, ``CodecStats.reduce_*_ns_per_byte``): Starfish's What-if
Engine prices each task at its own profile's factors. Setup and cleanup come from the timings
when given, else from the cost factors (ns). Factors Starfish's equations do not have (fixed
costs per spill, segment or fetch) are 0, so its profiles predict as Starfish does. Mixed
into the assembler of :mod:`mrtune.profiling.starfish`.
"""

from __future__ import annotations

import math
from typing import Any

from mrtune.costmodel.profile import CostFactors
from mrtune.profiling._starfish_sides import Sides
from mrtune.readers._starfish_keys import _COST_OWNER, COST_FIELDS, NS_PER_MS


class Costs(Sides):
    """Table 3 of a Starfish job profile: each cost factor with where it came from."""

    def cost(self, key: str) -> tuple[float, str] | None:
        """A cost factor from the profile that measures it (``_COST_OWNER``), else from the
        other one. A factor both profiles carry is split by :meth:`_both_sides` first; here
        it is one only one side gives."""
        owner = _COST_OWNER.get(key, "map")
        mv = self._map_value("cost_factors", key)
        rv = self._reduce_value("cost_factors", key)
        order = (
            [(rv, "reduce"), (mv, "map")] if owner == "reduce" else [(mv, "map"), (rv, "reduce")]
        )
        for value, side in order:
            if value is not None:
                return value, f"measured: Starfish cost factor {key} ({self.src}, {side} profile)"
        return None

    def _both_sides(
        self, key: str, fname: str, reduce_side: dict[str, float]
    ) -> tuple[float, str] | None:
        """The map profile's value of a factor both profiles carry, with the reduce
        profile's filed in ``reduce_side`` when it differs; None when only one side has it
        (``cost`` then takes whichever there is)."""
        if _COST_OWNER.get(key) != "both":
            return None
        mv = self._map_value("cost_factors", key)
        rv = self._reduce_value("cost_factors", key)
        if mv is None or rv is None:
            return None
        if math.isclose(mv, rv, rel_tol=1e-9):
            return (
                mv,
                f"measured: Starfish cost factor {key} ({self.src}, map and reduce profiles)",
            )
        reduce_side[fname] = rv
        if fname in COST_FIELDS.values():
            self.provenance[f"costs.reduce_side.{fname}"] = (
                f"measured: Starfish cost factor {key} ({self.src}, reduce profile)"
            )
        return mv, (
            f"measured: Starfish cost factor {key} ({self.src}): map profile {mv:g}, "
            f"reduce profile {rv:g} (reduce side, kept apart)"
        )

    def _codec_cost(self, key: str) -> tuple[tuple[float, str] | None, float | None]:
        """An intermediate codec cost and, when the reduce profile measured a different
        one, the reduce task's value apart (``CodecStats.reduce_*_ns_per_byte``)."""
        sides: dict[str, float] = {}
        got = self._both_sides(key, "codec", sides)
        return (got if got is not None else self.cost(key)), sides.get("codec")

    def _task_ms(self, timing: str, cost: str) -> tuple[float, float | None, str] | None:
        """Setup or cleanup ms per task: the timing if given, else the cost factor (ns).

        ``(map value, reduce value or None, provenance)``: the map value is the task-weighted
        mean over the map profiles; the reduce profile's own value is returned apart when
        there are map profiles too (the reduce task reads it, ``CostFactors.reduce_side``)."""

        def one(tp: Any) -> float | None:
            if timing in tp.timings:
                return float(tp.timings[timing])
            if cost in tp.cost_factors:
                return float(tp.cost_factors[cost]) / NS_PER_MS
            return None

        maps = [(v, tp.num_tasks) for tp in self.job.maps if (v := one(tp)) is not None]
        red = one(self.job.reduce) if self.job.reduce is not None else None
        how = f"measured: Starfish timing {timing} / cost factor {cost} ({self.src})"
        if not maps:
            return None if red is None else (red, None, how)
        value = sum(v * k for v, k in maps) / sum(k for _, k in maps)
        return value, red, how

    def costs(self) -> CostFactors:
        """Table 3 from the profiles. A factor both the map and the reduce profile carry
        (``_COST_OWNER`` "both") keeps the map profile's value as the factor and the reduce
        profile's as its reduce-side override, when they differ (issue 16: co-occurrence's
        MERGE_CPU_COST is 168.6 ns on the map side and 18,234.7 on the reduce side)."""
        values: dict[str, Any] = {}
        reduce_side: dict[str, float] = {}
        for key, fname in COST_FIELDS.items():
            got = self._both_sides(key, fname, reduce_side)
            if got is None:
                got = self.cost(key)
            if got is not None:
                values[fname], self.provenance[f"costs.{fname}"] = got
        for timing, cost, fname in (
            ("SETUP", "SETUP_CPU_COST", "setup_ms"),
            ("CLEANUP", "CLEANUP_CPU_COST", "cleanup_ms"),
        ):
            task = self._task_ms(timing, cost)
            if task is not None:
                mv, rv, how = task
                values[fname] = mv
                self.provenance[f"costs.{fname}"] = how
                if rv is not None and not math.isclose(mv, rv, rel_tol=1e-9):
                    reduce_side[fname] = rv
                    self.provenance[f"costs.{fname}"] = (
                        f"{how}: map profiles {mv:g} ms, reduce profile {rv:g} ms (reduce side)"
                    )
        values["reduce_side"] = reduce_side
        self.provenance["costs.reduce_side"] = (
            f"measured: the reduce profile's values where they differ from the map profile's "
            f"({', '.join(sorted(reduce_side))})"
            if reduce_side
            else "measured: the map and reduce profiles agree on every factor both carry"
            if self.job.reduce is not None and self.job.maps
            else "defaulted: none, one task kind profiled"
        )
        # Starfish's scheduler charges per-task delays on the cluster (see ClusterSpec), and
        # its profiles time setup and cleanup apart, so no extra fixed time per task.
        values.setdefault("task_overhead_ms", 0.0)
        self.provenance["costs.task_overhead_ms"] = (
            "defaulted: 0, Starfish's per-task delays are on the cluster specification"
        )
        # Starfish's equations have no per-spill, per-segment or per-fetch fixed costs.
        for fixed in ("spill_file_ns", "segment_seek_ns", "fetch_ns"):
            values.setdefault(fixed, 0.0)
            self.provenance[f"costs.{fixed}"] = "defaulted: 0, not in Starfish's cost model"
        values["reduce_includes_final_merge"] = True
        self.provenance["costs.reduce_includes_final_merge"] = (
            "defaulted: Starfish calibrates REDUCE_CPU_COST on the final-merge + reduce loop"
        )
        return CostFactors(**values)
