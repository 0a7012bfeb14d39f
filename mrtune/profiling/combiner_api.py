"""Which API a job's combiner comes through, which decides whether the reduce runs it.

Hadoop 2/3's ``ReduceTask.run`` hands the shuffle ``JobConf.getCombinerClass()``: the old
mapred API's ``mapred.combiner.class`` (``JobConf.setCombinerClass``; Hadoop Streaming's
``-combiner``). ``MergeManagerImpl.InMemoryMerger`` then combines each in-memory merge, and
the reduce counts ``COMBINE_INPUT_RECORDS``. A new-API combiner (``Job.setCombinerClass``,
``mapreduce.job.combine.class``) runs on the map side only; the two keys are not aliases.
The cost model reads the answer as :attr:`mrtune.costmodel.profile.JobProfile.old_api_combiner`
(:func:`mrtune.costmodel._reduce_shuffle.shuffle_combines`).
"""

from __future__ import annotations

from collections.abc import Mapping

from mrtune.readers.run_records import RunRecord

OLD_KEY = "mapred.combiner.class"
NEW_KEY = "mapreduce.job.combine.class"


def old_api_combiner(props: Mapping[str, str], reduce_combine_input: float = 0.0) -> bool | None:
    """``True``: the combiner is the old API's; ``False``: the new API's; ``None``: unknown.

    The reduces' own ``COMBINE_INPUT_RECORDS`` are proof: only an old-API combiner runs
    there on Hadoop 2/3 (a record whose configuration was rebuilt from its -D settings and
    counters names no key). Otherwise the configuration's key decides. Hadoop 1's reduces
    combine with either, and the model runs the combiner in their merges whatever this
    says."""
    if reduce_combine_input > 0 or str(props.get(OLD_KEY) or "").strip():
        return True
    if str(props.get(NEW_KEY) or "").strip():
        return False
    return None


def run_combiner_api(rec: RunRecord) -> bool | None:
    """:func:`old_api_combiner` of a local run: the properties it ran with, and its reduces'
    combine input."""
    reduce_in = sum(float(a.counter("COMBINE_INPUT_RECORDS") or 0) for a in rec.reduce_attempts)
    return old_api_combiner(rec.ran_with(), reduce_in)


__all__ = ["NEW_KEY", "OLD_KEY", "old_api_combiner", "run_combiner_api"]
