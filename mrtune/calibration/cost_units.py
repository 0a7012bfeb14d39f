"""Per-record or per-byte CPU: what the runs can tell, fitted where they can, stated where not
(issue 20 item 4).

The model prices the framework's and the job's CPU per record (``map_cpu``, ``serde_cpu``,
``partition_cpu``, ``combine_cpu``, ``merge_cpu``, ``reduce_cpu``; reference §2) and disk,
network and codec work per byte. A job whose work scales with bytes (a list-building
combiner, long text lines) is mispriced when a configuration changes the record width. Two
per-byte CPU factors sit beside the per-record ones where Hadoop's code does work per byte
that no per-byte factor already prices (:data:`~mrtune.costmodel.profile.PER_BYTE_FACTORS`):

* ``serde_byte_cpu``: ``MapTask.MapOutputBuffer.collect`` serializes the key and value into
  the sort buffer, byte by byte through ``MapOutputBuffer.Buffer.write`` (collect phase);
* ``combine_byte_cpu``: the combiner's ``ReduceContextImpl`` deserializes every key and
  value byte it is given (a list-building combiner then copies each value into its list).

The other places Hadoop touches every byte already have a per-byte factor, so no CPU term is
added there: the spill's IFile copy and CRC (``IFile.Writer``, ``IFileOutputStream``) are in
``spill_write``, the merges' copies (``Merger`` through ``IFile.Reader``/``Writer``) in
``local_read``/``local_write``, the shuffle's copy in ``network``, the output format's in
``hdfs_write``. The sort's comparisons (``WritableComparator.compareBytes``) stop at the first
byte that differs: their cost follows the keys' common prefixes, not the record's width, and
stays per comparison (``sort_cpu``). The reducer's own deserialization is not split: in every
recorded run its input bytes are proportional to its output bytes (``hdfs_write``, within 4%
across the machine benchmark's widths), so no run can tell the two apart.

The two are separable only where record widths vary: across the maps of one history
(different bytes per record in each split), or across runs (the machine benchmark varies
them: 21, 100 and 413 B). A fit asked to (``fit_cost_factors(per_byte=True)``,
``mrtune calibrate-machine --per-byte``) prices a per-byte factor where
:func:`separable_terms` finds a spread of :data:`SEPARABLE_SPREAD` at least, starting it at
:data:`BYTE_STARTS`, each map at its own width (``unit_models._attempt_widths``).

It is not asked to by default, because the terms did not earn their place held out
(``benchmarks/per_byte_study.py``, ``benchmarks/results/per-byte-study.json``): with each
width of the machine benchmark left out of the fit in turn, the joint fit moved the summed
task time of the left-out runs from −0.1% to −1.5% (21 B), +16.9% to +17.5% (100 B) and
not at all (413 B, where the fit put the per-byte share at ~0); fitted on all 84 runs it is
0.005 ns/B. So the profile says which unit was assumed and why
(``profile.provenance["costs.cpu_per_record_or_per_byte"]``).
"""

from __future__ import annotations

from collections.abc import Iterable

from mrtune.calibration.run_record import counter_value
from mrtune.costmodel.profile import PER_BYTE_FACTORS, CostFactors, JobProfile, TaskTiming
from mrtune.readers.run_records import RunRecord

#: The provenance key the statement is stored under.
COST_UNIT_KEY = "costs.cpu_per_record_or_per_byte"
#: A spread of bytes per record below this across maps (or runs) cannot separate the two (it
#: is within the phase times' own run-to-run noise, optimizer/noise.py: a few percent).
SEPARABLE_SPREAD = 0.10
#: Where a fit that can separate them starts each per-byte factor, ns per byte: about one
#: JVM byte copy through a DataOutputStream (``System.arraycopy`` is ~0.1 ns/B, a per-byte
#: ``write`` loop ~1-2 ns/B). The start is a weak prior: the phase times move it freely.
BYTE_STARTS: dict[str, float] = {"serde_byte_cpu": 1.0, "combine_byte_cpu": 1.0}


def spread(widths: Iterable[float]) -> tuple[float, int]:
    """``(max/min − 1, count)`` of the positive ``widths`` (0 below two of them)."""
    w = [x for x in widths if x > 0]
    if len(w) < 2:
        return 0.0, len(w)
    return max(w) / min(w) - 1.0, len(w)


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
    return spread(widths)


def map_output_widths(observed: Iterable[TaskTiming]) -> list[float]:
    """MAP_OUTPUT_BYTES / MAP_OUTPUT_RECORDS of each observed map attempt that has both."""
    out = []
    for t in observed:
        n, b = t.counters.get("MAP_OUTPUT_RECORDS", 0.0), t.counters.get("MAP_OUTPUT_BYTES", 0.0)
        if t.kind == "map" and n > 0 and b > 0:
            out.append(b / n)
    return out


def separable_terms(profiles: Iterable[JobProfile]) -> tuple[str, ...]:
    """The per-byte CPU factors ``profiles``' observed maps can separate from the per-record
    ones: ``serde_byte_cpu`` when their map output widths spread by :data:`SEPARABLE_SPREAD`
    or more, and ``combine_byte_cpu`` too when a combiner ran in any of them."""
    profiles = list(profiles)
    s, _ = spread(w for p in profiles for w in map_output_widths(p.observed))
    if s < SEPARABLE_SPREAD:
        return ()
    combined = any(
        p.has_combiner and any(t.counters.get("COMBINE_INPUT_RECORDS", 0) > 0 for t in p.observed)
        for p in profiles
    )
    return tuple(f for f in PER_BYTE_FACTORS if f != "combine_byte_cpu" or combined)


def with_byte_starts(prior: CostFactors, terms: Iterable[str]) -> CostFactors:
    """``prior`` with each of ``terms`` at its :data:`BYTE_STARTS` value where it is 0 (a
    per-byte factor is a column of a fit only when its prior is above 0)."""
    update = {f: BYTE_STARTS[f] for f in terms if getattr(prior, f) <= 0}
    return prior.model_copy(update=update) if update else prior


def cost_unit_statement(
    profile: JobProfile, machine_source: str | None = None, rec: RunRecord | None = None
) -> str:
    """Which unit the profile's CPU factors are in, and why (the width spreads its history
    shows: its maps' output, and with a run record ``rec`` their input splits too)."""
    s_out, n_out = spread(map_output_widths(profile.observed))
    seen = f"{s_out:.2%} (map output, {n_out} maps)"
    if rec is not None:
        s_in, n_in = width_spread(rec, "MAP_INPUT_RECORDS", "split_length")
        seen = f"{s_in:.2%} (input splits, {n_in} maps) and {seen}"
    seen = f"bytes per record vary by {seen} across this history's maps"
    priced = [f for f in PER_BYTE_FACTORS if getattr(profile.costs, f) > 0]
    if priced:
        parts = ", ".join(f"{f} {getattr(profile.costs, f):.3g} ns/B" for f in priced)
        by = "this history's maps" if s_out >= SEPARABLE_SPREAD else f"{machine_source}"
        return (
            f"fitted: CPU per record and per byte jointly ({parts}; separated by {by}), "
            f"I/O and codecs per byte: {seen}"
        )
    base = "assumed: CPU per record (map, serde, partition, combine, merge, reduce), I/O and codecs per byte"
    if machine_source:
        base += (
            f"; the framework's per-record factors are the machine benchmark's ({machine_source})"
        )
    if s_out < SEPARABLE_SPREAD:
        return f"{base}: {seen}, under {SEPARABLE_SPREAD:.0%}: one history cannot separate them"
    return (
        f"{base}: {seen}, enough to separate them, but a per-byte share is fitted only on "
        "request (fit_cost_factors(per_byte=True)): on the machine benchmark it did not "
        "improve the predictions of a record width left out of the fit"
    )
