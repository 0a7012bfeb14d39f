"""Whether a job's mapper emits a deterministic share of its input records.

The model needs it for one rounding (:func:`mrtune.costmodel.map_task.map_output_records`):
a mapper that emits the first floor(n·p) of its n records (the selectivity job's) is exact
only with the floor, and any other mapper only without it, because a tokeniser's or a
filter's output per record is not a share and a floor per map drops up to one record a map
from the job's total. The evidence is each map's own counters: a share leaves every map
within one record of n·p for the job's p; a tokeniser over lines of varying length does
not, from two maps on. One map cannot tell the two apart, and is taken as no share.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mrtune.readers.run_records import RunRecord

#: The selectivity job's parameter: its mapper emits floor(n·p/100) records of a split.
SELECTIVITY_KEY = "mrtune.selectivity.percent"


def emits_share(pairs: Iterable[tuple[float, float]]) -> bool:
    """``True`` when the maps' ``(MAP_INPUT_RECORDS, MAP_OUTPUT_RECORDS)`` show a share:
    at least two maps with input, each within one record of n·p (p the job's
    output / input). A whole p with every map at exactly n·p (WordCount over lines of 12
    words, an identity mapper) is not one: a map whose input the model gives as a mean over
    files, 20,731.4 lines, emits 248,776.8 words on average, which a floor would cut. Nor
    are maps that are all alike, or whose share is a few records (a grep matching 2 lines
    in 400,000 over 4 maps: floored, the job would emit none)."""
    rows = [(float(i), float(o)) for i, o in pairs if i and i > 0]
    n_in = sum(i for i, _ in rows)
    if len(rows) < 2 or n_in <= 0:
        return False
    p = sum(o for _, o in rows) / n_in
    if abs(p - round(p)) < 1e-9 and all(o == i * round(p) for i, o in rows):
        return False  # a whole number of records a record: nothing to floor
    if len(set(rows)) < 2 or min(i * p for i, _ in rows) < MIN_SHARE_RECORDS:
        # maps alike, or a few records a map (a rare grep match: every map is within one
        # record of n·p whatever the mapper), tell nothing, and a floor would zero them
        return False
    return all(abs(o - i * p) < 1.0 for i, o in rows)


#: Fewest records a map's share must hold for its counters to show a share: below it any
#: mapper's output is within one record of n·p.
MIN_SHARE_RECORDS = 10.0


def map_counter_pairs(counters: Iterable[Mapping[str, float]]) -> list[tuple[float, float]]:
    """Each map's ``(MAP_INPUT_RECORDS, MAP_OUTPUT_RECORDS)``; a map without them ends the
    list empty (no evidence)."""
    out = []
    for c in counters:
        if "MAP_INPUT_RECORDS" not in c or "MAP_OUTPUT_RECORDS" not in c:
            return []
        out.append((float(c["MAP_INPUT_RECORDS"]), float(c["MAP_OUTPUT_RECORDS"])))
    return out


def run_emits_share(rec: RunRecord) -> bool:
    """:func:`emits_share` of a local run's maps; the selectivity job's mapper is a share
    whatever its run's p (at 100% every map is exactly n·1, and the job's other runs scale
    p from it: ``mrtune.calibration.run_inputs.profile_for_run``)."""
    if rec.job == "selectivity" or SELECTIVITY_KEY in rec.ran_with():
        return True
    counters = [
        {k: float(a.counter(k) or 0) for k in ("MAP_INPUT_RECORDS", "MAP_OUTPUT_RECORDS")}
        for a in rec.map_attempts
    ]
    return emits_share(map_counter_pairs(counters))


__all__ = ["SELECTIVITY_KEY", "emits_share", "map_counter_pairs", "run_emits_share"]
