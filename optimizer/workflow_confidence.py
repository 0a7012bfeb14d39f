"""How sure a workflow's tuned completion time is (issue 14: every prediction carries an
interval from the evidence, and says what it rests on).

Each job given by a profile has its evidence (:func:`mrtune.optimizer.confidence.
gather_evidence`: bootstrap refits of its observed attempts, jointly with the prior ranges of
its defaulted cost factors). Sample ``s`` of the workflow takes every profiled job's
``s``-th sample (each job's own seed: the jobs were measured apart, so their factors are drawn
independently) and evaluates the workflow at the current and at the tuned configurations
under those profiles (:func:`~mrtune.optimizer.workflow_eval.evaluate_workflow`, both
workflow models). Jobs given by their task times stay as given. The speedup is taken per
sample, so what moves both configurations together cancels, as in ``optimize``
(:func:`~mrtune.optimizer.confidence.ratio_interval`).

That is the model's uncertainty. The run-to-run noise a measurement adds is the jobs': the
largest of their noise bands (:mod:`mrtune.optimizer.noise`) widens the speedup's interval
(the model's own stays under ``speedup_model``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mrtune.optimizer.confidence import Interval, gather_evidence, interval_of, ratio_interval
from mrtune.optimizer.model_miss import speedup_band
from mrtune.optimizer.noise import widen
from mrtune.optimizer.priors import basis_label
from mrtune.optimizer.workflow_eval import evaluate_workflow, job_config
from mrtune.optimizer.workflow_tuning import WorkflowTuning
from mrtune.readers.workflow_file import WorkflowSpec

#: Samples of the workflow: each costs two evaluations of every job (current, tuned), so
#: fewer than ``optimize``'s 64; 32 put the p10/p90 on ~3 samples each side.
WORKFLOW_SAMPLES = 32


@dataclass(frozen=True)
class JobBasis:
    """What one job's predicted times rest on."""

    measured: list[str]
    defaulted: list[str]
    source: str  # "cost model" or "tasks"

    @property
    def label(self) -> str:
        if self.source == "tasks":
            return "given task times"
        return basis_label(self.measured, self.defaulted)


@dataclass(frozen=True)
class WorkflowConfidence:
    """Intervals of the refined and basic completion times, current and tuned, and of the
    speedup (current / tuned per sample); each job's basis."""

    refined: dict[str, Interval]
    basic: dict[str, Interval]
    jobs: dict[str, JobBasis]
    samples: int
    noise_band: float

    @property
    def rests_on_defaults(self) -> bool:
        """Whether no tuned job's cost factors were measured: the gain is the model's at
        prior costs, not a finding."""
        model = [b for b in self.jobs.values() if b.source != "tasks"]
        return bool(model) and all(b.label == "defaulted" for b in model)

    def to_json(self) -> dict[str, Any]:
        return {
            "samples": self.samples,
            "run_noise_band": self.noise_band,
            "refined": {k: v.to_json() for k, v in self.refined.items()},
            "basic": {k: v.to_json() for k, v in self.basic.items()},
            "rests_on_defaults": self.rests_on_defaults,
            "jobs": {
                n: {"basis": b.label, "measured_factors": b.measured, "defaulted": b.defaulted}
                for n, b in self.jobs.items()
            },
        }


def _sampled_specs(
    spec: WorkflowSpec, samples: int, seed: int
) -> tuple[list[WorkflowSpec], dict[str, JobBasis], float]:
    """The workflow once per evidence sample (each profiled job's ``s``-th sample), each
    job's basis, and the largest speedup band among the jobs (run-to-run noise, and a failed
    calibration's material miss)."""
    drawn: dict[str, list[Any]] = {}
    basis: dict[str, JobBasis] = {}
    band = 0.0
    for i, job in enumerate(spec.jobs):
        if job.profile is None:
            basis[job.name] = JobBasis([], [], "tasks")
            continue
        ev = gather_evidence(
            job.profile, job_config(spec, job.name), samples=samples, seed=seed + i
        )
        drawn[job.name] = ev.samples
        basis[job.name] = JobBasis(ev.measured, ev.defaulted, "cost model")
        band = max(band, speedup_band(job.profile))
    specs = []
    for s in range(samples):
        jobs = [
            j.model_copy(update={"profile": drawn[j.name][s]}) if j.name in drawn else j
            for j in spec.jobs
        ]
        specs.append(spec.model_copy(update={"jobs": jobs}))
    return specs, basis, band


def workflow_confidence(
    spec: WorkflowSpec,
    tuning: WorkflowTuning,
    *,
    estimate: str | None = None,
    order: str | None = None,
    samples: int = WORKFLOW_SAMPLES,
    seed: int = 0,
) -> WorkflowConfidence:
    """Intervals of ``tuning``'s current and tuned completion times and of its speedup."""
    tuned_props = {
        n: j.properties for n, j in tuning.tuned.jobs.items() if j.source == "cost model"
    }
    specs, basis, band = _sampled_specs(spec, samples, seed)
    times = np.empty((samples, 4))  # refined current, refined tuned, basic current, basic tuned
    for s, sp in enumerate(specs):
        cur = evaluate_workflow(sp, estimate=estimate, order=order).result
        new = evaluate_workflow(sp, estimate=estimate, order=order, properties=tuned_props).result
        times[s] = (cur.refined_ms, new.refined_ms, cur.basic_ms, new.basic_ms)
    point = (
        tuning.current.result.refined_ms,
        tuning.tuned.result.refined_ms,
        tuning.current.result.basic_ms,
        tuning.tuned.result.basic_ms,
    )
    out = []
    for c, t in ((0, 1), (2, 3)):
        speed = ratio_interval(times[:, c], times[:, t], point[c], point[t])
        out.append(
            {
                "current_ms": interval_of(times[:, c], point[c]),
                "tuned_ms": interval_of(times[:, t], point[t]),
                "speedup": widen(speed, band),
                "speedup_model": speed,
            }
        )
    return WorkflowConfidence(out[0], out[1], basis, samples, band)
