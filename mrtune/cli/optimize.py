"""``mrtune optimize``: the configuration of lowest predicted cost, explained, ready to paste."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import JobProfile
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
from mrtune.optimizer.strategies import (
    DEFAULT_PARETO_STRATEGY,
    DEFAULT_STRATEGY,
    STRATEGIES,
    StudyError,
    get_strategy,
    resolve_strategy,
    storing_strategies,
)
from mrtune.optimizer.units import format_ms

#: ``--storage`` values that mean "keep the study in memory" (the default).
IN_MEMORY = {"", "none", "memory", ":memory:"}


def render(rec: Recommendation, where: str, names: NameStyle) -> None:
    console.print(f"job {rec.job_id} · cluster: {where}")
    chosen = "" if rec.strategy_chosen_by == "requested" else f" ({rec.strategy_chosen_by})"
    console.print(
        f"strategy [bold]{rec.strategy}[/]{chosen} · objective {rec.objective} · "
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


def _strategy_settings(
    strategy: str | None,
    objective: ObjectiveKind,
    storage: str | None,
    study_name: str | None,
    resume: bool,
    plot: Path | None,
) -> tuple[str, str | None]:
    """Validate the strategy and its study settings before the job is loaded."""
    try:
        name = resolve_strategy(strategy, str(objective))
    except ValueError as exc:
        raise InputError(str(exc), field="--strategy" if strategy else "--objective") from None
    store = None if storage is None or storage.strip().lower() in IN_MEMORY else storage
    if resume and store is None:
        raise InputError("--resume continues a stored study, so it needs --storage URL")
    try:
        get_strategy(name, storage=store, study_name=study_name, resume=resume)
    except ValueError as exc:
        raise InputError(str(exc), field="--storage") from None
    if plot is not None and name not in storing_strategies():
        raise InputError(
            f"Optuna's plots need an Optuna study, and strategy {name!r} keeps none",
            field="--plot",
            allowed=", ".join(storing_strategies()),
        )
    return name, store


def _write_output(
    rec: Recommendation, props: dict[str, str], names: NameStyle, emit: str, output: Path
) -> None:
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
        "json": lambda: (
            __import__("json").dumps({**rec.to_json(), "properties": props}, indent=2) + "\n"
        ),
    }[emit]()
    output.write_text(text, encoding="utf-8")


@app.command("optimize")
@cli_errors
def optimize_cmd(
    profile: Path = ProfileArg,
    strategy: str | None = typer.Option(
        None,
        "--strategy",
        help=f"One of: {', '.join(STRATEGIES)}. Default: {DEFAULT_STRATEGY}, or "
        f"{DEFAULT_PARETO_STRATEGY} for --objective pareto.",
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
    storage: str | None = typer.Option(
        None,
        "--storage",
        help="Persist the Optuna study: a SQLite file or any SQLAlchemy URL (e.g. "
        "postgresql://…). Default: in memory, nothing written.",
    ),
    study_name: str | None = typer.Option(None, "--study-name", help="Stored study name."),
    resume: bool = typer.Option(False, "--resume", help="Continue the stored study."),
    max_time: str | None = typer.Option(
        None,
        "--max-time",
        help="pareto: recommend the cheapest front point finishing within this (e.g. 5min, "
        "90s); default: the front's knee.",
    ),
    max_resources: str | None = typer.Option(
        None,
        "--max-resources",
        help="pareto: recommend the fastest front point using at most this many container "
        "GB·s (e.g. 200GB·s, 200GBs, 3GB·h).",
    ),
    plot: Path | None = typer.Option(
        None,
        "--plot",
        help="Write Optuna's plots as PREFIX-history.png, PREFIX-importance.png and (pareto) "
        "PREFIX-pareto.png.",
    ),
    allow_memory: bool = typer.Option(
        False, "--allow-memory", help="Also tune container memory (map/reduce memory.mb)."
    ),
    codecs: str | None = typer.Option(
        None,
        "--codecs",
        help="The cluster's codecs (io.compression.codecs: class or short names, commas); "
        "default: the job conf's list.",
    ),
    allow_native_codecs: bool = typer.Option(
        False,
        "--allow-native-codecs",
        help="Also offer codecs that need libhadoop (ZStandard; Snappy/Lz4 before 3.3.1).",
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
    if emit not in {"xml", "flags", "hive", "pig", "json"}:
        raise InputError(
            "unknown output kind",
            field="--emit",
            value=emit,
            allowed="xml, flags, hive, pig, json",
        )
    name, store = _strategy_settings(strategy, objective, storage, study_name, resume, plot)
    limits = _front_limits(objective, max_time, max_resources)
    prof, base = load_job(profile, conf)
    warn_calibration(prof, strict)
    prof = with_input_size(prof, input_size)
    prof = _with_codec_facts(prof, codecs, allow_native_codecs)
    spec, where = build_cluster(prof, nodes, cluster, local)
    with search_status(name, objective) as progress:
        try:
            rec = recommend(
                prof,
                base,
                spec,
                strategy=strategy,  # None: the objective's default, reported in the output
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
                progress=progress,
                **limits,
            )
        except KeyError as exc:
            raise InputError(str(exc.args[0]), field="--only/--exclude") from None
        except StudyError as exc:
            raise InputError(
                str(exc), field="--study-name", value=study_name, allowed="a new name, or --resume"
            ) from None
    if names is None:
        names = NameStyle.hadoop1 if base.hadoop_version == 1 else NameStyle.hadoop2
    props = rename(rec.properties, names)
    report = _lint(rec, prof, base, spec)
    if output is not None:
        _write_output(rec, props, names, emit, output)
    plots = _plots(rec, plot)
    withheld = _withheld_codecs(prof, base, spec, only, exclude)
    if fmt == OutputFormat.json:
        data = rec.to_json()
        data["codecs_withheld"] = withheld
        data["properties"] = props
        data["d_flags"] = d_flags(props)
        data["hive"] = hive_set_lines(props)
        data["pig"] = pig_set_lines(props)
        data["study"] = _study_json(rec, store)
        data["plots"] = [str(p) for p in plots]
        data["lint"] = report.to_json()
        emit_json(data)
        return
    render(rec, where, names)
    _render_front(rec)
    _render_lint(report)
    if withheld:
        console.print(f"[dim]codecs not offered: {'; '.join(withheld)}[/]", highlight=False)
    if store is not None and rec.search.study is not None:
        console.print(
            f"study [cyan]{rec.search.study.study_name}[/] stored in {store}", highlight=False
        )
    for path in plots:
        console.print(f"wrote {path}", highlight=False)
    if output is not None:
        console.print(f"wrote {output}")


def _withheld_codecs(
    prof: JobProfile, base: HadoopConfig, spec: ClusterSpec, only: list[str], exclude: list[str]
) -> list[str]:
    """Codecs the search did not offer and why ("zstd: not shipped before 2.9.0 …"), when
    the search had a codec knob: the same rule :meth:`SearchSpace.for_job` applied."""
    from mrtune.search_spaces.knobs import CODEC_ROLES
    from mrtune.search_spaces.space import SearchSpace

    space = SearchSpace.for_job(prof, base, spec, only=only or None, exclude=exclude)
    if not any(k.role in CODEC_ROLES for k in space.knobs):
        return []
    return [w for w in space.withheld if not w.startswith(("lzo", "lzop"))]


def _with_codec_facts(prof: JobProfile, codecs: str | None, allow_native: bool) -> JobProfile:
    """The profile with ``--codecs`` / ``--allow-native-codecs`` stated as cluster facts, which
    :meth:`SearchSpace.for_job` reads before the job conf's ``io.compression.codecs``."""
    from mrtune.costmodel.properties import CODEC_CLASSES, codec_name
    from mrtune.search_spaces.constraints import FACT_CODECS, FACT_NATIVE_CODECS

    facts = dict(prof.cluster_facts)
    if codecs is not None:
        names = []
        for part in (p.strip() for p in codecs.split(",")):
            if not part:
                continue
            try:
                names.append(CODEC_CLASSES[codec_name(part)])
            except ValueError:
                raise InputError(
                    "unknown compression codec",
                    field="--codecs",
                    value=part,
                    allowed=", ".join(c for c in CODEC_CLASSES if c != "unknown"),
                ) from None
        facts[FACT_CODECS] = ",".join(names)
    if allow_native:
        facts[FACT_NATIVE_CODECS] = 1.0
    return prof.model_copy(update={"cluster_facts": facts})


def _study_json(rec: Recommendation, store: str | None) -> dict[str, object] | None:
    study = rec.search.study
    if study is None:
        return None
    return {"name": study.study_name, "storage": store, "trials": len(study.trials)}


def _plots(rec: Recommendation, prefix: Path | None) -> list[Path]:
    if prefix is None:
        return []
    from mrtune.optimizer.study_plots import write_study_plots

    try:
        chosen = rec.pareto.chosen if rec.pareto is not None else None
        mark = None if chosen is None else (chosen.job_ms, chosen.gb_s)
        return write_study_plots(rec.search.study, prefix, recommended=mark)
    except OSError as exc:
        raise InputError(
            f"cannot write plots: {exc.strerror}", field="--plot", value=str(prefix)
        ) from None


def _front_limits(
    objective: ObjectiveKind, max_time: str | None, max_resources: str | None
) -> dict[str, float | None]:
    """``--max-time`` / ``--max-resources`` in ms and GB·s (units required); pareto only."""
    from mrtune.optimizer.pareto import parse_duration_ms, parse_gb_seconds

    if (max_time or max_resources) and objective != ObjectiveKind.pareto:
        raise InputError(
            "a limit picks a point of the Pareto front, so it needs --objective pareto",
            field="--max-time" if max_time else "--max-resources",
            value=max_time or max_resources,
        )
    return {
        "max_time_ms": parse_duration_ms(max_time) if max_time else None,
        "max_gb_s": parse_gb_seconds(max_resources) if max_resources else None,
    }


def _lint(rec: Recommendation, prof: JobProfile, base: HadoopConfig, spec: ClusterSpec) -> Any:
    """Lint the configuration to be written (:mod:`mrtune.optimizer.lint`); an error (a value
    Hadoop would reject) stops the command before anything is written: one line, exit 2."""
    from mrtune.optimizer.lint import lint_config

    report = lint_config(prof, rec.config, spec, base=base, emitted=set(rec.properties))
    if report.errors:
        first = report.errors[0]
        raise InputError(
            f"lint: {first.message} ({first.threshold}); nothing written",
            field=first.property,
            value=first.value,
        )
    return report


def _render_lint(report: Any) -> None:
    colour = {"low": "cyan", "moderate": "yellow", "severe": "red", "critical": "bold red"}
    if not report.findings:
        console.print(f"[dim]lint: clean ({len(report.checked)} rules checked)[/]")
        return
    console.print(f"[bold]Lint[/] ({len(report.checked)} rules, Dr. Elephant's thresholds):")
    for f in report.findings:
        kept = "" if f.emitted else " [dim](the job's own value)[/]"
        console.print(
            f"  [{colour.get(f.severity.label, 'red')}]{f.severity.label}[/] {f.rule}: "
            f"[cyan]{f.property}[/]={f.value}{kept}",
            highlight=False,
        )
        console.print(f"      {f.message}; {f.threshold}", style="dim", highlight=False)


#: Most front points shown as table rows (JSON has them all).
FRONT_ROWS = 12
FRONT_KNOB_COLUMNS = 3


def _render_front(rec: Recommendation) -> None:
    """The Pareto front as a table: time, GB·s and the knobs whose values differ along it."""
    choice = rec.pareto
    if choice is None:
        return
    from mrtune.search_spaces import find_knob

    diff = choice.differing_knobs()
    shown, rest = diff[:FRONT_KNOB_COLUMNS], diff[FRONT_KNOB_COLUMNS:]
    t = Table(title=f"Pareto front: {len(choice.front)} points, ▶ = recommended")
    t.add_column("")
    t.add_column("job time", justify="right")
    t.add_column("GB·s", justify="right")
    for n in shown:
        t.add_column(_short(n), justify="right", overflow="fold")
    n = len(choice.front)
    rows = sorted({0, n - 1, choice.index} | {round(x) for x in _spread(n, FRONT_ROWS)})
    for i in rows:
        p = choice.front[i]
        mark = "▶" if i == choice.index else ("cur" if p.source == "current" else "")
        cells = [short_value(str(_knob_text(find_knob(k), p.values[k]))) for k in shown]
        t.add_row(mark, format_ms(p.job_ms), f"{p.gb_s:,.1f}", *cells)
    console.print(t)
    if len(rows) < n:
        console.print(f"[dim]{n - len(rows)} more front points in --format json[/]")
    cur = rec.current
    d_t = rec.recommended["job_ms"] / cur["job_ms"] - 1 if cur["job_ms"] > 0 else 0.0
    d_g = rec.recommended["container_gb_s"] / cur["container_gb_s"] - 1
    console.print(
        f"recommended: {choice.rule}; vs current: job time {d_t:+.1%}, GB·s {d_g:+.1%}",
        highlight=False,
    )
    if rest:
        console.print(f"[dim]also differ along the front: {', '.join(rest)}[/]", highlight=False)


def _spread(n: int, k: int) -> list[float]:
    """``k`` evenly spaced positions over ``0..n-1`` (all of them when ``n <= k``)."""
    if n <= k:
        return [float(i) for i in range(n)]
    return [i * (n - 1) / (k - 1) for i in range(k)]


def _short(name: str, width: int = 16) -> str:
    """A column header that fits: the last three parts of the name, wrapped at its dots
    (``mapreduce.reduce.memory.mb`` → ``reduce.`` / ``memory.mb``)."""
    parts = name.split(".")[-3:]
    lines, line = [], ""
    for part in parts:
        piece = part if not line else "." + part
        if line and len(line) + len(piece) > width:
            lines.append(line + ".")
            line = part
        else:
            line += piece
    return "\n".join([*lines, line])


def _knob_text(knob: Any, encoded: float) -> str:
    from mrtune.optimizer.units import format_bytes

    value = knob.decode(encoded)
    if knob.unit == "bytes":
        return format_bytes(float(value))
    return f"{value:g}" if isinstance(value, float) else str(value)


class search_status:  # noqa: N801 - used as a context manager, like rich's own ``status``
    """A rich status line on stderr while the search runs: configurations evaluated, best
    predicted cost so far, elapsed time (the search of ``--trials 400`` takes tens of
    seconds). Updated at most ten times a second; nothing is shown when stderr is not a
    terminal."""

    def __init__(self, strategy: str, objective: ObjectiveKind) -> None:
        import time

        from mrtune.cli.console import err_console

        self._resources = objective == ObjectiveKind.resources
        self._clock = time.perf_counter
        self._start = self._clock()
        self._last = 0.0
        self._strategy = strategy
        self._status = err_console.status(f"searching with {strategy} …")

    def __enter__(self) -> search_status:
        self._status.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._status.__exit__(*exc)  # type: ignore[arg-type]

    def __call__(self, evaluations: int, best: float) -> None:
        now = self._clock()
        if now - self._last < 0.1:
            return
        self._last = now
        if best == float("inf"):
            shown = "none feasible yet"
        else:
            shown = f"{best:,.1f} GB·s" if self._resources else format_ms(best)
        self._status.update(
            f"searching with {self._strategy}: {evaluations:,} configurations evaluated, "
            f"best {shown} · {now - self._start:.1f} s"
        )
