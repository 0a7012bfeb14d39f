"""``mrtune diagnose``: Dr. Elephant's MapReduce heuristics, each priced by the what-if model."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

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

app = typer.Typer()

#: resamples of the observed tasks per job when ``--resamples`` is not given
ONE_JOB_RESAMPLES = 100
CATALOG_RESAMPLES = 20


def _sev(sev: Any) -> str:
    from mrtune.diagnose.text import STYLE

    return f"[{STYLE[sev]}]{sev.label}[/]"


def _refuse_failed_calibrations(diags: list[Any]) -> None:
    """``--strict``: a job whose calibration failed is an error (exit 2), as in ``optimize``;
    one job says its check, a catalog lists the jobs."""
    failed = [d.view for d in diags if getattr(d.view.profile, "calibration_failed", False)]
    if len(diags) == 1 and failed:
        warn_calibration(failed[0].profile, strict=True)
    if failed:
        from mrtune.errors import InputError

        ids = ", ".join(v.job_id for v in failed[:5]) + (" …" if len(failed) > 5 else "")
        raise InputError(
            f"{len(failed)} of the {len(diags)} jobs' calibrations failed: {ids} (--strict)"
        )


def _header(d: Any) -> None:
    v = d.view
    name = f" · {escape(v.job_name)}" if v.job_name else ""
    from mrtune.diagnose._core import plural

    console.print(
        f"[bold]{escape(v.job_id)}[/]{name} · {v.status} · {plural(len(v.side('map')), 'map')}, "
        f"{plural(len(v.side('reduce')), 'reduce')} · worst: {_sev(d.severity)}",
        highlight=False,
    )
    if v.cluster_note:
        console.print(f"[dim]priced on: {escape(v.cluster_note)}[/]", highlight=False)
    if v.problem:
        console.print(
            f"[yellow]partial diagnosis[/] (no profile, nothing priced): {escape(v.problem)}",
            highlight=False,
        )
    if v.profile is not None:  # the prices rest on this profile's fitted model
        warn_calibration(v.profile)


def render_job(d: Any, show_all: bool) -> None:
    """One job: the findings table, then evidence and fixes of the findings that matter."""
    from mrtune.diagnose import Severity
    from mrtune.diagnose.text import price_text, settings_text

    _header(d)
    t = Table(title="Findings", title_justify="left", expand=False, pad_edge=False)
    t.add_column("severity", no_wrap=True)
    t.add_column("heuristic", overflow="fold", ratio=2)
    t.add_column("finding", overflow="fold", ratio=4)
    t.add_column("price (what-if)", overflow="fold", ratio=3)
    skipped = []
    for f in d.findings:
        if not f.computable:
            skipped.append(f)
            continue
        t.add_row(_sev(f.severity), f.name, escape(f.summary), escape(price_text(f.price)))
    console.print(t)
    if skipped:
        console.print(
            "[dim]not computed: "
            + escape(
                "; ".join(
                    f"{f.name} ({f.summary.removeprefix('not computed: ')})" for f in skipped
                )
            )
            + "[/]",
            highlight=False,
        )
    for f in d.findings:
        if not f.computable or (f.severity == Severity.NONE and not show_all):
            continue
        console.print(
            f"\n{_sev(f.severity)} [bold]{f.name}[/]: {escape(f.summary)}", highlight=False
        )
        for k, v in f.evidence.items():
            console.print(f"  {escape(k)}: {escape(v)}", highlight=False)
        console.print(
            f"  [dim]thresholds ({escape(f.source)}): {escape(f.thresholds)}[/]", highlight=False
        )
        if f.price is not None:
            fix = settings_text(f.price)
            if fix:
                console.print(f"  fix: [cyan]{escape(fix)}[/]", highlight=False)
            console.print(f"  price: {escape(price_text(f.price))}", highlight=False)
            if f.price.interval_method and f.price.interval:
                console.print(
                    f"  [dim]interval: {escape(f.price.interval_method)}[/]", highlight=False
                )
            if f.price.note:
                console.print(f"  [dim]{escape(f.price.note)}[/]", highlight=False)
    if not show_all:
        console.print(
            "\n[dim]--all shows the evidence of every finding; --format json all of it[/]"
        )


def render_catalog(diags: list[Any], unreadable: list[tuple[str, str]]) -> None:
    """Jobs × findings: one severity letter per heuristic (legend below), and the best saving."""
    from mrtune.diagnose import CODES, Severity
    from mrtune.diagnose.text import STYLE, amount

    letters = {
        Severity.NONE: "·",
        Severity.LOW: "L",
        Severity.MODERATE: "M",
        Severity.SEVERE: "S",
        Severity.CRITICAL: "C",
    }
    t = Table(
        title=f"{len(diags)} jobs × findings (severity per heuristic)",
        title_justify="left",
        box=None,
        padding=(0, 0),
        pad_edge=False,
    )
    ids = [d.view.job_id for d in diags]
    shown, prefix = _short_ids(ids)
    t.add_column("job", overflow="fold", min_width=14, max_width=20)
    for code in CODES.values():
        t.add_column(code, justify="center", width=4, no_wrap=True)
    for d in diags:
        cells = []
        for f in d.findings:
            cells.append(
                f"[{STYLE[f.severity]}]{letters[f.severity]}[/]" if f.computable else "[dim]-[/]"
            )
        t.add_row(escape(shown[d.view.job_id]), *cells)
    console.print(t)
    if prefix:
        console.print(f"[dim]job ids: {escape(prefix)}… (the part shown after …)[/]")
    console.print(
        "[dim]· none  L low  M moderate  S severe  C critical  - not computed[/]", highlight=False
    )
    from mrtune.diagnose import HEURISTICS

    names = {}
    for d in diags[:1]:
        names = {f.key: f.name for f in d.findings}
    legend = ", ".join(f"{CODES[k]} {names.get(k, k)}" for k, _ in HEURISTICS)
    console.print(f"[dim]{escape(legend)}[/]", highlight=False)
    best = []
    for d in diags:
        priced = [f for f in d.findings if f.price and f.price.settings and f.price.unit == "ms"]
        if priced:
            f = max(priced, key=lambda f: f.price.saving)
            best.append((f.price.saving, d.view.job_id, f))
    if best:
        s = Table(title="Largest priced saving per job (job time)", title_justify="left")
        s.add_column("job", overflow="fold", ratio=2)
        s.add_column("finding", overflow="fold", ratio=2)
        s.add_column("saving", justify="right", no_wrap=True)
        s.add_column("settings", overflow="fold", ratio=3)
        for saving, job, f in sorted(best, key=lambda x: -x[0])[:15]:
            fix = ", ".join(f"{k}={v}" for k, v in f.price.settings.items())
            s.add_row(escape(job), f.name, amount(saving, "ms"), escape(fix))
        console.print(s)
    failed = [d.view for d in diags if getattr(d.view.profile, "calibration_failed", False)]
    if failed:
        console.print(
            f"[bold yellow]warning:[/] {len(failed)} of the {len(diags)} jobs' calibrations "
            f"failed (their prices rest on a model that misses the job's own run): "
            f"{escape(', '.join(v.job_id for v in failed[:5]))}"
            + (" …" if len(failed) > 5 else "")
            + " (--format json: each job's calibration)",
            highlight=False,
        )
    for path, why in unreadable:
        console.print(f"[yellow]unreadable[/] {escape(path)}: {escape(why)}", highlight=False)


def _progress(total: int, label: str):  # noqa: ANN202 - a rich Progress
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        TextColumn(label),
        BarColumn(bar_width=24),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )


def collect(
    path: Path, conf: Path | None, cluster_for: Any, resamples: int | None
) -> tuple[list[Any], list[tuple[str, str]], bool]:
    """Diagnoses of every job at ``path``, unreadable catalog files, and whether it is a catalog."""
    from mrtune.diagnose import diagnose_view, is_catalog, iter_catalog, load_jobs

    if is_catalog(path):
        files = list(iter_catalog(path))
        if not files:  # "0 jobs" with exit 0 read as a clean bill; batch refuses it too
            from mrtune.errors import InputError

            raise InputError(
                "an empty directory"
                if not any(path.iterdir())
                else "no job file in this directory (searched recursively)",
                path=str(path),
                allowed=".jhist (+ _conf.xml), Rumen traces (.json, .json.gz), profile .json, "
                "run records .jsonl, saved JobHistory REST directories",
            )
        views = [v for _, r in files if not isinstance(r, str) for v in r]
        bad = [(str(f), r) for f, r in files if isinstance(r, str)]
        n = CATALOG_RESAMPLES if resamples is None else resamples
        diags = []
        with _progress(len(views), "diagnosing") as bar:
            task = bar.add_task("jobs", total=len(views))
            for v in views:
                diags.append(diagnose_view(v, cluster_for, resamples=n))
                bar.advance(task)
        return diags, bad, True
    views = load_jobs(path, conf)
    many = len(views) > 1
    n = (CATALOG_RESAMPLES if many else ONE_JOB_RESAMPLES) if resamples is None else resamples
    diags = []
    with _progress(n, "pricing (bootstrap)") as bar:
        task = bar.add_task("resamples", total=max(n, 1) * len(views))
        done = [0]

        def tick(i: int, total: int) -> None:
            bar.update(task, completed=done[0] + i)

        for v in views:
            diags.append(diagnose_view(v, cluster_for, resamples=n, progress=tick))
            done[0] += n
            bar.update(task, completed=done[0])
    return diags, [], many


@app.command("diagnose")
@cli_errors
def diagnose_cmd(
    source: Path = typer.Argument(
        ...,
        help="A job history (.jhist, REST JSON or directory, Rumen trace), a profile JSON, run "
        "records (.jsonl of `mrtune hadoop-run`), or a catalog directory.",
    ),
    show_all: bool = typer.Option(
        False, "--all", help="Evidence of every finding, not only the bad."
    ),
    resamples: int | None = typer.Option(
        None,
        "--resamples",
        min=0,
        help=f"Bootstrap resamples of the observed tasks for each price's interval (default "
        f"{ONE_JOB_RESAMPLES} for one job, {CATALOG_RESAMPLES} per job of a catalog; 0: none).",
    ),
    nodes: int | None = NodesOpt,
    cluster: Path | None = ClusterOpt,
    local: bool = LocalOpt,
    conf: Path | None = ConfOpt,
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
    strict: bool = strict_option(),
) -> None:
    """Diagnose jobs with Dr. Elephant's heuristics, each finding priced by the what-if model."""

    def cluster_for(profile: Any) -> Any:
        return build_cluster(profile, nodes, cluster, local)

    diags, bad, catalog = collect(source, conf, cluster_for, resamples)
    if strict:
        _refuse_failed_calibrations(diags)
    if fmt == OutputFormat.json:
        if len(diags) == 1 and diags[0].view.profile is not None:
            warn_calibration(diags[0].view.profile)  # and in the JSON: "calibration"
        out: dict[str, Any] = {"source": str(source), "jobs": [d.to_json() for d in diags]}
        if catalog:
            out["unreadable"] = [{"file": f, "reason": r} for f, r in bad]
        emit_json(out if catalog else (out["jobs"][0] if len(diags) == 1 else out))
        return
    if catalog or len(diags) > 1:
        render_catalog(diags, bad)
        return
    render_job(diags[0], show_all)


def _short_ids(ids: list[str]) -> tuple[dict[str, str], str]:
    """Job ids without the prefix they all share up to an ``_`` (their cluster's start time:
    ``job_1369942127770_1205`` is ``…_1205``), so a catalog's ids fit the 80-column table;
    and that prefix (empty when there is none to drop)."""
    common = os.path.commonprefix(ids) if len(set(ids)) > 1 else ""
    cut = common.rfind("_")
    if cut <= 4:
        return {i: i for i in ids}, ""
    return {i: "…" + i[cut:] for i in ids}, common[:cut]
