"""Partitions of unequal size, said where the profile is made.

The job model gives every reduce the mean partition (``costmodel/reduce_task.py``): its
segments, fetch decisions (to memory or to disk), merges and reduce time. A partitioner that
sends most keys to one reduce breaks that silently: the examples' SecondarySort with 70% of
its records on one first key sent 27.1 MB to one of 4 reduces and 2.6 MB to each other; the
model fetched every segment to memory, while the big reduce's three 9 MB segments were above
the single-shuffle limit and went to disk. The largest reduce also decides the reduce stage
on a cluster, and adding reducers does not split a hot key. Until the model carries the
partition shares, the profile says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from mrtune.costmodel.profile import TaskTiming

#: The largest partition over the mean that is said to break the equal-partition model.
SKEW_RATIO = 1.5


def partition_skew(observed: Sequence[TaskTiming]) -> str | None:
    """One line when the reduces' shuffled bytes (else input records) are unequal: the
    largest over :data:`SKEW_RATIO` × the mean; ``None`` otherwise or with fewer than two."""
    for counter in ("REDUCE_SHUFFLE_BYTES", "REDUCE_INPUT_RECORDS"):
        values = [
            t.counters[counter] for t in observed if t.kind == "reduce" and counter in t.counters
        ]
        if len(values) < 2:
            continue
        mean = sum(values) / len(values)
        top = max(values)
        if mean <= 0 or top <= SKEW_RATIO * mean:
            return None
        unit = "B" if counter.endswith("BYTES") else "records"
        return (
            f"partitions are skewed: the largest of {len(values)} reduces got {top / mean:.1f}x "
            f"the mean ({counter} {top:,.0f} vs {mean:,.0f} {unit}); the model gives every "
            "reduce the mean partition, so the largest reduce's fetches (to memory or disk), "
            "merges and time are understated, and more reducers do not split a hot key"
        )
    return None
