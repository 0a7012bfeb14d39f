"""``mrtune workflow``: completion time of a DAG of MapReduce jobs (the workflow seed, §3.3).

Reads a workflow file (:mod:`mrtune.readers.workflow_file`), predicts every job with the cost model,
splits the DAG into Pig's stages and prints, per stage and per job, when the map and reduce
stages start and end under the basic model (sum of job times, eq. 3.17) and the refined model
(overlap of concurrent jobs, eqs. 3.19-3.23), the totals (eq. 3.18), the best job order of each
stage, the linear-extrapolation baseline when the file asks for it, and with ``--optimize`` the
per-job settings that minimise the workflow's completion time. ``--plot`` draws the timelines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from mrtune.cli._workflow_json import _baseline_json, _evaluation_json, _timeline, _tuning_json
from mrtune.cli._workflow_options import (
    EstimateParam,
    FileParam,
    ModelChoice,
    ModelParam,
    OptimizeParam,
    OrderParam,
    OutputFormatParam,
    PlotParam,
)
from mrtune.cli.console import (
    OutputFormat,
    calibration_brief,
    cli_errors,
    console,
    emit_json,
    err_console,
    strict_option,
    warn_calibration,
    working,
)
from mrtune.errors import InputError
from mrtune.optimizer.workflow_checks import check_workflow_settings
from mrtune.optimizer.workflow_tuning import (
    ExtrapolationResult,
    WorkflowEvaluation,
    WorkflowTuning,
    evaluate_workflow,
    extrapolation_baseline,
    tune_workflow,
)
from mrtune.readers.workflow_file import load_workflow


def _s(ms: float) -> str:
    return f"{ms / 1000:.1f}"


def _models(choice: ModelChoice) -> list[str]:
    return ["basic", "refined"] if choice is ModelChoice.both else [choice.value]


# ----------------------------------------------------------------------------- JSON


# ----------------------------------------------------------------------------- rich
def _print_jobs(ev: WorkflowEvaluation) -> None:
    table = Table(
        title=f"Map and reduce stage of each job (s); T = the {ev.estimate!r} estimate used"
    )
    # numbers never folded (``256/128`` was ``256/12`` over ``8``); the stage is said under
    # the job's name, a column of its own made the table wider than 80
    table.add_column("Job")
    for col in ("Phase", "Tasks", "Task s", "Waves", "Lower", "Upper", "Avg", "T"):
        table.add_column(col, justify="left" if col == "Phase" else "right", no_wrap=True)
    for job in ev.jobs.values():
        t = job.tasks
        for phase, n, task_ms, k, waves, b, used in (
            (
                "map",
                t.n_maps,
                t.map_task_ms,
                t.map_slots,
                t.map_waves_ms,
                t.map_bounds,
                job.map_ms,
            ),
            (
                "reduce",
                t.n_reduces,
                t.reduce_task_ms,
                t.reduce_slots,
                t.reduce_waves_ms,
                t.reduce_bounds,
                job.reduce_ms,
            ),
        ):
            first = phase == "map"
            table.add_row(
                escape(job.name) if first else f"[dim]stage {job.stage + 1}[/]",
                phase,
                f"{n}/{k}",
                _s(task_ms) if n else "-",
                _s(waves),
                _s(float(b.lower)),
                _s(float(b.upper)),
                _s(float(b.average)),
                f"[bold]{_s(used)}[/]",
                end_section=not first,
            )
    console.print(table)
    console.print("[dim]Tasks = tasks/capacity (slots or containers).[/]")


def _print_stages(ev: WorkflowEvaluation, models: list[str], title: str) -> None:
    table = Table(title=title)
    table.add_column("Stage", justify="right")
    table.add_column("Jobs (execution order)")
    if "basic" in models:
        table.add_column("Basic s", justify="right")
    if "refined" in models:
        table.add_column("Refined s", justify="right")
        table.add_column("Best order (refined s)")
        table.add_column("Order found by")
    for s in ev.result.stages:
        cells = [str(s.index + 1), ", ".join(s.order)]
        if "basic" in models:
            cells.append(_s(s.basic_ms))
        if "refined" in models:
            cells.append(_s(s.refined_ms))
            cells.append(f"{', '.join(s.best_jobs)} ({_s(s.best.stage_ms)})")
            cells.append(s.best.description)
        table.add_row(*cells)
    console.print(table)


def _print_timeline(ev: WorkflowEvaluation, model: str) -> None:
    table = Table(title=f"Timeline, {model} model (s from the workflow start)")
    for col in ("Job", "Stage", "Map start", "Map end", "Reduce start", "Reduce end"):
        table.add_column(col, justify="left" if col == "Job" else "right")
    for stage in ev.result.stages:
        for t in stage.basic_timeline if model == "basic" else stage.refined_timeline:
            table.add_row(
                t.name,
                str(stage.index + 1),
                _s(t.map_start),
                _s(t.map_end),
                _s(t.reduce_start),
                _s(t.reduce_end),
            )
    console.print(table)


def _print_totals(ev: WorkflowEvaluation, models: list[str]) -> None:
    parts = []
    if "basic" in models:
        parts.append(f"basic (eq. 3.17-3.18) [bold]{_s(ev.result.basic_ms)} s[/]")
    if "refined" in models:
        parts.append(f"refined (eq. 3.18-3.23) [bold]{_s(ev.result.refined_ms)} s[/]")
    line = "Workflow completion time: " + ", ".join(parts)
    if len(models) == 2 and ev.result.basic_ms > 0:
        pct = 100 * (1 - ev.result.refined_ms / ev.result.basic_ms)
        line += f" (refined {pct:.1f}% below basic)"
    console.print(line)


def _print_baseline(b: ExtrapolationResult) -> None:
    table = Table(title="Linear-extrapolation baseline (seed §3.3)")
    table.add_column("")
    table.add_column("Time s", justify="right")
    table.add_column("Error vs measured", justify="right")
    for scale, ms in zip(b.scales, b.fitted_ms, strict=True):
        table.add_row(f"fit point: scale {scale:g} ({b.fitted_on})", _s(ms), "")

    def err(x: float) -> str:
        e = b.error(x)
        return "-" if e is None else f"{100 * e:+.1f}%"

    table.add_row(
        f"linear extrapolation to scale {b.target_scale:g}",
        _s(b.extrapolated_ms),
        err(b.extrapolated_ms),
    )
    table.add_row("refined model at that scale", _s(b.model_refined_ms), err(b.model_refined_ms))
    table.add_row("basic model at that scale", _s(b.model_basic_ms), err(b.model_basic_ms))
    if b.measured_target_ms is not None:
        table.add_row("measured", _s(b.measured_target_ms), "")
    console.print(table)


def _print_tuning(t: WorkflowTuning) -> None:
    table = Table(title="Per-job settings tuned for the workflow's refined completion time")
    table.add_column("Job")
    table.add_column("Setting", overflow="fold")
    table.add_column("Current", justify="right", overflow="fold")
    table.add_column("Workflow-tuned", justify="right", overflow="fold")
    table.add_column("Best for the job alone", justify="right", overflow="fold")
    for job in t.current.jobs:
        keys = sorted(set(t.changes.get(job, {})) | set(t.alone_changes.get(job, {})))
        if not keys:
            table.add_row(job, "[dim](unchanged)[/]", "", "", "")
        cur = t.current.jobs[job].properties
        tuned = t.tuned.jobs[job].properties
        alone = t.alone.jobs[job].properties
        for i, key in enumerate(keys):
            table.add_row(
                job if i == 0 else "",
                key,
                cur.get(key, "(default)"),
                tuned.get(key, "(default)"),
                alone.get(key, "(default)"),
            )
    console.print(table)
    for label, attr in (("Refined", "refined_ms"), ("Basic", "basic_ms")):
        console.print(
            f"{label} workflow time: current {_s(getattr(t.current.result, attr))} s, "
            f"each job tuned alone {_s(getattr(t.alone.result, attr))} s, "
            f"tuned for the workflow [bold]{_s(getattr(t.tuned.result, attr))} s[/]"
        )
    for i, m in enumerate(t.stage_methods):
        console.print(f"  stage {i + 1}: {m}")
    for job, lines in t.trust_notes.items():  # optimize's trust rules (workflow_trust)
        for line in lines:
            console.print(f"[yellow]low confidence, not tuned: {escape(job)}: {escape(line)}[/]")


def _print_confidence(c: Any) -> None:
    """The tuned workflow's intervals and what each job's times rest on."""
    r = c.refined
    sp = r["speedup"]
    console.print(
        f"refined, tuned: {_s(r['tuned_ms'].point)} s (p10-p90 {_s(r['tuned_ms'].low)}-"
        f"{_s(r['tuned_ms'].high)} s); speedup x{sp.point:.3f} (p10-p90 x{sp.low:.3f}-"
        f"x{sp.high:.3f}, with the jobs' run-to-run noise; {c.samples} evidence samples)"
    )
    bases = ", ".join(f"{n}: {b.label}" for n, b in c.jobs.items())
    console.print(f"what each job's times rest on: {bases}")
    if c.rests_on_defaults:
        console.print(
            "[yellow]no tuned job has a measured cost factor: the gain is the model's at "
            "prior costs, not a finding[/]"
        )
    elif sp.low <= 1.0:
        console.print(
            "[yellow]the speedup's interval reaches no gain: a measurement could show none[/]"
        )


# ----------------------------------------------------------------------------- plot
def plot_timelines(panels: list[tuple[str, WorkflowEvaluation, str]], path: Path) -> None:
    """Gantt chart, one panel per (title, evaluation, model); map and reduce stages as bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    names = list(panels[0][1].jobs)
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(10, 1.2 + 0.45 * len(names) * len(panels)),
        squeeze=False,
        sharex=True,
    )
    for ax, (title, ev, model) in zip(axes[:, 0], panels, strict=True):
        lines = _timeline(ev, model)
        for y, name in enumerate(names):
            t = lines[name]
            ax.broken_barh(
                [(t.map_start / 1000, (t.map_end - t.map_start) / 1000)],
                (y - 0.35, 0.33),
                facecolors="tab:blue",
            )
            ax.broken_barh(
                [(t.reduce_start / 1000, (t.reduce_end - t.reduce_start) / 1000)],
                (y + 0.02, 0.33),
                facecolors="tab:orange",
            )
        total = ev.result.basic_ms if model == "basic" else ev.result.refined_ms
        ends = [0.0]
        for s in ev.result.stages:
            ends.append(ends[-1] + (s.basic_ms if model == "basic" else s.refined_ms))
        for x in ends[1:-1]:
            ax.axvline(x / 1000, color="grey", linestyle=":", linewidth=1)
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.set_title(f"{title}: {total / 1000:.1f} s")
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel("time from workflow start (s)")
    fig.legend(
        handles=[
            Patch(color="tab:blue", label="map stage"),
            Patch(color="tab:orange", label="reduce stage"),
            Line2D([], [], color="grey", linestyle=":", label="stage boundary"),
        ],
        loc="lower center",
        ncols=3,
        fontsize="small",
        frameon=False,
    )
    fig.tight_layout(rect=(0, 0.35 / fig.get_figheight(), 1, 1))  # room for the legend
    try:
        fig.savefig(path, dpi=120)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot write the plot: {exc}", path=str(path)) from None
    finally:
        plt.close(fig)


# ----------------------------------------------------------------------------- command
app = typer.Typer()


@app.command("workflow")
@cli_errors
def workflow(
    file: FileParam,
    model: ModelParam = ModelChoice.both,
    estimate: EstimateParam = None,
    order: OrderParam = None,
    optimize: OptimizeParam = False,
    plot: PlotParam = None,
    output_format: OutputFormatParam = OutputFormat.text,
    strict: bool = strict_option(),
) -> None:
    """Completion time of a workflow of MapReduce jobs: basic vs refined model."""
    spec = load_workflow(file)
    notes = check_workflow_settings(spec)  # whatif's per-profile checks, one line each
    calibration = {
        j.name: calibration_brief(j.profile) for j in spec.jobs if j.profile is not None
    }
    for j in spec.jobs:  # every job's predictions rest on its profile's fitted model
        if j.profile is not None:
            warn_calibration(j.profile, strict)
    models = _models(model)
    est = estimate.value if estimate else None
    odr = order.value if order else None
    ev = evaluate_workflow(spec, estimate=est, order=odr)
    baseline = extrapolation_baseline(spec, estimate=est, order=odr)
    tuning = confidence = None
    if optimize:
        from mrtune.optimizer.workflow_confidence import workflow_confidence

        with working("tuning each job's settings for the workflow's makespan"):
            tuning = tune_workflow(spec, estimate=est, order=odr)
        with working("intervals from each job's evidence"):
            confidence = workflow_confidence(spec, tuning, estimate=est, order=odr)
    if plot is not None:
        panels = [(f"{m} model", ev, m) for m in models]
        if tuning is not None:
            panels.append(("refined model, workflow-tuned settings", tuning.tuned, "refined"))
        plot_timelines(panels, plot)

    if output_format is OutputFormat.json:
        out: dict[str, Any] = {
            "workflow": spec.name,
            "capacity": spec.capacity.description if spec.capacity else "cost model cluster",
            "estimate": ev.estimate,
            "order_policy": ev.result.order_policy,
            **_evaluation_json(ev, models),
            "baseline": _baseline_json(baseline) if baseline else None,
            "tuning": _tuning_json(tuning, models) if tuning else None,
            "confidence": confidence.to_json() if confidence else None,
            "calibration": calibration,
            "notes": notes,
            "plot": str(plot) if plot else None,
        }
        emit_json(out)
        return

    for line in notes:
        err_console.print(f"note: {escape(line)}", highlight=False)
    cap = spec.capacity.description if spec.capacity else "from the cost model's cluster"
    console.print(
        f"[bold]{spec.name}[/]: {len(spec.jobs)} jobs in {len(ev.result.stages)} stages; "
        f"capacity {cap}; stage durations: {ev.estimate}; order: {ev.result.order_policy}"
    )
    _print_jobs(ev)
    _print_stages(ev, models, "Stages (Pig: jobs whose predecessors are all done)")
    for m in models:
        _print_timeline(ev, m)
    _print_totals(ev, models)
    if baseline is not None:
        _print_baseline(baseline)
    if tuning is not None:
        _print_tuning(tuning)
    if confidence is not None:
        _print_confidence(confidence)
    if plot is not None:
        console.print(f"timeline written to {plot}")
