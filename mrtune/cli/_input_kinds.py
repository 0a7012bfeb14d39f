"""One-line refusals of an input a command does not take, naming the command that does.

Why a module of its own: the readers (:mod:`mrtune.readers`) sit below :mod:`mrtune.harness`,
so they cannot recognise the index ``hadoop-run --mode yarn`` writes
(:func:`mrtune.harness.yarn_fidelity.is_history_index`); without that, ``fit``,
``hadoop-summary`` and ``calibrate-machine`` called that runs.jsonl "not a file of run records
(mrtune hadoop-run's runs.jsonl)", which contradicts itself. And :mod:`mrtune.cli._inputs` is
at its size limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mrtune.errors import InputError

#: What ``fit`` reads, for the lines that refuse something else.
PHASE_DATA = (
    "phase-data files: a long-format .csv, or the runs.jsonl of `mrtune hadoop-run` (local mode)"
)


def yarn_index_line(path: Path, command: str | None = None) -> str | None:
    """Why ``path`` is refused when it is the runs.jsonl of ``hadoop-run --mode yarn`` (index
    entries naming .jhist histories, not run records), else ``None``. ``command``: the name of
    the command refusing it (``fit``), else "this command"."""
    from mrtune.harness.yarn_fidelity import is_history_index

    try:
        if not (path.is_file() and is_history_index(path)):
            return None
    except (OSError, UnicodeDecodeError):
        return None
    who = f"`mrtune {command}`" if command else "this command"
    return (
        "a YARN run index (hadoop-run --mode yarn: one entry a job history, .jhist), which "
        f"{who} does not take (it reads the run records of local runs): give it to "
        "`mrtune validate`, or profile one of its .jhist files with `mrtune profile`"
    )


def refuse_yarn_index(path: Path, command: str) -> None:
    """One line naming ``command`` when ``path`` is a YARN run index (:func:`yarn_index_line`)."""
    line = yarn_index_line(path, command)
    if line is not None:
        raise InputError(line, path=str(path))


def check_phase_data_paths(paths: Sequence[Path]) -> None:
    """Refuse, in one line each, a directory or a YARN run index given to ``fit`` (an empty
    directory was "cannot read: no such file")."""
    for path in paths:
        if path.is_dir():
            empty = not any(path.iterdir())
            raise InputError(
                ("an empty directory" if empty else "a directory")
                + f", not a file: fit reads {PHASE_DATA}"
                + ("" if empty else "; name the files (e.g. DIR/*.jsonl)"),
                path=str(path),
            )
        refuse_yarn_index(path, "fit")


def not_run_records(path: Path, exc: Exception) -> str:
    """Why ``path`` is not run records, naming what it is when that is known (a profile gave
    "30 validation errors for RunRecord"). Here rather than in :mod:`mrtune.cli._inputs`, at its
    size limit."""
    from mrtune.readers import sniff_format

    if (yarn := yarn_index_line(path)) is not None:
        return yarn
    try:
        kind = sniff_format(path)
    except InputError:
        kind = None
    text = path.read_text(encoding="utf-8", errors="replace")[:4096] if path.is_file() else ""
    if kind in ("jhist", "rumen"):
        return (
            f"a job history ({kind}), not run records: validate reads the runs.jsonl of "
            "mrtune hadoop-run; profile a history with mrtune profile"
        )
    if '"input_bytes"' in text and '"stats"' in text:
        return "a job profile, not run records: validate reads the runs.jsonl of mrtune hadoop-run"
    first = str(exc).splitlines()
    detail = first[0] if len(first) < 2 else f"{first[1].strip()}: {first[2].strip()}"
    return f"not a file of run records (mrtune hadoop-run's runs.jsonl): {detail}"[:300]
