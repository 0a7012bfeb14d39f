"""Partitions of unequal size are said where the profile is made and in a reduce-side what-if.

The fixture is a real local run of the examples' SecondarySort (hadoop-mapreduce-examples
3.4.2, 4 reduces) over 22 MB of "int int" lines with 70% of them on first = 0: its
FirstPartitioner sent 27.1 MB to one reduce and 2.6 MB to each other. The model, which gives
every reduce the mean partition, fetched every segment to memory; Hadoop sent the big reduce's
three 9 MB segments to disk. Nothing had said so.
"""

from __future__ import annotations

from mrtune.calibration.run_profile import profile_from_run
from mrtune.costmodel.profile import TaskTiming
from mrtune.optimizer.whatif_checks import skewed_partitions_note
from mrtune.profiling.partition_skew import partition_skew
from tests.calibration.run_fixtures import records


def _reduce(i: int, shuffle: float) -> TaskTiming:
    return TaskTiming(
        attempt_id=f"r{i}",
        kind="reduce",
        start_ms=0,
        finish_ms=1,
        counters={"REDUCE_SHUFFLE_BYTES": shuffle},
    )


def test_a_skewed_run_says_so_in_its_profile_and_a_reduce_side_whatif() -> None:
    (rec,) = records("examples-secondarysort-skewed.jsonl.gz")
    prof = profile_from_run(rec)
    skew = [w for w in prof.warnings if w.startswith("partitions are skewed")]
    assert len(skew) == 1 and "3.1x the mean" in skew[0] and "27,121,994" in skew[0]
    key = "mapreduce.reduce.shuffle.input.buffer.percent"
    assert skewed_partitions_note(prof, {key: "0.01"}) == skew[0]
    assert skewed_partitions_note(prof, {"mapreduce.task.io.sort.mb": "50"}) is None


def test_equal_partitions_say_nothing() -> None:
    assert partition_skew([_reduce(i, 1e6 * (1 + 0.1 * i)) for i in range(4)]) is None
    assert partition_skew([_reduce(0, 5e6)]) is None  # one reduce: nothing to compare
    assert partition_skew([_reduce(0, 1e6), _reduce(1, 1e6), _reduce(2, 5e6)]) is not None
