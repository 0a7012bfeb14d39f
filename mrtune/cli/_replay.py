"""``--conf`` on a saved profile: the configuration file to start from (issue 16).

A history is profiled with ``--conf`` as the job's own configuration
(:func:`mrtune.cli._inputs.load_job`). A saved profile (``profile.json``) already carries the
configuration it ran with, so there ``--conf`` is a configuration to replay over it, never
ignored: ``whatif`` predicts it, ``optimize`` starts from it and compares its recommendation
with it (a Starfish recommendation, a cluster's ``mapred-site.xml``). The file is layered over
the profile's configuration with Hadoop's literal semantics
(:func:`mrtune.optimizer.whatif.replay_conf`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from mrtune.errors import InputError

if TYPE_CHECKING:
    from mrtune.costmodel import HadoopConfig, JobProfile


REPLAY_CONF_OPT = typer.Option(
    None,
    "--conf",
    help="With a history: the job's *_conf.xml. With a saved profile (JSON): a configuration "
    "to start from and compare with (e.g. a Starfish recommendation).",
)


def replayed_conf(profile: Path, conf: Path | None) -> dict[str, str] | None:
    """The properties ``--conf`` replays, when ``profile`` is a saved profile (None: no
    ``--conf``, or the profile is a history, which took ``--conf`` as its own)."""
    if conf is None or profile.suffix.lower() != ".json" or not profile.is_file():
        return None
    from mrtune.readers import safe_io
    from mrtune.readers.conf import load_conf

    try:
        data = safe_io.json_loads(safe_io.read_text(profile), str(profile))
    except InputError:
        return None  # not one JSON value: a history (Rumen), which took --conf as its own
    if not (isinstance(data, dict) and "input_bytes" in data and "stats" in data):
        return None
    loaded = load_conf(conf)
    if loaded.warnings:  # e.g. a later definition of a final property, ignored as Hadoop does
        from rich.markup import escape

        from mrtune.cli.console import err_console

        for line in loaded.warnings:
            err_console.print(f"[bold yellow]warning:[/] {escape(line)}", highlight=False)
    return loaded.properties


def start_config(
    profile_path: Path, conf: Path | None, profile: JobProfile, base: HadoopConfig
) -> tuple[HadoopConfig, list[str] | None]:
    """The configuration ``optimize`` starts from: ``base`` (the profile's own), or with a
    saved profile, ``--conf`` replayed over it. The second item lists the file's properties
    the model does not read (None: nothing was replayed)."""
    props = replayed_conf(profile_path, conf)
    if props is None:
        return base, None
    from mrtune.optimizer.whatif import replay_conf

    return replay_conf(base, props, profile, source=str(conf))


def report_start(conf: Path | None, not_modelled: list[str] | None, data: dict | None) -> None:
    """Say that ``optimize`` started from the replayed file: one line on the console, or
    ``start_conf`` in the ``--format json`` record ``data`` (None when nothing was replayed)."""
    if data is not None:
        data["start_conf"] = (
            None if not_modelled is None else {"path": str(conf), "not_modelled": not_modelled}
        )
        return
    if not_modelled is None:
        return
    from mrtune.cli.console import console

    tail = f"; {len(not_modelled)} of its properties not modelled" if not_modelled else ""
    console.print(
        f"current configuration: {conf} replayed over the saved profile{tail}", highlight=False
    )
