"""``mrtune example``: the bundled example files, wherever mrtune is installed.

The examples ship inside the package (``mrtune/examples/``, package data), so a wheel user can
follow the README from any directory: ``mrtune example wordcount-rumen`` prints the installed
path of that profile, ``-o FILE`` writes a copy, and no argument lists them all.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import typer

from mrtune.cli.console import OutputFormat, cli_errors, emit_json
from mrtune.errors import InputError

#: Example kinds and the folder (under ``mrtune/examples``) and file types each is kept in.
_KINDS = {"profile": ("profiles", "*.json"), "workflow": ("workflows", "*.yaml")}


def examples() -> dict[str, tuple[str, Path]]:
    """``{name: (kind, path)}`` of every bundled example (a name is its file's stem)."""
    root = Path(str(resources.files("mrtune") / "examples"))
    found: dict[str, tuple[str, Path]] = {}
    for kind, (folder, pattern) in _KINDS.items():
        for path in sorted((root / folder).glob(pattern)):
            found[path.stem] = (kind, path)
    return found


def _print_list(found: dict[str, tuple[str, Path]]) -> None:
    """One short line per example (its name, kind and file under the examples folder), then
    the folder once: a full path on every line made them wider than 80 columns. The full
    paths are in ``--format json``, and ``mrtune example NAME`` prints one for the shell."""
    from rich.markup import escape

    from mrtune.cli.console import console

    root = Path(str(resources.files("mrtune") / "examples"))
    width = max((len(n) for n in found), default=4)
    for name, (kind, path) in found.items():
        rel = path.relative_to(root) if path.is_relative_to(root) else path
        console.print(f"{name:<{width}}  {kind:<8}  {rel}", highlight=False, markup=False)
    console.print(
        f"[dim]files under {escape(str(root))}; mrtune example NAME prints one's path, "
        "-o FILE copies it[/]",
        highlight=False,
    )


app = typer.Typer()


@app.command("example")
@cli_errors
def example_cmd(
    name: str | None = typer.Argument(None, help="An example's name; none lists them all."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write a copy here."),
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
) -> None:
    """Print the path of a bundled example file (a profile or a workflow), or list them."""
    found = examples()
    if name is None:
        rows = [{"name": n, "kind": k, "path": str(p)} for n, (k, p) in found.items()]
        if fmt == OutputFormat.json:
            emit_json(rows)
            return
        _print_list(found)
        return
    if name not in found:
        raise InputError(
            "no such example", field="NAME", value=name, allowed=", ".join(sorted(found))
        )
    kind, path = found[name]
    if output is not None:
        if output.is_dir():
            output = output / path.name
        shutil.copyfile(path, output)
        path = output
    if fmt == OutputFormat.json:
        emit_json({"name": name, "kind": kind, "path": str(path)})
    else:
        # plain print: the path is meant for "$(mrtune example NAME)" in a shell
        typer.echo(str(path))
