"""Per-record or per-byte CPU: what one run can tell, stated in the profile (issue 20 item 4).

The model prices the framework's and the job's CPU per record (``map_cpu``, ``serde_cpu``,
``partition_cpu``, ``combine_cpu``, ``merge_cpu``, ``reduce_cpu``; reference §2) and disk,
network and codec work per byte. A job whose work scales with bytes (a list-building
combiner, long text lines) is mispriced when a configuration changes the record width. The
two are only separable where record widths vary: across the maps of one run (different
bytes per record in each split), across several runs, or in the machine benchmark. Within
one run of the harness they barely vary (fixed-width records; text lines average out over a
32 MiB split), so no per-byte CPU term is fitted on a job's calibration run, and this module
records the measured spread so that the assumption is visible, not silent
(``profile.provenance["costs.cpu_per_record_or_per_byte"]``).
"""

from __future__ import annotations

from mrtune.calibration.run_record import counter_value
from mrtune.readers.run_records import RunRecord

#: The provenance key the statement is stored under.
COST_UNIT_KEY = "costs.cpu_per_record_or_per_byte"
#: A spread of bytes per record below this across maps cannot separate the two (it is within
#: the phase times' own run-to-run noise, optimizer/noise.py: a few percent).
SEPARABLE_SPREAD = 0.10


def width_spread(rec: RunRecord, records: str, size: str) -> tuple[float, int]:
    """``(max/min − 1 of bytes per record over the run's maps, maps counted)``; ``size`` is a
    task counter (MAP_OUTPUT_BYTES) or ``"split_length"`` (the map's split)."""
    widths = []
    for a in rec.map_attempts:
        n = counter_value(a.counters, records)
        b = (
            float(a.split_length or 0)
            if size == "split_length"
            else counter_value(a.counters, size)
        )
        if n > 0 and b > 0:
            widths.append(b / n)
    if len(widths) < 2:
        return 0.0, len(widths)
    return max(widths) / min(widths) - 1.0, len(widths)


def cost_unit_statement(rec: RunRecord, machine_source: str | None) -> str:
    """Which unit the profile's CPU factors assume, and why (the spreads this run shows)."""
    s_in, n_in = width_spread(rec, "MAP_INPUT_RECORDS", "split_length")
    s_out, n_out = width_spread(rec, "MAP_OUTPUT_RECORDS", "MAP_OUTPUT_BYTES")
    spread = (
        f"bytes per record vary by {s_in:.2%} (input splits, {n_in} maps) and {s_out:.2%} "
        f"(map output, {n_out} maps) across this run's maps"
    )
    base = "assumed: CPU per record (map, serde, partition, combine, merge, reduce), I/O and codecs per byte"
    if machine_source:
        base += (
            f"; the framework's per-record factors are the machine benchmark's ({machine_source})"
        )
    if max(s_in, s_out) < SEPARABLE_SPREAD:
        return f"{base}: {spread}, under {SEPARABLE_SPREAD:.0%}: one run cannot separate them"
    return (
        f"{base}: {spread}; enough to separate a per-byte CPU term, which this version does "
        "not fit on one run (calibrate several runs of different widths to test it)"
    )
