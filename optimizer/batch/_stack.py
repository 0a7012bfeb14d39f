"""A chunk's jobs as arrays: feasibility, repair and configuration batches over jobs × rows.

The batch tuner and the cluster-wide stage cost many small jobs round after round. Per job
and round, checking the rows against the constraints, building a
:class:`~mrtune.costmodel.batch.ConfigBatch` and reading the profile cost more Python than
the model call itself (issue 18). :class:`ChunkJobs` reads every job's base configuration,
constraint context (:meth:`SearchSpace.context`) and profile (:class:`ProfileTable`) once per
chunk, as one entry per job, and then handles the rows of all jobs that search the same
knobs in one pass of numpy operations, each row indexed by its job.

Every operation is elementwise and the same as the per-job path's
(:func:`~mrtune.search_spaces.space.feasible_values`,
:func:`~mrtune.search_spaces.space.repair_values`, the base row broadcast by
:class:`~mrtune.optimizer.batch._tune.BatchBuilder`), so each row gets exactly the mask,
values and prediction it gets alone (``tests/optimizer/batch/test_stacked_batch.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields

import numpy as np

from mrtune.costmodel import ConfigBatch
from mrtune.costmodel.stacked import ProfileTable, StackedProfiles
from mrtune.search_spaces import SearchSpace, find_knob
from mrtune.search_spaces.space import feasible_values, repair_values

_DTYPES = {f.name: ConfigBatch._dtype(f.name) for f in fields(ConfigBatch)}
_MEMORY_COLUMNS = {"map_container_mb", "reduce_container_mb"}
#: A group of jobs handled together: the same knobs (names, in order) and Hadoop line (the
#: context's ``hadoop1`` selects a constraint rule, so it is a scalar per group).
GroupKey = tuple[tuple[str, ...], float]


class ChunkJobs:
    """The jobs of a chunk (their search spaces), laid out for stacked rows (module
    docstring). Jobs are numbered by their position in ``spaces``."""

    def __init__(self, spaces: Sequence[SearchSpace]) -> None:
        self.spaces = list(spaces)
        self.profiles = ProfileTable([s.profile for s in spaces])
        rows = [s.base_row() for s in spaces]
        self.base = {f: np.array([r[f] for r in rows], dtype=dt) for f, dt in _DTYPES.items()}
        ctxs = [s.context() for s in spaces]
        self.ctx = {k: np.array([c[k] for c in ctxs], dtype=np.float64) for k in ctxs[0]}
        self.keys: list[GroupKey] = [
            (tuple(s.names), float(c["hadoop1"])) for s, c in zip(spaces, ctxs, strict=True)
        ]
        self.columns = {n: find_knob(n).column for s in spaces for n in s.names}

    def stackable(self, key: GroupKey) -> bool:
        """Whether the group's rows can be handled as arrays: spaces that search container
        memory (the heap follows the container, a per-job rule) go job by job."""
        return not any(self.columns[n] in _MEMORY_COLUMNS for n in key[0])

    def groups(self, jobs: Sequence[int]) -> dict[GroupKey, list[int]]:
        """``jobs`` by group, in the order given."""
        out: dict[GroupKey, list[int]] = {}
        for j in jobs:
            out.setdefault(self.keys[j], []).append(j)
        return out

    def _ctx(self, key: GroupKey, rows: np.ndarray) -> dict[str, object]:
        ctx: dict[str, object] = {k: v[rows] for k, v in self.ctx.items()}
        ctx["hadoop1"] = key[1]
        return ctx

    def feasible(
        self, key: GroupKey, values: dict[str, np.ndarray], rows: np.ndarray
    ) -> np.ndarray:
        """:meth:`SearchSpace.feasible` of every row under its own job (``rows``: the job of
        each row; every job in group ``key``)."""
        if not key[0]:
            return np.ones(len(rows), dtype=bool)
        knobs = self.spaces[int(rows[0])].knobs
        return feasible_values(knobs, values, self._ctx(key, rows))  # type: ignore[arg-type]

    def repair(
        self, key: GroupKey, values: dict[str, np.ndarray], rows: np.ndarray
    ) -> dict[str, np.ndarray]:
        """:meth:`SearchSpace.repair` of every row under its own job."""
        if not key[0]:
            return dict(values)
        knobs = self.spaces[int(rows[0])].knobs
        return repair_values(knobs, values, self._ctx(key, rows))  # type: ignore[arg-type]

    def batch(self, rows: np.ndarray, values: dict[str, np.ndarray]) -> ConfigBatch:
        """Each row's job's base configuration with the knob ``values`` set (what
        ``BatchBuilder`` builds job by job, for rows of many jobs)."""
        cols = {name: v[rows] for name, v in self.base.items()}
        for knob, arr in values.items():
            col = self.columns[knob]
            cols[col] = np.asarray(arr, dtype=_DTYPES[col])
        return ConfigBatch(**cols)

    def stacked(self, rows: np.ndarray) -> StackedProfiles:
        """The profiles of the rows' jobs, aligned with the rows."""
        return self.profiles.rows(rows)
