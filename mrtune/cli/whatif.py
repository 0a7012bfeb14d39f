"""``mrtune whatif``: predicted effect of configuration changes, input size or cluster size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from mrtune.cli._inputs import (
    ClusterOpt,
    LocalOpt,
    NodesOpt,
    ProfileArg,
    build_cluster,
    chosen_job_note,
    load_job,
    on_hdfs,
    with_input_size,
)
from mrtune.cli._replay import replayed_conf
from mrtune.cli._whatif_options import (
    ALLOW_UNKNOWN_OPT,
    CONF_OPT,
    FMT_OPT,
    INPUT_SIZE_OPT,
    SAMPLES_OPT,
    SEED_OPT,
    SET__OPT,
    TIMELINE_OPT,
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
)
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import JobProfile
from mrtune.errors import InputError
from mrtune.optimizer.confidence import Evidence
from mrtune.optimizer.units import format_bytes, format_ms
from mrtune.optimizer.whatif import parse_setting, what_if
from mrtune.optimizer.whatif_summary import MAP_PHASES, REDUCE_PHASES


def _new_cluster(spec: ClusterSpec, nodes: int | None) -> ClusterSpec | None:
    """The cluster of ``--nodes``: the profile's with that many nodes; from a local-mode run,
    a YARN cluster of that many default nodes (LocalJobRunner has no nodes to add: the same
    spec with ``num_nodes`` changed ran one task at a time, so ``--nodes`` changed nothing)."""
    if not nodes:
        return None
    if spec.local_mode:
        err_console.print(
            f"note: --nodes {nodes}: the profile ran in local mode, so the what-if cluster is "
            f"{nodes} nodes of default capacity (--cluster yarn-site.xml describes yours)",
            highlight=False,
        )
        return ClusterSpec(num_nodes=nodes)
    return spec.model_copy(update={"num_nodes": nodes})


def _asked_changes(
    prof: JobProfile,
    base: HadoopConfig,
    set_: list[str],
    new_spec: ClusterSpec | None,
    allow_unknown: bool,
) -> dict[str, str]:
    """The ``--set`` changes, checked, plus what a move to another cluster changes itself (a
    local run's input read in the new cluster's HDFS blocks, not the local 32 MiB ones)."""
    changes = _changes(set_)
    _note_fixed(prof, changes)
    if new_spec is not None and (moved := on_hdfs(prof, base, new_spec)) is not base:
        changes.setdefault("dfs.blocksize", str(moved.dfs_blocksize))
        if moved.num_maps_hint != base.num_maps_hint:  # an old-API job: local mode's 1 undone
            changes.setdefault("mapreduce.job.maps", str(moved.num_maps_hint))
    if not allow_unknown:
        _refuse_unknown(changes, prof)
    return changes


def _note_fixed(prof: JobProfile, changes: dict[str, str]) -> None:
    """One line for each change to a property the job's own code sets (its conf says
    ``programmatically``): Hadoop overrides a -D or site value with the code's."""
    from mrtune.search_spaces.knobs import canonical_name

    fixed = {canonical_name(k) for k in prof.fixed_by_job}
    for key in changes:
        if canonical_name(key) in fixed:
            err_console.print(
                f"note: the job's code sets {key} (its configuration says programmatically): a "
                "-D or mapred-site value is overridden, so this what-if holds only if the code "
                "(or its arguments) sets the new value",
                highlight=False,
            )


def _notes(
    prof: JobProfile, source: Path, changes: dict[str, str], result: dict[str, Any]
) -> list[str]:
    """What the answer says of itself: which job of a trace it took, a split change it does
    not model, combine counts of smaller spills resting on an unidentified key law."""
    from mrtune.optimizer.whatif_checks import (
        saturated_key_law_note,
        skewed_partitions_note,
        unmodelled_split_note,
    )

    flows = (result["current"]["dataflow"], result["what_if"]["dataflow"])
    notes = (
        chosen_job_note(prof, source),
        unmodelled_split_note(prof, changes),
        saturated_key_law_note(prof, *flows),
        skewed_partitions_note(prof, changes),
    )
    return [n for n in notes if n]


def _changes(sets: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for s in sets:
        try:
            k, v = parse_setting(s)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        out[k] = v
    return out


def short_value(v: object) -> str:
    """Codec class names without their package, for tables."""
    return str(v).removeprefix("org.apache.hadoop.io.compress.")


def _delta(a: float, b: float) -> str:
    if a == b:
        return ""
    if a == 0:
        return "new"
    pct = (b - a) / a * 100
    return f"{pct:+.1f}%"


def _input_lines(result: dict[str, Any]) -> None:
    """The new input size, and for input read as whole units (gzip files, packed maps) how
    many of them it is: such units change in number, not in size."""
    sizes, profiled = result["input_bytes"], result.get("profiled")
    if profiled is None:
        return
    console.print(
        f"  input: [bold]{format_bytes(sizes['what-if'])}[/] in both columns; profiled "
        f"{format_bytes(sizes['profiled'])} ({format_ms(profiled['job_ms'])} as configured)"
    )
    files = result.get("input_files") or {}
    new, old = files.get("what-if"), files.get("profiled")
    if new is not None and old is not None and new != old:
        console.print(
            f"  input read as whole units: {new:,} of "
            f"{format_bytes(sizes['what-if'] / new)} each (profiled: {old:,} of "
            f"{format_bytes(sizes['profiled'] / old)}); their number follows the size",
            highlight=False,
        )


def render_whatif(result: dict[str, Any]) -> None:
    cur, new = result["current"], result["what_if"]
    if result["changes"]:
        for k, v in result["changes"].items():
            a, b = (short_value(x) for x in (v["from"], v["to"]))
            console.print(f"  [cyan]{k}[/]: {a} → [bold]{b}[/]", soft_wrap=True)
    unread = result.get("not_modelled", [])
    by_version = result.get("not_read_by_version") or {}
    for name in unread[:8]:
        why = by_version.get(name, "passed through; the model does not read it")
        console.print(f"  [yellow]{name}[/]: {why}", highlight=False)
    if len(unread) > 8:
        console.print(f"  … and {len(unread) - 8} more the model does not read (--format json)")
    _input_lines(result)
    t = Table(title=f"What if — {result['job_id']}", show_lines=False)
    t.add_column("")
    t.add_column("current", justify="right")
    t.add_column("what-if", justify="right")
    t.add_column("change", justify="right")

    def row(label: str, a: float, b: float, fmt=format_ms) -> None:
        t.add_row(label, fmt(a), fmt(b), _delta(a, b))

    def num(x: float) -> str:
        return f"{x:,.4g}" if abs(x) < 1e4 else f"{x:,.0f}"

    row("[bold]job time[/]", cur["job_ms"], new["job_ms"])
    row("container GB·s", cur["container_gb_s"], new["container_gb_s"], num)
    row("total task time", cur["total_task_ms"], new["total_task_ms"])
    row("map tasks", cur["num_maps"], new["num_maps"], num)
    row("map waves", cur["map_waves"], new["map_waves"], num)
    row("reduce tasks", cur["num_reducers"], new["num_reducers"], num)
    row("map task", cur["map_task_ms"], new["map_task_ms"])
    for ph in MAP_PHASES:
        a, b = cur["map_phases_ms"][ph], new["map_phases_ms"][ph]
        if a or b:
            row(f"  map {ph}", a, b)
    hot0, hot1 = cur.get("hot_reduce"), new.get("hot_reduce")
    if cur["num_reducers"] or new["num_reducers"]:
        if hot0 or hot1:  # the hot partition's reduce; the rows below are each other one's
            row("largest reduce (hot key)", cur["largest_reduce_ms"], new["largest_reduce_ms"])
        label = "reduce task" + (", each other" if hot0 or hot1 else "")
        row(label, cur["reduce_task_ms"], new["reduce_task_ms"])
        for ph in REDUCE_PHASES:
            a, b = cur["reduce_phases_ms"].get(ph, 0.0), new["reduce_phases_ms"].get(ph, 0.0)
            if a or b:
                row(f"  reduce {ph}", a, b)
    d0, d1 = cur["dataflow"], new["dataflow"]
    row("spills per map (mean)", d0["spills_per_map"], d1["spills_per_map"], num)
    row("map merge passes (most)", d0["map_merge_passes"], d1["map_merge_passes"], num)
    row("spilled records (map)", d0["map_spilled_records"], d1["map_spilled_records"], num)
    row(
        "spilled records (reduce)", d0["reduce_spilled_records"], d1["reduce_spilled_records"], num
    )
    row("shuffle bytes", d0["shuffle_bytes"], d1["shuffle_bytes"], format_bytes)
    row("fetches to memory a reduce", d0["fetches_to_memory"], d1["fetches_to_memory"], num)
    row("fetches to disk a reduce", d0["fetches_to_disk"], d1["fetches_to_disk"], num)
    if hot0 or hot1:
        h0, h1 = (h or {"fetches_to_disk": 0.0} for h in (hot0, hot1))
        row("  largest reduce's", h0["fetches_to_disk"], h1["fetches_to_disk"], num)
    row("in-memory merges a reduce", d0["inmem_merges"], d1["inmem_merges"], num)
    row("HDFS bytes written", d0["hdfs_bytes_written"], d1["hdfs_bytes_written"], format_bytes)
    console.print(t)
    console.print(f"predicted speedup: [bold]{result['speedup']:.2f}×[/]")
    from mrtune.cli._confidence import render_whatif_interval

    render_whatif_interval(result)
    for note in result.get("notes", []):
        err_console.print(f"note: {note}", highlight=False)


app = typer.Typer()


@app.command("whatif")
@cli_errors
def whatif_cmd(
    profile: Path = ProfileArg,
    set_: list[str] = SET__OPT,
    input_size: str | None = INPUT_SIZE_OPT,
    nodes: int | None = NodesOpt,
    cluster: Path | None = ClusterOpt,
    local: bool = LocalOpt,
    conf: Path | None = CONF_OPT,
    timeline: Path | None = TIMELINE_OPT,
    allow_unknown: bool = ALLOW_UNKNOWN_OPT,
    samples: int = SAMPLES_OPT,
    seed: int = SEED_OPT,
    fmt: OutputFormat = FMT_OPT,
    strict: bool = strict_option(),
) -> None:
    """Predict what a configuration change (or new input size or cluster) does to a job."""
    prof, base = load_job(profile, conf)
    replay = replayed_conf(profile, conf)
    warn_calibration(prof, strict)
    spec, where = build_cluster(prof, None, cluster, local)
    base = on_hdfs(prof, base, spec)
    new_spec = _new_cluster(spec, nodes)
    size = None
    if input_size is not None:
        size = with_input_size(prof, input_size).input_bytes  # unit, range and volume checks
    changes = _asked_changes(prof, base, set_, new_spec, allow_unknown)
    try:
        result = what_if(
            prof,
            base,
            spec,
            changes,
            input_bytes=size,
            new_cluster=new_spec,
            allow_unknown=allow_unknown,
            evidence=_evidence(prof, base, samples, seed) if samples else None,
            replay=replay,
            replay_source=str(conf),
        )
    except ValueError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(
            str(exc).splitlines()[0] if "\n" not in str(exc) else _first(exc), field="--set"
        ) from None
    if timeline is not None:
        from mrtune.cli._timeline import plot_timeline
        from mrtune.costmodel.scheduler import simulate_schedule
        from mrtune.optimizer.whatif import apply_changes, replay_conf

        new_prof = prof if size is None else prof.with_input_bytes(size)
        start = replay_conf(base, replay, prof, source=str(conf))[0] if replay else base
        sched = simulate_schedule(
            new_prof,
            apply_changes(start, changes, prof, allow_unknown=allow_unknown),
            new_spec or spec,
        )
        plot_timeline(sched, timeline, f"what-if {prof.job_id}")
        result["simulated_job_ms"] = sched.job_ms
    result["cluster"] = {"origin": where, **spec.model_dump(mode="json")}
    result["notes"] = _notes(prof, profile, changes, result)
    result["calibration"] = calibration_brief(prof)
    if new_spec is not None:
        result["cluster"]["what_if_num_nodes"] = new_spec.num_nodes
        result["cluster"]["what_if"] = new_spec.model_dump(mode="json")
    if fmt == OutputFormat.json:
        emit_json(result)  # its "lint" carries the findings
        return
    warn_limits(result["lint"])
    for line in result.get("codec_priors", []):
        err_console.print(f"note: {line}", highlight=False)
    console.print(f"cluster: {where}" + (f" → {nodes} nodes" if nodes else ""))
    render_whatif(result)
    if timeline is not None:
        console.print(
            f"task-by-task simulation: {result['simulated_job_ms'] / 1000:,.1f} s; "
            f"wrote {timeline}"
        )


def warn_limits(findings: list[dict[str, Any]]) -> None:
    """One warning line (stderr) per lint finding on the question's values
    (:func:`mrtune.optimizer.whatif.limit_findings`): the prediction is still shown, as
    Hadoop would still run the configuration."""
    from rich.markup import escape

    for f in findings:
        line = (
            f"lint {f['severity']} {f['rule']}: {f['property']}={f['value']}: "
            f"{f['message']} ({f['threshold']})"
        )
        err_console.print(f"[bold yellow]warning:[/] {escape(line)}", highlight=False)


def _evidence(prof: JobProfile, base: HadoopConfig, samples: int, seed: int) -> Evidence:
    """The evidence samples behind the speedup's interval (:mod:`mrtune.optimizer.confidence`)."""
    from mrtune.optimizer.confidence import gather_evidence

    if samples < 8:
        raise InputError(
            "too few samples for an interval",
            field="--samples",
            value=samples,
            allowed="0 (no interval) or 8 … 4096",
        )
    return gather_evidence(prof, base, samples=samples, seed=seed)


def _refuse_unknown(changes: dict[str, str], prof: JobProfile) -> None:
    """One line for the first ``--set`` property the model does not read (closest names)."""
    from mrtune.costmodel.config import check_property_name
    from mrtune.optimizer.whatif import unknown_properties

    for key in unknown_properties(changes, prof):
        try:
            check_property_name(key, old_api=prof.old_api_splits)
        except ValueError as exc:
            raise InputError(
                f"{exc} (--allow-unknown passes it through)", field="--set", value=key
            ) from None


def _first(exc: Exception) -> str:
    """One line from a (possibly pydantic) validation message."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        if exc.title == "HadoopConfig":  # by Hadoop property name, with the value
            from mrtune.costmodel.config import config_error_line

            return config_error_line(exc)
        from mrtune.cli.console import format_validation_error

        return format_validation_error(exc)
    return " ".join(str(exc).split())
