"""``mrtune optimize``: the configuration of lowest predicted cost, explained, ready to paste."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from mrtune.cli._inputs import (
    ClusterOpt,
    ConfOpt,
    InputSizeOpt,
    LocalOpt,
    NodesOpt,
    ProfileArg,
    build_cluster,
    load_job,
    with_input_size,
)
from mrtune.cli.console import (
    OutputFormat,
    cli_errors,
    console,
    emit_json,
    strict_option,
    warn_calibration,
)
from mrtune.cli.whatif import short_value
from mrtune.errors import InputError
from mrtune.optimizer.objective import ObjectiveKind
from mrtune.optimizer.outputs import (
    NameStyle,
    d_flags,
    hive_set_lines,
    mapred_site_xml,
    pig_set_lines,
    rename,
)
from mrtune.optimizer.recommend import Recommendation, recommend
from mrtune.optimizer.strategies import DEFAULT_STRATEGY, STRATEGIES
from mrtune.optimizer.units import format_ms

DEFAULT_STORAGE = "sqlite:///mrtune-studies.db"


def render(rec: Recommendation, where: str, names: NameStyle) -> None:
    console.print(f"job {rec.job_id} · cluster: {where}")
    console.print(
        f"strategy [bold]{rec.strategy}[/] · objective {rec.objective} · "
        f"{rec.search.n_evaluations:,} configurations evaluated in {rec.search.wall_time_s:.2f} s"
    )
    t = Table(title="Predicted job time")
    t.add_column("")
    t.add_column("job time", justify="right")
    t.add_column("container GB·s", justify="right")
    for label, s in (
        ("current", rec.current),
        ("recommended", rec.recommended),
        ("Hadoop defaults", rec.defaults),
    ):
        t.add_row(label, format_ms(s["job_ms"]), f"{s['container_gb_s']:,.1f}")
    console.print(t)
    if rec.no_change:
        console.print(
            "[bold green]no change recommended[/]: no setting gains 1% or more over the "
            "current configuration"
        )
        return
    console.print(
        f"gain: [bold]{rec.gain_vs_current:.1%}[/] vs current, "
        f"{rec.gain_vs_defaults:.1%} vs Hadoop defaults"
    )
    console.print("[bold]Changes[/] (each gain measured by reverting that change alone):")
    for c in rec.changes:
        console.print(
            f"  • [cyan]{c.name}[/] {short_value(c.current)} → [bold]{short_value(c.recommended)}"
            f"[/]  [green]{c.gain_fraction:.1%}[/]",
            highlight=False,
        )
        console.print(f"      {', '.join(c.effects)}", highlight=False, style="dim")
    console.print("[dim]-D flags:[/]")
    console.print(d_flags(rename(rec.properties, names)), soft_wrap=True, highlight=False)


app = typer.Typer()


@app.command("optimize")
@cli_errors
def optimize_cmd(
    profile: Path = ProfileArg,
    strategy: str = typer.Option(
        DEFAULT_STRATEGY, "--strategy", help=f"One of: {', '.join(STRATEGIES)}."
    ),
    trials: int | None = typer.Option(
        None,
        "--trials",
        min=1,
        help="Search budget (trials); default: the strategy's own (tpe 32, de 3000, …).",
    ),
    objective: ObjectiveKind = typer.Option(
        ObjectiveKind.time, "--objective", help="time, resources (GB·s) or pareto"
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of every random choice."),
    storage: str = typer.Option(
        DEFAULT_STORAGE,
        "--storage",
        help="Optuna storage for the study: SQLite file or any SQLAlchemy URL; 'none' keeps "
        "it in memory.",
    ),
    study_name: str | None = typer.Option(None, "--study-name", help="Stored study name."),
    resume: bool = typer.Option(False, "--resume", help="Continue the stored study."),
    allow_memory: bool = typer.Option(
        False, "--allow-memory", help="Also tune container memory (map/reduce memory.mb)."
    ),
    only: list[str] = typer.Option([], "--only", help="Tune only these settings."),
    exclude: list[str] = typer.Option([], "--exclude", help="Never change these settings."),
    output: Path | None = typer.Option(
        None, "-o", "--output", help="Write the changed properties as mapred-site.xml."
    ),
    emit: str = typer.Option(
        "xml", "--emit", help="What -o writes: xml, flags, hive, pig or json."
    ),
    names: NameStyle | None = typer.Option(
        None,
        "--names",
        help="Property names: hadoop2 or hadoop1 (0.20); default: the job's Hadoop version.",
    ),
    input_size: str | None = InputSizeOpt,
    nodes: int | None = NodesOpt,
    cluster: Path | None = ClusterOpt,
    local: bool = LocalOpt,
    conf: Path | None = ConfOpt,
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
    strict: bool = strict_option(),
) -> None:
    """Recommend the configuration that minimises the job's predicted time (or resources)."""
    if strategy not in STRATEGIES:
        raise InputError(
            "unknown strategy",
            field="--strategy",
            value=strategy,
            allowed=", ".join(STRATEGIES),
        )
    if emit not in {"xml", "flags", "hive", "pig", "json"}:
        raise InputError(
            "unknown output kind",
            field="--emit",
            value=emit,
            allowed="xml, flags, hive, pig, json",
        )
    if objective == ObjectiveKind.pareto and not STRATEGIES[strategy].multi_objective:
        strategy = "nsga2"
    prof, base = load_job(profile, conf)
    warn_calibration(prof, strict)
    prof = with_input_size(prof, input_size)
    spec, where = build_cluster(prof, nodes, cluster, local)
    store = None if storage.lower() == "none" or not STRATEGIES[strategy].uses_storage else storage
    if store and "://" not in store:
        store = f"sqlite:///{store}"
    try:
        rec = recommend(
            prof,
            base,
            spec,
            strategy=strategy,
            objective=objective,
            n_trials=trials,
            seed=seed,
            storage=store,
            # no name: mrtune-<job>-<strategy>-<objective>, with the next free -2, -3 …
            # suffix when a study of that name is already stored (re-runs never fail)
            study_name=study_name,
            resume=resume,
            allow_memory=allow_memory,
            only=only or None,
            exclude=exclude,
            local_mode_honoured=local,
        )
    except KeyError as exc:
        raise InputError(str(exc.args[0]), field="--only/--exclude") from None
    except ValueError as exc:
        if "study" not in str(exc):
            raise
        msg = str(exc).replace("pass resume=True", "use --resume")
        raise InputError(msg, field="--study-name", value=study_name) from None
    if names is None:
        names = NameStyle.hadoop1 if base.hadoop_version == 1 else NameStyle.hadoop2
    props = rename(rec.properties, names)
    if output is not None:
        reasons = rename(rec.reasons(), names)
        text = {
            "xml": lambda: mapred_site_xml(
                props,
                reasons,
                header=f"mrtune recommendation for {rec.job_id}: predicted "
                f"{format_ms(rec.current['job_ms'])} -> {format_ms(rec.recommended['job_ms'])}",
            ),
            "flags": lambda: d_flags(props) + "\n",
            "hive": lambda: hive_set_lines(props) + "\n",
            "pig": lambda: pig_set_lines(props) + "\n",
            "json": lambda: __import__("json").dumps(rec.to_json(), indent=2) + "\n",
        }[emit]()
        output.write_text(text, encoding="utf-8")
    if fmt == OutputFormat.json:
        data = rec.to_json()
        data["properties"] = props
        data["d_flags"] = d_flags(props)
        data["hive"] = hive_set_lines(props)
        data["pig"] = pig_set_lines(props)
        emit_json(data)
        return
    render(rec, where, names)
    if output is not None:
        console.print(f"wrote {output}")
