"""Real-Hadoop commands: run the project's jobs in local mode and record every run.

``mrtune hadoop-run JOB`` runs one job (WordCount, sort, selectivity) with ``--set`` Hadoop
properties on generated input and writes a :class:`mrtune.readers.run_records.RunRecord` per run;
``mrtune hadoop-matrix MATRIX.yaml`` runs a whole matrix (``mrtune/harness/matrices/*.yaml``) into a
JSONL file. The Hadoop jars come from ``--jars``, ``$HADOOP_HOME``, an installed pyspark, or
``python -m mrtune.harness.jars fetch``.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from mrtune.cli._hadoop_options import (
    ArgsParam,
    BlockMbParam,
    ContainerMbParam,
    DatanodesParam,
    FormatParam,
    InputMbParam,
    JarParam,
    JarsParam,
    KeepParam,
    LabelParam,
    MainClassParam,
    Mode,
    ModeParam,
    NmMemoryMbParam,
    NmVcoresParam,
    NodemanagersParam,
    OutputParam,
    PutParam,
    RepeatParam,
    ReplicationParam,
    SeedParam,
    SetParam,
    XmxParam,
)
from mrtune.cli.console import (
    OutputFormat,
    cli_errors,
    console,
    emit_json,
    err_console,
    working,
)
from mrtune.errors import InputError


class JobName(StrEnum):
    """The project's Java jobs (``validation/java``)."""

    wordcount = "wordcount"
    sort = "sort"
    selectivity = "selectivity"
    postings = "postings"


def _runs_table(rows: list[dict[str, object]], title: str) -> Table:
    table = Table(title=title)
    for col in (
        "label",
        "runs",
        "maps",
        "spills/map",
        "SPILLED_RECORDS",
        "shuffle bytes",
        "fetch mem/disk",
        "job ms (median)",
    ):
        table.add_column(col, justify="left" if col == "label" else "right")
    for r in rows:
        spills = r.get("spills_per_map") or []
        spill_txt = (
            str(spills[0]) if spills and len(set(spills)) == 1 else ",".join(map(str, spills))
        )
        table.add_row(
            str(r["label"]),
            f"{r.get('ok')}/{r.get('runs')}",
            str(r.get("maps", "")),
            spill_txt,
            str(r.get("SPILLED_RECORDS", "")),
            str(r.get("REDUCE_SHUFFLE_BYTES", "")),
            f"{r.get('fetches_to_memory', '')}/{r.get('fetches_to_disk', '')}",
            f"{r['job_time_ms']:.0f}" if r.get("job_time_ms") is not None else "-",
        )
    return table


app = typer.Typer()


@app.command("hadoop-run")
@cli_errors
def hadoop_run(
    args: ArgsParam = None,
    jar: JarParam = None,
    main_class: MainClassParam = None,
    label: LabelParam = None,
    mode: ModeParam = Mode.local,
    put: PutParam = None,
    set_: SetParam = None,
    input_mb: InputMbParam = 64.0,
    seed: SeedParam = 0,
    jars: JarsParam = None,
    repeat: RepeatParam = 1,
    xmx: XmxParam = 2048,
    nodemanagers: NodemanagersParam = 2,
    nm_memory_mb: NmMemoryMbParam = 1024,
    nm_vcores: NmVcoresParam = 4,
    container_mb: ContainerMbParam = 256,
    block_mb: BlockMbParam = 4.0,
    datanodes: DatanodesParam = 3,
    replication: ReplicationParam = 2,
    output: OutputParam = None,
    keep: KeepParam = None,
    format: FormatParam = OutputFormat.text,
) -> None:
    """Run a MapReduce job (a project job or any jar) on real Hadoop and record the run.

    mrtune hadoop-run JOB: a project job (wordcount, sort, selectivity).

    mrtune hadoop-run --jar JOB.jar --class MAIN [--label NAME] [--mode local|yarn] -- ARGS

    With --jar or --mode yarn: run folders and runs.jsonl under --keep (./mrtune-runs).

    A YARN run keeps its .jhist and _conf.xml, for mrtune profile and mrtune validate.

    A driver that runs several jobs is recorded as one run per job: NAME#1, NAME#2, ...
    """
    positional = list(args or [])
    if jar is None and mode == Mode.local:
        if len(positional) != 1 or positional[0] not in JobName.__members__:
            raise InputError(
                "give one project job, or --jar and --class",
                field="JOB",
                value=" ".join(positional) or None,
                allowed=", ".join(JobName.__members__),
            )
        _run_project_local(
            JobName(positional[0]), set_, input_mb, seed, jars, repeat, xmx, output, keep, format
        )
        return
    from mrtune.cli._hadoop_any import run_any

    run_any(
        positional,
        jar,
        main_class,
        label,
        mode.value,
        put,
        set_,
        input_mb,
        seed,
        jars,
        repeat,
        xmx,
        output,
        keep,
        format,
        dict(
            nodemanagers=nodemanagers,
            nm_memory_mb=nm_memory_mb,
            nm_vcores=nm_vcores,
            container_mb=container_mb,
            block_mb=block_mb,
            datanodes=datanodes,
            replication=replication,
        ),
    )


def _run_project_local(
    job: JobName,
    set_: list[str] | None,
    input_mb: float,
    seed: int,
    jars: str | None,
    repeat: int,
    xmx: int,
    output: Path | None,
    keep: Path | None,
    format: OutputFormat,
) -> None:
    """The project's job in local mode, recorded as RunRecords (the driver's report)."""
    from mrtune.harness.assemble import build_record
    from mrtune.harness.datagen import ensure_input, input_kind_for_job
    from mrtune.harness.jars import find_jars
    from mrtune.harness.runner import (
        check_settings,
        cleanup_run_dir,
        parse_set_options,
        run_job,
    )
    from mrtune.harness.summary import summarize
    from mrtune.readers.run_records import write_jsonl

    settings = parse_set_options(set_ or [])
    check_settings(settings)
    hadoop = find_jars(jars)
    input_dir, meta = ensure_input(input_kind_for_job(job.value), input_mb, seed)
    base = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="mrtune-hadoop-run-"))
    records = []
    try:
        for i in range(repeat):
            run_dir = base / f"{job.value}-r{i}"
            if format == OutputFormat.text:
                err_console.print(f"run {i + 1}/{repeat}: {job.value} …", highlight=False)
            with working(f"{job.value}: job …"):
                art = run_job(
                    job.value, settings, input_dir, run_dir, hadoop, xmx_mb=xmx, input_meta=meta
                )
            rec = build_record(art, label=job.value, repeat=i)
            records.append(rec)
            cleanup_run_dir(run_dir, keep_log=keep is not None)
            if not rec.success:
                raise InputError(f"Hadoop run failed: {rec.error}")
    finally:
        if keep is None:
            shutil.rmtree(base, ignore_errors=True)
    if output is not None:
        if str(output).endswith(".jsonl"):
            write_jsonl(records, output)
        elif len(records) == 1:
            output.write_text(records[0].model_dump_json(indent=1), encoding="utf-8")
        else:
            output.write_text(
                "[" + ",\n".join(r.model_dump_json() for r in records) + "]\n",
                encoding="utf-8",
            )
    if format == OutputFormat.json:
        emit_json(records[0] if len(records) == 1 else records)
        return
    console.print(_runs_table(summarize(records), f"Hadoop {hadoop.hadoop_version} local run"))
    if output is not None:
        console.print(f"wrote {len(records)} record(s) to {output}")


@app.command("hadoop-matrix")
@cli_errors
def hadoop_matrix(
    matrix: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Matrix YAML file.")],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="JSONL file the records are appended to.")
    ],
    jars: Annotated[
        str | None, typer.Option("--jars", help="Folder of Hadoop jars or a HADOOP_HOME.")
    ] = None,
    only: Annotated[
        str | None, typer.Option("--only", help="Run only labels containing this text.")
    ] = None,
    work_dir: Annotated[
        Path | None, typer.Option("--work-dir", help="Where run folders (logs) are kept.")
    ] = None,
    mode: Annotated[
        Mode, typer.Option("--mode", help="local: LocalJobRunner; yarn: one mini-cluster.")
    ] = Mode.local,
    format: Annotated[OutputFormat, typer.Option("--format")] = OutputFormat.text,
) -> None:
    """Run a matrix of real-Hadoop runs (resumable) and print per-label medians."""
    if mode == Mode.yarn:
        _yarn_matrix(matrix, output, work_dir, only, format)
        return
    from mrtune.harness.jars import find_jars
    from mrtune.harness.matrix import load_matrix, run_matrix
    from mrtune.harness.summary import summarize
    from mrtune.readers.run_records import read_jsonl

    spec = load_matrix(matrix)
    hadoop = find_jars(jars)
    run_matrix(
        spec,
        output,
        hadoop,
        work_dir=work_dir,
        only=(lambda e: only in e.label) if only else None,
        progress=(lambda s: err_console.print(s, highlight=False))
        if format == OutputFormat.text
        else None,
    )
    rows = summarize(read_jsonl(output)) if output.is_file() else []
    if format == OutputFormat.json:
        emit_json(rows)
        return
    console.print(_runs_table(rows, f"{spec.name}: medians over repeats"))


def _yarn_matrix(matrix: Path, output: Path, work_dir, only, format) -> None:
    """``hadoop-matrix --mode yarn``: every run on one mini-cluster, real histories kept."""
    from mrtune.harness.jars import default_cache_dir
    from mrtune.harness.yarn_matrix import load_yarn_matrix, run_yarn_matrix

    spec = load_yarn_matrix(matrix)
    if only:
        spec.runs = [r for r in spec.runs if only in r.label]
        spec.grids = []
        if not spec.runs:
            raise InputError("no run label contains this text", field="--only", value=only)
    work = work_dir or default_cache_dir() / "runs" / f"{spec.name}-{int(time.time())}"
    entries = run_yarn_matrix(
        spec,
        work,
        output,
        progress=(lambda s: err_console.print(s, highlight=False))
        if format == OutputFormat.text
        else None,
    )
    if format == OutputFormat.json:
        emit_json(entries)
        return
    ok = sum(e["success"] for e in entries)
    console.print(f"{ok} of {len(entries)} YARN runs succeeded; index: {output}")
    console.print(f"report: mrtune validate {output}")


@app.command("hadoop-summary")
@cli_errors
def hadoop_summary(
    runs: Annotated[
        Path,
        typer.Argument(
            exists=True,
            dir_okay=False,
            help="Run records of local runs (.jsonl/.json); a YARN runs.jsonl is for validate.",
        ),
    ],
    format: Annotated[OutputFormat, typer.Option("--format")] = OutputFormat.text,
) -> None:
    """Per-label medians of recorded real-Hadoop runs (spills, counters, times)."""
    from mrtune.cli._input_kinds import refuse_yarn_index
    from mrtune.cli._inputs import load_run_records
    from mrtune.harness.summary import summarize

    refuse_yarn_index(runs, "hadoop-summary")
    rows = summarize(load_run_records(runs))
    if format == OutputFormat.json:
        emit_json(rows)
        return
    console.print(_runs_table(rows, f"{runs}: medians over repeats"))
