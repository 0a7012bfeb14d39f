"""Partitions of unequal size, found where the profile is made.

The job model gives every reduce the mean partition unless the profile says otherwise
(``costmodel/partitions.py``). A partitioner that sends most records to one reduce breaks that:
the examples' SecondarySort with 70% of its records on one first key sent 27.1 MB to one of 4
reduces and 2.6 MB to each other; priced at the mean, the big reduce's fetches (to memory or
disk), merges and time were understated, and more reducers looked like they would split it.
:func:`partition_skew` reads the reduces' shares into a
:class:`~mrtune.costmodel.profile.PartitionSkew` (a hot share the model keeps whole at any
number of reducers) and the profile's line that says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from mrtune.costmodel.partitions import SKEW_RATIO, hot_share_of
from mrtune.costmodel.profile import PartitionSkew, TaskTiming

#: The line's opening words (what-if notes find the profile's line by them).
SKEW_LINE = "partitions are skewed"


def partition_skew(observed: Sequence[TaskTiming]) -> tuple[PartitionSkew | None, str | None]:
    """The hot partition and one line when the reduces' shuffled bytes (else input records)
    are unequal: the largest over :data:`SKEW_RATIO` × the mean; ``(None, None)`` otherwise
    or with fewer than two reduces."""
    for counter in ("REDUCE_SHUFFLE_BYTES", "REDUCE_INPUT_RECORDS"):
        values = [
            t.counters[counter] for t in observed if t.kind == "reduce" and counter in t.counters
        ]
        if len(values) < 2:
            continue
        total = sum(values)
        mean = total / len(values)
        top = max(values)
        if mean <= 0 or top <= SKEW_RATIO * mean:
            return None, None
        share = top / total
        skew = PartitionSkew(
            hot_share=hot_share_of(share, len(values)),
            largest_share=share,
            reducers=len(values),
            counter=counter,
        )
        unit = "B" if counter.endswith("BYTES") else "records"
        return skew, (
            f"{SKEW_LINE}: the largest of {len(values)} reduces got {top / mean:.1f}x the "
            f"mean ({counter} {top:,.0f} vs {mean:,.0f} {unit}); the model prices that reduce "
            f"apart, with a hot share of {skew.hot_share:.0%} that no number of reducers "
            "splits (a hot key stays in one partition): at R reducers the largest holds "
            "h + (1 - h)/R of the map output, an assumption where R differs from the run's"
        )
    return None, None
