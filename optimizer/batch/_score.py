"""Score cluster-wide candidate configurations over a chunk of jobs (on a worker).

The cluster-wide stage (:mod:`mrtune.optimizer.batch._cluster`) sends each worker a chunk of
jobs and the candidate settings; this module costs every job × candidate, stacked in one model
call where the jobs allow it (:mod:`mrtune.optimizer.batch._stack`), job by job otherwise.
Split from :mod:`mrtune.optimizer.batch._worker` (which reads and tunes jobs) because scoring
is its own step with its own inputs.
"""

from __future__ import annotations

import numpy as np

from mrtune.costmodel import ConfigBatch, HadoopConfig, JobProfile, evaluate
from mrtune.costmodel.stacked import StackedProfiles
from mrtune.optimizer.batch._catalog import JobRef
from mrtune.optimizer.batch._stack import ChunkJobs, score_candidates
from mrtune.optimizer.batch._tune import (
    BatchBuilder,
)
from mrtune.optimizer.batch._worker import (
    JOB_CACHE,
    SCORING_CACHE_JOBS,
    BatchSettings,
    keep_job,
    load_ref,
)
from mrtune.search_spaces import SearchSpace


def score_chunk(
    items: list[tuple[JobRef, dict[str, float]]],
    settings: BatchSettings,
    names: list[str],
    candidates: np.ndarray,
) -> list[tuple[str, np.ndarray]]:
    """Cost of every candidate cluster configuration on every job of the chunk.

    ``candidates`` has shape (n_candidates, len(names)) of encoded values of the cluster-level
    knobs; each job keeps its own per-job knobs (``items``: the job and its tuned values) and
    reads only the candidate knobs that apply to it. Values a job's heap or buffers cannot take
    are repaired (e.g. ``io.sort.mb`` capped below that job's heap), as the job would have to
    override them. Returns ``(key, costs)`` with costs of shape (n_candidates,) in the
    objective's unit; a job that fails here gets ``nan`` costs.

    The chunk's jobs × candidates are evaluated in one model call
    (:class:`~mrtune.costmodel.stacked.StackedProfiles`: the same numbers as one call per
    job, without numpy's fixed cost per call for every job).
    """
    n = len(candidates)
    fingerprint = settings.fingerprint()
    jobs: list[tuple[str, JobProfile, HadoopConfig, SearchSpace, dict[str, float]]] = []
    for ref, best in items:
        try:
            profile, base, space = _scoring_job(ref, settings, fingerprint)
        except Exception:  # noqa: BLE001 - same isolation as tune_ref
            continue
        jobs.append((ref.key, profile, base, space, best))
    got: dict[str, np.ndarray] = {}
    if jobs:
        try:
            got = _scored_together(jobs, settings, names, candidates, fingerprint)
        except Exception:  # noqa: BLE001 - job by job below, so a failure stays its own
            got = _scored_alone(items, settings, names, candidates, fingerprint)
    return [(ref.key, got.get(ref.key, np.full(n, np.nan))) for ref, _ in items]


def _scored_alone(
    items: list[tuple[JobRef, dict[str, float]]],
    settings: BatchSettings,
    names: list[str],
    candidates: np.ndarray,
    fingerprint: str,
) -> dict[str, np.ndarray]:
    """Every job's candidates built job by job (the path a failing chunk falls back to)."""
    profiles: list[JobProfile] = []
    batches: list[ConfigBatch] = []
    keys: list[str] = []
    for ref, best in items:
        try:
            profile, batch = _candidate_batch(ref, best, settings, names, candidates, fingerprint)
        except Exception:  # noqa: BLE001 - same isolation as tune_ref
            continue
        profiles.append(profile)
        batches.append(batch)
        keys.append(ref.key)
    costs = _stacked_costs(profiles, batches, settings)
    return dict(zip(keys, costs, strict=True))


#: Chunks' job tables (:class:`ChunkJobs`) of the cluster-wide stage, whose passes score the
#: same chunks again and again (bounded like :data:`SCORING_CACHE_JOBS`).
_CHUNK_CACHE: dict[tuple[str, tuple[str, ...]], ChunkJobs] = {}


def _scored_together(
    jobs: list[tuple[str, JobProfile, HadoopConfig, SearchSpace, dict[str, float]]],
    settings: BatchSettings,
    names: list[str],
    candidates: np.ndarray,
    fingerprint: str,
) -> dict[str, np.ndarray]:
    """Jobs × candidates of the chunk repaired, built and costed as arrays (one model call;
    :func:`_candidate_batch`'s values for every row, :mod:`~mrtune.optimizer.batch._stack`)."""
    keys = tuple(k for k, *_ in jobs)
    table = _CHUNK_CACHE.get((fingerprint, keys))
    if table is None:
        table = ChunkJobs([space for _, _, _, space, _ in jobs])
        if len(_CHUNK_CACHE) * 64 < SCORING_CACHE_JOBS:
            _CHUNK_CACHE[(fingerprint, keys)] = table
    return score_candidates(
        table,
        keys,
        [best for *_, best in jobs],
        names,
        candidates,
        settings.cluster,
        resources=settings.objective == "resources",
    )


def _candidate_batch(
    ref: JobRef,
    best: dict[str, float],
    settings: BatchSettings,
    names: list[str],
    candidates: np.ndarray,
    fingerprint: str | None = None,
) -> tuple[JobProfile, ConfigBatch]:
    """One job's configurations for the candidates (its own per-job knobs kept)."""
    profile, base, space = _scoring_job(ref, settings, fingerprint or settings.fingerprint())
    n = len(candidates)
    vals: dict[str, np.ndarray] = {}
    for k in space.names:
        if k in names:
            vals[k] = candidates[:, names.index(k)].astype(np.float64)
        else:
            vals[k] = np.full(n, float(best[k]))
    if vals:
        return profile, BatchBuilder(space)(space.repair(vals))
    return profile, ConfigBatch.from_base(base, n)


#: The jobs this worker process has read (:data:`~mrtune.optimizer.batch._worker.JOB_CACHE`:
#: filled where they were tuned, and here).
_SCORING_CACHE = JOB_CACHE


def _scoring_job(
    ref: JobRef, settings: BatchSettings, fingerprint: str
) -> tuple[JobProfile, HadoopConfig, SearchSpace]:
    key = (fingerprint, ref.key, ref.payload)
    hit = _SCORING_CACHE.get(key)
    if hit is not None:
        return hit
    profile, base = load_ref(ref, settings)
    job = (profile, base, SearchSpace.for_job(profile, base, settings.cluster))
    keep_job(key, job)
    return job


def _stacked_costs(
    profiles: list[JobProfile], batches: list[ConfigBatch], settings: BatchSettings
) -> list[np.ndarray]:
    """Each job's costs, from one stacked call (per job if that call fails, so one job's
    failure stays its own)."""
    if not profiles:
        return []
    resources = settings.objective == "resources"
    try:
        sizes = [len(b) for b in batches]
        job_index = np.repeat(np.arange(len(profiles)), sizes)
        stacked = StackedProfiles.of(profiles, job_index)
        job, gbs = evaluate(stacked, ConfigBatch.concat(batches), settings.cluster)
        return np.split(gbs if resources else job, np.cumsum(sizes)[:-1])
    except Exception:  # noqa: BLE001 - isolate the failing job below
        out = []
        for profile, batch in zip(profiles, batches, strict=True):
            try:
                job, gbs = evaluate(profile, batch, settings.cluster)
                out.append(gbs if resources else job)
            except Exception:  # noqa: BLE001
                out.append(np.full(len(batch), np.nan))
        return out
