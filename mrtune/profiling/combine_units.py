"""Whether a combiner's output counts distinct keys at all.

The key law (:mod:`mrtune.profiling.combine_fit`) reads a combine's output records as the
distinct keys of what it combined, which holds for a combiner that collapses each key to one
record (a sum, a count, a list). Hadoop does not require that.
"""

from __future__ import annotations


def several_per_key(observations: list[tuple[list[float], float]], groups: float) -> str | None:
    """Why the combiner's output is no count of distinct keys, or ``None``.

    A combiner may emit any number of records a key: Hadoop's ``ValueAggregatorCombiner``
    (the examples' AggregateWordHistogram) emits one record per histogram entry under the
    single key ``WORD_HISTOGRAM``. Then a sample's combine output exceeds the job's distinct
    keys, which no key-collapsing combiner can do (one record a key a spill), and a key law
    through REDUCE_INPUT_GROUPS would cap it at them: 2 records predicted for 37,426. The
    combines are then fitted on their own (the Heaps law through the run's combines)."""
    for ns, y in observations:
        if ns and y > len(ns) * groups * (1.0 + 1e-9) + 0.5:
            return (
                f"the combiner emits several records a key ({y:,.0f} combined records of "
                f"{len(ns)} sample(s) against REDUCE_INPUT_GROUPS {groups:,.0f}): its output "
                "counts no distinct keys, so no key law is fitted through the groups"
            )
    return None


__all__ = ["several_per_key"]
