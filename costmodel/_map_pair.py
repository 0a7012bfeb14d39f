"""A configuration's full-split and tail-split map tasks in one :func:`map_task` call.

:func:`~mrtune.costmodel.job.predict_job` models two map tasks per configuration, the full
splits' and the file's tail split (reference §6.1). Called once each, the map model's ~250
numpy calls are paid twice, and for the few hundred or thousand rows of a search's call on
one profile that fixed cost is most of the model's time (issue 18). The
two tasks differ only in their split bytes, records and remote bytes; every other input is
the configuration's. Since the lean path's cuts it pays only for the smallest calls
(:data:`~mrtune.costmodel.map_groups.PAIR_MAX_ROWS`). So both run as ONE call over ``2n`` rows: rows ``i`` and ``n + i`` are
configuration ``i``'s full and tail task, the batch columns the map model reads are doubled
(:data:`MAP_COLUMNS`), and the result is cut back into two :class:`MapTaskResult`.

Every operation of the map model is elementwise, and its branch flags (``any`` over the rows:
map-only, zero-spill, combining rows) only skip ``np.where`` calls that would return their
other operand unchanged, so each row gets the same numbers as in its own call
(``tests/costmodel/test_lean_path.py`` checks equality against the two calls).
"""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.map_task import MapInputs, MapTaskResult, map_task
from mrtune.costmodel.profile import JobProfile

F64 = NDArray[np.float64]

#: The :class:`ConfigBatch` columns the map model reads (``map_task``, ``MapInputs.build``,
#: ``records_per_spill``). A column left out would keep ``n`` rows against the others' ``2n``
#: and fail to broadcast: never a silent mix-up.
MAP_COLUMNS = (
    "hadoop1",
    "io_sort_mb",
    "spill_percent",
    "record_percent",
    "sort_factor",
    "combine_min_spills",
    "num_reducers",
    "use_combiner",
    "map_codec",
    "out_codec",
)


def both_map_tasks(
    profile: JobProfile,
    batch: ConfigBatch,
    split_bytes: tuple[F64, ...],
    records: tuple[F64, ...],
    cluster: ClusterSpec,
) -> tuple[MapTaskResult | MapInputs, ...]:
    """The full and tail map tasks (``counters=False``; a third task of the other full
    splits with fixed-width records, :func:`~mrtune.costmodel.map_groups.file_maps`), one
    result each, and last the configurations' own :class:`MapInputs` (``n`` rows), from one
    model call over ``k·n`` rows."""
    n, k = len(batch), len(split_bytes)
    twice = replace(batch, **{c: np.concatenate((getattr(batch, c),) * k) for c in MAP_COLUMNS})
    inputs = MapInputs.build(profile, twice)
    splits = np.concatenate(split_bytes)
    both = map_task(
        profile,
        twice,
        splits,
        inputs=inputs,
        input_records=np.concatenate(records),
        spill_overlap=cluster.spill_overlap,
        counters=False,
        remote_bytes=cluster.remote_read_bytes(splits),
        local_mode=cluster.local_mode,
    )
    return (*_blocks(both, n, k), _first_half(inputs, n, k))


def _cut(v: object, part: slice, rows: int) -> object:
    if isinstance(v, np.ndarray) and v.ndim == 1 and v.shape[0] == rows:
        return v[part]
    if isinstance(v, dict):
        return {k: _cut(x, part, rows) for k, x in v.items()}
    return v


def _blocks(res: MapTaskResult, n: int, k: int) -> list[MapTaskResult]:
    """Rows ``[i·n, (i+1)·n)`` of every field (views) for each of the ``k`` tasks, the task
    time computed once."""
    task_ms = res.task_ms
    out = []
    for i in range(k):
        part = slice(i * n, (i + 1) * n)
        block = MapTaskResult(
            **{f.name: _cut(getattr(res, f.name), part, k * n) for f in fields(res)}
        )
        block.__dict__["task_ms"] = task_ms[part]  # the cached_property, already computed
        out.append(block)
    return out


def _first_half(inputs: MapInputs, n: int, k: int = 2) -> MapInputs:
    """The configurations' :class:`MapInputs` (rows ``[:n]``; the flags hold for all)."""
    return replace(
        inputs,
        **{f.name: _cut(getattr(inputs, f.name), slice(0, n), k * n) for f in fields(inputs)},
    )
