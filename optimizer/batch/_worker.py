"""What runs on a worker (process pool or Dask): read jobs, tune them, score cluster configs.

Functions here take and return plain picklable values (:class:`JobRef` lists, dicts, numpy
arrays) and never touch the results store, so the same code runs in a local process, a forked
pool worker or a remote Dask worker, and gives the same numbers everywhere.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import ValidationError

from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile, evaluate
from mrtune.costmodel.stacked import StackedProfiles
from mrtune.errors import InputError
from mrtune.optimizer.batch._catalog import JHIST, PROFILE, SWIM, JobRef
from mrtune.optimizer.batch._stack import ChunkJobs, score_candidates
from mrtune.optimizer.batch._tune import (
    DEFAULT_BATCH_STRATEGY,
    MIN_GAIN,
    BatchBuilder,
    JobTuning,
    changed_properties,
    tune_jobs,
)
from mrtune.profiling.swim import swim_profile
from mrtune.readers.swim import parse_swim_line
from mrtune.search_spaces import SearchSpace, find_knob


@dataclass(frozen=True)
class BatchSettings:
    """Everything a job's result depends on besides the job itself (stored with the results so
    that ``--resume`` refuses to mix results of different settings)."""

    cluster: ClusterSpec
    objective: str = "time"
    base_profile_json: str | None = None
    min_gain: float = MIN_GAIN
    #: The registry strategy that searches each job (:func:`~mrtune.optimizer.strategies.get_strategy`).
    strategy: str = DEFAULT_BATCH_STRATEGY

    def fingerprint(self) -> str:
        import hashlib
        import json

        data = {
            "cluster": self.cluster.model_dump(mode="json"),
            "objective": self.objective,
            "base_profile": self.base_profile_json,
            "min_gain": self.min_gain,
            "tuner": TUNER_VERSION,
        }
        if self.strategy != DEFAULT_BATCH_STRATEGY:  # stores of the default keep their key
            data["strategy"] = self.strategy
        text = json.dumps(data, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def base_profile(self) -> JobProfile | None:
        if self.base_profile_json is None:
            return None
        return _base_profile_cached(self.base_profile_json)


#: Bumped when the tuner's results change, so stored results of an older tuner are not reused.
TUNER_VERSION = 2
_BASE_CACHE: dict[str, JobProfile] = {}


def _base_profile_cached(text: str) -> JobProfile:
    if text not in _BASE_CACHE:
        _BASE_CACHE[text] = JobProfile.model_validate_json(text)
    return _BASE_CACHE[text]


class SkippedJob(Exception):
    """A job with nothing to tune (its outcome is ``skipped``, with the reason counted)."""


#: Reason of a job with zero input bytes: no map reads anything, so no setting changes its
#: time; Hadoop runs such a job as one empty map per (empty) file.
ZERO_INPUT = "zero input bytes: nothing to tune"


def load_ref(ref: JobRef, settings: BatchSettings) -> tuple[JobProfile, HadoopConfig]:
    """The job's profile and current configuration.

    Raises :class:`SkippedJob` for a trace row with zero input bytes, and the reader's or the
    profile's error for a bad job.
    """
    from mrtune.profiling import profile_config

    if ref.kind == JHIST:
        # Imported here: calibration pulls in scipy (~1 s of CPU per worker), which SWIM rows
        # and profile documents never need.
        from mrtune.calibration import load_profile_source

        profile = load_profile_source(ref.source)
    elif ref.kind == SWIM:
        row = parse_swim_line(ref.payload, path=ref.source, lineno=_line_of(ref.key))
        if row.map_input_bytes == 0:
            raise SkippedJob(ZERO_INPUT)
        profile = swim_profile(row, settings.base_profile(), source=ref.source)
    elif ref.kind == PROFILE:
        # A profile document with input_bytes 0 breaks the JobProfile schema (input_bytes > 0):
        # that is a failure of the document, unlike a trace row recording a job that read
        # nothing.
        profile = JobProfile.model_validate_json(ref.payload)
    else:  # pragma: no cover - discover() only makes the kinds above
        raise ValueError(f"unknown job kind {ref.kind!r}")
    return profile, profile_config(profile)


def _line_of(key: str) -> int:
    tail = key.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def failure_reason(exc: BaseException) -> str:
    """One line saying why a job could not be tuned."""
    if isinstance(exc, ValidationError):
        errs = exc.errors()
        parts = []
        for e in errs[:3]:
            loc = ".".join(str(p) for p in e.get("loc", ())) or exc.title
            parts.append(f"{loc}: {e.get('msg')} (got {e.get('input')!r})")
        more = f" (+{len(errs) - 3} more)" if len(errs) > 3 else ""
        return f"invalid profile: {'; '.join(parts)}{more}"
    text = str(exc).strip().splitlines()
    msg = text[0] if text else ""
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def reason_kind(exc: BaseException) -> str:
    """The reason of a failure without what is particular to the job (its file, line, job id
    and value; numbers as ``N``), so the summary can count failures by reason."""
    if isinstance(exc, SkippedJob):
        return str(exc)
    if isinstance(exc, ValidationError):
        errs = exc.errors()
        loc = ".".join(str(p) for p in errs[0].get("loc", ())) if errs else ""
        return f"invalid profile: {loc}: {errs[0].get('msg')}" if errs else "invalid profile"
    text = str(exc)
    if isinstance(exc, InputError):
        for prefix in (exc.path, exc.field):
            if prefix and text.startswith(f"{prefix}: "):
                text = text[len(prefix) + 2 :]
        text = text.split(" (got ", 1)[0].split(" allowed: ", 1)[0]
    lines = text.strip().splitlines()
    msg = re.sub(r"\d+(\.\d+)?", "N", lines[0] if lines else "")[:100]
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def _readable(name: str, encoded: float) -> Any:
    return find_knob(name).decode(encoded)


def tune_ref(ref: JobRef, settings: BatchSettings) -> dict[str, Any]:
    """Tune one job; a job that cannot be read or tuned comes back ``failed`` with its reason
    (``skipped`` for a job with nothing to tune)."""
    return tune_chunk([ref], settings)[0]


def tune_chunk(refs: list[JobRef], settings: BatchSettings) -> list[dict[str, Any]]:
    """Tune a chunk of jobs (the unit of work sent to a worker), all descending in lockstep
    (:func:`~mrtune.optimizer.batch._tune.tune_jobs`: one model call per round for the
    chunk; each job's result is the one it gets alone)."""
    outs: list[dict[str, Any]] = []
    loaded: list[tuple[int, JobProfile, HadoopConfig]] = []
    for ref in refs:
        out: dict[str, Any] = {"key": ref.key, "kind": ref.kind, "source": ref.source}
        out["job_id"] = ref.job_id
        outs.append(out)
        try:
            profile, base = load_ref(ref, settings)
        except Exception as exc:  # noqa: BLE001 - see _record_failure
            _record_failure(out, exc)
            continue
        out["job_id"] = profile.job_id
        loaded.append((len(outs) - 1, profile, base))
    tunings = tune_jobs(
        [(p, b) for _, p, b in loaded],
        settings.cluster,
        objective=settings.objective,
        min_gain=settings.min_gain,
        strategy=settings.strategy,
    )
    for (k, profile, base), t in zip(loaded, tunings, strict=True):
        try:
            if isinstance(t, Exception):
                raise t
            _record_tuning(outs[k], t, profile, base, settings)
        except Exception as exc:  # noqa: BLE001
            _record_failure(outs[k], exc)
    return outs


def _record_failure(out: dict[str, Any], exc: BaseException) -> None:
    """A catalog holds whatever a cluster recorded: any exception while reading or tuning one
    job (parse errors, invalid values, a model refusing the configuration) is that job's
    failure, recorded with its reason, and the batch goes on."""
    if isinstance(exc, SkippedJob):
        out.update(status="skipped", reason=str(exc), reason_kind=reason_kind(exc))
    else:
        out.update(status="failed", reason=failure_reason(exc), reason_kind=reason_kind(exc))


def _record_tuning(
    out: dict[str, Any],
    t: JobTuning,
    profile: JobProfile,
    base: HadoopConfig,
    settings: BatchSettings,
) -> None:
    props, cur_vals, rec_vals = changed_properties(t, profile, base)
    if not all(map(math.isfinite, (t.current_ms, t.current_gb_s, t.best_ms, t.best_gb_s))):
        raise ValueError("the cost model predicts a non-finite time for this profile")
    obj_cur = t.current_gb_s if settings.objective == "resources" else t.current_ms
    obj_best = t.best_gb_s if settings.objective == "resources" else t.best_ms
    out.update(
        status="tuned",
        reason="",
        map_only=bool(profile.map_only or base.num_reducers == 0),
        input_bytes=float(profile.input_bytes),
        current_ms=t.current_ms,
        current_gb_s=t.current_gb_s,
        recommended_ms=t.best_ms,
        recommended_gb_s=t.best_gb_s,
        gain=1.0 - obj_best / obj_cur if obj_cur > 0 else 0.0,
        current={n: _readable(n, v) for n, v in t.current.items()},
        recommended={n: _readable(n, v) for n, v in t.best.items()},
        changes=[
            {
                "name": n,
                "current": cur_vals[n],
                "recommended": rec_vals[n],
                "marginal_gain": t.marginal_gain.get(n, 0.0),
            }
            for n in t.changed
        ],
        properties=props,
        best_encoded=t.best,
        current_encoded=t.current,
        evaluations=t.evaluations,
        limits=t.limits,
    )


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


#: Jobs a worker process keeps read (profile, configuration, search space: ~5 KB each) for
#: the cluster-wide stage's passes over the catalog, which would otherwise re-read and
#: re-derive every job on every pass. Bounded, without eviction: a pass reads the jobs in
#: catalog order, which would evict every entry of a smaller LRU before its next use.
SCORING_CACHE_JOBS = 16384
_SCORING_CACHE: dict[tuple[str, str, str], tuple[JobProfile, HadoopConfig, SearchSpace]] = {}


def _scoring_job(
    ref: JobRef, settings: BatchSettings, fingerprint: str
) -> tuple[JobProfile, HadoopConfig, SearchSpace]:
    key = (fingerprint, ref.key, ref.payload)
    hit = _SCORING_CACHE.get(key)
    if hit is not None:
        return hit
    profile, base = load_ref(ref, settings)
    job = (profile, base, SearchSpace.for_job(profile, base, settings.cluster))
    if len(_SCORING_CACHE) < SCORING_CACHE_JOBS:
        _SCORING_CACHE[key] = job
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
