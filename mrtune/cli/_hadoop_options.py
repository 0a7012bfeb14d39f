"""The parameters of ``mrtune hadoop-run``, declared once as ``Annotated`` types, and the run
mode they choose from.

Why a module of its own: declared inline, the 22 parameters were 57 of the command's ~110
lines; as named types the command reads as parse → call → render, and ``--help`` is
unchanged (each parameter keeps its name, its default and its ``typer.Option``).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from mrtune.cli.console import OutputFormat


class Mode(StrEnum):
    """The two referees: LocalJobRunner and Hadoop's mini-cluster (HDFS + YARN + JHS)."""

    local = "local"
    yarn = "yarn"


ArgsParam = Annotated[
    list[str] | None,
    typer.Argument(
        help="JOB (wordcount, sort, selectivity) for the project's jobs; with --jar, the "
        "job's own arguments (after --)."
    ),
]
JarParam = Annotated[
    Path | None, typer.Option("--jar", help="Any MapReduce job jar (as `hadoop jar`).")
]
MainClassParam = Annotated[str | None, typer.Option("--class", help="Main class of --jar.")]
LabelParam = Annotated[
    str | None, typer.Option("--label", help="Name the runs are recorded under.")
]
ModeParam = Annotated[
    Mode, typer.Option("--mode", help="local: LocalJobRunner; yarn: Hadoop's mini-cluster.")
]
PutParam = Annotated[
    list[str] | None,
    typer.Option("--put", help="yarn: LOCAL=HDFS path copied in before the job."),
]
SetParam = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="For the project's jobs (JOB): a Hadoop property KEY=VALUE passed as -D "
        "(repeatable), or a job option mrtune.JOB.OPTION: wordcount.combiner, "
        "sort.partitioner (hash or total), selectivity.percent. Not with --jar: give -D "
        "KEY=VALUE among the job's ARGS after --.",
    ),
]
InputMbParam = Annotated[
    float,
    typer.Option("--input-mb", min=0.001, help="Size of the generated input in MiB."),
]
SeedParam = Annotated[int, typer.Option(help="Seed of the generated input.")]
JarsParam = Annotated[
    str | None, typer.Option("--jars", help="Folder of Hadoop jars or a HADOOP_HOME.")
]
RepeatParam = Annotated[int, typer.Option("--repeat", min=1, help="Number of runs.")]
XmxParam = Annotated[int, typer.Option("--xmx", min=64, help="JVM max heap in MiB.")]
NodemanagersParam = Annotated[int, typer.Option(min=1, help="yarn: NodeManagers.")]
NmMemoryMbParam = Annotated[int, typer.Option(min=256, help="yarn: memory per NM.")]
NmVcoresParam = Annotated[int, typer.Option(min=1, help="yarn: vcores per NM.")]
ContainerMbParam = Annotated[int, typer.Option(min=128, help="yarn: task container.")]
BlockMbParam = Annotated[float, typer.Option(min=0.0625, help="yarn: HDFS block MiB.")]
DatanodesParam = Annotated[int, typer.Option(min=1, help="yarn: DataNodes.")]
ReplicationParam = Annotated[int, typer.Option(min=1, help="yarn: HDFS replication.")]
OutputParam = Annotated[
    Path | None,
    typer.Option("-o", "--output", help="Write the record (.json) or records (.jsonl) here."),
]
KeepParam = Annotated[
    Path | None, typer.Option("--keep", help="Keep the run folders (log, conf) here.")
]
FormatParam = Annotated[OutputFormat, typer.Option("--format")]
