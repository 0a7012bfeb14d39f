"""``mrtune report``: one self-contained HTML file of a job, readable offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from mrtune.cli._confidence import INCLUDE_LOW_OPT
from mrtune.cli._inputs import ClusterOpt, ConfOpt, LocalOpt, NodesOpt, build_cluster
from mrtune.cli.console import (
    OutputFormat,
    cli_errors,
    console,
    emit_json,
    err_console,
    strict_option,
    warn_calibration,
)
from mrtune.errors import InputError

app = typer.Typer()


def pick_job(views: list[Any], job: str | None, source: Path) -> Any:
    """The job a multi-job file's report is about: ``--job``, else the first profiled one."""
    if job is not None:
        for v in views:
            if job in (v.job_id, v.job_name):
                return v
        raise InputError(
            "no such job in the file",
            path=str(source),
            field="--job",
            value=job,
            allowed=", ".join(v.job_id for v in views[:10]),
        )
    return next((v for v in views if v.profile is not None), views[0])


@app.command("report")
@cli_errors
def report_cmd(
    source: Path = typer.Argument(
        ...,
        help="A profile JSON, a job history (.jhist, REST JSON or directory, Rumen trace) or run "
        "records (.jsonl).",
    ),
    output: Path = typer.Option(..., "-o", "--output", help="The HTML file to write."),
    job: str | None = typer.Option(
        None, "--job", help="The job of a multi-job file (id or name)."
    ),
    trials: int | None = typer.Option(
        None, "--trials", min=1, help="Search budget of the recommendation (default: tpe's)."
    ),
    resamples: int = typer.Option(
        100, "--resamples", min=0, help="Bootstrap resamples behind prices and confidence."
    ),
    include_low_confidence: bool = INCLUDE_LOW_OPT,
    nodes: int | None = NodesOpt,
    cluster: Path | None = ClusterOpt,
    local: bool = LocalOpt,
    conf: Path | None = ConfOpt,
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
    strict: bool = strict_option(),
) -> None:
    """Write one self-contained HTML report of a job: diagnosis, breakdown, settings."""
    from mrtune.diagnose import diagnose_view, is_catalog, load_jobs

    if is_catalog(source):
        raise InputError(
            "a directory of jobs: use `mrtune batch CATALOG -o DIR --report` for a catalog report",
            path=str(source),
        )
    with err_console.status("diagnosing, searching and plotting…"):
        views = load_jobs(source, conf)
        view = pick_job(views, job, source)
        if view.profile is not None:  # the page says it too (job.html.j2)
            warn_calibration(view.profile, strict)
        diag = diagnose_view(
            view, lambda p: build_cluster(p, nodes, cluster, local), resamples=resamples
        )
        from mrtune.report import job_context

        ctx = job_context(
            diag,
            trials=trials,
            resamples=resamples,
            include_low_confidence=include_low_confidence,
        )
        from mrtune.report import environment

        html = environment().get_template("job.html.j2").render(**ctx)
    try:
        output.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", path=str(output)) from None
    summary = {
        "output": str(output),
        "job_id": view.job_id,
        "bytes": len(html.encode("utf-8")),
        "severity": diag.severity.label,
        "recommended": bool(ctx.get("modelled")),
        "properties": ctx.get("properties", {}),
        "confidence": ctx.get("confidence", {}).get("label"),
        "calibration": ctx.get("calibration"),
    }
    if fmt == OutputFormat.json:
        emit_json(summary)
        return
    note = "" if ctx.get("modelled") else " (partial: no profile, nothing recommended)"
    console.print(
        f"wrote {escape(str(output))} ({summary['bytes'] / 1024:,.0f} KiB) for "
        f"{escape(view.job_id)}{note}",
        highlight=False,
    )
    if len(views) > 1 and job is None:
        console.print(
            f"[dim]{len(views)} jobs in {escape(str(source))}; reported {escape(view.job_id)} "
            "(choose with --job)[/]",
            highlight=False,
        )
