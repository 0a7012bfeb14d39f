"""Self-contained HTML reports: one job (profile, diagnosis, breakdown, sweeps, timeline,
recommendation with its confidence, the ``mapred-site.xml`` to copy) or one batch catalog.

Jinja2 templates (package data, ``templates/*.j2``) with autoescaping; plots are inline SVG
(:mod:`mrtune.report.plots`); the only script is the page's own (sortable tables, copy
button), inline. Nothing is fetched when the page opens, so it reads offline.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from mrtune.diagnose import Diagnosis

#: bootstrap resamples behind the recommendation's confidence
CONFIDENCE_RESAMPLES = 100


def environment() -> Any:
    """The Jinja2 environment of the report templates (autoescaped HTML)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("mrtune.report", "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["svg"] = lambda text: jinja2.utils.markupsafe.Markup(text)
    return env


def recommendation_xml(rec: Any, hadoop_version: int) -> tuple[dict[str, str], str]:
    """The properties and the ``mapred-site.xml`` exactly as ``mrtune optimize -o`` writes them."""
    from mrtune.optimizer.outputs import NameStyle, mapred_site_xml, rename
    from mrtune.optimizer.units import format_ms

    names = NameStyle.hadoop1 if hadoop_version == 1 else NameStyle.hadoop2
    props = rename(rec.properties, names)
    xml = mapred_site_xml(
        props,
        rename(rec.reasons(), names),
        header=f"mrtune recommendation for {rec.job_id}: predicted "
        f"{format_ms(rec.current['job_ms'])} -> {format_ms(rec.recommended['job_ms'])}",
    )
    return props, xml


def written(rec: Any, v: Any) -> dict[str, Any]:
    """What the report gives to copy, as ``mrtune optimize -o`` writes it: the properties and
    the ``mapred-site.xml`` of the recommendation (low-confidence changes withheld, a far
    optimum shown as an option), after the same lint pass; a lint error leaves nothing to
    copy (issue 14, items 4 and 7)."""
    from mrtune.optimizer.lint import lint_config

    props, xml = recommendation_xml(rec, v.config.hadoop_version)
    lint = lint_config(
        v.profile, rec.config, v.cluster, base=v.config, emitted=set(rec.properties)
    )
    if lint.errors:
        props, xml = {}, ""
    return {
        "properties": props,
        "xml": xml,
        "lint": [f.line() for f in lint.findings if f.emitted],
        "lint_errors": [f.line() for f in lint.errors],
        "withheld": rec.withheld,
        "far_option": rec.far_option,
    }


def job_context(
    diag: Diagnosis,
    *,
    trials: int | None = None,
    seed: int = 0,
    resamples: int = CONFIDENCE_RESAMPLES,
    include_low_confidence: bool = False,
) -> dict[str, Any]:
    """Everything the job template shows (the recommendation is searched here, as
    ``mrtune optimize`` searches it: low-confidence changes and a far optimum are withheld from
    the file to copy unless ``include_low_confidence``, its ``--include-low-confidence``)."""
    from mrtune.optimizer.objective import ObjectiveKind
    from mrtune.optimizer.recommend import recommend
    from mrtune.optimizer.units import format_ms
    from mrtune.optimizer.whatif_summary import MAP_PHASES, REDUCE_PHASES
    from mrtune.report import job, plots

    v = diag.view
    ctx: dict[str, Any] = {
        "title": f"mrtune report · {v.job_id}",
        "generated": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "view": v,
        "severity": diag.severity.label,
        "findings": job.finding_rows(diag),
        "profile_rows": job.profile_rows(diag),
        "modelled": False,
    }
    if v.profile is None or v.config is None or v.cluster is None:
        return ctx
    rec = recommend(
        v.profile,
        v.config,
        v.cluster,
        n_trials=trials,
        seed=seed,
        local_mode_honoured=bool(v.cluster.local_mode),
        objective=ObjectiveKind.robust,  # optimize's default: the trust rule, the region
        include_low_confidence=include_low_confidence,
    )
    ctx.update(written(rec, v))
    ctx["calibration"] = rec.calibration  # shown above the recommendation when it failed
    from mrtune.costmodel.scheduler import simulate_schedule

    schedule = simulate_schedule(v.profile, rec.config, v.cluster)
    ctx.update(
        modelled=True,
        rec=rec,
        times=[
            (
                label,
                format_ms(s["job_ms"]),
                f"{s['job_ms']:.3f}",
                f"{s['container_gb_s']:,.1f} GB·s",
                f"{s['container_gb_s']:.4f}",
            )
            for label, s in (
                ("current", rec.current),
                ("recommended", rec.recommended),
                ("Hadoop defaults", rec.defaults),
            )
        ],
        changes=rec.changes,
        confidence=job.confidence(diag, rec, resamples, seed),
        breakdown_svg=plots.breakdown(rec.current, rec.recommended, MAP_PHASES, REDUCE_PHASES),
        phase_rows=job.phase_table(rec.current, rec.recommended),
        sweeps=job.sweeps(diag),
        timeline_svg=plots.timeline(v.tasks, schedule, "simulated, recommended configuration"),
    )
    return ctx


def render_job(diag: Diagnosis, **kwargs: Any) -> str:
    """The job report as one HTML string."""
    return environment().get_template("job.html.j2").render(**job_context(diag, **kwargs))


def render_batch(outdir: Any) -> str:
    """The catalog report of a ``mrtune batch`` output directory (see :mod:`.batch`)."""
    from mrtune.report.batch import batch_context

    return environment().get_template("batch.html.j2").render(**batch_context(outdir))


__all__ = ["environment", "job_context", "recommendation_xml", "render_batch", "render_job"]
