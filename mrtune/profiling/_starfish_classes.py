"""Starfish's split groups and per-input map profiles → the model's map classes (issue 16).

Starfish's What-if Engine prices each group of splits of its input specification at its own
size, and each input's map tasks at that input's ``<map_profile>`` (a join reads two inputs,
each with its own selectivities and costs). :func:`map_classes` keeps them apart as
:class:`~mrtune.costmodel.profile.MapClass` entries: one per input and split size, each with
the statistics and map-side cost factors of its input's map profile when the job profile
has several, so nothing is averaged into one "typical" map. Used by
:func:`mrtune.profiling.starfish.load_starfish`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from mrtune.costmodel.profile import CostFactors, DataflowStats, MapClass
from mrtune.profiling._starfish_input import SplitClass
from mrtune.readers.starfish import StarfishJobProfile

#: Cost factors a class may scale (the model's numeric factors; not the reduce-side table).
_SCALABLE = tuple(
    f
    for f, info in CostFactors.model_fields.items()
    if f != "reduce_side" and info.annotation in (float, "float")
)


class _Side(Protocol):
    """What :func:`map_classes` needs of the profile assembler: one map profile's figures."""

    def stats(self, has_combiner: bool) -> DataflowStats: ...

    def costs(self) -> CostFactors: ...


def map_classes(
    job: StarfishJobProfile,
    classes: list[SplitClass],
    costs: CostFactors,
    has_combiner: bool,
    assemble: Callable[[StarfishJobProfile], _Side],
) -> tuple[list[MapClass], dict[str, str]]:
    """The model's map classes for ``classes`` and the provenance of each.

    With one map profile every class shares the profile's statistics and factors (only the
    split size differs). With several, a class reads its input's own map profile
    (``assemble`` builds the figures of a job holding that map profile alone; its distinct
    keys from MAP_MAX_UNIQUE_GROUPS, the reduce side's groups being the whole job's), its cost
    factors as ratios to ``costs`` (the job-level, task-weighted values).
    """
    own: dict[int, tuple[DataflowStats, dict[str, float], str]] = {}
    if len(job.maps) > 1:
        for m in job.maps:
            alone = replace(job, maps=[m], num_mappers=m.num_tasks, num_reducers=0, warnings=[])
            side = assemble(alone)
            st, cf = side.stats(has_combiner), side.costs()
            own[m.input_index] = (st, _scale(cf, costs), m.id)
    out: list[MapClass] = []
    prov: dict[str, str] = {}
    for idx, size, n in classes:
        stats, scale, pid = own.get(idx, (None, {}, ""))
        name = f"input {idx}: {n} x {size:.0f} bytes"
        out.append(
            MapClass(
                name=name,
                input_bytes=n * size,
                input_files=n,
                stats=stats,
                cost_scale=scale,
            )
        )
        prov[f"map_classes.{name}"] = (
            f"measured: {job.path.name} map profile {pid} (input_index {idx}): its own "
            f"statistics and map-side factors ({len(scale)} differ from the job's)"
            if pid
            else f"measured: {job.path.name}: the job's one map profile at this split size"
        )
    return out, prov


def _scale(own: CostFactors, job: CostFactors) -> dict[str, float]:
    """``{factor: own / job}`` where a map profile's factor differs from the job's."""
    out = {}
    for f in _SCALABLE:
        mine, whole = float(getattr(own, f)), float(getattr(job, f))
        if whole > 0 and not math.isclose(mine, whole, rel_tol=1e-12):
            out[f] = mine / whole
    return out
