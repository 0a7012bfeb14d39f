"""SWIM trace rows (:mod:`mrtune.readers.swim`) → :class:`~mrtune.costmodel.JobProfile` (the catalog's synthetic jobs).

A SWIM trace (``SWIMProjectUCB/SWIM``, Facebook FB-2009 / FB-2010 samples) records, per job,
only its data volumes: ``job_id, submit_time_s, inter_job_gap_s, map_input_bytes,
shuffle_bytes, reduce_output_bytes`` (tab-separated, no header). Everything else the cost model
needs is an assumption, stated here and in every profile's ``provenance``:

* **Volumes** come from the row: ``input_bytes = map_input_bytes``;
  ``stats.map_size_sel = shuffle_bytes / map_input_bytes`` (the shuffle is taken to be the map
  output: the trace was recorded without map-output compression or a combiner);
  ``stats.reduce_size_sel = reduce_output_bytes / shuffle_bytes``. The record selectivities
  equal the size selectivities (pair widths unchanged from input to map output to reduce
  output).
* **Map-only** when ``shuffle_bytes == 0`` (the SWIM convention): no reduce phase,
  ``stats.map_size_sel = reduce_output_bytes / map_input_bytes`` (the job's output is written
  by the maps), no reduce-side setting applies.
* **Statistics and cost factors** not in the row are the documented defaults of
  :class:`~mrtune.costmodel.DataflowStats` / :class:`~mrtune.costmodel.CostFactors` (Starfish's defaults),
  or, with a *base profile*, that profile's statistics, cost factors, codec statistics,
  combiner and configuration (its volumes are replaced by the row's).
* **Reducers**: the trace does not record them. FB-2009/2010 jobs were mostly Hive queries, so
  the current reducer count is Hive 0.x's estimate (``Utilities.estimateNumberOfReducers``):
  ``ceil(map_input_bytes / 1e9)`` clamped to ``[1, 999]``
  (``hive.exec.reducers.bytes.per.reducer = 1000000000``, ``hive.exec.reducers.max = 999``).
* **Input** is one splittable, uncompressed file (the trace has no file counts or formats).

A row with ``map_input_bytes == 0`` has nothing for the model to tune (``input_bytes`` must be
positive); it is reported as a failed job with that reason rather than silently invented.
"""

from __future__ import annotations

import math

from mrtune.costmodel import JobProfile
from mrtune.errors import InputError
from mrtune.readers.swim import SWIM_SOURCE, SwimRow

#: Hive 0.x defaults used to guess a SWIM job's reducer count (see the module docstring).
HIVE_BYTES_PER_REDUCER = 1_000_000_000
HIVE_MAX_REDUCERS = 999


def hive_reducers(map_input_bytes: float) -> int:
    """Hive 0.x's reducer estimate: ``ceil(input / bytes_per_reducer)`` in ``[1, max]``."""
    return int(min(HIVE_MAX_REDUCERS, max(1, math.ceil(map_input_bytes / HIVE_BYTES_PER_REDUCER))))


def swim_profile(row: SwimRow, base: JobProfile | None = None, *, source: str = "") -> JobProfile:
    """The profile of one SWIM job (assumptions: module docstring).

    Raises:
        InputError: ``map_input_bytes`` is 0 (the model needs a positive input).
    """
    if row.map_input_bytes <= 0:
        raise InputError(
            "map_input_bytes is 0: an empty-input job has nothing to tune "
            "(the cost model needs input_bytes > 0)",
            path=source or None,
            field=row.job_id,
        )
    inp = row.map_input_bytes
    if row.map_only:
        map_sel = row.reduce_output_bytes / inp
        red_sel = 1.0
    else:
        map_sel = row.shuffle_bytes / inp
        red_sel = row.reduce_output_bytes / row.shuffle_bytes
    where = f"{SWIM_SOURCE} {source} {row.job_id}".replace("  ", " ")
    template = base or _DEFAULT_TEMPLATE
    stats = template.stats.model_copy(
        update={
            "map_size_sel": map_sel,
            "map_pairs_sel": map_sel,
            "reduce_size_sel": red_sel,
            "reduce_pairs_sel": red_sel,
        }
    )
    origin = "the base profile" if base is not None else "Starfish/mrtune default"
    provenance = dict(base.provenance) if base is not None else {}
    provenance.update(
        {
            "input_bytes": f"measured: {where}: map_input_bytes",
            "stats.map_size_sel": (
                f"measured: {where}: reduce_output_bytes / map_input_bytes (map-only job)"
                if row.map_only
                else f"measured: {where}: shuffle_bytes / map_input_bytes "
                "(shuffle taken as the uncompressed, uncombined map output)"
            ),
            "stats.map_pairs_sel": "assumed: equal to stats.map_size_sel (pair width unchanged)",
            "stats.reduce_size_sel": (
                "not used: map-only job"
                if row.map_only
                else f"measured: {where}: reduce_output_bytes / shuffle_bytes"
            ),
            "stats.reduce_pairs_sel": "assumed: equal to stats.reduce_size_sel",
            "map_only": f"measured: {where}: shuffle_bytes == 0"
            if row.map_only
            else f"measured: {where}: shuffle_bytes > 0",
            "mapreduce.job.reduces": "not used: map-only job"
            if row.map_only
            else "assumed: Hive 0.x estimate ceil(map_input_bytes / 1e9) in [1, 999] "
            "(the trace does not record reducers)",
            "input_files": "assumed: one splittable, uncompressed input file",
            "stats.*": f"defaulted: {origin} (not in the trace)",
            "costs.*": f"defaulted: {origin} (not in the trace)",
        }
    )
    props = dict(base.source_properties) if base is not None else {}
    props["mapreduce.job.reduces"] = "0" if row.map_only else str(hive_reducers(inp))
    facts = dict(base.cluster_facts) if base is not None else {}
    facts.pop("num_reduces", None)
    update = {
        "job_id": row.job_id,
        "job_name": f"SWIM {row.job_id}",
        "input_bytes": inp,
        "input_files": 1,
        "input_compressed": False,
        "input_splittable": True,
        "map_only": row.map_only,
        "stats": stats,
        "provenance": provenance,
        "source_properties": props,
        "cluster_facts": facts,
        "observed": [],
        "observed_counters": {},
        "warnings": [],
    }
    # model_copy skips re-validation: the row's volumes were checked (finite, >= 0, input > 0)
    # and every other field comes from an already validated profile.
    return template.model_copy(update=update)


#: The template of a SWIM job without a base profile: every statistic and cost factor at its
#: documented default.
_DEFAULT_TEMPLATE = JobProfile(input_bytes=1.0)
