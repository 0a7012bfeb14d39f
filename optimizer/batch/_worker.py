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

from pydantic import ValidationError

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile
from mrtune.errors import InputError, JobDidNotSucceed
from mrtune.optimizer.batch._catalog import JHIST, PROFILE, REST, RUMEN, RUN, SWIM, JobRef
from mrtune.optimizer.batch._tune import DEFAULT_BATCH_STRATEGY, MIN_GAIN, tune_jobs
from mrtune.optimizer.batch._written import (
    Written,
    chunk_intervals,
    readable,
    settle,
    written_of,
)
from mrtune.optimizer.outputs import NameStyle, rename
from mrtune.profiling.swim import swim_profile
from mrtune.readers.swim import parse_swim_line
from mrtune.search_spaces import SearchSpace


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
    #: The cluster's capabilities, stated for every job as ``mrtune optimize`` states them for
    #: one (profile cluster facts, :func:`cluster_facts`): the codecs it loads (``--codecs``),
    #: its native library (``--allow-native-codecs``) and its Hadoop release
    #: (``--hadoop-version``, which also names the properties written). ``None``/``False``:
    #: each job's own facts (its conf's ``io.compression.codecs``, its history's version).
    codecs: str | None = None
    allow_native_codecs: bool = False
    hadoop_version: str | None = None
    #: The cluster-wide file may change job-output compression (``--output-compression``;
    #: :mod:`~mrtune.optimizer.batch._cluster` says why it does not by default).
    cluster_output_compression: bool = False
    #: Each job's file and the cluster-wide file may move a size or count beyond ×4 of the
    #: current value (``--include-low-confidence``; the far-move rule of
    #: :mod:`mrtune.optimizer.trust`; :func:`~mrtune.optimizer.batch._tune.tune_jobs`).
    include_low_confidence: bool = False
    #: A job whose calibration failed is skipped (``--strict``), not tuned.
    strict: bool = False

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
        for name in ("codecs", "allow_native_codecs", "hadoop_version"):
            if getattr(self, name):  # stores of the defaults keep their key
                data[name] = getattr(self, name)
        for flag in ("cluster_output_compression", "include_low_confidence", "strict"):
            if getattr(self, flag):
                data[flag] = True
        text = json.dumps(data, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def cluster_facts(self) -> dict[str, str | float]:
        """The stated capabilities as profile cluster facts (empty: each job's own)."""
        from mrtune.search_spaces.codecs import codec_facts

        facts = codec_facts(self.codecs, self.allow_native_codecs)
        if self.hadoop_version:
            facts["hadoop_version"] = self.hadoop_version
        return facts

    def base_profile(self) -> JobProfile | None:
        if self.base_profile_json is None:
            return None
        return _base_profile_cached(self.base_profile_json)


#: Bumped when the tuner's results change, so stored results of an older tuner are not reused.
#: 3: the sort buffer's share of the heap, stated capabilities, Hadoop 1 property names.
#: 4: each job's moves within optimize's trust region unless --include-low-confidence.
#: 5: a job whose calibration failed keeps its configuration (its changes withheld).
#: 6: a SWIM row's changes carry the interval of their gain across the priors' ranges; a
#: job whose gain could vanish within its interval and the noise keeps its configuration.
#: 7: a failed calibration's material miss widens the job's interval and withholds only a
#: gain it could explain (:mod:`mrtune.optimizer.model_miss`).
TUNER_VERSION = 7
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
#: Reason of a job whose calibration failed, under ``--strict`` (``optimize --strict`` refuses it).
STRICT_SKIP = "calibration failed: refused by --strict (jobs.jsonl of a run without it says why)"


def load_ref(ref: JobRef, settings: BatchSettings) -> tuple[JobProfile, HadoopConfig]:
    """The job's profile and current configuration.

    Raises :class:`SkippedJob` for a trace row with zero input bytes, and the reader's or the
    profile's error for a bad job.
    """
    from mrtune.profiling import profile_config

    if ref.kind in (JHIST, REST):
        # Imported here: calibration pulls in scipy (~1 s of CPU per worker), which SWIM rows
        # and profile documents never need.
        from mrtune.calibration import load_profile_source

        profile = load_profile_source(ref.source)
    elif ref.kind == RUMEN:
        from mrtune.calibration import load_profile_source

        profile = load_profile_source(ref.source, None, fmt="rumen", job=ref.payload)
    elif ref.kind == SWIM:
        row = parse_swim_line(ref.payload, path=ref.source, lineno=_line_of(ref.key))
        if row.map_input_bytes == 0:
            raise SkippedJob(ZERO_INPUT)
        profile = swim_profile(row, settings.base_profile(), source=ref.source)
    elif ref.kind == RUN:
        from mrtune.calibration.run_profile import profile_from_run
        from mrtune.readers.run_records import RunRecord

        profile = profile_from_run(RunRecord.model_validate_json(ref.payload))
    elif ref.kind == PROFILE:
        # A profile document with input_bytes 0 breaks the JobProfile schema (input_bytes > 0):
        # that is a failure of the document, unlike a trace row recording a job that read
        # nothing.
        profile = JobProfile.model_validate_json(ref.payload)
    else:  # pragma: no cover - discover() only makes the kinds above
        raise ValueError(f"unknown job kind {ref.kind!r}")
    if settings.strict and profile.calibration_failed:
        raise SkippedJob(STRICT_SKIP)
    facts = settings.cluster_facts()
    if facts:  # the cluster's stated capabilities over the job's own (as optimize's options)
        profile = profile.model_copy(update={"cluster_facts": {**profile.cluster_facts, **facts}})
    return profile, profile_config(profile)


#: Jobs a worker process keeps read (profile, configuration, search space: ~8 KiB each),
#: filled where a job is tuned and read by the cluster-wide stage's passes over the catalog
#: (:mod:`mrtune.optimizer.batch._score`), which would otherwise re-read and re-derive every
#: job on every pass. Bounded, without eviction: a pass reads the jobs in catalog order,
#: which would evict every entry of a smaller LRU before its next use. A pass sends each
#: chunk to whichever worker is free, so every worker meets every job: the bound holds a
#: whole FB-2010 catalog (24,442 jobs, ~200 MiB a worker; at 16,384 a third of each pass
#: re-read its jobs).
SCORING_CACHE_JOBS = 32768
JOB_CACHE: dict[tuple[str, str, str], tuple[JobProfile, HadoopConfig, SearchSpace]] = {}


def keep_job(key: tuple[str, str, str], job: tuple[JobProfile, HadoopConfig, SearchSpace]) -> None:
    """Remember a read job for this process's later passes (while :data:`JOB_CACHE` has room)."""
    if len(JOB_CACHE) < SCORING_CACHE_JOBS:
        JOB_CACHE[key] = job


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
    spaces: list[SearchSpace | Exception] = []
    fingerprint = settings.fingerprint()
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
        try:  # the job's space, kept for the cluster-wide stage's passes on this worker
            space = SearchSpace.for_job(profile, base, settings.cluster)
            keep_job((fingerprint, ref.key, ref.payload), (profile, base, space))
            spaces.append(space)
        except Exception as exc:  # noqa: BLE001 - tune_jobs records it as the job's failure
            spaces.append(exc)
    tunings = tune_jobs(
        [(p, b) for _, p, b in loaded],
        settings.cluster,
        objective=settings.objective,
        min_gain=settings.min_gain,
        strategy=settings.strategy,
        spaces=spaces,
        region=not settings.include_low_confidence,
    )
    written: list[tuple[int, JobProfile, HadoopConfig, Written]] = []
    for (k, profile, base), t in zip(loaded, tunings, strict=True):
        try:
            if isinstance(t, Exception):
                raise t
            written.append((k, profile, base, written_of(t, profile, base, settings)))
        except Exception as exc:  # noqa: BLE001
            _record_failure(outs[k], exc)
    intervals = chunk_intervals(written, settings)
    for k, profile, base, w in written:
        try:
            w, interval = settle(w, intervals.get(k), profile, base, settings)
            _record_tuning(outs[k], w, profile, base, settings, interval)
        except Exception as exc:  # noqa: BLE001
            _record_failure(outs[k], exc)
    return outs


def _record_failure(out: dict[str, Any], exc: BaseException) -> None:
    """A catalog holds whatever a cluster recorded: any exception while reading or tuning one
    job (parse errors, invalid values, a model refusing the configuration) is that job's
    failure, recorded with its reason, and the batch goes on."""
    if isinstance(exc, SkippedJob | JobDidNotSucceed):
        # a job that failed on its cluster has nothing to tune: not mrtune's failure
        out.update(status="skipped", reason=str(exc), reason_kind=reason_kind(exc))
    else:
        out.update(status="failed", reason=failure_reason(exc), reason_kind=reason_kind(exc))


def evidence_basis(profile: JobProfile) -> dict[str, Any]:
    """What a job's predicted gain rests on: the cost factors with a prior range
    (:data:`mrtune.optimizer.priors.PRIORS`) that its profile measured. ``basis`` is
    ``defaulted`` when none was (every SWIM row: a trace records sizes, not times, so its
    gain is the model's at prior costs, not a finding), ``measured`` when all were, else
    ``partly measured``. ``calibration``: the profile's check
    (:meth:`~mrtune.costmodel.profile.CalibrationCheck.brief`; ``None`` for a SWIM row, which
    has no times to check against)."""
    from mrtune.optimizer.priors import basis_label, defaulted_factors, measured_factors

    measured = measured_factors(profile)
    check = profile.calibration  # a history's fit that misses its own run says so
    return {
        "basis": basis_label(measured, defaulted_factors(profile)),
        "measured_factors": measured,
        "calibration": None if check is None else check.brief(),
    }


def _record_tuning(
    out: dict[str, Any],
    w: Written,
    profile: JobProfile,
    base: HadoopConfig,
    settings: BatchSettings,
    interval: dict[str, Any] | Exception | None,
) -> None:
    if isinstance(interval, Exception):
        raise interval
    t, props, cur_vals, rec_vals = w.tuning, w.properties, w.current_values, w.recommended_values
    if base.hadoop_version == 1:  # each property under the name the job's Hadoop reads
        props = rename(props, NameStyle.hadoop1)
    if not all(map(math.isfinite, (t.current_ms, t.current_gb_s, t.best_ms, t.best_gb_s))):
        raise ValueError("the cost model predicts a non-finite time for this profile")
    obj_cur = t.current_gb_s if settings.objective == "resources" else t.current_ms
    obj_best = t.best_gb_s if settings.objective == "resources" else t.best_ms
    out.update(
        status="tuned",
        reason="",
        map_only=bool(profile.map_only or base.num_reducers == 0),
        hadoop_version=base.hadoop_version,
        input_bytes=float(profile.input_bytes),
        current_ms=t.current_ms,
        current_gb_s=t.current_gb_s,
        recommended_ms=t.best_ms,
        recommended_gb_s=t.best_gb_s,
        gain=1.0 - obj_best / obj_cur if obj_cur > 0 else 0.0,
        current={n: readable(n, v) for n, v in t.current.items()},
        recommended={n: readable(n, v) for n, v in t.best.items()},
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
        withheld_changes=w.withheld,
        withheld_interval=w.withheld_interval,
        interval=interval,
        **evidence_basis(profile),
        best_encoded=t.best,
        current_encoded=t.current,
        evaluations=t.evaluations,
        limits=t.limits,
        choices=t.choices,
    )
