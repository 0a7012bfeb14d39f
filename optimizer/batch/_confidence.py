"""A batch job's gain interval (issue 14: every prediction says how sure it is).

A job read from a history (or a profile JSON) has evidence behind its cost factors: the
bootstrap refits of its observed attempts and the prior ranges of its defaulted factors
(:func:`mrtune.optimizer.confidence.gather_evidence`). Its written configuration and its
current one are evaluated on every sample in one stacked model call, and the gain is taken per
sample (:func:`~mrtune.optimizer.confidence.ratio_interval`), then widened by the job's
run-to-run noise on a speedup measured from five pairs, as ``optimize`` does.

A SWIM row gets none: it records sizes, not times, so every factor is a prior and its interval
would restate the priors' ranges for each of thousands of jobs; its ``basis`` says
``defaulted`` instead (:func:`~mrtune.optimizer.batch._worker.evidence_basis`).
"""

from __future__ import annotations

from typing import Any

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile

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
    from mrtune.optimizer.noise import run_noise, widen

    ev = gather_evidence(profile, base, samples=samples, seed=0)
    written = base.with_changes(properties)
    job_ms, gb_s = evaluate_profiles([*ev.samples, ev.point], [base, written], cluster)
    v = gb_s if objective == "resources" else job_ms
    model = ratio_interval(v[:-1, 0], v[:-1, 1], float(v[-1, 0]), float(v[-1, 1]))
    return {
        "speedup": widen(model, run_noise(profile).band()).to_json(),
        "speedup_model": model.to_json(),
        "of": "GB·s" if objective == "resources" else "job time",
        "samples": samples,
        "measured_factors": ev.measured,
    }
