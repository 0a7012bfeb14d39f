"""The ``--format json`` document of ``mrtune workflow``: each evaluation's stages, jobs
(with their timelines per model) and totals, the extrapolation baseline and the tuning.

Split from :mod:`mrtune.cli.workflow` by what it holds: the JSON form, apart from the rich
tables and the Gantt plot of the text output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtune.optimizer.workflow_tuning import (
    ExtrapolationResult,
    WorkflowEvaluation,
    WorkflowTuning,
)

if TYPE_CHECKING:
    from mrtune.costmodel.workflow import JobTimeline


def _timeline(ev: WorkflowEvaluation, model: str) -> dict[str, JobTimeline]:
    out: dict[str, JobTimeline] = {}
    for stage in ev.result.stages:
        for t in stage.basic_timeline if model == "basic" else stage.refined_timeline:
            out[t.name] = t
    return out


def _job_json(ev: WorkflowEvaluation, models: list[str]) -> list[dict[str, Any]]:
    rows = []
    lines = {m: _timeline(ev, m) for m in models}
    for job in ev.jobs.values():
        t = job.tasks
        mb, rb = t.map_bounds, t.reduce_bounds
        row: dict[str, Any] = {
            "name": job.name,
            "stage": job.stage + 1,
            "source": job.source,
            "maps": t.n_maps,
            "reduces": t.n_reduces,
            "map_task_ms": t.map_task_ms,
            "reduce_task_ms": t.reduce_task_ms,
            "map_capacity": t.map_slots,
            "reduce_capacity": t.reduce_slots,
            "map_stage": {
                "waves_ms": t.map_waves_ms,
                "lower_ms": float(mb.lower),
                "upper_ms": float(mb.upper),
                "average_ms": float(mb.average),
                "used_ms": job.map_ms,
            },
            "reduce_stage": {
                "waves_ms": t.reduce_waves_ms,
                "lower_ms": float(rb.lower),
                "upper_ms": float(rb.upper),
                "average_ms": float(rb.average),
                "used_ms": job.reduce_ms,
            },
        }
        for m in models:
            tl = lines[m][job.name]
            row[m] = {
                "map_start_ms": tl.map_start,
                "map_end_ms": tl.map_end,
                "reduce_start_ms": tl.reduce_start,
                "reduce_end_ms": tl.reduce_end,
            }
        rows.append(row)
    return rows


def _evaluation_json(ev: WorkflowEvaluation, models: list[str]) -> dict[str, Any]:
    stages = []
    for s in ev.result.stages:
        row: dict[str, Any] = {
            "stage": s.index + 1,
            "jobs": list(s.jobs),
            "order": list(s.order),
            "best_order": list(s.best_jobs),
            "best_order_refined_ms": s.best.stage_ms,
            "order_method": s.best.description,
        }
        if "basic" in models:
            row["basic_ms"] = s.basic_ms
        if "refined" in models:
            row["refined_ms"] = s.refined_ms
            row["given_order_refined_ms"] = s.given_refined_ms
        stages.append(row)
    totals: dict[str, float] = {}
    if "basic" in models:
        totals["basic_ms"] = ev.result.basic_ms
    if "refined" in models:
        totals["refined_ms"] = ev.result.refined_ms
    if len(models) == 2 and ev.result.basic_ms > 0:
        totals["refined_below_basic_pct"] = 100 * (1 - ev.result.refined_ms / ev.result.basic_ms)
    return {"stages": stages, "jobs": _job_json(ev, models), "totals": totals}


def _baseline_json(b: ExtrapolationResult) -> dict[str, Any]:
    return {
        "scales": b.scales,
        "fitted_ms": b.fitted_ms,
        "fitted_on": b.fitted_on,
        "slope_ms_per_scale": b.slope_ms_per_scale,
        "intercept_ms": b.intercept_ms,
        "target_scale": b.target_scale,
        "linear_extrapolation_ms": b.extrapolated_ms,
        "model_basic_ms": b.model_basic_ms,
        "model_refined_ms": b.model_refined_ms,
        "measured_target_ms": b.measured_target_ms,
        "error_linear": b.error(b.extrapolated_ms),
        "error_refined": b.error(b.model_refined_ms),
        "error_basic": b.error(b.model_basic_ms),
    }


def _tuning_json(t: WorkflowTuning, models: list[str]) -> dict[str, Any]:
    def changes(c: dict[str, dict[str, tuple[str | None, str]]]) -> dict[str, Any]:
        return {
            job: {k: {"from": old, "to": new} for k, (old, new) in ch.items()}
            for job, ch in c.items()
        }

    return {
        "current_refined_ms": t.current.result.refined_ms,
        "each_job_alone_refined_ms": t.alone.result.refined_ms,
        "workflow_tuned_refined_ms": t.tuned.result.refined_ms,
        "current_basic_ms": t.current.result.basic_ms,
        "each_job_alone_basic_ms": t.alone.result.basic_ms,
        "workflow_tuned_basic_ms": t.tuned.result.basic_ms,
        "changes": changes(t.changes),
        "each_job_alone_changes": changes(t.alone_changes),
        "candidates": t.candidates,
        "pareto_sizes": t.pareto_sizes,
        "stage_methods": t.stage_methods,
        "low_confidence": t.trust_notes,
        "tuned": _evaluation_json(t.tuned, models),
    }
