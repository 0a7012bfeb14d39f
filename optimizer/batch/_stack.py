"""A chunk's jobs as arrays: feasibility, repair and configuration batches over jobs × rows.

The batch tuner and the cluster-wide stage cost many small jobs round after round. Per job
and round, checking the rows against the constraints, building a
:class:`~mrtune.costmodel.batch.ConfigBatch` and reading the profile cost more Python than
the model call itself (issue 18). :class:`ChunkJobs` reads every job's base configuration,
constraint context (:meth:`SearchSpace.context`) and profile (:class:`ProfileTable`) once per
chunk, as one entry per job, and then handles the rows of all jobs that search the same
knobs in one pass of numpy operations, each row indexed by its job.

:func:`stacked_round` is one lockstep round of the per-job tuner over a chunk (every group's
rows checked and built as arrays, one model call for all); :func:`score_candidates` is one
chunk of the cluster-wide stage (jobs × candidates; candidates a job cannot tell apart,
because they differ only in knobs it does not read, are costed once for it).

Every operation is elementwise and the same as the per-job path's
(:func:`~mrtune.search_spaces.values.feasible_values`,
:func:`~mrtune.search_spaces.values.repair_values`, the base row broadcast by
:class:`~mrtune.optimizer.batch._tune.BatchBuilder`), so each row gets exactly the mask,
values and prediction it gets alone (``tests/optimizer/batch/test_stacked_batch.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from mrtune.costmodel import ClusterSpec, ConfigBatch, evaluate
from mrtune.costmodel.batch import written_split_minsize
from mrtune.costmodel.stacked import ProfileTable, StackedProfiles
from mrtune.search_spaces import SearchSpace, find_knob
from mrtune.search_spaces.values import feasible_values, repair_values

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
        #: base columns every job of the chunk shares: broadcast, not gathered, per batch
        #: (the model then computes what depends only on them once: costmodel.batch.shared_value)
        self.shared = {f for f, v in self.base.items() if bool((v == v[0]).all())}
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
        n = len(rows)
        cols = {
            name: np.broadcast_to(v[:1], (n,)) if name in self.shared else v[rows]
            for name, v in self.base.items()
        }
        for knob, arr in values.items():
            col = self.columns[knob]
            cols[col] = np.asarray(arr, dtype=_DTYPES[col])
        if any(self.columns[k] == "split_size" for k in values):  # minsize above the block
            base = self.base
            cols["split_minsize"] = written_split_minsize(
                cols["split_size"],
                base["split_size"][rows],
                base["split_minsize"][rows],
                base["block_size"][rows],
            )
        return ConfigBatch(**cols)

    def stacked(self, rows: np.ndarray) -> StackedProfiles:
        """The profiles of the rows' jobs, aligned with the rows."""
        return self.profiles.rows(rows)


def stash_current_vectors(chunk: ChunkJobs) -> None:
    """Every job's current configuration as :func:`~mrtune.optimizer.strategies._descent.
    current_vector` gives it (encoded, repaired), for all the chunk's jobs of a group in one
    repair (per-row contexts, the values each job's own repair gives) instead of a one-row
    repair per job; kept on each space, where ``current_vector`` finds it."""
    for key, jobs in chunk.groups(range(len(chunk.spaces))).items():
        names = key[0]
        if not names or not chunk.stackable(key):
            continue
        spaces = [chunk.spaces[j] for j in jobs]
        encoded = [[k.encode(s.current_values()[k.name]) for k in s.knobs] for s in spaces]
        vals = {n: np.array([float(e[c]) for e in encoded]) for c, n in enumerate(names)}
        rep = chunk.repair(key, vals, np.array(jobs, dtype=np.int64))
        for t, space in enumerate(spaces):
            x0 = np.array([float(rep[n][t]) for n in names])
            space.__dict__["_current_vector"] = (space.base, x0)


#: The chunk's jobs as arrays (:class:`ChunkJobs`) and each job's number in it.
_Table = tuple[ChunkJobs, dict[int, int]] | None


def chunk_table(evaluators: dict[int, Any]) -> _Table:
    """The chunk's evaluators' spaces as one :class:`ChunkJobs` (``None`` if that fails)."""
    if not evaluators:
        return None
    try:
        return ChunkJobs([ev.space for ev in evaluators.values()]), {
            i: t for t, i in enumerate(evaluators)
        }
    except Exception:  # noqa: BLE001 - every job then goes through its own path
        return None


def stacked_round(
    active: dict[int, tuple[Any, Any, np.ndarray]], cluster: ClusterSpec, table: _Table
) -> dict[int, Any]:
    """Every active job's requested rows, costed in one model call.

    The rows of all jobs searching the same knobs are checked and built as one array
    (:class:`ChunkJobs`); a group whose vectorised pass raises goes job by job, so a
    failure stays its own job's."""
    answers: dict[int, Any] = {}
    # Each block: one batch of feasible rows, the table row (job) of each, and its jobs with
    # their masks and counts of feasible rows.
    blocks: list[tuple[ConfigBatch, np.ndarray | None, list[tuple[int, np.ndarray, int]]]] = []
    chunk, number = table if table is not None else (None, {})
    grouped: dict[object, list[int]] = {}
    for i in active:
        key = chunk.keys[number[i]] if chunk is not None and i in number else ("alone", i)
        grouped.setdefault(key, []).append(i)
    for key, members in grouped.items():
        block = None
        if chunk is not None and key[0] != "alone" and chunk.stackable(key):  # type: ignore[arg-type]
            try:
                block = _group_block(chunk, key, [(number[i], i, active[i][2]) for i in members])  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 - retried job by job below
                block = None
        if block is not None:
            if block[0] is not None:
                blocks.append(block)  # type: ignore[arg-type]
            for i, ok, _ in block[2]:
                if not ok.any():
                    answers[i] = active[i][0].finish(ok, None, None)
            continue
        for i in members:
            ev, _, x = active[i]
            try:
                ok, batch = ev.prepare(x)
            except Exception as exc:  # noqa: BLE001
                answers[i] = exc
                continue
            if batch is None:
                answers[i] = ev.finish(ok, None, None)
            else:
                rows = np.full(len(batch), number[i]) if i in number else None
                blocks.append((batch, rows, [(i, ok, len(batch))]))
    if not blocks:
        return answers
    results = _evaluate_blocks(blocks, active, cluster, chunk)
    for i, ok, _ in (m for b in blocks for m in b[2] if m[2]):
        ev = active[i][0]
        try:
            got = results[i]
            if isinstance(got, Exception):
                raise got
            answers[i] = ev.finish(ok, *got)
        except Exception as exc:  # noqa: BLE001
            answers[i] = exc
    return answers


def _group_block(
    chunk: ChunkJobs, key: object, members: list[tuple[int, int, np.ndarray]]
) -> tuple[ConfigBatch | None, np.ndarray, list[tuple[int, np.ndarray, int]]]:
    """The feasible rows of a group's jobs as one batch (rows in job order)."""
    names = key[0]  # type: ignore[index]
    sizes = [len(x) for _, _, x in members]
    x = np.concatenate([x for _, _, x in members]) if members else np.empty((0, len(names)))
    rows = np.repeat(np.array([t for t, _, _ in members], dtype=np.int64), sizes)
    vals = {n: x[:, j] for j, n in enumerate(names)}
    ok = chunk.feasible(key, vals, rows)  # type: ignore[arg-type]
    cuts = np.cumsum(sizes)[:-1]
    masks = np.split(ok, cuts)
    jobs = [(i, m, int(m.sum())) for (_, i, _), m in zip(members, masks, strict=True)]
    if not ok.any():
        return None, rows[:0], jobs
    return chunk.batch(rows[ok], {n: v[ok] for n, v in vals.items()}), rows[ok], jobs


def _evaluate_blocks(
    blocks: list[tuple[ConfigBatch, np.ndarray | None, list[tuple[int, np.ndarray, int]]]],
    active: dict[int, tuple[Any, Any, np.ndarray]],
    cluster: ClusterSpec,
    chunk: ChunkJobs | None,
) -> dict[int, tuple[np.ndarray, np.ndarray] | Exception]:
    """``(job_ms, gb_s)`` of every job's feasible rows: one stacked call, or one call per
    job if that raises (so one job's failure stays its own)."""
    out: dict[int, tuple[np.ndarray, np.ndarray] | Exception] = {}
    members = [m for b in blocks for m in b[2] if m[2]]
    try:
        if chunk is None or any(b[1] is None for b in blocks):
            raise LookupError("a job outside the chunk table")
        rows = np.concatenate([b[1] for b in blocks])  # type: ignore[misc]
        batch = blocks[0][0] if len(blocks) == 1 else ConfigBatch.concat([b[0] for b in blocks])
        job, gbs = evaluate(chunk.stacked(rows), batch, cluster)
        cuts = np.cumsum([m[2] for m in members])[:-1]
        for (i, _, _), jb, gb in zip(
            members, np.split(job, cuts), np.split(gbs, cuts), strict=True
        ):
            out[i] = (jb, gb)
        return out
    except Exception:  # noqa: BLE001 - cost each job alone below
        pass
    for batch, _, jobs in blocks:
        start = 0
        for i, _, n in jobs:
            if not n:
                continue
            try:
                part = batch.take(slice(start, start + n))
                out[i] = evaluate(active[i][0].space.profile, part, cluster)
            except Exception as exc:  # noqa: BLE001
                out[i] = exc
            start += n
    return out


def score_candidates(
    table: ChunkJobs,
    keys: Sequence[str],
    best: Sequence[dict[str, float]],
    names: list[str],
    candidates: np.ndarray,
    cluster: ClusterSpec,
    *,
    resources: bool,
) -> dict[str, np.ndarray]:
    """Cost of every candidate cluster configuration (rows of ``candidates``, columns
    ``names``) on every job of ``table`` (job ``j`` is ``keys[j]`` and keeps its own
    per-job knobs at ``best[j]``): jobs × candidates repaired, built and costed as arrays in
    one model call, the values the cluster-wide stage's job-by-job path gives every row.
    Raises on a space that searches container memory (the caller goes job by job)."""
    batches, rows_all, expand = [], [], []
    for key, members in table.groups(range(len(keys))).items():
        if not table.stackable(key):
            raise LookupError("a space that searches container memory: job by job")
        # A job reads only the candidate knobs of its own space (a map-only job none of the
        # reduce side): candidates equal on those columns are one configuration for it, so
        # each distinct one is costed once and its cost copied (the same numbers).
        cols = [names.index(k) for k in key[0] if k in names]
        own = candidates[:, cols]
        if len(cols) < len(names):
            own, inverse = np.unique(own, axis=0, return_inverse=True)
            inverse = inverse.reshape(-1)
        else:
            inverse = None
        m = len(own)
        rows = np.repeat(np.array(members, dtype=np.int64), m)
        vals: dict[str, np.ndarray] = {}
        for k in key[0]:
            if k in names:
                vals[k] = np.tile(
                    own[:, cols.index(names.index(k))].astype(np.float64), len(members)
                )
            else:
                vals[k] = np.repeat(np.array([float(best[j][k]) for j in members]), m)
        batches.append(table.batch(rows, table.repair(key, vals, rows) if vals else {}))
        rows_all.append(rows)
        expand.append((members, m, inverse))
    rows = np.concatenate(rows_all)
    batch = batches[0] if len(batches) == 1 else ConfigBatch.concat(batches)
    job, gbs = evaluate(table.stacked(rows), batch, cluster)
    cost = gbs if resources else job
    out: dict[str, np.ndarray] = {}
    start = 0
    for members, m, inverse in expand:
        for j in members:
            part = cost[start : start + m]
            out[keys[j]] = part if inverse is None else part[inverse]
            start += m
    return out
