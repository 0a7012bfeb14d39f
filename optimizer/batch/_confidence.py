"""A batch job's gain interval (issue 14: every prediction says how sure it is).

A job read from a history (or a profile JSON) has evidence behind its cost factors: the
bootstrap refits of its observed attempts and the prior ranges of its defaulted factors
(:func:`mrtune.optimizer.confidence.gather_evidence`). Its written configuration and its
current one are evaluated on every sample in one stacked model call, and the gain is taken per
sample (:func:`~mrtune.optimizer.confidence.ratio_interval`), then widened by the job's
run-to-run noise on a speedup measured from five pairs, as ``optimize`` does.

A SWIM row records sizes, not times: every factor is a prior, and its ``basis`` says
``defaulted`` (:func:`~mrtune.optimizer.batch._worker.evidence_basis`). Its interval is then
the spread of the gain across the priors' ranges alone (``evidence: "priors"``): not how sure a
measurement makes the gain, but whether the gain *holds whatever the defaulted costs are*
(p10 above 1) or could vanish inside their plausible range. A catalog has thousands of such
rows, so :func:`prior_intervals` costs a chunk's jobs × samples × (current, written) in one
stacked model call, with each row's factors set from the same Latin-hypercube draws
:func:`~mrtune.optimizer.confidence.gather_evidence` makes (bit for bit the per-job
:func:`gain_interval`; ``tests/optimizer/test_batch_confidence.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile

#: Evidence samples per job: half of ``optimize``'s 64 (a catalog has many jobs); 32 put the
#: p10/p90 on ~3 samples each side.
BATCH_SAMPLES = 32


def gain_interval(
    profile: JobProfile,
    base: HadoopConfig,
    properties: dict[str, str],
    cluster: ClusterSpec,
    objective: str,
    samples: int = BATCH_SAMPLES,
) -> dict[str, Any]:
    """The interval of current ÷ written (job time, or GB·s for ``resources``) per sample,
    with the model's own interval beside it. ``properties``: what the job's file writes
    (under Hadoop 2/3 names), so the interval is of exactly what was scored."""
    from mrtune.optimizer.confidence import evaluate_profiles, gather_evidence, ratio_interval

    ev = gather_evidence(profile, base, samples=samples, seed=0)
    written = base.with_changes(properties)
    job_ms, gb_s = evaluate_profiles([*ev.samples, ev.point], [base, written], cluster)
    v = gb_s if objective == "resources" else job_ms
    model = ratio_interval(v[:-1, 0], v[:-1, 1], float(v[-1, 0]), float(v[-1, 1]))
    return _interval_json(profile, model, objective, samples, ev.measured)


def _interval_json(
    profile: JobProfile, model: Any, objective: str, samples: int, measured: list[str]
) -> dict[str, Any]:
    """The interval as jobs.jsonl holds it: widened by the job's run-to-run noise and by a
    failed calibration's material miss (:mod:`mrtune.optimizer.model_miss`)."""
    import math

    from mrtune.optimizer.model_miss import miss_band, speedup_band
    from mrtune.optimizer.noise import widen

    return {
        "speedup": widen(model, speedup_band(profile)).to_json(),
        "calibration_miss_band": math.expm1(miss_band(profile)),
        "speedup_model": model.to_json(),
        "of": "GB·s" if objective == "resources" else "job time",
        "samples": samples,
        "measured_factors": measured,
        "evidence": "bootstrap and priors" if measured else "priors",
    }


def prior_only(profile: JobProfile) -> bool:
    """Whether every sampled factor of ``profile`` is a prior and its samples can be stacked
    with other jobs' (:func:`prior_intervals`): no measured factor, no reduce-side override
    (which moves with its factor, per job), no map classes (costed per job)."""
    from mrtune.optimizer.priors import measured_factors

    return not (measured_factors(profile) or profile.costs.reduce_side or profile.map_classes)


def prior_intervals(
    jobs: Sequence[tuple[JobProfile, HadoopConfig, dict[str, str]]],
    cluster: ClusterSpec,
    objective: str,
    samples: int = BATCH_SAMPLES,
) -> list[dict[str, Any]]:
    """:func:`gain_interval` of many :func:`prior_only` jobs in one stacked model call: rows
    ordered job × (samples, then the point) × (current, written)."""
    from mrtune.costmodel.job import evaluate
    from mrtune.costmodel.stacked import ProfileTable
    from mrtune.optimizer.confidence import intervals_of_rows

    n_j, per = len(jobs), 2 * (samples + 1)
    configs = [c for p, b, props in jobs for c in (b, b.with_changes(props))]
    batch = ConfigBatch.from_configs(configs)
    job = np.repeat(np.arange(n_j), per)
    cfg_rows = (2 * job + np.tile(np.arange(2), n_j * (samples + 1))).astype(np.int64)
    stacked = ProfileTable([p for p, _, _ in jobs]).rows(job)
    _set_prior_draws(stacked.costs, [p for p, _, _ in jobs], job, samples)
    job_ms, gb_s = evaluate(stacked, batch.take(cfg_rows), cluster)
    v = (gb_s if objective == "resources" else job_ms).reshape(n_j, samples + 1, 2)
    with np.errstate(divide="ignore", invalid="ignore"):  # as ratio_interval takes them
        ratios = v[:, :-1, 0] / v[:, :-1, 1]
        points = np.where(v[:, -1, 1] > 0, v[:, -1, 0] / v[:, -1, 1], np.inf)
    models = intervals_of_rows(ratios, points)
    return [
        _interval_json(profile, model, objective, samples, [])
        for (profile, _, _), model in zip(jobs, models, strict=True)
    ]


def _set_prior_draws(
    costs: Any, profiles: Sequence[JobProfile], job: np.ndarray, samples: int
) -> None:
    """Set each stacked row's defaulted factors to its sample's draw (the point rows keep the
    profile's values), as :func:`~mrtune.optimizer.confidence.gather_evidence` does per job:
    a relative prior scales the job's value, an absolute one replaces it. Jobs sharing the
    same priors share the draws (the same seed), computed once."""
    from mrtune.optimizer.priors import PRIORS, _prior_draws, defaulted_factors, prior_of

    draws_of: dict[tuple[object, ...], int] = {}
    tables: list[dict[str, np.ndarray]] = []
    key_of = np.empty(len(profiles), dtype=np.int64)
    for j, p in enumerate(profiles):
        names = defaulted_factors(p)
        key = (*names, *(prior_of(p, f) for f in names))
        if key not in draws_of:
            draws_of[key] = len(tables)
            tables.append(_prior_draws(p, names, samples, 0))
        key_of[j] = draws_of[key]
    sample = np.tile(np.repeat(np.arange(samples + 1), 2), len(profiles))
    group = key_of[job]
    for f in PRIORS:
        if not any(f in t for t in tables):
            continue
        col = np.broadcast_to(np.asarray(getattr(costs, f), dtype=np.float64), job.shape).copy()
        table = np.full((len(tables), samples + 1), np.nan)  # nan: the point, or not defaulted
        for g, t in enumerate(tables):
            if f in t:
                table[g, :samples] = t[f]
        drawn = table[group, sample]
        use = ~np.isnan(drawn)
        if PRIORS[f].relative:
            col[use] = col[use] * drawn[use]
        else:
            col[use] = drawn[use]
        setattr(costs, f, col)
