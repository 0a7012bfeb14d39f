"""A batch job's tuning as its file writes it, and the interval of that gain (issue 14).

The trust rule (``optimize``'s: a gain that could vanish within the evidence, the run-to-run
noise and a failed calibration's material miss is withheld, :func:`settle`) is applied once
the interval of the tuned change is known; what is withheld keeps the job's configuration, so
the changed properties are what is written and the interval is of exactly what was scored.
Intervals are computed for a whole chunk at once: rows whose factors are all priors (SWIM) in
one stacked model call (:mod:`._confidence`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Protocol

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile
from mrtune.optimizer.batch._properties import changed_properties
from mrtune.optimizer.batch._tune import JobTuning
from mrtune.search_spaces import find_knob


class WrittenSettings(Protocol):
    """What this module reads of :class:`~mrtune.optimizer.batch._worker.BatchSettings` (which
    imports it)."""

    cluster: ClusterSpec
    objective: str
    include_low_confidence: bool


def readable(name: str, encoded: float) -> Any:
    return find_knob(name).decode(encoded)


@dataclass(frozen=True)
class Written:
    """A job's tuning as its file writes it: after the trust rule (:func:`settle`), with the
    changed properties under Hadoop 2/3 names (what the interval is of) and their values."""

    tuning: JobTuning
    withheld: list[dict[str, Any]]
    properties: dict[str, str]
    current_values: dict[str, Any]
    recommended_values: dict[str, Any]
    #: The interval of the withheld changes' gain, when the noise rule withheld them
    #: (:func:`settle`): what the job would have gained, and why it is not a finding.
    withheld_interval: dict[str, Any] | None = None


def written_of(
    t: JobTuning, profile: JobProfile, base: HadoopConfig, settings: WrittenSettings
) -> Written:
    props, cur_vals, rec_vals = changed_properties(t, profile, base)
    return Written(t, [], props, cur_vals, rec_vals)


def chunk_intervals(
    written: list[tuple[int, JobProfile, HadoopConfig, Written]], settings: WrittenSettings
) -> dict[int, dict[str, Any] | Exception]:
    """Each changed job's gain interval (batch/_confidence.py): the jobs whose factors are
    all priors (every SWIM row) in one stacked call, the others job by job (their measured
    factors are resampled from their own attempts). A job whose interval cannot be computed
    gets the exception, which fails that job alone, as any error while tuning it does; if the
    stacked call fails, its jobs are tried one by one, so one bad job cannot fail the rest."""
    from mrtune.optimizer.batch._confidence import gain_interval, prior_intervals, prior_only

    todo = [(k, p, b, w.properties) for k, p, b, w in written if w.properties]
    stack = [row for row in todo if prior_only(row[1])]
    out: dict[int, dict[str, Any] | Exception] = {}
    if len(stack) > 1:
        try:
            found = prior_intervals(
                [(p, b, props) for _, p, b, props in stack], *_objective(settings)
            )
            out.update({k: iv for (k, *_), iv in zip(stack, found, strict=True)})
        except Exception:  # noqa: BLE001 - each job alone below
            out.clear()
    for k, p, b, props in todo:
        if k in out:
            continue
        try:
            out[k] = gain_interval(p, b, props, *_objective(settings))
        except Exception as exc:  # noqa: BLE001 - recorded as this job's failure
            out[k] = exc
    return out


def _objective(settings: WrittenSettings) -> tuple[ClusterSpec, str]:
    return settings.cluster, settings.objective


#: The rules that withhold a batch job's changes (``withheld_changes[].rule``).
CALIBRATION_RULE = "calibration_miss"
NOISE_RULE = "gain_within_noise"


def _withhold(t: JobTuning, why: str, rule: str) -> tuple[JobTuning, list[dict[str, Any]]]:
    """``t`` kept at its current configuration, its changes listed with the reason."""
    withheld = [
        {
            "name": n,
            "current": readable(n, t.current[n]),
            "recommended": readable(n, t.best[n]),
            "reason": why,
            "rule": rule,
        }
        for n in t.changed
    ]
    kept = dataclasses.replace(
        t, best=dict(t.current), best_ms=t.current_ms, best_gb_s=t.current_gb_s, marginal_gain={}
    )
    return kept, withheld


def noise_miss(interval: dict[str, Any], miss: str | None = None) -> str | None:
    """Why a job's gain is no finding, or ``None``: ``optimize``'s noise rule
    (:mod:`mrtune.optimizer.trust`) on the job's whole change. Its interval, widened by the
    run-to-run noise of a speedup measured from five pairs (and by a failed calibration's
    material miss, ``miss`` its text, :mod:`mrtune.optimizer.model_miss`), must still gain
    the :data:`~mrtune.optimizer.trust.MIN_GAIN` a change must bring at its low end. For a
    SWIM row the interval spans the priors' ranges: a gain that vanishes somewhere inside
    them is a guess, not a recommendation."""
    from mrtune.optimizer.trust import MIN_GAIN

    sp = interval["speedup"]
    if sp["low"] > 1.0 + MIN_GAIN:
        return None
    of = "the priors' ranges" if interval.get("evidence") == "priors" else "the evidence"
    noise = "the run-to-run noise" if miss is None else "the miss and the run-to-run noise"
    head = f"its gain (×{sp['point']:.3g} in {interval['of']}) could vanish"
    if miss is not None:
        head = f"{miss}: its gain (×{sp['point']:.3g} in {interval['of']}) could be that miss"
    return (
        f"{head}: across {of} and {noise} its p10 is ×{sp['low']:.4g}, under the "
        f"×{1 + MIN_GAIN:g} a change must bring"
    )


def settle(
    w: Written,
    interval: dict[str, Any] | Exception | None,
    profile: JobProfile,
    base: HadoopConfig,
    settings: WrittenSettings,
) -> tuple[Written, dict[str, Any] | Exception | None]:
    """The job as written once its interval is known: a gain that could vanish
    (:func:`noise_miss`) is withheld, with its interval kept as ``withheld_interval``,
    unless ``--include-low-confidence``. The rule is ``calibration_miss`` when the profile's
    calibration failed materially (the interval holds the miss), else ``gain_within_noise``."""
    if settings.include_low_confidence or not isinstance(interval, dict):
        return w, interval
    from mrtune.optimizer.trust import calibration_miss

    miss = calibration_miss(profile)
    why = noise_miss(interval, miss)
    if why is None:
        return w, interval
    t, withheld = _withhold(w.tuning, why, NOISE_RULE if miss is None else CALIBRATION_RULE)
    props, cur_vals, rec_vals = changed_properties(t, profile, base)
    return Written(t, [*w.withheld, *withheld], props, cur_vals, rec_vals, interval), None
