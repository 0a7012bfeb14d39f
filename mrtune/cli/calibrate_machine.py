"""``mrtune calibrate-machine``: this machine's cost factors from a benchmark of real runs.

A job profiled on one run at Hadoop's defaults cannot identify the machine's merge, seek,
shuffle and codec costs (``mrtune.calibration.machine``). This command fits them once on a benchmark
(``mrtune/harness/matrices/machine.yaml``, run with ``mrtune hadoop-matrix``) and writes a machine
cost file that ``mrtune validate --machine`` and ``profile_from_run(..., machine=...)`` start
every job's calibration from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from mrtune.cli.console import OutputFormat, cli_errors, console, emit_json, working

#: Cost factors shown in the table, with their unit.
_UNITS = {
    "hdfs_read": "ns/byte",
    "hdfs_write": "ns/byte",
    "local_read": "ns/byte",
    "local_write": "ns/byte",
    "network": "ns/byte",
    "map_cpu": "ns/record",
    "reduce_cpu": "ns/record",
    "partition_cpu": "ns/record",
    "serde_cpu": "ns/record",
    "sort_cpu": "ns/comparison",
    "merge_cpu": "ns/record",
    "spill_file_ns": "ns/spill",
    "segment_seek_ns": "ns/segment",
    "fetch_ns": "ns/fetch",
    "task_overhead_ms": "ms/task",
    "serde_byte_cpu": "ns/byte",
    "combine_byte_cpu": "ns/byte",
}


app = typer.Typer()


@app.command("calibrate-machine")
@cli_errors
def calibrate_machine(
    runs: Annotated[
        Path,
        typer.Argument(
            exists=True, dir_okay=False, help="Run records of the machine benchmark (.jsonl)."
        ),
    ],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Write the machine cost file here.")
    ] = Path("machine-costs.json"),
    per_byte: Annotated[
        bool,
        typer.Option(
            "--per-byte/--per-record",
            help="Also fit the per-byte CPU factors (serde_byte_cpu, combine_byte_cpu) "
            "jointly with the per-record ones, where the runs' record widths differ by "
            "10% or more (off by default: on the project's benchmark they did not improve "
            "held-out predictions).",
        ),
    ] = False,
    format: Annotated[OutputFormat, typer.Option("--format")] = OutputFormat.text,
) -> None:
    """Fit this machine's cost factors on a benchmark of real runs (all jointly)."""
    from mrtune.calibration.machine import fit_machine_from_runs
    from mrtune.cli._input_kinds import refuse_yarn_index
    from mrtune.cli._inputs import load_run_records
    from mrtune.costmodel.profile import CODEC_PRIORS, CostFactors

    refuse_yarn_index(runs, "calibrate-machine")
    ok = [r for r in load_run_records(runs, need_success=True) if r.success]
    with working(f"fitting the machine's cost factors on {len(ok)} runs"):
        machine = fit_machine_from_runs(
            ok, source=f"{runs.name}, {len(ok)} runs", per_byte=per_byte
        )
    machine.save(output)
    if format == OutputFormat.json:
        emit_json(machine.model_dump(mode="json"))
        return
    table = Table(title=f"Machine cost factors ({machine.source})")
    defaults = CostFactors()
    for col in ("factor", "value", "unit", "× documented default"):
        table.add_column(col, justify="left" if col in ("factor", "unit") else "right")
    for name, unit in _UNITS.items():
        v, d = getattr(machine.costs, name), getattr(defaults, name)
        table.add_row(name, f"{v:,.3g}", unit, f"{v / d:.3g}" if d else "")
    for name, cpu in machine.codecs.items():
        prior = CODEC_PRIORS[name]
        table.add_row(
            f"codec {name}",
            f"{cpu.compress_ns_per_byte:.3g} / {cpu.uncompress_ns_per_byte:.3g}",
            "ns/byte compress / uncompress",
            f"{cpu.compress_ns_per_byte / prior.compress_ns_per_byte:.3g}",
        )
    console.print(table)
    seg = Table(title="Fit quality: mean phase time per attempt, observed vs model")
    for col in ("segment", "attempts", "observed ms", "model ms"):
        seg.add_column(col, justify="left" if col == "segment" else "right")
    for s in machine.segments:
        seg.add_row(s.segment, str(s.n), f"{s.observed_mean_ms:,.0f}", f"{s.model_mean_ms:,.0f}")
    console.print(seg)
    console.print(
        f"written: {output} (every factor's provenance is in the file; use it with "
        "mrtune validate --machine)"
    )
