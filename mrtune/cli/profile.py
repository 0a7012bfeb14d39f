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

from mrtune.cli._inputs import load_run_profile
from mrtune.cli._profile_view import COST_UNITS, PER_RECORD, print_summary  # noqa: F401 (COST_UNITS, PER_RECORD: re-exported)
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

    if source == SourceKind.auto and path is not None and path.is_file():
        from mrtune.readers import sniff_format

        if sniff_format(path) == "run":  # what hadoop-run writes: a record, a list, a .jsonl
            source = SourceKind.run
    if machine is not None and source != SourceKind.run:
        raise InputError("--machine applies to --from run only", field="--machine")
    if source == SourceKind.run:
        if path is None or not path.exists():
            raise InputError("file not found", path=str(path))
        return load_run_profile(path, job, machine)

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
    _refuse_saved_profile(path, source)
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


def _refuse_saved_profile(path: Path, source: SourceKind) -> None:
    """Say that PATH is already an mrtune profile, when it is one (the REST reader, which
    reads every other JSON object, said "no JobHistory REST response in the file" and listed
    REST keys). A profile is known as ``load_job`` knows it: ``input_bytes`` and ``stats``."""
    if source not in (SourceKind.auto, SourceKind.rest) or not path.is_file():
        return
    from mrtune.readers import safe_io, sniff_format

    if source == SourceKind.auto and sniff_format(path) != "rest":
        return
    try:
        data = safe_io.json_loads(safe_io.read_text(path), str(path))
    except InputError:
        return  # not one JSON value: the reader says what is wrong
    if isinstance(data, dict) and "input_bytes" in data and "stats" in data:
        raise InputError(
            "this is already an mrtune profile (what mrtune profile -o writes): give it to "
            "whatif, optimize, sweep or diagnose directly; profile reads a job history "
            "(.jhist, REST JSON, Rumen trace, run record)",
            path=str(path),
        )


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
