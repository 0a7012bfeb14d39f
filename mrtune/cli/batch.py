"""``mrtune batch``: tune a catalog of jobs, locally or on a Dask cluster, resumably."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from mrtune.cli._batch_options import (
    BASE_PROFILE_OPT,
    CATALOG_ARG,
    DB_OPT,
    FMT_OPT,
    HADOOP_VERSION_OPT,
    HTML_OPT,
    INCLUDE_LOW_OPT,
    NODES_OPT,
    OBJECTIVE_OPT,
    OUTDIR_OPT,
    OUTPUT_COMPRESSION_OPT,
    OVERWRITE_OPT,
    PLOTS_OPT,
    RESUME_OPT,
    SCHEDULER_OPT,
    STRICT_OPT,
    WORKERS_OPT,
)
from mrtune.cli._optimize_options import ALLOW_NATIVE_CODECS_OPT, CODECS_OPT
from mrtune.cli.console import OutputFormat, cli_errors, console, emit_json, err_console
from mrtune.cli.whatif import short_value
from mrtune.errors import InputError


class RateColumn(ProgressColumn):
    """Jobs per second (rich's own speed column is for bytes)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- jobs/s" if speed is None else f"{speed:,.1f} jobs/s", style="cyan")


class _Bar:
    """A rich progress bar per stage: jobs done / total, rate, elapsed, ETA.

    Started at the first stage, not on entry: a progress display stopped without a task
    still printed its empty line, so an error found before any job ran (an empty catalog, a
    ``--resume`` mismatch) came after a blank line on stderr."""

    def __init__(self, enabled: bool) -> None:
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=err_console,
            disable=not enabled,
            transient=False,
        )
        self.tasks: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.tasks:
            self.progress.start()
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(stage, total=total)
        self.progress.update(self.tasks[stage], completed=done, total=total)

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.tasks:
            self.progress.stop()


def _note(line: str) -> None:
    """A catalog file batch skipped, why, and how to include it: one note on stderr."""
    err_console.print(f"note: {line}", highlight=False, markup=False)


def _load_base_profile(path: Path | None) -> str | None:
    if path is None:
        return None
    from pydantic import ValidationError

    from mrtune.costmodel import JobProfile

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    try:
        # Observed task timings are not used for SWIM rows and would travel with every chunk.
        profile = JobProfile.model_validate_json(text)
        return profile.model_dump_json(exclude={"observed"})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InputError(
            first["msg"],
            path=str(path),
            field=".".join(map(str, first["loc"])) or "--base-profile",
            value=first.get("input") if first["type"] != "json_invalid" else None,
            allowed="a JobProfile JSON (mrtune profile -o profile.json)",
        ) from None


def _render_evidence(s: dict[str, Any]) -> None:
    """What the summary's gains rest on: failed calibrations, defaulted factors, and how many
    changed jobs keep a gain at the p10 of their interval."""
    if s.get("calibration_failed"):
        console.print(
            f"[bold yellow]warning:[/] {s['calibration_failed']:,} tuned job(s) have a "
            "calibration that misses their own run: their predictions rest on it (jobs.csv: "
            "calibration; jobs.jsonl: the reason)"
        )
    basis = s.get("changed_by_basis", {})
    if basis.get("defaulted"):
        console.print(
            f"[yellow]{basis['defaulted']:,} of the {s['changed']:,} jobs with changes rest on "
            "defaulted cost factors only[/] (no time measured: SWIM rows, profiles without "
            "timing): their gains are the model's at prior costs, not findings (jobs.csv: "
            "basis)"
        )
    by_iv = s.get("changed_by_interval", {})
    if by_iv.get("holds") or by_iv.get("could_vanish"):
        console.print(
            f"gain intervals (p10-p90, jobs.csv: gain_p10_p90): {by_iv.get('holds', 0):,} "
            f"gain at p10, [yellow]{by_iv.get('could_vanish', 0):,} could lose the gain[/] "
            "within the evidence (for SWIM rows: the priors' ranges)"
        )
    held = s.get("withheld_by_rule", {})
    if held.get("gain_within_noise"):
        console.print(
            f"[yellow]{held['gain_within_noise']:,} job(s) keep their configuration[/]: their "
            "gain could vanish within the evidence and the run-to-run noise (jobs.csv: "
            "withheld; --include-low-confidence writes them)"
        )


def render(report: Any, where: str = "") -> None:
    s = report.summary
    console.print(
        f"[bold]{s['jobs']:,}[/] jobs · [green]{s['tuned']:,} tuned[/] · "
        f"{s.get('skipped', 0):,} skipped · "
        f"[red]{s['failed']:,} failed[/] · {s['changed']:,} with changes · "
        f"{report.computed:,} computed, {report.reused:,} reused · {report.wall_s:.1f} s · "
        f"{report.executor}"
    )
    if where:
        console.print(f"cluster: {where}", highlight=False)
    _render_evidence(s)
    unit = s["settings_unit"]
    console.print(
        f"predicted job time: {s['predicted_hours_current']:,.2f} h → "
        f"[bold]{s['predicted_hours_recommended']:,.2f} h[/] "
        f"(saved [bold]{s['predicted_hours_saved']:,.2f} h[/]); container GB·s "
        f"{s['container_gb_s_current']:,.0f} → {s['container_gb_s_recommended']:,.0f}"
    )
    t = Table(
        title=f"Settings that matter most (saving in {unit}, summed over jobs)",
        box=box.SIMPLE_HEAD,  # at 80 columns the boxed table folded values and headers
        pad_edge=False,
    )
    t.add_column("setting", no_wrap=True)
    t.add_column("jobs", justify="right", no_wrap=True, min_width=4)
    t.add_column("saving", justify="right", no_wrap=True)
    t.add_column("value", no_wrap=True, overflow="ellipsis")
    key = "saving_gb_s" if unit == "GB·s" else "saving_hours"
    for row in s["settings_that_matter"][:10]:
        t.add_row(
            row["setting"],
            f"{row['jobs_changed']:,}",
            f"{row[key]:,.3g}",
            short_value(row["most_common_value"]),
        )
    console.print(t)
    cw = s.get("cluster_wide")
    if cw:
        ct = Table(title="Cluster-wide mapred-site.xml")
        ct.add_column("property", no_wrap=True)
        ct.add_column("value")
        for k, v in cw["properties"].items():
            ct.add_row(k, short_value(v))
        if cw["properties"]:
            console.print(ct)
        else:
            console.print("cluster-wide: no setting gains 1% of the catalog's total; none changed")
        for name, cap in (cw.get("caps") or {}).items():
            if name in cw["settings"] and float(cw["settings"][name]) >= cap["cap"]:
                console.print(
                    f"  {name} held at its cap, {cap['cap']:g}: job {escape(str(cap['job']))}'s "
                    "map heap (jobs.jsonl: limits)"
                )
        totals = [(k, v) for k, v in cw.items() if k.startswith("total_")]
        for k, v in totals:
            console.print(f"  {k.replace('_', ' ')}: {v:,.2f}")
    for what in ("failed", "skipped"):
        by_reason = s.get(f"{what}_by_reason") or {}
        if by_reason:
            rt = Table(title=f"Jobs {what}, by reason")
            rt.add_column("jobs", justify="right")
            rt.add_column("reason", overflow="fold")
            for reason, count in list(by_reason.items())[:10]:
                rt.add_row(f"{count:,}", escape(reason))
            console.print(rt)
    if s["failures"]:
        ft = Table(title=f"Failed jobs ({len(s['failures'])})")
        ft.add_column("job")
        ft.add_column("reason")
        for f in s["failures"][:10]:
            ft.add_row(escape(f["job_id"] or Path(f["key"]).name), escape(f["reason"]))
        console.print(ft)
        if len(s["failures"]) > 10:
            console.print(f"  … {len(s['failures']) - 10} more in summary.json")
    console.print("wrote " + ", ".join(str(p) for p in report.files.values()))


app = typer.Typer()


@app.command("batch")
@cli_errors
def batch_cmd(
    catalog: list[Path] = CATALOG_ARG,
    outdir: Path = OUTDIR_OPT,
    workers: int | None = WORKERS_OPT,
    scheduler: str | None = SCHEDULER_OPT,
    objective: str = OBJECTIVE_OPT,
    resume: bool = RESUME_OPT,
    overwrite: bool = OVERWRITE_OPT,
    base_profile: Path | None = BASE_PROFILE_OPT,
    nodes: int = NODES_OPT,
    codecs: str | None = CODECS_OPT,
    allow_native_codecs: bool = ALLOW_NATIVE_CODECS_OPT,
    hadoop_version: str | None = HADOOP_VERSION_OPT,
    output_compression: bool = OUTPUT_COMPRESSION_OPT,
    include_low_confidence: bool = INCLUDE_LOW_OPT,
    strict: bool = STRICT_OPT,
    db: Path | None = DB_OPT,
    plots: bool = PLOTS_OPT,
    html: bool = HTML_OPT,
    fmt: OutputFormat = FMT_OPT,
) -> None:
    """Tune every job of a catalog: per-job recommendations and one cluster-wide file."""
    from mrtune.costmodel import ClusterSpec
    from mrtune.optimizer.batch import BatchSettings, run_batch

    _check_options(objective, workers, scheduler, outdir)
    settings = BatchSettings(
        cluster=ClusterSpec(num_nodes=nodes),
        objective=objective,
        base_profile_json=_load_base_profile(base_profile),
        codecs=codecs,
        allow_native_codecs=allow_native_codecs,
        hadoop_version=_release(hadoop_version),
        cluster_output_compression=output_compression,
        include_low_confidence=include_low_confidence,
        strict=strict,
    )
    settings.cluster_facts()  # an unknown --codecs entry is refused before any job is read
    try:
        with _Bar(enabled=fmt == OutputFormat.text) as bar:
            report = run_batch(
                catalog,
                outdir,
                settings,
                workers=workers,
                scheduler=scheduler,
                resume=resume,
                overwrite=overwrite,
                db_path=db,
                progress=bar,
                plots=plots,
                note=_note,
            )
    except KeyboardInterrupt:
        err_console.print(
            "[bold yellow]interrupted[/]: finished jobs are stored in "
            f"{db or outdir / 'batch.sqlite'}; run the same command with --resume to continue"
        )
        raise typer.Exit(130) from None
    if html:
        from mrtune.report import render_batch

        report.files["report"] = outdir / "report.html"
        report.files["report"].write_text(render_batch(outdir), encoding="utf-8")
    spec = settings.cluster
    where = (
        f"{spec.num_nodes:,} nodes × {spec.node_memory_mb:,} MB, {spec.node_vcores} vcores "
        "(--nodes; a catalog row records no cluster: every job is priced on this one)"
    )
    if fmt == OutputFormat.json:
        _emit_report_json(report, {"origin": where, **spec.model_dump()})
    else:
        render(report, where)
    if not report.summary["tuned"]:
        raise InputError(
            "no job could be tuned, so no cluster-wide mapred-site.xml was written ("
            + _reasons_line(report.summary)
            + f"); per-job reasons in {report.outdir / 'jobs.csv'}",
            path=", ".join(map(str, catalog)),
        )


def _check_options(
    objective: str, workers: int | None, scheduler: str | None, outdir: Path
) -> None:
    """Refuse, before any job is read, an unknown objective, a local pool and a Dask
    scheduler given together, and an output directory that is a file."""
    if objective not in {"time", "resources"}:
        raise InputError(
            "unknown objective",
            field="--objective",
            value=objective,
            allowed="time, resources",
        )
    if workers is not None and scheduler:
        raise InputError(
            "give either --workers (local pool) or --scheduler (Dask), not both",
            field="--workers/--scheduler",
        )
    if outdir.exists() and not outdir.is_dir():
        raise InputError(
            "is a file, not a directory",
            path=str(outdir),
            field="-o/--outdir",
            allowed="a directory (created if it does not exist)",
        )


def _release(raw: str | None) -> str | None:
    """``--hadoop-version``: a release of Hadoop 1, 2 or 3 (``major.minor[.patch]``)."""
    if raw is None:
        return None
    import re

    text = raw.strip()
    if not re.fullmatch(r"[123]\.\d+(\.\d+)?", text):
        raise InputError(
            "not a Hadoop release",
            field="--hadoop-version",
            value=raw,
            allowed="major.minor[.patch] of Hadoop 1, 2 or 3, e.g. 1.2.1, 2.7.3, 3.3.6",
        )
    return text


def _emit_report_json(report: Any, cluster: dict[str, Any]) -> None:
    """The ``--format json`` document: the batch summary with how it was computed and the
    cluster every job was priced on."""
    data = dict(report.summary)
    data["cluster"] = cluster
    data.update(
        computed=report.computed,
        reused=report.reused,
        wall_s=report.wall_s,
        executor=report.executor,
        db=str(report.db_path),
    )
    emit_json(data)


def _reasons_line(s: dict[str, Any]) -> str:
    """``N failed: k × reason, …; M skipped: …`` (the three most frequent reasons each)."""
    parts = []
    for what in ("failed", "skipped"):
        by_reason = s.get(f"{what}_by_reason") or {}
        if s.get(what):
            top = ", ".join(f"{n:,} × {r}" for r, n in list(by_reason.items())[:3])
            parts.append(f"{s[what]:,} {what}: {top}" if top else f"{s[what]:,} {what}")
    return "; ".join(parts) or "the catalog has no jobs"
