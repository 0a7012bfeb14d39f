"""``mrtune schema``: the JSON schema of mrtune's input files (for editors and validators)."""

from __future__ import annotations

from enum import StrEnum

import typer

from mrtune.cli.console import OutputFormat, cli_errors, emit_json


class SchemaName(StrEnum):
    profile = "profile"
    config = "config"
    cluster = "cluster"


app = typer.Typer()


@app.command("schema")
@cli_errors
def schema_cmd(
    name: SchemaName = typer.Argument(..., help="profile, config or cluster"),
    fmt: OutputFormat = typer.Option(
        OutputFormat.json, "--format", help="json; text prints the same JSON (a schema is JSON)"
    ),
) -> None:
    """Print the JSON schema of a profile, a Hadoop configuration or a cluster file."""
    del fmt  # every command takes --format; a schema has one form
    from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile

    model = {"profile": JobProfile, "config": HadoopConfig, "cluster": ClusterSpec}[name]
    emit_json(model.model_json_schema(by_alias=True))
