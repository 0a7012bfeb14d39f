"""Starfish's dataflow statistics → :class:`~mrtune.costmodel.profile.DataflowStats`
(reference Table 2).

A statistic is taken from the profile that measures it (``_STAT_OWNER``: the reduce-side
selectivities from the reduce profile, the rest from the map profiles), else from the other
one, else derived from the counters by its Table 2 definition (Starfish's ``MRStatistics``
are themselves ratios of ``MRCounter`` values). The combiner's distinct-keys curve is fitted
through the profile's own distinct-key counters (issue 16). Mixed into the assembler of
:mod:`mrtune.profiling.starfish`.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from mrtune.costmodel.profile import DataflowStats
from mrtune.errors import InputError
from mrtune.profiling._starfish_sides import Sides
from mrtune.profiling.combine_fit import fit_beta_from_groups, fit_width_law
from mrtune.profiling.dataflow import Stats
from mrtune.readers._starfish_keys import _STAT_OWNER, STATISTIC_FIELDS


class Statistics(Sides):
    """Table 2 of a Starfish job profile: each statistic with where it came from."""

    def _derived_stat(self, key: str) -> tuple[float, str] | None:
        """A statistic from the counters, by its Table 2 definition."""

        def ratio(num: float | None, den: float | None) -> float | None:
            if num is None or den is None or den <= 0:
                return None
            return num / den

        m, r = self._map_counter, lambda k: self._reduce_value("counters", k)
        defs: dict[str, tuple[float | None, str]] = {
            "INPUT_PAIR_WIDTH": (
                ratio(m("MAP_INPUT_BYTES"), m("MAP_INPUT_RECORDS")),
                "MAP_INPUT_BYTES / MAP_INPUT_RECORDS",
            ),
            "MAP_SIZE_SEL": (
                ratio(m("MAP_OUTPUT_BYTES"), m("MAP_INPUT_BYTES")),
                "MAP_OUTPUT_BYTES / MAP_INPUT_BYTES",
            ),
            "MAP_PAIRS_SEL": (
                ratio(m("MAP_OUTPUT_RECORDS"), m("MAP_INPUT_RECORDS")),
                "MAP_OUTPUT_RECORDS / MAP_INPUT_RECORDS",
            ),
            "COMBINE_PAIRS_SEL": (
                ratio(m("COMBINE_OUTPUT_RECORDS"), m("COMBINE_INPUT_RECORDS")),
                "COMBINE_OUTPUT_RECORDS / COMBINE_INPUT_RECORDS (map side)",
            ),
            "REDUCE_PAIRS_SEL": (
                ratio(r("REDUCE_OUTPUT_RECORDS"), r("REDUCE_INPUT_RECORDS")),
                "REDUCE_OUTPUT_RECORDS / REDUCE_INPUT_RECORDS",
            ),
            "REDUCE_SIZE_SEL": (
                ratio(r("REDUCE_OUTPUT_BYTES"), r("REDUCE_INPUT_BYTES")),
                "REDUCE_OUTPUT_BYTES / REDUCE_INPUT_BYTES",
            ),
            "REDUCE_PAIRS_PER_GROUP": (
                ratio(r("REDUCE_INPUT_RECORDS"), r("REDUCE_INPUT_GROUPS")),
                "REDUCE_INPUT_RECORDS / REDUCE_INPUT_GROUPS",
            ),
            "INPUT_COMPRESS_RATIO": (
                ratio(m("HDFS_BYTES_READ"), m("MAP_INPUT_BYTES")),
                "HDFS_BYTES_READ / MAP_INPUT_BYTES",
            ),
        }
        value, how = defs.get(key, (None, ""))
        return None if value is None else (value, how)

    def statistic(self, key: str) -> tuple[float, str] | None:
        """``(value, provenance)`` of a Starfish statistic, or None when neither given nor derivable."""
        owner = _STAT_OWNER.get(key, "map")
        first, second = (
            (self._reduce_value, self._map_value)
            if owner == "reduce"
            else (self._map_value, self._reduce_value)
        )
        for getter, side in ((first, owner), (second, "map" if owner == "reduce" else "reduce")):
            v = getter("statistics", key)
            if v is not None:
                return v, f"measured: Starfish statistic {key} ({self.src}, {side} profile)"
        derived = self._derived_stat(key)
        if derived is not None:
            return derived[
                0
            ], f"measured: derived from Starfish counters {derived[1]} ({self.src})"
        return None

    def stats(self, has_combiner: bool) -> DataflowStats:
        values: dict[str, Any] = {}
        for key, fname in STATISTIC_FIELDS.items():
            got = self.statistic(key)
            if got is None:
                continue
            v, prov = got
            if fname in {"combine_pairs_sel", "combine_size_sel"} and not has_combiner:
                continue
            values[fname] = v
            self.provenance[f"stats.{fname}"] = prov
        if has_combiner:
            per_spill = self._map_counter("MAP_RECS_PER_BUFF_SPILL")
            if per_spill:
                # The combiner's selectivity was measured on one spill buffer (reference §2.3).
                values["combine_profiled_input_records"] = per_spill
                self.provenance["stats.combine_profiled_input_records"] = (
                    f"measured: Starfish counter MAP_RECS_PER_BUFF_SPILL ({self.src})"
                )
            self._distinct_key_stats(values)
        # Starfish's byte counts are MAP_OUTPUT_BYTES-based: no IFile vint lengths per record.
        values["ifile_record_overhead"] = 0.0
        self.provenance["stats.ifile_record_overhead"] = (
            "defaulted: 0, Starfish sizes are MAP_OUTPUT_BYTES-based (no IFile vint lengths)"
        )
        try:
            return DataflowStats(**values)
        except ValidationError as exc:
            err = exc.errors()[0]
            fname = str(err["loc"][0]) if err.get("loc") else "statistics"
            key = next((k for k, f in STATISTIC_FIELDS.items() if f == fname), fname)
            raise InputError(
                err.get("msg", "invalid value"),
                path=str(self.job.path),
                field=f"statistic {key}",
                value=err.get("input"),
            ) from None

    def _distinct_key_stats(self, values: dict[str, Any]) -> None:
        """The combiner's distinct-keys curve through the profile's own distinct-key figures
        (issue 16): one map's output has MAP_MAX_UNIQUE_GROUPS distinct keys, the job's
        REDUCE_INPUT_GROUPS × reducers (mrtune.profiling.combine_fit), and the combined
        width at one spill's merge factor 1 / COMBINE_PAIRS_SEL."""
        st = Stats()
        st.values = values
        m_out = self._map_counter("MAP_OUTPUT_RECORDS")
        points: list[tuple[float, float, str]] = []
        unique = self._map_counter("MAP_MAX_UNIQUE_GROUPS")
        if m_out and unique:
            points.append((m_out, unique, "MAP_MAX_UNIQUE_GROUPS"))
        groups = self._reduce_value("counters", "REDUCE_INPUT_GROUPS")
        if m_out and groups and self.job.num_reducers > 0:
            points.append(
                (
                    m_out * self.job.num_mappers,
                    groups * self.job.num_reducers,
                    f"REDUCE_INPUT_GROUPS × {self.job.num_reducers} reducers",
                )
            )
        fit_beta_from_groups(st, points, "no distinct-key counters: default exponent")
        per_spill = values.get("combine_profiled_input_records")
        sel = values.get("combine_pairs_sel")
        width = self._map_counter("MAP_OUTPUT_BYTES")
        if per_spill and sel and width and m_out:
            fit_width_law(st, width / m_out, per_spill, per_spill * sel)
        for key, how in st.prov.items():
            self.provenance[key] = how.replace("measured: ", f"measured ({self.src}): ", 1)
