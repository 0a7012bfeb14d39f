"""``mrtune profile``: a job's real history → a :class:`~mrtune.costmodel.JobProfile` (JSON).

Sources: a ``.jhist`` (with its ``*_conf.xml``, found next to it or given with ``--conf``),
saved JobHistory REST responses (a directory or a file), a Rumen trace (``--job`` picks one job
of several), a live JobHistory server (``--jhs URL --job ID``), or a Starfish profile XML
(``--from starfish``, with ``--input``/``--cluster``/``--conf``), or a local run record of
``mrtune hadoop-run`` (``--from run``, optionally with ``--machine`` costs). Prints what was measured and
what was defaulted; ``-o`` writes the profile JSON, ``--format json`` prints it.
"""

from __future__ import annotations

import importlib
import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from mrtune.cli._cluster_view import fmt as _fmt
from mrtune.cli._cluster_view import print_cluster, self_check_table
from mrtune.cli.console import (
    OutputFormat,
    cli_errors,
    console,
    emit_json,
    strict_option,
    warn_calibration,
)
from mrtune.errors import InputError, MrtuneError


class SourceKind(StrEnum):
    """Where the history comes from."""

    auto = "auto"
    jhist = "jhist"
    rest = "rest"
    rumen = "rumen"
    starfish = "starfish"
    run = "run"


#: The unit each cost factor is shown in (CostFactors' field descriptions say the same in words);
#: a factor not listed is ns per record. ``tests/cli`` checks every field has its unit here.
COST_UNITS = {
    "hdfs_read": "ns/B",
    "hdfs_write": "ns/B",
    "local_read": "ns/B",
    "local_write": "ns/B",
    "network": "ns/B",
    "input_uncompress": "ns/B",
    "sort_cpu": "ns/comparison",
    "setup_ms": "ms",
    "cleanup_ms": "ms",
    "task_overhead_ms": "ms",
    "spill_file_ns": "ns/spill",
    "segment_seek_ns": "ns/segment",
    "fetch_ns": "ns/fetch",
    "spill_contention": "share",
    "sort_cache_bytes": "B",
    "sort_cache_slowdown": "share/doubling",
    "reduce_includes_final_merge": "",
    "read_fixed_ms": "ms/task",
    "spill_write": "ns/B",
    "merge_cmp_cpu": "ns/comparison",
    "shuffle_floor_ms": "ms/task",
    "shapes_on_cluster": "",
    "reduce_side": "",  # the reduce-side values, each shown with its factor's unit
}
PER_RECORD = ("map_cpu", "reduce_cpu", "combine_cpu", "partition_cpu", "serde_cpu", "merge_cpu")
MAP_PHASES = (("map", "map (start→mapFinish)"), ("sort", "sort/spill (→finish)"))
REDUCE_PHASES = (
    ("shuffle", "shuffle (start→shuffleFinish)"),
    ("merge", "merge (→sortFinish)"),
    ("reduce", "reduce (→finish)"),
)


def _load_starfish(
    path: Path, conf: Path | None, input_xml: Path | None, cluster_xml: Path | None
):  # -> JobProfile
    """Dispatch to ``mrtune.profiling.starfish.load_starfish`` (imported only when asked for)."""
    try:
        module = importlib.import_module("mrtune.profiling.starfish")
    except ModuleNotFoundError as exc:
        if exc.name != "mrtune.profiling.starfish":
            raise
        raise InputError(
            "the Starfish profile reader (mrtune.profiling.starfish) is not part of this installation",
            field="--from",
            value="starfish",
            allowed="auto, jhist, rest, rumen",
        ) from None
    profile, config, cluster = module.load_starfish(
        str(path),
        input_xml=str(input_xml) if input_xml else None,
        cluster_xml=str(cluster_xml) if cluster_xml else None,
        conf_xml=str(conf) if conf else None,
    )
    update: dict[str, Any] = {}
    if not profile.source_properties and config is not None:
        update["source_properties"] = config.to_properties()
    if cluster is not None:
        facts = dict(profile.cluster_facts)
        for k, v in cluster.model_dump().items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                facts.setdefault(f"cluster_spec.{k}", float(v))
        update["cluster_facts"] = facts
    return profile.model_copy(update=update) if update else profile


def _load_run(path: Path, job: str | None, machine: Path | None):  # -> JobProfile
    """A local run record (``mrtune hadoop-run``) → profile; ``job`` picks a record by run id
    or label (default: the first successful one), ``machine`` is a machine cost file."""
    from mrtune.calibration.machine_costs import MachineCosts
    from mrtune.calibration.run_profile import profile_from_run
    from mrtune.cli._inputs import load_run_records

    records = [r for r in load_run_records(path) if r.success]
    if job is not None:
        records = [r for r in records if job in (r.run_id, r.label)]
    if not records:
        raise InputError(
            "no successful run record" + (f" with run id or label {job}" if job else ""),
            path=str(path),
            field="--job" if job else None,
        )
    costs = MachineCosts.load(machine) if machine is not None else None
    profile = profile_from_run(records[0], machine=costs)
    facts = {**profile.cluster_facts, "local_mode": 1.0}
    return profile.model_copy(update={"cluster_facts": facts})


def make_profile(
    path: Path | None,
    *,
    conf: Path | None = None,
    source: SourceKind = SourceKind.auto,
    job: str | None = None,
    jhs: str | None = None,
    timeout: float = 10.0,
    input_xml: Path | None = None,
    cluster_xml: Path | None = None,
    machine: Path | None = None,
):  # -> JobProfile
    """The profile the ``profile`` command reports (also used by other commands)."""
    from mrtune import calibration, readers

    if machine is not None and source != SourceKind.run:
        raise InputError("--machine applies to --from run only", field="--machine")
    if source == SourceKind.run:
        if path is None or not path.exists():
            raise InputError("file not found", path=str(path))
        return _load_run(path, job, machine)

    if jhs:
        if not job:
            raise InputError("--jhs needs --job (the job id to read)", field="--job")
        history = readers.fetch_jhs(jhs, job, timeout=timeout)
        conf_file = readers.load_conf(conf) if conf else None
        return calibration.build_profile(history, conf_file)
    if path is None:
        raise InputError(
            "give a history PATH (.jhist, REST JSON, Rumen trace) or --jhs URL --job ID"
        )
    if not path.exists():
        raise InputError("file not found", path=str(path))
    if source == SourceKind.starfish:
        return _load_starfish(path, conf, input_xml, cluster_xml)
    if input_xml or cluster_xml:
        raise InputError("--input and --cluster apply to --from starfish only", field="--input")
    try:
        return calibration.load_profile_source(path, conf, fmt=source.value, job=job)
    except MrtuneError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        # content no reader anticipated: still one line naming the file, not a traceback
        raise InputError(
            f"unexpected content ({type(exc).__name__}: {exc}); is this a job history?",
            path=str(path),
        ) from None


def _split_prov(text: str) -> tuple[str, str]:
    head, _, why = text.partition(":")
    return head.strip(), why.strip()


def _phase_table(profile) -> Table:  # noqa: ANN001
    t = Table(title="Tasks and phase times (successful attempts, ms: mean \\[min–max])")
    t.add_column("task")
    t.add_column("attempts", justify="right")
    t.add_column("phase")
    t.add_column("time", justify="right")
    for kind, phases in (("map", MAP_PHASES), ("reduce", REDUCE_PHASES)):
        tasks = [o for o in profile.observed if o.kind == kind]
        if not tasks:
            continue
        rows = [(k, label) for k, label in phases if any(k in o.phases_ms for o in tasks)]
        rows.append(("total", "attempt total"))
        for i, (key, label) in enumerate(rows):
            vals = [o.phases_ms[key] for o in tasks if key in o.phases_ms]
            mean = sum(vals) / len(vals)
            cell = _fmt(mean) + (
                f" [{_fmt(min(vals))}–{_fmt(max(vals))}]" if len(vals) > 1 else ""
            )
            t.add_row(kind if i == 0 else "", str(len(tasks)) if i == 0 else "", label, cell)
    return t


def _stats_table(profile) -> Table:  # noqa: ANN001
    t = Table(title="Dataflow statistics (reference Table 2)")
    t.add_column("statistic")
    t.add_column("value", justify="right")
    t.add_column("")
    t.add_column("how / why")
    for name, value in profile.stats.model_dump().items():
        head, why = _split_prov(profile.provenance_of(f"stats.{name}"))
        style = "green" if head == "measured" else "yellow"
        if isinstance(value, list | tuple):  # key_law_knots: (records, factor) points
            cell = " ".join(f"{_fmt(float(n))}:{float(f):.4f}" for n, f in value)
        else:
            cell = _fmt(value) if value is not None else "-"
        t.add_row(name, cell, f"[{style}]{head}[/]", why)
    return t


def _costs_table(profile) -> Table:  # noqa: ANN001
    t = Table(title="Cost factors (reference Table 3)")
    t.add_column("factor")
    t.add_column("value", justify="right")
    t.add_column("")
    t.add_column("how / why")
    side = profile.costs.reduce_side
    for name, value in profile.costs.model_dump().items():
        if name == "reduce_side":
            continue  # shown beside each factor it overrides
        unit = COST_UNITS.get(name, "ns/rec")  # PER_RECORD and codec columns
        head, why = _split_prov(profile.provenance_of(f"costs.{name}"))
        style = "green" if head == "measured" else "yellow"
        label = f"{name} (map)" if name in side else name
        t.add_row(label, _fmt(value, unit), f"[{style}]{head}[/]", why)
        if name in side:
            head, why = _split_prov(profile.provenance_of(f"costs.reduce_side.{name}"))
            style = "green" if head == "measured" else "yellow"
            t.add_row(f"{name} (reduce)", _fmt(side[name], unit), f"[{style}]{head}[/]", why)
    for name, c in profile.codecs.items():
        head, why = _split_prov(c.source)
        t.add_row(f"codec {name} ratio", _fmt(c.ratio), f"[green]{head}[/]", why)
    return t


def _fit_table(profile) -> Table | None:  # noqa: ANN001
    facts = profile.cluster_facts
    from mrtune.calibration.cost_factors import SEGMENTS

    segs = [s for s in SEGMENTS if f"fit.{s}.n" in facts]
    if not segs:
        return None
    t = Table(
        title="Observed vs the calibrated model (profiled configuration, mean ms per task; "
        "shuffles that overlapped the maps are left out)"
    )
    t.add_column("segment")
    t.add_column("tasks", justify="right")
    t.add_column("observed", justify="right")
    t.add_column("model", justify="right")
    for s in segs:
        t.add_row(
            s,
            _fmt(facts.get(f"fit.{s}.n")),  # type: ignore[arg-type]
            _fmt(facts.get(f"fit.{s}.observed_ms")),  # type: ignore[arg-type]
            _fmt(facts.get(f"fit.{s}.model_ms")),  # type: ignore[arg-type]
        )
    return t


def print_summary(profile) -> None:  # noqa: ANN001
    """The rich summary of a profile."""
    f = profile.cluster_facts
    console.print(
        f"[bold]{profile.job_id}[/] {profile.job_name!r}  "
        f"source: {f.get('source_format', '?')} ({f.get('status', '?')})  "
        f"configuration: {f.get('conf_source', '?')}",
        highlight=False,
    )
    n_maps, n_red = f.get("num_maps"), f.get("num_reduces")
    console.print(
        f"maps {_fmt(n_maps)}  reduces {_fmt(n_red)}  input {_fmt(profile.input_bytes, 'B')} in "
        f"{profile.input_files} file(s)  combiner {'yes' if profile.has_combiner else 'no'}  "
        f"container MB map {_fmt(f.get('map_container_mb'))} ({f.get('map_container_mb_source', '?')}), "
        f"reduce {_fmt(f.get('reduce_container_mb'))}  "
        f"failed/killed attempts excluded: {_fmt(f.get('failed_attempts'))}/"
        f"{_fmt(f.get('killed_attempts'))}  duplicates dropped: "
        f"{_fmt(f.get('duplicate_attempt_events'))}",
        highlight=False,
    )
    check = self_check_table(profile)
    if check is not None:
        console.print(check)
    print_cluster(profile)
    if profile.observed:
        console.print(_phase_table(profile))
    console.print(_stats_table(profile))
    console.print(_costs_table(profile))
    fit = _fit_table(profile)
    if fit is not None:
        console.print(fit)
    measured = sum(
        1
        for k, v in profile.provenance.items()
        if k.startswith("costs.") and v.startswith("measured")
    )
    console.print(f"cost factors measured: {measured} of {len(type(profile.costs).model_fields)}")
    for w in profile.warnings:
        console.print(f"[yellow]warning:[/] {w}", highlight=False, soft_wrap=True)


app = typer.Typer()


@app.command("profile")
@cli_errors
def profile(
    path: Annotated[
        Path | None,
        typer.Argument(
            help="Job history: .jhist, saved JobHistory REST JSON (file or directory), "
            "Rumen trace (.json / .json.gz), or a Starfish profile XML with --from starfish."
        ),
    ] = None,
    conf: Annotated[
        Path | None,
        typer.Option("--conf", help="The job's configuration (*_conf.xml / job.xml)."),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the profile as JSON.")
    ] = None,
    fmt: Annotated[
        OutputFormat, typer.Option("--format", help="text (rich tables) or json.")
    ] = OutputFormat.text,
    source: Annotated[
        SourceKind, typer.Option("--from", help="Format of PATH (auto sniffs it).")
    ] = SourceKind.auto,
    job: Annotated[
        str | None,
        typer.Option("--job", help="Job id: for --jhs, or to pick one job of a Rumen trace."),
    ] = None,
    jhs: Annotated[
        str | None,
        typer.Option("--jhs", help="A live JobHistory server, e.g. http://host:19888."),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0.1, help="Seconds per --jhs request.")
    ] = 10.0,
    input_xml: Annotated[
        Path | None, typer.Option("--input", help="Starfish input-spec XML (--from starfish).")
    ] = None,
    cluster_xml: Annotated[
        Path | None, typer.Option("--cluster", help="Starfish cluster XML (--from starfish).")
    ] = None,
    machine: Annotated[
        Path | None,
        typer.Option(
            "--machine",
            help="Machine cost file (mrtune calibrate-machine), with --from run: the run "
            "then refits only the job's own costs.",
        ),
    ] = None,
    strict: bool = strict_option(),
) -> None:
    """Build a job profile from what the cluster recorded, and say what was measured."""
    prof = make_profile(
        path,
        conf=conf,
        source=source,
        job=job,
        jhs=jhs,
        timeout=timeout,
        input_xml=input_xml,
        cluster_xml=cluster_xml,
        machine=machine,
    )
    warn_calibration(prof, strict)
    data = prof.model_dump(mode="json")
    if output is not None:
        try:
            output.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror or exc}", path=str(output)) from None
    if fmt == OutputFormat.json:
        emit_json(data)
        return
    print_summary(prof)
    if output is not None:
        console.print(f"profile written to {output}", highlight=False)
    else:
        console.print("(use -o FILE to save the profile as JSON)", highlight=False)
