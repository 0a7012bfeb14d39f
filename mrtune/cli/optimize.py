"""``mrtune optimize``: the configuration of lowest predicted cost, explained, ready to paste."""

from __future__ import annotations

from pathlib import Path

import typer

from mrtune.cli._confidence import (
    INCLUDE_LOW_OPT,
    SAMPLES_OPT,
    prediction_table,
    render_changes,
    render_prediction_intervals,
)
from mrtune.cli._front_view import front_limits, lint_before_writing, render_front, render_lint
from mrtune.cli._inputs import (
    ClusterOpt,
    InputSizeOpt,
    LocalOpt,
    NodesOpt,
    ProfileArg,
    build_cluster,
    load_job,
    with_input_size,
)
from mrtune.cli._replay import REPLAY_CONF_OPT, report_start, start_config
from mrtune.cli.console import (
    OutputFormat,
    cli_errors,
    console,
    emit_json,
    strict_option,
    warn_calibration,
)
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
    STRATEGY_NAMES,
    StudyError,
    get_strategy,
    resolve_strategy,
    storing_strategies,
)
from mrtune.optimizer.units import format_ms

#: ``--storage`` values that mean "keep the study in memory" (the default).
IN_MEMORY = {"", "none", "memory", ":memory:"}


def render(rec: Recommendation, where: str, names: NameStyle, include_low: bool = False) -> None:
    console.print(f"job {rec.job_id} · cluster: {where}")
    chosen = "" if rec.strategy_chosen_by == "requested" else f" ({rec.strategy_chosen_by})"
    console.print(
        f"strategy [bold]{rec.strategy}[/]{chosen} · objective {rec.objective} · "
        f"{rec.search.n_evaluations:,} configurations evaluated in {rec.search.wall_time_s:.2f} s"
    )
    data = rec.to_json()
    console.print(prediction_table(rec, data))
    render_prediction_intervals(data)
    if rec.no_change and not rec.withheld:
        console.print(
            "[bold green]no change recommended[/]: no setting gains 1% or more over the "
            "current configuration"
        )
        return
    if not rec.no_change:
        console.print(
            f"gain: [bold]{rec.gain_vs_current:.1%}[/] vs current, "
            f"{rec.gain_vs_defaults:.1%} vs Hadoop defaults"
        )
    render_changes(rec, data, include_low)
    if rec.no_change:
        console.print(
            "[bold yellow]nothing written[/]: every change is low-confidence (✗); "
            "--include-low-confidence writes them"
        )
        return
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


def _name_style(space: str, hadoop_version: int) -> NameStyle:
    """Hadoop 1 names for a Hadoop 1 job and for Starfish's space (its own names)."""
    starfish = space == "starfish" or hadoop_version == 1
    return NameStyle.hadoop1 if starfish else NameStyle.hadoop2


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
        help=f"One of: {', '.join(STRATEGY_NAMES)}. Default: {DEFAULT_STRATEGY}, or "
        f"{DEFAULT_PARETO_STRATEGY} for --objective pareto.",
    ),
    trials: int | None = typer.Option(
        None,
        "--trials",
        min=1,
        help="Search budget (trials); default: the strategy's own (tpe 32, de 3000, …).",
    ),
    objective: ObjectiveKind = typer.Option(
        ObjectiveKind.robust,
        "--objective",
        help="robust (p90 of the job time over the evidence samples), time (point "
        "prediction), resources (GB·s) or pareto",
    ),
    include_low_confidence: bool = INCLUDE_LOW_OPT,
    samples: int = SAMPLES_OPT,
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
    space: str = typer.Option(
        "mrtune",
        "--space",
        help="mrtune (its own knobs and ranges) or starfish (Starfish 0.2.0's parameters and "
        "ranges only, Hadoop 1 names: a like-for-like comparison).",
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
    conf: Path | None = REPLAY_CONF_OPT,
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
    strict: bool = strict_option(),
) -> None:
    """Recommend the configuration that minimises the job's predicted time (or resources)."""
    _check_emit(emit)
    name, store = _strategy_settings(strategy, objective, storage, study_name, resume, plot)
    limits = front_limits(objective, max_time, max_resources)
    prof, ran_with = load_job(profile, conf)
    base, not_modelled = start_config(profile, conf, prof, ran_with)  # a saved profile's --conf
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
                # pareto: the knee stays on the front shown (no confidence drops)
                confidence=objective != ObjectiveKind.pareto,
                include_low_confidence=include_low_confidence,
                samples=samples,
                **limits,
                space_kind=space,
                ran_with=ran_with,
                start_label=None if not_modelled is None else f"the replayed --conf {conf}",
            )
        except KeyError as exc:
            raise InputError(str(exc.args[0]), field="--only/--exclude") from None
        except StudyError as exc:
            raise InputError(
                str(exc), field="--study-name", value=study_name, allowed="a new name, or --resume"
            ) from None
    names = names or _name_style(space, base.hadoop_version)
    props = rename(rec.properties, names)
    report = lint_before_writing(rec, prof, base, spec)
    if output is not None:
        _write_output(rec, props, names, emit, output)
    plots = _plots(rec, plot)
    withheld = [] if space == "starfish" else _withheld_codecs(prof, base, spec, only, exclude)
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
        report_start(conf, not_modelled, data)
        emit_json(data)
        return
    report_start(conf, not_modelled, None)
    render(rec, where, names, include_low_confidence)
    render_front(rec)
    render_lint(report)
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


def _check_emit(emit: str) -> None:
    """``--emit`` is one of the output kinds ``-o`` writes."""
    if emit not in {"xml", "flags", "hive", "pig", "json"}:
        raise InputError(
            "unknown output kind",
            field="--emit",
            value=emit,
            allowed="xml, flags, hive, pig, json",
        )


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
