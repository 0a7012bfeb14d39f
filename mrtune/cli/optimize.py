"""``mrtune optimize``: the configuration of lowest predicted cost, explained, ready to paste."""

from __future__ import annotations

from pathlib import Path

import typer

from mrtune.cli._confidence import INCLUDE_LOW_OPT, SAMPLES_OPT
from mrtune.cli._front_view import front_limits, lint_before_writing
from mrtune.cli._inputs import (
    ClusterOpt,
    InputSizeOpt,
    LocalOpt,
    NodesOpt,
    ProfileArg,
    build_cluster,
    load_job,
    note_job_chosen,
    on_hdfs,
    with_input_size,
)
from mrtune.cli._optimize_options import (
    ALLOW_MEMORY_OPT,
    ALLOW_NATIVE_CODECS_OPT,
    CODECS_OPT,
    EMIT_OPT,
    EXCLUDE_OPT,
    FORMAT_OPT,
    MAX_RESOURCES_OPT,
    MAX_TIME_OPT,
    NAMES_OPT,
    OBJECTIVE_OPT,
    ONLY_OPT,
    OUTPUT_COMPRESSION_OPT,
    OUTPUT_OPT,
    PLOT_OPT,
    RESUME_OPT,
    SEED_OPT,
    SPACE_OPT,
    STORAGE_OPT,
    STRATEGY_OPT,
    STUDY_NAME_OPT,
    TRIALS_OPT,
)
from mrtune.cli._optimize_output import (
    check_emit,
    emit_report_json,
    render_report,
    search_status,
    write_output,
    write_plots,
)
from mrtune.cli._replay import REPLAY_CONF_OPT, start_config
from mrtune.cli.console import OutputFormat, cli_errors, strict_option, warn_calibration
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import JobProfile
from mrtune.errors import InputError
from mrtune.optimizer.objective import ObjectiveKind
from mrtune.optimizer.outputs import NameStyle, rename
from mrtune.optimizer.recommend import Recommendation, recommend
from mrtune.optimizer.strategies import (
    StudyError,
    get_strategy,
    resolve_strategy,
    storing_strategies,
)

#: ``--storage`` values that mean "keep the study in memory" (the default).
IN_MEMORY = {"", "none", "memory", ":memory:"}


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


def _check_names(names: NameStyle | None, space: str, hadoop_version: int) -> None:
    """Refuse ``--names`` of another Hadoop generation than the one the search scores with.

    Renaming is not re-scoring: a Hadoop 1 job's recommendation holds Hadoop 1 semantics
    (``io.sort.record.percent``, which Hadoop 2/3 ignore since MAPREDUCE-64; the 200 MB
    default heap), and a Hadoop 2/3 job's holds theirs (a heap derived from the container):
    written under the other generation's names it is not the configuration that was scored.
    Starfish's space keeps its Hadoop 1 names on any job (its own convention)."""
    if names is None or names == _name_style(space, hadoop_version):
        return
    if space == "starfish" and names == NameStyle.hadoop1:
        return
    target = "1 (0.20)" if names == NameStyle.hadoop1 else "2/3"
    raise InputError(
        f"the recommendation is scored with this job's Hadoop {hadoop_version} rules; renamed "
        f"to Hadoop {target} property names it would not be the configuration that was scored "
        "(renaming is not re-scoring)",
        field="--names",
        value=names.value,
        allowed=f"{_name_style(space, hadoop_version).value} (the job's own), or profile the job "
        f"from a Hadoop {target} history",
    )


@app.command("optimize")
@cli_errors
def optimize_cmd(
    profile: Path = ProfileArg,
    strategy: str | None = STRATEGY_OPT,
    trials: int | None = TRIALS_OPT,
    objective: ObjectiveKind = OBJECTIVE_OPT,
    include_low_confidence: bool = INCLUDE_LOW_OPT,
    samples: int = SAMPLES_OPT,
    seed: int = SEED_OPT,
    storage: str | None = STORAGE_OPT,
    study_name: str | None = STUDY_NAME_OPT,
    resume: bool = RESUME_OPT,
    max_time: str | None = MAX_TIME_OPT,
    max_resources: str | None = MAX_RESOURCES_OPT,
    plot: Path | None = PLOT_OPT,
    allow_memory: bool = ALLOW_MEMORY_OPT,
    codecs: str | None = CODECS_OPT,
    allow_native_codecs: bool = ALLOW_NATIVE_CODECS_OPT,
    space: str = SPACE_OPT,
    only: list[str] = ONLY_OPT,
    exclude: list[str] = EXCLUDE_OPT,
    output_compression: bool = OUTPUT_COMPRESSION_OPT,
    output: Path | None = OUTPUT_OPT,
    emit: str = EMIT_OPT,
    names: NameStyle | None = NAMES_OPT,
    input_size: str | None = InputSizeOpt,
    nodes: int | None = NodesOpt,
    cluster: Path | None = ClusterOpt,
    local: bool = LocalOpt,
    conf: Path | None = REPLAY_CONF_OPT,
    fmt: OutputFormat = FORMAT_OPT,
    strict: bool = strict_option(),
) -> None:
    """Recommend the configuration that minimises the job's predicted time (or resources)."""
    check_emit(emit)
    name, store = _strategy_settings(strategy, objective, storage, study_name, resume, plot)
    exclude = _with_output_codec(exclude, output_compression, only)
    prof, ran_with = load_job(profile, conf)
    base, not_modelled = start_config(profile, conf, prof, ran_with)  # a saved profile's --conf
    _check_names(names, space, base.hadoop_version)
    warn_calibration(prof, strict)
    prof = _with_codec_facts(with_input_size(prof, input_size), codecs, allow_native_codecs)
    spec, where = build_cluster(prof, nodes, cluster, local)
    base = on_hdfs(prof, base, spec)
    note_job_chosen(prof, profile)  # after the inputs' checks: an error still comes alone
    rec = _search(
        prof,
        base,
        spec,
        name=name,
        strategy=strategy,  # None: the objective's default, reported in the output
        objective=objective,
        n_trials=trials,
        seed=seed,
        storage=store,
        study_name=study_name,
        resume=resume,
        allow_memory=allow_memory,
        only=only or None,
        exclude=exclude,
        local_mode_honoured=local,
        include_low_confidence=include_low_confidence,
        samples=samples,
        **front_limits(objective, max_time, max_resources),
        space_kind=space,
        ran_with=ran_with,
        start_label=None if not_modelled is None else f"the replayed --conf {conf}",
    )
    names = names or _name_style(space, base.hadoop_version)
    props = rename(rec.properties, names)
    report = lint_before_writing(rec, prof, base, spec)
    if output is not None:
        write_output(rec, props, names, emit, output)
    plots = write_plots(rec, plot)
    withheld = [] if space == "starfish" else _withheld_codecs(prof, base, spec, only, exclude)
    shown = {"withheld": withheld, "store": store, "plots": plots, "lint": report}
    shown["start"] = (conf, not_modelled)
    if fmt == OutputFormat.json:
        emit_report_json(rec, props, **shown, cluster={"origin": where, **spec.model_dump()})
        return
    render_report(rec, where, names, include_low_confidence, output, emit, **shown)


#: The job-output codec knob, tuned only with ``--output-compression`` (or ``--only``).
OUTPUT_CODEC = "mapreduce.output.fileoutputformat.compress.codec"


def _with_output_codec(exclude: list[str], asked: bool, only: list[str]) -> list[str]:
    """``exclude`` plus the job-output codec unless asked for: compressed job output changes
    the files downstream readers get (the examples' WordMean reads part-r-00000 and failed
    with "Output not found" once optimize wrote output compression at a 0.0% gain)."""
    if asked or only:
        return exclude
    return [*exclude, OUTPUT_CODEC]


def _search(
    prof: JobProfile,
    base: HadoopConfig,
    spec: ClusterSpec,
    *,
    name: str,
    objective: ObjectiveKind,
    study_name: str | None,
    **options: object,
) -> Recommendation:
    """:func:`recommend` under the search's status line; an unknown ``--only/--exclude``
    setting and a study name already stored are the user's errors, said as such."""
    with search_status(name, objective) as progress:
        try:
            return recommend(
                prof,
                base,
                spec,
                objective=objective,
                # no name: mrtune-<job>-<strategy>-<objective>, with the next free -2, -3 …
                # suffix when a study of that name is already stored (re-runs never fail)
                study_name=study_name,
                progress=progress,
                # pareto: the knee stays on the front shown (no confidence drops)
                confidence=objective != ObjectiveKind.pareto,
                **options,  # type: ignore[arg-type]
            )
        except KeyError as exc:
            raise InputError(str(exc.args[0]), field="--only/--exclude") from None
        except StudyError as exc:
            raise InputError(
                str(exc), field="--study-name", value=study_name, allowed="a new name, or --resume"
            ) from None


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
    from mrtune.search_spaces.codecs import codec_facts

    facts = codec_facts(codecs, allow_native)
    if not facts:
        return prof
    return prof.model_copy(update={"cluster_facts": {**prof.cluster_facts, **facts}})
